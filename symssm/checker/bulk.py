"""The checker's reader of large integer matrices: no Python object per entry (numpy, optional).

A certificate of an N = 4096 system holds 17 million entries; ``json.loads`` would make 17 million
Python strings of them (over a gigabyte), past the checker's memory limit.  When numpy is present,
:func:`split` cuts every matrix of canonical integer strings (``[["1", "-2"], ...]``, at most 18 digits
an entry) out of the certificate's bytes, checks each token with vectorised tests and keeps it as a
:class:`Bulk` (int64 entries and the matrix's canonical JSON text, which is what the system hash
covers).  Whatever it does not recognise is left in the text for ``json.loads`` and read entry by entry,
so the verdicts are the same with or without numpy (the pure reader needs more memory).

Written for the checker alone (the generator has its own reader).

Examples
--------
>>> b = read_matrix(b'[["1", "-2"], ["30", "0"]]')
>>> b.rows, b.cols, b.text
(2, 2, b'[["1","-2"],["30","0"]]')
>>> read_matrix(b'[["1", "02"]]') is None  # not canonical: read entry by entry, which names it
True
"""

import re
import warnings

from .accel import optional

_np = optional("numpy")

#: Most digits of an entry the bulk reader takes (every value fits an int64).
DIGITS = 18
#: Certificates from this size on are split (below, json.loads is fast enough).
SPLIT_BYTES = 1 << 20

_BLANK = b" \t\n\r"
_LEGAL = b'-0123456789",[]'
_TOKEN_THEN_BLANK = bytes((1 if chr(c) in '"-0123456789' else 2 if chr(c) in " \t\n\r" else 0) for c in range(256))
_KEYS = re.compile(rb'"([ABCD])"[ \t\n\r]*:[ \t\n\r]*\[')
_CLOSE = re.compile(rb"\][ \t\n\r]*\]")


class Bulk:
    """A matrix read by :func:`read_matrix`: ``values`` (int64, rows x cols), ``text``, the canonical JSON text of
    its entries as strings, and ``quoted``, whether the entries were JSON strings (a certificate's are; a spec's
    may be JSON integers)."""

    __slots__ = ("values", "text", "rows", "cols", "quoted")

    def __init__(self, values, text, rows, cols, quoted=True):
        self.values, self.text, self.rows, self.cols, self.quoted = values, text, rows, cols, quoted


def _length_of_texts(values):
    """Total length of the canonical decimal texts of int64 values below 10^18 in absolute value."""
    size = _np.abs(values)
    total = values.size + int(_np.count_nonzero(values < 0))
    for k in range(1, DIGITS + 1):
        more = int(_np.count_nonzero(size >= 10 ** k))
        if more == 0:
            break
        total += more
    return total


def read_matrix(region):
    """A :class:`Bulk` from the JSON text (bytes) of a matrix of canonical integer strings, else None.

    Accepted: ``[[...], ...]`` with rows of equal, positive length, every entry a JSON string ``"-?(0|[1-9][0-9]*)"``
    (``"-0"`` excluded) of at most :data:`DIGITS` digits, or every entry a JSON integer of that form (a spec),
    whitespace only between tokens.  None for anything
    else (without numpy too): ``json.loads`` then reads it, and the obligations judge it entry by entry.
    """
    if _np is None:
        return None
    if b"\x01\x02" in region.translate(_TOKEN_THEN_BLANK):  # a blank right after a token character: maybe in a string
        return None
    text = region.translate(None, _BLANK)
    quoted = b'"' in text
    if text.translate(None, _LEGAL) or not (text.startswith(b"[[") and text.endswith(b"]]")):
        return None
    shape = text.translate(None, b"-0123456789")
    first = shape[1:shape.index(b"]") + 1]
    cols = first.count(b'"') // 2 if quoted else first.count(b",") + 1
    rows = shape.count(b"[") - 1
    row = b"[" + b",".join([b'""' if quoted else b""] * cols) + b"]"
    if cols == 0 or shape != b"[" + b",".join([row] * rows) + b"]":
        return None
    if quoted and (b'""' in text or not (text.startswith(b'[["') and text.endswith(b'"]]'))
                   or text.count(b'","') != rows * (cols - 1) or text.count(b'"],["') != rows - 1):
        return None  # an empty string, or a separator with a digit next to it: a digit outside the strings
    digits = text.translate(None, b'[]"')  # the entries, separated by single commas (an empty one stops numpy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            values = _np.fromstring(digits, dtype=_np.int64, sep=",")
        except ValueError:
            return None
    if values.size != rows * cols:
        return None
    if bool((values >= 10 ** DIGITS).any()) or bool((values <= -10 ** DIGITS).any()):
        return None
    if digits.count(b"-") != int(_np.count_nonzero(values < 0)):
        return None  # a lone '-' (numpy reads it as 0)
    if _length_of_texts(values) + values.size - 1 != len(digits):
        return None  # some entry is longer than its value's canonical text: leading zeros, or "-0"
    if not quoted:  # JSON integers (a spec): the canonical text has them as strings
        text = b'[["' + text[2:-2].replace(b"],[", b";").replace(b",", b'","').replace(b";", b'"],["') + b'"]]'
    return Bulk(values.reshape(rows, cols), text, rows, cols, quoted)


