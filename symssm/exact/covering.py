"""Covering a factor of an exceptional set over the rationals: which rule decides where it vanishes.

A body of a parametric certificate proves its count off the zero sets of its factors (irreducible
polynomials in the body's parameters).  Each factor ``f`` is covered, when one of these rules
applies (theory.md section 7, docs/parametric.md), in this order:

1. **solve**, ``f`` of degree 1 in a parameter ``x`` with a *constant* coefficient: ``x = value``, a
   polynomial in the others (the case is the family with ``x`` replaced);
2. **definite-form** / **definite**, ``f`` of total degree 2 whose Gram matrix (over its variables,
   and the constant 1 when ``f`` is not homogeneous) has an exact ``L D L^T`` with positive pivots:
   a form then vanishes at a real point only where its variables are 0 (the case sets them to 0),
   and a non-homogeneous one vanishes nowhere;
3. **univariate**, ``f`` in one parameter of degree >= 2 with no rational root (rational root
   theorem): no rational zero at all;
4. **binary-form**, ``f`` homogeneous of degree >= 2 in exactly two parameters ``x, y`` with an
   ``x^d`` term and no rational root of ``f(t, 1)``: its only rational zero is ``x = y = 0`` (the case);
5. **solve** with a polynomial coefficient ``a``: ``f = a x + b`` is solved as ``x = -b / a`` where
   ``a != 0``; the factors of ``a`` are covered separately (each by these rules) as the sibling cases
   (:func:`solve_parameter` says which parameter).

A factor no rule decides stays uncovered, with the reason (:func:`uncovered_reason`).  Polynomials
here are ``{exponent tuple: Fraction}`` dicts in the body's parameters (lex order = tuple order), so
both engines (FLINT and the SymPy reference) take the same decisions and write the same bytes.

Examples
--------
>>> from fractions import Fraction as F
>>> cone = {(1, 0, 1): F(1), (0, 2, 0): F(-1)}          # x*z - y^2 in x, y, z
>>> decide(cone, ["x", "y", "z"])[:2]                    # x and z have the coefficients z and x: the last
('solve', 2)
>>> value, den = solution(cone, 2)                        # z = y^2 / x, in the parameters x, y
>>> terms_text(drop(value, 2), ["x", "y"]), terms_text(drop(den, 2), ["x", "y"])
('y^2', 'x')
>>> decide({(2, 0): F(1), (0, 2): F(-2)}, ["x", "y"])  # x^2 - 2*y^2
('binary-form', (0, 1))
>>> decide({(2, 0): F(1), (0, 2): F(1)}, ["x", "y"])[:2]  # x^2 + y^2
('definite-form', (0, 1))
>>> uncovered_reason({(4, 0, 0): F(1), (0, 1, 1): F(1), (0, 2, 2): F(1)}, ["x", "y", "z"])
'no parameter of degree 1, not a binary form, not a definite quadratic'
"""

from fractions import Fraction
from math import gcd, isqrt

from ..formats.limits import MAX_ROOT_CANDIDATES, MAX_ROOT_COEFFICIENT
from ..formats.rationals import format_rational

__all__ = ["decide", "solution", "drop", "solve_parameter", "uncovered_reason", "not_built_reason", "terms_text",
           "rational_root_status", "gram_matrix", "ldl", "variables", "RULES_WITH_CASE", "NO_ZERO_RULES"]

#: Rules whose zero set is a family of its own (a body); the others show that there is no rational zero.
RULES_WITH_CASE = ("solve", "definite-form", "binary-form")
NO_ZERO_RULES = ("definite", "univariate")


# ---------------------------------------------------------------- small helpers on term dicts

def variables(terms):
    """Indices of the parameters that occur in ``terms``, in order.

    Parameters
    ----------
    terms : dict
        A polynomial as ``{exponent tuple: coefficient}``.

    Returns
    -------
    tuple of int
        The increasing indices ``i`` with a nonzero exponent ``mon[i]`` in some monomial.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> variables({(1, 0, 1): F(1), (0, 2, 0): F(-1)}), variables({(0, 2, 0): F(1), (0, 0, 0): F(3)})
    ((0, 1, 2), (1,))
    """
    seen = set()
    for mon in terms:
        seen.update(i for i, e in enumerate(mon) if e)
    return tuple(sorted(seen))


