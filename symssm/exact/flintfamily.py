"""Head counts of families on python-flint's ``fmpq_mpoly``: the engine behind :func:`~symssm.exact.parametric.family_head_count`.

The same proof as the SymPy reference in :mod:`symssm.exact.parametric` (same witness points, same
Bareiss determinants, same Cramer relations reduced by the gcd, same factor normalisation and case
analysis), on multivariate polynomials over Q in FLINT (lex order, the parameters in the order
given), so the certificate's bytes are the same whichever engine made them; ``tests/exact`` compares
the two on every built-in family.  Substitution into a case stays in FLINT too: a child family's
entries are reduced fractions with a primitive denominator, checked against the formula limits a
spec would be (1,000 characters, degree 64), as the reference does by re-parsing them.

Examples
--------
>>> from symssm.sources.parametric import parametric_family
>>> bodies = family_head_count_flint(parametric_family("rotation-symbolic"), 4)
>>> [(b.head_count, b.complete) for b in bodies]
[(2, True), (1, True)]
>>> [(f.text, f.status) for f in bodies[0].factors]
[('t', 'case'), ('t^2 + 1', 'outside-domain')]
"""

from fractions import Fraction

import flint

from ..errors import InputError, LimitError
from ..formats.expressions import flint_rational_text, integer_scale
from ..formats.ratfunc import context, poly_value
from ..formats.rationals import format_rational
from ..formats.limits import (MAX_CASES, MAX_FORMULA_CHARS, MAX_FORMULA_DEGREE, MAX_POLY_DEGREE, MAX_POLY_TERMS,
                              MAX_POLY_WORK)
from .bodies import run_cases, sample_points, witness_at

__all__ = ["family_head_count_flint", "poly_text", "prove_rows", "scaled_entries", "counted_product", "family_from_matrices",
           "family_key", "FlintEngine"]

_KEYS = ("A", "B", "C", "D")
_ZERO = Fraction(0)


class _Family:
    """A family over ``Q(parameters)`` as FLINT polynomials: each entry a reduced (num, den) pair."""

    __slots__ = ("parameters", "ctx", "pairs", "name")

    def __init__(self, parameters, ctx, pairs, name):
        self.parameters, self.ctx, self.pairs, self.name = tuple(parameters), ctx, pairs, name

    @property
    def N(self):
        return len(self.pairs["A"])

    @property
    def m(self):
        return len(self.pairs["B"][0])

    @property
    def p(self):
        return len(self.pairs["C"])

    @property
    def D(self):
        return self.pairs["D"]


_context = context


def _frac(c):
    return Fraction(int(c.p), int(c.q))


def _fmpq(x):
    return flint.fmpq(x.numerator, x.denominator)


def _terms(poly):
    return poly.terms()


def poly_text(poly, names):
    """Canonical text of a FLINT polynomial, as :func:`~symssm.formats.expressions.polynomial_text` writes it.

    FLINT prints a lex-ordered polynomial in exactly this form (``3/2*a^2*b - c + 1``; the tests
    compare the two printers on random polynomials); ``names`` must be its context's names (or empty
    for a family without parameters, whose polynomials are constants).

    Parameters
    ----------
    poly : flint.fmpq_mpoly
        A polynomial in a lex-ordered context (:func:`~symssm.formats.ratfunc.context`).
    names : sequence of str
        The context's names, in order.

    Returns
    -------
    str
        The canonical text.

    Raises
    ------
    ValueError
        If ``names`` are not the polynomial's (a programming error, never an input's).

    Examples
    --------
    >>> from symssm.formats.ratfunc import context
    >>> a, b, c = context(["a", "b", "c"]).gens()
    >>> poly_text(3 * a**2 * b / 2 - c + 1, ["a", "b", "c"])
    '3/2*a^2*b - c + 1'
    """
    if tuple(names) != tuple(poly.context().names()) and not (not names and poly.is_constant()):
        raise ValueError("poly_text: the names are not the polynomial's")  # not reachable: a programming error
    return str(poly)


def _is_const(poly):
    return poly.is_constant()


def _lead(poly):
    """The leading coefficient in lex order (as SymPy's ``LC``; the context's order is lex), as a Fraction."""
    return _frac(poly.leading_coefficient())


