"""Reading for the checker: strict JSON, the verdict types, typed field access, the system.

Standard library only; it never imports the generator.
"""

import hashlib
from itertools import chain
import json
import re
import time

from .bulk import SPLIT_BYTES
from .numbers import NumberError, big_int, canonical_rational, rat_text, spec_rational

FORMAT = "symssm-certificate"
VERSIONS = (1,)
MAX_BYTES = 64 * 1024 * 1024
#: A certificate whose system's matrices are integers read by the bulk reader (checker/bulk.py) may be this
#: large, what is not such a matrix staying below MAX_BYTES.
MAX_INTEGER_BYTES = 256 * 1024 * 1024
MAX_DEPTH = 32
MAX_DIM = 4096


class Rejected(Exception):
    """An obligation failed: ``obligation`` names it."""

    def __init__(self, obligation, message):
        super().__init__(f"{obligation}: {message}")
        self.obligation = obligation


class Unreadable(Exception):
    """The input is not a readable symssm certificate."""


class CheckResult:
    """Outcome of a check: ``code`` 0 verified, 1 rejected, 2 unreadable."""

    def __init__(self, code, message, obligations=()):
        self.code = code
        self.message = message
        self.obligations = tuple(obligations)
        self.at = None

    @property
    def verified(self):
        return self.code == 0

    def __bool__(self):
        return self.verified

    def __repr__(self):
        return f"<CheckResult {['VERIFIED', 'REJECTED', 'UNREADABLE'][self.code]}: {self.message}>"


class Ledger:
    """Collects discharged obligations; ``require`` raises on the first failure."""

    def __init__(self, deadline=None):
        self.done = []
        self._seen = set()  # constant-time de-duplication: a certificate with 400,000 rows stays linear
        self.deadline = deadline

    def require(self, condition, obligation, message):
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise Unreadable("undecided: the checking budget (--max-seconds) ran out before all obligations were "
                             "checked; neither verified nor rejected")
        if not condition:
            raise Rejected(obligation, message)
        if obligation not in self._seen:
            self._seen.add(obligation)
            self.done.append(obligation)


# ---------------------------------------------------------------- reading

class JsonDecimal(str):
    """A JSON number with a fraction or exponent, kept as its text (never a binary float).

    A subclass of str so that a spec's decimal entries parse exactly, and a distinct type so
    that a certificate field that must be a string never accepts a JSON number.
    """


