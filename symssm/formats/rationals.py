"""Strict grammar for exact numbers, and their canonical text form.

Accepted entry forms (see ``docs/robustness.md`` for the limits):

* integers: ``-12``, ``+7``, ``0``
* fractions: ``3/4``, ``-10/6`` (denominator positive, not zero)
* exact decimals: ``0.125``, ``-1.5e-3``, ``2E+4``, ``.5``

Nothing is ever evaluated: the text is matched by a regular expression and the
value built from its digits.  Binary floats are refused, because a float such
as ``0.1`` is not the rational number its decimal text suggests.

Examples
--------
>>> parse_rational("-1.5e-3")
Fraction(-3, 2000)
>>> format_rational(parse_rational("10/6"))
'5/3'
"""

import re
from fractions import Fraction
from numbers import Integral, Rational

from ..errors import FloatInExactPathError, InputError, LimitError, ParseError
from .limits import MAX_DIGITS, MAX_EXPONENT

__all__ = [
    "MAX_DIGITS",
    "MAX_EXPONENT",
    "parse_rational",
    "to_fraction",
    "format_rational",
    "int_from_digits",
    "int_to_text",
    "short_rational",
    "Tolerance",
    "parse_tolerance",
]


_INT = re.compile(r"[+-]?[0-9]+\Z")
_FRAC = re.compile(r"([+-]?[0-9]+)/([0-9]+)\Z")
_DEC = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?\Z")


_CHUNK = 600  # below the lowest int/str conversion limit CPython can be set to (640 digits)
_BASE = 10**_CHUNK
_SMALL = 10**_CHUNK


def int_from_digits(digits):
    """Integer value of a string of ASCII digits (optionally signed), of any length.

    Unlike ``int(text)`` this is not subject to ``sys.int_max_str_digits``.

    Examples
    --------
    >>> int_from_digits("-0012")
    -12
    """
    sign = -1 if digits[:1] == "-" else 1
    digits = digits.lstrip("+-")
    value = 0
    for start in range(0, len(digits), _CHUNK):
        chunk = digits[start:start + _CHUNK]
        value = value * 10 ** len(chunk) + int(chunk)
    return sign * value


def int_to_text(value):
    """Decimal text of an integer of any size (not limited by ``int_max_str_digits``).

    Examples
    --------
    >>> int_to_text(-10**5000) == "-1" + "0" * 5000
    True
    """
    if -_SMALL < value < _SMALL:
        return str(value)
    if value < 0:
        return "-" + int_to_text(-value)
    parts = []
    base = _BASE
    while value:
        value, rest = divmod(value, base)
        parts.append(rest)
    out = str(parts[-1])
    for rest in reversed(parts[:-1]):
        out += str(rest).zfill(_CHUNK)
    return out


def _check_digits(text, what):
    digits = sum(ch.isdigit() for ch in text)
    if digits > MAX_DIGITS:
        raise LimitError(f"{what} has {digits} digits; the limit is {MAX_DIGITS}")


_DIGIT_CAP = 10**MAX_DIGITS


def _check_canonical(value, what, shown):
    """The canonical form ``p/q`` must fit the digit limit too (``1e-10000`` is ``1/10^10000``: 10,001 digits)."""
    if abs(value.numerator) >= _DIGIT_CAP or value.denominator >= _DIGIT_CAP:
        raise LimitError(f"{what} {shown!r} is a rational whose numerator or denominator has more than "
                         f"{MAX_DIGITS} digits in lowest terms; the limit is {MAX_DIGITS}")


