"""Complex SSMs with exact Gaussian-rational entries (diagonal S4D-like systems, rotations written in C).

The head count is then the dimension over C of the span of the complex lags: exact elimination over
Q(i) up to N = 64, modular witnesses (a prime P = 1 mod 4, i mapped to a square root of -1) up to
:data:`MAX_COMPLEX_N`.

Examples
--------
>>> s = complex_ssm([["1/2i", 0], [0, "-1/2i"]], [[1], [1]], [[1, 0], [0, 1]])
>>> s.N, s.entry_text["A"][0]
(2, ['1/2i', '0'])
"""

from itertools import chain
from typing import Optional
from dataclasses import dataclass, field

from ..errors import InputError, LimitError, ShapeError
from ..formats.gaussian import format_gaussian, to_gaussian
from ..formats.limits import check_name
from .system import StateSpaceForm

__all__ = ["ComplexSSM", "complex_ssm", "MAX_COMPLEX_N", "has_imaginary_entries"]

#: Largest state dimension of a complex system (modular witnesses above N = 64; the checker admits the same).
MAX_COMPLEX_N = 1024


def _matrix(name, value):
    if not isinstance(value, (list, tuple)) or not value or not all(isinstance(r, (list, tuple)) for r in value):
        raise InputError(f"{name} must be a non-empty matrix (a list of rows)")
    width = len(value[0])
    if width == 0 or any(len(r) != width for r in value):
        raise ShapeError(f"{name} must be rectangular with at least one column")
    flat = list(chain.from_iterable(value))
    if set(map(type, flat)) <= {str, int}:  # each distinct text or int read once; its entries share one value
        try:
            table = {x: to_gaussian(x) for x in set(flat)}
        except InputError:  # named by the entry-by-entry reading below
            table = None
        if table is not None:
            return tuple(tuple(map(table.__getitem__, row)) for row in value)
    return tuple(tuple(to_gaussian(x, what=f"{name}[{i}][{j}]") for j, x in enumerate(row))
                 for i, row in enumerate(value))


@dataclass(frozen=True, eq=True)
class ComplexSSM(StateSpaceForm):
    """An exact SSM over Q(i); build it with :func:`complex_ssm`."""

    _format_entry = staticmethod(format_gaussian)  # type: ignore[assignment]

    A: tuple
    B: tuple
    C: tuple
    D: Optional[tuple] = None
    name: str = field(default="", compare=False)

    def __hash__(self):
        return hash(self.canonical_text)


def complex_ssm(A, B, C, D=None, *, name=""):
    """Validate and build a :class:`ComplexSSM` (entries: Gaussian rationals, ints, Fractions or strings).

    Parameters
    ----------
    A, B, C : matrix-like
        Nested lists of Gaussian rationals (``"1/2-3i"``), ints, Fractions or strict number strings.
    D : matrix-like, optional
        Feed-through, p x m; an all-zero D is the same as none.
    name : str
        A label carried into certificates.

    Returns
    -------
    ComplexSSM

    Raises
    ------
    ShapeError
        If the shapes do not fit.
    LimitError
        If N exceeds :data:`MAX_COMPLEX_N`.

    Examples
    --------
    >>> system = complex_ssm([["1/2i", 0], [0, "1/3"]], [[1], [1]], [[1, 0], [0, 1]], name="c")
    >>> system.N, system.A[0][0]
    (2, Gaussian('1/2i'))
    """
    check_name(name)
    A, B, C = _matrix("A", A), _matrix("B", B), _matrix("C", C)
    N = len(A)
    if N > MAX_COMPLEX_N:
        raise LimitError(f"complex systems are certified up to N = {MAX_COMPLEX_N}, got {N}")
    if any(len(row) != N for row in A):
        raise ShapeError(f"A is {N}x{len(A[0])} but must be square")
    if len(B) != N:
        raise ShapeError(f"B has {len(B)} rows but A is {N}x{N}")
    if len(C[0]) != N:
        raise ShapeError(f"C has {len(C[0])} columns but A is {N}x{N}")
    if D is not None:
        D = _matrix("D", D)
        if (len(D), len(D[0])) != (len(C), len(B[0])):
            raise ShapeError(f"D is {len(D)}x{len(D[0])} but must be {len(C)}x{len(B[0])}")
        if not any(x for row in D for x in row):
            D = None
    return ComplexSSM(A, B, C, D, name)


def has_imaginary_entries(data):
    """Whether parsed spec JSON has an entry with an imaginary part (then it is a complex system).

    Parameters
    ----------
    data : object
        Parsed spec JSON.

    Returns
    -------
    bool
    """
    for key in ("A", "B", "C", "D"):
        M = data.get(key) if isinstance(data, dict) else None
        if isinstance(M, list):
            rows = [row for row in M if isinstance(row, list)]
            try:
                distinct = set(chain.from_iterable(rows))
            except TypeError:  # unhashable entries: the system's own reading refuses them
                continue
            if any(type(x) is str and x.endswith("i") for x in distinct):
                return True
    return False
