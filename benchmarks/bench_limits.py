"""Certificates at the checker's documented limits: the worst check time and peak memory per kind.

Each case is a certificate of one kind built at (or just under) a limit the checker enforces before
work: honest ones made by the generator, and hostile ones made here (the system hash recomputed, so
the checker reaches its expensive obligations). Each is checked by the command a reviewer runs,
``symssm check CERT`` with no option (no clock; 2 GB of memory). The table shows the verdict, the wall time, the
peak resident memory of the checking processes, and the seconds the charges are calibrated to.

    python benchmarks/bench_limits.py [--quick] [--pure] [--only TEXT]

``--quick`` skips the two cases that take minutes to build (N = 1024 and N = 64 over Q(i)).
Results are recorded in docs/robustness.md.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
from fractions import Fraction

import symssm
from symssm.checker.costs import CALIBRATED_SECONDS

sys.set_int_max_str_digits(0)  # the hostile cases hold 10,000-digit numbers (symssm's own I/O is chunked)


_PROBE = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
          "r = subprocess.run(['symssm', 'check', sys.argv[1]], capture_output=True, text=True); "
          "t = time.perf_counter() - t; out = (r.stdout + r.stderr).strip().splitlines(); "
          "print(r.returncode, t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss); "
          "print(out[0][:70] if out else '')")


def _check(path, pure=False):
    """Exit code, first line, wall time and peak memory (MB) of ``symssm check PATH``, in a fresh process
    (``pure``: the checker without its optional accelerators, ``SYMSSM_CHECKER_PURE=1``)."""
    env = dict(os.environ, SYMSSM_CHECKER_PURE="1") if pure else None
    res = subprocess.run([sys.executable, "-c", _PROBE, path], capture_output=True, text=True, env=env)
    head, verdict = (res.stdout.splitlines() + ["", ""])[:2]
    code, took, peak_kb = head.split()
    return int(code), verdict, float(took), int(peak_kb) / 1024


def _save(folder, name, data):
    path = os.path.join(folder, name)
    with open(path, "w") as fh:
        json.dump(data, fh)
    return path


def head_count_lag_bits(folder):
    """Exact lags just under 33,220 bits: an 8-state system whose B has a 9,500-digit entry."""
    rng = random.Random(1)
    N = 8
    A = [[rng.randint(-3, 3) for _ in range(N)] for _ in range(N)]
    B = [[rng.randint(-3, 3)] for _ in range(N)]
    B[0][0] = int("7" * 9500)
    C = [[rng.randint(-3, 3) for _ in range(N)]]
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        cert = symssm.certify(symssm.ssm(A, B, C, name="lag-bits"), 64, method="exact")
        return _save(folder, "lag-bits.json", json.loads(cert.to_json()))
    finally:
        sys.set_int_max_str_digits(old)


def head_count_large(folder):
    """The largest honest size measured: N = 1024, p = m = 32 (modular witnesses)."""
    rng = random.Random(0)
    N, p, m = 1024, 32, 32
    system = symssm.ssm([[rng.randint(-9, 9) for _ in range(N)] for _ in range(N)],
                        [[rng.randint(-9, 9) for _ in range(m)] for _ in range(N)],
                        [[rng.randint(-9, 9) for _ in range(N)] for _ in range(p)], name="n1024")
    cert = symssm.certify(system, 10 ** 6)
    path = os.path.join(folder, "n1024.json")
    cert.save(path)
    return path


def gaussian_large(folder):
    """Q(i): N = 64, p = m = 4 with one-digit Gaussian rationals (9.2e6 of the 5e7 lag work)."""
    from symssm.sources.complex_system import complex_ssm

    rng = random.Random(0)

    def g():
        b = rng.randint(-9, 9)
        return f"{rng.randint(-9, 9)}/{rng.randint(1, 9)}{'+' if b >= 0 else '-'}{abs(b)}/{rng.randint(1, 9)}i"

    N, p, m = 64, 4, 4
    s = complex_ssm([[g() for _ in range(N)] for _ in range(N)], [[g() for _ in range(m)] for _ in range(N)],
                    [[g() for _ in range(N)] for _ in range(p)])
    path = os.path.join(folder, "gauss64.json")
    symssm.certify(s, 100).save(path)
    return path


def gradient_hostile_P(folder, N=20):
    """Hostile: a positive definite P whose entries share one 10,000-digit denominator (at the limit)."""
    base = symssm.gradient_certificate(symssm.families.diagonal(N), 1000).data
    cert = json.loads(json.dumps(base))
    rng = random.Random(2)
    den = 10 ** 9999 + 7
    P = [[Fraction(0)] * N for _ in range(N)]
    for i in range(N):
        for j in range(i, N):
            x = Fraction(rng.randint(1, 10 ** 50) if i != j else 10 ** 60, den)
            P[i][j] = P[j][i] = x
    from symssm.formats.rationals import format_rational

    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        _version_1(cert, [[format_rational(x) for x in row] for row in P])
        return _save(folder, f"gradient-P-N{N}.json", cert)
    finally:
        sys.set_int_max_str_digits(old)


def gradient_hostile_distinct(folder, N=20):
    """Hostile, refused before work: 1,000-digit entries of P with distinct denominators."""
    base = symssm.gradient_certificate(symssm.families.diagonal(N), 1000).data
    cert = json.loads(json.dumps(base))
    rng = random.Random(3)
    P = [[None] * N for _ in range(N)]
    for i in range(N):
        for j in range(i, N):
            x = Fraction(rng.randint(1, 10 ** 999), rng.randint(10 ** 998, 10 ** 999) | 1)
            P[i][j] = P[j][i] = x
    from symssm.formats.rationals import format_rational

    _version_1(cert, [[format_rational(x) for x in row] for row in P])
    return _save(folder, "gradient-P-distinct.json", cert)


def _version_1(cert, P):
    """The certificate as format version 1 (which the checker still reads), its decay witness the matrix P."""
    cert["version"] = 1
    cert["lyapunov"] = {"P": P, "mu": "1", "M": "2"}


def gradient_hostile_U(folder, N=64):
    """Hostile, version 2: the unit triangular factor's entries over one 10,000-digit denominator, N = 64."""
    base = symssm.gradient_certificate(symssm.families.diagonal(N), 1000).data
    cert = json.loads(json.dumps(base))
    rng = random.Random(4)
    den = 10 ** 9999 + 7
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        U = cert["lyapunov"]["U"]
        for i in range(N):
            for j in range(i + 1, N):
                U[i][j] = f"{rng.choice((1, -1))}/{den}"  # lowest terms: the cost limit is what refuses it
        return _save(folder, f"gradient-U-N{N}.json", cert)
    finally:
        sys.set_int_max_str_digits(old)