def _degree(terms, i):
    return max((mon[i] for mon in terms), default=0)


def _total(terms):
    return max((sum(mon) for mon in terms), default=0)


def _is_constant(terms):
    return all(not any(mon) for mon in terms)


def _split(terms, i):
    """``(a, b)`` with ``terms = a x_i + b``, both free of ``x_i`` (exponent tuples keep the slot, at 0)."""
    a, b = {}, {}
    for mon, c in terms.items():
        if mon[i] == 1:
            a[mon[:i] + (0,) + mon[i + 1:]] = c
        else:
            b[mon] = c
    return a, b


def _coefficient_text(c):
    return format_rational(c)


def terms_text(terms, names):
    """The canonical text of a term dict (lex order, as ``polynomial_text`` and FLINT print it).

    Parameters
    ----------
    terms : dict
        A polynomial as ``{exponent tuple: Fraction}`` (an int coefficient is read as a Fraction).
    names : sequence of str
        One name per exponent slot.

    Returns
    -------
    str
        The terms in decreasing lex order of their exponent tuples, ``*`` between factors, ``^`` for
        powers, a coefficient 1 left out and the others written as ``p/q``; ``"0"`` for no terms.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> terms_text({(1, 0): F(3, 2), (0, 2): F(-1), (0, 0): F(1)}, ["x", "y"])
    '3/2*x - y^2 + 1'
    >>> terms_text({}, ["x"])
    '0'
    """
    parts = []
    for mon in sorted(terms, reverse=True):
        c = Fraction(terms[mon])
        factors = [name if e == 1 else f"{name}^{e}" for name, e in zip(names, mon) if e]
        sign, c = ("-" if c < 0 else "+"), abs(c)
        body = _coefficient_text(c) if not factors else ("*".join(factors) if c == 1 else
                                                          _coefficient_text(c) + "*" + "*".join(factors))
        parts.append((sign, body))
    if not parts:
        return "0"
    text = ("-" if parts[0][0] == "-" else "") + parts[0][1]
    for sign, body in parts[1:]:
        text += f" {sign} {body}"
    return text


# ---------------------------------------------------------------- rule 1 and 5: solving for a parameter

def solve_parameter(terms):
    """The parameter to solve ``terms`` for: ``(index, constant_coefficient)`` or None if none has degree 1.

    The first parameter (in order) of degree 1 with a constant coefficient; else, among those of
    degree 1, the one whose coefficient involves the fewest parameters, then has the fewest terms,
    then the last in order (this keeps the case graphs of the built-in families and of linear
    attention on symbolic tokens smallest among the rules tried).  The checker's reason for an
    uncovered factor names the same parameter.

    Parameters
    ----------
    terms : dict
        A polynomial as ``{exponent tuple: Fraction}``.

    Returns
    -------
    tuple of (int, bool) or None
        The parameter's index and whether its coefficient (``a`` in ``terms = a x + b``) is a
        constant; None when no parameter has degree 1 (or ``terms`` is empty).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> solve_parameter({(1, 0): F(2), (0, 2): F(1)})            # 2*x + y^2: x, coefficient 2
    (0, True)
    >>> solve_parameter({(1, 0, 1): F(1), (0, 2, 0): F(-1)})     # x*z - y^2: x and z tie, the last wins
    (2, False)
    >>> solve_parameter({(2, 0): F(1), (0, 2): F(1)}) is None    # x^2 + y^2
    True
    """
    nv = len(next(iter(terms))) if terms else 0
    best = None
    for i in range(nv):
        if _degree(terms, i) != 1:
            continue
        a, _ = _split(terms, i)
        if _is_constant(a):
            return i, True
        key = (len(variables(a)), len(a), -i)
        if best is None or key < best:
            best = key
    return None if best is None else (-best[2], False)


