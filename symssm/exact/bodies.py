"""What a family's analysis returns, whichever polynomial engine made it, and the steps that do not depend on it.

Both engines (:mod:`symssm.exact.parametric` on SymPy, :mod:`symssm.exact.flintfamily` on FLINT)
sample the same points, pick the same witnesses and walk the same cases with the functions here,
each passing its own ``value(poly, point)``; that is what keeps their certificates byte-identical.
"""

import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Optional

__all__ = ["Cover", "Factor", "Body", "run_cases", "sample_points", "witness_at", "ATTEMPTS"]

#: Deterministic sample points tried for the generic witness.
ATTEMPTS = 8


@dataclass(frozen=True)
class Cover:
    """How a factor's zero set is decided (:mod:`symssm.exact.covering`), as the certificate writes it.

    ``rule`` is ``"solve"`` (``parameter = value / denominator``; ``denominator`` None for a constant
    coefficient, else ``den_constant * prod coefficients[t]^e`` over ``den_factors`` ``((t, e), ...)``),
    ``"definite-form"``, ``"definite"`` (``variables``, with ``L``, ``D`` the exact ``L D L^T`` of the
    Gram matrix), ``"binary-form"`` or ``"univariate"`` (``variables``).  Texts throughout.
    """

    rule: str
    parameter: Optional[str] = None
    value: Optional[str] = None
    denominator: Optional[str] = None
    den_constant: Optional[str] = None
    den_factors: tuple = ()
    variables: tuple = ()
    L: tuple = ()
    D: tuple = ()


@dataclass(frozen=True)
class Factor:
    """One irreducible factor of ``g * Delta * prod q_d`` (or of a solved coefficient) with its status.

    ``status`` is ``"outside-domain"``, ``"case"`` (``case`` is the body of its zero set),
    ``"no-zero"`` (no rational zero, by ``cover``) or ``"uncovered"`` (``reason`` says why).
    A coefficient's factor has ``multiplicity`` None (the solving cover lists its exponent).
    """

    text: str
    multiplicity: Optional[int]
    status: str
    case: Optional[int] = None
    cover: Optional[Cover] = None
    reason: Optional[str] = None


@dataclass(frozen=True)
class Body:
    """The proof for one family (the generic one, or a case of the exceptional set)."""

    system: object
    substitution: tuple  # None, or (parent index, "factor" or "coefficient", item index): the first link
    entries: dict  # key -> rows of (numerator text, denominator text), or None for an absent D
    denominator: str
    head_count: int
    lags: tuple
    positions: tuple
    determinant: str
    dimension: bool
    coefficients: tuple  # ((lag, q text, (p texts...)), ...)
    constant: str
    factors: tuple
    complete: bool
    holds_for: tuple
    minor: Optional[tuple] = None  # the witness minor's entries as texts (layers), row by row
    solved: tuple = ()  # the factors of solved coefficients (Factor, multiplicity None), referenced by covers


def _fraction_text(value):
    value = Fraction(value)
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


class _Item:
    """A factor (or a coefficient's factor) while the case graph is built; frozen into a Factor at the end."""

    __slots__ = ("text", "terms", "multiplicity", "status", "case", "cover", "reason", "order")

    def __init__(self, text, terms, multiplicity, status="uncovered"):
        self.text, self.terms, self.multiplicity, self.status = text, terms, multiplicity, status
        self.case = self.cover = self.reason = None
        self.order = None


