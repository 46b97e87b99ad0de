"""Benchmark: certified head counts against exact-rank baselines, measured in one run.

For random integer systems (entries in [-3, 3], fixed seeds) of growing size it times
  - `symssm certify` (the whole command, interpreter start-up included, n = 10^6),
  - `symssm check` on the certificate it wrote (the independent checker),
  - python-flint's exact rank of the stacked first N lags (fmpz_mat.rank, lags formed exactly),
  - SymPy's Matrix.rank of the same stack, where it finishes within --sympy-timeout seconds,
and prints a table with the ratios baseline / certify.

    python benchmarks/bench_headcount.py                 # the table in docs/performance.md
    python benchmarks/bench_headcount.py --sizes 16,32   # a quick run
    python benchmarks/bench_headcount.py --auto          # exact vs modular, for method="auto"
"""

import argparse
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time

SIZES = {16: 4, 32: 6, 64: 8, 128: 12, 256: 16}


def spec(N, p, m, seed):
    rng = random.Random(seed)
    mat = lambda r, c: [[rng.randint(-3, 3) for _ in range(c)] for _ in range(r)]
    return {"name": f"random-N{N}-p{p}-m{m}-seed{seed}", "A": mat(N, N), "B": mat(N, m), "C": mat(p, N), "n": 10**6}


def timed(cmd, timeout):
    start = time.perf_counter()
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"> {timeout:.0f} s"
    elapsed = time.perf_counter() - start
    if out.returncode != 0:
        raise RuntimeError(f"{cmd} failed: {out.stderr.strip()[-300:]}")
    return elapsed, out.stdout


BASELINE = r"""
import json, sys, time
spec = json.load(open(sys.argv[1])); which = sys.argv[2]
A, B, C = spec["A"], spec["B"], spec["C"]; N = len(A)
start = time.perf_counter()
if which == "flint":
    import flint
    Af, X, Cf = flint.fmpz_mat(A), flint.fmpz_mat(B), flint.fmpz_mat(C)
    rows = []
    for d in range(N):
        rows.append([int(v) for v in (Cf * X).entries()]); X = Af * X
    rank = flint.fmpz_mat(rows).rank()
else:
    import sympy
    Am, X, Cm = sympy.Matrix(A), sympy.Matrix(B), sympy.Matrix(C)
    rows = []
    for d in range(N):
        rows.append(list(Cm * X)); X = Am * X
    rank = sympy.Matrix(rows).rank()
print(rank, time.perf_counter() - start)
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="16,32,64,128,256")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--sympy-timeout", type=float, default=60)
    ap.add_argument("--flint-timeout", type=float, default=600)
    ap.add_argument("--auto", action="store_true", help="time method=exact vs modular in-process (N = 4..32)")
    args = ap.parse_args()
    if args.auto:
        return auto_table(args.seed)
    print(f"# machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.platform()}")
    print("| N | p = m | k | certify (s) | check (s) | flint rank (s) | sympy rank (s) | flint / certify | sympy / certify | check / certify |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    sympy_gave_up = False
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "baseline.py")
        open(base, "w").write(BASELINE)
        for N in [int(x) for x in args.sizes.split(",")]:
            p = m = SIZES.get(N, max(2, N // 16))
            path = os.path.join(tmp, f"N{N}.json")
            cert = os.path.join(tmp, f"N{N}.cert.json")
            json.dump(spec(N, p, m, args.seed), open(path, "w"))
            t_cert, _ = timed([sys.executable, "-m", "symssm", "certify", path, "-o", cert, "--no-verify"], 600)
            k = json.load(open(cert))["head_count"]
            t_check, _ = timed([sys.executable, "-m", "symssm.checker", cert, "-q"], 600)
            t_flint, out = timed([sys.executable, base, path, "flint"], args.flint_timeout)
            if t_flint is not None:
                assert int(out.split()[0]) == k, "flint rank disagrees with the certified head count"
            if sympy_gave_up:
                t_sympy, s_sympy = None, "not run (smaller N timed out)"
            else:
                t_sympy, s_sympy = timed([sys.executable, base, path, "sympy"], args.sympy_timeout)
                if t_sympy is None:
                    sympy_gave_up = True
                else:
                    assert int(s_sympy.split()[0]) == k
            fmt = lambda t, s: f"{t:.2f}" if t is not None else s
            ratio = lambda t: f"{t / t_cert:.1f}x" if t is not None else "-"
            print(f"| {N} | {p} | {k} | {t_cert:.2f} | {t_check:.2f} | {fmt(t_flint, out)} | {fmt(t_sympy, s_sympy)} "
                  f"| {ratio(t_flint)} | {ratio(t_sympy)} | {t_check / t_cert:.2f} |", flush=True)
    print("\nTimes are wall-clock seconds of whole processes (start-up included); baselines form the "
          "lags exactly and rank the stack of the first N lags.")


def auto_table(seed):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    from symssm import ssm
    from symssm.exact.headcount import find_witness

    print("| N | p = m | exact (s) | modular (s) | exact / modular |")
    print("|---|---|---|---|---|")
    for N in (4, 8, 12, 16, 24, 32):
        p = m = 4
        s = spec(N, p, m, seed)
        system = ssm(s["A"], s["B"], s["C"])
        times = []
        for method in ("exact", "modular"):
            start = time.perf_counter()
            for _ in range(3):
                find_witness(system, method=method, max_seconds=1e6)
            times.append((time.perf_counter() - start) / 3)
        print(f"| {N} | {p} | {times[0]:.4f} | {times[1]:.4f} | {times[0] / times[1]:.1f}x |", flush=True)


if __name__ == "__main__":
    main()