def family_largest(folder):
    """The largest honest family measured: diagonal with five symbolic eigenvalues (160,819 term products)."""
    names = ["l1", "l2", "l3", "l4", "l5"]
    A = [[names[i] if i == j else 0 for j in range(5)] for i in range(5)]
    fam = symssm.parametric_ssm(A, [[1]] * 5, [[int(i == j) for j in range(5)] for i in range(5)], parameters=names)
    path = os.path.join(folder, "diag5.json")
    symssm.certify(fam, 6).save(path)
    return path


def layer_at_work_limit(folder):
    """Linear attention near the layer work limit (1e6 multiply-adds): n = 21 tokens, 4 heads, p = m = 32."""
    from symssm.sources.layers import layer_from_data, layer_work

    rng = random.Random(4)
    n, m, p, heads, d = 21, 32, 32, 4, 4
    spec = {"kind": "linear-attention", "name": "work-limit",
            "X": [[rng.randint(-2, 2) for _ in range(m)] for _ in range(n)],
            "heads": [{"Q": [[rng.randint(-2, 2) for _ in range(m)] for _ in range(d)],
                       "K": [[rng.randint(-2, 2) for _ in range(m)] for _ in range(d)],
                       "V": [[rng.randint(-2, 2) for _ in range(m)] for _ in range(p)]} for _ in range(heads)]}
    print(f"  (layer work {layer_work('linear-attention', n, p, m, (heads, d)):,} of 1,000,000)", file=sys.stderr)
    path = os.path.join(folder, "attention-work.json")
    symssm.certify(layer_from_data(spec)).save(path)
    return path


def _family_cert_with(folder, name, formulas):
    """A hostile family certificate: an honest one whose system's formulas are replaced, the hash recomputed
    (the checker parses the formulas before anything else of the system's entries)."""
    from symssm.checker.parametric import parametric_spec_hash
    from symssm.sources.parametric import parametric_from_data

    spec = {"name": "hostile", "parameters": ["t", "s", "u", "v"], "A": [["t", 0], [0, "s"]], "B": [[1], [1]],
            "C": [[1, 1]]}
    data = json.loads(symssm.certify(parametric_from_data(spec)[0], 2).to_json())
    data["system"]["A"] = formulas
    data["input_sha256"] = parametric_spec_hash(data["system"])
    return _save(folder, name, data)


def family_power_bomb(folder):
    """Powers of sums with 10,000-digit constants: the work limit refuses them before the products run."""
    return _family_cert_with(folder, "bomb.json", [["(1e9999*t+1e9999)^30", "(1e9999*s+2e9999)^30"],
                                                   ["(1e9999*u+3e9999)^30", "(2e9999*v+1e9999)^30"]])