def split(raw):
    """``(text without the matrices, {marker: Bulk})`` for a certificate's bytes, or None to read it whole.

    Each value of a key ``"A"``, ``"B"``, ``"C"`` or ``"D"`` (outside strings) that :func:`read_matrix` accepts is
    replaced by a marker string ``"\\u0000bulk<k>"``.  The bytes must be ASCII without a backslash, so no
    string of the original holds a quote, and none can equal a marker.
    """
    if _np is None or not raw.isascii() or b"\\" in raw:
        return None
    out, bulks, done = [], {}, 0
    for key in _KEYS.finditer(raw):
        start = key.end() - 1
        if start < done or raw.count(b'"', done, key.start()) % 2:  # in a string, or in a matrix already cut
            continue
        close = _CLOSE.search(raw, start)
        if close is None:
            continue
        bulk = read_matrix(raw[start:close.end()])
        if bulk is None:
            continue
        name = "\x00bulk%d" % len(bulks)
        bulks[name] = bulk
        out += [raw[done:start], b'"\\u0000bulk%d"' % (len(bulks) - 1)]
        done = close.end()
    if not bulks:
        return None
    out.append(raw[done:])
    return b"".join(out), bulks


#: The kinds whose ``system`` holds matrices of numbers (read by ``reading.read_system``): only theirs may come from
#: the bulk reader.
MATRIX_KINDS = ("head-count", "gradient-highway", "approximate-head-count")


def restore(obj, bulks):
    """Put each :class:`Bulk` back where its marker is, which must be a system's matrix (``obj``'s keys A, B, C, D,
    or its ``system``'s); None if a marker is anywhere else (then the whole text is read by ``json.loads``)."""
    if not isinstance(obj, dict) or "field" in obj or obj.get("kind") not in MATRIX_KINDS:
        return None  # a system over Q(i), a family's or a layer's formulas: their readers take lists of texts
    placed = 0
    for holder in (obj, obj.get("system") if isinstance(obj, dict) else None):
        if isinstance(holder, dict):
            for key in ("A", "B", "C", "D"):
                value = holder.get(key)
                if type(value) is str and value in bulks:
                    holder[key] = bulks[value]
                    placed += 1
    return obj if placed == len(bulks) else None


def as_bulk(value):
    """A matrix handed over as an object with ``json_bytes()`` (the generator's large integer matrices, when a
    certificate is checked in memory): the checker reads those bytes itself, as it would read them in a file."""
    raw = value.json_bytes()
    if not isinstance(raw, bytes):
        return None
    bulk = read_matrix(raw)
    if bulk is not None:
        return bulk
    import json

    try:
        return json.loads(raw)  # lists of strings, judged entry by entry
    except ValueError:
        return None


class SystemRecord(dict):
    """The checker's system record when some matrices are :class:`Bulk`: their Fraction rows are made only if an
    obligation asks for them (exact lags, a large prime); the modular obligations use ``record["arrays"]``."""

    def __missing__(self, key):
        arrays = self.get("arrays", {})
        if key not in arrays:
            raise KeyError(key)
        from fractions import Fraction

        shared = {}
        rows = [[shared[x] if x in shared else shared.setdefault(x, Fraction(x)) for x in row]
                for row in arrays[key].tolist()]
        self[key] = rows
        return rows


def bulk_system(ledger, obj, N, m, p, *, matrix, rational):
    """The system record of a ``system`` object some of whose matrices are :class:`Bulk` (the others are read by
    ``matrix``, the reader's: :func:`~symssm.checker.reading.matrix`; ``rational`` names a JSON integer where a
    string belongs): shapes, the hash of the canonical text, int64 arrays."""
    import hashlib
    import json

    shapes = {"A": (N, N), "B": (N, m), "C": (p, N), "D": (p, m)}
    record = SystemRecord(name=obj["name"], N=N, m=m, p=p, arrays={}, texts={})
    pieces, distinct, tables = [], [], {}
    for k in "ABCD":
        value, (r, c) = obj[k], shapes[k]
        if k == "D" and value is None:
            record["D"] = None
            pieces.append(b'"D":null')
            continue
        if isinstance(value, Bulk):  # the obligations of reading it as rows (the same ledger as entry by entry)
            ledger.require(value.rows == r, f"system.{k}", f"must be a list of {r} rows")
            for i in range(r):
                ledger.require(value.cols == c, f"system.{k}[{i}]", f"must be a row of {c} entries")
            if not value.quoted:  # JSON integers: a certificate's entries are strings (the first one is named)
                rational(ledger, int(value.values[0, 0]), f"system.{k}[0][0]")
            record["arrays"][k] = value.values
            pieces.append(b'"%s":' % k.encode() + value.text)
            if k == "D":
                ledger.require(bool(value.values.any()), "system.D", "an all-zero D must be written as null")
            continue
        rows = matrix(ledger, value, f"system.{k}", r, c, tables=tables)
        record[k] = rows
        if f"system.{k}" in tables:
            record["texts"][k] = (value, tables[f"system.{k}"])
        distinct.extend(x for row in rows for x in row)
        if k == "D":
            ledger.require(any(x != 0 for row in rows for x in row), "system.D", "an all-zero D must be written as null")
        pieces.append(b'"%s":' % k.encode() + json.dumps(value, separators=(",", ":"), ensure_ascii=True).encode())
    record["T"] = N + (1 if record["D"] is not None else 0)
    record["sha256"] = hashlib.sha256(b"{" + b",".join(pieces) + b"}\n").hexdigest()
    record["distinct"] = tuple(distinct)
    return record
