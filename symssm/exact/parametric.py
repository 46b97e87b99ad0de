"""Head counts of whole families: the generic rank over ``QQ(params)``, its proof, and the exceptional set.

For a :class:`~symssm.sources.parametric.ParametricSSM` and a length ``n`` this module computes
(``docs/parametric.md``, ``theory.md`` section 7):

1. the common denominator ``g`` of the entries and the scaled lags ``Lambda_d = g^(d+2) L_d``,
   polynomial matrices (``Lambda_0 = Ct Bt + g Dt``, ``Lambda_d = Ct At^d Bt`` with ``Xt = g X``);
2. the generic head count ``k``: witness lags and positions found at a (seeded, deterministic)
   rational point, then proven symbolically: ``Delta``, the determinant of the k x k minor, is a
   nonzero polynomial; every other lag below ``min(n, T)`` satisfies
   ``q_d Lambda_d = sum_s p_(d,s) Lambda_(d_s)`` as a polynomial identity (Cramer's rule, reduced by
   the gcd), or ``k = min(n, T, pm)`` and the dimension argument needs nothing;
3. the irreducible factors of ``g * Delta * prod q_d``, each classified as
   ``outside-domain`` (it divides an entry's denominator: the family is undefined on its zeros),
   ``case`` (linear in one parameter with a constant coefficient: the substituted family is
   analysed the same way, recursively), or ``uncovered`` (the certificate proves nothing there).

Examples
--------
>>> from symssm.sources.parametric import parametric_family
>>> bodies = family_head_count(parametric_family("rotation-symbolic"), 4)
>>> [(b.head_count, b.complete) for b in bodies]
[(2, True), (1, True)]
>>> [(f.text, f.status) for f in bodies[0].factors]
[('t', 'case'), ('t^2 + 1', 'outside-domain')]
"""

from fractions import Fraction

from ..errors import InputError, LimitError
from ..formats.expressions import integer_scale, polynomial_text
from ..formats.limits import MAX_CASES, MAX_POLY_TERMS, MAX_POLY_WORK
from .bodies import Body, Factor, run_cases, sample_points, witness_at

__all__ = ["Factor", "Body", "family_head_count", "analyse_body"]



# ---------------------------------------------------------------- polynomial helpers (ground-safe)

def _fraction(c):
    return Fraction(int(c.numerator), int(c.denominator))


def _primitive(poly):
    """(scale, poly * scale) with integer coprime coefficients and a positive leading coefficient."""
    if poly.is_zero:
        return Fraction(1), poly
    scale = integer_scale((poly,), poly.LC)
    return scale, poly * poly.ring.domain.convert(scale)


def _lcm(a, b):
    if a.is_ground:
        return b
    if b.is_ground:
        return a
    return a.lcm(b)


def _gcd(a, b):
    if a.is_zero:
        return b
    if b.is_zero:
        return a
    if a.is_ground or b.is_ground:
        return a.ring.one
    return a.gcd(b)


def _divides(f, g):
    """True if the non-constant polynomial ``f`` divides ``g``."""
    return g.rem(f).is_zero


def _factor_list(poly):
    if poly.is_ground:
        return _fraction(poly.LC if not poly.is_zero else 0), []
    c, fs = poly.factor_list()
    return _fraction(c), fs


def _value(poly, point):
    total = Fraction(0)
    for mon, coeff in poly.terms():
        term = _fraction(coeff)
        for x, e in zip(point, mon):
            if e:
                term *= x ** e
        total += term
    return total


def _check_terms(poly, what):
    if len(poly) > MAX_POLY_TERMS:
        raise LimitError(f"{what} has {len(poly)} terms; the limit is {MAX_POLY_TERMS} (a smaller family, "
                         "fewer parameters or a shorter n)")
    return poly


def _det(rows):
    """Fraction-free (Bareiss) determinant of a square list of polynomial rows, exact divisions."""
    k = len(rows)
    if k == 0:
        return None
    M = [list(r) for r in rows]
    ring = M[0][0].ring
    sign, prev = 1, ring.one
    for i in range(k):
        if M[i][i].is_zero:
            swap = next((r for r in range(i + 1, k) if not M[r][i].is_zero), None)
            if swap is None:
                return ring.zero
            M[i], M[swap] = M[swap], M[i]
            sign = -sign
        for r in range(i + 1, k):
            for c in range(i + 1, k):
                num = M[r][c] * M[i][i] - M[r][i] * M[i][c]
                M[r][c] = num if prev.is_ground and prev == ring.one else num.exquo(prev)
        prev = M[i][i]
    return M[k - 1][k - 1] * sign


# ---------------------------------------------------------------- one body

