"""The numerical interaction rank of a layer: float blocks, the best H-head error curve and the gap (not a certificate).

For inputs too large for exact arithmetic (long sequences, float tokens from a trained model), the
blocks ``W_ij`` are formed in float64.  As for head counts (docs/numeric.md), the numerical interaction
rank at tolerance tau is the least H whose best H-head approximation of the operator (Eckart-Young on the
stack of the blocks, each once) has relative error at most tau, reported with its curve and the gap
``s_r / s_(r+1)``; the rank of the unit-normalised rows ``vec(W_ij) / ||W_ij||`` is kept as a diagnostic
(``normalised_rank``).

Examples
--------
>>> from symssm.sources.layers import mamba2_scalar_gate
>>> res = numeric_interaction_rank(mamba2_scalar_gate(["1/2", "1/3", "2"], [[1], [2]], [[1, 1]]))
>>> res.numerical_rank, res.numerical
(1, True)
"""

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ..errors import InputError
from ..sources import layer_kinds
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
    approximation_error: tuple = ()
    approximation_error_cut: bool = False
    normalised_rank: Optional[int] = None
    normalised_singular_values: tuple = ()
    numerical: bool = field(default=True)

    def to_json_data(self):
        """JSON-ready dict, labelled numerical."""
        f = lambda x: float(f"{x:.17g}")  # noqa: E731
        return {"kind": "numerical-interaction-rank", "numerical": True, "layer": self.kind, "name": self.name,
                "n": self.n, "numerical_interaction_rank": self.numerical_rank,
                "approximation_error": [f(e) for e in self.approximation_error],
                "approximation_error_cut": self.approximation_error_cut,
                "singular_values": [f(s) for s in self.singular_values], "tolerance": self.tolerance,
                "gap": None if self.gap is None else f(self.gap), "normalised_rank": self.normalised_rank,
                "normalised_singular_values": [f(s) for s in self.normalised_singular_values],
                "note": "floating-point result, not a certificate; numerical_interaction_rank is the least H whose "
                        "best H-head relative error is at most the tolerance; 'symssm certify' proves the exact rank"}


def _f(M):
    return np.array([[float(x) for x in row] for row in M], dtype=np.float64)


def float_blocks(layer):
    """The blocks ``vec(W_ij)`` as the rows of a float64 array, in block order (the layer kind's ``numeric``)."""
    rows = layer_kinds.of(layer.kind).load("numeric")(layer)
    return np.array(rows, dtype=np.float64).reshape(len(rows), layer.p * layer.m)


def selective_rows(layer):
    """A selective SSM's blocks in float64, in block order."""
    params, n = dict(layer.params), layer.n
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
    return [cols[key] for key in sorted(cols)]


def convolution_rows(layer):
    """A convolution's blocks in float64, in block order."""
    K = [_f(M).reshape(-1) for M in layer.param("kernel")]
    zero = np.zeros_like(K[0])
    return [K[i - j] if i - j < len(K) else zero for i in range(layer.n) for j in range(i + 1)]


def _attention_rows(layer, weigh):
    X = _f(layer.param("X"))
    heads = [(_f(Q), _f(K), _f(V)) for Q, K, V in layer.param("heads")]
    weights = [weigh((X @ Q.T) @ (X @ K.T).T) for Q, K, _ in heads]  # (n, n) each
    return [sum(weights[h][i, j] * V.reshape(-1) for h, (_, _, V) in enumerate(heads))
            for i in range(layer.n) for j in range(i + 1)]


def linear_attention_rows(layer):
    """Linear attention's blocks in float64 (the scores are the weights), in block order."""
    return _attention_rows(layer, lambda S: S)


def softmax_attention_rows(layer):
    """Softmax attention's blocks in float64 (each row of scores through a softmax over j <= i), in block order."""
    def softmax(S):
        Wt = np.zeros_like(S)
        for i in range(S.shape[0]):
            s = S[i, :i + 1] - np.max(S[i, :i + 1])
            e = np.exp(s)
            Wt[i, :i + 1] = e / e.sum()
        return Wt

    return _attention_rows(layer, softmax)


def listed_rows(layer):
    """An operator's listed blocks in float64, in block order."""
    return [_f(W).reshape(-1) for _, W in layer.param("blocks")]


def numeric_interaction_rank(layer, *, tolerance=1e-10, tol=None, rank_tol=1e-10):
    """Numerical interaction rank at ``tolerance``: the least H whose best H-head relative error is at most it.

    ``tol``: the same (the older name; it wins when given); ``rank_tol``: the singular-value threshold of the
    normalised-row rank (the diagnostic).

    Raises
    ------
    InputError
        If ``layer`` is not a Layer or a tolerance is not in (0, 1).
    """
    from .headcount import _rank, check_tolerance, curve_from_singular_values

    if not isinstance(layer, Layer):
        raise InputError(f"expected a Layer, got {type(layer).__name__}")
    tolerance = check_tolerance(tol if tol is not None else tolerance)
    rank_tol = check_tolerance(rank_tol, "rank_tol")
    R = float_blocks(layer)
    s = np.linalg.svd(R, compute_uv=False) if R.size else np.zeros(0)
    errors, k, gap, cut = curve_from_singular_values(s, tolerance)
    norm = float(np.linalg.norm(s))
    rel = tuple(float(v) / norm for v in s[:64]) if norm > 0 else ()
    norms = np.linalg.norm(R, axis=1)
    unit = R[norms > 0] / norms[norms > 0][:, None]
    r, us, _ = _rank(np.linalg.svd(unit, compute_uv=False) if unit.size else np.zeros(0), rank_tol)
    return NumericInteraction(layer.name, layer.kind, layer.n, k, rel, tolerance, gap, tuple(errors), cut, r,
                              tuple(us[:64]))
