"""Build ``gradient-highway`` certificates as JSON data (format version 2: ``P - mu I`` factored).

Version 2 (:mod:`symssm.gradient.factored`) replaced version 1's rational ``P`` with ``U``, ``D`` and
``mu`` such that ``P = U^T diag(D) U + mu I``, and the weights ``w`` of ``P``'s upper bound ``M``: the
checker verifies it with products and passes over matrices, with no characteristic polynomial.
Certificates of version 1 are still verified by the checker; symssm writes version 2.

Examples
--------
>>> from symssm.sources.system import ssm
>>> data = gradient_data(ssm([["1/2", 0], [0, "1/3"]], [[1], [1]], [[1, 1]]), 1000)
>>> data["version"], data["crossover_distance"], data["decay_rate"], sorted(data["lyapunov"])
(2, 6, '101/200', ['D', 'M', 'U', 'mu', 'weights'])
"""

from ..errors import InputError, LimitError
from ..formats.limits import MAX_DIGITS, Deadline, check_n
from ..formats.rationals import format_rational
from ..gradient.attention import attention_highway
from ..gradient.crossover import crossover_distance
from ..gradient.decay import format_estimate
from ..gradient.factored import decay_witness, dyadic_bits
from ..gradient.graph import attention_path_lengths, ssm_path_lengths
from ..sources.system import SSM
from .envelope import header, within_limits

__all__ = ["gradient_data", "GRAPH_N", "MAX_GRADIENT_N", "GRADIENT_VERSION", "MAX_DECAY_WORK", "decay_work"]

#: The format version of the gradient certificates symssm writes (the checker also reads version 1).
GRADIENT_VERSION = 2

#: Length of the computation graphs whose path lengths the certificate records.
GRAPH_N = 12
#: Largest sequence length of a gradient certificate (the checker has the same limit).
MAX_GRADIENT_N = 10**12
#: Sizes the checker's exact definiteness tests accept (bits over a common denominator; the checker
#: applies the same numbers, so the generator never writes what it would refuse).
MAX_P_BITS = 33_220
MAX_A_BITS = 33_220
#: Most word operations the checker's products of a version-2 decay witness may cost, ``N^3 (wU + wD + wmu + wA)^2``
#: with ``w`` the 64-bit words of each over its common denominator (HiPPO-LegS at N = 96: about 1.2e8; the
#: checker has the same bound, so the generator never writes a certificate it would refuse).
MAX_DECAY_WORK = 10**10


def decay_work(N, *bits):
    """The checker's cost estimate of a version-2 decay witness: ``N^3`` times the squared sum of the words.

    Parameters
    ----------
    N : int
        The state dimension.
    *bits : int
        The bits of ``U``, ``D``, ``mu`` and ``A``, each over its common denominator.

    Returns
    -------
    int
        Word operations, compared with :data:`MAX_DECAY_WORK`.

    Examples
    --------
    >>> decay_work(96, 130, 200, 20, 330)
    173408256
    """
    return N ** 3 * sum(-(-b // 64) for b in bits) ** 2


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
        A time-invariant system with rational entries.
    n : int
        Sequence length (>= 2) for which the attention lower bound is proved.
    max_seconds : float, optional
        Budget of the decay search.

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
    a_bits = _integer_bits(system.A, MAX_A_BITS)
    if a_bits > MAX_A_BITS:
        raise LimitError(f"A's entries over a common denominator need more than {MAX_A_BITS} bits; a gradient "
                         "certificate's exact tests (shared with the checker) stop there")
    bound = decay_witness(system, deadline=Deadline(max_seconds))
    N = system.N
    sizes = [dyadic_bits([bound.L[j][i] for i in range(N) for j in range(N)], bound.W), dyadic_bits(bound.d, bound.W),
             _integer_bits([[bound.mu]], MAX_P_BITS), _integer_bits([bound.weights], MAX_P_BITS)]
    if max(sizes) > MAX_P_BITS:
        raise LimitError(f"the Lyapunov factors U and D would need more than {MAX_P_BITS} bits over a common "
                         "denominator; the limit (shared with the checker) keeps its exact products bounded")
    work = decay_work(N, sizes[0], sizes[1], sizes[2], a_bits)
    if work > MAX_DECAY_WORK:
        raise LimitError(f"checking this decay witness would cost about {work} word operations; the limit "
                         f"(shared with the checker) is {MAX_DECAY_WORK}")
    hw = attention_highway(system.p, system.m, n)
    delta = crossover_distance(bound.K2, bound.r, hw.c, n)
    data = {
        **header("gradient-highway", system),
        "version": GRADIENT_VERSION,
        "n": n,
        "decay_rate": format_rational(bound.r),
        "decay_constant_squared": format_rational(bound.K2),
        "spectral_radius_estimate": format_estimate(bound.spectral_radius_upper),
        "lyapunov": {"U": bound.U_text, "D": bound.D_text,
                     "mu": format_rational(bound.mu), "M": format_rational(bound.M),
                     "weights": [format_rational(x) for x in bound.weights]},
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
    # every number but the factors' is walked; the factors are dyadic, and their bits (checked above, at most
    # MAX_P_BITS over their common denominator) bound the digits of each numerator and denominator
    within_limits({k: v for k, v in data.items() if k != "lyapunov"} | {"lyapunov": {
        k: v for k, v in data["lyapunov"].items() if k not in ("U", "D")}})
    if max(sizes[:2]) >= MAX_DIGITS / 0.30103 - 1:  # a number of that many bits may have more digits
        raise LimitError(f"the Lyapunov factors would hold numbers of more than {MAX_DIGITS} digits; the checker's "
                         "limit (no certificate is written)")
    return data