def _scaled_lags(system, rows):
    """(pairs, g, Lambda_0..Lambda_{rows-1}) for ``system`` over its polynomial ring."""
    ring = system.field.ring
    pairs, g = {}, ring.one
    for key in ("A", "B", "C", "D"):
        mat = getattr(system, key)
        if mat is None:
            pairs[key] = None
            continue
        pairs[key] = []
        for row in mat:
            prow = []
            for x in row:
                num, den = x.numer, x.denom
                if den.is_ground:
                    num, den = num.quo_ground(den.LC), ring.one
                else:
                    scale, den = _primitive(den)
                    num = num * ring.domain.convert(scale)
                prow.append((num, den))
                g = _lcm(g, den)
            pairs[key].append(prow)
    _, g = _primitive(g)

    def scaled(key):
        return [[num * g.exquo(den) if not den.is_ground else num * g for num, den in row] for row in pairs[key]]

    A, B, C = scaled("A"), scaled("B"), scaled("C")
    D = scaled("D") if pairs["D"] is not None else None
    N, m, p = len(A), len(B[0]), len(C)

    work = [0]

    def mul(X, Y):
        work[0] += sum(len(X[i][t]) * len(Y[t][j]) for i in range(len(X)) for t in range(len(Y))
                       for j in range(len(Y[0])))
        if work[0] > MAX_POLY_WORK:
            raise LimitError(f"forming the lags of this family takes more than {MAX_POLY_WORK} polynomial term "
                             "products, the limit (both sides): use fewer parameters, a smaller N or a shorter n")
        return [[_check_terms(sum((X[i][t] * Y[t][j] for t in range(len(Y))), ring.zero), "a lag entry")
                 for j in range(len(Y[0]))] for i in range(len(X))]

    lags = []
    X = B
    for d in range(rows):
        L = mul(C, X)
        if d == 0 and D is not None:
            L = [[L[i][j] + g * D[i][j] for j in range(m)] for i in range(p)]
        lags.append(L)
        if d + 1 < rows:
            X = mul(A, X)
    del N
    return pairs, g, lags


def _relations(lags, witness, positions, delta, p, m):
    """For every non-witness row: (d, q, p_s) with q Lambda_d = sum p_s Lambda_{d_s}; None if one fails."""
    ring = delta.ring
    M = [[lags[d][r][c] for r, c in positions] for d in witness]
    out = []
    for d, L in enumerate(lags):
        if d in witness:
            continue
        v = [L[r][c] for r, c in positions]
        ps = []
        for s in range(len(witness)):
            rows = [list(row) for row in M]
            rows[s] = v
            ps.append(_det(rows))
        q = delta
        common = q
        for x in ps:
            common = _gcd(common, x)
        if not common.is_ground:
            q = q.exquo(common)
            ps = [x.exquo(common) for x in ps]
        scale, q = _primitive(q)
        ps = [x * ring.domain.convert(scale) for x in ps]
        for i in range(p):
            for j in range(m):
                rhs = sum((ps[s] * lags[witness[s]][i][j] for s in range(len(witness))), ring.zero)
                if q * L[i][j] != rhs:
                    return None
        out.append((d, q, tuple(ps)))
    return out


def _terms(poly):
    """A SymPy polynomial as ``{exponent tuple: Fraction}`` (what :mod:`.covering` decides on)."""
    return {tuple(mon): _fraction(c) for mon, c in poly.terms()}


class SympyEngine:
    """What :func:`~symssm.exact.bodies.run_cases` needs of the reference engine's families (see there)."""

    @staticmethod
    def names(system):
        return system.parameters

    @staticmethod
    def key(system):
        return (tuple(system.parameters),) + tuple(
            (key, None if system.formulas[key] is None else tuple(str(x) for row in system.formulas[key] for x in row))
            for key in ("A", "B", "C", "D"))

    @staticmethod
    def substitute(system, link):
        return _substitute_link(system, link)

    @staticmethod
    def factor(system, terms):
        ring = system.field.ring
        constant, fs = _factor_list(ring.from_dict({mon: ring.domain.convert(c) for mon, c in terms.items()}))
        out = []
        for f, e in fs:
            scale, f = _primitive(f)
            constant /= scale ** e
            out.append((polynomial_text(f), _terms(f), e))
        return constant, sorted(out, key=lambda x: x[0])

    @staticmethod
    def outside(system, terms):
        ring = system.field.ring
        f = ring.from_dict({mon: ring.domain.convert(c) for mon, c in terms.items()})
        return any(_divides(f, x.denom) for key in ("A", "B", "C", "D") if getattr(system, key) is not None
                   for row in getattr(system, key) for x in row if not x.denom.is_ground)


