"""Exact head counts: k(n) = dim span{L_0, ..., L_{n-1}}, with their witnesses.

The engine computes the row rank profile ``d_1 < ... < d_K`` of the lag stack
``L_0 .. L_{T-1}`` (``T`` = N, or N + 1 with D: Cayley-Hamilton, so every
later lag lies in that span).  Then ``k(n) = #{s : d_s < n}`` for *every* n,
which is why ``head_count(system, 10**18)`` costs the same as for ``n = T``.

Two methods find the profile and its proof:

``"exact"``
    Exact rational linear algebra on the lag stack (python-flint's ``fmpz_mat`` and
    ``fmpq_mat``, called directly: no SymPy); the lower-bound minor and its determinant are exact.
``"modular"``
    Everything modulo a prime ``P < 2**26`` that divides no denominator.  A
    minor that is nonzero mod P is nonzero over QQ, so the lower bound stays a
    proof.  The upper bound comes from the dimension argument where it applies;
    elsewhere exact coefficients are computed and checked, and an unlucky prime
    (whose rank is too small) is detected and replaced.

``"auto"`` picks exact for N <= 16 and modular above, and modular whenever the exact lags
would exceed the size limit shared with the checker (:data:`~symssm.exact.lags.MAX_LAG_BITS`).  Both take milliseconds
there (exact is about 2x slower at N = 16, 4.7x at N = 32; docs/performance.md);
small exact certificates carry the exact minor, its determinant and the full
coefficient table that a paper shows, while above N = 16 the exact cost grows
with the size of the entries of A^d, for the generator and the checker alike.

Examples
--------
>>> from symssm.sources.system import ssm
>>> rot = ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]])
>>> head_count(rot, 1), head_count(rot, 2), head_count(rot, 10**18)
(1, 2, 2)
>>> profile(rot).values
(1, 2)
"""

from typing import Optional
from bisect import bisect_left
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from ..errors import CertificateError, InputError, LimitError
from ..formats.limits import Deadline, check_n
from ..sources.system import SSM
from .convert import fmpq_matrix, to_fraction
from .lags import MAX_LAG_BITS, lag_bit_bound, scaled_lag_stack
from .primes import prime_divides_denominator, witness_primes
from .rankprofile import greedy_positions_mod, row_rank_profile_exact

__all__ = [
    "METHODS",
    "AUTO_EXACT_MAX_N",
    "HeadCountWitness",
    "Profile",
    "find_witness",
    "head_count",
    "profile",
    "check_method",
]

METHODS = ("auto", "exact", "modular")
#: ``method="auto"`` uses the exact method up to this state dimension.
AUTO_EXACT_MAX_N = 16
_MAX_PRIME_TRIES = 12


@dataclass(frozen=True)
class HeadCountWitness:
    """The proof data behind a head-count profile.

    Attributes
    ----------
    system : SSM
    method : {"exact", "modular"}
    lags : tuple of int
        Row rank profile ``d_1 < ... < d_K`` of the lag stack.
    positions : tuple of (int, int)
        Entry positions ``(r_t, c_t)``; the matrix ``M_st = L_{d_s}[r_t, c_t]``
        has every leading principal minor nonzero.
    prime : int
        The prime the positions (and, for ``modular``, the minor) were checked with.
    coefficients : dict
        ``{d: (c_1, ..., c_j)}`` for non-pivot lags ``d``: ``L_d = sum_h c_h L_{d_h}``
        over the ``j`` pivot lags below d.  Lags not listed are covered by the
        dimension argument (``K = p m`` and ``d > d_K``).
    minor : tuple or None
        The exact K x K minor (exact method).
    determinant : Fraction or None
        Its exact determinant (exact method).
    determinant_mod_p : int or None
        Its determinant modulo ``prime`` (modular method).
    value_maps : tuple or None
        The exact basis ``V_h = L_{d_h}`` (exact method).
    """

    system: SSM
    method: str
    lags: tuple
    positions: tuple
    prime: int
    coefficients: dict
    minor: Optional[tuple] = None
    determinant: Optional[Fraction] = None
    determinant_mod_p: Optional[int] = None
    value_maps: Optional[tuple] = None

    @property
    def rank(self):
        """``K = k(n)`` for every ``n >= d_K + 1``."""
        return len(self.lags)

    def head_count(self, n):
        """``k(n) = #{s : d_s < n}``."""
        return bisect_left(self.lags, n)

    def profile(self):
        """The :class:`Profile` this witness proves."""
        return Profile(self.lags)


