"""Gaussian rationals ``a + b i`` (a, b rational): exact complex numbers for complex SSMs.

Grammar of an entry (a string): a real part in the strict rational grammar, an imaginary part
``[+-][coefficient]i`` whose coefficient is in the same grammar (``i`` alone means ``1i``), or both:
``"5"``, ``"-2i"``, ``"i"``, ``"1/2+3/4i"``, ``"0.5-2.25i"``.  Canonical text: ``"p/q"``, ``"p/qi"`` or
``"p/q+r/si"`` with canonical rationals and the coefficient always written (``"1i"``).

Examples
--------
>>> z = parse_gaussian("1/2-3/4i")
>>> z, z * z.conjugate()
(Gaussian('1/2-3/4i'), Gaussian('13/16'))
>>> parse_gaussian("i") ** 2
Gaussian('-1')
"""

from fractions import Fraction
from functools import lru_cache

from ..errors import FloatInExactPathError, LimitError, ParseError
from .rationals import format_rational, parse_rational, to_fraction

__all__ = ["Gaussian", "parse_gaussian", "to_gaussian", "format_gaussian", "is_gaussian_text"]


class Gaussian:
    """An exact complex number ``re + im i`` with Fraction parts (immutable)."""

    __slots__ = ("re", "im")

    def __init__(self, re, im=0):
        object.__setattr__(self, "re", Fraction(re))
        object.__setattr__(self, "im", Fraction(im))

    def __setattr__(self, name, value):
        raise AttributeError("Gaussian numbers are immutable")

    @staticmethod
    def _lift(x):
        return x if isinstance(x, Gaussian) else Gaussian(x)

    def __add__(self, other):
        o = self._lift(other)
        return Gaussian(self.re + o.re, self.im + o.im)

    __radd__ = __add__

    def __sub__(self, other):
        o = self._lift(other)
        return Gaussian(self.re - o.re, self.im - o.im)

    def __rsub__(self, other):
        return self._lift(other) - self

    def __mul__(self, other):
        o = self._lift(other)
        return Gaussian(self.re * o.re - self.im * o.im, self.re * o.im + self.im * o.re)

    __rmul__ = __mul__

    def __truediv__(self, other):
        o = self._lift(other)
        norm = o.re * o.re + o.im * o.im
        if norm == 0:
            raise ZeroDivisionError("division by zero")
        return Gaussian((self.re * o.re + self.im * o.im) / norm, (self.im * o.re - self.re * o.im) / norm)

    def __rtruediv__(self, other):
        return self._lift(other) / self

    def __neg__(self):
        return Gaussian(-self.re, -self.im)

    def __pow__(self, k):
        out = Gaussian(1)
        for _ in range(k):
            out = out * self
        return out

    def conjugate(self):
        return Gaussian(self.re, -self.im)

    def __eq__(self, other):
        if isinstance(other, (int, Fraction)):
            return self.im == 0 and self.re == other
        return isinstance(other, Gaussian) and self.re == other.re and self.im == other.im

    def __hash__(self):
        return hash((self.re, self.im))

    def __bool__(self):
        return bool(self.re) or bool(self.im)

    def __repr__(self):
        return f"Gaussian({format_gaussian(self)!r})"


def format_gaussian(z):
    """Canonical text: ``"p/q"``, ``"p/qi"`` or ``"p/q+r/si"`` (``"0"`` for zero)."""
    z = to_gaussian(z)
    if z.im == 0:
        return format_rational(z.re)
    imag = format_rational(z.im) + "i"
    if z.re == 0:
        return imag
    return format_rational(z.re) + ("" if imag.startswith("-") else "+") + imag


def is_gaussian_text(text):
    """Whether a spec string has an imaginary part (ends in ``i``)."""
    return isinstance(text, str) and text.endswith("i")


def parse_gaussian(text, *, what="entry"):
    """Parse an entry by the grammar above.

    Raises
    ------
    ParseError, LimitError
        As the rational grammar, for either part.
    """
    if not isinstance(text, str):
        raise ParseError(f"{what} must be a string")
    if len(text) <= 24:  # short entries repeat (a trained or random system): parse each text once
        try:
            return _parse_short(text)
        except (ParseError, LimitError):
            pass  # parse again, uncached, for the message that names this entry
    return _parse(text, what)


@lru_cache(maxsize=65536)
def _parse_short(text):
    return _parse(text, "entry")


def _parse(text, what):
    if not text.endswith("i"):
        return Gaussian(parse_rational(text, what=what))
    body = text[:-1]
    split = None
    for k in range(len(body) - 1, 0, -1):
        if body[k] in "+-" and body[k - 1] not in "eE":
            split = k
            break
    real, imag = (body[:split], body[split:]) if split is not None else ("0", body)
    if imag in ("", "+"):
        imag = "1"
    elif imag == "-":
        imag = "-1"
    if imag.startswith("+"):
        imag = imag[1:]
    if not imag or imag[:1] in "+" or "i" in imag or "i" in real:
        raise ParseError(f"{what} {text[:40]!r} is not a Gaussian rational such as '1/2+3/4i'")
    return Gaussian(parse_rational(real, what=what), parse_rational(imag, what=what))


def to_gaussian(value, *, what="entry"):
    """A Gaussian rational from a Gaussian, an int, a Fraction or a string; floats and complex are refused.

    Raises
    ------
    FloatInExactPathError
        For ``float`` or ``complex`` values.
    """
    if isinstance(value, Gaussian):
        return value
    if isinstance(value, complex):
        raise FloatInExactPathError(f"{what} is a complex float ({value!r}); write it exactly, e.g. '1/2+3/4i'")
    if isinstance(value, str):
        return parse_gaussian(value, what=what)
    return Gaussian(to_fraction(value, what=what))
