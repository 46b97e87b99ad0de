"""What a verified certificate claims, as data: one :class:`Claim` per certificate, and its plain-text forms.

A statement is data before it is text.  :func:`claim` reads a verified certificate into a small immutable
:class:`Claim`: the class of models it is about (value maps over which field, coefficients that may depend on
the input or only on ``i - j``), the relation it proves (the interaction operator, and for which coefficients
the map itself), the quantifiers (the lengths, "this input", "every input", "every parameter value" or
"generically, outside a certified exceptional set") and the value, or the value of every case.  The theorem
sentences of the LaTeX fragments, the sentence macros, the command line's summary, the audit's one-line
statement (:func:`statement`) and its JSON (:meth:`Claim.to_json`) are rendered from it, so that no text says
more than the certificate proves.

Two readings of "an ``H``-head model represents the SSM" are kept apart (docs/theory.md, "Operator and
map"): the interaction operator, ``W_ij(X) = L_{i-j}`` for every input ``X`` (the head-count theorem, with
coefficients that may depend on the input), and the map, ``sum_j W_ij(X) x_j = y_i`` for every input.
Necessity for the map follows from necessity for the operator only with coefficients that do not depend on
the input, or when ``p = 1`` or ``m = 1`` (:func:`map_necessity`); with ``p, m >= 2`` and input-dependent
coefficients two heads can compute maps whose head count is larger.

Examples
--------
>>> statement({"kind": "interaction-rank", "interaction_rank": 2, "system": {"kind": "convolution", "n": 6}})
'r = 2 (convolution, n = 6)'
>>> sorted(values({"kind": "interaction-rank", "interaction_rank": 2}))
[2]
>>> map_necessity(2, 2), map_necessity(1, 3), map_necessity(3, 1)
('input-independent', 'any', 'any')
"""

from dataclasses import dataclass
from typing import Optional

from ..certificate import kinds
from ..errors import InputError

__all__ = ["Claim", "claim", "map_necessity", "statement", "values", "head_count_statement", "interaction_statement",
           "family_statement", "approximate_statement", "gradient_statement", "head_count_values",
           "interaction_values", "family_values", "every_input_text", "every_input_tex"]

#: Map-level necessity: for every coefficient (``p = 1`` or ``m = 1``), or only for coefficients that do not depend
#: on the input (``p, m >= 2``).
ANY, INDEPENDENT = "any", "input-independent"


def map_necessity(p, m):
    """For which coefficients ``H >= k`` is necessary for the map itself, not only for the interaction operator.

    With coefficients that do not depend on the input, equal maps have equal operators (feed impulses), so
    necessity holds for every ``p, m``.  With input-dependent coefficients it holds when ``m = 1`` (every output
    lies in ``span{V_h}``, and impulses give the lags) and when ``p = 1`` (the lags vanish on the common kernel of
    the ``V_h``, so they lie in their span), and fails in general when ``p, m >= 2``.

    Parameters
    ----------
    p, m : int
        The output and input dimensions.

    Returns
    -------
    str
        ``"any"`` (necessity for the map with any coefficients) or ``"input-independent"``.

    Examples
    --------
    >>> map_necessity(1, 1), map_necessity(2, 3)
    ('any', 'input-independent')
    """
    return ANY if p == 1 or m == 1 else INDEPENDENT


