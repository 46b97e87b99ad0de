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

from ..errors import InputError
from ..exact.approximate import error_brackets
from ..formats.limits import check_n
from ..formats.rationals import format_rational
from .envelope import header, within_limits

__all__ = ["approximate_data", "parse_tolerance", "bracket_json"]


def parse_tolerance(text):
    """A tolerance in (0, 1) from ``"1e-3"``, ``"0.001"`` or ``"1/1000"`` (exact; never a float).

    Raises
    ------
    InputError
        If it is not such a number.
    """
    import re

    text = str(text).strip()
    if not re.fullmatch(r"[0-9]+(\.[0-9]+)?([eE]-?[0-9]{1,3})?|[0-9]+/[0-9]+", text):
        raise InputError(f"tolerance {text[:40]!r} must be a number such as 1e-3, 0.001 or 1/1000")
    value = Fraction(text) if "/" in text and not text.endswith("/0") else Fraction(text) if "/" not in text \
        else None
    if value is None or not 0 < value < 1:
        raise InputError(f"the tolerance must lie strictly between 0 and 1, got {text[:40]}")
    return value


def approximate_data(system, n, tolerance):
    """The certificate's JSON data for the eps-head count of ``system`` on length ``n``.

    Raises
    ------
    InputError
        If ``n`` or the tolerance is invalid.
    LimitError
        If the exact Gram matrix is beyond the limits (docs/numeric.md).
    """
    n = check_n(n)
    tol = parse_tolerance(tolerance) if not isinstance(tolerance, Fraction) else tolerance
    out = error_brackets(system, n, tol)
    errors = [bracket_json(e) for e in out["errors"]]
    data = header("approximate-head-count", system)
    data.update({"n": n, "tolerance": format_rational(tol), "head_count": out["head_count"],
                 "undecided_at": out["undecided"], "errors": errors})
    return within_limits(data)


def bracket_json(e):
    """One bracket with its witnesses (exact/approximate's dict) as certificate JSON."""
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