_const = _lead  # a constant polynomial's value is its leading coefficient (FLINT's of zero is 0)


def _primitive(poly):
    """(scale, poly * scale): integer coprime coefficients, positive leading coefficient."""
    if poly.is_zero():
        return Fraction(1), poly
    scale = integer_scale((poly,), _lead(poly))
    return scale, poly * _fmpq(scale)


def _check_terms(poly, what):
    if len(poly) > MAX_POLY_TERMS:
        raise LimitError(f"{what} has {len(poly)} terms; the limit is {MAX_POLY_TERMS} (a smaller family, "
                         "fewer parameters or a shorter n)")
    if max(poly.degrees(), default=0) > MAX_POLY_DEGREE:
        raise LimitError(f"{what} has degree {max(poly.degrees())} in a parameter; the limit is {MAX_POLY_DEGREE} "
                         "(a smaller family or a shorter n)")
    return poly


def _exquo(a, b):
    if _is_const(b):
        return a * _fmpq(1 / _const(b))
    return a / b


def _lcm(a, b):
    if _is_const(a):
        return b
    if _is_const(b):
        return a
    return _exquo(a * b, a.gcd(b))


def _gcd(a, b):
    if a.is_zero():
        return b
    if b.is_zero():
        return a
    if _is_const(a) or _is_const(b):
        return a.context().from_dict({(0,) * a.context().nvars(): 1})
    return a.gcd(b)


def _divides(f, g):
    try:
        g / f
    except Exception:  # noqa: BLE001 - FLINT's DomainError: not exact
        return False
    return True


def _value(poly, point):
    return _ZERO if poly.is_zero() else poly_value(poly, point)


def _det(rows, one):
    """Fraction-free (Bareiss) determinant with exact divisions."""
    k = len(rows)
    if k == 0:
        return None
    M = [list(r) for r in rows]
    sign, prev = 1, one
    for i in range(k):
        if M[i][i].is_zero():
            swap = next((r for r in range(i + 1, k) if not M[r][i].is_zero()), None)
            if swap is None:
                return one * 0
            M[i], M[swap] = M[swap], M[i]
            sign = -sign
        for r in range(i + 1, k):
            for c in range(i + 1, k):
                num = M[r][c] * M[i][i] - M[r][i] * M[i][c]
                M[r][c] = num if (_is_const(prev) and _const(prev) == 1) else _exquo(num, prev)
        prev = M[i][i]
    return M[k - 1][k - 1] * sign


def _normalised_pairs(fam_pairs):
    """(pairs with primitive denominators, g) as the reference's ``_scaled_lags`` makes them."""
    pairs, g = {}, None
    for key, rows in fam_pairs.items():
        if rows is None:
            pairs[key] = None
            continue
        out = []
        for row in rows:
            prow = []
            for num, den in row:
                if den.is_one():
                    pass
                elif _is_const(den):
                    num, den = num * _fmpq(1 / _const(den)), den * 0 + 1
                else:
                    scale, den = _primitive(den)
                    num = num * _fmpq(scale)
                prow.append((num, den))
                g = den if g is None else _lcm(g, den)
            out.append(prow)
        pairs[key] = out
    _, g = _primitive(g)
    return pairs, g


def scaled_entries(fam):
    """``(pairs, g, scaled)``: primitive-denominator entries, their common denominator g, and every entry times g.

    Parameters
    ----------
    fam : family
        A family of this module (:func:`family_from_matrices`, or a case's family) with at least one
        matrix.

    Returns
    -------
    pairs : dict
        ``{key: rows of (numerator, denominator)}`` (None stays None): each denominator made primitive
        (integer coprime coefficients, positive leading coefficient; a constant one becomes 1), its
        numerator scaled to keep the value.
    g : flint.fmpq_mpoly
        The least common multiple of those denominators, primitive.
    scaled : dict
        ``{key: rows of polynomials}``: every entry times ``g`` (None stays None).

    Examples
    --------
    >>> from symssm.formats.ratfunc import RationalFunctionField
    >>> F = RationalFunctionField(["t"]); t, = F.gens
    >>> fam = family_from_matrices(["t"], {"A": [[1 / (1 + t * t), t / (1 - t)]]}, "")
    >>> pairs, g, scaled = scaled_entries(fam)
    >>> [(str(a), str(b)) for a, b in pairs["A"][0]]
    [('1', 't^2 + 1'), ('-t', 't - 1')]
    >>> str(g), [str(x) for x in scaled["A"][0]]
    ('t^3 - t^2 + t - 1', ['t - 1', '-t^3 - t'])
    """
    pairs, g = _normalised_pairs(fam.pairs)
    scaled = {key: None if rows is None else
              [[num * _exquo(g, den) if not _is_const(den) else num * g for num, den in row] for row in rows]
              for key, rows in pairs.items()}
    return pairs, g, scaled


