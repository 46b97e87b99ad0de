"""Start-up of the command line: whole processes beside the bare interpreter, in the same run.

    python benchmarks/bench_startup.py [--repeat R] [--before PATH] [--no-bytecode]

Each command runs R times as a subprocess (after one warm-up run), interleaved with ``python -c pass``
so that a drifting machine moves both; printed for each: min and median wall seconds, and the median CPU
seconds (user + system, the children's own accounting: the figure a loaded machine disturbs least).
The commands: ``symssm --help``, a 2x2 ``symssm certify`` (docs/example/rotation.json, its own verification
included) and ``symssm check`` of the certificate it writes.  ``--before PATH``: also time the package
found at PATH (a folder holding an older ``symssm/``, e.g. ``git archive <commit> symssm | tar -x -C PATH``) in
the same run.  Python's bytecode cache is used unless ``--no-bytecode``: then the packages' ``__pycache__``
folders are removed first and PYTHONDONTWRITEBYTECODE=1 keeps them away, so that every symssm module is compiled
at each start (as in this project's CI shell, which sets PYTHONDONTWRITEBYTECODE=1).  Targets: ``--help`` <= 0.2 s and the
2x2 certify <= 0.4 s.
"""

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def once(argv, cwd, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    result = subprocess.run(argv, capture_output=True, text=True, cwd=cwd, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {result.stderr[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--before", metavar="PATH", help="an older package's folder, timed beside this one")
    ap.add_argument("--no-bytecode", action="store_true", help="PYTHONDONTWRITEBYTECODE=1 (compile at every start)")
    args = ap.parse_args()
    py = sys.executable
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if args.no_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    trees = {"": ROOT} if args.before is None else {"": ROOT, " (before)": os.path.abspath(args.before)}
    if args.no_bytecode:
        for tree in trees.values():
            for folder, subfolders, _ in os.walk(os.path.join(tree, "symssm")):
                if "__pycache__" in subfolders:
                    shutil.rmtree(os.path.join(folder, "__pycache__"))
    with tempfile.TemporaryDirectory() as folder:
        spec = os.path.join(ROOT, "docs", "example", "rotation.json")
        commands = {"python -c pass": ([py, "-c", "pass"], ROOT)}
        for tag, tree in trees.items():
            cert = os.path.join(folder, f"rotation{len(commands)}.cert.json")
            commands[f"symssm --help{tag}"] = ([py, "-m", "symssm", "--help"], tree)
            commands[f"symssm certify 2x2{tag}"] = ([py, "-m", "symssm", "certify", spec, "-o", cert], tree)
            commands[f"symssm check 2x2{tag}"] = ([py, "-m", "symssm", "check", cert], tree)
        times = {name: [] for name in commands}
        for name, (argv, tree) in commands.items():  # warm-up: caches, and the certificate the check reads
            once(argv, folder, dict(env, PYTHONPATH=tree))
        for _ in range(args.repeat):
            for name, (argv, tree) in commands.items():
                times[name].append(once(argv, folder, dict(env, PYTHONPATH=tree)))
    base = statistics.median(w for w, _ in times["python -c pass"])
    print(f"# {args.repeat} runs each, interleaved; Python {sys.version.split()[0]}, {os.cpu_count()} cores, "
          f"bytecode cache {'off' if args.no_bytecode else 'on'}, load average {os.getloadavg()[0]:.1f}")
    print(f"{'command':<34} {'min wall':>9} {'median wall':>12} {'median - python':>16} {'median cpu':>11}")
    for name, values in times.items():
        walls = [w for w, _ in values]
        med = statistics.median(walls)
        cpu = statistics.median(c for _, c in values)
        print(f"{name:<34} {min(walls):9.3f} {med:12.3f} {med - base:16.3f} {cpu:11.3f}")


if __name__ == "__main__":
    main()
