"""Benchmark: the numeric path against the direct numpy sum over all n lags, in one run.

    python benchmarks/bench_numeric.py                       # the table in docs/performance.md
    python benchmarks/bench_numeric.py --sizes 64,128 --lengths 1000,10000
    python benchmarks/bench_numeric.py --devices cpu,cuda      # the same systems on the host and on a GPU (CuPy)

Systems: stable random Gaussian A scaled to spectral radius 0.9 (seed 0), p = m = 8.  For each
(N, n) it times symssm.numeric_head_count (in-process) and a plain numpy loop accumulating the
Gram matrix of sqrt(n - d) vec(L_d) over all n lags (the baseline, skipped past --baseline-limit
lag-steps), and prints the ratio.  Then the acceptance run: the whole `symssm numeric` command for
N = 512 at n = 10^3 and 10^6.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from symssm.numeric.headcount import numeric_head_count  # noqa: E402


def stable(N, p, m, seed=0):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((N, N))
    A *= 0.9 / max(abs(np.linalg.eigvals(A)))
    return A, rng.standard_normal((N, m)), rng.standard_normal((p, N))


def direct(A, B, C, n):
    p, m = C.shape[0], B.shape[1]
    G = np.zeros((p * m, p * m))
    X = B
    for d in range(n):
        v = (C @ X).reshape(p * m)
        G += (n - d) * np.outer(v, v)
        X = A @ X
    return G


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="64,256,512,1024,2048")
    ap.add_argument("--lengths", default="1000,10000,100000,1000000")
    ap.add_argument("--baseline-limit", type=float, default=2e8, help="max N^2 * n for the baseline")
    ap.add_argument("--devices", default="",
                    help="compare numeric_head_count's devices instead (e.g. cpu,cuda): times, counts, agreement")
    args = ap.parse_args()
    if args.devices:
        return compare_devices(args)
    print("| N | n | symssm numeric (s) | method | k | direct numpy sum (s) | direct / symssm |")
    print("|---|---|---|---|---|---|---|")
    for N in [int(x) for x in args.sizes.split(",")]:
        A, B, C = stable(N, 8, 8)
        for n in [int(x) for x in args.lengths.split(",")]:
            t = time.perf_counter()
            res = numeric_head_count((A, B, C), n)
            t_sym = time.perf_counter() - t
            if N * N * n <= args.baseline_limit:
                t = time.perf_counter()
                direct(A, B, C, n)
                t_dir = time.perf_counter() - t
                base, ratio = f"{t_dir:.2f}", f"{t_dir / t_sym:.1f}x"
            else:
                base, ratio = "not run (too long)", "-"
            print(f"| {N} | {n:.0e} | {t_sym:.2f} | {res.approximation_method} | {res.numerical_head_count} | {base} | {ratio} |",
                  flush=True)
    A, B, C = stable(512, 8, 8)
    with tempfile.TemporaryDirectory() as tmp:
        spec = os.path.join(tmp, "s.json")
        json.dump({"name": "stable-N512", "A": A.tolist(), "B": B.tolist(), "C": C.tolist()}, open(spec, "w"))
        times = {}
        for n in (1000, 10**6):
            t = time.perf_counter()
            subprocess.run([sys.executable, "-m", "symssm", "numeric", spec, "-n", str(n), "--json"], check=True,
                           capture_output=True)
            times[n] = time.perf_counter() - t
    print(f"\nWhole command, N = 512, p = m = 8: n = 10^3: {times[1000]:.2f} s, n = 10^6: {times[10**6]:.2f} s, "
          f"ratio {times[10**6] / times[1000]:.2f} (acceptance: at most 2)")


def compare_devices(args):
    """Time numeric_head_count on each device for the same systems; the counts and error curves must agree."""
    devices = args.devices.split(",")
    print("| N | n | " + " | ".join(f"{d} (s)" for d in devices) + " | method | k | same k | max |e_H diff| |")
    print("|---|---|" + "---|" * len(devices) + "---|---|---|---|")
    for N in [int(x) for x in args.sizes.split(",")]:
        A, B, C = stable(N, 8, 8)
        for n in [int(x) for x in args.lengths.split(",")]:
            times, results = [], []
            for d in devices:
                numeric_head_count((A, B, C), min(n, 100), device=d)  # warm-up (CuPy compiles its kernels)
                t = time.perf_counter()
                results.append(numeric_head_count((A, B, C), n, device=d))
                times.append(time.perf_counter() - t)
            ks = {r.numerical_head_count for r in results}
            curves = [np.asarray(r.approximation_error, dtype=float) for r in results]
            diff = max(float(np.max(np.abs(c - curves[0]))) for c in curves)
            print(f"| {N} | {n:.0e} | " + " | ".join(f"{t:.2f}" for t in times)
                  + f" | {results[0].approximation_method} | {results[0].numerical_head_count} | {len(ks) == 1}"
                  f" | {diff:.1e} |", flush=True)


if __name__ == "__main__":
    main()
