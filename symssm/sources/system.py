"""The linear state space model: a small immutable object, validated once.

``h_0 = 0, h_i = A h_{i-1} + B x_i, y_i = C h_i + D x_i`` with exact rational
``A`` (N x N), ``B`` (N x m), ``C`` (p x N) and optional ``D`` (p x m).

Examples
--------
>>> sys = ssm([[0, 1], [-1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]], name="rotation")
>>> sys.N, sys.m, sys.p, sys.has_D
(2, 2, 2, False)
>>> sys.entry("A", 0, 1)
Fraction(1, 1)
"""

from typing import Optional
import hashlib
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import chain
from operator import attrgetter
from functools import cached_property
from math import lcm

from ..errors import FloatInExactPathError, InputError, LimitError, ShapeError
from ..formats.intmatrix import IntegerMatrix, from_array
from ..formats.jsonio import dumps_canonical_matrices
from ..formats.limits import MAX_DIM, MAX_ENTRIES, MAX_INTEGER_ENTRIES, check_name
from ..formats.rationals import format_rational, to_fraction

__all__ = ["SSM", "StateSpaceForm", "IntRows", "ssm", "check_shapes", "exact_matrix", "canonical_system",
           "system_sha256", "denominator_lcm"]

#: Matrices with this many entries are indexed with numpy (:meth:`StateSpaceForm.entry_codes`), whose import
#: (about 0.07 s) they repay; from ``_NUMPY_SOME`` entries on, once something else has imported it.  Smaller
#: ones stay in the standard library (a small system, or a gradient certificate, imports no numpy).
_NUMPY_ENTRIES = 2**18
_NUMPY_SOME = 4096


def _use_numpy(entries):
    return entries >= _NUMPY_ENTRIES or (entries >= _NUMPY_SOME and "numpy" in sys.modules)


def denominator_lcm(mat):
    """Least common multiple of the denominators of a matrix of Fractions.

    Parameters
    ----------
    mat : sequence of sequence of Fraction
        A matrix.

    Returns
    -------
    int

    Examples
    --------
    >>> from fractions import Fraction
    >>> denominator_lcm(((Fraction(1, 4), Fraction(1, 6)),))
    12
    """
    return lcm(1, *(x.denominator for row in mat for x in row))


def _shape(rows):
    return (len(rows), len(rows[0]) if rows else 0)


def _rough_shape(value):
    shape = getattr(value, "shape", None)
    if shape is not None and len(shape) == 2:
        return int(shape[0]), int(shape[1])
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], (list, tuple)):
        return len(value), len(value[0])
    return 0, 0


class IntRows:
    """The rows of an integer matrix held as an :class:`~symssm.formats.intmatrix.IntegerMatrix` (an int64 array
    and its canonical text), read as tuples of Fractions on demand.

    Large integer systems (N = 4096: 17 million entries) are kept this way instead of a tuple of tuples of
    Fractions; the exact core reads them through :meth:`StateSpaceForm.integer_array`, and anything that
    indexes them entry by entry still works (slowly).

    Examples
    --------
    >>> from symssm.formats.intmatrix import parse_matrix
    >>> rows = IntRows(parse_matrix(b"[[1, -2], [3, 4]]"))
    >>> len(rows), rows[1], rows == ((1, -2), (3, 4))
    (2, (Fraction(3, 1), Fraction(4, 1)), True)
    """

    __slots__ = ("matrix",)

    def __init__(self, matrix):
        self.matrix = matrix

    def __len__(self):
        return self.matrix.shape[0]

    def __getitem__(self, i):
        if isinstance(i, slice):
            return tuple(self[k] for k in range(*i.indices(len(self))))
        return tuple(map(Fraction, self.matrix.array[i].tolist()))

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __eq__(self, other):
        if isinstance(other, IntRows):
            return self.matrix == other.matrix
        return isinstance(other, tuple) and tuple(self) == other

    def __hash__(self):
        return hash(self.matrix)

    def __repr__(self):
        return f"IntRows({self.matrix!r})"


def _is_integer_array(value):
    return hasattr(value, "dtype") and getattr(value.dtype, "kind", None) in ("i", "u") and len(value.shape) == 2


def _integer_input(value):
    """Whether ``value`` is read without a Python object per entry (an IntegerMatrix, or a numpy integer array)."""
    return isinstance(value, IntegerMatrix) or _is_integer_array(value)


