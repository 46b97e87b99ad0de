"""Exact head counts near the float limit: certify and check beside the float64 floor, in one run.

    python benchmarks/bench_float_limit.py [--sizes 128,256,512,1024,2048,4096] [--bound B] [--repeat R]
                                           [--baseline REV]

For each N: a random integer system (entries uniform in [-B, B], default B = 2^20) with p = m = 32,
n = 10^6, written as JSON. Whole processes, median of R runs, seconds and peak memory (``/usr/bin/time``):

* the float64 floor: numpy reads the same JSON file and forms the N lags C A^d B (rescaled so they
  stay finite), with no rank and no proof (``FLOOR`` below);
* ``symssm certify`` (its independent verification included) and ``symssm check``;
* python-flint's nmod_mat: the lags mod a prime and their rank, no witness (N <= 1024);
* with ``--baseline REV``, certify and check of the code at that commit (a git worktree), one run each, for the
  sizes it accepts (before N = 4096 was admitted, at most 8,388,608 entries).

Then the growth exponents of floor, certify and check over the sizes (least squares on log-log).
"""

import argparse
import json
import math
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

FLOOR = r"""
import json, sys
import numpy as np
data = json.load(open(sys.argv[1]))
A, X, C = (np.array(data[k], dtype=np.float64) for k in ("A", "B", "C"))
lags = np.empty((A.shape[0], C.shape[0], X.shape[1]))
for d in range(A.shape[0]):
    lags[d] = C @ X
    X = A @ X
    X /= max(1.0, np.abs(X).max())
"""

FLINT_RANK = r"""
import json, sys
import flint
P = 2097143
data = json.load(open(sys.argv[1]))
red = lambda M: flint.nmod_mat([[int(x) % P for x in row] for row in M], P)
A, X, C = red(data["A"]), red(data["B"]), red(data["C"])
rows = []
for d in range(len(data["A"])):
    L = C * X
    rows.append([int(L[i, j]) for i in range(L.nrows()) for j in range(L.ncols())])
    X = A * X
print(flint.nmod_mat(rows, P).rank())
"""


def run(argv, repeat, cwd, env=None):
    """(median seconds, peak KB) of a whole process."""
    times, peaks = [], []
    for _ in range(repeat):
        out = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + argv, capture_output=True, text=True, cwd=cwd,
                             env=env or dict(os.environ, PYTHONPATH=ROOT))
        if out.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed: {out.stderr[-600:]}")
        seconds, kb = out.stderr.strip().splitlines()[-1].split()
        times.append(float(seconds))
        peaks.append(int(kb))
    return statistics.median(times), max(peaks)


def write_system(path, N, pm=32, seed=0, bound=9):
    if bound == 9:  # the system of the earlier tables (entries in [-9, 9]), as they were drawn
        rng = random.Random(seed)
        r = lambda: rng.randint(-9, 9)  # noqa: E731
        data = {"name": f"n{N}", "A": [[r() for _ in range(N)] for _ in range(N)],
                "B": [[r() for _ in range(pm)] for _ in range(N)], "C": [[r() for _ in range(N)] for _ in range(pm)],
                "n": 10**6}
    else:
        import numpy as np

        rng = np.random.default_rng(seed)
        draw = lambda r, c: rng.integers(-bound, bound + 1, (r, c)).tolist()  # noqa: E731
        data = {"name": f"n{N}", "A": draw(N, N), "B": draw(N, pm), "C": draw(pm, N), "n": 10**6}
    with open(path, "w") as fh:
        json.dump(data, fh)


