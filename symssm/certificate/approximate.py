"""Build certificates of eps-head counts (kind ``"approximate-head-count"``) as JSON data.

For a rational (or float, hence dyadic) system and a length ``n``: brackets ``[lower_H, upper_H]``
on the best H-head relative error ``e_H`` for ``H = 0, 1, ...`` up to the first ``H`` whose upper
bound is within the tolerance, with the witnesses the checker re-verifies exactly
(:mod:`symssm.exact.approximate`), and the eps-head count they prove.

Examples
--------
>>> from symssm.sources.system import ssm
>>> data = approximate_data(ssm([["1/2", 0], [0, "-1/3"]], [[1], [1]], [[1, 0], [0, 1]]), 16, "1/100")
>>> data["kind"], data["head_count"], [e["H"] for e in data["errors"]]
('approximate-head-count', 2, [0, 1, 2])
"""

from fractions import Fraction

from ..errors import LimitError
from ..exact.approximate import (MAX_APPROX_DIM, _dyadic, error_brackets, gram_brackets, sqrt_up, summed_lags,
                                 truncated_gram, widened_errors, widening)
from ..formats.limits import check_n
from ..formats.rationals import format_rational, parse_tolerance
from .envelope import header, within_limits

__all__ = ["approximate_data", "bracket_json", "MAX_TAIL_N"]

#: Longest n of a certificate whose lags beyond the exact sum are bounded by a certified decay (both sides).
MAX_TAIL_N = 10 ** 12


def approximate_data(system, n, tolerance):
    """The certificate's JSON data for the eps-head count of ``system`` on length ``n``.

    Parameters
    ----------
    system : SSM
        A real system with rational entries.
    n : int
        The sequence length.
    tolerance : Tolerance, Fraction or str
        The relative error, in (0, 1) (:func:`~symssm.formats.rationals.parse_tolerance`; never a binary float).

    Returns
    -------
    dict
        The certificate's JSON data.

    Raises
    ------
    InputError
        If ``n`` or the tolerance is invalid (a binary float: :class:`~symssm.errors.FloatInExactPathError`).
    LimitError
        If the exact Gram matrix is beyond the limits (docs/numeric.md).
    """
    n = check_n(n, minimum=1)
    tol = parse_tolerance(tolerance, floats=False)  # read once at the boundary: a Tolerance passes through
    if system.p * system.m <= MAX_APPROX_DIM:  # (beyond it, error_brackets says so)
        n0 = summed_lags(system, n)
        if n0 < n:
            return within_limits(_tail_data(system, n, n0, tol))
    out = error_brackets(system, n, tol)
    errors = [bracket_json(e) for e in out["errors"]]
    data = header("approximate-head-count", system)
    data.update({"n": n, "tolerance": format_rational(tol), "head_count": out["head_count"],
                 "undecided_at": out["undecided"], "errors": errors})
    return within_limits(data)


def _tail_data(system, n, n0, tol):
    """For n beyond the exact sum (n0 < n lags fit in it): the lags up to n0 exactly, a certified decay bound on the
    rest, wider brackets."""
    from ..errors import NotStableError
    from ..gradient.decay import decay_bound

    if n > MAX_TAIL_N:
        raise LimitError(f"certified eps-head counts are made for n <= {MAX_TAIL_N}, got {n}")
    if n0 < 1:
        raise LimitError("even L_0 is beyond the limits of the exact sum")
    try:
        decay = decay_bound(system)
    except NotStableError as exc:
        raise LimitError(f"n = {n} is beyond the {n0} lags summed exactly, and bounding the rest needs a certified "
                         f"decay: {exc}") from None
    r = decay.r
    # rounded up to a short dyadic, and to at least 2^-1000 (a bound that small changes no bracket's printed digits,
    # and keeps every number of the certificate short)
    tail = max(_dyadic(n * decay.K2 * r ** (2 * n0) / (1 - r * r), 64), Fraction(1, 2 ** 1000))
    G, tr, S2 = truncated_gram(system, n, n0)
    if tr == 0:
        raise LimitError(f"the {n0} lags summed exactly are zero: the tail bound cannot be relative to them")
    t = sqrt_up(tail * S2 / tr)
    if t >= 1:
        raise LimitError(f"the lags beyond the {n0} summed exactly decay too slowly (rate {float(r):.4g}) for n = {n}: "
                         "their bound exceeds the summed part (a shorter n)")
    out = gram_brackets(G, tr, tol, widen=widening(t))
    if out["head_count"] is None and out["undecided"] is None:
        raise LimitError(f"no H reaches the tolerance once the tail's relative distance {float(t):.3g} is added (the "
                         f"lags beyond the {n0} summed decay too slowly: a shorter n, or a larger tolerance)")
    data = header("approximate-head-count", system)
    data.update({
        "n": n, "tolerance": format_rational(tol), "head_count": out["head_count"], "undecided_at": out["undecided"],
        "tail": {"summed": n0, "decay_rate": format_rational(r),
                 "lyapunov": {"P": [[format_rational(x) for x in row] for row in decay.P],
                              "mu": format_rational(decay.mu), "M": format_rational(decay.M)},
                 "bound": format_rational(tail), "relative_distance": format_rational(t),
                 "summed_errors": [bracket_json(e) for e in out["errors"]]},
        "errors": [{"H": e["H"], "lower": format_rational(e["lower"]), "upper": format_rational(e["upper"])}
                   for e in widened_errors(out["errors"], t)]})
    return data


def bracket_json(e):
    """One bracket with its witnesses as certificate JSON.

    Parameters
    ----------
    e : dict
        A bracket of :func:`symssm.exact.approximate.gram_brackets`: ``H``, ``lower``, ``upper`` and, for
        ``H >= 1``, ``basis`` and the definiteness witnesses (``zeta``, ``gammas``, ``factor``) when there are some.

    Returns
    -------
    dict
        ``H``, ``lower`` and ``upper`` as canonical texts; ``basis`` and ``definite`` (None without witnesses)
        for ``H >= 1``.
    """
    item = {"H": e["H"], "lower": format_rational(e["lower"]), "upper": format_rational(e["upper"])}
    if e["H"]:
        item["basis"] = [[str(x) for x in row] for row in e["basis"]]
        if "zeta" in e:
            item["definite"] = {"zeta": format_rational(e["zeta"]),
                                "gammas": [format_rational(g) for g in e["gammas"]],
                                "factor": [[str(x) for x in row] for row in e["factor"]]}
        else:
            item["definite"] = None
    return item
