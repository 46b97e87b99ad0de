"""The covering rules of parametric certificates: how each factor's zero set is decided, checked exactly.

Standard library only; written from docs/certificate-format.md, not from the generator.  A factor
item (in a body's ``factors.list`` or ``factors.coefficient_factors``) with a ``cover`` says which
rule decides where it vanishes, over the rationals:

- ``solve``: the factor ``f`` has degree 1 in ``parameter`` ``x``, ``f = a x + b``; ``value`` (and,
  when ``a`` is not constant, ``denominator``) are the canonical solution ``x = value / denominator``
  (recomputed here and compared), valid where the denominator is nonzero; the denominator is
  ``constant * prod g_t^e`` over the listed coefficient factors ``g_t`` (multiplied out), each covered
  in turn, so the points where it vanishes are covered too.  The case body's entries are the parent's
  with ``x`` replaced: ``num * s_den == s_num * den`` and ``den | s_den`` with ``s_num / s_den`` the
  parent's entry times ``denominator^e`` (``e`` its degree in ``x``), so the case is defined wherever
  the parent is.
- ``definite-form`` / ``definite``: ``f`` has total degree 2; its Gram matrix ``G`` (over its
  ``variables``, and 1 when ``f`` is not homogeneous) is built here, and ``L diag(D) L^T = G`` with
  ``L`` unit lower triangular and every ``D`` positive proves ``G`` positive definite: a form is then
  zero at a real point only where its variables are (the case sets them to 0), a non-homogeneous
  ``f`` nowhere (status ``no-zero``).
- ``binary-form``: ``f`` is homogeneous of degree >= 2 in exactly its two ``variables`` ``x, y`` with
  an ``x^d`` term, and ``f(t, 1)`` has no rational root (rational root theorem, every candidate
  evaluated): its only rational zero is ``x = y = 0`` (the case).
- ``univariate``: ``f`` is in one parameter, of degree >= 2, with no rational root (status ``no-zero``).

An ``uncovered`` item's ``reason`` must be the one derived here from the polynomial.  The work is
counted against the certificate's polynomial work limit before it is done, and the rational-root
test has its own bounds (:data:`MAX_ROOT_COEFFICIENT`, :data:`MAX_ROOT_CANDIDATES`, exit 2 beyond).
"""

from fractions import Fraction
from math import gcd, isqrt

from . import costs
from . import polynomials as P
from .reading import Malformed, Rejected, Unreadable, is_text

__all__ = ["MAX_ROOT_COEFFICIENT", "MAX_ROOT_CANDIDATES", "Item", "read_item", "check_denominators", "link_pairs",
           "incoming_links", "read_links", "check_link_names", "covered_items", "resolve", "ITEM_STATUSES",
           "scope", "decision", "expected_reason", "root_status"]

MAX_ROOT_COEFFICIENT = 10**9
MAX_ROOT_CANDIDATES = 100_000
ITEM_STATUSES = ("outside-domain", "case", "no-zero", "uncovered")
CASE_RULES = ("solve", "definite-form", "binary-form")
NO_ZERO_RULES = ("definite", "univariate")


class Item(tuple):
    """A checked factor item: ``(poly, text, status, case)`` with ``cover`` (a dict: ``rule``, and ``link``,
    ``den``, ``refs``, ``variables`` as the rule has them, or None) and ``kind`` (``factor`` or
    ``coefficient_factor``) and ``index``."""

    def __new__(cls, poly, text, status, case, cover=None, kind="factor", index=0, reason=None):
        self = super().__new__(cls, (poly, text, status, case))
        self.cover, self.kind, self.index, self.reason = cover, kind, index, reason
        return self


# ---------------------------------------------------------------- structure of a polynomial

def _vars(poly):
    out = set()
    for mon in poly:
        out.update(i for i, e in enumerate(mon) if e)
    return sorted(out)


