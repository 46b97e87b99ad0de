"""Formulas in parameters: a strict grammar, a recursive-descent parser, and canonical text.

A parametric system's entries are rational functions of named parameters with rational
coefficients.  They are written in this grammar and nothing else (never ``eval``, never
``sympify``)::

    expr   := term (("+" | "-") term)*
    term   := unary (("*" | "/") unary)*
    unary  := "-" unary | power
    power  := atom ("^" INTEGER)?          (a non-negative integer exponent, at most 64)
    atom   := NUMBER | NAME | "(" expr ")"
    NUMBER := digits ("." digits)? (("e" | "E") ("+" | "-")? digits)?
                                            (integers and exact decimals, read exactly; p/q is a
                                            division; exponents up to +-10,000)
    NAME   := a declared parameter ([A-Za-z][A-Za-z0-9_]*)

Spaces are allowed between tokens.  ``2a`` (implicit product), ``a^b``, ``a^-1``, ``a^2^3``
and ``**`` are refused with a message naming the position.  Formulas parse into a field of
rational functions that keeps every fraction reduced: FLINT's (:func:`formula_field`, the one specs
are read with, no SymPy import) or SymPy's ``QQ(params)`` (:func:`parameter_field`, for the reference
engine and the LaTeX); both give the same value and the same errors.

Examples
--------
>>> F = parameter_field(["t"])
>>> value = parse_formula("(1-t^2)/(1+t^2)", F)
>>> rational_function_text(value)
'(-t^2 + 1)/(t^2 + 1)'
>>> polynomial_text(parse_formula("2*h/((h+1)*(h+2))", parameter_field(["h"])).denom)
'h^2 + 3*h + 2'
>>> str(parse_formula("(1-t^2)/(1+t^2)", formula_field(["t"])).denom)
't^2 + 1'
>>> parse_formula("2a", F)
Traceback (most recent call last):
...
symssm.errors.ParseError: formula '2a': unexpected 'a' (write products with '*') at position 2
"""

import re
from fractions import Fraction

from ..errors import LimitError, ParseError
from .rationals import parse_rational
from .limits import (MAX_FORMULA_CHARS, MAX_FORMULA_DEGREE, MAX_FORMULA_WORK,
                     MAX_PARAMETERS, MAX_POLY_TERMS)

__all__ = ["NAME_PATTERN", "TOKEN", "integer_scale", "parameter_field", "formula_field", "check_parameters",
           "parse_formula",
           "polynomial_text",
           "rational_function_text", "flint_rational_text", "normalise"]

#: A parameter name: a letter, then letters, digits or underscores (at most 16 characters).
NAME_PATTERN = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,15}")
#: One token of the grammar (a number, a name or an operator), after optional spaces.
TOKEN = re.compile(r"\s*(?:(?P<num>[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)|(?P<name>[A-Za-z][A-Za-z0-9_]*)|(?P<op>[-+*/^()]))")


def check_parameters(names, *, what="parameters"):
    """Validate a list of parameter names; returns them as a tuple.

    Raises
    ------
    InputError
        If ``names`` is not a list of distinct names matching :data:`NAME_PATTERN`, or has more
        than ``MAX_PARAMETERS`` entries.
    """
    if not isinstance(names, (list, tuple)) or not all(type(x) is str for x in names):
        raise ParseError(f"{what} must be a list of names")
    if len(names) > MAX_PARAMETERS:
        raise LimitError(f"{what}: at most {MAX_PARAMETERS} parameters, got {len(names)}")
    for name in names:
        if not NAME_PATTERN.fullmatch(name):
            raise ParseError(f"{what}: {name[:40]!r} is not a parameter name (a letter, then letters, digits or _; "
                             "at most 16 characters)")
    if len(set(names)) != len(names):
        raise ParseError(f"{what}: names must be distinct")
    return tuple(names)


def parameter_field(names):
    """The field ``QQ(names)`` (lex order in the given name order), as SymPy's FracField."""
    from sympy import QQ
    from sympy.polys.fields import FracField
    from sympy.polys.orderings import lex

    return FracField(tuple(check_parameters(list(names))) or (), QQ, lex)


def formula_field(names):
    """The field ``Q(names)`` on python-flint (:class:`~symssm.formats.ratfunc.RationalFunctionField`).

    Raises
    ------
    InputError
        If the names are not valid parameter names (:func:`check_parameters`).
    """
    from .ratfunc import RationalFunctionField

    return RationalFunctionField(check_parameters(list(names)))


def _sympy_constant(field):
    from sympy import QQ

    return lambda value: field.one * QQ(value.numerator, value.denominator)


