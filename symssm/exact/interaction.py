"""Interaction operators of the unified framework and their exact interaction rank.

For a layer with a concrete input, the blocks ``W_ij`` (p x m) of ``y_i = sum_j W_ij x_j`` are
computed exactly, and the interaction rank ``r = dim span{W_ij}`` comes with the same kind of
proof as a head count: the blocks, in the order ``(1,1), (2,1), (2,2), (3,1), ...`` (row by row),
have a row rank profile ``b_1 < ... < b_r`` (every other block is a combination of the profile
blocks before it), a nonsingular minor over entry positions, and exact coefficients.

Softmax attention's blocks are irrational; its rank is certified in :mod:`symssm.exact.softmax`.

Examples
--------
>>> from symssm.sources.layers import layer_from_data
>>> conv = layer_from_data({"kind": "convolution", "n": 4, "kernel": [[[1]], [[2]], [[4]]]})
>>> interaction_rank(conv)
1
"""

from dataclasses import dataclass
from fractions import Fraction

from ..errors import CertificateError, InputError
from ..sources import layer_kinds
from ..sources.layers import Layer
from .convert import qq_matrix, to_fraction
from .primes import witness_primes
from .rankprofile import greedy_positions_mod, row_rank_profile_exact

__all__ = ["operator_blocks", "InteractionWitness", "interaction_witness", "interaction_rank"]

_ZERO = Fraction(0)


def _mul(X, Y):
    cols = list(zip(*Y))
    return tuple(tuple(sum((a * b for a, b in zip(row, col)), _ZERO) for col in cols) for row in X)


def _add(X, Y):
    return tuple(tuple(a + b for a, b in zip(r1, r2)) for r1, r2 in zip(X, Y))


def _scale(c, X):
    return tuple(tuple(c * a for a in row) for row in X)


def _dot(u, v):
    return sum((a * b for a, b in zip(u, v)), _ZERO)


def _apply(M, x):
    return tuple(_dot(row, x) for row in M)


def operator_blocks(layer):
    """The blocks ``((i, j), W_ij)`` of an exact layer's interaction operator, in row-by-row order.

    Causal kinds give every pair ``1 <= j <= i <= n`` (zero blocks included); an ``operator`` layer
    gives the pairs it lists.

    Parameters
    ----------
    layer : Layer
        A layer of an exact kind.

    Returns
    -------
    list
        ``((i, j), W_ij)`` pairs, ``W_ij`` a tuple of rows of Fractions.

    Raises
    ------
    InputError
        For a softmax-attention layer (its blocks are not rational).

    Examples
    --------
    >>> from symssm.sources.layers import layer_from_data
    >>> conv = layer_from_data({"kind": "convolution", "n": 2, "kernel": [[[1]], [[2]]]})
    >>> [(ij, W[0][0]) for ij, W in operator_blocks(conv)]
    [((1, 1), Fraction(1, 1)), ((2, 1), Fraction(2, 1)), ((2, 2), Fraction(1, 1))]
    """
    if not isinstance(layer, Layer):
        raise InputError(f"expected a Layer (see symssm.sources.layers), got {type(layer).__name__}")
    blocks = layer_kinds.of(layer.kind).load("exact")
    if blocks is None:
        raise InputError(f"{layer.kind.replace('-', ' ')} has irrational blocks: use symssm.exact.softmax")
    return sorted(blocks(layer).items())


def _zero(layer):
    return tuple(tuple(_ZERO for _ in range(layer.m)) for _ in range(layer.p))


def selective_blocks(layer):
    """A selective SSM's blocks: ``W_ij = C_i A_i ... A_{j+1} B_j`` (j < i), ``W_ii = C_i B_i + D_i``."""
    params = dict(layer.params)
    A, B, C, D = params["A"], params["B"], params["C"], params["D"]
    out = {}
    for j in range(1, layer.n + 1):
        X = B[j - 1]
        W = _mul(C[j - 1], X)
        out[(j, j)] = _add(W, D[j - 1]) if D is not None else W
        for i in range(j + 1, layer.n + 1):
            X = _mul(A[i - 1], X)
            out[(i, j)] = _mul(C[i - 1], X)
    return out


def convolution_blocks(layer):
    """A convolution's blocks: ``W_ij = K_{i-j}`` for ``0 <= i - j < L``, else zero."""
    K, zero = layer.param("kernel"), _zero(layer)
    return {(i, j): K[i - j] if i - j < len(K) else zero for i in range(1, layer.n + 1) for j in range(1, i + 1)}