@dataclass(frozen=True)
class Claim:
    """One certificate's claim, as data.

    Parameters
    ----------
    kind : str
        The certificate's kind (``"head-count"``, ``"interaction-rank"``, ...).
    symbol : str
        The count claimed, as plain text: ``"k(n)"``, ``"r"``, ``"k_eps"``; ``""`` for a gradient highway.
    value : int or None
        The count stated for the whole claim: the only value, or the generic one; None where none is claimed
        (an undecided eps-head count, a gradient highway).
    field : str
        The field of the value maps (and of the inputs): ``"Q"``, ``"Q(i)"``, ``"C"`` (families and layers with
        parameters, ranks over the complex numbers) or ``"R"`` (the eps-head count's real best approximation).
    p, m : int or None
        The output and input dimensions.
    coefficients : str
        The class's coefficients ``alpha^h_ij``: ``"input-dependent"`` (they may depend on the input) or
        ``"lag"`` (fixed, depending on ``i - j`` only: the eps-head count's class).
    relation : str
        What the count is about: ``"interaction operator"`` (exact counts), ``"approximation"`` (the best
        relative Frobenius error of the operator) or ``"gradient bounds"``.
    map_necessity : str or None
        For a head count: ``"any"`` when ``H >= value`` is necessary for the map itself whatever the
        coefficients, ``"input-independent"`` when only for coefficients that do not depend on the input; None
        where only the interaction operator is claimed (interaction ranks, eps-head counts).
    lengths : tuple
        ``(from, to)`` of the lengths it holds for (``to`` None: every length from ``from`` on); or ``(n, n)``.
    inputs : str
        ``"every input"`` (the operator does not depend on the input), ``"this input"`` (one input), or
        ``"every input (parameters)"`` (a layer whose input-dependent quantities are the parameters).
    parameters : str
        ``"none"`` (no parameters), ``"every"`` (every case has ``value``) or ``"generic"`` (``value`` off a
        certified exceptional set; the cases give the others).
    cases : tuple of int
        The values of the certificate's cases (sorted, distinct); ``(value,)`` without parameters.
    complete : bool
        Whether every point where the system is defined lies in a case (no uncovered factor).
    tolerance : str, optional
        The eps-head count's tolerance.
    layer : str, optional
        An interaction rank's layer kind.
    decay_rate, crossover : optional
        A gradient highway's certified rate and the least distance where its certified bounds cross (None: none).
    """

    kind: str
    symbol: str
    value: Optional[int]
    field: str
    p: Optional[int]
    m: Optional[int]
    coefficients: str
    relation: str
    map_necessity: Optional[str]
    lengths: tuple
    inputs: str
    parameters: str = "none"
    cases: tuple = ()
    complete: bool = True

    @property
    def everywhere(self):
        """Whether ``value`` holds at every point claimed (no other case), so "for every X" may print it bare."""
        return self.parameters != "generic"

    @property
    def at_most(self):
        """The largest value of any case (``value`` itself where there are no parameters)."""
        return max(self.cases) if self.cases else self.value

    def to_json(self):
        """The claim as a JSON object (``symssm audit --json``).

        Examples
        --------
        >>> claim({"kind": "interaction-rank", "interaction_rank": 1, "system": {"kind": "operator", "n": 2, "p": 1,
        ...        "m": 1, "name": "", "blocks": []}}).to_json()["relation"]
        'interaction operator'
        """
        return {"kind": self.kind, "symbol": self.symbol, "value": self.value, "field": self.field, "p": self.p,
                "m": self.m, "coefficients": self.coefficients, "relation": self.relation,
                "map_necessity": self.map_necessity, "lengths": list(self.lengths), "inputs": self.inputs,
                "parameters": self.parameters, "cases": list(self.cases), "complete": self.complete,
                **{key: value for key, value in (("tolerance", self.tolerance), ("layer", self.layer),
                                                 ("decay_rate", self.decay_rate), ("crossover", self.crossover))
                   if value is not None},
                "statement": self.line()}

    def line(self):
        """The claim in one plain line (the audit's statement)."""
        if self.relation == "gradient bounds":
            return (f"decay rate r = {self.decay_rate}, " + (f"certified bounds cross at distance {self.crossover}"
                                                             if self.crossover is not None else
                                                             "no crossing of the bounds"))
        if self.relation == "approximation":
            return (f"k_eps = {self.value} at eps = {self.tolerance}" if self.value is not None else
                    f"k_eps undecided at eps = {self.tolerance}")
        if self.parameters != "none":
            other = [v for v in self.cases if v != self.value]
            text = f"{self.symbol} = {self.value} " + ("generically" if other else
                                                       ("for every input" if self.inputs.startswith("every input (")
                                                        else "for every parameter value"))
            text += f", {', '.join(map(str, other))} in special cases" if other else ""
            return text + ("" if self.complete else " (not complete)")
        if self.symbol == "r":
            return f"r = {self.value} ({self.layer}, n = {self.lengths[0]})"
        return f"k(n) = {self.value} for {_range_text(*self.lengths)}"

    tolerance: Optional[str] = None
    layer: Optional[str] = None
    decay_rate: Optional[str] = None
    crossover: Optional[int] = None


def _range_text(lo, hi):
    if hi is None:
        return f"n >= {lo}"
    return f"n = {lo}" if lo == hi else f"{lo} <= n <= {hi}"


def claim(data):
    """The :class:`Claim` of verified certificate data (any kind).

    Raises
    ------
    InputError
        If the data is not of a known kind.

    Examples
    --------
    >>> c = claim({"kind": "head-count", "head_count": 3, "n": 8, "holds_for": {"from": 3, "to": None},
    ...            "system": {"p": 2, "m": 2}})
    >>> c.value, c.relation, c.map_necessity, c.lengths
    (3, 'interaction operator', 'input-independent', (3, None))
    """
    row = kinds.of(data)
    return _BUILDERS[row.name](data)


