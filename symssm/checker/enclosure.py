"""Rigorous enclosures for the checker: complex fixed-point balls, ``exp`` and division (standard library).

A ball ``(re, im, rad)`` of integers stands for every complex number within ``rad / 2^F`` of
``(re + i im) / 2^F`` (``F = FRACTION_BITS``). Every operation returns a ball that contains every
result of its inputs' members: products and quotients are rounded by floor division and the
rounding is added to the radius; ``exp`` sums a Taylor series with its remainder bounded, after
halving the argument until it is at most 1/2 in modulus, and squares back. Nothing here uses a
binary float, so the verdicts are the same on every machine.

Examples
--------
>>> e = exp(ball(1))
>>> lo, hi = bounds_re(e)
>>> e_70 = Fraction("2.7182818284590452353602874713526624977572470936999595749669676277240766")  # e, 70 decimals
>>> lo <= e_70 + Fraction(1, 10**70) and e_70 <= hi and hi - lo < Fraction(1, 10**50)
True
>>> c = exp(ball(0, Fraction(314159265358979323846264338327950288, 10**35)))  # exp(i pi), pi to 36 digits
>>> [float(x) for x in bounds_re(c)]
[-1.0, -1.0]
"""

from fractions import Fraction
from math import isqrt

__all__ = ["FRACTION_BITS", "ball", "add", "sub", "mul", "mul_int", "div", "exp", "modulus_up", "bounds_re",
           "radius", "midpoint", "MAX_EXP_ARGUMENT", "EnclosureError"]

#: Fractional bits of every ball.
FRACTION_BITS = 200
_ONE = 1 << FRACTION_BITS
#: Taylor terms of exp on |w| <= 1/2: the remainder 2 (1/2)^51 / 51! is below 2^-270.
_TERMS = 50
#: Largest modulus of an argument of :func:`exp` (beyond it the checker declines: the layer is not a trained one).
MAX_EXP_ARGUMENT = 2 ** 16


class EnclosureError(ValueError):
    """An enclosure cannot be formed (a quotient by a ball containing 0, an argument out of range)."""


def ball(re, im=0):
    """The smallest ball of this module around the rational ``re + i im`` (exact when dyadic enough)."""
    out = []
    rad = 0
    for x in (Fraction(re), Fraction(im)):
        scaled = x * _ONE
        v = scaled.numerator // scaled.denominator
        if v != scaled:
            rad = 2
        out.append(v)
    return out[0], out[1], rad


def midpoint(b):
    """The ball's centre as a rational."""
    return Fraction(b[0], _ONE), Fraction(b[1], _ONE)


def radius(b):
    """The ball's radius as a rational."""
    return Fraction(b[2], _ONE)


def _abs_up(re, im):
    """An integer at least ``sqrt(re^2 + im^2)``."""
    return isqrt(re * re + im * im) + 1


def modulus_up(b):
    """A rational at least the modulus of every member of the ball."""
    return Fraction(_abs_up(b[0], b[1]) + b[2], _ONE)


def bounds_re(b):
    """Rationals enclosing the real parts of the ball's members."""
    return Fraction(b[0] - b[2], _ONE), Fraction(b[0] + b[2], _ONE)


def add(a, b):
    return a[0] + b[0], a[1] + b[1], a[2] + b[2]


def sub(a, b):
    return a[0] - b[0], a[1] - b[1], a[2] + b[2]


def mul(a, b):
    """The product ball: ``|a| r_b + |b| r_a + r_a r_b`` plus the floor roundings (at most 2 units)."""
    re = (a[0] * b[0] - a[1] * b[1]) >> FRACTION_BITS
    im = (a[0] * b[1] + a[1] * b[0]) >> FRACTION_BITS
    spread = _abs_up(a[0], a[1]) * b[2] + _abs_up(b[0], b[1]) * a[2] + a[2] * b[2]
    return re, im, (spread >> FRACTION_BITS) + 3


def mul_int(a, k):
    """The ball times the integer k."""
    return a[0] * k, a[1] * k, a[2] * abs(k)


def _div_int(a, k):
    """The ball divided by the positive integer k."""
    return a[0] // k, a[1] // k, a[2] // k + 2


def _real_reciprocal(q, r):
    """A ball around ``1 / x`` for every real ``x`` in ``[q - r, q + r]`` at scale ``2^(2F)`` (q > r)."""
    num = 1 << (3 * FRACTION_BITS)
    lo = num // (q + r)
    hi = -((-num) // (q - r))
    return (lo + hi) // 2, 0, (hi - lo) // 2 + 2


def div(a, b):
    """The quotient ball ``a / b``.

    Raises
    ------
    EnclosureError
        If the ball ``b`` contains 0.
    """
    # |b|^2 at scale 2^(2F), with its spread: | |b'|^2 - |b|^2 | <= 2 |b| r + r^2
    q = b[0] * b[0] + b[1] * b[1]
    r = 2 * _abs_up(b[0], b[1]) * b[2] + b[2] * b[2] + 2
    if q <= r:
        raise EnclosureError("a divisor's enclosure contains 0")
    inv = _real_reciprocal(q, r)  # 1 / |b|^2 at scale 2^F
    conj = (b[0], -b[1], b[2])
    return mul(mul(a, conj), inv)


def exp(z):
    """A ball containing ``exp(w)`` for every ``w`` in the ball ``z``.

    Raises
    ------
    EnclosureError
        If the argument's modulus may exceed :data:`MAX_EXP_ARGUMENT`.
    """
    size = _abs_up(z[0], z[1]) + z[2]
    if size > MAX_EXP_ARGUMENT * _ONE:
        raise EnclosureError(f"an argument of exp exceeds {MAX_EXP_ARGUMENT} in modulus")
    halvings = 0
    while size > _ONE // 2:
        size = (size + 1) // 2
        halvings += 1
    w = (z[0] >> halvings, z[1] >> halvings, (z[2] >> halvings) + 2)
    # |w| <= 1/2 + 2^-F (checked by the loop above, with the rounding): sum w^k / k! for k <= _TERMS
    term = (_ONE, 0, 0)
    total = term
    for k in range(1, _TERMS + 1):
        term = _div_int(mul(term, w), k)
        total = add(total, term)
    total = (total[0], total[1], total[2] + 1)  # the remainder, below 2^-270 (module constants)
    for _ in range(halvings):
        total = mul(total, total)
    return total