def parse_rational(text, *, what="entry"):
    """Parse an exact number from text by the strict grammar.

    Parameters
    ----------
    text : str
        An integer, ``p/q`` or an exact decimal, without surrounding space.
    what : str, optional
        How to name the value in error messages (``"A[1][2]"``).

    Returns
    -------
    fractions.Fraction

    Raises
    ------
    ParseError
        If the text is not of one of the accepted forms.
    LimitError
        If it has too many digits or too large an exponent.

    Examples
    --------
    >>> parse_rational("7")
    Fraction(7, 1)
    >>> parse_rational("2/-3")
    Traceback (most recent call last):
    ...
    symssm.errors.ParseError: entry '2/-3' is not an integer, p/q or exact decimal
    """
    if not isinstance(text, str):
        raise ParseError(f"{what} must be a string, got {type(text).__name__}")
    shown = text if len(text) <= 40 else text[:37] + "..."
    if len(text) > 4 * MAX_DIGITS:
        raise LimitError(f"{what} is {len(text)} characters long; the limit is {4 * MAX_DIGITS}")
    if text.isascii():
        if _INT.match(text):
            _check_digits(text, what)
            return Fraction(int_from_digits(text))
        m = _FRAC.match(text)
        if m:
            _check_digits(text, what)
            den = int_from_digits(m.group(2))
            if den == 0:
                raise ParseError(f"{what} {shown!r} has a zero denominator")
            return Fraction(int_from_digits(m.group(1)), den)
        m = _DEC.match(text)
        if m and (m.group(2) or m.group(3)):
            sign, whole, frac, exp = m.groups()
            frac = frac or ""
            _check_digits(whole + frac, what)
            e = 0
            if exp is not None:
                significant = exp.lstrip("+-").lstrip("0")
                e = int(significant) if significant and len(significant) <= 6 else 0
                if len(significant) > 6 or e > MAX_EXPONENT:
                    raise LimitError(
                        f"{what} {shown!r} has exponent beyond +-{MAX_EXPONENT}"
                    )
                e = -e if exp.startswith("-") else e
            mant = int_from_digits((whole or "0") + frac)
            e -= len(frac)
            value = Fraction(mant * 10**e) if e >= 0 else Fraction(mant, 10**-e)
            _check_canonical(value, what, shown)
            return -value if sign == "-" else value
    if text.isascii() and text.rstrip().endswith(("j", "J")) and any(c.isdigit() for c in text):
        raise ParseError(f"{what} {shown!r} is not an integer, p/q or exact decimal; a complex entry writes "
                         "its imaginary unit as i, e.g. '1i' or '1/2+3/4i'")
    raise ParseError(f"{what} {shown!r} is not an integer, p/q or exact decimal")


def to_fraction(value, *, what="entry"):
    """Convert one user-supplied entry to a Fraction, refusing floats.

    Accepts Python and numpy integers, Fractions, SymPy rationals and strings
    of the strict grammar.

    Examples
    --------
    >>> to_fraction(3)
    Fraction(3, 1)
    >>> to_fraction(0.5)
    Traceback (most recent call last):
    ...
    symssm.errors.FloatInExactPathError: entry is a float (0.5); the exact path takes integers, fractions or strings such as '1/2' (use symssm.numeric for floats)
    >>> to_fraction(1j)
    Traceback (most recent call last):
    ...
    symssm.errors.FloatInExactPathError: entry is a complex float (1j); write it exactly as a string, e.g. '1i' or '1/2+3/4i'
    """
    if type(value) is int:  # the common case, first
        if value.bit_length() > 33_000:
            _check_canonical(Fraction(value), what, "(a Python number)")
        return Fraction(value)
    if isinstance(value, bool):
        raise ParseError(f"{what} is a boolean, not a number")
    if isinstance(value, (Fraction, Integral)):
        value = Fraction(value) if isinstance(value, Fraction) else Fraction(int(value))
        _check_canonical(value, what, "(a Python number)")
        return value
    if isinstance(value, str):
        return parse_rational(value, what=what)
    if isinstance(value, complex) or type(value).__name__.startswith("complex"):
        raise FloatInExactPathError(f"{what} is a complex float ({value!r}); write it exactly as a string, "
                                    "e.g. '1i' or '1/2+3/4i'")
    if isinstance(value, float) or type(value).__name__.startswith("float"):
        raise FloatInExactPathError(
            f"{what} is a float ({value!r}); the exact path takes integers, fractions "
            "or strings such as '1/2' (use symssm.numeric for floats)"
        )
    # SymPy Rational / Integer, flint fmpq, gmpy mpq: all expose p/q exactly.
    num = getattr(value, "p", None)
    den = getattr(value, "q", None)
    if isinstance(num, int) and isinstance(den, int) and den != 0:
        return to_fraction(Fraction(num, den), what=what)
    if isinstance(value, Rational):
        return to_fraction(Fraction(int(value.numerator), int(value.denominator)), what=what)
    raise ParseError(f"{what} has unsupported type {type(value).__name__}")