def _deg(poly, i):
    return max((mon[i] for mon in poly), default=0)


def _total(poly):
    return max((sum(mon) for mon in poly), default=0)


def _split(poly, i):
    a, b = {}, {}
    for mon, c in poly.items():
        if mon[i] == 1:
            a[mon[:i] + (0,) + mon[i + 1:]] = c
        else:
            b[mon] = c
    return a, b


def _constant(poly):
    return all(not any(mon) for mon in poly)


def _choice(poly):
    """``(i, constant coefficient?)``: the parameter the format's rule solves for, or None (none has degree 1)."""
    best = None
    for i in range(len(next(iter(poly))) if poly else 0):
        if _deg(poly, i) != 1:
            continue
        a, _ = _split(poly, i)
        if _constant(a):
            return i, True
        key = (len(_vars(a)), len(a), -i)  # fewest parameters in the coefficient, fewest terms, the last
        best = key if best is None or key < best else best
    return None if best is None else (-best[2], False)


def _solution(poly, i):
    """``(value, den)`` for ``poly = 0`` solved for ``x_i``, exponents of ``x_i`` dropped; den None if constant."""
    a, b = _split(poly, i)

    def drop(p):
        return {mon[:i] + mon[i + 1:]: c for mon, c in p.items()}

    if _constant(a):
        c = next(iter(a.values()))
        return drop({mon: -v / c for mon, v in b.items()}), None
    coeffs = list(a.values()) + list(b.values())
    # the lcm, the content gcd and the scaled solution: charged before they run
    P._spend(costs.content_work(coeffs) + len(coeffs) * (1 + costs.lowest_terms_work(2 * costs.common_words(coeffs))))
    lcm_den = 1
    for c in coeffs:
        lcm_den = lcm_den * c.denominator // gcd(lcm_den, c.denominator)
    content = 0
    for c in coeffs:
        content = gcd(content, int(c * lcm_den))
    s = Fraction(lcm_den, content) * (1 if a[max(a)] > 0 else -1)
    return drop({mon: -v * s for mon, v in b.items()}), drop({mon: v * s for mon, v in a.items()})