def linear_attention_blocks(layer):
    """Linear attention's blocks: ``W_ij = sum_h (Q_h x_i . K_h x_j) V_h`` for ``j <= i``."""
    X, heads = layer.param("X"), layer.param("heads")
    q = [[_apply(Q, x) for x in X] for Q, _, _ in heads]
    k = [[_apply(K, x) for x in X] for _, K, _ in heads]
    out = {}
    for i in range(1, layer.n + 1):
        for j in range(1, i + 1):
            W = _zero(layer)
            for h, (_, _, V) in enumerate(heads):
                W = _add(W, _scale(_dot(q[h][i - 1], k[h][j - 1]), V))
            out[(i, j)] = W
    return out


def listed_blocks(layer):
    """An operator's blocks: those its spec lists."""
    return dict(layer.param("blocks"))


@dataclass(frozen=True)
class InteractionWitness:
    """The proof data of an interaction rank.

    Attributes
    ----------
    layer : Layer
    blocks : tuple of ((i, j), W)
        Every block considered, in order.
    pivots : tuple of int
        Indices into ``blocks`` of the row rank profile ``b_1 < ... < b_r``.
    positions : tuple of (int, int)
        Entry positions; ``M_st = W_{b_s}[r_t, c_t]`` has every leading principal minor nonzero.
    coefficients : dict
        ``{index: (c_1, ...)}`` for each nonzero non-profile block: its coefficients over the profile
        blocks before it.
    minor : tuple
    determinant : Fraction
    """

    layer: Layer
    blocks: tuple
    pivots: tuple
    positions: tuple
    coefficients: dict
    minor: tuple
    determinant: Fraction

    @property
    def rank(self):
        """The interaction rank ``r``."""
        return len(self.pivots)


def _row(W):
    return [x for row in W for x in row]


def _integer_row(row):
    from math import lcm

    scale = lcm(1, *(x.denominator for x in row))
    return [int(x * scale) for x in row]


def interaction_witness(layer):
    """The interaction rank of an exact layer with its proof data.

    Parameters
    ----------
    layer : Layer
        A layer of an exact kind.

    Returns
    -------
    InteractionWitness
        The rank, the witness blocks and positions, the minor and the coefficients of every other block.

    Raises
    ------
    InputError
        If the layer is not an exact kind.
    """
    blocks = tuple(operator_blocks(layer))
    rows = [_row(W) for _, W in blocks]
    pivots = row_rank_profile_exact([_integer_row(r) for r in rows]) if rows else []
    pivot_rows = [_integer_row(rows[b]) for b in pivots]
    for prime in witness_primes():
        positions = greedy_positions_mod([[v % prime for v in r] for r in pivot_rows], prime)
        if positions is not None:
            break
    else:  # pragma: no cover
        raise CertificateError("no witness prime found")
    r = len(pivots)
    coefficients = {}
    if r:
        Minv = qq_matrix([[rows[b][t] for t in positions] for b in pivots]).inv()  # rows: pivots, cols: positions
        pivot_set = set(pivots)
        for idx, row in enumerate(rows):
            if idx in pivot_set or not any(row):
                continue
            c = qq_matrix([[row[t] for t in positions]]) * Minv
            coeffs = [to_fraction(x) for x in c.to_list()[0]]
            below = sum(1 for b in pivots if b < idx)
            combo = [sum((coeffs[s] * rows[pivots[s]][e] for s in range(r)), _ZERO) for e in range(len(row))]
            if combo != row or any(coeffs[below:]):  # pragma: no cover - impossible for a row rank profile
                raise CertificateError("internal error: interaction coefficients failed to verify")
            coefficients[idx] = tuple(coeffs[:below])
    minor = tuple(tuple(rows[b][t] for t in positions) for b in pivots)
    det = to_fraction(qq_matrix(minor).det()) if r else Fraction(1)
    m = layer.m
    return InteractionWitness(layer, blocks, tuple(pivots), tuple(divmod(t, m) for t in positions),
                              coefficients, minor, det)


def interaction_rank(layer):
    """``r = dim span{W_ij}`` of an exact layer with its input.

    Parameters
    ----------
    layer : Layer
        A layer of an exact kind.

    Returns
    -------
    int

    Raises
    ------
    InputError
        If the layer is not an exact kind (softmax attention: use :mod:`symssm.exact.softmax`).

    Examples
    --------
    >>> from symssm.sources.layers import layer_from_data
    >>> interaction_rank(layer_from_data({"kind": "convolution", "n": 3, "kernel": [[[1, 0]], [[2, 1]]]}))
    2
    """
    return interaction_witness(layer).rank
