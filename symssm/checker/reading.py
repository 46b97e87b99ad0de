"""The head-count verdict's readers: typed access to certificate fields, and the system read into exact numbers.

Standard library only; it never imports the generator.  Read in order: :func:`keys`, :func:`integer`,
:func:`rational` and :func:`matrix` (each field exactly as the format writes it, or the field named:
a malformed number is :class:`Malformed`, exit 2; a value out of bounds fails its obligation, exit 1);
:func:`witness_lags` and :func:`positions` (the lower bound's lists); :func:`read_system` (a certificate's
``system``: every entry a canonical rational, the sizes within :mod:`.limits`) and :func:`system_record`
(the record the obligations use, with the SHA-256 of the system's canonical text, :func:`canonical_json`).
Very large integer matrices come from the bulk reader (:mod:`.bulk`, numpy; a reader may skip it: the
same values and hash).  The spec grammar (``--spec``) is :mod:`.spec`.
The kernel's names (verdicts, the ledger, strict JSON) are re-exported for the obligation modules.
"""

import hashlib
import json
from itertools import chain

from .kernel import (FORMAT, VERSIONS, CheckResult, JsonDecimal, Ledger, Malformed, Rejected, Unreadable, is_text,
                     parse_json, read_file, strict_equal)
from .limits import MAX_BYTES, MAX_DEPTH, MAX_DIM, MAX_ENTRIES, MAX_INTEGER_ENTRIES, MAX_N, MAX_NAME
from .numbers import MAX_DIGITS, NumberError, canonical_integer, canonical_rational

__all__ = ["first_malformed", "BOOLEAN_FIELDS", "keys", "integer", "integer_text", "positions", "rational", "matrix", "witness_lags", "read_system",
           "system_record", "canonical_json",
           # the kernel's names, for the modules that import them from here
           "FORMAT", "VERSIONS", "CheckResult", "JsonDecimal", "Ledger", "Malformed", "Rejected", "Unreadable", "is_text",
           "parse_json", "read_file", "strict_equal", "MAX_BYTES", "MAX_DEPTH", "MAX_DIM", "MAX_ENTRIES", "MAX_N",
           "MAX_NAME"]

# ---------------------------------------------------------------- malformed numbers

#: The format's JSON booleans (a family's ``complete``, a covering's ``dimension``, a recurrent norm's ``center`` and
#: ``after_gate``); a boolean anywhere else stands where a number or a text is due (``True == 1`` in Python).
BOOLEAN_FIELDS = frozenset({"complete", "dimension", "center", "after_gate"})
#: Free-text fields: what they hold is not read as a number.
TEXT_FIELDS = frozenset({"name", "generator", "comment", "format", "kind", "field", "rule", "method", "status",
                         "input_sha256", "checkpoint", "architecture", "construction"})
#: The kinds whose texts are formulas (docs/parametric.md), read by value: ``" 1"`` or ``"2/4"`` is a formula
#: there, so only their envelope's texts (``n``, a count) are held to the number grammar.
FORMULA_KINDS = frozenset({"parametric-head-count", "parametric-interaction-rank"})
_NUMBER_MARKS = frozenset(" \t+-/")


def _loose_number(text):
    """Whether ``text`` is written as a number but not in the canonical form (``"--158"``, ``"007"``, ``" 1"``,
    ``"+1"``, ``"-0"``, ``"2/4"``, a superscript or full-width digit): every character a digit of some script, a sign,
    a slash or a blank, at least one digit, and not a canonical rational."""
    if not text or len(text) > 2 * MAX_DIGITS + 2 or not any(c.isdigit() or c.isnumeric() for c in text):
        return False
    if not all(c.isdigit() or c.isnumeric() or c in _NUMBER_MARKS for c in text):
        return False
    try:
        canonical_rational(text)
    except NumberError:
        return True
    return False


def first_malformed(cert):
    """The first field of ``cert`` (in the document's order) written against the number grammar, as
    ``(field, reason)``, or None: a JSON boolean where the format has none (:data:`BOOLEAN_FIELDS`), or a number's
    text that is not canonical (:func:`_loose_number`; in a family or a layer with parameters, only the envelope's).

    A certificate with such a field is unreadable (exit 2, the field named) whatever else is wrong with it: the
    checker answers this way when an obligation has failed or a reader has refused a field, so a mutant of one
    number field is named where it is, never as the obligation it happened to break.

    Parameters
    ----------
    cert : object
        The parsed certificate.

    Returns
    -------
    tuple of (str, str) or None
        The field, as the checker's messages name it (``lower_bound.minor[0][1]``), and why it is malformed.

    Examples
    --------
    >>> first_malformed({"kind": "head-count", "n": 8, "profile": {"values": [1, True]}})
    ('profile.values[1]', 'a JSON boolean is not a number')
    >>> first_malformed({"kind": "head-count", "lower_bound": {"prime": "007"}})
    ('lower_bound.prime', "'007' is not a canonical number ('p' or 'p/q' in lowest terms, ASCII digits)")
    """
    formulas = isinstance(cert, dict) and type(cert.get("kind")) is str and cert["kind"] in FORMULA_KINDS
    stack = [("", cert, None, 0)]
    while stack:
        field, value, key, depth = stack.pop()
        if type(value) is bool:
            if key not in BOOLEAN_FIELDS:
                return field, "a JSON boolean is not a number"
        elif type(value) is str:
            if key not in TEXT_FIELDS and (not formulas or depth == 1) and _loose_number(value):
                return field, f"{value[:40]!r} is not a canonical number ('p' or 'p/q' in lowest terms, ASCII digits)"
        elif isinstance(value, dict):
            stack.extend((f"{field}.{k}" if field else str(k), v, k, depth + 1) for k, v in reversed(value.items()))
        elif isinstance(value, list):
            stack.extend((f"{field}[{i}]", v, key, depth + 1) for i, v in reversed(list(enumerate(value))))
    return None


