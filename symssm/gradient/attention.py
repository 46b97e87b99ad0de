"""A certified gradient highway for single-head softmax attention.

Construction (format version 1), for tokens in ``Q^m`` and outputs in ``Q^p``, with a
rational sharpness ``beta >= 0`` and sequence length ``n``:

* ``m >= 2``: ``W_Q = beta e_0^T``, ``W_K = e_1^T`` (1 x m), ``W_V = f e_1^T`` with
  ``f = e_0`` in ``Q^p``.  Inputs: the query token ``x_i = e_0``, the key token
  ``x_j = e_1``, every other token 0.  Scores: ``s_ij = beta``, all others 0, so
  ``a_ij = e^beta / (e^beta + i - 1)`` and ``dy_i/dx_j = a_ij (1 + beta (1 - a_ij)) f e_1^T``;
  hence ``||dy_i/dx_j||_F >= a_ij >= e^beta / (e^beta + n - 1)``.
* ``m = 1``: ``W_Q = beta``, ``W_K = 1``, ``W_V = f``; ``x_i = x_j = 1``, others 0.
  Then ``a_ii = a_ij = e^beta / (2 e^beta + i - 2) <= 1/2`` and
  ``dy_i/dx_j = a_ij (1 + beta (1 - 2 a_ij)) f``, so ``||dy_i/dx_j||_F >= e^beta / (2 e^beta + n - 2)``.

Both hold for every distance ``1 <= i - j <= n - 1``.  ``e^beta`` is bounded below by the
Taylor partial sum ``sum_{k<=T} beta^k / k!`` (all terms positive), so ``c`` is a rational
lower bound checked exactly; python-flint's ball arithmetic reports the true value's enclosure
(informative, rounded outward to 12 digits).

Examples
--------
>>> h = attention_highway(p=1, m=2, n=1000)
>>> h.beta, float(h.c) > 0.5
(Fraction(7, 1), True)
"""

from dataclasses import dataclass
from fractions import Fraction
from math import ceil, factorial, log

import flint

__all__ = ["AttentionHighway", "attention_highway", "exp_lower", "highway_bound", "bound_enclosure",
           "decimal_text"]


@dataclass(frozen=True)
class AttentionHighway:
    beta: Fraction
    taylor_terms: int
    W_Q: tuple
    W_K: tuple
    W_V: tuple
    query_token: tuple
    key_token: tuple
    n: int
    c: Fraction
    c_interval: tuple  # a ball enclosure of the exact bound, rounded outward to 12 digits, as strings


def exp_lower(beta, terms):
    """``sum_{k=0}^{terms} beta^k / k!``, a lower bound of ``e^beta`` for ``beta >= 0``."""
    return sum((Fraction(beta) ** k / factorial(k) for k in range(terms + 1)), Fraction(0))


def _exact(ball):
    """The exact dyadic value of an arb with zero radius (its ``lower()`` or ``upper()``) as a Fraction."""
    man, exp = (int(x) for x in ball.mid().man_exp())
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)


def decimal_text(x, *, up, digits=12):
    """A decimal text of ``digits`` significant digits below (or above, ``up``) a positive rational.

    Examples
    --------
    >>> decimal_text(Fraction(1, 3), up=False), decimal_text(Fraction(1, 3), up=True)
    ('0.333333333333', '0.333333333334')
    """
    x = Fraction(x)
    k = digits - len(str(x.numerator // x.denominator)) if x >= 1 else digits
    while x >= 1 and x * 10**k >= 10**digits:
        k -= 1
    while x * 10**k < 10**(digits - 1):
        k += 1
    scaled = x * 10**k
    q = -(-scaled.numerator // scaled.denominator) if up else scaled.numerator // scaled.denominator
    if k <= 0:
        return str(q * 10**-k)
    text = str(q).rjust(k + 1, "0")
    return text[:-k] + "." + text[-k:]


def bound_enclosure(beta, n, m):
    """The exact attention bound ``e^beta / (e^beta + n - 1)`` (``/ (2 e^beta + n - 2)`` for m = 1), enclosed
    in python-flint's ball arithmetic and rounded outward to 12 digits (informative, never a claim).

    Examples
    --------
    >>> bound_enclosure(Fraction(7), 1000, 2)
    ('0.523294429665', '0.523294429666')
    """
    e = flint.arb(int(beta)).exp() if beta.denominator == 1 else (flint.arb(beta.numerator) / beta.denominator).exp()
    ball = e / (e + n - 1) if m >= 2 else e / (2 * e + n - 2)
    return decimal_text(_exact(ball.lower()), up=False), decimal_text(_exact(ball.upper()), up=True)


def highway_bound(L, n, m):
    """The attention lower bound from a lower bound ``L`` of ``e^beta``."""
    return L / (L + n - 1) if m >= 2 else L / (2 * L + n - 2)


def attention_highway(p, m, n):
    """The construction above, with ``beta = ceil(ln(n))`` so that ``a_ij >= about 1/2``."""
    beta = Fraction(max(1, ceil(log(max(n, 2)))))
    terms = int(3 * beta) + 20
    L = exp_lower(beta, terms)
    exact = highway_bound(L, n, m)
    c = Fraction(int(exact * 10**6), 10**6)  # round down to six decimals
    interval = bound_enclosure(beta, n, m)
    unit = lambda size, i: tuple(Fraction(int(k == i)) for k in range(size))
    if m >= 2:
        W_Q = (tuple(beta * x for x in unit(m, 0)),)
        W_K = (unit(m, 1),)
        W_V = tuple(tuple(Fraction(int(r == 0 and col == 1)) for col in range(m)) for r in range(p))
        q_tok, k_tok = unit(m, 0), unit(m, 1)
    else:
        W_Q, W_K = ((beta,),), ((Fraction(1),),)
        W_V = tuple((Fraction(int(r == 0)),) for r in range(p))
        q_tok = k_tok = (Fraction(1),)
    return AttentionHighway(beta, terms, W_Q, W_K, W_V, q_tok, k_tok, n, c, interval)
