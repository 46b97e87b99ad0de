"""Build certificates of trained layers' eps-head counts (kind ``"trained-head-count"``) as JSON data.

The layer's parameters (exact dyadic rationals), the surrogate of its lags with the radius and tail
the checker proves, the surrogate's brackets with their witnesses, and the layer's brackets
(:mod:`symssm.exact.trained`).

Examples
--------
>>> import numpy as np
>>> from symssm.sources.checkpoints import CheckpointLayer
>>> from symssm.sources.trained import trained_layer
>>> t = {"kernel.log_dt": np.log(np.float32([0.5])), "kernel.log_A_real": np.log(np.full((1, 1), 0.5, np.float32)),
...      "kernel.A_imag": np.zeros((1, 1), np.float32), "kernel.C": np.ones((1, 1, 2), np.float32)}
>>> data = trained_data(trained_layer(CheckpointLayer("l", "s4d", t), "m.npz"), 32, "1/100")
>>> data["kind"], data["head_count"], data["surrogate"]["lags"], [e["H"] for e in data["errors"]]
('trained-head-count', 1, 32, [0, 1])
"""

from ..exact.trained import trained_brackets
from ..formats.limits import check_n
from ..formats.rationals import format_rational, parse_tolerance
from .approximate import bracket_json
from .envelope import header, within_limits

__all__ = ["trained_data"]


def trained_data(layer, n, tolerance):
    """The certificate's JSON data for the eps-head count of a trained layer on length ``n``.

    Parameters
    ----------
    layer : TrainedLayer
        A trained S4D / S5 / LRU layer with exact dyadic parameters (:func:`~symssm.sources.trained.trained_layer`).
    n : int
        The sequence length.
    tolerance : Tolerance, Fraction or str
        The relative error, in (0, 1) (never a binary float).

    Returns
    -------
    dict
        The JSON data of a ``trained-head-count`` certificate.

    Raises
    ------
    InputError
        If ``n`` or the tolerance is invalid.
    LimitError
        If the layer is beyond the limits, or its surrogate cannot decide at this tolerance.
    """
    n = check_n(n, minimum=1)
    tol = parse_tolerance(tolerance, floats=False)  # read once at the boundary: a Tolerance passes through
    out = trained_brackets(layer, n, tol)
    data = header("trained-head-count", layer)
    data.update({
        "n": n, "tolerance": format_rational(tol), "head_count": out["head_count"], "undecided_at": out["undecided"],
        "surrogate": {"lags": out["lags"], "scale_bits": out["scale_bits"],
                      "kernel": [[str(x) for x in row] for row in out["kernel"]],
                      "radius": format_rational(out["radius"]), "tail": format_rational(out["tail"]),
                      "relative_distance": format_rational(out["relative_distance"])},
        "surrogate_errors": [bracket_json(e) for e in out["surrogate_errors"]],
        "errors": [{"H": e["H"], "lower": format_rational(e["lower"]), "upper": format_rational(e["upper"])}
                   for e in out["errors"]],
    })
    return within_limits(data)
