"""Interaction-rank certificates for softmax attention (``lower_bound.method = "interval"``).

The claim ``r = dim span{W_ij}`` rests on two obligations the checker redoes: ``r`` is the exact rank
of the value maps ``{V_h}`` (every block lies in their span: the upper bound), and a minor of ``r``
blocks at ``r`` entry positions has a determinant whose interval enclosure, computed with the stated
precision and Taylor terms, excludes zero (the lower bound).
"""

from ..exact.softmax import PRECISION_BITS, TAYLOR_TERMS, softmax_witness
from ..exact.convert import qq_matrix
from .envelope import header, within_limits

__all__ = ["softmax_data", "SOFTMAX_RULE"]

#: The construction rule for softmax attention (format version 1; the checker compares it literally).
SOFTMAX_RULE = ("W_ij = sum_h a^h_ij V_h lies in span{V_h}; an r-head model takes the listed value maps as its "
                "V_h and the softmax weights, re-expressed in that basis, as its input-dependent coefficients")


def softmax_data(layer):
    """The certificate data of a softmax-attention layer's interaction rank.

    Parameters
    ----------
    layer : Layer
        A ``softmax-attention`` layer.

    Returns
    -------
    dict
        The JSON data of an ``interaction-rank`` certificate whose lower bound is an interval enclosure of a
        minor's determinant that excludes zero.

    Raises
    ------
    CertificateError
        If the rank cannot be decided with a certified minor.
    LimitError
        If the value maps' rank exceeds the limit for softmax certificates.
    """
    r, blocks, positions = softmax_witness(layer)
    heads = layer.param("heads")
    basis = list(qq_matrix([[x for row in V for x in row] for _, _, V in heads]).transpose().rref()[1])
    return within_limits({
        **header("interaction-rank", layer),
        "interaction_rank": r,
        "lower_bound": {"method": "interval", "blocks": [list(b) for b in blocks],
                        "positions": [list(p) for p in positions], "precision_bits": PRECISION_BITS,
                        "taylor_terms": TAYLOR_TERMS},
        "upper_bound": {"value_maps_rank": r},
        "heads": {"H": r, "value_map_blocks": [list(b) for b in blocks], "value_map_heads": basis,
                  "rule": SOFTMAX_RULE},
        "interaction_rank_gap": [{"H": H, "minor_order": H + 1} for H in range(r)],
    })
