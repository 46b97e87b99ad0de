"""Conversions between exact matrices: Fractions, python-flint (fmpz_mat, fmpq_mat, nmod_mat), DomainMatrix over QQ / GF(P).

The one place where the exact core changes representation (as only the facade does in
SymPy's ``polys.matrices``).  A binary float never gets here: systems are validated by
:func:`symssm.ssm`, and these functions accept only ``Fraction`` and ``int`` entries.

Examples
--------
>>> from fractions import Fraction
>>> M = ((Fraction(1, 2), Fraction(3)),)
>>> scaled_fmpz_matrix(M, 2).entries()
[1, 6]
>>> residue_rows(M, 7)
[[4, 3]]
>>> to_fractions(qq_matrix(M).to_list())
((Fraction(1, 2), Fraction(3, 1)),)
"""

from fractions import Fraction

import flint

# SymPy (a third of a second to import) is loaded by the functions that build DomainMatrix values,
# not by this module: the modular path of a large head count never needs it.

__all__ = [
    "qq_matrix",
    "gf_matrix",
    "residue_rows",
    "nmod_matrix",
    "fmpz_matrix",
    "scaled_fmpz_matrix",
    "fmpq_matrix",
    "to_fraction",
    "to_fractions",
]


def _shape(rows):
    return (len(rows), len(rows[0]) if rows else 0)


def qq_matrix(mat):
    """A matrix of Fractions or ints as a dense DomainMatrix over QQ.

    Parameters
    ----------
    mat : sequence of sequence
        Fractions or ints.

    Returns
    -------
    DomainMatrix
    """
    from sympy import QQ
    from sympy.polys.matrices import DomainMatrix

    def qq(x):
        return QQ(x.numerator, x.denominator) if isinstance(x, Fraction) else QQ(int(x))

    return DomainMatrix([[qq(x) for x in row] for row in mat], _shape(mat), QQ).to_dense()


def residue_rows(mat, prime):
    """Each rational ``u/v`` as ``u * v^-1 mod P`` (the caller ensures P divides no denominator).

    Parameters
    ----------
    mat : sequence of sequence of Fraction
        A rational matrix.
    prime : int
        The modulus.

    Returns
    -------
    list of list of int
        Residues in ``[0, P)``.
    """
    return [[x.numerator * pow(x.denominator, -1, prime) % prime if isinstance(x, Fraction) else int(x) % prime
             for x in row] for row in mat]


def gf_matrix(mat, prime):
    """A rational matrix reduced modulo ``prime`` as a dense DomainMatrix over GF(P).

    Parameters
    ----------
    mat : sequence of sequence of Fraction
        A rational matrix whose denominators ``prime`` does not divide.
    prime : int
        The modulus.

    Returns
    -------
    DomainMatrix
    """
    from sympy import GF
    from sympy.polys.matrices import DomainMatrix

    F = GF(prime)
    return DomainMatrix([[F(v) for v in row] for row in residue_rows(mat, prime)], _shape(mat), F).to_dense()


def nmod_matrix(rows, prime):
    """Integer rows (lists, or a numpy array of integral values) as a python-flint ``nmod_mat`` modulo ``prime``.

    Parameters
    ----------
    rows : list of list of int, or numpy.ndarray
        Integer rows.
    prime : int
        The modulus.

    Returns
    -------
    flint.nmod_mat
    """
    if hasattr(rows, "astype"):  # numpy: C-speed conversion to Python ints
        import numpy as np

        return flint.nmod_mat(rows.astype(np.int64).tolist(), prime)
    return flint.nmod_mat([[int(v) for v in row] for row in rows], prime)


def fmpz_matrix(rows):
    """Integer rows as a python-flint ``fmpz_mat``.

    Parameters
    ----------
    rows : list of list of int
        Integer rows.

    Returns
    -------
    flint.fmpz_mat
    """
    return flint.fmpz_mat([list(map(int, row)) for row in rows])


def scaled_fmpz_matrix(mat, scale):
    """``scale * mat`` as a python-flint ``fmpz_mat`` (``scale`` must clear every denominator).

    The exact lags are formed on these: python-flint directly, without SymPy (a third of a second to import).

    Parameters
    ----------
    mat : sequence of sequence of Fraction
        A rational matrix.
    scale : int
        A common multiple of its denominators.

    Returns
    -------
    flint.fmpz_mat

    Examples
    --------
    >>> from fractions import Fraction
    >>> scaled_fmpz_matrix(((Fraction(1, 2), Fraction(3)),), 2).entries()
    [1, 6]
    """
    rows, cols = _shape(mat)
    return flint.fmpz_mat(rows, cols, [int(x * scale) for row in mat for x in row])


def fmpq_matrix(mat):
    """A matrix of Fractions or ints as a python-flint ``fmpq_mat`` (exact rational linear algebra).

    Parameters
    ----------
    mat : sequence of sequence
        Fractions or ints (one row at least).

    Returns
    -------
    flint.fmpq_mat

    Examples
    --------
    >>> from fractions import Fraction
    >>> to_fraction(fmpq_matrix([[Fraction(1, 2), 1], [0, 3]]).det())
    Fraction(3, 2)
    """
    rows, cols = _shape(mat)
    return flint.fmpq_mat(rows, cols, [flint.fmpq(x.numerator, x.denominator) if isinstance(x, Fraction)
                                       else flint.fmpq(int(x)) for row in mat for x in row])


def to_fraction(x):
    """A SymPy QQ / ZZ element, or a flint ``fmpq``/``fmpz``, as a Fraction.

    Parameters
    ----------
    x : object
        A SymPy QQ / ZZ element, or a flint ``fmpq`` / ``fmpz``.

    Returns
    -------
    Fraction
    """
    num = getattr(x, "numerator", None)
    if num is None:
        num = getattr(x, "p")
        den = getattr(x, "q")
    else:
        den = x.denominator
    return Fraction(int(num), int(den))


def to_fractions(rows):
    """A list of lists of QQ elements as a tuple of tuples of Fraction.

    Parameters
    ----------
    rows : list of list
        QQ elements.

    Returns
    -------
    tuple of tuple of Fraction
    """
    return tuple(tuple(to_fraction(x) for x in row) for row in rows)
