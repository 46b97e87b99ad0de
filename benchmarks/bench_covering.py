"""Case graphs of parametric certificates: bodies, completeness and time, this tree against a baseline commit.

For every built-in family (at its default and largest sizes) and the layers with parameters of
docs/example/, the whole `symssm certify` command (analysis, every case, the independent check) is
run with this tree's code and with a baseline commit's (exported with `git archive` into a temporary
folder), in the same run; the table gives each one's bodies, whether it is complete, and its time.

Usage: python benchmarks/bench_covering.py [--baseline REV] [--repeat R]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

FAMILIES = [("rotation-symbolic", 2, None), ("jordan-symbolic", 2, None), ("diagonal-symbolic", 3, None),
            ("diagonal-symbolic", 5, None), ("companion-symbolic", 8, None), ("hippo-legs-step", 8, None),
            ("hippo-legt-step", 8, None), ("s4d-real-step", 8, None), ("generic-symbolic", 2, (1, 1)),
            ("generic-symbolic", 2, (2, 2)), ("generic-symbolic", 3, (1, 1))]
LAYERS = ["tap-in-t.json", "scalar-tokens.json", "mamba2-every-gate.json", "cone.json", "tokens-2d.json"]


def run(code, argv, out, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = subprocess.run([sys.executable, "-m", "symssm"] + argv + ["-o", out], capture_output=True,
                                text=True, cwd=code, env=dict(os.environ, PYTHONPATH=code), timeout=900)
        times.append(time.perf_counter() - start)
        if result.returncode != 0:
            return None, result.stderr.strip().splitlines()[-1][:60]
    with open(out) as fh:
        data = json.load(fh)
    return statistics.median(times), (len(data["bodies"]), data["complete"])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="fe0b5d5")
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    cases = [(f"{name} N={N}" + (f" p={pm[0]} m={pm[1]}" if pm else ""),
              ["certify", "--family", name, "-N", str(N)] + (["-p", str(pm[0]), "-m", str(pm[1])] if pm else [])
              + ["-n", "16"]) for name, N, pm in FAMILIES]
    cases += [(f"docs/example/{f}", ["certify", os.path.join(ROOT, "docs", "example", f)]) for f in LAYERS]
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, "base")
        os.makedirs(base)
        archive = subprocess.run(["git", "-C", ROOT, "archive", args.baseline, "symssm"], capture_output=True,
                                 check=True).stdout
        subprocess.run(["tar", "-x", "-C", base], input=archive, check=True)
        print(f"| case | bodies ({args.baseline}) | complete | s | bodies (this tree) | complete | s |")
        print("|---|---|---|---|---|---|---|")
        for label, argv in cases:
            cells = []
            for code in (base, ROOT):
                seconds, result = run(code, argv, os.path.join(tmp, "c.json"), args.repeat)
                if seconds is None:
                    cells += ["-", "-", f"({result})"]
                else:
                    cells += [str(result[0]), "yes" if result[1] else "no", f"{seconds:.2f}"]
            print(f"| {label} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
