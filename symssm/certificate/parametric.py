"""Build certificates for families with parameters (kind ``"parametric-head-count"``) as JSON data.

The format is specified in ``docs/certificate-format.md``; the proof it carries is explained in
``docs/parametric.md``.  Bodies are stored as a flat list (the generic family first, then every
case of the exceptional set, breadth first), so nesting never grows with the number of cases.

Examples
--------
>>> from symssm.sources.parametric import parametric_family
>>> cert = parametric_data(parametric_family("jordan-symbolic"), 6)
>>> cert["kind"], cert["head_count"], cert["complete"], cert["bodies"][0]["factors"]
('parametric-head-count', 2, True, {'constant': '1', 'list': []})
"""

from ..errors import InputError
from ..exact.parametric import family_head_count
from ..formats.limits import check_n
from .envelope import header, within_limits

__all__ = ["parametric_data", "parametric_system_json", "body_links"]


def parametric_system_json(system):
    """The ``"system"`` field of a parametric certificate: formulas as written, and the parameters.

    Parameters
    ----------
    system : ParametricSSM
        The family.

    Returns
    -------
    dict
        ``name``, ``N``, ``m``, ``p``, ``parameters`` and the matrices of formula texts (``D`` None when absent).
    """
    def rows(mat):
        return None if mat is None else [list(r) for r in mat]

    return {"name": system.name, "N": system.N, "m": system.m, "p": system.p, "parameters": list(system.parameters),
            "A": rows(system.formulas["A"]), "B": rows(system.formulas["B"]), "C": rows(system.formulas["C"]),
            "D": rows(system.formulas["D"])}


def cover_json(cover):
    """A factor's ``cover`` as JSON data (docs/certificate-format.md)."""
    out = {"rule": cover.rule}
    if cover.rule == "solve":
        out.update(parameter=cover.parameter, value=cover.value)
        if cover.denominator is not None:
            out.update(denominator=cover.denominator, denominator_factors={
                "constant": cover.den_constant, "list": [[t, e] for t, e in cover.den_factors]})
        return out
    out["variables"] = list(cover.variables)
    if cover.rule in ("definite-form", "definite"):
        out.update(L=[list(row) for row in cover.L], D=list(cover.D))
    return out


def _item(f):
    item = {"polynomial": f.text}
    if f.multiplicity is not None:
        item["multiplicity"] = f.multiplicity
    item["status"] = f.status
    if f.status == "case":
        item["case"] = f.case
    if f.cover is not None:
        item["cover"] = cover_json(f.cover)
    if f.reason is not None:
        item["reason"] = f.reason
    return item


def body_links(body):
    """A body's ``substitution`` (None for the generic body) and ``factors`` object, as JSON data.

    The substitution names the first link that reaches the body (``{"parent", "factor"}`` or
    ``{"parent", "coefficient"}``); every factor says how its zero set is covered.

    Parameters
    ----------
    body : Body
        A body of :func:`~symssm.exact.parametric.family_head_count` (or of a layer family).

    Returns
    -------
    tuple
        ``(substitution, factors)``: the first link that leads to the body (None for the generic body),
        and the factors object: each factor of its exceptional set with its multiplicity, status and cover.
    """
    sub = None
    if body.substitution is not None:
        parent, kind, index = body.substitution
        sub = {"parent": parent, ("factor" if kind == "factor" else "coefficient_factor"): index}
    factors = {"constant": body.constant, "list": [_item(f) for f in body.factors]}
    if body.solved:
        factors["coefficient_factors"] = [_item(f) for f in body.solved]
    return sub, factors


def _body(body):
    entries = {key: (None if body.entries[key] is None else [[list(pair) for pair in row] for row in body.entries[key]])
               for key in ("A", "B", "C", "D")}
    sub, factors = body_links(body)
    upper = {"dimension": body.dimension}
    if not body.dimension:
        upper["coefficients"] = [{"lag": d, "q": q, "p": list(ps)} for d, q, ps in body.coefficients]
    return {
        "parameters": list(body.system.parameters),
        "substitution": sub,
        "entries": entries,
        "denominator": body.denominator,
        "head_count": body.head_count,
        "lower_bound": {"lags": list(body.lags), "positions": [list(rc) for rc in body.positions],
                        "determinant": body.determinant},
        "upper_bound": upper,
        "factors": factors,
        "complete": body.complete,
        "holds_for": {"from": body.holds_for[0], "to": body.holds_for[1]},
    }


def parametric_data(system, n=None):
    """The certificate's JSON data for the head count of a parametric family on length ``n``.

    Parameters
    ----------
    system : ParametricSSM
        The family.
    n : int, optional
        The sequence length; default the truncation ``T = N`` (``N + 1`` with D), where the count is final.

    Returns
    -------
    dict
        The JSON data of a ``parametric-head-count`` certificate: the generic count, every case and whether
        they cover every parameter value (``complete``).

    Raises
    ------
    InputError
        If ``n`` is invalid, or the family cannot be analysed (:func:`~symssm.exact.parametric.family_head_count`).
    LimitError
        If a number would exceed the checker's limits.
    """
    T = system.N + (1 if system.has_D else 0)
    n = T if n is None else check_n(n, minimum=1)
    if not isinstance(n, int):
        raise InputError("n must be an integer")
    bodies = family_head_count(system, n)
    data = header("parametric-head-count", system)
    data["system"] = parametric_system_json(system)
    data.update({
        "n": n,
        "truncation": T,
        "head_count": bodies[0].head_count,
        "complete": bodies[0].complete,
        "bodies": [_body(b) for b in bodies],
    })
    return within_limits(data)