def counted_product(zero, what):
    """A matrix product of polynomial matrices that counts term products against ``MAX_POLY_WORK``.

    Parameters
    ----------
    zero : flint.fmpq_mpoly
        The zero polynomial of the matrices' context.
    what : str
        What is being formed, for the error message (``"the lags of this family"``).

    Returns
    -------
    callable
        ``mul(X, Y)``, the product of two matrices given as lists of rows, and ``mul.scalar(s, y)``,
        the product of two polynomials.  Every call adds ``len(x) * len(y)`` for each pair of
        entries multiplied to one count shared by all calls of this ``mul``; past
        :data:`~symssm.formats.limits.MAX_POLY_WORK` it raises
        :class:`~symssm.errors.LimitError`, as it does for an entry of the product with more than
        ``MAX_POLY_TERMS`` terms or degree above ``MAX_POLY_DEGREE`` in a parameter.

    Examples
    --------
    >>> from symssm.formats.ratfunc import context
    >>> ctx = context(["t"]); t, = ctx.gens(); zero = ctx.from_dict({})
    >>> mul = counted_product(zero, "an example")
    >>> mul([[t, zero + 1]], [[t], [t]])
    [[t^2 + t]]
    >>> mul.scalar(t, t + 1)
    t^2 + t
    """
    work = [0]

    def mul(X, Y):
        cols = len(Y[0])
        nonzero = [[(t, x, len(x)) for t, x in enumerate(row) if not x.is_zero()] for row in X]
        sizes = [[len(y) for y in row] for row in Y]
        work[0] += sum(n * sizes[t][j] for row in nonzero for t, _, n in row for j in range(cols))
        if work[0] > MAX_POLY_WORK:
            raise LimitError(f"forming {what} takes more than {MAX_POLY_WORK} polynomial term "
                             "products, the limit (both sides): use fewer parameters, a smaller N or a shorter n")
        out = []
        for row_x in nonzero:
            row = []
            for j in range(cols):
                acc = zero
                for t, x, _ in row_x:
                    if sizes[t][j]:
                        acc = acc + x * Y[t][j]
                row.append(_check_terms(acc, "an entry"))
            out.append(row)
        return out

    def scalar(s, y):
        """``mul([[s]], [[y]])[0][0]`` (the same value, the same work) without the matrices."""
        if s.is_zero() or y.is_zero():
            return zero
        work[0] += len(s) * len(y)
        if work[0] > MAX_POLY_WORK:
            raise LimitError(f"forming {what} takes more than {MAX_POLY_WORK} polynomial term "
                             "products, the limit (both sides): use fewer parameters, a smaller N or a shorter n")
        return _check_terms(s * y, "an entry")

    mul.scalar = scalar
    return mul


def _scaled_lags(fam, rows):
    pairs, g, scaled = scaled_entries(fam)
    A, B, C, D = scaled["A"], scaled["B"], scaled["C"], scaled["D"]
    m, p = len(B[0]), len(C)
    mul = counted_product(g * 0, "the lags of this family")
    lags = []
    X = B
    for d in range(rows):
        L = mul(C, X)
        if d == 0 and D is not None:
            L = [[L[i][j] + g * D[i][j] for j in range(m)] for i in range(p)]
        lags.append(L)
        if d + 1 < rows:
            X = mul(A, X)
    return pairs, g, lags


