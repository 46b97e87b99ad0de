"""Primes for modular witnesses.

Witness primes lie below ``2**26`` so that a checker may multiply residues in
int64 and add up to ``2**11`` products without overflow.

Examples
--------
>>> is_prime(67108859)
True
>>> next(witness_primes())
67108859
"""

__all__ = ["PRIME_LIMIT", "is_prime", "witness_primes", "prime_divides_denominator"]

#: Witness primes are below this bound (the checker enforces it too).
PRIME_LIMIT = 2**26


def is_prime(n):
    """Deterministic primality for ``n < 3.3e24`` (Miller-Rabin with fixed bases).

    Parameters
    ----------
    n : int
        A number below 3.3e24.

    Returns
    -------
    bool

    Examples
    --------
    >>> [x for x in range(20) if is_prime(x)]
    [2, 3, 5, 7, 11, 13, 17, 19]
    """
    if n < 2:
        return False
    small = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    for q in small:
        if n % q == 0:
            return n == q
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in small:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def witness_primes(start=PRIME_LIMIT):
    """Primes below ``start``, largest first (a fixed, deterministic sequence).

    Parameters
    ----------
    start : int
        The bound (default :data:`PRIME_LIMIT`).

    Yields
    ------
    int
    """
    n = start - 1
    while n > 2:
        if is_prime(n):
            yield n
        n -= 1


def prime_divides_denominator(system, prime):
    """Whether ``prime`` divides the denominator of some entry of the system.

    Parameters
    ----------
    system : SSM
        A system.
    prime : int
        The prime.

    Returns
    -------
    bool
    """
    return any(d % prime == 0 for d in system.denominators)
