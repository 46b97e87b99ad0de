"""Head-count certificates of complex SSMs (``"field": "Q(i)"``; exact or modular method).

Same fields as a head-count certificate, every number a canonical Gaussian rational string
(``"1/2-3/4i"``), plus ``"field": "Q(i)"``.  The lower bound is exact (``method: "exact"``: the
minor over Q(i), coefficients for every other lag), or modular for large systems (``"modular"``: a
prime ``P = 1 mod 4``, ``i_mod_p`` with ``i_mod_p^2 = -1 mod P``, the minor's determinant mod P, and
the dimension argument for every lag after the ``pm`` witness lags).

Examples
--------
>>> from symssm.sources.complex_system import complex_ssm
>>> data = gaussian_data(complex_ssm([["1/2i", 0], [0, "-1/2i"]], [[1], [1]], [[1, 0], [0, 1]]), 10)
>>> data["head_count"], data["field"], data["lower_bound"]["determinant"]
(2, 'Q(i)', '-1i')
"""

from bisect import bisect_left
from math import lcm

from .._version import __version__
from ..errors import CertificateError
from ..exact.gaussian import MAX_EXACT_N, gaussian_lags, gaussian_witness, modular_witness_or_none
from ..exact.primes import witness_primes
from ..formats.gaussian import Gaussian, format_gaussian
from ..formats.limits import check_n
from .envelope import FORMAT, VERSION, within_limits
from .head_count import HEADS_RULE

__all__ = ["gaussian_data", "FIELD"]

FIELD = "Q(i)"


def _mat(M):
    return [[format_gaussian(x) for x in row] for row in M]


#: The checker's cost limits for Q(i) lags (checker/gaussian.py states the same numbers and formula).
MAX_ENTRIES = 8_388_608
MAX_GAUSSIAN_WORK = 20_000_000
MAX_GAUSSIAN_LAG_BITS = 33_220