def _relations(lags, witness, positions, delta, p, m, one, skip_zero=False):
    M = [[lags[d][r][c] for r, c in positions] for d in witness]
    out = []
    for d, L in enumerate(lags):
        if d in witness or (skip_zero and all(x.is_zero() for row in L for x in row)):
            continue
        v = [L[r][c] for r, c in positions]
        ps = []
        for s in range(len(witness)):
            rows = [list(row) for row in M]
            rows[s] = v
            ps.append(_det(rows, one))
        q = delta
        common = q
        for x in ps:
            common = _gcd(common, x)
        if not _is_const(common):
            q = _exquo(q, common)
            ps = [_exquo(x, common) for x in ps]
        scale, q = _primitive(q)
        ps = [x * _fmpq(scale) for x in ps]
        for i in range(p):
            for j in range(m):
                rhs = one * 0
                for s in range(len(witness)):
                    rhs = rhs + ps[s] * lags[witness[s]][i][j]
                if q * L[i][j] != rhs:
                    return None
        out.append((d, q, tuple(ps)))
    return out


def _factor_list(poly):
    if _is_const(poly):
        return _const(poly), []
    c, fs = poly.factor()
    return _frac(c), [(f, int(e)) for f, e in fs]


def _term_dict(poly):
    """A FLINT polynomial as ``{exponent tuple: Fraction}`` (what :mod:`.covering` decides on)."""
    return {tuple(int(e) for e in mon): _frac(c) for mon, c in poly.terms()}


def _child_names(names, indices):
    return [x for i, x in enumerate(names) if i not in indices]


def _from_terms(ctx, terms, keep):
    """The polynomial of a parent-keyed term dict in ``ctx``, keeping the exponents at ``keep`` (indices)."""
    if not terms:
        return ctx.from_dict({})
    if not keep:  # a context without parameters has one dummy variable
        return ctx.from_dict({(0,): _fmpq(sum(terms.values(), _ZERO))})
    return ctx.from_dict({tuple(mon[i] for i in keep): _fmpq(c) for mon, c in terms.items()})


def _substitute(fam, link):
    """The child family of a case: ``("solve", i, value, den)`` puts ``x_i = value / den`` (den None: 1),
    ``("zero", indices)`` sets those parameters to 0; value and den are parent-keyed term dicts free of
    the substituted parameters.  Entries are reduced with a monic denominator, as the root's are.

    Raises
    ------
    InputError
        If a denominator vanishes identically there (the case is not built).
    LimitError
        If an entry of the child grows beyond the formula limits.
    """
    names = list(fam.parameters)
    gone = (link[1],) if link[0] == "solve" else tuple(link[1])
    keep = [i for i in range(len(names)) if i not in gone]
    rest = _child_names(names, gone)
    child_ctx = _context(rest)
    zero = child_ctx.from_dict({})
    one = zero + 1
    gens = list(child_ctx.gens()) if rest else []
    if link[0] == "solve":
        index = link[1]
        value = _from_terms(child_ctx, link[2], keep)
        den = None if link[3] is None else _from_terms(child_ctx, link[3], keep)
        where = f"{names[index]} = {value}" + ("" if den is None else f" / ({den})")
    else:
        index, value, den = None, None, None
        where = " = ".join(names[i] for i in gone) + " = 0"
    images, g = [], iter(gens)
    for i in range(len(names)):
        images.append(value if i == index else zero if i in gone else next(g))

    def apply(poly):
        if den is None or poly.is_constant():
            return poly.compose(*images, ctx=child_ctx), 0
        # x = value / den: den^e poly(value / den) = sum_k c_k value^k den^(e - k), by Horner in value and den
        by_power = {}
        for mon, c in _term_dict(poly).items():
            by_power.setdefault(mon[index], {})[mon] = c
        e = max(by_power)
        acc = _from_terms(child_ctx, by_power.get(e, {}), keep)
        for k in range(e - 1, -1, -1):
            acc = acc * value + _from_terms(child_ctx, by_power.get(k, {}), keep) * den ** (e - k)
        return acc, e

    out = {}
    for key, rows in fam.pairs.items():
        if rows is None:
            out[key] = None
            continue
        new_rows = []
        for row in rows:
            new = []
            for num, d in row:
                if num.is_zero():  # most entries of a structured family: 0 stays 0 over 1
                    new.append((zero, one))
                    continue
                n2, en = apply(num)
                d2, ed = (one, 0) if d.is_one() else apply(d)
                if den is not None and en != ed:  # the same power of den on both sides
                    if en > ed:
                        d2 = d2 * den ** (en - ed)
                    else:
                        n2 = n2 * den ** (ed - en)
                if d2.is_zero():
                    raise InputError(f"the family is undefined where {where}: a denominator vanishes")
                if not _is_const(d2) and not n2.is_zero():
                    common = n2.gcd(d2)
                    if not _is_const(common):
                        n2, d2 = n2 / common, d2 / common
                if n2.is_zero():
                    d2 = one
                else:
                    lead = d2.leading_coefficient()
                    if lead != 1:
                        n2, d2 = n2 * (1 / lead), d2 * (1 / lead)
                _check_formula(n2, d2)
                new.append((n2, d2))
            new_rows.append(new)
        out[key] = new_rows
    return _Family(rest, child_ctx, out, fam.name)


