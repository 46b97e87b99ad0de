"""Complex systems at scale: Q(i) head counts by modular witnesses beside the real system of the same shape.

    python benchmarks/bench_gaussian_scale.py [--sizes 256,1024] [--repeat R]

For each N: a random Gaussian-integer system (entries a + b i, |a|, |b| <= 9) and a random integer
system of the same shape (p = m = 4), written as JSON; whole processes, median of R runs, seconds:
``symssm certify`` (its own verification included) and ``symssm check`` of each, and the ratios
Q(i) / real (the target: certify at most 3x at N = 256) and check / certify over Q(i).
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def timed(argv, repeat, cwd):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, env=dict(os.environ, PYTHONPATH=ROOT))
        times.append(time.perf_counter() - start)
        if result.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed: {result.stderr[-500:]}")
    return statistics.median(times)


def write_systems(folder, N, p=4, m=4, seed=0):
    rng = random.Random(seed)
    g = lambda: f"{rng.randint(-9, 9)}{rng.choice('+-')}{rng.randint(1, 9)}i"
    r = lambda: rng.randint(-9, 9)
    for name, entry in (("gauss", g), ("real", r)):
        data = {"name": f"{name}{N}", "A": [[entry() for _ in range(N)] for _ in range(N)],
                "B": [[entry() for _ in range(m)] for _ in range(N)], "C": [[entry() for _ in range(N)] for _ in range(p)]}
        with open(os.path.join(folder, f"{name}{N}.json"), "w") as fh:
            json.dump(data, fh)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="256,1024")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    cli = [sys.executable, "-m", "symssm"]
    print("| N | p = m | certify real | certify Q(i) | Q(i) / real | check real | check Q(i) | Q(i) check / certify |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        for N in (int(x) for x in args.sizes.split(",")):
            write_systems(folder, N)
            t = {}
            for name in ("real", "gauss"):
                spec, cert = f"{name}{N}.json", f"{name}{N}.cert.json"
                t["certify", name] = timed(cli + ["certify", spec, "-o", cert], args.repeat, folder)
                t["check", name] = timed(cli + ["check", cert], args.repeat, folder)
            print(f"| {N} | 4 | {t['certify', 'real']:.2f} s | {t['certify', 'gauss']:.2f} s | "
                  f"{t['certify', 'gauss'] / t['certify', 'real']:.2f}x | {t['check', 'real']:.2f} s | "
                  f"{t['check', 'gauss']:.2f} s | {t['check', 'gauss'] / t['certify', 'gauss']:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
