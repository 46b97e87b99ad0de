"""Lag operators (Markov parameters) of an SSM, exactly and modulo a prime.

``L_0 = C B + D`` and ``L_d = C A^d B`` for ``d >= 1``.  ``vec(L)`` is the
row-major flattening of the p x m matrix ``L`` (entry ``(r, c)`` at ``r*m + c``).

Examples
--------
>>> from symssm.system import ssm
>>> shift = ssm([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[1], [0], [0]], [[0, 0, 1]])
>>> [L[0][0] for L in lags(shift, 4)]
[Fraction(0, 1), Fraction(0, 1), Fraction(1, 1), Fraction(0, 1)]
"""

from fractions import Fraction

from sympy import GF, QQ, ZZ
from sympy.polys.matrices import DomainMatrix

from .errors import InputError, LimitError
from .system import denominator_lcm

__all__ = ["lags", "lag", "MAX_MATERIALISED_LAGS", "ScaledLagStack", "scaled_lag_stack", "lag_stack_mod"]

#: Most lags :func:`lags` materialises; ask :func:`symssm.head_count` for large n.
MAX_MATERIALISED_LAGS = 100_000


def _int_matrix(mat, scale):
    """``scale * mat`` as a DomainMatrix over ZZ (scale clears every denominator)."""
    rows = [[ZZ(int(x * scale)) for x in row] for row in mat]
    return DomainMatrix(rows, (len(mat), len(mat[0])), ZZ).to_dense()


class ScaledLagStack:
    """Integer lag stack: row d is ``s_d * vec(L_d)``, with positive integers ``s_d``.

    Attributes
    ----------
    rows : list of list of int, shape (count, p*m)
    scales : list of int
        ``s_d``; ``L_d = rows[d] / s_d`` exactly.
    """

    def __init__(self, rows, scales):
        self.rows = rows
        self.scales = scales

    def lag(self, d):
        """Exact ``vec(L_d)`` as a list of Fractions."""
        s = self.scales[d]
        return [Fraction(v, s) for v in self.rows[d]]

    def domain_matrix(self):
        """The stack as a dense DomainMatrix over ZZ (rows = lags)."""
        width = len(self.rows[0]) if self.rows else 0
        return DomainMatrix([[ZZ(v) for v in row] for row in self.rows], (len(self.rows), width), ZZ).to_dense()


def scaled_lag_stack(system, count, *, deadline=None):
    """Exact lags ``L_0 .. L_{count-1}`` as an integer stack (python-flint underneath).

    Denominators are cleared once (``A = A'/a``, ``B = B'/b``, ``C = C'/c``), so
    every product is an integer matrix product; ``s_d = c b a^d`` (``s_0`` also
    clears D's denominators).
    """
    a, b, c = denominator_lcm(system.A), denominator_lcm(system.B), denominator_lcm(system.C)
    delta = denominator_lcm(system.D) if system.has_D else 1
    Ai, X, Ci = _int_matrix(system.A, a), _int_matrix(system.B, b), _int_matrix(system.C, c)
    flat = []
    scales = []
    for d in range(count):
        if deadline is not None:
            deadline.check("computing exact lags")
        L = Ci * X
        if d == 0 and system.has_D:
            Di = _int_matrix(system.D, c * b * delta)
            L = L * ZZ(delta) + Di
            scales.append(c * b * delta)
        else:
            scales.append(c * b * a**d)
        flat.append([int(v) for v in L.to_list_flat()])
        if d + 1 < count:
            X = Ai * X
    return ScaledLagStack(flat, scales)


def lags(system, n):
    """The first ``n`` lag operators ``L_0 .. L_{n-1}``, exactly.

    Parameters
    ----------
    system : SSM
    n : int
        How many lags (at most :data:`MAX_MATERIALISED_LAGS`).

    Returns
    -------
    list of tuple of tuple of Fraction
        ``lags(system, n)[d][r][c]`` is entry (r, c) of ``L_d``.

    Examples
    --------
    >>> from symssm.system import ssm
    >>> lags(ssm([["1/2"]], [[1]], [[1]], [[3]]), 3)
    [((Fraction(4, 1),),), ((Fraction(1, 2),),), ((Fraction(1, 4),),)]
    """
    n = _count(n)
    stack = scaled_lag_stack(system, n)
    out = []
    for d in range(n):
        flat = stack.lag(d)
        out.append(tuple(tuple(flat[r * system.m:(r + 1) * system.m]) for r in range(system.p)))
    return out


def lag(system, d):
    """One lag operator ``L_d`` (``d >= 0``), exactly, by repeated squaring of A.

    Examples
    --------
    >>> from symssm.system import ssm
    >>> lag(ssm([[2]], [[1]], [[1]]), 100)[0][0] == 2**100
    True
    """
    if isinstance(d, bool) or not isinstance(d, int) or d < 0:
        raise InputError(f"lag index must be a non-negative integer, got {d!r}")
    to_qq = lambda mat: DomainMatrix([[QQ(x.numerator, x.denominator) for x in row] for row in mat],
                                     (len(mat), len(mat[0])), QQ).to_dense()
    A, B, C = to_qq(system.A), to_qq(system.B), to_qq(system.C)
    L = C * (A ** d) * B
    if d == 0 and system.has_D:
        L = L + to_qq(system.D)
    return tuple(tuple(Fraction(int(x.numerator), int(x.denominator)) for x in row) for row in L.to_list())


def _count(n):
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise InputError(f"n must be a non-negative integer, got {n!r}")
    if n > MAX_MATERIALISED_LAGS:
        raise LimitError(
            f"lags() would materialise {n} lags; the limit is {MAX_MATERIALISED_LAGS} "
            "(head_count works for any n without forming them)"
        )
    return n


def _mod_matrix(mat, prime, F):
    rows = [[F(x.numerator * pow(x.denominator, -1, prime)) for x in row] for row in mat]
    return DomainMatrix(rows, (len(mat), len(mat[0])), F).to_dense()


def lag_stack_mod(system, count, prime, *, deadline=None):
    """``vec(L_d) mod P`` for ``d < count`` as a list of lists of ints in ``[0, P)``.

    Each rational ``u/v`` maps to ``u * v^{-1} mod P``; the caller ensures P
    divides no denominator (reduction is then a ring homomorphism).
    """
    F = GF(prime)
    A, X, C = _mod_matrix(system.A, prime, F), _mod_matrix(system.B, prime, F), _mod_matrix(system.C, prime, F)
    D = _mod_matrix(system.D, prime, F) if system.has_D else None
    out = []
    for d in range(count):
        if deadline is not None:
            deadline.check("computing lags mod P")
        L = C * X
        if d == 0 and D is not None:
            L = L + D
        out.append([int(v) for v in L.rep.to_list_flat()])
        if d + 1 < count:
            X = A * X
    return out