def _check_cost(system):
    """Refuse a system whose certificate the checker would refuse as over its cost limits."""
    from ..errors import LimitError

    N, p, m = system.N, system.p, system.m
    if N * N + N * m + p * N + 2 * p * m > MAX_ENTRIES:
        raise LimitError(f"the system has more than {MAX_ENTRIES} entries")

    def bits(M):  # over the common denominator, as the checker prices them (checker/gaussian.py: _bits)
        big, den = 0, 1
        for x in sorted({x.denominator for row in M for z in row for x in (z.re, z.im)}):
            den = lcm(den, x)
            if den.bit_length() > MAX_GAUSSIAN_LAG_BITS:
                break
        nums = max((x.numerator.bit_length() for row in M for z in row for x in (z.re, z.im)), default=0)
        return nums + min(den.bit_length(), MAX_GAUSSIAN_LAG_BITS + 1)

    bA, bB, bC = bits(system.A), bits(system.B), bits(system.C)
    log_n = max(1, (2 * N - 1).bit_length())
    work = bound = 0
    for d in range(system.truncation):
        bound = bC + bB + d * bA + (d + 1) * log_n
        work += (N * N * m + p * N * m) * (1 + bound // 64)
    if bound > MAX_GAUSSIAN_LAG_BITS or work > MAX_GAUSSIAN_WORK:
        raise LimitError(f"the lags of this complex system are over the checker's cost limit ({bound} bits, limit "
                         f"{MAX_GAUSSIAN_LAG_BITS}; {work} word-weighted products, limit {MAX_GAUSSIAN_WORK})")




def gaussian_data(system, n=None, *, method="auto"):
    """The head-count certificate data of a :class:`~symssm.sources.complex_system.ComplexSSM`.

    Parameters
    ----------
    system : ComplexSSM
        A system with Gaussian rational entries.
    n : int, optional
        The sequence length; default the truncation ``T`` (``N``, ``N + 1`` with D).
    method : {"auto", "exact", "modular"}
        ``"exact"`` (elimination over Q(i); N <= 64), ``"modular"`` (witness mod a prime P = 1 mod 4; needs the
        first ``pm`` lags independent, so the dimension argument covers the rest), or ``"auto"`` (exact up to
        N = 64, modular above).

    Returns
    -------
    dict
        The JSON data of a ``head-count`` certificate with ``"field": "Q(i)"``, every number a canonical
        Gaussian rational text.

    Raises
    ------
    InputError
        If ``n`` or ``method`` is not valid.
    LimitError
        If a number would exceed the checker's digit limit, or the lags its cost limit; or, for a
        large system, if no modular witness exists (its proof needs exact coefficients).
    """
    from ..errors import InputError

    n = system.truncation if n is None else check_n(n, minimum=1)
    if method not in ("auto", "exact", "modular"):
        raise InputError(f"unknown method {str(method)[:40]!r}; choose auto, exact or modular")
    w = modular_witness_or_none(system, method)
    if w is not None:
        return _modular_data(system, n, w)
    _check_cost(system)
    w = gaussian_witness(system)
    lags = w["lags"]
    dens = [x.denominator for M in (system.A, system.B, system.C, system.D or ()) for row in M
            for z in row for x in (z.re, z.im)]
    prime = next(q for q in witness_primes() if all(d % q for d in dens))
    all_lags = gaussian_lags(system, system.truncation)
    for d, c in w["coefficients"].items():  # the generator checks its own coefficients before writing
        combo = [[sum((c[s] * all_lags[lags[s]][r][col] for s in range(len(c))), Gaussian(0))
                  for col in range(system.m)] for r in range(system.p)]
        if combo != [list(row) for row in all_lags[d]]:  # pragma: no cover - impossible for the elimination
            raise CertificateError("internal error: complex coefficients failed to verify")
    lower = {"method": "exact", "lags": lags, "positions": [list(rc) for rc in w["positions"]],
             "prime": prime, "minor": _mat(w["minor"]), "determinant": format_gaussian(w["determinant"])}
    upper = {"coefficients": [{"lag": d, "c": [format_gaussian(x) for x in c]}
                              for d, c in sorted(w["coefficients"].items())], "dimension_from_lag": None}
    return _envelope(system, n, lags, lower, upper, lambda k: {"value_maps": [_mat(V) for V in w["value_maps"][:k]]})


def _envelope(system, n, lags, lower, upper, heads):
    """The Q(i) head-count certificate around a witness: the claim for length n follows from the lags."""
    K = len(lags)
    k = bisect_left(lags, n)
    n0 = lags[k - 1] + 1 if k > 0 else 0
    n1 = lags[k] if k < K else None
    start = lags[-1] + 1 if lags else 1
    return within_limits({
        "format": FORMAT, "version": VERSION, "kind": "head-count", "field": FIELD,
        "generator": f"symssm {__version__}",
        "system": {"name": system.name, "N": system.N, "m": system.m, "p": system.p, **system.entry_text},
        "input_sha256": system.sha256, "n": n, "head_count": k, "truncation": system.truncation,
        "lower_bound": lower, "upper_bound": upper,
        "heads": {"H": k, "value_map_lags": lags[:k], "rule": HEADS_RULE, **heads(k)},
        "profile": {"values": [bisect_left(lags, j) for j in range(1, start + 1)], "constant_from": start,
                    "eventual": K},
        "holds_for": {"from": n0, "to": n1},
        "interaction_rank_gap": [{"H": H, "minor_order": H + 1} for H in range(k)],
    })


def _modular_data(system, n, w):
    lags = w["lags"]
    lower = {"method": "modular", "lags": lags, "positions": [list(rc) for rc in w["positions"]],
             "prime": w["prime"], "i_mod_p": w["i_mod_p"], "determinant_mod_p": w["determinant_mod_p"]}
    upper = {"coefficients": [], "dimension_from_lag": lags[-1] + 1}
    return _envelope(system, n, lags, lower, upper, lambda k: {})
