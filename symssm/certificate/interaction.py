"""Build interaction-rank certificates (kind ``"interaction-rank"``) for layers of the unified framework.

The claim: for the layer with its given input, ``r = dim span{W_ij}`` over the blocks considered
(every ``j <= i`` for causal layers; the listed pairs for an ``operator``).  Hence an H-head
factorized model ``W_ij = sum_h alpha^h_ij V_h`` represents the layer on this input if and only if
``H >= r``: the witness minor refutes every ``H < r``, and the certificate's coefficients give the
``H = r`` model (value maps ``V_h = W_(b_h)``, input-specific coefficients ``alpha``).

Examples
--------
>>> from symssm.sources.layers import mamba2_scalar_gate
>>> data = interaction_data(mamba2_scalar_gate(["1/2", "1/3", "2"], [[1], [2]], [[1, 1]]))
>>> data["kind"], data["interaction_rank"]
('interaction-rank', 1)
"""

from ..errors import InputError, LimitError
from ..exact.interaction import interaction_witness
from ..formats.rationals import format_rational
from ..sources import layer_kinds
from ..sources.layers import Layer
from .envelope import header, within_limits

__all__ = ["interaction_data", "INTERACTION_RULE"]

#: The construction rule of format version 1 (the checker compares it literally).
INTERACTION_RULE = ("W_ij = sum_h alpha^h_ij V_h with V_h = W at the h-th witness block; alpha^h_ij = 1 if (i,j) is "
                    "that block, the listed coefficient for a listed block, 0 otherwise")


def _mat(M):
    return [[format_rational(x) for x in row] for row in M]


def interaction_data(layer, *, max_seconds=None):
    """The certificate's JSON data for the interaction rank of a layer on its input.

    Parameters
    ----------
    layer : Layer
        A layer of the unified framework (:mod:`symssm.sources.layers`); softmax attention goes to
        :func:`~symssm.certificate.softmax.softmax_data`.
    max_seconds : float, optional
        Accepted for the common builder signature; the work is bounded by the layer's limits.

    Returns
    -------
    dict
        The JSON data of an ``interaction-rank`` certificate.

    Raises
    ------
    InputError
        If ``layer`` is not a :class:`~symssm.sources.layers.Layer` of an exact kind.
    LimitError
        If a number would exceed the checker's digit limit, or checking the identities its work limit.
    """
    if not isinstance(layer, Layer):
        raise InputError(f"expected a Layer, got {type(layer).__name__}")
    own = layer_kinds.of(layer.kind).load("certificate")
    if own is not None:  # a kind with a certificate of its own (softmax attention's enclosures)
        return own(layer)
    w = interaction_witness(layer)
    r = w.rank
    pivots = [list(w.blocks[b][0]) for b in w.pivots]
    coefficients = [{"block": list(w.blocks[idx][0]), "c": [format_rational(x) for x in c]}
                    for idx, c in sorted(w.coefficients.items())]
    from ..sources.layers import MAX_LAYER_WORK

    identity_work = sum(len(row["c"]) for row in coefficients) * layer.p * layer.m
    if identity_work > MAX_LAYER_WORK:  # the checker refuses the same (its cost limit)
        raise LimitError(f"checking this layer's {len(coefficients)} coefficient identities takes {identity_work} "
                         f"multiply-adds; the limit (shared with the checker) is {MAX_LAYER_WORK}")
    return within_limits({
        **header("interaction-rank", layer),
        "interaction_rank": r,
        "lower_bound": {"method": "exact", "blocks": pivots, "positions": [list(rc) for rc in w.positions],
                        "minor": _mat(w.minor), "determinant": format_rational(w.determinant)},
        "upper_bound": {"coefficients": coefficients},
        "heads": {"H": r, "value_map_blocks": pivots, "value_maps": [_mat(w.blocks[b][1]) for b in w.pivots],
                  "rule": INTERACTION_RULE},
        "interaction_rank_gap": [{"H": H, "minor_order": H + 1} for H in range(r)],
    })
