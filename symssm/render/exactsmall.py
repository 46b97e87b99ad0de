"""Small exact computations the LaTeX shows a reader: lags, leading minors, characteristic polynomials.

They run only on systems small enough to be typeset (the renderer asks for nothing larger than
:data:`~symssm.render.tex.MAX_SHOWN`), over the rationals or the Gaussian rationals, with numbers
as ``(real, imaginary)`` pairs of Fractions.  They repeat, for the reader, what the certificate's
checker verified; they are not part of any proof the checker relies on.

Examples
--------
>>> A = [["0", "-1"], ["1", "0"]]
>>> charpoly(A)
['1', '0', '1']
>>> leading_minors([["1", "0"], ["0", "-1"]])
['1', '-1']
>>> lags_of({"A": A, "B": [["1"], ["0"]], "C": [["1", "0"]], "D": None}, [0, 1, 2])
[[['1']], [['0']], [['-1']]]
"""

from fractions import Fraction

from ..formats.rationals import int_to_text
from .tex import parse_number

__all__ = ["lags_of", "leading_minors", "charpoly", "number_text"]


def _num(text):
    return parse_number(text)


def number_text(z):
    """Canonical text of a ``(real, imaginary)`` pair (``"1/2"``, ``"3-1/2i"``)."""
    a, b = z

    def q(x):
        return int_to_text(x.numerator) if x.denominator == 1 else f"{int_to_text(x.numerator)}/{int_to_text(x.denominator)}"

    if b == 0:
        return q(a)
    return (q(a) if a else "") + ("+" if b > 0 and a else "") + q(b) + "i"


def _mul(a, b):
    return (a[0] * b[0] - a[1] * b[1], a[0] * b[1] + a[1] * b[0])


def _add(a, b):
    return (a[0] + b[0], a[1] + b[1])


_ZERO = (Fraction(0), Fraction(0))


def _matmul(X, Y):
    out = []
    for row in X:
        new = []
        for j in range(len(Y[0])):
            acc = _ZERO
            for t, x in enumerate(row):
                if x != _ZERO:
                    acc = _add(acc, _mul(x, Y[t][j]))
            new.append(acc)
        out.append(new)
    return out


def lags_of(system, ds):
    """The exact lags ``L_d`` (``L_0 = CB + D``) for the lags ``ds``, as canonical text rows."""
    A, B, C = ([[_num(x) for x in row] for row in system[k]] for k in "ABC")
    out, need, X, d = {}, set(ds), B, 0
    top = max(ds, default=-1)
    while d <= top:
        if d in need:
            L = _matmul(C, X)
            if d == 0 and system.get("D") is not None:
                L = [[_add(x, _num(y)) for x, y in zip(r1, r2)] for r1, r2 in zip(L, system["D"])]
            out[d] = [[number_text(x) for x in row] for row in L]
        X = _matmul(A, X)
        d += 1
    return [out[d] for d in ds]


def _inv(a):
    n = a[0] * a[0] + a[1] * a[1]
    return (a[0] / n, -a[1] / n)


def leading_minors(rows):
    """The leading principal minors of a square matrix, exactly (text), by Gaussian elimination."""
    M = [[_num(x) for x in row] for row in rows]
    n = len(M)
    out, det = [], (Fraction(1), Fraction(0))
    for j in range(n):
        pivot = M[j][j]
        det = _mul(det, pivot)
        out.append(number_text(det))
        if pivot == _ZERO:
            out += [number_text(_ZERO)] * (n - j - 1)  # not reachable for verified data
            break
        inv = _inv(pivot)
        for i in range(j + 1, n):
            f = _mul(M[i][j], inv)
            if f != _ZERO:
                M[i] = [_add(x, _mul((-f[0], -f[1]), y)) for x, y in zip(M[i], M[j])]
    return out


def charpoly(rows):
    """Coefficients of ``det(x I - A)``, highest degree first (text), by Faddeev--LeVerrier."""
    A = [[_num(x) for x in row] for row in rows]
    n = len(A)
    coeffs = [(Fraction(1), Fraction(0))]
    Mk = [[_ZERO] * n for _ in range(n)]
    for k in range(1, n + 1):
        # M_k = A M_{k-1} + c_{k-1} I ; c_k = -tr(A M_k) / k
        Mk = _matmul(A, Mk) if k > 1 else Mk
        c = coeffs[-1]
        Mk = [[_add(x, c) if i == j else x for j, x in enumerate(row)] for i, row in enumerate(Mk)]
        AM = _matmul(A, Mk)
        tr = _ZERO
        for i in range(n):
            tr = _add(tr, AM[i][i])
        coeffs.append((-tr[0] / k, -tr[1] / k))
    return [number_text(c) for c in coeffs]
