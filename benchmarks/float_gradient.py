"""What a user would compute in floats instead of a gradient certificate (the baseline of bench_large.py).

Reads a spec (entries as float64), takes the spectral radius, solves the discrete Lyapunov equation
for A / r with scipy and the eigenvalues of the solution: no certificate, no exactness.
"""

import json
import sys
from fractions import Fraction

import numpy as np
from scipy.linalg import solve_discrete_lyapunov

data = json.load(open(sys.argv[1]))
A = np.array([[float(Fraction(x)) for x in row] for row in data["A"]])
rho = max(abs(np.linalg.eigvals(A)))
r = min(0.999, rho * 1.05)
P = solve_discrete_lyapunov((A / r).T, np.eye(A.shape[0]))
eig = np.linalg.eigvalsh((P + P.T) / 2)
print(f"rho = {rho:.6g}, r = {r:.6g}, cond(P) = {eig[-1] / eig[0]:.3g}")
