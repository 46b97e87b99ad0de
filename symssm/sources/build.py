"""``symssm.ssm``: an exact system from matrices, over Q or, when an entry is a Gaussian rational, over Q(i).

The command line reads a spec with an entry such as ``"1/2i"`` as a complex system; ``symssm.ssm``
does the same with matrices from Python, so that ``head_count``, ``profile`` and ``certify`` give
the command line's answers for both.

Examples
--------
>>> ssm([["1i"]], [[1]], [[1]]).A
((Gaussian('1i'),),)
>>> type(ssm([[1]], [[1]], [[1]])).__name__
'SSM'
"""

from ..formats.gaussian import Gaussian
from .complex_system import complex_ssm
from .system import ssm as real_ssm

__all__ = ["ssm", "has_gaussian_entries"]


def has_gaussian_entries(*matrices):
    """Whether an entry of these nested lists is a Gaussian rational: a ``Gaussian`` or a text ending in ``i``.

    Parameters
    ----------
    *matrices : object
        Matrices as nested lists or tuples (anything else, None included, has no such entry).

    Returns
    -------
    bool

    Examples
    --------
    >>> has_gaussian_entries([[1, "2/3"]], [["-1/2i"]]), has_gaussian_entries([[1]], None)
    (True, False)
    """
    for M in matrices:
        if not isinstance(M, (list, tuple)):
            continue
        for row in M:
            if not isinstance(row, (list, tuple)):
                continue
            for x in row:
                if isinstance(x, Gaussian) or (type(x) is str and x.strip().endswith("i")):
                    return True
    return False


def ssm(A, B, C, D=None, *, name=""):
    """Validate and build an exact system: an :class:`~symssm.sources.system.SSM` over Q, or a
    :class:`~symssm.sources.complex_system.ComplexSSM` over Q(i) when an entry is a Gaussian rational.

    Parameters
    ----------
    A, B, C : matrix-like
        Nested lists (or tuples) of ints, Fractions, SymPy rationals or strict number strings,
        Gaussian rationals (``"1/2-3i"``, :class:`~symssm.formats.gaussian.Gaussian`); numpy integer
        arrays; SymPy matrices.
    D : matrix-like, optional
        Feed-through, p x m.  An all-zero D is the same as none.
    name : str, optional
        A label carried into certificates (never interpreted).

    Returns
    -------
    SSM or ComplexSSM

    Raises
    ------
    ShapeError
        If the shapes do not fit: ``C is 2x3 but A is 4x4``.
    FloatInExactPathError
        If a binary float is given.
    ParseError
        If an entry is not a number of the strict grammar.
    LimitError
        If a dimension, the number of entries, an entry's digits or the name exceed the limits.

    Examples
    --------
    >>> ssm([[1, 0], [0, 1]], [[1], [0]], [[1, 0, 0]])
    Traceback (most recent call last):
    ...
    symssm.errors.ShapeError: C is 1x3 but A is 2x2 (C must have N = 2 columns)
    >>> import symssm
    >>> symssm.head_count(ssm([["i", 0], [0, "-i"]], [[1], [1]], [[1, 0], [0, 1]]), 10**9)
    2
    """
    if has_gaussian_entries(A, B, C, D):
        return complex_ssm(A, B, C, D, name=name)
    return real_ssm(A, B, C, D, name=name)
