"""symssm batch against one symssm certify process per system, per system, same run.

    python benchmarks/bench_batch.py [--count 600] [--sample 20]

Writes COUNT small random specs (N <= 4, p, m <= 2) as JSON Lines, times one ``symssm batch`` over
all of them, and times ``symssm certify`` as a separate process for SAMPLE of them (the per-system
cost of the one-call-per-system way); prints seconds per system and the ratio.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=600)
    parser.add_argument("--sample", type=int, default=20)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="symssm-batch-")
    rng = random.Random(0)
    lines = []
    for i in range(args.count):
        N, p, m = rng.randint(1, 4), rng.randint(1, 2), rng.randint(1, 2)
        mat = lambda r, c: [[rng.randint(-2, 2) for _ in range(c)] for _ in range(r)]
        lines.append(json.dumps({"A": mat(N, N), "B": mat(N, m), "C": mat(p, N), "name": f"sys{i}"}))
    src = os.path.join(work, "in.jsonl")
    open(src, "w").write("\n".join(lines) + "\n")
    env = dict(os.environ, PYTHONPATH=ROOT)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "symssm", "batch", src, "-o", os.path.join(work, "out.jsonl"),
                    "--certificates", os.path.join(work, "certs"), "--no-progress"], check=True, env=env,
                   capture_output=True)
    batch = (time.perf_counter() - start) / args.count
    start = time.perf_counter()
    for i in range(args.sample):
        spec = os.path.join(work, f"s{i}.json")
        open(spec, "w").write(lines[i])
        subprocess.run([sys.executable, "-m", "symssm", "certify", spec, "-o", os.path.join(work, f"c{i}.json")],
                       check=True, env=env, capture_output=True)
    single = (time.perf_counter() - start) / args.sample
    print("| way | seconds per system |\n|---|---|")
    print(f"| symssm batch, {args.count} systems, one run | {batch:.4f} |")
    print(f"| one symssm certify process per system ({args.sample} timed) | {single:.4f} |")
    print(f"ratio: batch is {single / batch:.0f}x faster per system")


if __name__ == "__main__":
    main()