def _primitive_ints(coeffs):
    P._spend(costs.content_work(coeffs))  # the lcm and the content gcd, before they run
    lcm_den = 1
    for c in coeffs:
        lcm_den = lcm_den * c.denominator // gcd(lcm_den, c.denominator)
    ints = [int(c * lcm_den) for c in coeffs]
    content = 0
    for x in ints:
        content = gcd(content, x)
    return [x // content for x in ints] if content else ints


def _divisors(n):
    P._spend(isqrt(n) + 1)
    low, high = [], []
    for q in range(1, isqrt(n) + 1):
        if n % q == 0:
            low.append(q)
            if q * q != n:
                high.append(n // q)
    return low + high[::-1]


def root_status(coeffs, *, spend=True):
    """``"root"``, ``"no root"`` or ``"beyond limits"`` for the polynomial ``sum coeffs[i] t^i`` (Fractions).

    Rational root theorem: a root ``p/q`` in lowest terms of the integer polynomial has ``p | c_0``
    and ``q | c_d``.  The divisors are found by trial division and every candidate evaluated exactly,
    after the cost is counted; beyond the limits the test is not run.
    """
    c = _primitive_ints(coeffs)
    while c and c[-1] == 0:
        c.pop()
    if len(c) < 2:
        return "no root" if c else "root"
    if c[0] == 0:
        return "root"
    c0, cd = abs(c[0]), abs(c[-1])
    if c0 > MAX_ROOT_COEFFICIENT or cd > MAX_ROOT_COEFFICIENT:
        return "beyond limits"
    ps, qs = _divisors(c0), _divisors(cd)
    if 2 * len(ps) * len(qs) > MAX_ROOT_CANDIDATES:
        return "beyond limits"
    d = len(c) - 1
    # every candidate costs d + 1 products of integers of up to d * bits(p, q) + bits(c) bits: counted first
    cbits = max(x.bit_length() for x in c)
    P._spend(sum(2 * (d + 1) * (1 + (d * max(p.bit_length(), q.bit_length()) + cbits) // 64) for q in qs for p in ps))
    for q in qs:
        for p in ps:
            if gcd(p, q) != 1:
                continue
            for s in (p, -p):
                acc, qpow = c[d], 1  # sum c_i s^i q^(d-i), by Horner in s with the powers of q
                for i in range(d - 1, -1, -1):
                    qpow *= q
                    acc = acc * s + c[i] * qpow
                if acc == 0:
                    return "root"
    return "no root"


def _univariate(poly):
    vs = _vars(poly)
    if len(vs) != 1 or _deg(poly, vs[0]) < 2:
        return None
    coeffs = [Fraction(0)] * (_deg(poly, vs[0]) + 1)
    for mon, c in poly.items():
        coeffs[mon[vs[0]]] = c
    return vs, root_status(coeffs)


def _binary(poly):
    vs = _vars(poly)
    d = _total(poly)
    if len(vs) != 2 or d < 2 or any(sum(mon) != d for mon in poly):
        return None
    coeffs = [Fraction(0)] * (d + 1)
    for mon, c in poly.items():
        coeffs[mon[vs[0]]] = c
    if not coeffs[d]:
        return vs, "root"  # y divides the form: the line y = 0 is a zero set
    return vs, root_status(coeffs)


def _gram(poly):
    """``(variables, homogeneous, G)`` for a polynomial of total degree 2, else None."""
    if _total(poly) != 2:
        return None
    vs = _vars(poly)
    homogeneous = all(sum(mon) == 2 for mon in poly)
    k = len(vs) + (0 if homogeneous else 1)
    at = {v: t for t, v in enumerate(vs)}
    G = [[Fraction(0)] * k for _ in range(k)]
    for mon, c in poly.items():
        idx = [at[i] for i, e in enumerate(mon) for _ in range(e)] + [k - 1, k - 1]
        r, s = idx[0], idx[1]
        if r == s:
            G[r][r] += c
        else:
            G[r][s] += c / 2
            G[s][r] += c / 2
    return vs, homogeneous, G


def _definite(poly):
    """Whether the Gram matrix is positive definite (positive pivots of elimination without pivoting)."""
    gram = _gram(poly)
    if gram is None:
        return None
    vs, homogeneous, G = gram
    k = len(G)
    P._spend(costs.elimination_work(k, max(costs.fraction_words(x) for row in G for x in row)))
    M = [row[:] for row in G]
    for j in range(k):
        if M[j][j] <= 0:
            return None
        for r in range(j + 1, k):
            f = M[r][j] / M[j][j]
            for c in range(j, k):
                M[r][c] -= f * M[j][c]
    return vs, homogeneous


def decision(poly, names):
    """The rule the format's order picks for ``poly``: ``(rule, variables or parameter index)``, or
    ``("uncovered", reason)`` (the same order as the generator's: docs/certificate-format.md)."""
    choice = _choice(poly)
    if choice is not None and choice[1]:
        return "solve", choice[0]
    definite = _definite(poly)
    if definite is not None:
        return ("definite-form" if definite[1] else "definite"), definite[0]
    uni = _univariate(poly)
    if uni is not None and uni[1] == "no root":
        return "univariate", uni[0]
    binary = _binary(poly)
    if binary is not None and binary[1] == "no root":
        return "binary-form", binary[0]
    if choice is not None:
        return "solve", choice[0]
    clauses = ["no parameter of degree 1"]
    if uni is not None:
        what = f"a polynomial in {names[uni[0][0]]} alone"
        clauses.append(f"{what} beyond the limits of the rational-root test" if uni[1] == "beyond limits"
                       else f"{what} with a rational root")
    elif binary is not None:
        what = f"a binary form in {names[binary[0][0]]}, {names[binary[0][1]]}"
        clauses.append(f"{what} beyond the limits of the rational-root test" if binary[1] == "beyond limits"
                       else f"{what} with a rational zero besides 0")
    else:
        clauses.append("not a binary form")
    clauses.append("not a definite quadratic")
    return "uncovered", ", ".join(clauses)


def expected_reason(poly, names):
    """The reason an uncovered item must give, or None when a rule shows it has no rational zero."""
    rule, what = decision(poly, names)
    if rule == "uncovered":
        return what
    if rule in NO_ZERO_RULES:
        return None
    if rule == "solve":
        head = f"linear in {names[what]}"
    elif rule == "definite-form":
        head = f"a definite quadratic form in {', '.join(names[i] for i in what)}"
    else:
        head = f"a binary form in {', '.join(names[i] for i in what)} with no rational root"
    return f"{head}, but its case was not built (the limit on cases or on formula size was reached)"


# ---------------------------------------------------------------- one item

def _poly(text, names, where):
    try:
        return P.parse_polynomial(text, names)
    except P.FormulaError as exc:
        raise Rejected(where, f"not a polynomial in {', '.join(names) or 'no parameters'}: {exc}") from None


def _rational(ledger, text, where):
    ledger.require(type(text) is str and len(text) <= 20_002, where, "must be a rational string")
    try:
        return P.parse_rational(text)
    except P.FormulaError as exc:
        raise Malformed(where, str(exc)) from None


def _variables(ledger, cover, names, where):
    vs = cover.get("variables")
    ledger.require(isinstance(vs, list) and vs and all(type(x) is str and x in names for x in vs)
                   and len(set(vs)) == len(vs), f"{where}.variables", "must list parameters of the body")
    return [names.index(x) for x in vs]


def _check_ldl(ledger, cover, G, where):
    """``L diag(D) L^T == G`` exactly, ``L`` unit lower triangular, every pivot in ``D`` positive."""
    k = len(G)
    L, D = cover.get("L"), cover.get("D")
    ledger.require(isinstance(L, list) and len(L) == k and all(isinstance(r, list) and len(r) == k for r in L)
                   and isinstance(D, list) and len(D) == k, f"{where}.L", f"L must be {k} x {k} and D {k} pivots")
    Lv = [[_rational(ledger, x, f"{where}.L") for x in row] for row in L]
    Dv = [_rational(ledger, x, f"{where}.D") for x in D]
    ledger.require(all(Lv[r][c] == (1 if r == c else 0) for r in range(k) for c in range(r, k)), f"{where}.L",
                   "must be unit lower triangular")
    ledger.require(all(d > 0 for d in Dv), f"{where}.D", "a pivot is not positive: no proof of definiteness")
    P._spend(costs.ldl_work(k, max((costs.fraction_words(x) for row in Lv for x in row), default=1),
                            max((costs.fraction_words(x) for x in Dv), default=1)))
    for r in range(k):
        for c in range(k):
            value = sum((Lv[r][t] * Dv[t] * Lv[c][t] for t in range(min(r, c) + 1)), Fraction(0))
            ledger.require(value == G[r][c], f"{where}.L",
                           f"L diag(D) L^T differs from the Gram matrix of the factor at [{r}][{c}]")


def read_item(ledger, f, where, names, pairs, i, count, *, coefficient=False, index=0):
    """Check one factor item with a ``cover`` or ``reason`` (or neither: the legacy form); returns an :class:`Item`.

    ``coefficient`` items (a solved coefficient's factors) have no multiplicity.  Case indices must
    name later bodies; a cover's denominator factors are checked by :func:`check_denominators` once
    every coefficient factor of the body is read.
    """
    allowed = {"polynomial", "status", "case", "cover", "reason"} | (set() if coefficient else {"multiplicity"})
    need = {"polynomial", "status"} | (set() if coefficient else {"multiplicity"})
    ledger.require(isinstance(f, dict) and need <= set(f) <= allowed, where,
                   f"must have {', '.join(sorted(need))} (and case, cover, reason as the status needs)")
    ledger.require(is_text(f["polynomial"], P.MAX_POLY_CHARS), where, "polynomial must be a string")
    poly = _poly(f["polynomial"], names, where)
    ledger.require(not P.is_const(poly), where, "must be a non-constant polynomial")
    status = f["status"]
    ledger.require(status in ITEM_STATUSES, where, f"status must be one of {', '.join(ITEM_STATUSES)}")
    ledger.require(("case" in f) == (status == "case"), where, "a case index goes with status case only")
    ledger.require("reason" not in f or status == "uncovered", where, "a reason goes with status uncovered")
    case, cover = None, None
    dens = [den for key in pairs if pairs[key] is not None for row in pairs[key] for _, den in row
            if not P.is_const(den)]
    if status == "outside-domain" and "cover" in f:
        # its only rational zeros (a definite or binary form: its variables all 0) make a denominator vanish
        cover = _read_cover(ledger, f["cover"], f"{where}.cover", poly, names, status)
        vs = cover["link"][1]
        ledger.require(any(not substitute(den, ("zero", vs), len(names) - len(vs))[0] for den in dens), where,
                       "no entry's denominator vanishes where the factor's variables are 0, so it is not outside the "
                       "domain")
    elif status == "outside-domain":
        ledger.require(any(P.divide_exact(den, poly) is not None for den in dens), where,
                       "divides no entry's denominator, so it is not outside the domain")
    elif status == "uncovered":
        if "reason" in f:
            want = expected_reason(poly, names)
            ledger.require(want is not None, f"{where}.reason",
                           "the factor has no rational zero by a rule of the format: it is not open")
            ledger.require(f["reason"] == want, f"{where}.reason", f"must be {want!r}")
    else:
        if status == "case":
            case = f["case"]
            ledger.require(type(case) is int and i < case < count, where, "case must index a later body")
        ledger.require("cover" in f or (status == "case" and not coefficient), where,
                       "must say by which rule it is covered (cover)")
        if "cover" in f:
            cover = _read_cover(ledger, f["cover"], f"{where}.cover", poly, names, status)
    return Item(poly, f["polynomial"], status, case, cover, "coefficient_factor" if coefficient else "factor", index,
                f.get("reason"))


def _read_cover(ledger, cover, where, poly, names, status):
    ledger.require(isinstance(cover, dict) and cover.get("rule") in CASE_RULES + NO_ZERO_RULES, where,
                   f"must be an object with a rule ({', '.join(CASE_RULES + NO_ZERO_RULES)})")
    rule = cover["rule"]
    if status == "outside-domain":
        ledger.require(rule in ("definite-form", "binary-form"), where,
                       "outside the domain by its zeros goes with rule definite-form or binary-form")
    else:
        ledger.require((rule in CASE_RULES) == (status == "case"), where,
                       f"rule {rule} goes with status {'case' if rule in CASE_RULES else 'no-zero'}")
    if rule == "solve":
        keys = set(cover)
        ledger.require(keys in ({"rule", "parameter", "value"},
                                {"rule", "parameter", "value", "denominator", "denominator_factors"}), where,
                       "a solve cover has parameter and value (and denominator, denominator_factors)")
        ledger.require(cover["parameter"] in names, f"{where}.parameter", "is not a parameter of the body")
        x = names.index(cover["parameter"])
        child = names[:x] + names[x + 1:]
        ledger.require(_deg(poly, x) == 1, f"{where}.parameter", "the factor is not of degree 1 in it")
        ledger.require(is_text(cover["value"], P.MAX_POLY_CHARS), f"{where}.value", "must be a polynomial")
        value, den = _solution(poly, x)
        ledger.require(_poly(cover["value"], child, f"{where}.value") == value, f"{where}.value",
                       "is not the solution of the factor for that parameter (x = value / denominator)")
        if den is None:
            ledger.require("denominator" not in cover, f"{where}.denominator",
                           "the coefficient is constant: the solution is a polynomial")
            return {"rule": rule, "link": ("solve", x, value, None), "refs": []}
        ledger.require("denominator" in cover, f"{where}.denominator",
                       "the coefficient is not constant: the solution needs its denominator")
        ledger.require(is_text(cover["denominator"], P.MAX_POLY_CHARS), f"{where}.denominator", "must be a polynomial")
        ledger.require(_poly(cover["denominator"], child, f"{where}.denominator") == den, f"{where}.denominator",
                       "is not the factor's coefficient of the parameter (normalised)")
        df = cover["denominator_factors"]
        ledger.require(isinstance(df, dict) and set(df) == {"constant", "list"} and isinstance(df["list"], list)
                       and all(isinstance(r, list) and len(r) == 2 and all(type(y) is int for y in r)
                               and r[1] >= 1 and r[1] <= 10_000 for r in df["list"]) and len(df["list"]) <= 10_000,
                       f"{where}.denominator_factors", "must have a constant and a list of [coefficient factor, "
                                                       "multiplicity] pairs")
        constant = _rational(ledger, df["constant"], f"{where}.denominator_factors.constant")
        ledger.require(constant != 0, f"{where}.denominator_factors.constant", "must be nonzero")
        lifted = {mon[:x] + (0,) + mon[x:]: c for mon, c in den.items()}
        return {"rule": rule, "link": ("solve", x, value, den), "den": lifted, "constant": constant,
                "refs": [tuple(r) for r in df["list"]]}
    variables = _variables(ledger, cover, names, where)
    ledger.require(variables == _vars(poly), f"{where}.variables", "must be exactly the factor's parameters, in order")
    if rule in ("definite-form", "definite"):
        ledger.require(set(cover) == {"rule", "variables", "L", "D"}, where, "must have rule, variables, L and D")
        gram = _gram(poly)
        ledger.require(gram is not None, where, "the factor is not of total degree 2")
        _, homogeneous, G = gram
        ledger.require(homogeneous == (rule == "definite-form"), where,
                       "a definite-form is homogeneous (zero only at 0); a definite quadratic with lower terms has "
                       "no zero at all (rule definite)")
        _check_ldl(ledger, cover, G, where)
    else:
        ledger.require(set(cover) == {"rule", "variables"}, where, "must have rule and variables")
        if rule == "univariate":
            uni = _univariate(poly)
            ledger.require(uni is not None, where, "the factor is not of degree 2 or more in one parameter")
            status_ = uni[1]
        else:
            binary = _binary(poly)
            ledger.require(binary is not None, where,
                           "the factor is not homogeneous of degree 2 or more in exactly two parameters")
            status_ = binary[1]
        if status_ == "beyond limits":
            raise Unreadable(f"undecided: {where}: the rational-root test exceeds the checker's limits "
                             f"({MAX_ROOT_COEFFICIENT} for the end coefficients, {MAX_ROOT_CANDIDATES} candidates)")
        ledger.require(status_ == "no root", where, "the polynomial has a rational root (rational root theorem)"
                       if rule == "univariate" else "the form has a rational zero besides 0 (rational root theorem)")
    return {"rule": rule, "link": ("zero", tuple(variables)) if rule in CASE_RULES else None, "refs": []}


def check_denominators(ledger, w, items, coefficients, nv):
    """Every solve cover with a denominator: ``denominator == constant * prod g_t^e`` over its coefficient factors,
    each reference of a coefficient factor to a later one."""
    for group, label in ((items, "list"), (coefficients, "coefficient_factors")):
        for j, item in enumerate(group):
            cover = item.cover
            if cover is None or "den" not in cover:
                continue
            where = f"{w}.factors.{label}[{j}].cover.denominator_factors"
            product = P.const(cover["constant"], nv)
            for t, e in cover["refs"]:
                ledger.require(0 <= t < len(coefficients) and (label == "list" or t > j), where,
                               "must name coefficient factors of this body (a coefficient factor only later ones)")
                product = P.mul(product, P.power(coefficients[t][0], e, nv))
            ledger.require(product == cover["den"], where,
                           "constant * prod g^e is not the denominator of the solution")


# ---------------------------------------------------------------- links into a case

def _drop(poly, indices):
    P._spend(len(poly))
    if any(mon[i] for mon in poly for i in indices):  # pragma: no cover - callers drop only absent parameters
        raise ValueError("not free of the dropped parameters")
    return {tuple(e for t, e in enumerate(mon) if t not in indices): c for mon, c in poly.items()}


def substitute(poly, link, nv_child):
    """``(s, e)``: ``poly`` under the link: ``x = value / den`` gives ``den^e poly(value / den)`` (``e`` the
    degree in ``x``; ``e = 0`` and a plain substitution when den is None), ``("zero", vs)`` sets them to 0."""
    if link[0] == "zero":
        vs = link[1]
        kept = {mon: c for mon, c in poly.items() if not any(mon[i] for i in vs)}
        return _drop(kept, vs), 0
    _, x, value, den = link
    if den is None or not poly:
        return P.substitute(poly, x, value, nv_child), 0
    by_power = {}
    for mon, c in poly.items():
        by_power.setdefault(mon[x], {})[mon[:x] + mon[x + 1:]] = c
    e = max(by_power)
    powers = [P.const(1, nv_child)]
    for _ in range(e):
        powers.append(P.mul(powers[-1], den))
    acc = by_power[e]
    for k in range(e - 1, -1, -1):
        acc = P.add(P.mul(acc, value), P.mul(by_power.get(k, {}), powers[e - k]))
    return acc, e


def link_pairs(ledger, w, pairs, parent_pairs, link, nv_child, label):
    """The case's entries are the parent's under ``link`` (see the module docstring), entry by entry."""
    den = link[3] if link[0] == "solve" else None
    for key, rows in pairs.items():
        for r, row in enumerate(rows or ()):
            for c, (num, d) in enumerate(row):
                where = f"{w}.entries.{key}[{r}][{c}]"
                pn, pd = parent_pairs[key][r][c]
                sn, en = substitute(pn, link, nv_child)
                sd, ed = substitute(pd, link, nv_child)
                if den is not None and en != ed:
                    if en > ed:
                        sd = P.mul(sd, P.power(den, en - ed, nv_child))
                    else:
                        sn = P.mul(sn, P.power(den, ed - en, nv_child))
                ledger.require(bool(sd), where, f"the substitution of {label} makes the parent's denominator vanish")
                same = P.mul(num, sd) == P.mul(sn, d) if d != sd else num == sn
                ledger.require(same and P.divide_exact(sd, d) is not None, where,
                               f"is not the parent's entry under the substitution of {label}")


def incoming_links(parsed, i):
    """``[(parent index, item)]``: every earlier item with a cover whose case is body ``i``.

    An index by case, kept on the first body and extended by the bodies read since the last call, so
    that finding the links costs one pass over the items in all (not one per body).
    """
    if not parsed:
        return []
    index = getattr(parsed[0], "links", None)
    if index is None:
        index = parsed[0].links = ({}, [0])
    table, seen = index
    for b in parsed[seen[0]:]:
        for item in list(b.factors) + list(getattr(b, "coefficients", ())):
            if item[2] == "case" and item.cover is not None:
                table.setdefault(item[3], []).append((b.index, item))
    seen[0] = len(parsed)
    return table.get(i, [])


def read_links(ledger, w, b, i, parsed, names):
    """The checks of a case body reached by covers: its pointer names one of them, and its parameters are
    every link's parent's without the substituted ones.  Returns the links ``[(parent, item)]``."""
    links = incoming_links(parsed, i)
    sub = b["substitution"]
    ledger.require(isinstance(sub, dict) and len(sub) == 2 and type(sub.get("parent")) is int
                   and (type(sub.get("factor")) is int or type(sub.get("coefficient_factor")) is int),
                   f"{w}.substitution", "must be {parent, factor} or {parent, coefficient_factor}")
    kind = "factor" if "factor" in sub else "coefficient_factor"
    ledger.require(any(p == sub["parent"] and item.kind == kind and item.index == sub[kind] for p, item in links),
                   f"{w}.substitution", "does not name a covered factor whose case is this body")
    check_link_names(ledger, w, links, parsed, names)
    return links


def check_link_names(ledger, w, links, parsed, names):
    """A case's parameters are each linking parent's without the ones its link substitutes."""
    for p, item in links:
        gone = item.cover["link"][1] if item.cover["link"][0] == "zero" else (item.cover["link"][1],)
        want = [x for t, x in enumerate(parsed[p].names) if t not in gone]
        ledger.require(names == want, f"{w}.parameters",
                       f"must be the parameters of body {p} without the substituted ones")


# ---------------------------------------------------------------- completeness and points

def covered_items(body, complete):
    """``(list covered?, coefficient factors covered?)`` of one body, given ``complete`` of the later bodies."""
    coefficients = list(getattr(body, "coefficients", ()))
    done = [False] * len(coefficients)

    def covered(item, done):
        status, case = item[2], item[3]
        if status in ("outside-domain", "no-zero"):
            return True
        if status != "case" or not complete[case]:
            return False
        return all(done[t] for t, _ in (item.cover or {}).get("refs", ()))

    for t in reversed(range(len(coefficients))):  # a coefficient factor references only later ones
        done[t] = covered(coefficients[t], done)
    return [covered(item, done) for item in body.factors], done


def scope(parsed):
    """``"rational"`` when some cover shows only that a factor has no rational zero besides a smaller set (binary
    forms, one-parameter polynomials), ``"real"`` when only definite quadratics do (no real zero besides 0), else
    ``""``: the cases then cover the complex zeros too."""
    rules = {item.cover["rule"] for b in parsed for item in list(b.factors) + list(getattr(b, "coefficients", ()))
             if item.cover is not None}
    if rules & {"binary-form", "univariate"}:
        return "rational"
    return "real" if rules & {"definite-form", "definite"} else ""


def resolve(body, item, coords):
    """Where ``item`` (vanishing at ``coords``) sends the point: ``("body", index, condition)``, or
    ``("open", reason)``, or ``("undefined", reason)``.  A solve cover whose denominator vanishes there
    sends the point on to a vanishing coefficient factor (one does: the denominator is their product)."""
    status = item[2]
    if status == "outside-domain":  # pragma: no cover - the denominators were tested first
        return ("undefined", f"{item[1]} = 0 lies outside the domain")
    if status == "uncovered":
        reason = getattr(item, "reason", None)
        return ("open", f"the point lies on the factor {item[1]}, which the certificate does not cover"
                + (f" ({reason})" if reason else ""))
    if status == "no-zero":  # pragma: no cover - a verified no-zero factor has no rational zero
        return ("open", f"the factor {item[1]} was proven to have no rational zero")
    cover = item.cover
    if cover is not None and cover.get("den") is not None and P.evaluate(cover["den"], coords) == 0:
        for t, _ in cover["refs"]:
            sub = body.coefficients[t]
            if P.evaluate(sub[0], coords) == 0:
                return resolve(body, sub, coords)
        return ("open", "internal: no coefficient factor vanishes")  # pragma: no cover - den is their product
    return ("body", item[3], f"{item[1]} = 0")