def slope(xs, ys):
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = statistics.mean(lx), statistics.mean(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly)) / sum((a - mx) ** 2 for a in lx)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="128,256,512,1024,2048,4096")
    ap.add_argument("--bound", type=int, default=2**20, help="entries uniform in [-B, B] (9: the earlier tables')")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline", help="a commit to measure beside (certify and check), e.g. 5e8defe")
    args = ap.parse_args()
    sizes = [int(x) for x in args.sizes.split(",")]
    py = sys.executable
    with tempfile.TemporaryDirectory() as folder:
        base_env = None
        if args.baseline:
            tree = os.path.join(folder, "baseline")
            subprocess.run(["git", "worktree", "add", "--detach", tree, args.baseline], cwd=ROOT, check=True,
                           capture_output=True)
            base_env = dict(os.environ, PYTHONPATH=tree)
        with open(os.path.join(folder, "floor.py"), "w") as fh:
            fh.write(FLOOR)
        with open(os.path.join(folder, "flint_rank.py"), "w") as fh:
            fh.write(FLINT_RANK)
        head = "| N | p = m | float floor | certify | certify / floor | check | check / floor | peak MB (floor / certify / check) | flint nmod rank |"
        if args.baseline:
            head += f" certify at {args.baseline} | check at {args.baseline} | peak MB at {args.baseline} |"
        head += " head count |"
        print(head)
        print("|" + "---|" * (head.count("|") - 1))
        table = []
        # one untimed run of each code on a small system first: bytecode caches written, files in the page cache
        write_system(os.path.join(folder, "warm.json"), 16, pm=4, bound=args.bound)
        for env in ([None] + ([base_env] if args.baseline else [])):
            run([py, "-m", "symssm", "certify", "warm.json", "-o", "warm.cert.json"], 1, folder, env)
            run([py, "-m", "symssm", "check", "warm.cert.json"], 1, folder, env)
        try:
            for N in sizes:
                spec = f"n{N}.json"
                write_system(os.path.join(folder, spec), N, bound=args.bound)
                floor = run([py, "floor.py", spec], args.repeat, folder)
                cert = run([py, "-m", "symssm", "certify", spec, "-o", f"n{N}.cert.json"], args.repeat, folder)
                check = run([py, "-m", "symssm", "check", f"n{N}.cert.json"], args.repeat, folder)
                flint = run([py, "flint_rank.py", spec], 1, folder)[0] if N <= 1024 else None
                row = (f"| {N} | 32 | {floor[0]:.2f} s | {cert[0]:.2f} s | {cert[0] / floor[0]:.2f}x | {check[0]:.2f} s | "
                       f"{check[0] / floor[0]:.2f}x | {floor[1] // 1024} / {cert[1] // 1024} / {check[1] // 1024} | "
                       + (f"{flint:.2f} s |" if flint is not None else "not run |"))
                if args.baseline and N * N + 2 * 32 * N <= 8_388_608:
                    bc = run([py, "-m", "symssm", "certify", spec, "-o", f"b{N}.cert.json"], 1, folder, base_env)
                    bk = run([py, "-m", "symssm", "check", f"b{N}.cert.json"], 1, folder, base_env)
                    same = "same bytes" if open(os.path.join(folder, f"b{N}.cert.json"), "rb").read() == \
                        open(os.path.join(folder, f"n{N}.cert.json"), "rb").read() else "DIFFERENT bytes"
                    row += f" {bc[0]:.2f} s | {bk[0]:.2f} s | {bc[1] // 1024} / {bk[1] // 1024} ({same}) |"
                elif args.baseline:
                    row += " refused | - | - |"
                with open(os.path.join(folder, f"n{N}.cert.json"), "rb") as fh:
                    k = int(re.search(rb'"head_count": ([0-9]+)', fh.read()).group(1))
                print(row + f" k = {k} |", flush=True)
                table.append((N, floor[0], cert[0], check[0]))
        finally:
            if args.baseline:
                subprocess.run(["git", "worktree", "remove", "--force", tree], cwd=ROOT, capture_output=True)
        if len(table) >= 2:
            xs = [t[0] for t in table]
            print(f"\ngrowth exponents over N = {xs[0]}..{xs[-1]}: floor {slope(xs, [t[1] for t in table]):.2f}, "
                  f"certify {slope(xs, [t[2] for t in table]):.2f}, check {slope(xs, [t[3] for t in table]):.2f}")


if __name__ == "__main__":
    main()
