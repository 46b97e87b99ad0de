"""Benchmark: the checker of two source trees on the same head-count certificates, runs alternating.

For each size N a random integer system (entries in [-9, 9], fixed seed; p = m = 16 at N = 512, 32 at
N = 1024) is certified once with the first tree; then each round checks the certificate once with each tree,
each in a fresh interpreter (``check_file`` in-process: no child process, so the CPU time is the check's own),
alternating, and the table gives the median and the least CPU and wall seconds of each tree.  The machine's
load is printed beside each round: on a shared machine only runs that alternate are comparable.

    python benchmarks/bench_check_trees.py --trees /work/main . --sizes 512,1024 --rounds 7
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile

TIMED = r"""
import sys, time
t0, w0 = time.process_time(), time.perf_counter()
from symssm.checker.core import check_file
r = check_file(sys.argv[1])
print(r.code, time.process_time() - t0, time.perf_counter() - w0)
"""
PM = {512: 16, 1024: 32}


def _env(tree):
    # one thread for python-flint and BLAS, so that the CPU time is comparable between runs
    return dict(os.environ, PYTHONPATH=os.path.abspath(tree), SYMSSM_THREADS="1", OPENBLAS_NUM_THREADS="1",
                OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", nargs=2, default=["/work/main", "."], help="two source trees (the first certifies)")
    parser.add_argument("--sizes", default="512,1024")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    folder = tempfile.mkdtemp(prefix="symssm-bench-")
    results = {}
    for N in map(int, args.sizes.split(",")):
        pm = PM.get(N, 16)
        rng = random.Random(N)
        mat = lambda r, c: [[rng.randint(-9, 9) for _ in range(c)] for _ in range(r)]  # noqa: E731
        spec = os.path.join(folder, f"n{N}.json")
        with open(spec, "w") as fh:
            json.dump({"name": f"random-N{N}", "A": mat(N, N), "B": mat(N, pm), "C": mat(pm, N), "n": 10**6}, fh)
        cert = os.path.join(folder, f"c{N}.json")
        subprocess.run([sys.executable, "-m", "symssm", "certify", spec, "-o", cert], check=True,
                       capture_output=True, env=_env(args.trees[0]))
        for r in range(args.rounds):
            for tree in args.trees:
                out = subprocess.run([sys.executable, "-c", TIMED, cert], capture_output=True, text=True, check=True,
                                     env=_env(tree)).stdout.split()
                with open("/proc/loadavg") as fh:
                    load = fh.read().split()[0]
                code, cpu, wall = int(out[0]), float(out[1]), float(out[2])
                assert code == 0, (tree, N)
                results.setdefault((N, tree), []).append((cpu, wall))
                print(f"N = {N} round {r + 1} {tree}: cpu {cpu:.3f} s, wall {wall:.3f} s, load {load}", flush=True)
    print(f"\n| N | p = m | tree | CPU median | CPU least | wall median | wall least |\n|---|---|---|---|---|---|---|")
    for (N, tree), runs in results.items():
        cpu, wall = [x for x, _ in runs], [y for _, y in runs]
        print(f"| {N} | {PM.get(N, 16)} | {tree} | {statistics.median(cpu):.2f} s | {min(cpu):.2f} s | "
              f"{statistics.median(wall):.2f} s | {min(wall):.2f} s |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
