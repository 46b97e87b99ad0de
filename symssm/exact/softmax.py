"""Softmax attention: rigorous interval enclosures of its blocks, and its certified interaction rank.

The blocks ``W_ij = sum_h a^h_ij V_h`` have irrational weights ``a^h_ij = exp(s^h_ij) / sum_{l<=i}
exp(s^h_il)``.  The upper bound is structural (every block lies in ``span{V_h}``, whose rank is
computed exactly); the lower bound is a minor whose determinant is enclosed, by outward-rounded
dyadic interval arithmetic, in an interval that excludes zero.  Everything is rational, so the
same input gives the same certificate on every machine; the checker redoes the enclosure with its
own code.

Examples
--------
>>> lo, hi = exp_interval(Fraction(1), 64)
>>> Fraction(2718281828, 10**9) < lo <= hi < Fraction(2718281829, 10**9) and hi - lo < Fraction(1, 2**50)
True
"""

from fractions import Fraction
from itertools import permutations

from ..errors import CertificateError, LimitError
from .convert import qq_matrix
from .rankprofile import row_rank_profile_exact

__all__ = ["exp_interval", "softmax_weights", "softmax_block_enclosures", "softmax_witness", "PRECISION_BITS",
           "TAYLOR_TERMS", "MAX_SOFTMAX_RANK", "MAX_SCORE"]

#: Bits kept by the outward rounding of every interval operation.
PRECISION_BITS = 128
#: Taylor terms of ``exp`` on ``[0, 1/2]`` (the remainder is bounded explicitly).
TAYLOR_TERMS = 40
#: Largest interaction rank certified for softmax attention (the determinant is expanded by permutations).
MAX_SOFTMAX_RANK = 6
#: Largest absolute attention score (the checker has the same limit).
MAX_SCORE = 2**20