def _precheck_size(*mats):
    """Refuse an oversized system from its shapes alone, before any entry is converted."""
    total = sum(r * c for r, c in (_rough_shape(M) for M in mats if M is not None))
    limit = MAX_INTEGER_ENTRIES if all(_integer_input(M) for M in mats[:3]) else MAX_ENTRIES
    if total > limit:
        raise LimitError(f"the system has about {total} entries; the limit is {limit}"
                         + (f" ({MAX_INTEGER_ENTRIES} for integer matrices below 10^18)" if limit == MAX_ENTRIES
                            and total <= MAX_INTEGER_ENTRIES else ""))


def _is_inexact(dtype):
    """Whether an array dtype (numpy, JAX, torch) holds floats or complex numbers."""
    if getattr(dtype, "is_floating_point", False) or getattr(dtype, "is_complex", False):  # torch
        return True
    kind = getattr(dtype, "kind", None)  # numpy and JAX
    if isinstance(kind, str) and kind:
        return kind in "fc"
    text = str(dtype).lower()
    return any(word in text for word in ("float", "complex", "half", "bfloat"))


def _matrix(name, value):
    """Turn nested lists, numpy integer arrays or SymPy matrices into a tuple of tuples of Fraction."""
    return _coded_matrix(name, value)[0]


def exact_matrix(name, value):
    """One matrix read exactly, by the grammar and limits of :func:`ssm` (its shape in a system is not checked).

    Parameters
    ----------
    name : str
        The matrix's name in messages (``"A"``).
    value : matrix-like
        As :func:`ssm` takes.

    Returns
    -------
    tuple of tuple of Fraction

    Raises
    ------
    InputError
        As :func:`ssm`: an entry outside the strict grammar, a float, a ragged or oversized matrix.

    Examples
    --------
    >>> exact_matrix("B", [["1/2", 3]])
    ((Fraction(1, 2), Fraction(3, 1)),)
    """
    return _matrix(name, value)


def _coded_matrix(name, value):
    """``(matrix, coded)``: the tuple of tuples of Fraction (see :func:`_matrix`), and for a large matrix of ints
    and texts its ``(values, codes)`` (:meth:`StateSpaceForm.entry_codes`), found while reading it; else None.

    A matrix of integers read by the fast path (an IntegerMatrix), or a large numpy integer array, becomes
    :class:`IntRows` instead: no Python object per entry.
    """
    if isinstance(value, IntegerMatrix):
        _check_dims(name, value.shape)
        return IntRows(value), None
    if _is_integer_array(value) and type(value).__module__.split(".")[0] == "numpy" and value.size >= _NUMPY_ENTRIES:
        _check_dims(name, value.shape)
        matrix = from_array(value)
        if matrix is not None:
            return IntRows(matrix), None
    if hasattr(value, "dtype") and hasattr(value, "shape"):  # numpy, torch, JAX and other arrays
        if _is_inexact(value.dtype):
            raise FloatInExactPathError(
                f"{name} is a float array ({value.dtype}); the exact path takes integers or "
                "fractions. Use symssm.numeric for float systems, or pass exact strings"
            )
        if len(value.shape) != 2:
            raise ShapeError(f"{name} must be a 2-D matrix, got an array of shape {tuple(value.shape)}")
        if hasattr(value, "detach"):  # torch: leave the autograd graph and the device first
            value = value.detach().cpu()
        value = value.tolist()
    elif hasattr(value, "tolist") and hasattr(value, "shape"):  # SymPy Matrix
        value = value.tolist()
    if not isinstance(value, (list, tuple)):
        raise InputError(f"{name} must be a matrix (a list of rows), got {type(value).__name__}")
    if len(value) > MAX_DIM:
        raise LimitError(f"{name} has {len(value)} rows; the limit is {MAX_DIM}")
    width = None
    for i, row in enumerate(value):
        if not isinstance(row, (list, tuple)):
            raise InputError(f"{name}[{i}] must be a row (a list), got {type(row).__name__}")
        if width is None:
            width = len(row)
            if width > MAX_DIM:
                raise LimitError(f"{name} has {width} columns; the limit is {MAX_DIM}")
        elif len(row) != width:
            raise ShapeError(f"{name} is ragged: row 0 has {width} entries but row {i} has {len(row)}")
    if all(type(x) is Fraction for row in value for x in row) and \
            all(x.numerator.bit_length() <= 33_000 and x.denominator.bit_length() <= 33_000 for row in value for x in row):
        return tuple(map(tuple, value)), None  # Fractions well within the digit limit: taken as they are
    table = _distinct_entries(value)
    if table is None:
        return tuple(tuple(to_fraction(x, what=f"{name}[{i}][{j}]") for j, x in enumerate(row))
                     for i, row in enumerate(value)), None
    # Each distinct int or text is converted once, and its entries share one Fraction.
    rows, cols = len(value), len(value[0]) if value else 0
    if not _use_numpy(rows * cols):
        return tuple(tuple(map(table.__getitem__, row)) for row in value), None
    import numpy as np

    index = {x: i for i, x in enumerate(table)}
    codes = np.fromiter(map(index.__getitem__, chain.from_iterable(value)), dtype=np.intp, count=rows * cols)
    codes = codes.reshape(rows, cols)
    values = np.empty(len(index), dtype=object)
    values[:] = list(table.values())
    return tuple(map(tuple, values[codes].tolist())), (tuple(values.tolist()), codes)


