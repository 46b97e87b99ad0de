"""Lag operators (Markov parameters) of an SSM, exactly and modulo a prime.

``L_0 = C B + D`` and ``L_d = C A^d B`` for ``d >= 1``.  ``vec(L)`` is the
row-major flattening of the p x m matrix ``L`` (entry ``(r, c)`` at ``r*m + c``).

One recurrence, :func:`iterate_lags` (``X <- A X``, ``L_d = C X``), serves every exact
arithmetic: integers with cleared denominators (:func:`scaled_lag_stack`) and residues
modulo a prime (:func:`lag_stack_mod`).

Examples
--------
>>> from symssm.sources.system import ssm
>>> shift = ssm([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[1], [0], [0]], [[0, 0, 1]])
>>> [L[0][0] for L in lags(shift, 4)]
[Fraction(0, 1), Fraction(0, 1), Fraction(1, 1), Fraction(0, 1)]
"""

from fractions import Fraction

from ..errors import InputError, LimitError
from ..formats.limits import MAX_MATERIALISED_LAGS, check_n
from ..sources.system import denominator_lcm
from .convert import gf_matrix, qq_matrix, scaled_fmpz_matrix, to_fractions

__all__ = ["lags", "lag", "iterate_lags", "ScaledLagStack", "scaled_lag_stack", "lag_stack_mod", "lag_bit_bound",
           "MAX_LAG_BITS"]

#: Largest bound on the bits of exact integer lag entries a certificate may need (about 10,000 digits);
#: the checker applies the same limit, so the generator never writes what it would refuse.
MAX_LAG_BITS = 33_220