def _check_formula(num, den):
    """The limits a spec's formula has (as the reference re-parses the child's entries)."""
    if den.is_one() and len(num) == 1 and num.total_degree() <= 1 and abs(num.leading_coefficient().p) < 10**100 \
            and num.leading_coefficient().q < 10**100:
        return  # c or c*x with a short c: far inside every limit
    text = flint_rational_text(num, den)
    if len(text) > MAX_FORMULA_CHARS:
        raise LimitError(f"formula of {len(text)} characters; the limit is {MAX_FORMULA_CHARS}")
    for part in (num, den):
        if len(part) > MAX_POLY_TERMS:
            raise LimitError("more than the limit of terms")
        degree = part.total_degree() if not part.is_zero() else 0
        if degree > MAX_FORMULA_DEGREE:
            raise LimitError(f"degree {degree} is above the limit {MAX_FORMULA_DEGREE}")


def family_from_matrices(parameters, matrices, name):
    """A family over ``Q(parameters)`` from ``{key: rows of RationalFunction}`` (a None matrix stays None).

    The entries are :class:`~symssm.formats.ratfunc.RationalFunction` values of ``Q(parameters)``
    (reduced FLINT fractions in the parameters' context), as the formula parser gives them.  Nothing
    is checked: the source readers have validated the shapes and the formulas.

    Parameters
    ----------
    parameters : sequence of str
        The parameters' names, in the order of the context's variables.
    matrices : dict
        ``{key: rows of RationalFunction, or None}``: ``"A"`` .. ``"D"`` for an SSM, a layer's own
        keys (``"kernel[0]"``, ``"Q[1]"``, ...) for a layer.
    name : str
        The family's name.

    Returns
    -------
    family
        The engine's family (what :func:`scaled_entries`, :func:`prove_rows` and
        :class:`FlintEngine` take), holding each entry's ``(numerator, denominator)``.

    Examples
    --------
    >>> from symssm.formats.ratfunc import RationalFunctionField
    >>> F = RationalFunctionField(["t"]); t, = F.gens
    >>> fam = family_from_matrices(["t"], {"A": [[(1 - t * t) / (1 + t * t)]], "B": [[F.constant(1)]],
    ...                                    "C": [[t / 2]], "D": None}, "example")
    >>> fam.parameters, fam.N, fam.m, fam.p
    (('t',), 1, 1, 1)
    >>> family_key(fam)
    (('t',), ('A', (('-t^2 + 1', 't^2 + 1'),)), ('B', (('1', '1'),)), ('C', (('1/2*t', '1'),)), ('D', None))
    """
    names = list(parameters)
    ctx = _context(names)
    pairs = {key: None if mat is None else [[(x.numer, x.denom) for x in row] for row in mat]
             for key, mat in matrices.items()}
    return _Family(names, ctx, pairs, name)


