"""One-line statements of verified certificates, and the counts they prove (rows of certificate/kinds.py).

``symssm audit`` (:mod:`symssm.audit`) writes a certificate's statement in its report and compares numbers
written in a paper's prose with :func:`values`.

Examples
--------
>>> statement({"kind": "interaction-rank", "interaction_rank": 2, "system": {"kind": "convolution", "n": 6}})
'r = 2 (convolution, n = 6)'
>>> sorted(values({"kind": "interaction-rank", "interaction_rank": 2}))
[2]
"""

from ..certificate import kinds
from ..errors import InputError

__all__ = ["statement", "values", "head_count_statement", "interaction_statement", "family_statement",
           "approximate_statement", "gradient_statement", "head_count_values", "interaction_values", "family_values"]


def statement(data):
    """What a verified certificate proves, in one plain line (for the report; empty for an unknown kind).

    Examples
    --------
    >>> statement({"kind": "interaction-rank", "interaction_rank": 2, "system": {"kind": "convolution", "n": 6}})
    'r = 2 (convolution, n = 6)'
    """
    try:
        row = kinds.of(data)
    except InputError:
        return ""
    return row.load("statement")(data)


def head_count_statement(data):
    """``k(n) = K for RANGE``: a head count and the lengths it holds for."""
    hf = data["holds_for"]
    rng = f"n >= {hf['from']}" if hf["to"] is None else (f"n = {hf['from']}" if hf["from"] == hf["to"]
                                                           else f"{hf['from']} <= n <= {hf['to']}")
    return f"k(n) = {data['head_count']} for {rng}"


def interaction_statement(data):
    """``r = R (LAYER, n = N)``: an interaction rank on one input."""
    return f"r = {data['interaction_rank']} ({data['system']['kind']}, n = {data['system']['n']})"


def family_statement(data):
    """``k(n) = K generically, ... in special cases``: a count for every parameter value (a family, a layer)."""
    key = kinds.of(data).count
    other = sorted({b.get(key) for b in data["bodies"][1:]} - {data[key]})
    sym = "k(n)" if key == "head_count" else "r"
    return (f"{sym} = {data[key]} generically" + (f", {', '.join(map(str, other))} in special cases" if other
                                                  else "") + ("" if data["complete"] else " (not complete)"))


def approximate_statement(data):
    """``k_eps = K at eps = EPS``: an eps-head count (of a system or a trained layer), or that it is undecided."""
    k = data["head_count"]
    return f"k_eps = {k} at eps = {data['tolerance']}" if k is not None else \
        f"k_eps undecided at eps = {data['tolerance']}"


def gradient_statement(data):
    """``decay rate r = R, crossover distance D``: a gradient-highway certificate."""
    delta = data["crossover_distance"]
    return f"decay rate r = {data['decay_rate']}, crossover distance {delta if delta is not None else 'none'}"


def values(data, n=None):
    """The counts a certificate proves for its system (at length ``n`` when given), or None when they are not head
    counts or ranks (a gradient, an eps-head count)."""
    try:
        row = kinds.of(data)
    except InputError:
        return None
    return None if row.values is None else row.load("values")(data, n)


def head_count_values(data, n=None):
    """A head count's values: at length ``n``, else every value of its profile and the one the theorem states."""
    prof = data["profile"]
    if n is not None:
        return {prof["values"][n - 1] if n <= len(prof["values"]) else prof["eventual"]} if n >= 1 else None
    return set(prof["values"]) | {prof["eventual"], data["head_count"]}


def interaction_values(data, n=None):
    """An interaction rank's value."""
    return {data["interaction_rank"]}


def family_values(data, n=None):
    """A count for every parameter value: the values of its cases."""
    key = kinds.of(data).count
    return {b[key] for b in data["bodies"]}