def lag_bit_bound(system, dmax):
    """Upper bound on the bits of the integer lag entries ``C' A'^d B'`` for ``d <= dmax``.

    ``A' = a A``, ``B' = b B``, ``C' = c C`` clear the denominators; the bound is
    ``bits(C') + bits(B') + dmax * bits(A') + (dmax + 1) * ceil(log2 N)`` for the numerators plus
    ``lb(c) + lb(b) + dmax * lb(a)`` (``lb = ceil(log2)``) for the denominator ``c b a^d``, which the
    exact lags carry too (``A = P / q`` with a 7,000-digit ``q`` has 1-bit numerators).

    Parameters
    ----------
    system : SSM
        A time-invariant system.
    dmax : int
        The largest lag.

    Returns
    -------
    int

    Examples
    --------
    >>> from symssm.sources.system import ssm
    >>> lag_bit_bound(ssm([[3, 0], [0, 1]], [[1], [1]], [[1, 1]]), 4)
    15
    """
    sizes, dens = [], []
    for name in ("C", "B", "A"):
        array = system.integer_array(name) if hasattr(system, "integer_array") else None
        if array is not None:  # a large integer matrix: no denominator, its largest entry from the array
            top = max(abs(int(array.max())), abs(int(array.min()))) if array.size else 0
            sizes.append(top.bit_length())
            dens.append(0)
            continue
        M = getattr(system, name)
        scale = _capped_lcm(M, MAX_LAG_BITS)
        if scale is None:  # the common denominator alone is over the limit
            return MAX_LAG_BITS + 1
        sizes.append(max((abs(x.numerator * (scale // x.denominator)).bit_length() for row in M for x in row),
                         default=0))
        dens.append((scale - 1).bit_length())
    log_n = max(1, (system.N - 1).bit_length())
    return sizes[0] + sizes[1] + dmax * sizes[2] + (dmax + 1) * log_n + dens[0] + dens[1] + dmax * dens[2]


def _capped_lcm(mat, cap_bits):
    """The lcm of a matrix's denominators, or None as soon as it has more than ``cap_bits`` bits."""
    from math import gcd

    out = 1
    for row in mat:
        for x in row:
            q = x.denominator
            if out % q:
                out = out // gcd(out, q) * q
                if out.bit_length() > cap_bits:
                    return None
    return out


def iterate_lags(A, B, C, count, *, deadline=None, doing="computing lags"):
    """Yield ``C A^d B`` for ``d = 0 .. count-1`` with the recurrence ``X <- A X``.

    ``A, B, C`` are matrices of one arithmetic that supports ``*`` (python-flint ``fmpz_mat``,
    DomainMatrix over QQ or GF(P)); ``D`` is the caller's to add at ``d = 0``.

    Parameters
    ----------
    A, B, C : fmpz_mat or DomainMatrix
        Matrices of one arithmetic.
    count : int
        How many lags.
    deadline : Deadline, optional
        Checked between lags.
    doing : str
        What the deadline's message says is being done.

    Yields
    ------
    fmpz_mat or DomainMatrix
        ``C A^d B`` for ``d = 0, 1, ...``.
    """
    X = B
    for d in range(count):
        if deadline is not None:
            deadline.check(doing)
        yield C * X
        if d + 1 < count:
            X = A * X


class ScaledLagStack:
    """Integer lag stack: row d is ``s_d * vec(L_d)``, with positive integers ``s_d``.

    Attributes
    ----------
    rows : list of list of int, shape (count, p*m)
    scales : list of int
        ``s_d``; ``L_d = rows[d] / s_d`` exactly.
    """

    def __init__(self, rows, scales):
        self.rows = rows
        self.scales = scales

    def lag(self, d):
        """Exact ``vec(L_d)`` as a list of Fractions."""
        s = self.scales[d]
        return [Fraction(v, s) for v in self.rows[d]]


def scaled_lag_stack(system, count, *, deadline=None):
    """Exact lags ``L_0 .. L_{count-1}`` as an integer stack (python-flint underneath).

    Denominators are cleared once (``A = A'/a``, ``B = B'/b``, ``C = C'/c``), so
    every product is an integer matrix product; ``s_d = c b a^d`` (``s_0`` also
    clears D's denominators).

    Parameters
    ----------
    system : SSM
        A time-invariant system.
    count : int
        How many lags.
    deadline : Deadline, optional
        Checked between lags.

    Returns
    -------
    ScaledLagStack
        The integer lags (flattened) and their scales ``s_d``.
    """
    a, b, c = denominator_lcm(system.A), denominator_lcm(system.B), denominator_lcm(system.C)
    Ai, Bi, Ci = scaled_fmpz_matrix(system.A, a), scaled_fmpz_matrix(system.B, b), scaled_fmpz_matrix(system.C, c)
    flat, scales = [], []
    for d, L in enumerate(iterate_lags(Ai, Bi, Ci, count, deadline=deadline, doing="computing exact lags")):
        if d == 0 and system.has_D:
            delta = denominator_lcm(system.D)
            L = L * delta + scaled_fmpz_matrix(system.D, c * b * delta)
            scales.append(c * b * delta)
        else:
            scales.append(c * b * a**d)
        flat.append([int(v) for v in L.entries()])
    return ScaledLagStack(flat, scales)


def lags(system, n):
    """The first ``n`` lag operators ``L_0 .. L_{n-1}``, exactly.

    Parameters
    ----------
    system : SSM
    n : int
        How many lags (at most :data:`~symssm.formats.limits.MAX_MATERIALISED_LAGS`).

    Returns
    -------
    list of tuple of tuple of Fraction
        ``lags(system, n)[d][r][c]`` is entry (r, c) of ``L_d``.

    Raises
    ------
    InputError
        If ``n`` is not a non-negative integer.
    LimitError
        If ``n`` exceeds the materialisation limit (``head_count`` needs no lags for large n).

    Examples
    --------
    >>> from symssm.sources.system import ssm
    >>> lags(ssm([["1/2"]], [[1]], [[1]], [[3]]), 3)
    [((Fraction(4, 1),),), ((Fraction(1, 2),),), ((Fraction(1, 4),),)]
    """
    try:
        n = check_n(n, maximum=MAX_MATERIALISED_LAGS)
    except LimitError as exc:
        raise LimitError(f"{exc}: lags() materialises every lag (head_count works for any n without forming them)") from None
    stack = scaled_lag_stack(system, n)
    out = []
    for d in range(n):
        flat = stack.lag(d)
        out.append(tuple(tuple(flat[r * system.m:(r + 1) * system.m]) for r in range(system.p)))
    return out


def lag(system, d):
    """One lag operator ``L_d`` (``d >= 0``), exactly, by repeated squaring of A.

    Parameters
    ----------
    system : SSM
        A time-invariant system.
    d : int
        The lag, at least 0.

    Returns
    -------
    tuple of tuple of Fraction
        ``L_d`` (p x m).

    Raises
    ------
    InputError
        If ``d`` is not a non-negative integer.

    Examples
    --------
    >>> from symssm.sources.system import ssm
    >>> lag(ssm([[2]], [[1]], [[1]]), 100)[0][0] == 2**100
    True
    """
    if isinstance(d, bool) or not isinstance(d, int) or d < 0:
        raise InputError(f"lag index must be a non-negative integer, got {d!r}")
    A, B, C = qq_matrix(system.A), qq_matrix(system.B), qq_matrix(system.C)
    L = C * (A ** d) * B
    if d == 0 and system.has_D:
        L = L + qq_matrix(system.D)
    return to_fractions(L.to_list())


def lag_stack_mod(system, count, prime, *, deadline=None):
    """``vec(L_d) mod P`` for ``d < count`` as a list of lists of ints in ``[0, P)``.

    Each rational ``u/v`` maps to ``u * v^{-1} mod P``; the caller ensures P
    divides no denominator (reduction is then a ring homomorphism).

    Parameters
    ----------
    system : SSM
        A time-invariant system.
    count : int
        How many lags.
    prime : int
        The modulus.
    deadline : Deadline, optional
        Checked between lags.

    Returns
    -------
    list of list of int
    """
    A, B, C = (gf_matrix(M, prime) for M in (system.A, system.B, system.C))
    D = gf_matrix(system.D, prime) if system.has_D else None
    out = []
    for d, L in enumerate(iterate_lags(A, B, C, count, deadline=deadline, doing="computing lags mod P")):
        if d == 0 and D is not None:
            L = L + D
        out.append([int(v) for v in L.rep.to_list_flat()])
    return out
