"""The spec grammar, as the checker reads it: a spec's numbers and matrices, and its hash for ``--spec``.

Standard library only; it never imports the generator.  A certificate names its system exactly (canonical
rationals, :mod:`.reading`); a spec, written by a person, may write ``0.5``, ``1e-3``, ``+2`` or ``4/8``.
:func:`spec_hash` reads a spec by exactly that grammar and hashes its system the way :func:`.reading.read_system`
hashes a certificate's, so ``--spec`` compares the two.  The formula numbers of family certificates
(:func:`formula_number`) follow the same grammar.  The head-count verdict without ``--spec`` does not use
this module.
"""

import hashlib
import json
import re
from fractions import Fraction

from .kernel import Unreadable, is_text
from .limits import MAX_DIM, MAX_ENTRIES, MAX_INTEGER_ENTRIES, MAX_N, MAX_NAME
from .numbers import MAX_DIGITS, NumberError, big_int, rat_text
from .reading import canonical_json

__all__ = ["MAX_EXPONENT", "spec_rational", "fits", "formula_number", "canonical_hash", "SPEC_KEYS", "spec_matrix",
           "spec_fields", "read_spec", "spec_hash"]

SPEC_INT = re.compile(r"[+-]?[0-9]+\Z")


SPEC_FRAC = re.compile(r"([+-]?[0-9]+)/([0-9]+)\Z")


SPEC_DEC = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?\Z")


MAX_EXPONENT = 10_000


def _digit_count(text):
    return sum(ch.isdigit() for ch in text)


def spec_rational(value):
    """A spec entry (JSON int, decimal text from the JSON reader, or a string), by the spec grammar.

    Integers, ``p/q`` (q > 0) and exact decimals with an optional exponent of at most
    ``MAX_EXPONENT`` in absolute value; at most ``MAX_DIGITS`` digits in all.
    """
    if isinstance(value, bool):
        raise NumberError("a boolean is not a number")
    if isinstance(value, int):
        return Fraction(value)
    if not isinstance(value, str) or not value.isascii() or len(value) > 4 * MAX_DIGITS:
        raise NumberError("not a number")
    if SPEC_INT.match(value):
        if _digit_count(value) > MAX_DIGITS:
            raise NumberError(f"more than {MAX_DIGITS} digits")
        return Fraction(big_int(value))
    m = SPEC_FRAC.match(value)
    if m:
        if _digit_count(value) > MAX_DIGITS:
            raise NumberError(f"more than {MAX_DIGITS} digits")
        den = big_int(m.group(2))
        if den == 0:
            raise NumberError("zero denominator")
        return Fraction(big_int(m.group(1)), den)
    m = SPEC_DEC.match(value)
    if m and (m.group(2) or m.group(3)):
        sign, whole, frac, exp = m.groups()
        frac = frac or ""
        if _digit_count(whole + frac) > MAX_DIGITS:
            raise NumberError(f"more than {MAX_DIGITS} digits")
        e = 0
        if exp is not None:
            significant = exp.lstrip("+-").lstrip("0")
            if len(significant) > 6:
                raise NumberError("exponent out of range")
            e = (int(significant) if significant else 0) * (-1 if exp.startswith("-") else 1)
            if abs(e) > MAX_EXPONENT:
                raise NumberError("exponent out of range")
        e -= len(frac)
        mant = big_int((whole or "0") + frac)
        v = Fraction(mant * 10**e) if e >= 0 else Fraction(mant, 10**-e)
        return -v if sign == "-" else v
    raise NumberError(f"{value[:40]!r} is not an integer, p/q or exact decimal")


_DIGIT_CAP = 10**MAX_DIGITS


def fits(value):
    """Whether a rational's numerator and denominator have at most ``MAX_DIGITS`` digits each."""
    return abs(value.numerator) < _DIGIT_CAP and value.denominator < _DIGIT_CAP