def drop(terms, i):
    """``terms`` (free of parameter ``i``) without that parameter's exponent.

    Parameters
    ----------
    terms : dict
        A polynomial as ``{exponent tuple: coefficient}`` whose exponent of parameter ``i`` is 0 in
        every monomial (as :func:`solution` returns them); it is not checked.
    i : int
        The slot to remove.

    Returns
    -------
    dict
        The same coefficients, keyed by the exponent tuples without slot ``i``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> drop({(0, 2, 0): F(1), (1, 0, 0): F(3)}, 2)
    {(0, 2): Fraction(1, 1), (1, 0): Fraction(3, 1)}
    """
    return {mon[:i] + mon[i + 1:]: c for mon, c in terms.items()}


def solution(terms, i):
    """``(value, denominator)`` solving ``terms = 0`` for parameter ``i`` (degree 1 there), as term dicts.

    Both are free of parameter ``i`` and keep its (zero) exponent slot (:func:`drop` removes it).  A
    constant coefficient ``c`` gives ``value = -b / c`` and ``denominator`` None; a polynomial one
    ``a`` gives ``value = -s b``, ``denominator = s a`` with the rational ``s`` that makes both integer
    with no common content and ``a``'s leading coefficient (lex order) positive.

    Parameters
    ----------
    terms : dict
        A polynomial ``a x_i + b`` as ``{exponent tuple: Fraction}``, of degree exactly 1 in parameter
        ``i`` (as :func:`solve_parameter` picks it; not checked).
    i : int
        The parameter to solve for.

    Returns
    -------
    value : dict
        The numerator of ``x_i``, a term dict free of parameter ``i``.
    denominator : dict or None
        None for a constant coefficient (``x_i = value``), else the denominator (``x_i = value /
        denominator``, where ``denominator != 0``), a term dict free of parameter ``i``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> value, den = solution({(1, 0): F(2), (0, 1): F(-3), (0, 0): F(1)}, 0)   # 2*x - 3*y + 1
    >>> terms_text(drop(value, 0), ["y"]), den
    ('3/2*y - 1/2', None)
    >>> value, den = solution({(1, 1): F(-2, 3), (0, 0): F(4, 3)}, 0)            # -2/3*x*y + 4/3
    >>> terms_text(drop(value, 0), ["y"]), terms_text(drop(den, 0), ["y"])       # x = 2 / y
    ('2', 'y')
    """
    a, b = _split(terms, i)
    if _is_constant(a):
        c = next(iter(a.values()))
        return {mon: -v / c for mon, v in b.items()}, None
    scale = 1
    for c in list(a.values()) + list(b.values()):
        scale = scale * c.denominator // gcd(scale, c.denominator)
    content = 0
    for c in list(a.values()) + list(b.values()):
        content = gcd(content, int(c * scale))
    s = Fraction(scale, content) * (1 if a[max(a)] > 0 else -1)
    return {mon: -v * s for mon, v in b.items()}, {mon: v * s for mon, v in a.items()}


# ---------------------------------------------------------------- rules 3 and 4: rational roots

