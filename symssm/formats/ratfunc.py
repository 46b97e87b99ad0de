"""Rational functions of named parameters on python-flint's ``fmpq_mpoly``: the field formulas parse into.

A :class:`RationalFunction` is a reduced fraction ``numer / denom`` of FLINT polynomials over Q
(lex order, the parameters in the order given): the gcd of the two is 1 and ``denom``'s leading
coefficient is 1, so a value has exactly one representation.  It has the operations the formula
grammar needs (``+ - * /``, negation, comparison with 0) and nothing else; the head-count engine
(:mod:`symssm.exact.flintfamily`) takes the ``(numer, denom)`` pairs as they are.  It replaces
SymPy's ``QQ(params)`` on the path from a spec to a certificate, which spends a third of a second
importing SymPy before it reads one formula.

Examples
--------
>>> F = RationalFunctionField(["t"])
>>> t, = F.gens
>>> value = (1 - t * t) / (1 + t * t)
>>> str(value.numer), str(value.denom)
('-t^2 + 1', 't^2 + 1')
>>> x = (t * t - 1) / (2 * t - 2)
>>> str(x.numer), str(x.denom)
('1/2*t + 1/2', '1')
>>> (t - t) == 0, F.constant(Fraction(3, 4)) == 0
(True, False)
"""

from fractions import Fraction

import flint

__all__ = ["context", "poly_value", "RationalFunctionField", "RationalFunction"]


def context(names):
    """The FLINT context of polynomials in ``names`` (lex order); one dummy variable ``_`` when there are none.

    Contexts are cached by FLINT: the same names give the same context object.
    """
    return flint.fmpq_mpoly_ctx.get(tuple(names) or ("_",), "lex")


def poly_value(poly, values):
    """The value of a FLINT polynomial at the point ``values`` (Fractions, one per variable), as a Fraction.

    >>> a, b = context(["a", "b"]).gens()
    >>> poly_value(a * b - 1, [Fraction(1, 2), Fraction(4)])
    Fraction(1, 1)
    """
    if poly.is_constant():  # the dummy variable of a context without parameters takes no value
        c = poly.leading_coefficient()
    else:
        c = poly(*[flint.fmpq(v.numerator, v.denominator) for v in values])
    return Fraction(int(c.p), int(c.q))


def _scalar(x):
    return flint.fmpq(x.numerator, x.denominator) if isinstance(x, (int, Fraction)) else x


class RationalFunction:
    """A reduced fraction of FLINT polynomials (from a :class:`RationalFunctionField`'s generators and constants,
    or :meth:`reduced`)."""

    __slots__ = ("numer", "denom")

    def __init__(self, numer, denom):
        self.numer, self.denom = numer, denom

    @staticmethod
    def reduced(numer, denom):
        """``numer / denom`` (``denom`` nonzero) with the gcd cancelled and a monic denominator."""
        if numer.is_zero():
            return RationalFunction(numer, denom * 0 + 1)
        if not denom.is_constant():
            common = numer.gcd(denom)
            if not common.is_constant():
                numer, denom = numer / common, denom / common
        lead = denom.leading_coefficient()
        if lead != 1:
            inverse = 1 / lead
            numer, denom = numer * inverse, denom * inverse
        return RationalFunction(numer, denom)

    def value_at(self, values):
        """``(numerator, denominator)`` at the point ``values`` (Fractions, one per parameter), as Fractions.

        >>> t, = RationalFunctionField(["t"]).gens
        >>> ((t + 1) / (t - 2)).value_at([Fraction(1, 2)])
        (Fraction(3, 2), Fraction(-3, 2))
        """
        return poly_value(self.numer, values), poly_value(self.denom, values)

    def _other(self, other):
        if isinstance(other, RationalFunction):
            return other
        if isinstance(other, (int, Fraction)):
            one = self.denom * 0 + 1
            return RationalFunction(one * _scalar(other), one)
        return NotImplemented

    def __add__(self, other):
        other = self._other(other)
        if other is NotImplemented:
            return other
        if self.denom.is_constant() and other.denom.is_constant():  # monic constants: both are 1
            return RationalFunction(self.numer + other.numer, self.denom)
        return RationalFunction.reduced(self.numer * other.denom + other.numer * self.denom, self.denom * other.denom)

    __radd__ = __add__

    def __neg__(self):
        return RationalFunction(-self.numer, self.denom)

    def __sub__(self, other):
        other = self._other(other)
        if other is NotImplemented:
            return other
        return self + (-other)

    def __rsub__(self, other):
        return (-self) + other

    def __mul__(self, other):
        other = self._other(other)
        if other is NotImplemented:
            return other
        if self.denom.is_constant() and other.denom.is_constant():
            return RationalFunction(self.numer * other.numer, self.denom)
        return RationalFunction.reduced(self.numer * other.numer, self.denom * other.denom)

    __rmul__ = __mul__

    def __truediv__(self, other):
        other = self._other(other)
        if other is NotImplemented:
            return other
        if other.numer.is_zero():
            raise ZeroDivisionError("division by the zero rational function")
        return RationalFunction.reduced(self.numer * other.denom, self.denom * other.numer)

    def __rtruediv__(self, other):
        return self._other(other) / self

    def __eq__(self, other):
        other = self._other(other)
        if other is NotImplemented:
            return other
        return self.numer == other.numer and self.denom == other.denom

    def __hash__(self):
        return hash((str(self.numer), str(self.denom)))

    def __repr__(self):
        return f"RationalFunction(({self.numer})/({self.denom}))"


class RationalFunctionField:
    """``Q(names)``: its generators, one, and constants, as :class:`RationalFunction` values.

    ``symbols`` are the names (as SymPy's field has them), so the formula parser reads either field.
    """

    __slots__ = ("symbols", "ctx", "one", "gens")

    def __init__(self, names):
        self.symbols = tuple(names)
        self.ctx = context(self.symbols)
        unit = self.ctx.from_dict({(0,) * self.ctx.nvars(): 1})
        self.one = RationalFunction(unit, unit)
        self.gens = tuple(RationalFunction(g, unit) for g in self.ctx.gens()) if self.symbols else ()

    def constant(self, value):
        """The constant ``value`` (a Fraction or int)."""
        return RationalFunction(self.one.numer * _scalar(value), self.one.denom)
