"""Both Coq routes on the same certificates: the figures the route chooser is fitted to (docs/formal.md).

For each case a random system is certified, ``symssm coq --route exact`` and ``--route reflect``
write their projects, and ``coqc`` compiles each ``HeadCount.v`` against the two libraries compiled
once (wall-clock seconds; a build past the timeout is reported as such).  Beside them: the chooser's
estimates (``symssm.render.coq.choose_route``) and the route it takes.

    python benchmarks/bench_coq_routes.py [--timeout 240] [--cases n4-small,n6-p1-d30,...]
"""

import argparse
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
from fractions import Fraction

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import symssm  # noqa: E402
from symssm.render.coq import LIBRARY, REFLECT_LIBRARY, _Data, choose_route, coq_project  # noqa: E402


def _random(seed, N, p, m, num, den=1):
    r = random.Random(seed)
    q = lambda: Fraction(r.randint(-num, num), r.randint(1, den) if den > 1 else 1)  # noqa: E731
    mat = lambda a, b: [[q() for _ in range(b)] for _ in range(a)]  # noqa: E731
    return symssm.ssm(mat(N, N), mat(N, m), mat(p, N), name=f"r{seed}")


#: label -> (system, n): N, p m, and the size of the entries vary.
CASES = {
    "n4-small": (lambda: _random(1, 4, 2, 2, 9, 9), 16),
    "n8-p1-small": (lambda: _random(2, 8, 1, 1, 9), 20),
    "n8-p4-small": (lambda: _random(3, 8, 4, 4, 9), 20),
    "n6-p2-d3": (lambda: _random(4, 6, 2, 2, 999), 20),
    "n6-p2-d6": (lambda: _random(5, 6, 2, 2, 10**6), 20),
    "n6-p1-d30": (lambda: _random(6, 6, 1, 1, 10**30), 20),
    "n8-p4-1e6/100": (lambda: _random(7, 8, 4, 4, 10**6, 100), 20),
    "n4-p2-d30": (lambda: _random(8, 4, 2, 2, 10**30), 20),
    "n8-p2-d3": (lambda: _random(9, 8, 2, 2, 999), 20),
    "n2-p1-d30": (lambda: _random(10, 2, 1, 1, 10**30), 20),
    "n3-p2-d10": (lambda: _random(11, 3, 2, 2, 10**10), 20),
    "n5-p2-small": (lambda: _random(12, 5, 2, 2, 9, 9), 20),
    "n8-p4-d2": (lambda: _random(13, 8, 4, 4, 99), 20),
    "n8-p1-d6": (lambda: _random(14, 8, 1, 1, 10**6), 20),
    "n3-p3-d30": (lambda: _random(15, 3, 3, 3, 10**30), 20),
}


def _compile(lib, text, timeout):
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "HeadCount.v"), "w", encoding="utf-8") as fh:
            fh.write(text)
        start = time.perf_counter()
        try:
            done = subprocess.run(["coqc", "-q", "-R", lib, "Symssm", "HeadCount.v"], cwd=tmp, capture_output=True,
                                  text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return f"> {timeout:g} s"
        took = time.perf_counter() - start
        return f"{took:.1f} s" if done.returncode == 0 else "failed"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=240.0)
    ap.add_argument("--cases", default=",".join(CASES))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as lib:
        for src, name in ((LIBRARY, "SymssmLib.v"), (REFLECT_LIBRARY, "SymssmReflect.v")):
            shutil.copy(src, os.path.join(lib, name))
            subprocess.run(["coqc", "-q", "-R", lib, "Symssm", name], cwd=lib, check=True)
        print("| system | k | exact: estimate, build | reflective: estimate, build | auto |")
        print("|---|---|---|---|---|")
        for label in args.cases.split(","):
            build, n = CASES[label]
            cert = symssm.certify(build(), n)
            route, exact_s, reflect_s = choose_route(cert.data, _Data(cert.data))
            exact = _compile(lib, coq_project(cert, route="exact")["HeadCount.v"], args.timeout)
            reflect = _compile(lib, coq_project(cert, route="reflect")["HeadCount.v"], args.timeout)
            print(f"| {label} | {cert['head_count']} | {exact_s:.0f} s, {exact} | {reflect_s:.0f} s, {reflect} | "
                  f"{route} |", flush=True)


if __name__ == "__main__":
    main()
