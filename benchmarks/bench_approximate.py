"""Certified eps-head counts against the float answer, whole processes, in the same run.

For S4D-sized systems (the built-in `s4d-real` and `hippo-legs` families, p = m = 4): `symssm certify
--tolerance 1e-3` (exact Gram matrix, witnesses, the independent check), `symssm check` of the
certificate, and `symssm numeric` (float64 singular values, no certificate) on the same family and n.

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
         ("hippo-legs", 256, 4, 4, 24)]


def _run(args):
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "symssm", *args], capture_output=True, text=True)
    return time.perf_counter() - start, out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    work = tempfile.mkdtemp(prefix="symssm-approx-")
    print(f"medians of {args.repeat} whole processes; tolerance 1e-3\n")
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


if __name__ == "__main__":
    main()