def _check_dims(name, shape):
    rows, cols = shape
    if rows > MAX_DIM:
        raise LimitError(f"{name} has {rows} rows; the limit is {MAX_DIM}")
    if cols > MAX_DIM:
        raise LimitError(f"{name} has {cols} columns; the limit is {MAX_DIM}")


def _distinct_entries(value):
    """``{entry: Fraction}`` for a matrix of ints and strings that all convert, else None (read entry by entry)."""
    flat = list(chain.from_iterable(value))
    types = set(map(type, flat))
    if not types <= {int, str}:  # bools (True == 1 as a key), floats, Fractions...: the careful path
        return None
    try:
        return {x: to_fraction(x) for x in set(flat)}
    except (InputError, LimitError):  # named by the entry-by-entry reading
        return None


class StateSpaceForm:
    """What every exact state-space system shares: its sizes and its canonical text, formatted once.

    Subclasses are frozen dataclasses with fields ``A, B, C, D`` and set ``_format_entry``.
    """

    _format_entry = staticmethod(format_rational)

    @property
    def N(self):
        """State dimension."""
        return len(self.A)

    @property
    def m(self):
        """Input (token) dimension."""
        return len(self.B[0]) if self.B else 0

    @property
    def p(self):
        """Output dimension."""
        return len(self.C)

    @property
    def has_D(self):
        """Whether the feed-through term D is present (and nonzero)."""
        return self.D is not None

    @property
    def truncation(self):
        """``T_max``: lags ``L_0 .. L_{T_max-1}`` span all lags (N, or N + 1 with D)."""
        return self.N + (1 if self.has_D else 0)

    def _names(self):
        return ("A", "B", "C") + (("D",) if self.D is not None else ())

    @cached_property
    def _codes(self):
        return {}

    def integer_array(self, name):
        """Matrix ``name`` as an int64 numpy array when it is held as one (:class:`IntRows`), else None.

        Examples
        --------
        >>> ssm([[1]], [[1]], [[1]]).integer_array("A") is None
        True
        """
        mat = getattr(self, name)
        return mat.matrix.array if isinstance(mat, IntRows) else None

    def entry_codes(self, name):
        """``(values, codes)`` of matrix ``name``: its distinct entry objects, and for every entry its index.

        ``codes`` is a numpy integer array of the matrix's shape.  Entries read from one text or one
        integer share one object (see ``_matrix``), so a large system has few distinct values: their
        texts and residues are computed once each and gathered by ``codes``.  Computed once per matrix.

        Examples
        --------
        >>> values, codes = ssm([[1, 2], [2, 1]], [[1], [1]], [[1, 0]]).entry_codes("A")
        >>> [str(values[c]) for c in codes.ravel().tolist()]
        ['1', '2', '2', '1']
        """
        if name not in self._codes:
            import numpy as np

            mat = getattr(self, name)
            if isinstance(mat, IntRows):  # the distinct integers, and each entry's index among them
                values, codes = np.unique(mat.matrix.array, return_inverse=True)
                self._codes[name] = (tuple(map(Fraction, values.tolist())), codes.reshape(mat.matrix.shape))
                return self._codes[name]
            flat = list(chain.from_iterable(mat))
            ids = np.fromiter(map(id, flat), dtype=np.uint64, count=len(flat))
            distinct = np.unique(ids)
            codes = np.searchsorted(distinct, ids)
            where = np.empty(len(distinct), dtype=np.intp)
            where[codes] = np.arange(len(flat))  # any entry with that object will do
            self._codes[name] = (tuple(flat[i] for i in where.tolist()), codes.reshape(len(mat), len(mat[0])))
        return self._codes[name]

    def _distinct(self, name):
        """The distinct entry objects of a matrix (repeated values share one object, see ``_matrix``)."""
        mat = getattr(self, name)
        if _use_numpy(len(mat) * len(mat[0])):
            return self.entry_codes(name)[0]
        flat = list(chain.from_iterable(mat))
        return tuple(dict(zip(map(id, flat), flat)).values())

    @cached_property
    def denominators(self):
        """The distinct denominators above 1 of the entries (a frozenset, computed once)."""
        names = [k for k in self._names() if not isinstance(getattr(self, k), IntRows)]  # integers: none
        return frozenset(map(attrgetter("denominator"), chain.from_iterable(map(self._distinct, names)))) - {1}

    @cached_property
    def entry_text(self):
        """``{"A": [["p/q", ...], ...], ...}``: every entry's canonical text, formatted once.

        ``D`` maps to ``None`` when absent.  Certificates and the system hash use this text.
        """
        fmt = type(self)._format_entry

        def text(name):  # an entry object parsed once (repeated values share it) is formatted once
            mat = getattr(self, name)
            if isinstance(mat, IntRows):  # its canonical text is kept: the matrix itself stands for its rows of texts
                return mat.matrix
            if _use_numpy(len(mat) * len(mat[0])):
                import numpy as np

                values, codes = self.entry_codes(name)
                texts = np.empty(len(values), dtype=object)
                texts[:] = [fmt(x) for x in values]
                return texts[codes].tolist()
            flat = list(chain.from_iterable(mat))
            objects = dict(zip(map(id, flat), flat))
            texts = {key: fmt(x) for key, x in objects.items()}
            return [list(map(texts.__getitem__, map(id, row))) for row in mat]

        return {"A": text("A"), "B": text("B"), "C": text("C"), "D": text("D") if self.D is not None else None}

    @cached_property
    def canonical_text(self):
        """The canonical JSON text of the matrices, hashed into certificates (see :func:`canonical_system`)."""
        return dumps_canonical_matrices(self.entry_text)

    @cached_property
    def sha256(self):
        """SHA-256 (hex) of :attr:`canonical_text` (for matrices held as int64 arrays, hashed from their canonical
        texts piece by piece, without joining them)."""
        text = self.entry_text
        if any(isinstance(text[k], IntegerMatrix) for k in "ABCD"):
            digest = hashlib.sha256()
            for i, key in enumerate(sorted(text)):
                value = text[key]
                part = value.canonical if isinstance(value, IntegerMatrix) else \
                    dumps_canonical_matrices({key: value})[len(key) + 4:-2].encode("ascii")
                digest.update(("{" if i == 0 else ",").encode() + f'"{key}":'.encode() + part)
            digest.update(b"}\n")
            return digest.hexdigest()
        return hashlib.sha256(self.canonical_text.encode("ascii")).hexdigest()