def strict_equal(a, b):
    """Equality that also requires equal types: ``True`` is not ``1``, a JSON number is not a string."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(strict_equal(a[k], b[k]) for k in a)
    return a == b


def is_text(value, limit):
    """A JSON string (not a number) of at most ``limit`` characters."""
    return type(value) is str and len(value) <= limit


def _no_const(name):
    raise ValueError(f"JSON constant {name} is not allowed")


def _pairs(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_QUOTED = re.compile(rb'"[^"]*"')
_KEEP = "[]{}\""
_DROP = bytes(c for c in range(128) if chr(c) not in _KEEP)


def _brackets(text):
    """The brackets of JSON text outside its strings, in order.

    ASCII text without backslashes (every certificate and spec symssm writes) is reduced to its
    quotes and brackets by ``bytes.translate`` and the strings, then only quote pairs, are cut out;
    other text goes through a regular expression that knows escapes.  Both run at C speed.
    """
    if text.isascii() and "\\" not in text:
        # two adjacent quotes enclose no bracket (a string, or the gap between two strings): drop them first
        kept = text.encode("ascii").translate(None, _DROP).replace(b'""', b"")
        return _QUOTED.sub(b"", kept).replace(b'"', b"").decode("ascii")  # an unterminated string's quote too
    return _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))


def _too_deep(text, limit=MAX_DEPTH):
    """Whether the JSON text nests deeper than ``limit`` (brackets inside strings do not count).

    The strings and every character that is not a bracket are removed by regular expressions (C
    speed), then the brackets left are counted; an unterminated string keeps its brackets, which
    can only make the answer more cautious.
    """
    depth = 0
    for ch in _brackets(text):
        if ch in "[{":
            depth += 1
            if depth > limit:
                return True
        else:
            depth -= 1
    return False


def _parse_split(raw, what):
    """A large certificate whose integer matrices the bulk reader takes: read without an object per entry."""
    from .bulk import restore, split

    cut = split(raw)
    if cut is None:
        return None
    rest, bulks = cut
    if len(rest) > MAX_BYTES:
        return None
    obj = parse_json(rest, what, depth=MAX_DEPTH - 2)  # each matrix (two levels) stands where its marker is
    return restore(obj, bulks)  # None: a marker elsewhere than a system's matrix, read the whole text instead


def parse_json(raw, what, *, depth=MAX_DEPTH):
    if isinstance(raw, bytes) and SPLIT_BYTES <= len(raw) <= MAX_INTEGER_BYTES:
        obj = _parse_split(raw, what)
        if obj is not None:
            return obj
    if len(raw) > MAX_BYTES:
        raise Unreadable(f"{what} is larger than {MAX_BYTES} bytes ({MAX_INTEGER_BYTES} when its matrices are "
                         "integers below 10^18)")
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        raise Unreadable(f"{what} is not UTF-8 text") from None
    if _too_deep(text, depth):
        raise Unreadable(f"{what} nests deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text, parse_constant=_no_const, object_pairs_hook=_pairs,
                          parse_int=_json_int, parse_float=JsonDecimal)
    except (ValueError, RecursionError) as exc:
        raise Unreadable(f"{what} is not valid JSON ({str(exc)[:120]})") from None


def _json_int(text):
    try:
        return big_int(text)
    except NumberError as exc:
        raise ValueError(str(exc)) from None


def read_file(path, what):
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_INTEGER_BYTES + 1)
    except FileNotFoundError:
        raise Unreadable(f"{what} {path}: no such file") from None
    except IsADirectoryError:
        raise Unreadable(f"{what} {path} is a directory") from None
    except OSError as exc:
        raise Unreadable(f"{what} {path}: cannot read ({exc.strerror})") from None
    return parse_json(raw, f"{what} {path}")


# ---------------------------------------------------------------- typed access

def keys(ledger, obj, where, required, optional=()):
    ledger.require(isinstance(obj, dict), where, "must be a JSON object")
    missing = [k for k in required if k not in obj]
    ledger.require(not missing, where, f"missing field {missing[0]!r}" if missing else "")
    extra = sorted(k for k in obj if k not in required and k not in optional)
    ledger.require(not extra, where, f"unknown field {extra[0]!r}" if extra else "")
    return obj


def integer(ledger, value, where, lo=None, hi=None):
    ledger.require(isinstance(value, int) and not isinstance(value, bool), where, "must be an integer")
    ledger.require(lo is None or value >= lo, where, f"must be at least {lo}")
    ledger.require(hi is None or value <= hi, where, f"must be at most {hi}")
    return value


def positions(ledger, value, count, p, m, where="lower_bound.positions"):
    """A list of ``count`` entry positions ``[row, column]`` inside a p x m matrix, as tuples."""
    ledger.require(isinstance(value, list) and len(value) == count, where, f"must list {count} positions")
    cells = []
    for t, rc in enumerate(value):
        ledger.require(isinstance(rc, list) and len(rc) == 2, f"{where}[{t}]", "must be [row, column]")
        cells.append((integer(ledger, rc[0], f"{where}[{t}][0]", 0, p - 1),
                      integer(ledger, rc[1], f"{where}[{t}][1]", 0, m - 1)))
    return cells


def rational(ledger, value, where):
    try:
        return canonical_rational(value)
    except NumberError as exc:
        raise Rejected(where, str(exc)) from None


def matrix(ledger, value, where, rows, cols, number=None, *, parse=None, tables=None):
    """A rows x cols matrix whose entries are read by ``number`` (default: canonical rationals).

    Each distinct text of the matrix is parsed once and the rows are looked up (entries repeat in
    large systems); if any text fails, the matrix is read entry by entry to name the first bad entry.
    A custom ``number`` gets the same with ``parse`` (text to value, raising NumberError, no ledger).
    With ``tables`` (a dict), the ``{text: value}`` table of the distinct texts is stored there under
    ``where`` when every entry was read through it.
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
    """Strictly increasing witness lags below T, at most ``most`` of them."""
    ledger.require(isinstance(value, list) and len(value) <= most, "lower_bound.lags",
                   f"must be a list of at most min(T, pm) = {most} lags")
    for s, d in enumerate(value):
        integer(ledger, d, f"lower_bound.lags[{s}]", 0, T - 1)
    ledger.require(all(a < b for a, b in zip(value, value[1:])), "lower_bound.lags", "must be strictly increasing")
    return value


def canonical_hash(A, B, C, D):
    def txt(M):
        return [[rat_text(x) for x in row] for row in M]

    obj = {"A": txt(A), "B": txt(B), "C": txt(C), "D": txt(D) if D is not None else None}
    text = json.dumps(obj, sort_keys=True, ensure_ascii=True, separators=(",", ":"), allow_nan=False) + "\n"
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def read_system(ledger, obj):
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
    """The checker's record of a system read from ``obj`` (matrices ``mats``, D None when absent).

    Besides the matrices: ``sha256`` of the canonical text (every entry was just checked to be a
    canonical number text, so the canonical text is the entries as given, hashed directly);
    ``texts``, for each matrix read through its table of distinct texts, ``(entry texts, table)``;
    ``distinct``, the distinct entry values (for the denominators).
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
    """``json.dumps(mats, sort_keys=True, separators=(",", ":")) + "\\n"`` (ASCII), the same bytes, with rows of
    plain texts joined rather than encoded one string at a time (a million entries at N = 1024)."""
    parts = []
    for key in sorted(mats):
        value = mats[key]
        rows = [_plain_row(row) if type(row) is list else None for row in value] if type(value) is list else [None]
        body = "[" + ",".join(rows) + "]" if None not in rows else \
            json.dumps(value, sort_keys=True, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
        parts.append(json.dumps(key, ensure_ascii=True) + ":" + body)
    return "{" + ",".join(parts) + "}\n"


SPEC_KEYS = ("A", "B", "C", "D", "n", "name")
MAX_ENTRIES = 8_388_608
#: Systems whose matrices are integers below 10^18, read by the bulk reader (int64 arrays), may be this large.
MAX_INTEGER_ENTRIES = 17_825_792
MAX_NAME = 200
MAX_N = 10**30


def spec_matrix(value, name):
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
    """A spec's keys, ``n`` and ``name``, by the spec grammar; raises :class:`Unreadable`."""
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

    Returns ``(A, B, C, D)`` with ``D`` None when absent or zero; raises :class:`Unreadable`.
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
    """Canonical hash of a spec document (the system only), by the checker's own reader."""
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

