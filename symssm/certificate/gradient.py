"""Build ``gradient-highway`` certificates (format version 1) as JSON data.

Examples
--------
>>> from symssm.sources.system import ssm
>>> data = gradient_data(ssm([["1/2", 0], [0, "1/3"]], [[1], [1]], [[1, 1]]), 1000)
>>> data["crossover_distance"], data["decay_rate"]
(6, '101/200')
"""

from ..errors import InputError, LimitError
from ..formats.limits import Deadline, check_n
from ..formats.rationals import format_rational
from ..gradient.attention import attention_highway
from ..gradient.crossover import crossover_distance
from ..gradient.decay import decay_bound, format_estimate
from ..gradient.graph import attention_path_lengths, ssm_path_lengths
from ..sources.system import SSM
from .envelope import header, within_limits

__all__ = ["gradient_data", "GRAPH_N", "MAX_GRADIENT_N"]

#: Length of the computation graphs whose path lengths the certificate records.
GRAPH_N = 12
#: Largest sequence length of a gradient certificate (the checker has the same limit).
MAX_GRADIENT_N = 10**12
#: Sizes the checker's exact definiteness tests accept (bits over a common denominator; the checker
#: applies the same numbers, so the generator never writes what it would refuse).
MAX_P_BITS = 33_220
MAX_A_BITS = 33_220


def _integer_bits(mat, cap):
    """Bits of a Fraction matrix over its common denominator (``cap + 1`` as soon as it is over ``cap``)."""
    from math import lcm

    den = 1
    for row in mat:
        for x in row:
            if den % x.denominator:
                den = lcm(den, x.denominator)
                if den.bit_length() > cap:
                    return cap + 1
    num = max((abs(x.numerator * (den // x.denominator)).bit_length() for row in mat for x in row), default=0)
    return (den - 1).bit_length() + num


def _mat(rows):
    return [[format_rational(x) for x in row] for row in rows]


def gradient_data(system, n=1000, *, max_seconds=None):
    """Certify the gradient highway trade-off for a stable SSM on sequences of length ``n``.

    Parameters
    ----------
    system : SSM
    n : int
        Sequence length (>= 2) for which the attention lower bound is proved.

    Returns
    -------
    dict
        The JSON data of a ``"gradient-highway"`` certificate (:func:`symssm.gradient_certificate`
        wraps it in a :class:`~symssm.api.Certificate`).

    Raises
    ------
    InputError
        If ``system`` is not an SSM or ``n`` is not an integer in ``[2, 10^12]``.
    LimitError
        If A, or the Lyapunov matrix P found, is over the size the checker's exact tests accept.
    NotStableError
        If A's spectral radius is >= 1 (then no decay certificate exists; the message says why).
    BudgetExceeded
        If ``max_seconds`` runs out.
    """
    if not isinstance(system, SSM):
        raise InputError(f"expected an SSM, got {type(system).__name__}")
    check_n(n, what="n", minimum=2, maximum=MAX_GRADIENT_N)
    if _integer_bits(system.A, MAX_A_BITS) > MAX_A_BITS:
        raise LimitError(f"A's entries over a common denominator need more than {MAX_A_BITS} bits; a gradient "
                         "certificate's exact tests (shared with the checker) stop there")
    bound = decay_bound(system, deadline=Deadline(max_seconds))
    if _integer_bits(bound.P, MAX_P_BITS) > MAX_P_BITS:
        raise LimitError(f"the Lyapunov matrix P would need more than {MAX_P_BITS} bits over a common denominator; "
                         "the limit (shared with the checker) keeps its exact tests bounded")
    hw = attention_highway(system.p, system.m, n)
    delta = crossover_distance(bound.K2, bound.r, hw.c, n)
    data = {
        **header("gradient-highway", system),
        "n": n,
        "decay_rate": format_rational(bound.r),
        "decay_constant_squared": format_rational(bound.K2),
        "spectral_radius_estimate": format_estimate(bound.spectral_radius_upper),
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
        "computation_graph": {"n": GRAPH_N,
                              "ssm_path_edges": ssm_path_lengths(GRAPH_N, feedthrough=system.has_D),
                              "attention_path_edges": attention_path_lengths(GRAPH_N)},
    }
    return within_limits(data)
