"""Build ``gradient-highway`` certificates (format version 1).

Examples
--------
>>> from symssm import ssm
>>> cert = gradient_certificate(ssm([["1/2", 0], [0, "1/3"]], [[1], [1]], [[1, 1]]), 1000)
>>> cert["crossover_distance"], cert.check().verified
(6, True)
"""

from fractions import Fraction
from math import ceil, log

from .._version import __version__
from ..budget import Deadline
from ..certificate import FORMAT, VERSION, Certificate
from ..certification import system_json
from ..errors import InputError
from ..rationals import format_rational
from ..system import SSM, system_sha256
from .attention import attention_highway
from .decay import decay_bound
from .graph import attention_path_lengths, ssm_graph

__all__ = ["gradient_certificate", "crossover_distance", "GRAPH_N", "MAX_CROSSOVER"]

#: Length of the computation graphs whose path lengths the certificate records.
GRAPH_N = 12
#: Crossover distances beyond this are not certified (reported as null).
MAX_CROSSOVER = 100_000


def _log(x):
    x = Fraction(x)
    return log(x.numerator) - log(x.denominator)


def crossover_distance(K2, r, c, n):
    """Least ``delta >= 1`` with ``K^2 r^(2 delta) < c^2``, if it is at most ``min(n - 1, MAX_CROSSOVER)``."""
    c2 = c * c
    limit = min(n - 1, MAX_CROSSOVER)
    if limit < 1:
        return None
    guess = max(1, ceil((_log(K2) - _log(c2)) / (2 * -_log(r))))
    delta = max(1, guess - 2)
    if delta > limit:
        return None
    while K2 * r ** (2 * delta) >= c2:
        delta += 1
        if delta > limit:
            return None
    while delta > 1 and K2 * r ** (2 * (delta - 1)) < c2:
        delta -= 1
    return delta


def _mat(rows):
    return [[format_rational(x) for x in row] for row in rows]


def _graph_lengths(system):
    import networkx as nx

    G = ssm_graph(GRAPH_N, feedthrough=system.has_D)
    ssm = [nx.shortest_path_length(G, ("x", 1), ("y", 1 + d)) for d in range(GRAPH_N)]
    return ssm, attention_path_lengths(GRAPH_N)


def gradient_certificate(system, n=1000, *, max_seconds=None):
    """Certify the gradient highway trade-off for a stable SSM on sequences of length ``n``.

    Parameters
    ----------
    system : SSM
    n : int
        Sequence length (>= 2) for which the attention lower bound is proved.

    Returns
    -------
    Certificate
        Kind ``"gradient-highway"``.

    Raises
    ------
    NotStableError
        If A's spectral radius is >= 1 (then no decay certificate exists; the message says why).
    """
    if not isinstance(system, SSM):
        raise InputError(f"expected an SSM, got {type(system).__name__}")
    if isinstance(n, bool) or not isinstance(n, int) or n < 2:
        raise InputError(f"n must be an integer >= 2 for a gradient certificate, got {n!r}")
    if n > 10**12:
        raise InputError(f"n must be at most 10^12 for a gradient certificate, got {n}")
    bound = decay_bound(system, deadline=Deadline(max_seconds))
    hw = attention_highway(system.p, system.m, n)
    delta = crossover_distance(bound.K2, bound.r, hw.c, n)
    ssm_paths, att_paths = _graph_lengths(system)
    data = {
        "format": FORMAT,
        "version": VERSION,
        "kind": "gradient-highway",
        "generator": f"symssm {__version__}",
        "system": system_json(system),
        "input_sha256": system_sha256(system),
        "n": n,
        "decay_rate": format_rational(bound.r),
        "decay_constant_squared": format_rational(bound.K2),
        "spectral_radius_estimate": f"{bound.spectral_radius_estimate:.6g}",
        "lyapunov": {"P": _mat(bound.P), "mu": format_rational(bound.mu), "M": format_rational(bound.M)},
        "attention": {
            "construction": "single-head-softmax-v1",
            "beta": format_rational(hw.beta),
            "taylor_terms": hw.taylor_terms,
            "W_Q": _mat(hw.W_Q),
            "W_K": _mat(hw.W_K),
            "W_V": _mat(hw.W_V),
            "query_token": [format_rational(x) for x in hw.query_token],
            "key_token": [format_rational(x) for x in hw.key_token],
            "bound_interval": list(hw.c_interval),
        },
        "attention_lower_bound": format_rational(hw.c),
        "crossover_distance": delta,
        "computation_graph": {"n": GRAPH_N, "ssm_path_edges": ssm_paths, "attention_path_edges": att_paths},
    }
    return Certificate(data)
