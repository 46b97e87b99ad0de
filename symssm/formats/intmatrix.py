"""Large integer matrices in JSON without a Python object per entry (numpy, imported only for large documents).

A spec or certificate of a system with N = 4096 holds 17 million entries: read by ``json.loads`` they
become 17 million Python objects (a gigabyte, and seconds to walk).  Most such systems are integer
matrices, and their JSON is regular: this module recognises a matrix of integers (JSON integers, or
canonical integer strings as certificates write them) directly in the document's bytes, checks every
token with vectorised tests, and keeps it as an :class:`IntegerMatrix`: an int64 array and the
matrix's canonical JSON text (``[["1","-2"],["3","4"]]``, the form hashed into certificates).  Anything
the fast path does not recognise is left to the ordinary reader, so the answers never differ.

Examples
--------
>>> m = parse_matrix(b'[[1, -2], [30, 0]]')
>>> m.shape, m.canonical
((2, 2), b'[["1","-2"],["30","0"]]')
>>> parse_matrix(b'[[1, 02]]') is None  # not canonical JSON: the ordinary reader decides
True
"""

import re
import warnings

__all__ = ["IntegerMatrix", "parse_matrix", "from_array", "extract_matrices", "MAX_INT_DIGITS"]

#: Entries of at most this many digits are read by the fast path (every value fits an int64).
MAX_INT_DIGITS = 18

_WS = b" \t\n\r"
_ALLOWED = b'-0123456789",[]'
# bytes.translate classes for the whitespace test: a character of a token (digit, '-', quote) -> 'a', whitespace -> 'b'
_CLASSES = bytes((97 if chr(c) in '"-0123456789' else 98 if bytes([c]) in (b" ", b"\t", b"\n", b"\r") else 99)
                 for c in range(256))
_KEY = re.compile(rb'"([ABCD])"[ \t\n\r]*:[ \t\n\r]*\[')
_END = re.compile(rb"\][ \t\n\r]*\]")


class IntegerMatrix:
    """An integer matrix read or built without a Python object per entry.

    Attributes
    ----------
    array : numpy.ndarray
        The entries, int64, shape ``(rows, cols)``; every absolute value below ``10**18``.
    canonical : bytes
        The canonical JSON text of the matrix of entry texts, ``[["1","-2"],["3","4"]]``.
    """

    __slots__ = ("array", "canonical")

    def __init__(self, array, canonical):
        self.array = array
        self.canonical = canonical

    @property
    def shape(self):
        """``(rows, cols)``."""
        return tuple(int(x) for x in self.array.shape)

    def json_bytes(self):
        """The canonical JSON text of the matrix (what a certificate holds, whitespace aside)."""
        return self.canonical

    def __len__(self):
        return self.shape[0]

    def __getitem__(self, i):
        """Row ``i`` as a list of canonical texts (built on demand)."""
        return [str(x) for x in self.array[i].tolist()]

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def pretty(self, indent, level):
        """The matrix as the canonical pretty JSON writes it: one row a line, ``", "`` between entries."""
        inner, pad = " " * (indent * (level + 1)), " " * (indent * level)
        body = self.canonical[2:-2].replace(b'","', b'", "').replace(b'"],["', b'"],\n' + inner.encode() + b'["')
        return "[\n" + inner + "[" + body.decode("ascii") + "]\n" + pad + "]"

    def __eq__(self, other):
        return isinstance(other, IntegerMatrix) and self.canonical == other.canonical

    def __hash__(self):
        return hash(self.canonical)

    def __repr__(self):
        return f"<IntegerMatrix {self.shape[0]}x{self.shape[1]}>"


def _np():
    import numpy as np

    return np


def _canonical_length(values):
    """The total length of the values' canonical decimal texts (signs included); ``|values| < 10**18``."""
    np = _np()
    magnitude = np.abs(values)
    total = values.size + int(np.count_nonzero(values < 0))
    for k in range(1, MAX_INT_DIGITS + 1):
        longer = int(np.count_nonzero(magnitude >= 10 ** k))
        if not longer:
            break
        total += longer
    return total