@dataclass(frozen=True, eq=True)
class SSM(StateSpaceForm):
    """An exact linear time-invariant state space model.

    Build it with :func:`ssm`, which validates; the fields are tuples of tuples
    of :class:`fractions.Fraction`.  ``D`` is ``None`` when absent or zero.
    """

    A: tuple
    B: tuple
    C: tuple
    D: Optional[tuple] = None
    name: str = field(default="", compare=False)

    def entry(self, name, i, j):
        """One exact entry, ``entry("A", i, j)``."""
        return getattr(self, name)[i][j]

    def matrices(self):
        """``{"A": ..., "B": ..., "C": ..., "D": ...}`` with D omitted when absent."""
        out = {"A": self.A, "B": self.B, "C": self.C}
        if self.D is not None:
            out["D"] = self.D
        return out

    @cached_property
    def denominators_lcm(self):
        """Least common multiple of every entry's denominator."""
        return lcm(*(denominator_lcm(mat) for mat in self.matrices().values()))

    def __hash__(self):  # one hash of the canonical text (its SHA-256), instead of hashing every Fraction
        return hash(self.sha256)

    def _repr_latex_(self):
        """Jupyter: the matrices (up to 8 x 8; larger ones by their size)."""
        def number(t):
            sign, body = ("-", t[1:]) if t.startswith("-") else ("", t)
            return sign + (r"\tfrac{%s}{%s}" % tuple(body.split("/")) if "/" in body else body)

        def block(name, rows):
            if len(rows) > 8 or len(rows[0]) > 8:
                return rf"{name} \in \mathbb{{Q}}^{{{len(rows)}\times {len(rows[0])}}}"
            body = r" \\ ".join(" & ".join(number(x) for x in row) for row in rows)
            return rf"{name} = \begin{{pmatrix}}{body}\end{{pmatrix}}"

        text = self.entry_text
        parts = [block(k, text[k]) for k in ("A", "B", "C", "D") if text[k] is not None]
        return "$" + ",\\quad ".join(parts) + "$"

    def __repr__(self):
        label = f" {self.name!r}" if self.name else ""
        return f"<SSM{label} N={self.N} m={self.m} p={self.p}{' with D' if self.has_D else ''}>"