class FlintEngine:
    """What :func:`~symssm.exact.bodies.run_cases` needs of the FLINT families (see there).

    Term dicts (``{exponent tuple: Fraction}``, one slot per parameter of ``fam``) are what
    :mod:`symssm.exact.covering` decides on; the engine turns them into FLINT polynomials and back.

    Examples
    --------
    >>> from symssm.sources.parametric import parametric_family
    >>> fam = family_head_count_flint(parametric_family("rotation-symbolic"), 4)[0].system
    >>> FlintEngine.names(fam)
    ('t',)
    >>> constant, factors = FlintEngine.factor(fam, {(2,): 2, (0,): -2})            # 2*t^2 - 2
    >>> constant, [(text, e) for text, _, e in factors]
    (Fraction(2, 1), [('t + 1', 1), ('t - 1', 1)])
    >>> FlintEngine.outside(fam, {(2,): 1, (0,): 1}), FlintEngine.outside(fam, {(1,): 1})  # t^2 + 1, t
    (True, False)
    """

    @staticmethod
    def names(fam):
        """The family's parameters (a tuple of names)."""
        return fam.parameters

    @staticmethod
    def key(fam):
        """:func:`family_key`: equal keys, one body."""
        return family_key(fam)

    @staticmethod
    def substitute(fam, link):
        """The family of a case: ``("solve", i, value, denominator)`` (term dicts of the parent, the
        denominator None for a constant coefficient) puts ``x_i = value / denominator``; ``("zero",
        indices)`` sets those parameters to 0.

        Raises
        ------
        InputError
            If a denominator vanishes identically there (the case is not built).
        LimitError
            If an entry of the case grows beyond the formula limits.
        """
        return _substitute(fam, link)

    @staticmethod
    def factor(fam, terms):
        """``(constant, [(text, terms, e)])``: the irreducible factors, primitive with a positive lead, by text."""
        poly = _from_terms(fam.ctx, terms, list(range(len(fam.parameters))))
        constant, fs = _factor_list(poly)
        out = []
        for f, e in fs:
            scale, f = _primitive(f)
            constant /= scale ** e
            out.append((poly_text(f, fam.parameters), _term_dict(f), e))
        return constant, sorted(out, key=lambda x: x[0])

    @staticmethod
    def outside(fam, terms):
        """Whether the polynomial ``terms`` divides a non-constant denominator of an entry of ``fam``."""
        f = _from_terms(fam.ctx, terms, list(range(len(fam.parameters))))
        return any(_divides(f, den) for rows in fam.pairs.values() if rows is not None for row in rows
                   for _, den in row if not _is_const(den))


def _from_system(system):
    """The engine's family of a :class:`~symssm.sources.parametric.ParametricSSM` (its parsed FLINT pairs)."""
    pairs = {key: None if system.pairs[key] is None else [list(row) for row in system.pairs[key]] for key in _KEYS}
    return _Family(system.parameters, _context(system.parameters), pairs, system.name)


def _analyse(fam, n):
    T = fam.N + (1 if fam.D is not None else 0)
    rows = min(n, T)
    pairs, g, lags = _scaled_lags(fam, rows)
    body = prove_rows(fam, pairs, g, lags, fam.p, fam.m, dimension_at=min(rows, fam.p * fam.m))
    k = body["head_count"]
    body["holds_for"] = (body["lags"][-1] + 1 if k else 0, None if n >= T else n)
    return body


