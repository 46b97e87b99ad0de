"""The checker's kernel: the verdicts, the ledger of obligations, and strict JSON.

Standard library only; it never imports the generator.  Every obligation module raises
:class:`Rejected` (an obligation failed, named) or :class:`Unreadable` (the input cannot be read or
decided) through a :class:`Ledger`; :func:`symssm.checker.core.check_data` turns them into a
:class:`CheckResult` (0 verified, 1 rejected, 2 unreadable or undecided). JSON is read by
:func:`parse_json`: no duplicate keys, no NaN or Infinity, numbers with a fraction kept as their text
(:class:`JsonDecimal`, never a binary float), bounded in size and depth before it is parsed.

Examples
--------
>>> ledger = Ledger()
>>> ledger.require(1 + 1 == 2, "arithmetic", "1 + 1 must be 2")
>>> ledger.done
['arithmetic']
>>> ledger.require(False, "head_count", "does not match the witnesses")
Traceback (most recent call last):
...
symssm.checker.kernel.Rejected: head_count: does not match the witnesses
>>> parse_json('{"n": 0.5}', "spec")["n"]
'0.5'
"""

import json
import re
import time

from .bulk import SPLIT_BYTES
from .limits import MAX_BYTES, MAX_DEPTH, MAX_INTEGER_BYTES
from .numbers import NumberError, big_int

__all__ = ["FORMAT", "VERSIONS", "Rejected", "Unreadable", "Malformed", "CheckResult", "Ledger", "JsonDecimal", "strict_equal",
           "is_text", "parse_json", "read_file"]

FORMAT = "symssm-certificate"
VERSIONS = (1,)


class Rejected(Exception):
    """An obligation failed: ``obligation`` names it."""

    def __init__(self, obligation, message):
        super().__init__(f"{obligation}: {message}")
        self.obligation = obligation


class Unreadable(Exception):
    """The input is not a readable symssm certificate."""


class Malformed(Unreadable):
    """A field is not written as the format says (a number's text, a boolean for a number): unreadable (exit 2),
    with the field named.

    >>> str(Malformed("lower_bound.prime", "'--7' is not a canonical integer"))
    "malformed certificate: lower_bound.prime: '--7' is not a canonical integer"
    """

    def __init__(self, field, message):
        super().__init__(f"malformed certificate: {field}: {message}")
        self.field = field


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

    def _repr_markdown_(self):
        """Jupyter: the verdict in bold, the checker's message, the number of obligations discharged."""
        verdict = ["VERIFIED", "REJECTED", "UNREADABLE"][self.code]
        message = "".join(c if c.isalnum() or c in " .,:;=()[]<>+-/'_^" else "?" for c in str(self.message)[:2000])
        count = f" ({len(self.obligations)} obligations checked)" if self.obligations else ""
        return f"**{verdict}** (exit code {self.code}){count}: {message.replace('_', chr(92) + '_')}"


class Ledger:
    """Collects discharged obligations; ``require`` raises on the first failure."""

    def __init__(self, deadline=None, seconds=None):
        self.done = []
        self._seen = set()  # constant-time de-duplication: a certificate with 400,000 rows stays linear
        self.deadline = deadline  # a wall-clock limit only when one was asked for (``--max-seconds``)
        self.seconds = seconds

    def clock_message(self):
        """What a check stopped by the clock says: the clock and the limit asked for, never a verdict."""
        limit = "" if self.seconds is None else f" of {self.seconds:g} s"
        return (f"undecided: stopped by the clock: the wall-clock limit{limit} asked for (--max-seconds) ran out "
                "before all obligations were checked; neither verified nor rejected")

    def require(self, condition, obligation, message):
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise Unreadable(self.clock_message())
        if not condition:
            raise Rejected(obligation, message)
        if obligation not in self._seen:
            self._seen.add(obligation)
            self.done.append(obligation)

    def afford(self, condition, where, message):
        """A limit on the checker's work, tested before the work: over it the verdict is undecided (exit 2), the
        limit named, never REJECTED (a true certificate may need more work than the checker does).

        >>> Ledger().afford(10 <= 20, "n", "costs 10; the limit is 20")
        >>> Ledger().afford(30 <= 20, "n", "costs 30; the limit is 20")
        Traceback (most recent call last):
        ...
        symssm.checker.kernel.Unreadable: undecided: n: costs 30; the limit is 20; neither verified nor rejected
        """
        if not condition:
            raise Unreadable(f"undecided: {where}: {message}; neither verified nor rejected")


class JsonDecimal(str):
    """A JSON number with a fraction or exponent, kept as its text (never a binary float).

    A subclass of str so that a spec's decimal entries parse exactly, and a distinct type so
    that a certificate field that must be a string never accepts a JSON number.
    """


def strict_equal(a, b):
    """Equality that also requires equal types: ``True`` is not ``1``, a JSON number is not a string.

    Parameters
    ----------
    a, b : object
        Parsed JSON values.

    Returns
    -------
    bool

    Examples
    --------
    >>> strict_equal([1, "2"], [1, "2"]), strict_equal(True, 1), strict_equal(JsonDecimal("0.5"), "0.5")
    (True, False, False)
    """
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(strict_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(strict_equal(a[k], b[k]) for k in a)
    return a == b


def is_text(value, limit):
    """Whether ``value`` is a JSON string (not a number) of at most ``limit`` characters.

    Parameters
    ----------
    value : object
        A parsed JSON value.
    limit : int
        The most characters.

    Returns
    -------
    bool
    """
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
    """Strict JSON: bounded in size and depth before parsing, no duplicate keys, no NaN or Infinity.

    Parameters
    ----------
    raw : bytes or str
        The text (UTF-8 when bytes).
    what : str
        How messages name it.

    Returns
    -------
    object
        The parsed value; integers as ``int`` (any size the digit limit allows), other numbers as
        :class:`JsonDecimal` (their text, never a float).

    Raises
    ------
    Unreadable
        If the text is too large, not UTF-8, nests too deeply, or is not strict JSON.
    """
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
    """Read and strictly parse a JSON file (see :func:`parse_json`).

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    what : str
        How messages name it (``"certificate"``, ``"spec"``).

    Returns
    -------
    object
        The parsed value.

    Raises
    ------
    Unreadable
        If the file does not exist, is a directory, cannot be read, or is not strict JSON.
    """
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