def formula_number(text):
    """A number of a formula (``12``, ``0.5``, ``1e-3``), by the spec grammar, in lowest terms within the limit.

    Raises
    ------
    NumberError
        If it is outside the grammar, has more than ``MAX_DIGITS`` digits or an exponent beyond
        ``MAX_EXPONENT``, or its lowest terms need more than ``MAX_DIGITS`` digits (``1e-10000``).
    """
    value = spec_rational(text)
    if not fits(value):
        raise NumberError(f"{text[:40]!r} needs more than {MAX_DIGITS} digits in lowest terms; the limit is "
                          f"{MAX_DIGITS}")
    return value


def canonical_hash(A, B, C, D):
    """SHA-256 of a system's canonical text, from its matrices (the checker's own computation).

    Parameters
    ----------
    A, B, C : list of list of Fraction
        The matrices.
    D : list of list of Fraction, optional
        None when absent.

    Returns
    -------
    str
        The hex digest; equal to a certificate's ``input_sha256`` for the same system.
    """
    def txt(M):
        return [[rat_text(x) for x in row] for row in M]

    obj = {"A": txt(A), "B": txt(B), "C": txt(C), "D": txt(D) if D is not None else None}
    text = json.dumps(obj, sort_keys=True, ensure_ascii=True, separators=(",", ":"), allow_nan=False) + "\n"
    return hashlib.sha256(text.encode("ascii")).hexdigest()


SPEC_KEYS = ("A", "B", "C", "D", "n", "name")


def spec_matrix(value, name):
    """One matrix of a spec, by the spec grammar (entries: integers, ``p/q``, exact decimals).

    Parameters
    ----------
    value : object
        The matrix as parsed JSON (a list of rows).
    name : str
        Its key in messages (``"A"``).

    Returns
    -------
    list of list of Fraction

    Raises
    ------
    Unreadable
        If it is not a list of equally long rows within the limits, or an entry is outside the grammar.
    """
    if not isinstance(value, list):
        raise Unreadable(f"spec {name} must be a matrix (a list of rows)")
    if len(value) > MAX_DIM:
        raise Unreadable(f"spec {name} has {len(value)} rows; the limit is {MAX_DIM}")
    rows, width = [], None
    for i, row in enumerate(value):
        if not isinstance(row, list):
            raise Unreadable(f"spec {name}[{i}] must be a row (a list)")
        if width is None:
            width = len(row)
            if width > MAX_DIM:
                raise Unreadable(f"spec {name} has {width} columns; the limit is {MAX_DIM}")
        elif len(row) != width:
            raise Unreadable(f"spec {name} is ragged")
        try:
            rows.append([spec_rational(x) for x in row])
        except NumberError as exc:
            raise Unreadable(f"spec {name}[{i}]: {exc}") from None
    return rows


def spec_fields(spec):
    """A spec's keys, ``n`` and ``name``, by the spec grammar.

    Parameters
    ----------
    spec : object
        Parsed spec JSON.

    Raises
    ------
    Unreadable
        If it is not an object, has an unknown key, or ``n`` or ``name`` is outside the grammar.
    """
    if not isinstance(spec, dict):
        raise Unreadable("spec must be a JSON object")
    unknown = sorted(k for k in spec if k not in SPEC_KEYS)
    if unknown:
        raise Unreadable(f"spec has unknown key {unknown[0][:40]!r}")
    n = spec.get("n")
    if n is not None and (type(n) is not int or not 0 <= n <= MAX_N):
        raise Unreadable("spec n must be an integer from 0 to 10^30")
    name = spec.get("name", "")
    if not is_text(name, MAX_NAME):
        raise Unreadable(f"spec name must be a string of at most {MAX_NAME} characters")