def prove_rows(fam, pairs, g, rows, p, m, *, dimension_at, skip_zero=False, what="head count", with_minor=False):
    """The proof of one body: the rank of ``rows`` (p x m polynomial matrices) over ``Q(parameters)``.

    Witness rows and positions at the first deterministic sample point whose witness proves
    itself, the minor's determinant, a Cramer relation (reduced by the gcd) for every other row
    (every other nonzero row with ``skip_zero``) unless the rank is ``dimension_at``, and the
    factors of ``g * Delta * prod q`` with their status.  The fields of a
    :class:`~symssm.exact.bodies.Body` but ``holds_for``; the rank is ``head_count``; with ``with_minor``,
    also ``minor``, the witness minor's entries as texts.

    Parameters
    ----------
    fam : family
        The family (its parameters name the texts and the sample points).
    pairs : dict
        Its entries with primitive denominators (:func:`scaled_entries`): written into ``entries``;
        their non-constant denominators exclude sample points and make factors ``outside-domain``.
    g : flint.fmpq_mpoly
        The common denominator (:func:`scaled_entries`).
    rows : sequence
        The rows to rank: ``p x m`` matrices (lists of rows) of polynomials, in order (the scaled
        lags of a system, the scaled blocks of a layer).
    p, m : int
        The matrices' shape.
    dimension_at : int
        The rank at which no relation is needed (``min(len(rows), p * m)`` for a system's lags,
        ``p * m`` for a layer's blocks): every row then lies in the witnesses' span.
    skip_zero : bool, optional
        Write no relation for a row that is identically zero.
    what : str, optional
        What is proven, for the error message.
    with_minor : bool, optional
        Also return ``minor``.

    Returns
    -------
    dict
        ``entries`` (each key's rows of ``(numerator, denominator)`` texts, None stays None),
        ``denominator`` (``g``), ``head_count`` (the rank ``k``), ``lags`` and ``positions`` (the
        witness rows' indices into ``rows`` and their pivot ``(row, column)``), ``determinant``
        (``Delta``), ``dimension`` (whether ``k == dimension_at``), ``coefficients``
        (``((d, q_d, (p_(d,1), ...)), ...)``: ``q_d rows[d] = sum_s p_(d,s) rows[d_s]``), ``constant``
        and ``factors`` (``g * Delta * prod q_d = constant * prod f^e``, the factors as tuples
        ``(text, e, status, terms)`` sorted by text, status ``"outside-domain"`` or ``"open"``), and
        with ``with_minor`` ``minor`` (the witness minor ``rows[d_s][r_t][c_t]``, row by row, as texts).

    Raises
    ------
    InputError
        If no witness proves itself at the deterministic points.
    LimitError
        If a polynomial grows beyond the limits (``MAX_POLY_TERMS`` terms, degree ``MAX_POLY_DEGREE``).

    Examples
    --------
    Two 1 x 1 rows, ``t`` and ``t^2``: the first is the witness, the second is ``t`` times it.

    >>> from symssm.formats.ratfunc import RationalFunctionField
    >>> F = RationalFunctionField(["t"]); t, = F.gens
    >>> fam = family_from_matrices(["t"], {"A": [[t]]}, "")
    >>> pairs, g, scaled = scaled_entries(fam)
    >>> x = scaled["A"][0][0]
    >>> body = prove_rows(fam, pairs, g, [[[x]], [[x * x]]], 1, 1, dimension_at=2)
    >>> body["head_count"], body["lags"], body["determinant"], body["coefficients"]
    (1, (0,), 't', ((1, '1', ('t',)),))
    >>> [factor[:3] for factor in body["factors"]]
    [('t', 1, 'open')]
    """
    names = list(fam.parameters)
    one = g * 0 + 1
    # a constant denominator never vanishes: only the others can exclude a sample point
    dens = [den for key in pairs if pairs[key] is not None for row in pairs[key] for _, den in row
            if not den.is_constant()]
    for point in sample_points(fam.parameters, dens, _value):
        witness, positions = witness_at(rows, point, p, m, _value)
        k = len(witness)
        delta = _det([[rows[d][r][c] for r, c in positions] for d in witness], one) if k else one
        _check_terms(delta, "the determinant")
        dimension = k == dimension_at
        relations = [] if dimension else _relations(rows, witness, positions, delta, p, m, one, skip_zero)
        if relations is None:
            continue
        break
    else:
        raise InputError(f"could not prove a generic {what} at the deterministic sample points (the "
                         "denominators vanish too often); please report this case")
    for poly in [g] + [q for _, q, _ in relations] + [x for _, _, ps in relations for x in ps]:
        _check_terms(poly, "a polynomial of the proof")  # the determinant was checked above

    def text(poly):
        if poly.is_zero():
            return "0"
        return "1" if poly.is_one() else poly_text(poly, names)

    constant, merged = Fraction(1), {}
    for poly in [g, delta] + [q for _, q, _ in relations]:
        c, fs = _factor_list(poly)
        constant *= c
        for f, e in fs:
            scale, f = _primitive(f)
            constant /= scale ** e
            key = text(f)
            merged[key] = (f, merged.get(key, (f, 0))[1] + e)
    dens = [den for key in pairs if pairs[key] is not None for row in pairs[key] for _, den in row
            if not _is_const(den)]
    factors = []
    for key in sorted(merged):
        f, e = merged[key]
        status = "outside-domain" if any(_divides(f, den) for den in dens) else "open"
        factors.append((key, e, status, _term_dict(f)))
    entries = {key: (None if pairs[key] is None else tuple(tuple((text(a), text(b)) for a, b in row)
                                                           for row in pairs[key]))
               for key in pairs}
    k = len(witness)
    return {
        "entries": entries, "denominator": text(g), "head_count": k, "lags": witness,
        "positions": positions, "determinant": text(delta), "dimension": dimension,
        "coefficients": tuple((d, text(q), tuple(text(x) for x in ps)) for d, q, ps in relations),
        "constant": format_rational(constant),
        "factors": factors,
        **({"minor": tuple(tuple(text(rows[d][r][c]) for r, c in positions) for d in witness)} if with_minor else {}),
    }


