"""The checker's system reader: typed access to certificate fields, the system, and the spec grammar.

Standard library only; it never imports the generator.  :func:`read_system` reads a certificate's
``system`` field (every entry a canonical rational, the sizes within :mod:`.limits`) into the record the
obligations use, with the SHA-256 of its canonical text; :func:`read_spec` reads a spec document by
exactly the spec grammar, and :func:`spec_hash` hashes it the same way, so ``--spec`` compares the two.
The verdicts, the ledger and strict JSON are the kernel's (:mod:`.kernel`, re-exported here for the
obligation modules).
"""

import hashlib
import json
from itertools import chain

from .kernel import (FORMAT, VERSIONS, CheckResult, JsonDecimal, Ledger, Malformed, Rejected, Unreadable, is_text,
                     parse_json, read_file, strict_equal)
from .limits import MAX_BYTES, MAX_DEPTH, MAX_DIM, MAX_ENTRIES, MAX_INTEGER_ENTRIES, MAX_N, MAX_NAME
from .numbers import MAX_DIGITS, NumberError, canonical_integer, canonical_rational, rat_text, spec_rational

__all__ = ["keys", "integer", "integer_text", "positions", "rational", "matrix", "witness_lags", "canonical_hash", "read_system",
           "system_record", "canonical_json", "SPEC_KEYS", "spec_fields", "spec_matrix", "read_spec", "spec_hash",
           # the kernel's names, for the modules that import them from here
           "FORMAT", "VERSIONS", "CheckResult", "JsonDecimal", "Ledger", "Malformed", "Rejected", "Unreadable", "is_text",
           "parse_json", "read_file", "strict_equal", "MAX_BYTES", "MAX_DEPTH", "MAX_DIM", "MAX_ENTRIES", "MAX_N",
           "MAX_NAME"]


# ---------------------------------------------------------------- typed access

def keys(ledger, obj, where, required, optional=()):
    """Require ``obj`` to be a JSON object with every ``required`` field and no field outside ``optional``.

    Parameters
    ----------
    ledger : Ledger
        Where the obligation is recorded (it raises :class:`Rejected` naming ``where`` on failure).
    obj : object
        The value read.
    where : str
        The field's path (``"system"``, ``"lower_bound"``).
    required, optional : sequence of str
        The fields it must and may have.

    Returns
    -------
    dict
        ``obj``.
    """
    ledger.require(isinstance(obj, dict), where, "must be a JSON object")
    missing = [k for k in required if k not in obj]
    ledger.require(not missing, where, f"missing field {missing[0]!r}" if missing else "")
    extra = sorted(k for k in obj if k not in required and k not in optional)
    ledger.require(not extra, where, f"unknown field {extra[0]!r}" if extra else "")
    return obj


def integer(ledger, value, where, lo=None, hi=None):
    """Require a JSON integer (not a boolean: ``True == 1`` in Python) in ``[lo, hi]``.

    A value of another type is malformed (:class:`Malformed`, exit 2, the field named); one outside the
    bounds fails the obligation (exit 1).

    Parameters
    ----------
    ledger : Ledger
        Where the obligation is recorded.
    value : object
        The value read.
    where : str
        The field's path.
    lo, hi : int, optional
        The bounds.

    Returns
    -------
    int
        ``value``.

    Raises
    ------
    Malformed
        If ``value`` is not a JSON integer.
    Rejected
        If it lies outside the bounds.
    """
    if type(value) is not int:
        raise Malformed(where, "must be an integer" + (" (a JSON boolean is not a number)"
                                                        if isinstance(value, bool) else ""))
    ledger.require(lo is None or value >= lo, where, f"must be at least {lo}")
    ledger.require(hi is None or value <= hi, where, f"must be at most {hi}")
    return value


def positions(ledger, value, count, p, m, where="lower_bound.positions"):
    """A list of ``count`` entry positions ``[row, column]`` inside a p x m matrix, as tuples.

    Parameters
    ----------
    ledger : Ledger
        Where the obligations are recorded.
    value : object
        The list read.
    count, p, m : int
        How many positions, and the matrix's size.
    where : str
        The field's path.

    Returns
    -------
    list of tuple of int
    """
    ledger.require(isinstance(value, list) and len(value) == count, where, f"must list {count} positions")
    cells = []
    for t, rc in enumerate(value):
        ledger.require(isinstance(rc, list) and len(rc) == 2, f"{where}[{t}]", "must be [row, column]")
        cells.append((integer(ledger, rc[0], f"{where}[{t}][0]", 0, p - 1),
                      integer(ledger, rc[1], f"{where}[{t}][1]", 0, m - 1)))
    return cells


