"""How long Coq takes to re-prove head counts on the reflective route (docs/performance.md).

For each case: a random integer system (entries in [-3, 3]) is certified, ``symssm coq`` writes the
reflective project, and ``coqc`` compiles ``HeadCount.v`` against the two libraries compiled once.
The baseline, measured in the same run, is ``coqc`` on a file with the same imports and nothing
else: what loading mathcomp and the libraries costs before any proof.  A whole ``make`` of a
project is the libraries' compile times plus the ``HeadCount.v`` time.  Wall-clock and CPU
(user + sys of the child) seconds; the CPU figure is the one to compare on a shared machine.

    python benchmarks/bench_coq.py [--cases N16,N32,N64,N64D,copies]
"""

import argparse
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import symssm  # noqa: E402
from symssm.render.coq import LIBRARY, REFLECT_LIBRARY, coq_project  # noqa: E402

IMPORTS = """Set Warnings "-notation-overridden,-ambiguous-paths,-notation-incompatible-prefix".
From mathcomp Require Import all_ssreflect all_algebra.
From Coq Require Import ZArith Uint63.
From Symssm Require Import SymssmLib SymssmReflect.
"""


def _integer(seed, N, p, m, with_D=False):
    rng = random.Random(seed)

    def mat(r, c):
        return [[rng.randint(-3, 3) for _ in range(c)] for _ in range(r)]

    return symssm.ssm(mat(N, N), mat(N, m), mat(p, N), mat(p, m) if with_D else None, name=f"int-N{N}")


def _two_copies(seed, n, p, m):
    rng = random.Random(seed)
    A1 = [[rng.randint(-3, 3) for _ in range(n)] for _ in range(n)]
    B1 = [[rng.randint(-3, 3) for _ in range(m)] for _ in range(n)]
    C1 = [[rng.randint(-3, 3) for _ in range(n)] for _ in range(p)]
    N = 2 * n
    A = [[A1[i % n][j % n] if (i < n) == (j < n) else 0 for j in range(N)] for i in range(N)]
    return symssm.ssm(A, [B1[i % n] for i in range(N)], [r + r for r in C1], name=f"two-copies-{n}")


CASES = {
    "N16": ("N = 16, p = m = 4", lambda: _integer(16, 16, 4, 4), 40),
    "N32": ("N = 32, p = m = 8", lambda: _integer(32, 32, 8, 8), 70),
    "N64": ("N = 64, p = m = 8", lambda: _integer(64, 64, 8, 8), 140),
    "N64D": ("N = 64, p = m = 16, with D (p m = 256)", lambda: _integer(65, 64, 16, 16, True), 140),
    "copies": ("two copies of a 16-state block, p = m = 8 (k = 16 < 32)", lambda: _two_copies(17, 16, 8, 8), 70),
}


def _coqc(lib, folder, name):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    res = subprocess.run(["coqc", "-q", "-R", str(lib), "Symssm", name], cwd=folder, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if res.returncode != 0:
        raise SystemExit(f"coqc failed on {folder}/{name}: {res.stderr[-500:]}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", default=",".join(CASES))
    args = ap.parse_args(argv)
    if shutil.which("coqc") is None:
        raise SystemExit("coqc is not installed")
    with tempfile.TemporaryDirectory(prefix="bench-coq-") as tmp:
        lib = os.path.join(tmp, "lib")
        os.mkdir(lib)
        for src in (LIBRARY, REFLECT_LIBRARY):
            shutil.copy(src, lib)
            wall, cpu = _coqc(lib, lib, os.path.basename(src))
            print(f"| library {os.path.basename(src)} | {wall:.1f} | {cpu:.1f} |")
        base = os.path.join(tmp, "base")
        os.mkdir(base)
        with open(os.path.join(base, "Empty.v"), "w") as fh:
            fh.write(IMPORTS)
        bw, bc = _coqc(lib, base, "Empty.v")
        print(f"| baseline: the imports alone | {bw:.1f} | {bc:.1f} |")
        print("| case | k | certify + project (s) | HeadCount.v wall (s) | CPU (s) | CPU minus baseline (s) |")
        for key in args.cases.split(","):
            label, build, n = CASES[key]
            t = time.perf_counter()
            cert = symssm.certify(build(), n)
            files = coq_project(cert, route="reflect")
            gen = time.perf_counter() - t
            folder = os.path.join(tmp, key)
            os.mkdir(folder)
            with open(os.path.join(folder, "HeadCount.v"), "w") as fh:
                fh.write(files["HeadCount.v"])
            wall, cpu = _coqc(lib, folder, "HeadCount.v")
            print(f"| {label} | {cert['head_count']} | {gen:.1f} | {wall:.1f} | {cpu:.1f} | {cpu - bc:.1f} |")


if __name__ == "__main__":
    main()