@dataclass(frozen=True)
class Profile:
    """The step function ``n -> k(n)``.

    Examples
    --------
    >>> pr = Profile((1, 3))
    >>> pr.values, pr.constant_from, pr.eventual, pr(10**9)
    ((0, 1, 1, 2), 4, 2, 2)
    >>> pr
    Profile(k(1..4) = 0, 1, 1, 2; k(n) = 2 for every n >= 4)
    """

    lags: tuple

    @property
    def eventual(self):
        """The value k(n) takes for all large n."""
        return len(self.lags)

    @property
    def constant_from(self):
        """The least n0 with ``k(n) = eventual`` for every ``n >= n0``."""
        return self.lags[-1] + 1 if self.lags else 1

    @property
    def values(self):
        """``(k(1), ..., k(constant_from))``."""
        return tuple(bisect_left(self.lags, n) for n in range(1, self.constant_from + 1))

    def __call__(self, n):
        return bisect_left(self.lags, check_n(n))

    def __repr__(self):
        values = self.values
        shown = ", ".join(map(str, values[:16])) + (", ..." if len(values) > 16 else "")
        return f"Profile(k(1..{len(values)}) = {shown}; k(n) = {self.eventual} for every n >= {self.constant_from})"

    def _repr_html_(self):
        """Jupyter: the step function as a small table."""
        cells = "".join(f"<td>{v}</td>" for v in self.values)
        heads = "".join(f"<th>{n}</th>" for n in range(1, len(self.values) + 1))
        return (f"<table><tr><th>n</th>{heads}</tr><tr><th>k(n)</th>{cells}</tr></table>"
                f"<p>k(n) = {self.eventual} for all n &ge; {self.constant_from}</p>")

    def holds_for(self, n):
        """The range ``(n0, n1)`` of lengths with ``k = k(n)`` (``n1`` None: unbounded)."""
        k = self(n)
        n0 = self.lags[k - 1] + 1 if k > 0 else 0
        n1 = self.lags[k] if k < len(self.lags) else None
        return n0, n1


def check_method(method):
    """Validate a method name.

    Parameters
    ----------
    method : str
        A method name.

    Returns
    -------
    str
        ``method``.

    Raises
    ------
    InputError
        If ``method`` is not one of :data:`METHODS`.
    """
    if method not in METHODS:
        raise InputError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    return method


def _check_system(system):
    if type(system).__name__ == "ComplexSSM":
        raise InputError("find_witness takes a system over Q; for a complex system use head_count, profile or "
                         "certify (the certificate carries its witness over Q(i))")
    if not isinstance(system, SSM):
        raise InputError(f"expected an SSM (build one with symssm.ssm), got {type(system).__name__}")
    return system


def _complex_profile(system, method):
    """The profile of a complex system (over Q(i)), or None for a system of another type."""
    from ..sources.complex_system import ComplexSSM

    if not isinstance(system, ComplexSSM):
        return None
    from .gaussian import witness_lags

    check_method(method)
    return Profile(witness_lags(system, method))


def _mod_rows(stack, lags, prime):
    """``vec(L_d) mod P`` for the given lags, from an exact scaled stack."""
    out = []
    for d in lags:
        inv = pow(stack.scales[d], -1, prime)
        out.append([v * inv % prime for v in stack.rows[d]])
    return out