# ---------------------------------------------------------------- typed access

def keys(ledger, obj, where, required, optional=()):
    """Require ``obj`` to be a JSON object with every ``required`` field and no field outside ``optional``.

    Parameters
    ----------
    ledger, obj, where : Ledger, object, str
        The ledger (it raises :class:`Rejected` naming ``where``), the value read, the field's path.
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

    Parameters
    ----------
    ledger, value, where : Ledger, object, str
        The ledger, the value read, the field's path.
    lo, hi : int, optional
        The bounds.

    Returns
    -------
    int
        ``value``.

    Raises
    ------
    Malformed
        If ``value`` is not a JSON integer (exit 2, the field named).
    Rejected
        If it lies outside the bounds (the obligation fails, exit 1).
    """
    if type(value) is not int:
        raise Malformed(where, "must be an integer" + (" (a JSON boolean is not a number)"
                                                        if isinstance(value, bool) else ""))
    ledger.require(lo is None or value >= lo, where, f"must be at least {lo}")
    ledger.require(hi is None or value <= hi, where, f"must be at most {hi}")
    return value


def positions(ledger, value, count, p, m, where="lower_bound.positions"):
    """``count`` entry positions ``[row, column]`` inside a p x m matrix, as tuples.

    Parameters
    ----------
    ledger, value : Ledger, object
        The ledger and the list read.
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
    """A canonical rational text (``"-3/4"``: lowest terms, no sign on the denominator) as a Fraction.

    Parameters
    ----------
    ledger, value, where : Ledger, object, str
        The ledger, the value read, the field's path.

    Returns
    -------
    Fraction

    Raises
    ------
    Malformed
        If ``value`` is not a canonical rational text within the digit limit (:func:`.numbers.canonical_rational`).
    """
    try:
        return canonical_rational(value)
    except NumberError as exc:
        raise Malformed(where, str(exc)) from None


def integer_text(ledger, value, where, max_digits=MAX_DIGITS):
    """A canonical integer text (``"-158"``: ASCII digits, no leading zero, one optional sign) as an int.

    Parameters
    ----------
    ledger, value, where : Ledger, object, str
        The ledger, the value read, the field's path.
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

    Each distinct text is parsed once and the rows looked up (entries repeat in large systems); if any text
    fails, the matrix is read entry by entry, which names the first bad entry.  Another kind's ``number``
    gets the same with ``parse`` (text to value, raising NumberError).

    Parameters
    ----------
    ledger, value, where : Ledger, object, str
        The ledger, the rows read, the field's path.
    rows, cols : int
        The shape required.
    number, parse : callable, optional
        ``number(ledger, text, where)`` reads one entry; ``parse(text)`` the same without a ledger.
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
    """Strictly increasing witness lags (``lower_bound.lags``) below T, at most ``most`` (``min(T, p m)``).

    Parameters
    ----------
    ledger, value : Ledger, object
        The ledger and the list read.
    T, most : int
        The truncation (every lag is below it) and the most lags.

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


def read_system(ledger, obj):
    """Read a certificate's ``system`` field: its sizes within the limits, every entry a canonical rational.

    Parameters
    ----------
    ledger, obj : Ledger, object
        The ledger and the ``"system"`` value.

    Returns
    -------
    dict
        The record of :func:`system_record` (from :func:`.bulk.bulk_system` when the bulk reader took a matrix).
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
        The ``"system"`` field (its entries already read as canonical number texts).
    N, m, p : int
        The sizes.
    mats, tables : dict
        ``{"A": rows, "B": ..., "C": ..., "D": rows or None}``, read; the tables :func:`matrix` kept.

    Returns
    -------
    dict
        The matrices, ``N``, ``m``, ``p``, ``T``; ``sha256`` of the canonical text (the entries as given, hashed
        directly); ``texts`` (each matrix read through its table: ``(entry texts, table)``); ``distinct``, the
        distinct entry values (for the denominators).
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


