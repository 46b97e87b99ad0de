"""Exact numbers for the checker: canonical rationals and integers, big-int text, primality.

Standard library only; shares no code with the generator.  A certificate writes every number in one
canonical form (:func:`canonical_rational`, :func:`canonical_integer`); the looser spec grammar (``0.5``,
``1e-3``) is :mod:`.spec`'s.
"""

import re
from fractions import Fraction

_SMALL_INT = re.compile(r"-?[1-9][0-9]*\Z|0\Z")
CANONICAL = re.compile(r"(-?(?:0|[1-9][0-9]*))(?:/([1-9][0-9]*))?\Z")
MAX_DIGITS = 10_000
_CHUNK = 600  # below the lowest int/str conversion limit CPython can be set to (640 digits)


class NumberError(ValueError):
    """A number's text is outside its grammar or its limit."""


def big_int(digits):
    """int() of a digit string of any length (not limited by int_max_str_digits)."""
    sign = -1 if digits.startswith("-") else 1
    digits = digits.lstrip("+-")
    if len(digits) > MAX_DIGITS:
        raise NumberError(f"{len(digits)} digits exceed the limit of {MAX_DIGITS}")
    value = 0
    for i in range(0, len(digits), _CHUNK):
        part = digits[i:i + _CHUNK]
        value = value * 10 ** len(part) + int(part)
    return sign * value


_BASE = 10**_CHUNK


def int_text(value):
    if -_BASE < value < _BASE:
        return str(value)
    if value < 0:
        return "-" + int_text(-value)
    base, parts = _BASE, []
    while value:
        value, r = divmod(value, base)
        parts.append(r)
    return str(parts[-1]) + "".join(str(r).zfill(_CHUNK) for r in reversed(parts[:-1]))


def rat_text(x):
    return int_text(x.numerator) if x.denominator == 1 else f"{int_text(x.numerator)}/{int_text(x.denominator)}"


def canonical_rational(text):
    """Parse ``"p"`` or ``"p/q"`` in lowest terms with q > 1, rejecting anything else."""
    if type(text) is not str or not text.isascii():
        raise NumberError("not a rational string (a JSON string such as \"3/4\")")
    # the grammar below is ASCII only ([0-9], not \d): "²" or a full-width digit never reaches int()
    if len(text) < 19 and _SMALL_INT.match(text):  # the common case: a short canonical integer
        return Fraction(int(text))
    m = CANONICAL.match(text)
    if not m or text == "-0":
        raise NumberError(f"{text[:40]!r} is not a canonical rational ('p' or 'p/q' in lowest terms)")
    num = big_int(m.group(1))
    if m.group(2) is None:
        return Fraction(num)
    den = big_int(m.group(2))
    value = Fraction(num, den)
    if den == 1 or value.denominator != den:
        raise NumberError(f"{text[:40]!r} is not in lowest terms")
    return value


def canonical_integer(text, max_digits=MAX_DIGITS):
    """Parse a canonical integer text: ASCII digits, no leading zero, at most one leading ``-``, no ``-0``.

    The one reader of integer texts in the checker (entries of integer matrices, kernels); rationals are
    read by :func:`canonical_rational`, which applies the same rule to the numerator and denominator.

    Parameters
    ----------
    text : object
        The value read (it must be a JSON string).
    max_digits : int
        The most digits allowed.

    Returns
    -------
    int

    Raises
    ------
    NumberError
        If ``text`` is not such a string, or has more than ``max_digits`` digits.

    Examples
    --------
    >>> canonical_integer("-158"), canonical_integer("0")
    (-158, 0)
    >>> for bad in ("--158", "\u00b2", "007", " 1", "-0", "+1", "1_000", True):
    ...     try:
    ...         canonical_integer(bad)
    ...     except NumberError:
    ...         pass
    ...     else:
    ...         print("accepted", bad)
    """
    if type(text) is not str or not text.isascii():
        raise NumberError("not an integer string (a JSON string such as \"-12\")")
    if not _SMALL_INT.match(text):
        raise NumberError(f"{text[:40]!r} is not a canonical integer (ASCII digits, no leading zero, one optional '-')")
    if len(text) - text.startswith("-") > max_digits:
        raise NumberError(f"{len(text) - text.startswith('-')} digits exceed the limit of {max_digits}")
    return big_int(text) if len(text) > 18 else int(text)


def is_prime(n):
    """Deterministic Miller-Rabin, valid for n < 3.3e24."""
    if n < 2:
        return False
    bases = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    for b in bases:
        if n % b == 0:
            return n == b
    d, s = n - 1, 0
    while not d & 1:
        d >>= 1
        s += 1
    for b in bases:
        x = pow(b, d, n)
        if x == 1 or x == n - 1:
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True