def _head_count(d):
    s, hf = d["system"], d["holds_for"]
    return Claim(kind=d["kind"], symbol="k(n)", value=d["head_count"], field="Q(i)" if d.get("field") else "Q",
                 p=s["p"], m=s["m"], coefficients="input-dependent", relation="interaction operator",
                 map_necessity=map_necessity(s["p"], s["m"]), lengths=(max(1, hf["from"]), hf["to"]),
                 inputs="every input", cases=(d["head_count"],))


def _interaction(d):
    from ..sources import layer_kinds

    s = d["system"]
    free = layer_kinds.of(s["kind"]).input_free
    return Claim(kind=d["kind"], symbol="r", value=d["interaction_rank"], field="Q", p=s.get("p"), m=s.get("m"),
                 coefficients="input-dependent", relation="interaction operator",
                 map_necessity=None,
                 lengths=(s["n"], s["n"]), inputs="every input" if free else "this input",
                 cases=(d["interaction_rank"],), layer=s["kind"])


def _family(d):
    row = kinds.of(d)
    key = row.count
    s = d["system"]
    cases = tuple(sorted({b[key] for b in d["bodies"]}))
    value = d[key]
    every = cases == (value,) and d["complete"]
    layer = key == "interaction_rank"
    if layer:
        lengths = (s.get("n"), s.get("n"))
    else:
        hf = d["bodies"][0]["holds_for"]
        lengths = (max(1, hf["from"]), hf["to"])
    return Claim(kind=d["kind"], symbol="r" if layer else "k(n)", value=value, field="C", p=s.get("p"),
                 m=s.get("m"), coefficients="input-dependent", relation="interaction operator",
                 map_necessity=None, lengths=lengths,
                 inputs="every input (parameters)" if layer else "every input",
                 parameters="every" if every else "generic", cases=cases, complete=bool(d["complete"]))


def _approximate(d):
    s = d["system"]
    return Claim(kind=d["kind"], symbol="k_eps", value=d["head_count"], field="R", p=s.get("p"), m=s.get("m"),
                 coefficients="lag", relation="approximation", map_necessity=None, lengths=(d["n"], d["n"]),
                 inputs="every input", cases=() if d["head_count"] is None else (d["head_count"],),
                 tolerance=d["tolerance"])


def _gradient(d):
    s = d["system"]
    return Claim(kind=d["kind"], symbol="", value=None, field="Q", p=s.get("p"), m=s.get("m"),
                 coefficients="input-dependent", relation="gradient bounds", map_necessity=None,
                 lengths=(d["n"], d["n"]), inputs="every input", decay_rate=d["decay_rate"],
                 crossover=d["crossover_distance"])


_BUILDERS = {
    kinds.HEAD_COUNT.name: _head_count,
    kinds.INTERACTION_RANK.name: _interaction,
    kinds.PARAMETRIC_HEAD_COUNT.name: _family,
    kinds.PARAMETRIC_INTERACTION_RANK.name: _family,
    kinds.APPROXIMATE_HEAD_COUNT.name: _approximate,
    kinds.TRAINED_HEAD_COUNT.name: _approximate,
    kinds.GRADIENT_HIGHWAY.name: _gradient,
}


def every_input_text(c):
    """A claim with parameters as a short plain cell: ``2`` where every case has it, else
    ``at most 2 for every X, 2 generically`` (the cases differ), ``(not complete)`` where factors are uncovered.

    Examples
    --------
    >>> c = Claim("parametric-interaction-rank", "r", 2, "C", 2, 2, "input-dependent", "interaction operator", None,
    ...           (6, 6), "every input (parameters)", "generic", (0, 1, 2), True)
    >>> every_input_text(c)
    'at most 2 for every X, 2 generically'
    """
    if c.everywhere:
        return f"{c.value}"
    text = f"at most {c.at_most} for every X, {c.value} generically"
    return text + ("" if c.complete else " (not complete)")


def every_input_tex(c):
    """The table cell of :func:`every_input_text` in LaTeX: ``$2$`` or ``$\\le 2$, generically $2$``."""
    if c.everywhere:
        return f"${c.value}$"
    return f"$\\le {c.at_most}$, generically ${c.value}$" + ("" if c.complete else "$^{*}$")


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
    return claim(data).line()


def interaction_statement(data):
    """``r = R (LAYER, n = N)``: an interaction rank on one input."""
    return claim(data).line()


def family_statement(data):
    """``k(n) = K generically, ... in special cases`` (or ``for every parameter value``): a count with parameters."""
    return claim(data).line()


def approximate_statement(data):
    """``k_eps = K at eps = EPS``: an eps-head count (of a system or a trained layer), or that it is undecided."""
    return claim(data).line()


def gradient_statement(data):
    """``decay rate r = R, certified bounds cross at distance D``: a gradient-highway certificate."""
    return claim(data).line()


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