def _down(x, prec):
    if x == 0:
        return Fraction(0)
    s = prec - (abs(x.numerator).bit_length() - x.denominator.bit_length())
    if s >= 0:
        return Fraction((x.numerator << s) // x.denominator, 1 << s)
    return Fraction((x.numerator // (x.denominator << -s)) << -s)


def _up(x, prec):
    return -_down(-x, prec)


def _mul(a, b, prec):
    products = [a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1]]
    return _down(min(products), prec), _up(max(products), prec)


def _add(a, b, prec):
    return _down(a[0] + b[0], prec), _up(a[1] + b[1], prec)


def exp_interval(t, prec=PRECISION_BITS, terms=TAYLOR_TERMS):
    """An interval ``(lo, hi)`` of dyadic rationals with ``lo <= exp(t) <= hi`` for rational ``t``.

    Parameters
    ----------
    t : Fraction
        The exponent.
    prec : int
        Fractional bits of the bounds.
    terms : int
        Taylor terms.

    Returns
    -------
    tuple of Fraction
        ``(lo, hi)``.

    Raises
    ------
    LimitError
        If ``|t|`` exceeds :data:`MAX_SCORE`.
    """
    t = Fraction(t)
    if abs(t) > MAX_SCORE:
        raise LimitError(f"an attention score of {float(t):.3g} exceeds the limit of {MAX_SCORE} in absolute value")
    if t < 0:
        lo, hi = exp_interval(-t, prec, terms)
        return _down(1 / hi, prec), _up(1 / lo, prec)
    j = 0
    while t / 2**j > Fraction(1, 2):
        j += 1
    u = t / 2**j
    lo = _series(_down(u, prec), prec, terms, _down)
    top = _up(u, prec)
    hi = _series(top, prec, terms, _up)
    term = Fraction(1)
    for k in range(1, terms + 2):
        term = _up(term * top / k, prec)
    hi = _up(hi + 2 * term, prec)  # remainder <= u^(K+1)/(K+1)! e^u <= 2 u^(K+1)/(K+1)! for u <= 1/2
    for _ in range(j):
        lo, hi = _down(lo * lo, prec), _up(hi * hi, prec)
    return lo, hi


def _series(u, prec, terms, rnd):
    """``sum_{k <= terms} u^k / k!`` for ``u >= 0`` with every step rounded by ``rnd``."""
    total, term = Fraction(1), Fraction(1)
    for k in range(1, terms + 1):
        term = rnd(term * u / k, prec)
        total = rnd(total + term, prec)
    return total


def _dot(u, v):
    return sum((a * b for a, b in zip(u, v)), Fraction(0))


def softmax_weights(layer, prec=PRECISION_BITS):
    """``{(h, i, j): (lo, hi)}`` enclosures of the attention weights ``a^h_ij`` for ``j <= i``.

    Parameters
    ----------
    layer : Layer
        A softmax-attention layer.
    prec : int
        Fractional bits of the enclosures.

    Returns
    -------
    dict
    """
    X = layer.param("X")
    out = {}
    for h, (Q, K, _) in enumerate(layer.param("heads")):
        q = [[_dot(row, x) for row in Q] for x in X]
        k = [[_dot(row, x) for row in K] for x in X]
        for i in range(1, layer.n + 1):
            scores = [_dot(q[i - 1], k[l - 1]) for l in range(1, i + 1)]
            top = max(scores)
            e = [exp_interval(s - top, prec) for s in scores]  # each in (0, 1]
            total = (Fraction(0), Fraction(0))
            for x in e:
                total = _add(total, x, prec)
            for j in range(1, i + 1):
                out[(h, i, j)] = (_down(e[j - 1][0] / total[1], prec), _up(e[j - 1][1] / total[0], prec))
    return out


def softmax_block_enclosures(layer, prec=PRECISION_BITS):
    """``{(i, j): [[(lo, hi), ...], ...]}``: entrywise enclosures of every block ``W_ij`` (j <= i).

    Parameters
    ----------
    layer : Layer
        A softmax-attention layer.
    prec : int
        Fractional bits of the enclosures.

    Returns
    -------
    dict
    """
    weights = softmax_weights(layer, prec)
    heads = layer.param("heads")
    out = {}
    for i in range(1, layer.n + 1):
        for j in range(1, i + 1):
            W = []
            for r in range(layer.p):
                row = []
                for c in range(layer.m):
                    acc = (Fraction(0), Fraction(0))
                    for h, (_, _, V) in enumerate(heads):
                        v = V[r][c]
                        acc = _add(acc, _mul(weights[(h, i, j)], (v, v), prec), prec)
                    row.append(acc)
                W.append(row)
            out[(i, j)] = W
    return out


def determinant_interval(M, prec=PRECISION_BITS):
    """An enclosure of the determinant of a square matrix of intervals (expansion by permutations)."""
    k = len(M)
    total = (Fraction(0), Fraction(0))
    for perm in permutations(range(k)):
        sign = 1
        for a in range(k):
            for b in range(a + 1, k):
                if perm[a] > perm[b]:
                    sign = -sign
        term = (Fraction(sign), Fraction(sign))
        for s in range(k):
            term = _mul(term, M[s][perm[s]], prec)
        total = _add(total, term, prec)
    return total


def value_rank(layer):
    """Exact rank of ``{V_h}`` (flattened), the structural upper bound of the interaction rank."""
    rows = [[x for row in V for x in row] for _, _, V in layer.param("heads")]
    from math import lcm

    ints = [[int(x * lcm(1, *(y.denominator for y in r))) for x in r] for r in rows]
    return len(row_rank_profile_exact(ints))


def softmax_witness(layer, prec=PRECISION_BITS):
    """``(r, blocks, positions)``: a certified interaction rank of a softmax-attention layer.

    The candidate blocks and positions come from the exact row rank profile of the enclosures'
    midpoints; the claim holds only once the determinant's enclosure excludes zero.

    Parameters
    ----------
    layer : Layer
        A softmax-attention layer.
    prec : int
        Fractional bits of the enclosures.

    Returns
    -------
    tuple
        ``(r, blocks, positions)``.

    Raises
    ------
    CertificateError
        If no minor of size ``rank{V_h}`` can be certified nonzero (the rank is then not decided).
    LimitError
        If ``rank{V_h}`` exceeds :data:`MAX_SOFTMAX_RANK`.
    """
    k = value_rank(layer)
    if k > MAX_SOFTMAX_RANK:
        raise LimitError(f"softmax attention with value maps of rank {k}: certificates are made up to rank "
                         f"{MAX_SOFTMAX_RANK}")
    enclosures = softmax_block_enclosures(layer, prec)
    order = sorted(enclosures)
    mids = [[(lo + hi) / 2 for row in enclosures[b] for lo, hi in row] for b in order]
    from math import lcm

    ints = [[int(x * lcm(1, *(y.denominator for y in r))) for x in r] for r in mids]
    pivots = row_rank_profile_exact(ints)[:k]
    if len(pivots) < k:
        raise CertificateError(f"the softmax weights make the blocks nearly dependent: no {k}x{k} minor could be "
                               "certified, so the interaction rank is not decided")
    positions = list(qq_matrix([mids[b] for b in pivots]).rref()[1])
    minor = [[enclosures[order[b]][t // layer.m][t % layer.m] for t in positions] for b in pivots]
    lo, hi = determinant_interval(minor, prec)
    if lo <= 0 <= hi:
        raise CertificateError(f"the determinant enclosure [{float(lo):.3g}, {float(hi):.3g}] of the best minor "
                               "contains zero, so the interaction rank is not decided")
    return k, [order[b] for b in pivots], [divmod(t, layer.m) for t in positions]