def parse_matrix(region):
    """An :class:`IntegerMatrix` from the JSON text of a matrix of integers, or None when it is not one.

    ``region`` is the bytes of one JSON array value.  Accepted: an array of equally long, non-empty arrays
    whose entries are all JSON integers, or all strings holding canonical integers (``"-12"``, never ``"012"``
    or ``"-0"``), of at most :data:`MAX_INT_DIGITS` digits, with whitespace only between tokens.  Anything
    else returns None, and the ordinary JSON reader (which gives the same values, or names the problem) is
    used instead.
    """
    np = _np()
    if b"ab" in region.translate(_CLASSES):  # whitespace right after a token character: it may be inside a string
        return None
    compact = region.translate(None, _WS)
    if compact.translate(None, _ALLOWED) or not compact.startswith(b"[[") or not compact.endswith(b"]]"):
        return None
    quoted = b'"' in compact
    skeleton = compact.translate(None, b"-0123456789")  # brackets, commas (and quotes): the shape alone
    cols = skeleton[1:skeleton.index(b"]") + 1].count(b",") + 1  # from the first row, "[..,..]"
    rows = skeleton.count(b"[") - 1
    row = b"[" + b",".join([b'""' if quoted else b""] * cols) + b"]"
    if len(skeleton) != rows * (len(row) + 1) + 1 or skeleton != b"[" + b",".join([row] * rows) + b"]":
        return None
    if quoted:
        # every separator of the shape still adjacent to its quotes: no digit outside a string; no empty string
        if b'""' in compact or not (compact.startswith(b'[["') and compact.endswith(b'"]]')) or \
                compact.count(b'","') != rows * (cols - 1) or compact.count(b'"],["') != rows - 1:
            return None
        tokens = compact.translate(None, b'[]"')
    else:
        tokens = compact.translate(None, b"[]")  # an empty entry makes numpy stop early: caught by the count
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            values = np.fromstring(tokens, dtype=np.int64, sep=",")
        except ValueError:
            return None
    if values.size != rows * cols or values.size == 0:
        return None
    if (values >= 10 ** MAX_INT_DIGITS).any() or (values <= -10 ** MAX_INT_DIGITS).any():
        return None
    if tokens.count(b"-") != int(np.count_nonzero(values < 0)):
        return None  # a lone '-' (which numpy reads as 0)
    # every token is at least as long as its value's canonical text, equally long only when it is that text
    if _canonical_length(values) + values.size - 1 != len(tokens):
        return None
    array = values.reshape(rows, cols)
    if quoted:
        canonical = compact
    else:
        canonical = (b'[["' + compact[2:-2].replace(b"],[", b";").replace(b",", b'","').replace(b";", b'"],["')
                     + b'"]]')
    return IntegerMatrix(array, canonical)


def from_array(array):
    """An :class:`IntegerMatrix` from a 2-D numpy integer array whose entries are below ``10**18`` in absolute
    value (None otherwise): its canonical text is written row by row (no object per entry kept)."""
    np = _np()
    if array.ndim != 2 or array.dtype.kind not in "iu" or 0 in array.shape:
        return None
    if array.dtype.kind == "u" and array.size and int(array.max()) >= 10 ** MAX_INT_DIGITS:
        return None
    values = array.astype(np.int64)
    if values.size and (int(values.max()) >= 10 ** MAX_INT_DIGITS or int(values.min()) <= -10 ** MAX_INT_DIGITS):
        return None
    rows = ['["' + '","'.join(map(str, row)) + '"]' for row in values.tolist()] if values.size < 1 << 16 else \
        ['["' + '","'.join(map(str, values[i].tolist())) + '"]' for i in range(values.shape[0])]
    return IntegerMatrix(values, ("[" + ",".join(rows) + "]").encode("ascii"))


def extract_matrices(raw):
    """Cut the integer matrices out of a JSON document: ``(rest, {placeholder: IntegerMatrix})``, or None.

    ``raw`` is the document's bytes (ASCII, no backslash: otherwise None).  Every value of a key ``"A"``,
    ``"B"``, ``"C"`` or ``"D"`` (outside strings) that :func:`parse_matrix` accepts is replaced in ``rest`` by
    a placeholder string ``"\\u0000m<k>"``, which no string of the original can equal (it has no backslash);
    parsing ``rest`` and putting each matrix back where its placeholder is gives what parsing ``raw``
    would, with the matrices as :class:`IntegerMatrix` objects.  None when no matrix was recognised.
    """
    if not raw.isascii() or b"\\" in raw:
        return None
    pieces, found, last = [], {}, 0
    for match in _KEY.finditer(raw):
        start = match.end() - 1
        if start < last or raw.count(b'"', last, match.start()) % 2:  # inside a string, or inside a matrix cut
            continue
        end = _END.search(raw, start)
        if end is None:
            continue
        matrix = parse_matrix(raw[start:end.end()])
        if matrix is None:
            continue
        key = f"\\u0000m{len(found)}"
        found["\x00m" + str(len(found))] = matrix
        pieces.append(raw[last:start])
        pieces.append(b'"' + key.encode("ascii") + b'"')
        last = end.end()
    if not found:
        return None
    pieces.append(raw[last:])
    return b"".join(pieces), found