def run_cases(root, analyse, engine, max_cases):
    """The bodies of a certificate: ``root``'s, then one per distinct family of the exceptional set.

    ``analyse(family)`` returns a body's fields with ``factors`` as tuples ``(text, multiplicity,
    status, terms)`` (status ``"outside-domain"`` or ``"open"``; ``terms`` the factor as a term dict).
    Every open factor is covered by the first rule of :func:`~symssm.exact.covering.decide` that
    applies; a rule with a case links the factor to the body of the substituted family.  ``engine``
    supplies ``names(family)``, ``key(family)`` (families with equal keys are one body: a case
    reached along several paths is shared), ``substitute(family, link)`` (``("solve", i, value,
    denominator)`` or ``("zero", indices)``; raises :class:`~symssm.errors.InputError` or
    :class:`~symssm.errors.LimitError` when the case cannot be built), ``factor(family, terms)`` (the
    constant and normalised irreducible factors ``[(text, terms, e)]`` of a coefficient, sorted by
    text) and ``outside(family, terms)`` (whether a polynomial divides an entry's denominator).

    Bodies are ordered by decreasing number of parameters (every link removes at least one, so each
    body comes after every body that links to it), the first reached first.  A case beyond
    ``max_cases`` bodies is left uncovered (with its reason); ``complete`` is computed from the leaves up.

    Parameters
    ----------
    root : object
        The engine's family to certify (the generic body's ``system``).
    analyse : callable
        ``analyse(family) -> dict``: every field of :class:`Body` but ``system``, ``substitution``,
        ``complete`` and ``solved``, with ``factors`` as described above (the dict is modified: pass
        a copy of anything cached).
    engine : object
        The polynomial engine's operations (``names``, ``key``, ``substitute``, ``factor``,
        ``outside``), e.g. :class:`~symssm.exact.flintfamily.FlintEngine`.
    max_cases : int
        The most bodies, the root's included.

    Returns
    -------
    list of Body
        The root's body first, then the cases in the order above.  A factor's ``case`` and a body's
        ``substitution`` ``(parent, "factor" or "coefficient", item)`` index this list (``item`` indexes
        the parent's ``factors`` or ``solved``); a cover's ``den_factors`` index its body's ``solved``.

    Raises
    ------
    InputError, LimitError
        Whatever ``analyse`` raises (the engines: no witness proves itself at the deterministic
        points, a polynomial beyond the limits); the same errors from ``engine.substitute`` only
        leave a factor uncovered, or outside the domain.

    Examples
    --------
    A family with one case, ``t = 0``, where the rotation ``A`` becomes the identity:

    >>> from symssm.sources.parametric import parametric_family
    >>> from symssm.exact.flintfamily import family_head_count_flint   # run_cases with FlintEngine
    >>> generic, case = family_head_count_flint(parametric_family("rotation-symbolic"), 4)
    >>> [(f.text, f.multiplicity, f.status, f.case) for f in generic.factors]
    [('t', 1, 'case', 1), ('t^2 + 1', 5, 'outside-domain', None)]
    >>> cover = generic.factors[0].cover
    >>> cover.rule, cover.parameter, cover.value, cover.denominator
    ('solve', 't', '0', None)
    >>> case.substitution, case.system.parameters, case.head_count, case.factors
    ((0, 'factor', 0), (), 1, ())
    >>> generic.head_count, generic.complete, case.complete
    (2, True, True)
    """
    from ..errors import InputError, LimitError
    from .covering import NO_ZERO_RULES, decide, not_built_reason, variables

    nodes = [{"fam": root, "sub": None}]
    by_key = {engine.key(root): 0}
    done = []
    while len(done) < len(nodes):
        node = nodes[len(done)]
        fam = node["fam"]
        names = list(engine.names(fam))
        body = analyse(fam)
        solved, solved_by_text = [], {}

        def link(origin, decision):
            """The body of a rule's case (shared when its family is known), or None (the item is then uncovered)."""
            rule = decision[0]
            sub = ("solve", decision[1], decision[2], decision[3]) if rule == "solve" else ("zero", decision[1])
            try:
                child = engine.substitute(fam, sub)
            except LimitError:
                return None
            except InputError:
                # a denominator vanishes identically on the case: for a form whose only rational zero is
                # its variables at 0, every such point is outside the domain
                return "outside" if sub[0] == "zero" else None
            key = engine.key(child)
            if key in by_key:
                return by_key[key]
            if len(nodes) >= max_cases:
                return None
            nodes.append({"fam": child, "sub": (len(done), origin)})
            by_key[key] = len(nodes) - 1
            return len(nodes) - 1

        def cover(item, origin):
            decision = decide(item.terms, names)
            rule = decision[0]
            if rule == "uncovered":
                item.status, item.reason = "uncovered", decision[1]
                return
            if rule in NO_ZERO_RULES:
                item.status, item.cover = "no-zero", _cover(decision, names, None)
                return
            case = link(origin, decision)
            if case == "outside":
                item.status, item.cover = "outside-domain", _cover(decision, names, None)
                return
            if case is None:
                item.status, item.reason = "uncovered", not_built_reason(decision, names)
                return
            den = None
            if rule == "solve" and decision[3] is not None:
                constant, parts = engine.factor(fam, decision[3])
                den = (constant, [(coefficient(text, terms), e) for text, terms, e in parts])
            item.status, item.case, item.cover = "case", case, _cover(decision, names, den)

        def coefficient(text, terms):
            if text in solved_by_text:
                return solved_by_text[text]
            item = _Item(text, terms, None)
            solved.append(item)
            solved_by_text[text] = item
            if engine.outside(fam, terms):
                item.status = "outside-domain"
            else:
                cover(item, ("coefficient", item))
            return item

        factors = []
        for text, e, status, terms in body["factors"]:
            item = _Item(text, terms, e, status)
            if status != "outside-domain":
                cover(item, ("factor", len(factors)))
            factors.append(item)
        body["factors"] = factors
        body["solved"] = solved
        done.append(body)
    # the final order: more parameters first (a topological order of the links), then the order reached
    order = sorted(range(len(nodes)), key=lambda i: (-len(engine.names(nodes[i]["fam"])), i))
    new = {old: pos for pos, old in enumerate(order)}
    for body in done:
        # a solved coefficient's factors reference others with fewer parameters: more first, then by text
        body["solved"].sort(key=lambda it: (-len(variables(it.terms)), it.text))
        for t, item in enumerate(body["solved"]):
            item.order = t
    complete = {}
    frozen = {}
    for old in reversed(order):
        body = done[old]

        def freeze(item):
            case = None if item.case is None else new[item.case]
            cov = item.cover
            if cov is not None and cov.den_factors:
                cov = Cover(**{**cov.__dict__, "den_factors": tuple((it.order, e) for it, e in cov.den_factors)})
            return Factor(item.text, item.multiplicity, item.status, case, cov, item.reason)

        def covered(item):
            if item.status in ("outside-domain", "no-zero"):
                return True
            if item.status != "case" or not complete[item.case]:
                return False
            return all(covered(it) for it, _ in (item.cover.den_factors or ()))

        complete[old] = all(covered(it) for it in body["factors"])
        frozen[old] = (tuple(freeze(it) for it in body["factors"]), tuple(freeze(it) for it in body["solved"]))
    bodies = []
    for old in order:
        node, body = nodes[old], dict(done[old])
        sub = None
        if node["sub"] is not None:
            parent, (kind, where) = node["sub"]
            sub = (new[parent], kind, where if kind == "factor" else where.order)
        body["factors"], body["solved"] = frozen[old]
        bodies.append(Body(system=node["fam"], substitution=sub, complete=complete[old], **body))
    return bodies