def rational(ledger, value, where):
    """A canonical rational text (``"-3/4"``, reduced, no sign on the denominator) as a Fraction.

    Parameters
    ----------
    ledger : Ledger
        The ledger (the obligation is named by ``where``).
    value : object
        The value read.
    where : str
        The field's path.

    Returns
    -------
    Fraction

    Raises
    ------
    Malformed
        If ``value`` is not a canonical rational text within the digit limit.
    """
    try:
        return canonical_rational(value)
    except NumberError as exc:
        raise Malformed(where, str(exc)) from None


def integer_text(ledger, value, where, max_digits=MAX_DIGITS):
    """A canonical integer text (``"-158"``: ASCII digits, no leading zero, one optional sign) as an int.

    Parameters
    ----------
    ledger : Ledger
        The ledger (the field is named by ``where``).
    value : object
        The value read.
    where : str
        The field's path.
    max_digits : int
        The most digits allowed.

    Returns
    -------
    int

    Raises
    ------
    Malformed
        If ``value`` is not such a text (``"--158"``, ``"007"``, ``" 1"``, ``"²"``, a JSON number or boolean).
    """
    try:
        return canonical_integer(value, max_digits)
    except NumberError as exc:
        raise Malformed(where, str(exc)) from None


def matrix(ledger, value, where, rows, cols, number=None, *, parse=None, tables=None):
    """A rows x cols matrix whose entries are read by ``number`` (default: canonical rationals).

    Each distinct text of the matrix is parsed once and the rows are looked up (entries repeat in
    large systems); if any text fails, the matrix is read entry by entry to name the first bad entry.
    A custom ``number`` gets the same with ``parse`` (text to value, raising NumberError, no ledger).

    Parameters
    ----------
    ledger : Ledger
        Where the obligations are recorded.
    value : object
        The rows read.
    where : str
        The field's path.
    rows, cols : int
        The shape required.
    number : callable, optional
        ``number(ledger, text, where)``: reads one entry.
    parse : callable, optional
        ``parse(text)``: the same without a ledger, for the table of distinct texts.
    tables : dict, optional
        Receives the ``{text: value}`` table under ``where`` when every entry was read through it.

    Returns
    -------
    list of list
    """
    ledger.require(isinstance(value, list) and len(value) == rows, where, f"must be a list of {rows} rows")
    out = []
    if number is not None and parse is None:
        for i, row in enumerate(value):
            ledger.require(isinstance(row, list) and len(row) == cols, f"{where}[{i}]",
                           f"must be a row of {cols} entries")
            out.append([number(ledger, x, f"{where}[{i}][{j}]") for j, x in enumerate(row)])
        return out
    for i, row in enumerate(value):
        ledger.require(isinstance(row, list) and len(row) == cols, f"{where}[{i}]", f"must be a row of {cols} entries")
    try:
        distinct = set(chain.from_iterable(value))
    except TypeError:  # an unhashable entry (a list): the entry-by-entry reading names it
        distinct = None
    if distinct is not None and all(type(x) is str for x in distinct):
        read = parse or canonical_rational
        try:
            table = {x: read(x) for x in distinct}
        except NumberError:
            table = None  # read entry by entry below, to name the first bad one
        if table is not None:
            if tables is not None:
                tables[where] = table
            return [list(map(table.__getitem__, row)) for row in value]
    out = []
    number = number or rational
    for i, row in enumerate(value):
        out.append([number(ledger, x, f"{where}[{i}][{j}]") for j, x in enumerate(row)])
    return out


def witness_lags(ledger, value, T, most):
    """Strictly increasing witness lags below T, at most ``most`` of them.

    Parameters
    ----------
    ledger : Ledger
        Where the obligations are recorded.
    value : object
        The list read (``lower_bound.lags``).
    T : int
        The truncation: every lag is below it.
    most : int
        The most lags, ``min(T, p m)``.

    Returns
    -------
    list of int
    """
    ledger.require(isinstance(value, list) and len(value) <= most, "lower_bound.lags",
                   f"must be a list of at most min(T, pm) = {most} lags")
    for s, d in enumerate(value):
        integer(ledger, d, f"lower_bound.lags[{s}]", 0, T - 1)
    ledger.require(all(a < b for a, b in zip(value, value[1:])), "lower_bound.lags", "must be strictly increasing")
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


