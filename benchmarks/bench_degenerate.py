"""Benchmark: a degenerate system (two copies of a random block), whose upper bound needs exact
coefficients.  Usage: python benchmarks/bench_degenerate.py HALF_N P_EQUALS_M  (e.g. 64 12)."""
import random, time, sys
from symssm import ssm, certify
from symssm.exact.headcount import find_witness
rng = random.Random(2)
h = int(sys.argv[1]); p = m = int(sys.argv[2])
R = [[rng.randint(-3, 3) for _ in range(h)] for _ in range(h)]
B1 = [[rng.randint(-3, 3) for _ in range(m)] for _ in range(h)]
C1 = [[rng.randint(-3, 3) for _ in range(h)] for _ in range(p)]
A = [r + [0] * h for r in R] + [[0] * h + r for r in R]
s = ssm(A, B1 + B1, [c + c for c in C1])
t = time.time(); w = find_witness(s, method="modular", max_seconds=1000); print("witness", w.rank, len(w.coefficients), time.time() - t)
t = time.time(); c = certify(s, 10**6); print("certify", time.time() - t)
t = time.time(); r = c.check(); print("check", r.verified, time.time() - t)