def _substitute_link(system, link):
    """The family of a case (``("solve", i, value, den)`` or ``("zero", indices)``; see
    :func:`~symssm.exact.bodies.run_cases`), its entries canonical texts re-read by the parser.

    Raises
    ------
    InputError
        If a denominator vanishes identically there, or an entry exceeds the formula limits.
    """
    from ..formats.expressions import parameter_field, rational_function_text
    from ..sources.parametric import parametric_ssm

    names = list(system.parameters)
    gone = (link[1],) if link[0] == "solve" else tuple(link[1])
    keep = [i for i in range(len(names)) if i not in gone]
    rest = [names[i] for i in keep]
    child = parameter_field(rest)
    ring = child.ring

    def lower(terms):
        return ring.from_dict({tuple(mon[i] for i in keep): ring.domain.convert(c) for mon, c in terms.items()}) \
            if terms else ring.zero

    index = link[1] if link[0] == "solve" else None
    value = lower(link[2]) if index is not None else None
    den = lower(link[3]) if index is not None and link[3] is not None else None

    def apply(poly):
        by_power = {}
        for mon, c in _terms(poly).items():
            if any(mon[i] for i in gone if i != index):
                continue  # a parameter set to 0
            by_power.setdefault(mon[index] if index is not None else 0, {})[mon] = c
        if not by_power:
            return ring.zero, 0
        e = max(by_power)
        acc = lower(by_power[e])
        for k in range(e - 1, -1, -1):
            acc = acc * value + lower(by_power.get(k, {})) * (den ** (e - k) if den is not None else ring.one)
        return acc, e

    out = {}
    for key in ("A", "B", "C", "D"):
        mat = getattr(system, key)
        if mat is None:
            out[key] = None
            continue
        rows = []
        for row in mat:
            new = []
            for entry in row:
                num, en = apply(entry.numer)
                d, ed = apply(entry.denom)
                if den is not None and en != ed:
                    if en > ed:
                        d = d * den ** (en - ed)
                    else:
                        num = num * den ** (ed - en)
                if d.is_zero:
                    raise InputError("the family is undefined on this case: a denominator vanishes")
                new.append(rational_function_text(child(num) / child(d)))
            rows.append(new)
        out[key] = rows
    return parametric_ssm(out["A"], out["B"], out["C"], out["D"], parameters=rest, name=system.name)


def analyse_body(system, n):
    """The generic proof for one family: everything but the cases' own bodies.

    The SymPy reference of steps 1 to 3 of the module's docstring: the scaled lags ``Lambda_0 ..
    Lambda_(min(n, T) - 1)``, witness lags and positions at the first deterministic sample point
    (:func:`~symssm.exact.bodies.sample_points`) whose witness proves itself, the minor's determinant
    ``Delta``, a Cramer relation for every other lag unless ``k = min(n, T, pm)``, and the irreducible
    factors of ``g * Delta * prod q_d``.

    Parameters
    ----------
    system : ParametricSSM
        The family (its entries are read through SymPy's ``QQ(parameters)``, ``system.field``).
    n : int
        The sequence length, a non-negative int (not checked here: the certificate's builder checks it).

    Returns
    -------
    dict
        The fields of :class:`Body` but ``system``, ``substitution``, ``complete`` and ``solved``:
        ``entries`` (each matrix's rows of ``(numerator, denominator)`` texts, denominators primitive;
        None for an absent D), ``denominator`` (``g``), ``head_count``, ``lags`` and ``positions`` (the
        witness), ``determinant`` (``Delta``), ``dimension`` (whether the dimension argument replaces
        the relations), ``coefficients`` (``((d, q_d, (p_(d,1), ...)), ...)``), ``constant`` and
        ``factors`` (``g * Delta * prod q_d = constant * prod f^e``; ``factors`` as tuples ``(text, e,
        status, terms)`` sorted by text, status ``"outside-domain"`` or ``"open"``), and ``holds_for``
        (the first length with this count, and the last one: None when ``n >= T``).

    Raises
    ------
    InputError
        If no witness could be proven at any of the deterministic points (reported, never guessed).
    LimitError
        If a polynomial grows beyond ``MAX_POLY_TERMS``, or forming the lags takes more than
        ``MAX_POLY_WORK`` term products.

    Examples
    --------
    >>> from symssm.sources.parametric import parametric_family
    >>> body = analyse_body(parametric_family("rotation-symbolic"), 4)
    >>> body["head_count"], body["lags"], body["denominator"], body["dimension"], body["holds_for"]
    (2, (0, 1), 't^2 + 1', True, (2, None))
    >>> [f[:3] for f in body["factors"]]
    [('t', 1, 'open'), ('t^2 + 1', 5, 'outside-domain')]
    """
    T = system.N + (1 if system.D is not None else 0)
    rows = min(n, T)
    pairs, g, lags = _scaled_lags(system, rows)
    p, m = system.p, system.m
    ring = g.ring
    dens = [den for key in ("A", "B", "C", "D") if pairs[key] is not None for row in pairs[key] for _, den in row]
    for point in sample_points(system.parameters, dens, _value):
        witness, positions = witness_at(lags, point, p, m, _value)
        k = len(witness)
        delta = _det([[lags[d][r][c] for r, c in positions] for d in witness]) if k else ring.one
        _check_terms(delta, "the determinant")
        dimension = k == min(rows, p * m)
        relations = [] if dimension else _relations(lags, witness, positions, delta, p, m)
        if relations is None:
            continue  # the point was special: the generic rank is higher; try the next point
        break
    else:
        raise InputError("could not prove a generic head count at the deterministic sample points (the family's "
                         "denominators vanish too often); please report this family")
    constant, merged = Fraction(1), {}
    for poly in [g, delta] + [q for _, q, _ in relations]:
        c, fs = _factor_list(poly)
        constant *= c
        for f, e in fs:
            scale, f = _primitive(f)
            constant /= scale ** e
            key = polynomial_text(f)
            merged[key] = (f, merged.get(key, (f, 0))[1] + e)
    dens = [den for key in ("A", "B", "C", "D") if pairs[key] is not None for row in pairs[key] for _, den in row
            if not den.is_ground]
    factors = []
    for key in sorted(merged):
        f, e = merged[key]
        status = "outside-domain" if any(_divides(f, den) for den in dens) else "open"
        factors.append((key, e, status, _terms(f)))
    entries = {key: (None if pairs[key] is None else tuple(tuple((polynomial_text(a), polynomial_text(b))
                                                                 for a, b in row) for row in pairs[key]))
               for key in ("A", "B", "C", "D")}
    k = len(witness)
    return {
        "entries": entries, "denominator": polynomial_text(g), "head_count": k, "lags": witness,
        "positions": positions, "determinant": polynomial_text(delta), "dimension": dimension,
        "coefficients": tuple((d, polynomial_text(q), tuple(polynomial_text(x) for x in ps))
                              for d, q, ps in relations),
        "constant": _fraction_text(constant),
        "factors": factors,
        "holds_for": (witness[-1] + 1 if k else 0, None if n >= T else n),
    }