def family_head_count_flint(system, n, *, max_cases=MAX_CASES):
    """Every body of a family's certificate, on FLINT (see :func:`~symssm.exact.parametric.family_head_count`).

    Each distinct family of the case graph is analysed once (the scaled lags ``Lambda_0 ..
    Lambda_(min(n, T) - 1)`` and :func:`prove_rows`), then :func:`~symssm.exact.bodies.run_cases`
    covers the factors and links the cases.

    Parameters
    ----------
    system : ParametricSSM
        The family (its parsed FLINT pairs are read).
    n : int
        The sequence length, a non-negative int (not checked here: the certificate's builder checks it).
    max_cases : int, optional
        The most bodies, the generic one included; a case beyond it leaves its factor uncovered.

    Returns
    -------
    list of Body
        The generic body first, then the cases (:func:`~symssm.exact.bodies.run_cases`); each body's
        ``system`` is this module's family.

    Raises
    ------
    InputError
        If no witness could be proven at the deterministic points.
    LimitError
        If a polynomial grows beyond the limits.

    Examples
    --------
    With room for one body only, the case ``t = 0`` is not built and the certificate says so:

    >>> from symssm.sources.parametric import parametric_family
    >>> bodies = family_head_count_flint(parametric_family("rotation-symbolic"), 4, max_cases=1)
    >>> len(bodies), bodies[0].complete, [(f.text, f.status) for f in bodies[0].factors]
    (1, False, [('t', 'uncovered'), ('t^2 + 1', 'outside-domain')])
    >>> bodies[0].factors[0].reason
    'linear in t, but its case was not built (the limit on cases or on formula size was reached)'
    """
    analysed = {}

    def analyse(fam):
        # a case tree reaches the same family along several paths (l1 = l2 then l3 = l4, or the other
        # way round): each distinct family is analysed once, and every body of it gets a copy
        key = family_key(fam)
        if key not in analysed:
            analysed[key] = _analyse(fam, n)
        return dict(analysed[key])

    return run_cases(_from_system(system), analyse, FlintEngine, max_cases)


def family_key(fam):
    """Everything the analysis reads of a family: its parameters and its entries (exact texts), by key.

    Two families with equal keys have the same analysis (one body in the case graph).

    Parameters
    ----------
    fam : family
        A family of this module.

    Returns
    -------
    tuple
        ``(parameters, (key, entries), ...)`` over the sorted keys, ``entries`` the flattened
        ``(numerator, denominator)`` texts row by row, or None for an absent matrix.

    Examples
    --------
    >>> from symssm.formats.ratfunc import RationalFunctionField
    >>> F = RationalFunctionField(["a", "b"]); a, b = F.gens
    >>> family_key(family_from_matrices(["a", "b"], {"B": [[a / b]], "A": [[a, b]], "D": None}, ""))
    (('a', 'b'), ('A', (('a', '1'), ('b', '1'))), ('B', (('a', 'b'),)), ('D', None))
    """
    return (tuple(fam.parameters),) + tuple(
        (key, None if fam.pairs[key] is None else tuple((str(a), str(b)) for row in fam.pairs[key] for a, b in row))
        for key in sorted(fam.pairs))
