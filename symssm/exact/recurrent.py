"""Exact blocks of the linear-recurrence layers (:mod:`symssm.sources.recurrent`): ``W_ij`` over Q.

``W_ij = Out_i sum_{l=j}^{i} C_il E_(l, l-j) + Post_i E_(i, i-j)``: the heads' coefficients ``c_il`` (one
scalar per head and pair, from the per-token transitions), the value path's maps ``E`` and the output chain.

Examples
--------
>>> from symssm.sources.layers import layer_from_data
>>> layer = layer_from_data({"kind": "retnet", "V": [[1]], "heads": [
...     {"q": [[1], [1]], "k": [[1], [2]], "gamma": "1/2"}]})
>>> sorted((ij, W[0][0]) for ij, W in recurrent_blocks(layer).items())
[((1, 1), Fraction(1, 1)), ((2, 1), Fraction(1, 2)), ((2, 2), Fraction(2, 1))]
"""

from fractions import Fraction

from ..sources.recurrent import check_work, coefficients, head_cores, output_chain, value_taps

__all__ = ["recurrent_blocks", "head_coefficients"]

_ZERO = Fraction(0)


def head_coefficients(layer):
    """Every head's coefficients ``c[h][i][j]`` (0-based tokens, ``j <= i``), exact.

    Parameters
    ----------
    layer : Layer
        A recurrent layer.

    Returns
    -------
    list
        One ``n x n`` lower-triangular table per head.
    """
    return [coefficients(cores, _ZERO) for cores in head_cores(layer)]


def recurrent_blocks(layer):
    """A recurrent layer's blocks ``{(i, j): W_ij}`` (1-based, every ``j <= i``), exact.

    Parameters
    ----------
    layer : Layer
        A recurrent layer (a row of :mod:`symssm.sources.layer_kinds` read by :mod:`symssm.sources.recurrent`).

    Returns
    -------
    dict

    Raises
    ------
    LimitError
        If forming them takes more multiply-adds than the limit the checker shares.
    """
    check_work(layer)
    n, m = layer.n, layer.m
    c = head_coefficients(layer)
    E = value_taps(layer)
    chain = output_chain(layer)
    Dv = len(layer.param("V"))
    dv = Dv // len(c)
    K = len(E[0]) - 1
    post_coef = [[core[6] for core in cores] for cores in head_cores(layer)]
    has_post = any(x != 0 for row in post_coef for x in row)
    out = {}
    for i in range(n):
        Out, Post = chain[i]
        for j in range(i + 1):
            Z = [[_ZERO] * m for _ in range(Dv)]
            for l in range(j, min(i, j + K) + 1):
                M = E[l][l - j]
                for ch in range(Dv):
                    coef = c[ch // dv][i][l]
                    if coef == 0:
                        continue
                    row = Z[ch]
                    for col, x in enumerate(M[ch]):
                        if x:
                            row[col] += coef * x
            W = [[sum((a * b for a, b in zip(orow, (Z[ch][col] for ch in range(Dv)))), _ZERO) for col in range(m)]
                 for orow in Out]
            if has_post and i - j <= K:
                M = E[i][i - j]
                scaled = [[post_coef[ch // dv][i] * x for x in M[ch]] for ch in range(Dv)]
                W = [[w + sum((a * scaled[ch][col] for ch, a in enumerate(prow)), _ZERO) for col, w in enumerate(wrow)]
                     for wrow, prow in zip(W, Post)]
            out[(i + 1, j + 1)] = tuple(tuple(row) for row in W)
    return out
