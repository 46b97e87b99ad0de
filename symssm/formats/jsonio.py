"""Strict JSON reading and canonical JSON writing.

The reader refuses what ``json.load`` lets through by default: ``NaN`` and
``Infinity``, duplicate keys, documents that are too large or nested too deep.
Non-integer JSON numbers are kept as their decimal text, never turned into a
binary float, so ``0.1`` stays exactly one tenth.

Examples
--------
>>> loads_strict('{"a": [1, 0.1]}')
{'a': [1, '0.1']}
>>> dumps_canonical({"b": 1, "a": [1, 2]})
'{"a":[1,2],"b":1}\\n'
"""

import json
import os
import re

from ..errors import LimitError, ParseError
from .limits import MAX_DEPTH, MAX_DIGITS, MAX_FILE_BYTES, MAX_INTEGER_FILE_BYTES

#: Documents of at least this many bytes first try the integer-matrix fast path (formats/intmatrix.py).
BULK_BYTES = 1 << 20

__all__ = [
    "loads_strict",
    "load_strict",
    "dumps_canonical",
    "dumps_canonical_matrices",
]



def _no_constant(name):
    raise ParseError(f"JSON constant {name} is not allowed")


def _pairs(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise ParseError(f"duplicate key {key!r} in JSON object")
        out[key] = value
    return out


def _int(text):
    """A JSON integer's value, its digits counted first against symssm's own limit (whatever
    ``sys.set_int_max_str_digits`` says), then read in chunks below any limit the interpreter may set."""
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise LimitError(f"JSON integer with {len(text.lstrip('-'))} digits; the limit is {MAX_DIGITS}")
    if len(text) < 600:
        return int(text)
    from .rationals import int_from_digits

    return int_from_digits(text)


#: A run of digits longer than any JSON integer symssm reads: text without one has no integer over the limit.
_LONG_DIGITS = re.compile(r"[0-9]{%d}" % (MAX_DIGITS + 1))


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


def _depth_ok(text, limit=MAX_DEPTH):
    """Whether the JSON text nests at most ``limit`` levels (brackets inside strings do not count).

    Strings and every other character are removed by regular expressions (C speed) and the brackets
    left are counted; an unterminated string keeps its brackets (only ever more cautious).
    """
    depth = 0
    for ch in _brackets(text):
        if ch in "[{":
            depth += 1
            if depth > limit:
                return False
        else:
            depth -= 1
    return True


def _put_back(data, found):
    """Put the matrices of :func:`~symssm.formats.intmatrix.extract_matrices` back where a system's matrices are (the
    document's keys A, B, C, D, or its ``system``'s); None if some placeholder is elsewhere (then the document is
    read the ordinary way)."""
    if isinstance(data, dict) and "field" in data:  # a certificate over Q(i): read the usual way
        return None
    placed = 0
    for holder in (data, data.get("system") if isinstance(data, dict) else None):
        if isinstance(holder, dict):
            for key in ("A", "B", "C", "D"):
                value = holder.get(key)
                if type(value) is str and value in found:
                    holder[key] = found[value]
                    placed += 1
    return data if placed == len(found) else None


def _loads_large(raw, what):
    """A large document whose matrices of integers are read without a Python object per entry (see
    :mod:`~symssm.formats.intmatrix`), or None to read it the ordinary way."""
    from .intmatrix import extract_matrices

    cut = extract_matrices(raw)
    if cut is None:
        return None
    rest, found = cut
    if len(rest) > MAX_FILE_BYTES:
        return None
    text = rest.decode("ascii")
    if not _depth_ok(text, MAX_DEPTH - 2):  # each matrix (two levels) stands where its placeholder is
        raise LimitError(f"{what} nests deeper than {MAX_DEPTH} levels")
    return _put_back(loads_strict(text, what=what), found)  # None: a matrix elsewhere, read the usual way


def loads_strict(text, *, what="input"):
    """Parse JSON text strictly.

    Parameters
    ----------
    text : str or bytes
    what : str
        How to name the document in error messages.

    Returns
    -------
    object
        Objects, lists, strings, ints, booleans and None; non-integer numbers
        come back as their decimal text (a str).

    Raises
    ------
    ParseError, LimitError
    """
    if isinstance(text, bytes):
        if len(text) >= BULK_BYTES and len(text) <= MAX_INTEGER_FILE_BYTES:
            data = _loads_large(text, what)
            if data is not None:
                return data
        if len(text) > MAX_FILE_BYTES:
            limit = (f"{MAX_FILE_BYTES} ({MAX_INTEGER_FILE_BYTES} for integer matrices below 10^18 written as JSON "
                     "integers or canonical integer strings)")
            raise LimitError(f"{what} is {len(text)} bytes; the limit is {limit}")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ParseError(f"{what} is not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    if len(text) > MAX_FILE_BYTES:
        raise LimitError(f"{what} is {len(text)} characters; the limit is {MAX_FILE_BYTES}")
    if not _depth_ok(text):
        raise LimitError(f"{what} nests deeper than {MAX_DEPTH} levels")
    try:
        # Python's own int parsing when no run of digits in the text is over symssm's limit (the limit is
        # symssm's, never the interpreter's, which another library may have raised); else each integer by the hook
        if not _LONG_DIGITS.search(text):
            try:
                return json.loads(text, parse_float=str, parse_constant=_no_constant, object_pairs_hook=_pairs)
            except ValueError as exc:  # an integer past an interpreter limit set below symssm's: the hook reads it
                if isinstance(exc, json.JSONDecodeError) or "digits" not in str(exc):
                    raise
        return json.loads(
            text,
            parse_float=str,
            parse_int=_int,
            parse_constant=_no_constant,
            object_pairs_hook=_pairs,
        )
    except json.JSONDecodeError as exc:
        raise ParseError(f"{what} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except (ParseError, LimitError) as exc:  # raised by the hooks (NaN, duplicate keys, huge integers)
        exc.args = (f"{what}: {exc}",)
        raise
    except RecursionError:
        raise LimitError(f"{what} nests too deeply") from None


def load_strict(path, *, what=None):
    """Read and strictly parse a JSON file (see :func:`loads_strict`)."""
    what = what or str(path)
    try:
        size = os.path.getsize(path)
        if size > MAX_INTEGER_FILE_BYTES:
            raise LimitError(f"{what} is {size} bytes; the limit is {MAX_INTEGER_FILE_BYTES} (for integer matrices "
                             f"below 10^18; {MAX_FILE_BYTES} for other content)")
        with open(path, "rb") as fh:
            data = fh.read(MAX_INTEGER_FILE_BYTES + 1)
    except FileNotFoundError:
        raise ParseError(f"{what}: no such file") from None
    except IsADirectoryError:
        raise ParseError(f"{what} is a directory, not a file") from None
    except OSError as exc:
        raise ParseError(f"{what}: cannot read ({exc.strerror})") from None
    return loads_strict(data, what=what)


def dumps_canonical(obj, *, indent=None):
    """Deterministic JSON text: sorted keys, ASCII, fixed separators, final newline.

    With ``indent`` the output is pretty-printed but still byte-deterministic.
    """
    if indent is None:
        text = json.dumps(obj, sort_keys=True, ensure_ascii=True, separators=(",", ":"), allow_nan=False,
                          default=_compact_default)
    else:
        text = _pretty(obj, indent, 0)
    return text + "\n"


def _compact_default(obj):
    """``json.dumps`` cannot write an IntegerMatrix itself: its rows (lists of texts), for the compact form."""
    if type(obj).__name__ == "IntegerMatrix":
        return [obj[i] for i in range(len(obj))]
    raise TypeError(f"Object of type {type(obj).__name__} is not JSON serializable")


#: One encoder for every scalar and flat row of the pretty form (``json.dumps`` with these options builds a
#: new encoder per call, a third of the time of writing a family's certificate).
_FLAT = json.JSONEncoder(sort_keys=True, ensure_ascii=True, separators=(", ", ": "), allow_nan=False).encode


def _plain_row(items, sep):
    """``items`` as a JSON array with ``sep`` between entries when every item is a text that JSON writes as
    itself (printable ASCII, no quote, no backslash): joined at C speed; else None.

    A matrix row of canonical numbers is such a row; the encoder escapes-checks every string on its own.
    """
    if type(items) is list and items:
        try:
            text = "".join(items)  # only texts join (a subclass of str is written as its text, as the encoder does)
        except TypeError:
            return None
        if text.isascii() and text.isprintable() and '"' not in text and "\\" not in text:
            return '["' + ('"' + sep + '"').join(items) + '"]'
    return None


def _flat(obj):
    return _plain_row(obj, ", ") or _FLAT(obj)


def _matrix_text(value, compact):
    """The JSON text of an :class:`~symssm.formats.intmatrix.IntegerMatrix` (or None for anything else)."""
    if type(value).__name__ == "IntegerMatrix" and hasattr(value, "json_bytes"):
        return value.json_bytes().decode("ascii") if compact else None
    return None


def dumps_canonical_matrices(mats):
    """``dumps_canonical(mats)``, the same bytes, for a dict of matrices of texts (or None): rows joined.

    The system hash is taken over this text (a million entries at N = 1024); joining the rows of plain
    texts instead of encoding each string takes a fifth of the time.

    Examples
    --------
    >>> dumps_canonical_matrices({"B": [["1", "2/3"]], "A": [["-4"]], "D": None})
    '{"A":[["-4"]],"B":[["1","2/3"]],"D":null}\\n'
    """
    parts = []
    for key in sorted(mats):
        value = mats[key]
        body = _matrix_text(value, True)
        if body is None:
            rows = [_plain_row(row, ",") for row in value] if type(value) is list else [None]
            body = "[" + ",".join(rows) + "]" if None not in rows else dumps_canonical(value)[:-1]
        parts.append(json.dumps(key, ensure_ascii=True) + ":" + body)
    return "{" + ",".join(parts) + "}\n"


def _scalars(items):
    """No list or dict among ``items`` (decided on the distinct types, at C speed for a long matrix row)."""
    return not any(issubclass(t, (list, dict)) for t in set(map(type, items)))


def _pretty(obj, indent, level):
    """Objects one key per line; lists of scalars (matrix rows) on one line."""
    if hasattr(obj, "pretty") and type(obj).__name__ == "IntegerMatrix":
        return obj.pretty(indent, level)
    pad, inner = " " * (indent * level), " " * (indent * (level + 1))
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = [f"{inner}{json.dumps(k, ensure_ascii=True)}: {_pretty(obj[k], indent, level + 1)}" for k in sorted(obj)]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, list):
        rows = [_plain_row(x, ", ") for x in obj] if obj and type(obj[0]) is list else [None]
        if None not in rows:  # a matrix of plain texts, one row per line
            return "[\n" + ",\n".join(inner + row for row in rows) + "\n" + pad + "]"
        if _scalars(obj):
            return _flat(obj)
        if all(isinstance(x, list) and _scalars(x) for x in obj):
            return "[\n" + ",\n".join(inner + _flat(x) for x in obj) + "\n" + pad + "]"
        return "[\n" + ",\n".join(inner + _pretty(x, indent, level + 1) for x in obj) + "\n" + pad + "]"
    return _flat(obj)
