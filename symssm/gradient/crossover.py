"""The crossover distance: where the certified attention highway beats the certified SSM decay.

With ``||L_d||_F^2 <= K^2 r^(2d)`` (the SSM) and ``||dy_i/dx_j||_F >= c`` (attention), the
crossover is the least distance ``delta >= 1`` with ``K^2 r^(2 delta) < c^2``; since
``K r^delta`` decreases, attention carries more gradient at every larger distance too.

Examples
--------
>>> from fractions import Fraction
>>> crossover_distance(Fraction(4), Fraction(1, 2), Fraction(1, 2), 100)
3
"""

from fractions import Fraction
from math import ceil, log

__all__ = ["crossover_distance", "searched_distance", "MAX_CROSSOVER"]

#: Crossover distances beyond this are not certified (reported as null); the checker has the same limit.
MAX_CROSSOVER = 10_000


def searched_distance(n):
    """The largest crossover distance a certificate of length ``n`` can claim: ``min(n - 1, MAX_CROSSOVER)``.

    Parameters
    ----------
    n : int
        The sequence length.

    Returns
    -------
    int

    Examples
    --------
    >>> searched_distance(1000), searched_distance(10 ** 6)
    (999, 10000)
    """
    return min(n - 1, MAX_CROSSOVER)


def _log(x):
    x = Fraction(x)
    return log(x.numerator) - log(x.denominator)


def crossover_distance(K2, r, c, n):
    """Least ``delta >= 1`` with ``K^2 r^(2 delta) < c^2``, if it is at most ``min(n - 1, MAX_CROSSOVER)``.

    ``K^2 = 0`` (B = 0 or C = 0: every lag from d = 1 on vanishes) gives 1.

    Examples
    --------
    >>> crossover_distance(Fraction(0), Fraction(1, 2), Fraction(1, 3), 10)
    1
    >>> crossover_distance(Fraction(10**6), Fraction(99, 100), Fraction(1, 2), 100) is None
    True
    """
    c2 = c * c
    limit = searched_distance(n)
    if limit < 1:
        return None
    if K2 == 0:
        return 1
    guess = max(1, ceil((_log(K2) - _log(c2)) / (2 * -_log(r))))
    delta = max(1, guess - 2)
    if delta > limit:
        return None
    while K2 * r ** (2 * delta) >= c2:
        delta += 1
        if delta > limit:
            return None
    while delta > 1 and K2 * r ** (2 * (delta - 1)) < c2:
        delta -= 1
    return delta