def _cover(decision, names, den):
    """The certificate's Cover for a rule's decision (``den``: the coefficient's constant and items)."""
    from .covering import drop, terms_text

    rule = decision[0]
    if rule == "solve":
        i = decision[1]
        child = names[:i] + names[i + 1:]
        value = terms_text(drop(decision[2], i), child)
        if decision[3] is None:
            return Cover("solve", parameter=names[i], value=value)
        constant, parts = den
        return Cover("solve", parameter=names[i], value=value, denominator=terms_text(drop(decision[3], i), child),
                     den_constant=_fraction_text(constant), den_factors=tuple(parts))
    variables = tuple(names[i] for i in decision[1])
    if rule in ("binary-form", "univariate"):
        return Cover(rule, variables=variables)
    L, D = decision[2], decision[3]
    return Cover(rule, variables=variables, L=tuple(tuple(_fraction_text(x) for x in row) for row in L),
                 D=tuple(_fraction_text(x) for x in D))


def sample_points(parameters, dens, value):
    """Deterministic rational points (seeded by the number of parameters) where every denominator is nonzero.

    Coordinates are ``a / b`` with ``a`` in ``[-10^6, 10^6]`` and ``b`` in ``[1, 997]`` from
    ``random.Random(0x5EED + len(parameters))``, so every machine tries the same points in the same
    order.

    Parameters
    ----------
    parameters : sequence
        The family's parameters (only their number is used).
    dens : sequence
        The denominators, in the engine's polynomial type.
    value : callable
        ``value(den, point) -> Fraction``: the engine's evaluation.

    Yields
    ------
    list of Fraction
        A point (one coordinate per parameter) where ``value(den, point) != 0`` for every ``den``;
        at most :data:`ATTEMPTS` points, fewer when 1000 candidates do not give that many.

    Examples
    --------
    >>> from fractions import Fraction
    >>> value = lambda den, point: den(*point)                  # a denominator as a function, here
    >>> points = list(sample_points(["t"], [lambda t: t - 1], value))
    >>> len(points), points[0]
    (8, [Fraction(663903, 776)])
    >>> list(sample_points(["t"], [lambda t: 0 * t], value))   # a denominator that is 0 everywhere
    []
    """
    rng = random.Random(0x5EED + len(parameters))
    found = 0
    for _ in range(1000):
        point = [Fraction(rng.randint(-10**6, 10**6), rng.randint(1, 997)) for _ in parameters]
        if all(value(den, point) != 0 for den in dens):
            yield point
            found += 1
            if found == ATTEMPTS:
                return