def _solve_coefficients(stack, pivots, positions, lags_needed):
    """Exact ``c`` with ``L_d = sum_h c_h L_{d_h}`` over pivots below d; None if some d fails."""
    if not lags_needed:
        return {}
    k = len(pivots)
    if k == 0:
        ok = all(all(v == 0 for v in stack.rows[d]) for d in lags_needed)
        return {d: () for d in lags_needed} if ok else None
    # Scaled unknowns: sum_s c'_s rows[d_s] = rows[d], then c_s = c'_s s_{d_s} / s_d.
    Mt = fmpq_matrix([[stack.rows[d][t] for d in pivots] for t in positions])
    R = fmpq_matrix([[stack.rows[d][t] for d in lags_needed] for t in positions])
    Cp = Mt.solve(R)  # k x len(lags_needed); Mt is invertible (its determinant is the witness minor's)
    S = fmpq_matrix([stack.rows[d] for d in pivots])
    T = fmpq_matrix([stack.rows[d] for d in lags_needed])
    if Cp.transpose() * S != T:
        return None
    out = {}
    cols = Cp.table()
    for j, d in enumerate(lags_needed):
        below = bisect_left(pivots, d)
        coeffs = []
        for s in range(k):
            c = cols[s][j]
            value = to_fraction(c) * stack.scales[pivots[s]] / stack.scales[d]
            if s >= below:
                if value != 0:
                    return None
            else:
                coeffs.append(value)
        out[d] = tuple(coeffs)
    return out


def _usable_primes(system, start=None):
    count = 0
    for prime in (witness_primes() if start is None else witness_primes(start)):
        if not prime_divides_denominator(system, prime):
            yield prime
            count += 1
            if count >= _MAX_PRIME_TRIES:
                return


def _exact_witness(system, deadline):
    T = system.truncation
    stack = scaled_lag_stack(system, T, deadline=deadline)
    deadline.check("computing the exact rank profile")
    pivots = row_rank_profile_exact(stack.rows)
    for prime in _usable_primes(system):
        positions = greedy_positions_mod(_mod_rows(stack, pivots, prime), prime)
        if positions is not None:
            break
    else:  # pragma: no cover - needs 12 unlucky primes in a row
        raise CertificateError("no witness prime found for the exact minor; please report this system")
    deadline.check("computing coefficients")
    pivot_set = set(pivots)
    nonpivots = [d for d in range(T) if d not in pivot_set]
    coefficients = _solve_coefficients(stack, pivots, positions, nonpivots)
    if coefficients is None:  # pragma: no cover - impossible for an exact profile
        raise CertificateError("internal error: exact coefficients failed to verify")
    lag_vals = {d: stack.lag(d) for d in pivots}
    minor = tuple(tuple(lag_vals[d][t] for t in positions) for d in pivots)
    k = len(pivots)
    det = to_fraction(fmpq_matrix(minor).det()) if k else Fraction(1)
    m = system.m
    value_maps = tuple(tuple(tuple(lag_vals[d][r * m:(r + 1) * m]) for r in range(system.p)) for d in pivots)
    return HeadCountWitness(
        system=system, method="exact", lags=tuple(pivots),
        positions=tuple(divmod(t, m) for t in positions), prime=prime, coefficients=coefficients,
        minor=minor, determinant=det, value_maps=value_maps,
    )


def _modular_witness(system, deadline):
    from .modfloat import FLOAT_PRIME_LIMIT, greedy_profile, lags_mod, residue_array, residue_codes  # numpy

    T = system.truncation
    pm = system.p * system.m
    stack = None
    for prime in _usable_primes(system, FLOAT_PRIME_LIMIT):
        deadline.check("computing lags mod P")

        def res(name):
            array = system.integer_array(name)  # a large integer matrix is held as an int64 array
            return residue_array(array, prime) if array is not None else residue_codes(*system.entry_codes(name), prime)

        mats = (res("A"), res("B"), res("C"), res("D") if system.has_D else None)
        # The first pm lags are usually independent, and then the dimension argument covers every later one: the
        # profile of the whole stack begins with the profile of its first rows, so those are formed first, and
        # the rest only when they do not reach rank pm.
        count = min(T, pm)
        stack_mod = lags_mod(*mats, count, prime, deadline=deadline)
        deadline.check("computing the rank profile mod P")
        pivots, positions, det = greedy_profile(stack_mod, prime)
        if len(pivots) < pm and count < T:
            stack_mod = lags_mod(*mats, T, prime, deadline=deadline)
            deadline.check("computing the rank profile mod P")
            pivots, positions, det = greedy_profile(stack_mod, prime)
        K = len(pivots)
        last = pivots[-1] if pivots else -1
        pset = set(pivots)
        needed = [d for d in range(T) if d not in pset and not (d > last and K == pm)]
        coefficients = {}
        if needed:
            _require_small_lags(system, max(needed), "the upper bound needs exact coefficients of lags")
            if stack is None:
                deadline.check("computing exact lags for the upper bound")
                stack = scaled_lag_stack(system, T, deadline=deadline)
            deadline.check("computing exact coefficients")
            coefficients = _solve_coefficients(stack, pivots, positions, needed)
            if coefficients is None:
                continue  # unlucky prime: its rank was too small
        return HeadCountWitness(
            system=system, method="modular", lags=tuple(pivots),
            positions=tuple(divmod(t, system.m) for t in positions), prime=prime,
            coefficients=coefficients, determinant_mod_p=det,
        )
    return _exact_witness(system, deadline)  # pragma: no cover - 12 unlucky primes