def _integers(coeffs):
    """The coefficients (Fractions) scaled to coprime integers (sign kept)."""
    scale = 1
    for c in coeffs:
        scale = scale * c.denominator // gcd(scale, c.denominator)
    ints = [int(c * scale) for c in coeffs]
    content = 0
    for x in ints:
        content = gcd(content, x)
    return [x // content for x in ints] if content else ints


def _divisors(n):
    small, large = [], []
    for q in range(1, isqrt(n) + 1):
        if n % q == 0:
            small.append(q)
            if q * q != n:
                large.append(n // q)
    return small + large[::-1]


def rational_root_status(coeffs):
    """``"root"``, ``"no root"`` or ``"beyond limits"`` for ``sum coeffs[i] t^i`` (Fractions, degree >= 1).

    The rational root theorem: a root ``p/q`` in lowest terms has ``p | c_0`` and ``q | c_d``; every
    candidate is evaluated exactly.  Beyond :data:`MAX_ROOT_COEFFICIENT` (for ``|c_0|`` or ``|c_d|``,
    after scaling to coprime integers) or :data:`MAX_ROOT_CANDIDATES` candidates the test is not run.

    Parameters
    ----------
    coeffs : sequence of Fraction
        ``c_0, ..., c_d``, lowest degree first, of a polynomial of degree >= 1 (trailing zeros are
        ignored).

    Returns
    -------
    {"root", "no root", "beyond limits"}
        ``"root"`` when a rational root exists (``t = 0`` when ``c_0 = 0``), ``"no root"`` when every
        candidate was evaluated and none is a root, ``"beyond limits"`` when the test was not run.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> rational_root_status([F(-2), F(0), F(1)]), rational_root_status([F(-1, 4), F(0), F(1)])
    ('no root', 'root')
    >>> rational_root_status([F(10**10), F(1)])
    'beyond limits'
    """
    c = _integers(coeffs)
    while c and c[-1] == 0:
        c.pop()
    if c[0] == 0:
        return "root"  # t = 0
    c0, cd = abs(c[0]), abs(c[-1])
    if c0 > MAX_ROOT_COEFFICIENT or cd > MAX_ROOT_COEFFICIENT:
        return "beyond limits"
    ps, qs = _divisors(c0), _divisors(cd)
    if 2 * len(ps) * len(qs) > MAX_ROOT_CANDIDATES:
        return "beyond limits"
    d = len(c) - 1
    for q in qs:
        for p in ps:
            if gcd(p, q) != 1:
                continue
            for sp in (p, -p):
                if sum(ci * sp ** i * q ** (d - i) for i, ci in enumerate(c)) == 0:
                    return "root"
    return "no root"


def _univariate(terms, names):
    vs = variables(terms)
    if len(vs) != 1 or _degree(terms, vs[0]) < 2:
        return None
    i = vs[0]
    d = _degree(terms, i)
    coeffs = [Fraction(0)] * (d + 1)
    for mon, c in terms.items():
        coeffs[mon[i]] = Fraction(c)
    return i, rational_root_status(coeffs)


def _binary(terms):
    """``((x, y), status)`` for a form of degree >= 2 in exactly two parameters, else None.

    ``status`` is that of ``f(t, 1)``'s rational roots, or ``"root"`` when ``f`` has no ``x^d`` term
    (then ``y`` divides ``f`` and ``y = 0`` is a line of zeros).
    """
    vs = variables(terms)
    if len(vs) != 2:
        return None
    d = _total(terms)
    if d < 2 or any(sum(mon) != d for mon in terms):
        return None
    x, y = vs
    coeffs = [Fraction(0)] * (d + 1)
    for mon, c in terms.items():
        coeffs[mon[x]] = Fraction(c)
    if coeffs[d] == 0:
        return vs, "root"
    return vs, rational_root_status(coeffs)


# ---------------------------------------------------------------- rule 2: definite quadratics

def gram_matrix(terms):
    """``(variables, homogeneous, G)``: the symmetric Gram matrix of a polynomial of total degree 2, else None.

    ``f = m^T G m`` with ``m`` the variables (in order), followed by the constant 1 when ``f`` is
    not homogeneous: ``G_ii`` is the coefficient of ``x_i^2``, ``G_ij`` half that of ``x_i x_j``, the
    last row and column half the linear coefficients, and the corner the constant.

    Parameters
    ----------
    terms : dict
        A polynomial as ``{exponent tuple: Fraction}``.

    Returns
    -------
    tuple or None
        ``(variables, homogeneous, G)``: the indices of the parameters that occur (:func:`variables`),
        whether every term has degree 2, and ``G`` as a list of rows of Fractions (one more row and
        column than variables when not homogeneous); None when the total degree is not 2.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> vs, homogeneous, G = gram_matrix({(2,): F(1), (1,): F(2), (0,): F(3)})   # x^2 + 2*x + 3
    >>> vs, homogeneous, [[str(x) for x in row] for row in G]
    ((0,), False, [['1', '1'], ['1', '3']])
    >>> gram_matrix({(1, 0, 1): F(1), (0, 2, 0): F(-1)})[2][0]                     # x*z - y^2
    [Fraction(0, 1), Fraction(0, 1), Fraction(1, 2)]
    >>> gram_matrix({(3, 0): F(1), (0, 1): F(1)}) is None
    True
    """
    if _total(terms) != 2:
        return None
    vs = variables(terms)
    homogeneous = all(sum(mon) == 2 for mon in terms)
    k = len(vs) + (0 if homogeneous else 1)
    where = {v: t for t, v in enumerate(vs)}
    G = [[Fraction(0)] * k for _ in range(k)]
    for mon, c in terms.items():
        idx = [where[i] for i, e in enumerate(mon) for _ in range(e)]
        while len(idx) < 2:
            idx.append(k - 1)  # the constant monomial 1
        r, s = idx
        if r == s:
            G[r][r] += Fraction(c)
        else:
            G[r][s] += Fraction(c) / 2
            G[s][r] += Fraction(c) / 2
    return vs, homogeneous, G


def ldl(G):
    """``(L, D)`` with ``G = L diag(D) L^T`` (``L`` unit lower triangular) when every pivot is positive, else None.

    Without pivoting: a symmetric matrix is positive definite exactly when this elimination meets
    only positive pivots (its leading principal minors are the products of the pivots).

    Parameters
    ----------
    G : list of list of Fraction
        A symmetric square matrix (only its lower triangle and diagonal are read).

    Returns
    -------
    tuple of (list of list of Fraction, list of Fraction) or None
        ``L`` (rows, unit lower triangular) and the pivots ``D``, all positive; None as soon as a
        pivot is 0 or negative (``G`` is not positive definite).

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> L, D = ldl([[F(1), F(1)], [F(1), F(3)]])                    # x^2 + 2*x + 3 = (x + 1)^2 + 2
    >>> [[str(x) for x in row] for row in L], [str(d) for d in D]
    ([['1', '0'], ['1', '1']], ['1', '2'])
    >>> ldl([[F(1), F(0)], [F(0), F(-2)]]) is None                  # x^2 - 2*y^2: indefinite
    True
    """
    k = len(G)
    L = [[Fraction(int(r == c)) for c in range(k)] for r in range(k)]
    D = []
    for j in range(k):
        d = G[j][j] - sum(L[j][t] ** 2 * D[t] for t in range(j))
        if d <= 0:
            return None
        D.append(d)
        for r in range(j + 1, k):
            L[r][j] = (G[r][j] - sum(L[r][t] * L[j][t] * D[t] for t in range(j))) / d
    return L, D


def _definite(terms):
    gram = gram_matrix(terms)
    if gram is None:
        return None
    vs, homogeneous, G = gram
    fact = ldl(G)
    if fact is None:
        return None
    return vs, homogeneous, fact[0], fact[1]


# ---------------------------------------------------------------- the decision

def decide(terms, names):
    """Which rule covers the factor ``terms`` (a non-constant polynomial in ``names``).

    The rules are tried in the order of the module's docstring: solving with a constant coefficient,
    a definite quadratic, a polynomial in one parameter without a rational root, a binary form
    without a rational root, solving with a polynomial coefficient.

    Parameters
    ----------
    terms : dict
        A non-constant polynomial as ``{exponent tuple: Fraction}`` (not checked: a body's
        irreducible factor, or a factor of a solved coefficient).
    names : sequence of str
        The parameters' names, one per exponent slot (used in an uncovered factor's reason).

    Returns
    -------
    tuple
        One of ``("solve", i, value, denominator)`` (:func:`solution`'s term dicts, ``denominator``
        None for a constant coefficient), ``("definite-form", variables, L, D)`` (a case: the
        variables are 0), ``("definite", variables, L, D)`` (no real zero), ``("univariate", (i,))``
        (no rational zero), ``("binary-form", (x, y))`` (a case: both are 0) or ``("uncovered",
        reason)`` (:func:`uncovered_reason`).  ``variables`` are indices into ``names``; ``L`` and
        ``D`` are :func:`ldl` of :func:`gram_matrix`.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> decide({(1, 1): F(1), (0, 0): F(-1)}, ["x", "y"])[:2]            # x*y - 1: x = 1 / y
    ('solve', 1)
    >>> decide({(2, 0): F(1), (0, 2): F(1)}, ["x", "y"])[:2]             # x^2 + y^2: the case x = y = 0
    ('definite-form', (0, 1))
    >>> decide({(2, 0): F(1), (0, 2): F(1), (0, 0): F(1)}, ["x", "y"])[:2]  # x^2 + y^2 + 1: no zero
    ('definite', (0, 1))
    >>> decide({(2,): F(1), (0,): F(-2)}, ["t"])                         # t^2 - 2: no rational zero
    ('univariate', (0,))
    >>> decide({(2, 0): F(1), (0, 2): F(-2)}, ["x", "y"])                # x^2 - 2*y^2: the case x = y = 0
    ('binary-form', (0, 1))
    >>> decide({(2, 1, 0): F(1), (0, 2, 1): F(1), (1, 0, 2): F(1)}, ["a", "b", "c"])  # a^2*b + b^2*c + c^2*a
    ('uncovered', 'no parameter of degree 1, not a binary form, not a definite quadratic')
    """
    choice = solve_parameter(terms)
    if choice is not None and choice[1]:
        value, den = solution(terms, choice[0])
        return ("solve", choice[0], value, den)
    definite = _definite(terms)
    if definite is not None:
        vs, homogeneous, L, D = definite
        return ("definite-form" if homogeneous else "definite", vs, L, D)
    uni = _univariate(terms, names)
    if uni is not None and uni[1] == "no root":
        return ("univariate", (uni[0],))
    binary = _binary(terms)
    if binary is not None and binary[1] == "no root":
        return ("binary-form", binary[0])
    if choice is not None:
        value, den = solution(terms, choice[0])
        return ("solve", choice[0], value, den)
    return ("uncovered", uncovered_reason(terms, names))


def uncovered_reason(terms, names):
    """Why no rule covers ``terms`` (when :func:`decide` says uncovered): three clauses, one per rule.

    The checker derives the same text from the polynomial with its own code.

    Parameters
    ----------
    terms : dict
        A polynomial as ``{exponent tuple: Fraction}`` that no rule covers (not checked: the first
        clause always says that no parameter has degree 1).
    names : sequence of str
        The parameters' names, one per exponent slot.

    Returns
    -------
    str
        ``"no parameter of degree 1, <why not a univariate or binary form>, not a definite quadratic"``.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> uncovered_reason({(2,): F(1), (0,): F(-10**10 - 1)}, ["t"]).split(", ")  # |c_0| > MAX_ROOT_COEFFICIENT
    ['no parameter of degree 1', 'a polynomial in t alone beyond the limits of the rational-root test',
     'not a definite quadratic']
    """
    clauses = ["no parameter of degree 1"]
    uni = _univariate(terms, names)
    binary = _binary(terms)
    if uni is not None:
        what = f"a polynomial in {names[uni[0]]} alone"
        clauses.append(f"{what} beyond the limits of the rational-root test" if uni[1] == "beyond limits"
                       else f"{what} with a rational root")
    elif binary is not None:
        what = f"a binary form in {names[binary[0][0]]}, {names[binary[0][1]]}"
        clauses.append(f"{what} beyond the limits of the rational-root test" if binary[1] == "beyond limits"
                       else f"{what} with a rational zero besides 0")
    else:
        clauses.append("not a binary form")
    clauses.append("not a definite quadratic")
    return ", ".join(clauses)


def not_built_reason(decision, names):
    """The reason for a factor that a rule covers but whose case was not built (a limit was reached).

    Parameters
    ----------
    decision : tuple
        A decision of :func:`decide` whose rule has a case (:data:`RULES_WITH_CASE`: ``"solve"``,
        ``"definite-form"`` or ``"binary-form"``).
    names : sequence of str
        The parameters' names, one per exponent slot.

    Returns
    -------
    str
        What the factor is and that its case was not built.

    Examples
    --------
    >>> from fractions import Fraction as F
    >>> names = ["x", "y", "z"]
    >>> not_built_reason(decide({(1, 0, 1): F(1), (0, 2, 0): F(-1)}, names), names)
    'linear in z, but its case was not built (the limit on cases or on formula size was reached)'
    """
    rule = decision[0]
    if rule == "solve":
        what = f"linear in {names[decision[1]]}"
    else:
        shown = ", ".join(names[i] for i in decision[1])
        what = (f"a definite quadratic form in {shown}" if rule == "definite-form" else
                f"a binary form in {shown} with no rational root")
    return f"{what}, but its case was not built (the limit on cases or on formula size was reached)"