def witness_at(lags, point, p, m, value):
    """Lex-first lags whose values at ``point`` raise the rank, with pivot positions ``(row, column)``.

    Each lag, flattened row by row, is reduced exactly against the rows kept so far; a lag whose
    remainder is nonzero is kept, with the first nonzero column of its remainder as its pivot.  The
    minor of the kept lags at their pivot positions is then nonsingular at ``point``.

    Parameters
    ----------
    lags : sequence
        ``p x m`` matrices (lists of rows) of the engine's polynomials, in order.
    point : list of Fraction
        Where to evaluate (from :func:`sample_points`).
    p, m : int
        The matrices' shape.
    value : callable
        ``value(entry, point) -> Fraction``: the engine's evaluation.

    Returns
    -------
    lags : tuple of int
        The indices of the kept lags, increasing (their number is the rank at ``point``).
    positions : tuple of (int, int)
        The pivot ``(row, column)`` of each kept lag.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> value = lambda entry, point: entry(*point)              # entries as functions, here
    >>> lags = [[[lambda t: F(1), lambda t: t]],                # L_0 = [1, t]
    ...         [[lambda t: t, lambda t: t * t]],               # L_1 = t L_0
    ...         [[lambda t: F(0), lambda t: F(1)]]]             # L_2 = [0, 1]
    >>> witness_at(lags, [F(2)], 1, 2, value)
    ((0, 2), ((0, 0), (0, 1)))
    """
    basis = []  # (pivot, reduced row)
    lags_out, positions = [], []
    for d, L in enumerate(lags):
        row = [value(L[i][j], point) for i in range(p) for j in range(m)]
        for pivot, brow in basis:
            if row[pivot]:
                f = row[pivot] / brow[pivot]
                row = [x - f * y for x, y in zip(row, brow)]
        pivot = next((c for c, x in enumerate(row) if x), None)
        if pivot is not None:
            basis.append((pivot, row))
            lags_out.append(d)
            positions.append(divmod(pivot, m))
    return tuple(lags_out), tuple(positions)