def _fraction_text(value):
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def family_head_count(system, n, *, max_cases=MAX_CASES, engine="flint"):
    """Every body of a family's certificate: index 0 is the generic family, then its cases.

    A case factor beyond ``max_cases`` bodies is left ``uncovered`` (and the certificate incomplete).
    ``engine`` is ``"flint"`` (python-flint's ``fmpq_mpoly``, :mod:`symssm.exact.flintfamily`) or
    ``"sympy"`` (this module's reference implementation); both give the same bodies.

    Parameters
    ----------
    system : ParametricSSM
        The family.
    n : int
        The sequence length, a non-negative int (not checked here: the certificate's builder checks it).
    max_cases : int, optional
        The most bodies, the generic one included (default :data:`~symssm.formats.limits.MAX_CASES`).
    engine : {"flint", "sympy"}, optional
        The polynomial engine.

    Returns
    -------
    list of Body
        The generic body first, then one body per distinct case, ordered as
        :func:`~symssm.exact.bodies.run_cases` says (more parameters first); a body's ``system`` is the
        engine's family (a FLINT family, or a :class:`~symssm.sources.parametric.ParametricSSM`).

    Raises
    ------
    InputError
        If ``engine`` is not one of the two, or no witness could be proven (:func:`analyse_body`).
    LimitError
        If a polynomial grows beyond the limits (:func:`analyse_body`).

    Examples
    --------
    >>> from dataclasses import replace
    >>> from symssm.sources.parametric import parametric_family
    >>> fam = parametric_family("diagonal-symbolic", N=2)
    >>> bodies = family_head_count(fam, 2)
    >>> [(b.head_count, b.system.parameters, b.substitution) for b in bodies]
    [(2, ('l1', 'l2'), None), (1, ('l2',), (0, 'factor', 0))]
    >>> reference = family_head_count(fam, 2, engine="sympy")
    >>> [replace(b, system=None) for b in bodies] == [replace(b, system=None) for b in reference]
    True
    """
    if engine == "flint":
        from .flintfamily import family_head_count_flint

        return family_head_count_flint(system, n, max_cases=max_cases)
    if engine != "sympy":
        raise InputError(f"engine must be 'flint' or 'sympy', got {engine!r}")
    return run_cases(system, lambda fam: analyse_body(fam, n), SympyEngine, max_cases)