def format_rational(value):
    """Canonical text of a rational: ``'p'`` or ``'p/q'`` in lowest terms, ``q > 1``.

    Examples
    --------
    >>> format_rational(Fraction(-4, 2))
    '-2'
    """
    if type(value) is Fraction and value.denominator == 1 and -_SMALL < value.numerator < _SMALL:
        return str(value.numerator)
    value = Fraction(value)
    if value.denominator == 1:
        return int_to_text(value.numerator)
    return f"{int_to_text(value.numerator)}/{int_to_text(value.denominator)}"


def short_rational(value, *, limit=40):
    """A rational's text for messages: abbreviated past ``limit`` characters, never limited by Python's int/str cap.

    Examples
    --------
    >>> short_rational(Fraction(10**50 + 1, 3))
    '1000000000...0000000001/3 (51 digits / 1 digits)'
    """
    text = format_rational(value)
    if len(text) <= limit:
        return text
    value = Fraction(value)
    num, den = int_to_text(abs(value.numerator)), int_to_text(value.denominator)
    cut = lambda t: t if len(t) <= 20 else f"{t[:10]}...{t[-10:]}"
    sign = "-" if value < 0 else ""
    if den == "1":
        return f"{sign}{cut(num)} ({len(num)} digits)"
    return f"{sign}{cut(num)}/{cut(den)} ({len(num)} digits / {len(den)} digits)"


class Tolerance(Fraction):
    """A relative error strictly between 0 and 1, exact, with the text it was written as (``text``).

    A :class:`~fractions.Fraction` in every computation (the certificates state it exactly; the numeric
    commands use ``float(tolerance)``); ``text`` is for messages.
    """

    text: str


_TOLERANCE = re.compile(r"[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]{1,3})?|[0-9]+/[0-9]+")


def parse_tolerance(value, *, what="the tolerance", floats=True):
    """A tolerance (a relative error) read once, at the boundary, into an exact :class:`Tolerance` in (0, 1).

    Parameters
    ----------
    value : str, int, Fraction or float
        ``"1e-3"``, ``"0.001"`` or ``"1/1000"``; a Fraction; a binary float is read as the decimal it prints
        as (``0.001`` is 1/1000), where ``floats`` allows it.
    what : str
        Its name at the start of the message (empty: the message starts with "must be").
    floats : bool
        Whether a binary float is accepted (the public functions, which read it by its decimal text). The exact
        modules pass False: a float that reaches them is refused, never converted.

    Returns
    -------
    Tolerance

    Raises
    ------
    InputError
        If ``value`` is not such a number, or not strictly between 0 and 1 (nor representable as a positive
        float64: the numeric commands compare errors with it).
    FloatInExactPathError
        If ``value`` is a binary float and ``floats`` is False.

    Examples
    --------
    >>> parse_tolerance("1e-3"), parse_tolerance("1/1000").text, parse_tolerance(0.001)
    (Tolerance(1, 1000), '1/1000', Tolerance(1, 1000))
    >>> parse_tolerance("2")
    Traceback (most recent call last):
    ...
    symssm.errors.InputError: the tolerance must be a number strictly between 0 and 1, got '2'
    >>> parse_tolerance(0.001, floats=False)
    Traceback (most recent call last):
    ...
    symssm.errors.FloatInExactPathError: the tolerance is a binary float (0.001); exact code takes a Fraction or a text such as '1/1000'
    """
    lead = f"{what} " if what else ""
    if isinstance(value, Tolerance):
        return value
    if isinstance(value, float) and not isinstance(value, bool):
        if not floats:
            raise FloatInExactPathError(f"{lead}is a binary float ({value!r}); exact code takes a Fraction or a text "
                                        "such as '1/1000'")
        raw = repr(float(value)) if value == value and abs(value) != float("inf") else str(value)
    elif isinstance(value, (Fraction, int)) and not isinstance(value, bool):
        raw = str(value)
    elif isinstance(value, str):
        raw = value.strip()
    else:
        raw = str(value)[:60]
    if isinstance(value, (Fraction, int)) and not isinstance(value, bool):
        exact = Fraction(value)
    elif _TOLERANCE.fullmatch(raw) and not raw.endswith("/0"):
        exact = Fraction(raw)
    else:
        raise InputError(f"{lead}must be a number in (0, 1) such as 1e-3, 0.001 or 1/1000, got {raw[:60]!r}")
    if not 0 < exact < 1 or float(exact) == 0.0:
        raise InputError(f"{lead}must be a number strictly between 0 and 1, got {raw[:60]!r}")
    tolerance = Tolerance(exact)
    tolerance.text = raw
    return tolerance