def _tokens(text):
    pos = 0
    out = []
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = TOKEN.match(text, pos)
        if not m:
            raise ParseError(f"formula {text[:60]!r}: unexpected {text[pos:].strip()[:1]!r} at position {pos + 1}")
        kind = m.lastgroup
        out.append((kind, m.group(kind), m.start(kind) + 1))
        pos = m.end()
    out.append(("end", "", len(text) + 1))
    return out


class _Parser:
    def __init__(self, text, field):
        self.text = text
        self.field = field
        self.names = {str(s): g for s, g in zip(field.symbols, field.gens)}
        self.constant = getattr(field, "constant", None) or _sympy_constant(field)
        self.tokens = _tokens(text)
        self.i = 0
        self.depth = 0

    def fail(self, message, pos=None):
        pos = self.tokens[self.i][2] if pos is None else pos
        raise ParseError(f"formula {self.text[:60]!r}: {message} at position {pos}")

    def peek(self):
        return self.tokens[self.i]

    def take(self):
        tok = self.tokens[self.i]
        self.i += 1
        return tok

    def parse(self):
        value = self.expr()
        kind, tok, pos = self.peek()
        if kind != "end":
            hint = " (write products with '*')" if kind in ("name", "num") or tok == "(" else ""
            self.fail(f"unexpected {tok!r}{hint}", pos)
        return value

    def expr(self):
        value = self.term()
        while self.peek()[1] in ("+", "-") and self.peek()[0] == "op":
            op = self.take()[1]
            rhs = self.term()
            value = value + rhs if op == "+" else value - rhs
        return value

    def term(self):
        value = self.unary()
        while self.peek()[0] == "op" and self.peek()[1] in ("*", "/"):
            _, op, pos = self.take()
            if self.peek()[1] == "*" and op == "*":
                self.fail("'**' is not part of the grammar (write powers with '^')")
            rhs = self.unary()
            _guard(value, rhs, self)
            if op == "*":
                value = value * rhs
            else:
                if rhs == 0:
                    self.fail("division by zero", pos)
                value = value / rhs
            _check_size(value, self)
        return value

    def unary(self):
        if self.peek() == ("op", "-", self.peek()[2]):
            self.take()
            return -self.unary()
        return self.power()

    def power(self):
        base = self.atom()
        if self.peek()[1] == "^" and self.peek()[0] == "op":
            self.take()
            kind, tok, pos = self.take()
            if kind != "num" or not tok.isdigit():
                self.fail("the exponent after '^' must be a non-negative integer", pos)
            k = int(tok)
            if k > MAX_FORMULA_DEGREE:
                raise LimitError(f"formula {self.text[:60]!r}: exponent {k} is above the limit {MAX_FORMULA_DEGREE}")
            if self.peek()[1] == "^":
                self.fail("chained '^' (use parentheses)")
            result = self.field.one
            for _ in range(k):
                _guard(result, base, self)
                result = result * base
                _check_size(result, self)
            return result
        return base

    def atom(self):
        kind, tok, pos = self.take()
        if kind == "num":
            return self.constant(_decimal(tok))
        if kind == "name":
            if tok not in self.names:
                declared = ", ".join(self.names) or "none"
                self.fail(f"{tok[:20]!r} is not a declared parameter (declared: {declared})", pos)
            return self.names[tok]
        if tok == "(":
            self.depth += 1
            if self.depth > 50:
                raise LimitError(f"formula {self.text[:60]!r}: parentheses nested deeper than 50")
            value = self.expr()
            self.depth -= 1
            if self.peek()[1] != ")":
                self.fail("missing ')'")
            self.take()
            return value
        self.fail("expected a number, a parameter or '('" if kind != "end" else "unexpected end", pos)


def _decimal(tok):
    """A number of a formula, by the one reader of exact numbers (its digit and exponent limits)."""
    return parse_rational(tok, what="number")


def _guard(a, b, parser):
    """Refuse a product whose expansion alone would cost more than ``MAX_FORMULA_WORK`` term products."""
    work = len(a.numer) * (len(b.numer) + len(b.denom)) + len(a.denom) * (len(b.numer) + len(b.denom))
    if work > MAX_FORMULA_WORK:
        raise LimitError(f"formula {parser.text[:60]!r}: expanding it takes more than {MAX_FORMULA_WORK} term "
                         "products (write a smaller formula)")


