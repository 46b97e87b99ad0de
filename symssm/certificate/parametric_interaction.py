"""Build certificates of interaction ranks for every input (kind ``"parametric-interaction-rank"``).

The layer's entries are formulas in parameters (token values among them); the certificate proves
the generic interaction rank over ``Q(parameters)`` and, case by case, the rank on the exceptional
set, with the same bodies as a family's certificate (``docs/framework.md``, "For every input").

Examples
--------
>>> from symssm.sources.parametric_layers import parametric_layer_from_data
>>> layer = parametric_layer_from_data({"kind": "selective-ssm", "parameters": ["a2", "a3"],
...     "A": [[["1"]], [["a2"]], [["a3"]]], "B": [[["1"]]] * 3, "C": [[["2"]]] * 3})
>>> cert = parametric_interaction_data(layer)
>>> cert["kind"], cert["interaction_rank"], cert["complete"], len(cert["bodies"])
('parametric-interaction-rank', 1, True, 1)
"""

from ..errors import InputError
from ..formats.limits import MAX_CASES
from ..exact.layerfamily import block_order, interaction_bodies
from ..sources.parametric_layers import ParametricLayer
from .envelope import header, within_limits
from .parametric import body_links

__all__ = ["parametric_interaction_data"]


def _body(body, order):
    sub, factors = body_links(body)
    upper = {"dimension": body.dimension}
    if not body.dimension:
        upper["coefficients"] = [{"block": list(order[b]), "q": q, "p": list(ps)} for b, q, ps in body.coefficients]
    return {
        "parameters": list(body.system.parameters),
        "substitution": sub,
        "entries": {key: [[list(pair) for pair in row] for row in rows] for key, rows in body.entries.items()},
        "denominator": body.denominator,
        "interaction_rank": body.head_count,
        "lower_bound": {"blocks": [list(order[b]) for b in body.lags], "positions": [list(rc) for rc in body.positions],
                        "minor": [list(row) for row in body.minor], "determinant": body.determinant},
        "upper_bound": upper,
        "factors": factors,
        "complete": body.complete,
    }


def parametric_interaction_data(layer, *, max_cases=MAX_CASES):
    """The certificate's JSON data for the interaction rank of a layer with parameters, for every input.

    Parameters
    ----------
    layer : ParametricLayer
        The layer (:mod:`symssm.sources.parametric_layers`).
    max_cases : int
        Most bodies (the generic one and each case of the exceptional set); a case factor beyond it is left
        uncovered, and the certificate says it is not complete.

    Returns
    -------
    dict
        The JSON data of a ``parametric-interaction-rank`` certificate.

    Raises
    ------
    InputError
        If ``layer`` is not a :class:`~symssm.sources.parametric_layers.ParametricLayer`, or the layer
        cannot be analysed (:func:`~symssm.exact.layerfamily.interaction_bodies`).
    LimitError
        If a polynomial grows beyond the limits shared with the checker.
    """
    if not isinstance(layer, ParametricLayer):
        raise InputError(f"expected a ParametricLayer, got {type(layer).__name__}")
    bodies = interaction_bodies(layer, max_cases=max_cases)
    order = block_order(layer)
    data = header("parametric-interaction-rank", layer)
    data["system"] = layer.system_json()
    data.update({
        "interaction_rank": bodies[0].head_count,
        "complete": bodies[0].complete,
        "bodies": [_body(b, order) for b in bodies],
    })
    return within_limits(data)