def read_system(ledger, obj):
    """Read a certificate's ``system`` field: its sizes within the limits, every entry a canonical rational.

    Parameters
    ----------
    ledger : Ledger
        Where the obligations are recorded.
    obj : object
        The ``"system"`` value.

    Returns
    -------
    dict
        The record of :func:`system_record`: the matrices as Fractions, ``T``, and the ``sha256`` of the
        system's canonical text.
    """
    keys(ledger, obj, "system", ("name", "N", "m", "p", "A", "B", "C", "D"))
    ledger.require(is_text(obj["name"], 200), "system.name", "must be a string of at most 200 characters")
    N = integer(ledger, obj["N"], "system.N", 1, MAX_DIM)
    m = integer(ledger, obj["m"], "system.m", 1, MAX_DIM)
    p = integer(ledger, obj["p"], "system.p", 1, MAX_DIM)
    from .bulk import Bulk, as_bulk

    obj = {**obj, **{k: as_bulk(obj[k]) for k in "ABCD" if hasattr(obj[k], "json_bytes")}}
    integers = all(isinstance(obj[k], Bulk) for k in "ABC")  # held as int64 arrays: 8 bytes an entry
    limit = MAX_INTEGER_ENTRIES if integers else MAX_ENTRIES
    ledger.require(N * N + N * m + p * N + 2 * p * m <= limit, "system", f"has more than {limit} entries")
    if any(isinstance(obj[k], Bulk) for k in "ABCD"):
        from .bulk import bulk_system

        return bulk_system(ledger, obj, N, m, p, matrix=matrix, rational=rational)
    tables = {}
    A = matrix(ledger, obj["A"], "system.A", N, N, tables=tables)
    B = matrix(ledger, obj["B"], "system.B", N, m, tables=tables)
    C = matrix(ledger, obj["C"], "system.C", p, N, tables=tables)
    D = None
    if obj["D"] is not None:
        D = matrix(ledger, obj["D"], "system.D", p, m, tables=tables)
        ledger.require(any(x != 0 for row in D for x in row), "system.D", "an all-zero D must be written as null")
    return system_record(obj, N, m, p, {"A": A, "B": B, "C": C, "D": D}, tables)


def system_record(obj, N, m, p, mats, tables):
    """The checker's record of a system read from ``obj``.

    Parameters
    ----------
    obj : dict
        The ``"system"`` field (its entries already checked to be canonical number texts).
    N, m, p : int
        The sizes.
    mats : dict
        ``{"A": rows, "B": ..., "C": ..., "D": rows or None}``, read.
    tables : dict
        The tables of distinct texts :func:`matrix` kept, by field path.

    Returns
    -------
    dict
        The matrices, ``N``, ``m``, ``p``, ``T``; ``sha256`` of the canonical text (the entries as given, hashed
        directly); ``texts``, for each matrix read through its table, ``(entry texts, table)``; ``distinct``,
        the distinct entry values (for the denominators).
    """
    texts = {k: obj[k] if mats[k] is not None else None for k in "ABCD"}
    names = [k for k in "ABCD" if texts[k] is not None]
    tables = {k: tables[f"system.{k}"] for k in names if f"system.{k}" in tables}
    if len(tables) == len(names):  # each distinct text was read once: its value is in the table
        distinct = tuple(chain.from_iterable(tables[k].values() for k in names))
    else:
        distinct = tuple(chain.from_iterable(chain.from_iterable(mats[k] for k in names)))
    return {"name": obj["name"], "N": N, "m": m, "p": p, **mats, "T": N + (1 if mats["D"] is not None else 0),
            "sha256": hashlib.sha256(canonical_json(texts).encode("ascii")).hexdigest(),
            "texts": {k: (texts[k], tables[k]) for k in tables}, "distinct": distinct}


def _plain_row(row):
    """A row of texts that JSON writes as themselves (printable ASCII, no quote or backslash), joined; else None."""
    try:
        text = "".join(row)
    except TypeError:
        return None
    if row and text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
        return '["' + '","'.join(row) + '"]'
    return None


def canonical_json(mats):
    """Canonical JSON of a dict of matrices of texts.

    The same bytes as ``json.dumps(mats, sort_keys=True, separators=(",", ":"), ensure_ascii=True) + "\\n"``,
    with rows of plain texts joined rather than encoded one string at a time (a million entries at N = 1024).

    Parameters
    ----------
    mats : dict
        ``{name: rows of texts, or None}``.

    Returns
    -------
    str

    Examples
    --------
    >>> canonical_json({"B": [["1"]], "A": [["1/2", "0"]], "D": None})
    '{"A":[["1/2","0"]],"B":[["1"]],"D":null}\\n'
    """
    parts = []
    for key in sorted(mats):
        value = mats[key]
        rows = [_plain_row(row) if type(row) is list else None for row in value] if type(value) is list else [None]
        body = "[" + ",".join(rows) + "]" if None not in rows else \
            json.dumps(value, sort_keys=True, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
        parts.append(json.dumps(key, ensure_ascii=True) + ":" + body)
    return "{" + ",".join(parts) + "}\n"


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
