"""The plain numpy script a user would write (the baseline of bench_large.py's numeric row).

Loads an .npz spec, forms the first N unit-normalised lags vec(L_d) / ||L_d|| (renormalising the
state block), and takes the singular values of their stack; prints the numerical rank at 1e-10.
"""

import sys

import numpy as np

with np.load(sys.argv[1]) as z:
    A, B, C = z["A"], z["B"], z["C"]
N = A.shape[0]
X, rows = B, []
for _ in range(N):
    v = (C @ X).reshape(-1)
    rows.append(v / np.linalg.norm(v))
    X = A @ X
    X = X / np.linalg.norm(X)
s = np.linalg.svd(np.array(rows), compute_uv=False)
print(int((s > 1e-10 * s[0]).sum()))