def family_small_products_at_the_limit(folder):
    """Formulas whose expansion costs just under the work limit in one-word products (the slowest unit)."""
    return _family_cert_with(folder, "products.json", [["((t+s+1)^54)^3", "((t+s+u+1)^22)^2"], [0, 0]])


def family_step_largest(folder):
    """The heaviest honest built-in family: HiPPO-LegT's step family at N = 8 (determinants of degree 324)."""
    from symssm.sources.parametric import parametric_family

    return _save(folder, "legt-step.json", json.loads(symssm.certify(parametric_family("hippo-legt-step", N=8),
                                                                       16).to_json()))


def _trained(folder, name, arch, tensors, n, tolerance):
    from symssm.certificate.trained import trained_data
    from symssm.formats.jsonio import dumps_canonical
    from symssm.sources.checkpoints import CheckpointLayer
    from symssm.sources.trained import trained_layer

    data = trained_data(trained_layer(CheckpointLayer(name, arch, tensors), "bench.npz"), n, tolerance)
    path = os.path.join(folder, name + ".json")
    with open(path, "w") as fh:
        fh.write(dumps_canonical(data))
    return path


def _s4d(seed, H, P, dt):
    import numpy as np

    rng = np.random.default_rng(seed)
    lo, hi = np.log(dt[0]), np.log(dt[1])
    return {"kernel.log_dt": (lo + rng.random(H) * (hi - lo)).astype(np.float32),
            "kernel.log_A_real": np.log(np.full((H, P), 0.5)).astype(np.float32),
            "kernel.A_imag": np.tile(np.pi * np.arange(P), (H, 1)).astype(np.float32),
            "kernel.C": (rng.standard_normal((H, P, 2)) * 0.5 ** 0.5).astype(np.float32),
            "D": rng.standard_normal(H).astype(np.float32)}


def trained_most_modes(folder):
    """S4D with 16,384 modes (one channel): the modes' enclosures and the recurrence at the work limit."""
    return _trained(folder, "s4d-modes", "s4d", _s4d(3, 1, 16_384, (0.5, 1.0)), 583, "1/10")


def trained_wide(folder):
    """S4D with 64 channels: the Gram matrix and its definiteness tests near their limits."""
    return _trained(folder, "s4d-wide", "s4d", _s4d(4, 64, 4, (0.01, 0.1)), 583, "1/12")


CASES = [
    ("head-count", "exact lags at 33,220 bits (B entry of 9,500 digits)", head_count_lag_bits, False),
    ("head-count", "N = 1024, p = m = 32, modular (honest)", head_count_large, True),
    ("head-count Q(i)", "N = 64, p = m = 4 (honest, 9.2e6 of 5e7 lag work)", gaussian_large, True),
    ("gradient", "version 1, hostile P, N = 20, one 10,000-digit denominator", gradient_hostile_P, False),
    ("gradient", "version 1, hostile P, N = 20, distinct 1,000-digit denominators", gradient_hostile_distinct,
     False),
    ("gradient", "version 2, hostile U, N = 64, one 10,000-digit denominator", gradient_hostile_U, False),
    ("parametric", "diagonal, 5 symbolic eigenvalues (honest)", family_largest, False),
    ("interaction", "linear attention near the work limit", layer_at_work_limit, False),
    ("parametric", "hostile: powers of sums with 10,000-digit constants", family_power_bomb, False),
    ("parametric", "hostile: one-word products just under the work limit", family_small_products_at_the_limit,
     False),
    ("parametric", "HiPPO-LegT step family, N = 8 (honest)", family_step_largest, False),
    ("trained", "S4D, 16,384 modes, n = 583 (honest)", trained_most_modes, False),
    ("trained", "S4D, 64 channels, n = 583 (honest)", trained_wide, False),
]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="skip the cases that take minutes to build")
    ap.add_argument("--pure", action="store_true", help="check without numpy and python-flint (the standard "
                    "library alone), as a reviewer without them would")
    ap.add_argument("--only", default="", help="run only the cases whose kind or description contains this text")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        rows = []
        for kind, what, build, slow in CASES:
            if (slow and args.quick) or args.only not in f"{kind} {what}":
                continue
            print(f"building: {kind}: {what}", file=sys.stderr)
            path = build(folder)
            size = os.path.getsize(path)
            code, verdict, took, peak = _check(path, args.pure)
            rows.append((kind, what, size / 1e6, code, took, peak, CALIBRATED_SECONDS,
                         verdict))
        print("| kind | certificate | MB | exit | check (s) | peak MB | calibrated bound (s) | first line |")
        print("|---|---|---|---|---|---|---|---|")
        for kind, what, mb, code, took, peak, budget, verdict in rows:
            print(f"| {kind} | {what} | {mb:.2f} | {code} | {took:.2f} | {peak:.0f} | {budget:.1f} | `{verdict}` |")


if __name__ == "__main__":
    main()