def _check_size(value, parser):
    for part in (value.numer, value.denom):
        if len(part) > MAX_POLY_TERMS:
            raise LimitError(f"formula {parser.text[:60]!r}: more than {MAX_POLY_TERMS} terms")
        degree = max((sum(mon) for mon in part.monoms()), default=0)
        if degree > MAX_FORMULA_DEGREE:
            raise LimitError(f"formula {parser.text[:60]!r}: degree {degree} is above the limit {MAX_FORMULA_DEGREE}")


def parse_formula(text, field):
    """Parse one entry (a string in the grammar above, or a JSON integer) into ``field``.

    Raises
    ------
    ParseError
        If the text is not in the grammar, names an undeclared parameter or divides by zero.
    LimitError
        If it is longer than ``MAX_FORMULA_CHARS``, or an exponent or degree exceeds
        ``MAX_FORMULA_DEGREE``, or a polynomial has more than ``MAX_POLY_TERMS`` terms.
    """
    if type(text) is int:
        text = str(text)
    if type(text) is not str:
        raise ParseError(f"an entry must be a string formula or an integer, got {type(text).__name__}")
    if len(text) > MAX_FORMULA_CHARS:
        raise LimitError(f"formula of {len(text)} characters; the limit is {MAX_FORMULA_CHARS}")
    if not text.strip():
        raise ParseError("empty formula")
    return _Parser(text, field).parse()


def _coefficient_text(c):
    c = Fraction(int(c.numerator), int(c.denominator))
    return str(c.numerator) if c.denominator == 1 else f"{c.numerator}/{c.denominator}"


def polynomial_text(poly):
    """Canonical text of a polynomial (terms in lex order, ``3/2*a^2*b - c + 1``); ``"0"`` for zero."""
    names = [str(s) for s in poly.ring.symbols]
    parts = []
    for mon, coeff in sorted(poly.terms(), key=lambda t: t[0], reverse=True):
        factors = [name if e == 1 else f"{name}^{e}" for name, e in zip(names, mon) if e]
        c = Fraction(int(coeff.numerator), int(coeff.denominator))
        sign = "-" if c < 0 else "+"
        c = abs(c)
        if not factors:
            body = _coefficient_text(c)
        elif c == 1:
            body = "*".join(factors)
        else:
            body = _coefficient_text(c) + "*" + "*".join(factors)
        parts.append((sign, body))
    if not parts:
        return "0"
    text = ("-" if parts[0][0] == "-" else "") + parts[0][1]
    for sign, body in parts[1:]:
        text += f" {sign} {body}"
    return text


def integer_scale(polys, lead):
    """The rational that makes ``polys`` integer with no common content and ``lead`` positive."""
    from math import gcd

    coeffs = [Fraction(int(c.numerator), int(c.denominator)) for poly in polys for c in poly.coeffs()]
    scale = 1
    for c in coeffs:
        scale = scale * c.denominator // gcd(scale, c.denominator)
    content = 0
    for c in coeffs:
        content = gcd(content, int(c * scale))
    return Fraction(scale, content or 1) * (1 if lead > 0 else -1)


def normalise(numer, denom):
    """``(numer, denom)`` scaled to integer coefficients with no common content and ``denom``'s leading
    coefficient (lex order) positive: a canonical pair for the same fraction."""
    ground = numer.ring.domain.convert(integer_scale((numer, denom), denom.LC))
    return numer * ground, denom * ground


def flint_rational_text(numer, denom):
    """Canonical text of the reduced fraction ``numer / denom`` of FLINT polynomials, as
    :func:`rational_function_text` writes the same value (FLINT prints a lex-ordered polynomial in the
    form :func:`polynomial_text` writes; ``tests/formats`` compares the two printers).

    >>> from symssm.formats.ratfunc import RationalFunctionField
    >>> t, = RationalFunctionField(["t"]).gens
    >>> value = (2 * t) / (3 * t * t + 3)
    >>> flint_rational_text(value.numer, value.denom)
    '(2*t)/(3*t^2 + 3)'
    """
    if denom.is_constant():
        return str(numer * (1 / denom.leading_coefficient()))
    scale = integer_scale((numer, denom), denom.leading_coefficient())
    factor = type(denom.leading_coefficient())(scale.numerator, scale.denominator)
    return f"({numer * factor})/({denom * factor})"


def rational_function_text(value):
    """Canonical text of an element of ``QQ(params)``: the polynomial, or ``(num)/(den)`` with integer coefficients and a positive leading denominator coefficient."""
    if value.denom.is_ground:
        return polynomial_text(value.numer.quo_ground(value.denom.LC))
    numer, denom = normalise(value.numer, value.denom)
    return f"({polynomial_text(numer)})/({polynomial_text(denom)})"