def ssm(A, B, C, D=None, *, name=""):
    """Validate and build an exact :class:`SSM`.

    Parameters
    ----------
    A, B, C : matrix-like
        Nested lists (or tuples) of ints, Fractions, SymPy rationals or strict
        number strings; numpy integer arrays; SymPy matrices.
    D : matrix-like, optional
        Feed-through, p x m.  An all-zero D is the same as none.
    name : str, optional
        A label carried into certificates (never interpreted).

    Returns
    -------
    SSM

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
    """
    check_name(name)
    _precheck_size(A, B, C, D)
    (A, coded_A), (B, coded_B), (C, coded_C) = _coded_matrix("A", A), _coded_matrix("B", B), _coded_matrix("C", C)
    N, bc, cr = check_shapes(A, B, C)
    if D is not None:
        D = _matrix("D", D)
        check_shapes(A, B, C, D)
        if all(x == 0 for row in D for x in row):
            D = None
    total = N * N + N * bc + cr * N + cr * bc
    limit = MAX_INTEGER_ENTRIES if all(isinstance(M, IntRows) for M in (A, B, C)) else MAX_ENTRIES
    if total > limit:
        raise LimitError(f"the system has {total} entries; the limit is {limit}")
    system = SSM(A, B, C, D, name)
    for key, coded in (("A", coded_A), ("B", coded_B), ("C", coded_C)):
        if coded is not None:  # the codes found while reading: entry_codes need not find them again
            system._codes[key] = coded
    return system


def check_shapes(A, B, C, D=None):
    """Whether matrices (lists of equally long rows) fit a state space model; the one shape check of every reader.

    Parameters
    ----------
    A, B, C : list of rows
        N x N, N x m and p x N.
    D : list of rows, optional
        p x m.

    Returns
    -------
    tuple of int
        ``(N, m, p)``.

    Raises
    ------
    ShapeError
        If a shape does not fit (the message names both matrices' shapes).

    Examples
    --------
    >>> check_shapes([[1, 2]], [[1]], [[1]])
    Traceback (most recent call last):
    ...
    symssm.errors.ShapeError: A is 1x2 but must be square
    """
    N = len(A)
    if N == 0:
        raise ShapeError("A is empty; the state dimension N must be at least 1")
    (ar, ac), (br, bc), (cr, cc) = _shape(A), _shape(B), _shape(C)
    if ac != ar:
        raise ShapeError(f"A is {ar}x{ac} but must be square")
    if br != N:
        raise ShapeError(f"B is {br}x{bc} but A is {N}x{N} (B must have N = {N} rows)")
    if cc != N:
        raise ShapeError(f"C is {cr}x{cc} but A is {N}x{N} (C must have N = {N} columns)")
    if bc == 0:
        raise ShapeError("B has no columns; the input dimension m must be at least 1")
    if cr == 0:
        raise ShapeError("C has no rows; the output dimension p must be at least 1")
    if D is not None:
        dr, dc = _shape(D)
        if (dr, dc) != (cr, bc):
            raise ShapeError(f"D is {dr}x{dc} but must be p x m = {cr}x{bc} (C is {cr}x{cc}, B is {br}x{bc})")
    return N, bc, cr


def canonical_system(system):
    """The canonical form hashed into certificates.

    A JSON object with keys ``A, B, C, D`` (``D`` is ``null`` when absent), every
    entry the canonical rational text (``"p"`` or ``"p/q"``, lowest terms, q > 1),
    serialised with sorted keys, no spaces and a final newline.  The name is not
    part of it.  Computed once per system (:attr:`SSM.canonical_text`).

    Parameters
    ----------
    system : SSM
        The system.

    Returns
    -------
    str

    Examples
    --------
    >>> canonical_system(ssm([[1]], [[2]], [["1/2"]]))
    '{"A":[["1"]],"B":[["2"]],"C":[["1/2"]],"D":null}\\n'
    """
    return system.canonical_text


def system_sha256(system):
    """SHA-256 (hex) of :func:`canonical_system`.

    Parameters
    ----------
    system : SSM
        The system.

    Returns
    -------
    str
    """
    return system.sha256
