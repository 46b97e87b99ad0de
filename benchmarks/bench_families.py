"""Families with parameters: `symssm certify --family` against the SymPy notebook a user would write.

For each built-in parametric family, the whole `symssm certify --family NAME -n N` command (generic
head count with its proof, every case of the exceptional set, the independent check) beside a SymPy
script that forms the same symbolic lags with `Matrix` and takes `Matrix.rank()` (the generic rank
only: no proof, no exceptional set, no check). Both are whole processes, timed in the same run.

Usage: python benchmarks/bench_families.py [--repeat R]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

SYMPY_RANK = r"""
import json
import sys
import sympy
sys.path.insert(0, sys.argv[1])
from symssm.sources.parametric import parametric_family
fam = parametric_family(sys.argv[2], **json.loads(sys.argv[3]))
def mat(M):
    return sympy.Matrix([[x.as_expr() for x in row] for row in M])
A, B, C = mat(fam.A), mat(fam.B), mat(fam.C)
n = int(sys.argv[4])
rows, X = [], B
for d in range(min(n, fam.N)):
    rows.append(list(C * X))
    X = sympy.simplify(A * X)
print(sympy.Matrix(rows).rank(simplify=True))
"""

CASES = [("rotation-symbolic", {}), ("jordan-symbolic", {}), ("diagonal-symbolic", {"N": 3}),
         ("companion-symbolic", {"N": 3}), ("hippo-legs-step", {"N": 3}), ("s4d-real-step", {"N": 3}),
         ("generic-symbolic", {"N": 2, "p": 2, "m": 2})]


def timed(argv, repeat):
    times, out = [], ""
    for _ in range(repeat):
        start = time.perf_counter()
        result = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT,
                                env=dict(os.environ, PYTHONPATH=ROOT), timeout=600)
        times.append(time.perf_counter() - start)
        if result.returncode != 0:
            raise SystemExit(f"{' '.join(argv[:4])} failed: {result.stderr[-500:]}")
        out = result.stdout
    return statistics.median(times), out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    n = 8
    print(f"{'family':<40} {'symssm s':>9} {'cases':>6} {'complete':>9} {'sympy rank s':>13} {'k':>3} {'sympy k':>8}")
    for name, kw in CASES:
        opts = [f"--{k}={v}" for k, v in kw.items()]
        out_file = os.path.join("/tmp", f"bench-{name}.json")
        t_s, _ = timed([sys.executable, "-m", "symssm", "certify", "--family", name, *opts, "-n", str(n), "-o",
                        out_file], args.repeat)
        cert = json.load(open(out_file))
        t_p, out = timed([sys.executable, "-c", SYMPY_RANK, ROOT, name, json.dumps(kw), str(n)], args.repeat)
        label = name + "".join(f" {k}={v}" for k, v in kw.items())
        print(f"{label:<40} {t_s:>9.2f} {len(cert['bodies']):>6} {str(cert['complete']):>9} {t_p:>13.2f} "
              f"{cert['head_count']:>3} {out.strip():>8}")


if __name__ == "__main__":
    main()
