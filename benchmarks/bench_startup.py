"""Start-up of the command line: whole processes beside the bare interpreter, in the same run.

    python benchmarks/bench_startup.py [--repeat R]

Each command runs R times as a subprocess (after one warm-up run), interleaved with ``python -c pass``
so that a drifting machine moves both; printed: min and median wall seconds of each, and the median
less the interpreter's.  The commands: ``symssm --help``, a 2x2 ``symssm certify`` (docs/example/rotation.json,
its own verification included) and ``symssm check`` of the certificate it writes.  Targets (issue 48):
``--help`` <= 0.2 s and the 2x2 certify <= 0.4 s.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def once(argv, cwd):
    start = time.perf_counter()
    result = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, env=dict(os.environ, PYTHONPATH=ROOT))
    elapsed = time.perf_counter() - start
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {result.stderr[-500:]}")
    return elapsed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    args = ap.parse_args()
    py = sys.executable
    with tempfile.TemporaryDirectory() as folder:
        cert = os.path.join(folder, "rotation.cert.json")
        commands = {
            "python -c pass": [py, "-c", "pass"],
            "symssm --help": [py, "-m", "symssm", "--help"],
            "symssm certify rotation.json (2x2)": [py, "-m", "symssm", "certify",
                                                   os.path.join(ROOT, "docs", "example", "rotation.json"), "-o", cert],
            "symssm check rotation.cert.json": [py, "-m", "symssm", "check", cert],
        }
        times = {name: [] for name in commands}
        for name, argv in commands.items():  # warm-up (and the certificate check reads)
            once(argv, folder)
        for _ in range(args.repeat):
            for name, argv in commands.items():
                times[name].append(once(argv, folder))
    base = statistics.median(times["python -c pass"])
    print(f"# {args.repeat} runs each, interleaved; Python {sys.version.split()[0]}, {os.cpu_count()} cores")
    print(f"{'command':<38} {'min':>7} {'median':>7} {'median - python':>16}")
    for name, values in times.items():
        med = statistics.median(values)
        print(f"{name:<38} {min(values):7.3f} {med:7.3f} {med - base:16.3f}")


if __name__ == "__main__":
    main()
