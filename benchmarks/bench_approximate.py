"""Certified eps-head counts against the float answer, whole processes, in the same run.

For S4D-sized systems (the built-in `s4d-real` and `hippo-legs` families, p = m = 4): `symssm certify
--tolerance 1e-3` (exact Gram matrix, witnesses, the independent check), `symssm check` of the
certificate, and `symssm numeric` (float64 singular values, no certificate) on the same family and n.

Then trained S4D checkpoints (S4D-Lin initialisation in float32, state N = 64 and 256, i.e. 32 and 128
complex modes per channel): `symssm model CKPT --tolerance 1e-3 --certificates DIR` (the surrogate, its
brackets and the independent check of every layer) against `symssm model CKPT` (float64 only), and
`symssm check` of the certificate.

    python benchmarks/bench_approximate.py [--repeat 3]

Prints a Markdown table (docs/performance.md records a run).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

CASES = [("s4d-real", 64, 4, 4, 128), ("hippo-legs", 64, 4, 4, 128), ("s4d-real", 256, 4, 4, 24),
         ("hippo-legs", 256, 4, 4, 24), ("s4d-real", 64, 4, 4, 10 ** 6)]  # the last: beyond the exact sum (a tail)
#: Trained S4D layers: (channels H, state N, n).
TRAINED = [(4, 64, 1024), (4, 256, 1024), (16, 64, 1024), (16, 256, 1024), (4, 64, 4096)]


def _s4d_checkpoint(path, H, N, seed=0):
    """An S4D layer as state-spaces/s4 initialises it (S4D-Lin, dt log-uniform in [0.001, 0.1]), float32."""
    import numpy as np

    rng = np.random.default_rng(seed)
    P = N // 2
    log_dt = np.log(0.001) + rng.random(H) * (np.log(0.1) - np.log(0.001))
    np.savez(path, **{"layers.0.kernel.log_dt": log_dt.astype(np.float32),
                      "layers.0.kernel.log_A_real": np.log(np.full((H, P), 0.5)).astype(np.float32),
                      "layers.0.kernel.A_imag": np.tile(np.pi * np.arange(P), (H, 1)).astype(np.float32),
                      "layers.0.kernel.C": (rng.standard_normal((H, P, 2)) * 0.5 ** 0.5).astype(np.float32),
                      "layers.0.D": rng.standard_normal(H).astype(np.float32)})


def trained_table(repeat, work):
    print("\n| S4D layer | n | model --tolerance | check | model (float64) | certified / float | k_eps | "
          "e_(k_eps) <= |")
    print("|---|---|---|---|---|---|---|---|")
    from fractions import Fraction

    for H, N, n in TRAINED:
        ckpt = os.path.join(work, f"s4d-{H}-{N}.npz")
        _s4d_checkpoint(ckpt, H, N)
        out = os.path.join(work, f"certs-{H}-{N}-{n}")
        runs = [_run(["model", ckpt, "-n", str(n), "--tolerance", "1e-3", "--certificates", out, "--json"])
                for _ in range(repeat)]
        report = json.loads(runs[-1][1].stdout)["layers"][0]
        if report.get("certificate") is None:
            print(f"| H = {H}, N = {N} | {n} | not certified: {report.get('certificate_note', '')[:60]} | | | | | |")
            continue
        t_cert = statistics.median(t for t, _ in runs)
        t_check = statistics.median(_run(["check", report["certificate"], "-q"])[0] for _ in range(repeat))
        t_num = statistics.median(_run(["model", ckpt, "-n", str(n)])[0] for _ in range(repeat))
        k = report["certified_head_count"]
        upper = float(Fraction(report["certified_errors"][k]["upper"])) if k is not None else float("nan")
        print(f"| H = {H}, N = {N} | {n} | {t_cert:.2f} s | {t_check:.2f} s | {t_num:.2f} s | {t_cert / t_num:.1f}x "
              f"| {k} | {upper:.3g} |", flush=True)


def _run(args):
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "symssm", *args], capture_output=True, text=True)
    return time.perf_counter() - start, out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--trained-only", action="store_true", help="only the trained-checkpoint table")
    args = parser.parse_args(argv)
    work = tempfile.mkdtemp(prefix="symssm-approx-")
    print(f"medians of {args.repeat} whole processes; tolerance 1e-3\n")
    if args.trained_only:
        trained_table(args.repeat, work)
        return
    print("| family | N | p = m | n | certify --tolerance | check | numeric (float64) | certify / numeric | k_eps "
          "| e_(k_eps) <= |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for fam, N, p, m, n in CASES:
        cert = os.path.join(work, f"{fam}-{N}.json")
        base = ["--family", fam, "--N", str(N), "--p", str(p), "--m", str(m), "-n", str(n)]
        runs = [_run(["certify", *base, "--tolerance", "1e-3", "-o", cert]) for _ in range(args.repeat)]
        if runs[-1][1].returncode != 0:
            print(f"| {fam} | {N} | {p} | {n} | {runs[-1][1].stderr.strip()[:80]} | | | | | |")
            continue
        t_cert = statistics.median(t for t, _ in runs)
        t_check = statistics.median(_run(["check", cert, "-q"])[0] for _ in range(args.repeat))
        t_num = statistics.median(_run(["numeric", *base])[0] for _ in range(args.repeat))
        data = json.load(open(cert))
        k = data["head_count"]
        upper = float(__import__("fractions").Fraction(data["errors"][k]["upper"])) if k is not None else float("nan")
        print(f"| {fam} | {N} | {p} | {n} | {t_cert:.2f} s | {t_check:.2f} s | {t_num:.2f} s | {t_cert / t_num:.1f}x "
              f"| {k} | {upper:.3g} |", flush=True)
    trained_table(args.repeat, work)


if __name__ == "__main__":
    main()