def read_spec(spec):
    """The system of a spec document, read by exactly the spec grammar (docs/robustness.md).

    Parameters
    ----------
    spec : object
        Parsed spec JSON.

    Returns
    -------
    tuple
        ``(A, B, C, D)`` as lists of rows of Fractions, ``D`` None when absent or zero.

    Raises
    ------
    Unreadable
        If the document is not a spec of a time-invariant system within the limits.
    """
    spec_fields(spec)
    mats = {}
    for key in ("A", "B", "C"):
        if key not in spec:
            raise Unreadable(f"spec has no matrix {key}")
        mats[key] = spec_matrix(spec[key], key)
    A, B, C = mats["A"], mats["B"], mats["C"]
    N = len(A)
    if N == 0 or any(len(row) != N for row in A):
        raise Unreadable("spec A must be a non-empty square matrix")
    if len(B) != N or not B[0]:
        raise Unreadable(f"spec B must have N = {N} rows and at least one column")
    if not C or len(C[0]) != N:
        raise Unreadable(f"spec C must have at least one row and N = {N} columns")
    p, m = len(C), len(B[0])
    D = None
    if spec.get("D") is not None:
        D = spec_matrix(spec["D"], "D")
        if len(D) != p or any(len(row) != m for row in D):
            raise Unreadable(f"spec D must be p x m = {p}x{m}")
        if all(x == 0 for row in D for x in row):
            D = None
    if N * N + N * m + p * N + p * m > MAX_ENTRIES:
        raise Unreadable(f"spec has more than {MAX_ENTRIES} entries")
    return A, B, C, D


def spec_hash(spec):
    """Canonical hash of a spec document (the system only), by the checker's own reader.

    Parameters
    ----------
    spec : object
        Parsed spec JSON.

    Returns
    -------
    str
        The SHA-256 a certificate about the same system states as ``input_sha256``.

    Examples
    --------
    >>> spec_hash({"A": [[1]], "B": [[1]], "C": [[1]], "n": 4}) == spec_hash({"A": [["1"]], "B": [[1]], "C": [[1]]})
    True
    """
    from .bulk import Bulk

    if isinstance(spec, dict) and any(isinstance(spec.get(k), Bulk) for k in "ABCD"):
        return _bulk_spec_hash(spec)
    return canonical_hash(*read_spec(spec))


def _bulk_spec_hash(spec):
    """The canonical hash of a spec some of whose matrices are :class:`Bulk`: the spec's other keys and its other
    matrices are read by the checker's spec reader, the shapes and limits checked as it does.  Raises Unreadable."""
    from .bulk import Bulk

    spec_fields(spec)
    mats = {}
    for k in ("A", "B", "C", "D"):
        value = spec.get(k)
        if k != "D" and k not in spec:
            raise Unreadable(f"spec has no matrix {k}")
        mats[k] = value if value is None or isinstance(value, Bulk) else spec_matrix(value, k)
    dims = lambda M: (M.rows, M.cols) if isinstance(M, Bulk) else (len(M), len(M[0]) if M else 0)  # noqa: E731
    (ar, ac), (br, bc), (cr, cc) = dims(mats["A"]), dims(mats["B"]), dims(mats["C"])
    if ar == 0 or ac != ar:
        raise Unreadable("spec A must be a non-empty square matrix")
    if br != ar or bc == 0:
        raise Unreadable(f"spec B must have N = {ar} rows and at least one column")
    if cr == 0 or cc != ar:
        raise Unreadable(f"spec C must have at least one row and N = {ar} columns")
    D = mats["D"]
    if D is not None and dims(D) != (cr, bc):
        raise Unreadable(f"spec D must be p x m = {cr}x{bc}")
    if D is not None and not (D.values.any() if isinstance(D, Bulk) else any(x != 0 for row in D for x in row)):
        D = None
    entries = ar * ar + ar * bc + cr * ar + cr * bc
    limit = MAX_INTEGER_ENTRIES if all(isinstance(mats[k], Bulk) for k in "ABC") else MAX_ENTRIES
    if entries > limit:
        raise Unreadable(f"spec has more than {limit} entries")
    pieces = []
    for k, M in zip("ABCD", (mats["A"], mats["B"], mats["C"], D)):
        if M is None:
            text = b"null"
        elif isinstance(M, Bulk):
            text = M.text
        else:
            text = canonical_json({"X": [[rat_text(x) for x in row] for row in M]})[5:-2].encode("ascii")
        pieces.append(b'"%s":' % k.encode() + text)
    return hashlib.sha256(b"{" + b",".join(pieces) + b"}\n").hexdigest()
