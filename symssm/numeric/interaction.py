"""The numerical interaction rank of a layer: float blocks, singular values and the gap (not a certificate).

For inputs too large for exact arithmetic (long sequences, float tokens from a trained model), the
blocks ``W_ij`` are formed in float64 and the rank is counted on the unit-normalised rows
``vec(W_ij) / ||W_ij||`` at a relative tolerance, reported with its gap ``s_r / s_(r+1)``.

Examples
--------
>>> from symssm.sources.layers import mamba2_scalar_gate
>>> res = numeric_interaction_rank(mamba2_scalar_gate(["1/2", "1/3", "2"], [[1], [2]], [[1, 1]]))
>>> res.numerical_rank, res.numerical
(1, True)
"""

from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from ..sources.layers import Layer

__all__ = ["NumericInteraction", "numeric_interaction_rank", "float_blocks"]


@dataclass(frozen=True)
class NumericInteraction:
    """A numerical (floating-point) interaction rank; never a certificate."""

    name: str
    kind: str
    n: int
    numerical_rank: int
    singular_values: tuple
    tolerance: float
    gap: float
    numerical: bool = field(default=True)

    def to_json_data(self):
        """JSON-ready dict, labelled numerical."""
        return {"kind": "numerical-interaction-rank", "numerical": True, "layer": self.kind, "name": self.name,
                "n": self.n, "numerical_interaction_rank": self.numerical_rank,
                "singular_values": [float(f"{s:.17g}") for s in self.singular_values], "tolerance": self.tolerance,
                "gap": None if self.gap is None else float(f"{self.gap:.17g}"),
                "note": "floating-point result, not a certificate; 'symssm certify' proves the exact rank"}


def _f(M):
    return np.array([[float(x) for x in row] for row in M], dtype=np.float64)


def float_blocks(layer):
    """The blocks ``vec(W_ij)`` as the rows of a float64 array, in block order."""
    kind, n = layer.kind, layer.n
    params = dict(layer.params)
    rows = []
    if kind == "selective-ssm":
        A = [_f(M) for M in params["A"]]
        B = [_f(M) for M in params["B"]]
        C = [_f(M) for M in params["C"]]
        D = None if params["D"] is None else [_f(M) for M in params["D"]]
        cols = {}
        for j in range(n):
            X = B[j]
            for i in range(j, n):
                if i > j:
                    X = A[i] @ X
                W = C[i] @ X + (D[j] if (D is not None and i == j) else 0)
                cols[(i, j)] = W.reshape(-1)
        rows = [cols[key] for key in sorted(cols)]
    elif kind == "convolution":
        K = [_f(M).reshape(-1) for M in params["kernel"]]
        zero = np.zeros_like(K[0])
        rows = [K[i - j] if i - j < len(K) else zero for i in range(n) for j in range(i + 1)]
    elif kind in ("linear-attention", "softmax-attention"):
        X = _f(params["X"])
        heads = [(_f(Q), _f(K), _f(V)) for Q, K, V in params["heads"]]
        scores = [(X @ Q.T) @ (X @ K.T).T for Q, K, _ in heads]  # (n, n) each
        if kind == "softmax-attention":
            weights = []
            for S in scores:
                Wt = np.zeros_like(S)
                for i in range(n):
                    s = S[i, :i + 1] - np.max(S[i, :i + 1])
                    e = np.exp(s)
                    Wt[i, :i + 1] = e / e.sum()
                weights.append(Wt)
        else:
            weights = scores
        for i in range(n):
            for j in range(i + 1):
                rows.append(sum(weights[h][i, j] * V.reshape(-1) for h, (_, _, V) in enumerate(heads)))
    else:
        rows = [_f(W).reshape(-1) for _, W in params["blocks"]]
    return np.array(rows, dtype=np.float64).reshape(len(rows), layer.p * layer.m)


def numeric_interaction_rank(layer, *, tol=1e-10):
    """Numerical interaction rank at relative tolerance ``tol`` (labelled numerical).

    Raises
    ------
    InputError
        If ``layer`` is not a Layer or ``tol`` is not in (0, 1).
    """
    if not isinstance(layer, Layer):
        raise InputError(f"expected a Layer, got {type(layer).__name__}")
    if isinstance(tol, bool) or not isinstance(tol, (int, float)) or not 0 < tol < 1:
        raise InputError(f"tol must be a number in (0, 1), got {tol!r}")
    R = float_blocks(layer)
    norms = np.linalg.norm(R, axis=1)
    R = R[norms > 0] / norms[norms > 0][:, None]
    s = np.linalg.svd(R, compute_uv=False) if R.size else np.zeros(0)
    s = [float(v) for v in s]
    k = sum(1 for v in s if s and v > tol * s[0])
    gap = s[k - 1] / s[k] if 0 < k < len(s) and s[k] > 0 else None
    return NumericInteraction(layer.name, layer.kind, layer.n, k, tuple(s), float(tol), gap)
