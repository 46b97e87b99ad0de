"""Build head-count certificates (the ``"head-count"`` kind, version 1) as JSON data.

Examples
--------
>>> from symssm.sources.system import ssm
>>> cert = certify(ssm([[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[1], [0], [0]], [[0, 0, 1]]), 10**18)
>>> cert["head_count"], cert["profile"]["values"], cert["holds_for"]
(1, [0, 0, 1], {'from': 3, 'to': None})
"""

from ..exact.headcount import find_witness
from ..formats.limits import check_n
from ..formats.rationals import format_rational
from .envelope import header, within_limits

__all__ = ["certify", "head_count_data", "HEADS_RULE"]

#: The construction rule of format version 1 (the checker compares it literally).
HEADS_RULE = "alpha^h_ij = c_(i-j),h for j <= i and 0 for j > i, with V_h = L_(d_h)"


def _mat(mat):
    return [[format_rational(x) for x in row] for row in mat]


def head_count_data(witness, n, system=None):
    """The certificate's JSON data for ``k(n)`` from a :class:`~symssm.exact.headcount.HeadCountWitness`.

    Parameters
    ----------
    witness : HeadCountWitness
        The lower-bound minor and the coefficients of every lag (:func:`~symssm.exact.headcount.find_witness`).
    n : int
        The sequence length (already validated).
    system : SSM, optional
        Supplies the name (default ``witness.system``): witnesses are cached by the system's matrices, so a
        cached witness may carry another name.

    Returns
    -------
    dict
        The JSON data of a ``head-count`` certificate (not yet held to the digit limit: see :func:`certify`).
    """
    system = witness.system if system is None else system
    pr = witness.profile()
    k = witness.head_count(n)
    n0, n1 = pr.holds_for(n)
    lower = {
        "method": witness.method,
        "lags": list(witness.lags),
        "positions": [list(rc) for rc in witness.positions],
        "prime": witness.prime,
    }
    if witness.method == "exact":
        lower["minor"] = _mat(witness.minor)
        lower["determinant"] = format_rational(witness.determinant)
    else:
        lower["determinant_mod_p"] = witness.determinant_mod_p
    coefficients = [
        {"lag": d, "c": [format_rational(c) for c in witness.coefficients[d]]}
        for d in sorted(witness.coefficients)
    ]
    K, pm = witness.rank, system.p * system.m
    covered = witness.lags[-1] + 1 if (K == pm and K > 0) else None
    heads = {
        "H": k,
        "value_map_lags": list(witness.lags[:k]),
        "rule": HEADS_RULE,
    }
    if witness.value_maps is not None:
        heads["value_maps"] = [_mat(V) for V in witness.value_maps[:k]]
    return {
        **header("head-count", system),
        "n": n,
        "head_count": k,
        "truncation": system.truncation,
        "lower_bound": lower,
        "upper_bound": {"coefficients": coefficients, "dimension_from_lag": covered},
        "heads": heads,
        "profile": {"values": list(pr.values), "constant_from": pr.constant_from, "eventual": pr.eventual},
        "holds_for": {"from": n0, "to": n1},
        "interaction_rank_gap": [{"H": H, "minor_order": H + 1} for H in range(k)],
    }


def certify(system, n=None, *, method="auto", max_seconds=None):
    """Certify the head count ``k(n)`` of a system.

    Parameters
    ----------
    system : SSM
    n : int, optional
        Sequence length; default the truncation length ``T`` (where ``k`` has
        reached its final value).
    method : {"auto", "exact", "modular"}
    max_seconds : float, optional
        Budget; :class:`~symssm.errors.BudgetExceeded` past it.

    Returns
    -------
    dict
        The certificate's JSON data (:func:`symssm.certify` wraps it in a
        :class:`~symssm.api.Certificate`).

    Raises
    ------
    InputError
        If ``n``, the system or the method is not valid.
    BudgetExceeded
        If ``max_seconds`` runs out.
    """
    n = system.truncation if n is None else check_n(n, minimum=1)
    witness = find_witness(system, method=method, max_seconds=max_seconds)
    return within_limits(head_count_data(witness, n, system))