@lru_cache(maxsize=64)
def _cached_witness(system, method):
    return _find(system, method, Deadline(None))


def _require_small_lags(system, dmax, why):
    bound = lag_bit_bound(system, dmax)
    if bound > MAX_LAG_BITS:
        raise LimitError(f"{why} up to L_{dmax}, whose entries may have {bound} bits; the limit (shared with the "
                         f"checker) is {MAX_LAG_BITS} bits, about 10,000 digits: use smaller entries")


def _find(system, method, deadline):
    if method == "auto":
        small = system.N <= AUTO_EXACT_MAX_N and lag_bit_bound(system, system.truncation - 1) <= MAX_LAG_BITS
        method = "exact" if small else "modular"
    if method == "exact":
        _require_small_lags(system, system.truncation - 1, "the exact method needs exact lags (try --method modular)")
        return _exact_witness(system, deadline)
    return _modular_witness(system, deadline)


def find_witness(system, *, method="auto", max_seconds=None):
    """Compute the head-count profile of a system and the data that proves it.

    Parameters
    ----------
    system : SSM
    method : {"auto", "exact", "modular"}
    max_seconds : float, optional
        Stop with :class:`~symssm.errors.BudgetExceeded` past this budget.

    Returns
    -------
    HeadCountWitness

    Raises
    ------
    InputError
        If ``system`` is not an :class:`~symssm.sources.system.SSM` or ``method`` is unknown.
    BudgetExceeded
        If ``max_seconds`` runs out.
    """
    _check_system(system)
    check_method(method)
    if max_seconds is None:
        return _cached_witness(system, method)
    return _find(system, method, Deadline(max_seconds))


def head_count(system, n, *, method="auto"):
    """The exact number of heads needed on length-n sequences, ``k(n)``.

    Parameters
    ----------
    system : SSM or ComplexSSM
        A system over Q, or over Q(i) (then ``k(n)`` is the dimension over C, as ``symssm certify`` proves it).
    n : int
        Sequence length, any non-negative integer (``10**18`` is as cheap as 10).
    method : {"auto", "exact", "modular"}

    Returns
    -------
    int

    Raises
    ------
    InputError
        If ``n`` is not a non-negative integer, or the system or method is not valid.

    Examples
    --------
    >>> from symssm.sources.system import ssm
    >>> shift = ssm([[0,0,0,0,0],[1,0,0,0,0],[0,1,0,0,0],[0,0,1,0,0],[0,0,0,1,0]],
    ...             [[1],[0],[0],[0],[0]], [[0,1,0,0,0],[0,0,0,1,0]])
    >>> [head_count(shift, n) for n in range(1, 7)]
    [0, 1, 1, 2, 2, 2]
    """
    check_n(n)
    complex_profile = _complex_profile(system, method)
    if complex_profile is not None:
        return complex_profile(n)
    return find_witness(system, method=method).head_count(n)


def profile(system, *, method="auto"):
    """The head-count step function ``k(1), k(2), ...`` as a :class:`Profile`.

    Parameters
    ----------
    system : SSM or ComplexSSM
        A time-invariant system over Q or over Q(i).
    method : {"auto", "exact", "modular"}
        How the witness is found.

    Returns
    -------
    Profile

    Raises
    ------
    InputError
        If the system or the method is not valid.

    Examples
    --------
    >>> from symssm.sources.system import ssm
    >>> profile(ssm([[0, 0], [1, 0]], [[1], [0]], [[0, 1]]))
    Profile(k(1..2) = 0, 1; k(n) = 1 for every n >= 2)
    """
    complex_profile = _complex_profile(system, method)
    if complex_profile is not None:
        return complex_profile
    return find_witness(system, method=method).profile()
