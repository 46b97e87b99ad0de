"""Obligations of the ``"parametric-head-count"`` kind, and what a verified certificate says at a point.

Standard library only.  Every polynomial identity is decided exactly with the sparse polynomial
arithmetic of :mod:`.polynomials` (no sampling): the scaled lags ``Lambda_d`` are recomputed from
the entries, the minor's determinant by fraction-free elimination with exact division, each
coefficient identity on every entry, the factorisation ``g * Delta * prod q_d = c * prod f^e`` by
multiplying out, divisibility by exact division, and each case's system by substitution.
"""

from . import covering as CV
from . import polynomials as P
from .limits import MAX_CASES
from .numbers import rat_text
from .reading import Malformed, Rejected, Unreadable, is_text, strict_equal

__all__ = ["read_parametric_system", "parametric_spec_hash", "check_parametric", "head_count_at", "parse_point",
           "read_body_family", "scaled_entries", "check_rank", "check_factors", "check_cases", "locate", "show_point"]

MAX_PARAMETRIC_DIM = 8
STATUSES = CV.ITEM_STATUSES


def _hash(obj):
    import hashlib
    import json

    data = {k: obj.get(k) for k in ("A", "B", "C", "D")}
    data["parameters"] = obj.get("parameters")
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True) + "\n"
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def parameter_names(ledger, value, where):
    ledger.require(isinstance(value, list) and len(value) <= P.MAX_PARAMETERS
                   and all(type(x) is str and P.NAME.fullmatch(x) for x in value)
                   and len(set(value)) == len(value), where,
                   f"must be a list of at most {P.MAX_PARAMETERS} distinct parameter names")
    return list(value)


def formula_matrix(ledger, rows, shape, where, *, pair=False):
    ledger.require(isinstance(rows, list) and len(rows) == shape[0]
                   and all(isinstance(r, list) and len(r) == shape[1] for r in rows), where,
                   f"must be a {shape[0]} x {shape[1]} matrix")
    for r in rows:
        for x in r:
            if pair:
                ledger.require(isinstance(x, list) and len(x) == 2 and all(is_text(y, P.MAX_POLY_CHARS) for y in x),
                               where, "entries must be [numerator, denominator] pairs of polynomial strings")
            else:
                ledger.require((type(x) is int and abs(x) < 10**1000) or is_text(x, P.MAX_FORMULA_CHARS), where,
                               "entries must be formula strings or integers")
    return rows


def read_parametric_system(ledger, obj):
    """The ``"system"`` of a parametric certificate: dimensions, parameters, formulas; plus its hash."""
    ledger.require(isinstance(obj, dict) and set(obj) == {"name", "N", "m", "p", "parameters", "A", "B", "C", "D"},
                   "system", "must have exactly name, N, m, p, parameters, A, B, C, D")
    ledger.require(is_text(obj["name"], 200), "system.name", "must be a string of at most 200 characters")
    for key in ("N", "m", "p"):
        ledger.require(type(obj[key]) is int and 1 <= obj[key] <= MAX_PARAMETRIC_DIM, f"system.{key}",
                       f"must be an integer from 1 to {MAX_PARAMETRIC_DIM}")
    N, m, p = obj["N"], obj["m"], obj["p"]
    names = parameter_names(ledger, obj["parameters"], "system.parameters")
    shapes = {"A": (N, N), "B": (N, m), "C": (p, N), "D": (p, m)}
    for key, shape in shapes.items():
        if key == "D" and obj["D"] is None:
            continue
        formula_matrix(ledger, obj[key], shape, f"system.{key}")
    return {"N": N, "m": m, "p": p, "parameters": names, "formulas": {k: obj[k] for k in shapes},
            "name": obj["name"], "sha256": _hash(obj)}


def parametric_spec_hash(spec):
    """The hash of a parametric spec's formulas (what ``--spec`` compares)."""
    if not isinstance(spec, dict) or "parameters" not in spec:
        raise Unreadable("the spec declares no parameters, but the certificate is about a parametric family")
    return _hash(spec)


# ---------------------------------------------------------------- helpers

def _poly(ledger, text, names, where):
    try:
        return P.parse_polynomial(text, names)
    except P.FormulaError as exc:
        raise Rejected(where, f"not a polynomial in {', '.join(names) or 'no parameters'}: {exc}") from None


def _same_fraction(n1, d1, n2, d2):
    """Whether ``n1 / d1 == n2 / d2`` (nonzero denominators): equal numerators over one denominator, else crosswise."""
    if d1 == d2:
        return n1 == n2
    return P.mul(n1, d2) == P.mul(n2, d1)


matmul = P.matmul  # the names parametric_interaction imports
poly_sum = P.sum_polys


def _det(rows, nv):
    """Fraction-free elimination (Bareiss) with exact divisions; row swaps flip the sign."""
    k = len(rows)
    if k == 0:
        return P.const(1, nv)
    M = [list(r) for r in rows]
    sign, prev = 1, P.const(1, nv)
    for i in range(k):
        if not M[i][i]:
            swap = next((r for r in range(i + 1, k) if M[r][i]), None)
            if swap is None:
                return {}
            M[i], M[swap] = M[swap], M[i]
            sign = -sign
        for r in range(i + 1, k):
            for c in range(i + 1, k):
                num = P.sub(P.mul(M[r][c], M[i][i]), P.mul(M[r][i], M[i][c]))
                q = P.divide_exact(num, prev)
                if q is None:  # pragma: no cover - Bareiss divisions are exact by Sylvester's identity
                    raise Unreadable("internal: inexact Bareiss division")
                M[r][c] = q
        prev = M[i][i]
    return P.scale(M[k - 1][k - 1], sign)


# ---------------------------------------------------------------- one body

class ParsedBody:
    __slots__ = ("names", "pairs", "g", "k", "holds", "factors", "complete", "index", "key", "coefficients", "links")

    def __init__(self):
        self.coefficients = []
        self.links = None  # on the first body: the index of the links by case (covering.incoming_links)


def _json_key(value):
    """A faithful text key of parsed JSON data (None if it cannot be written, e.g. nested too deeply)."""
    import json

    try:
        return json.dumps(value, sort_keys=True, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return None


def read_body_family(ledger, bodies, i, root, shapes, parsed, memo=None):
    """The family of body ``i``: ``(names, pairs)`` after checking its parameters, substitution and entries.

    ``root`` has the system's ``parameters`` and ``formulas`` (``{key: matrix as written}``);
    ``shapes`` is ``{key: (rows, cols)}`` in order, or ``None`` for a matrix the system does not have.
    Body 0's entries must equal the formulas; a case's must be its parent's with the substitution.
    ``memo`` (a dict), when given, remembers the entries checked against a parent's: the same entries
    under the same substitution of a parent with the same content are not compared twice.
    """
    b = bodies[i]
    w = f"bodies[{i}]"
    names = parameter_names(ledger, b["parameters"], f"{w}.parameters")
    nv = len(names)
    sub = b["substitution"]
    if i == 0:
        ledger.require(sub is None, f"{w}.substitution", "the generic body has no substitution")
        ledger.require(names == root["parameters"], f"{w}.parameters", "must be the system's parameters")
    elif not (isinstance(sub, dict) and "parameter" in sub):  # reached by covers (docs/certificate-format.md)
        links = CV.read_links(ledger, w, b, i, parsed, names)
    else:
        ledger.require(isinstance(sub, dict) and set(sub) == {"parent", "factor", "parameter", "value"}, f"{w}.substitution",
                       "must have parent, factor, parameter, value")
        ledger.require(type(sub["parent"]) is int and 0 <= sub["parent"] < i, f"{w}.substitution.parent",
                       "must be an earlier body")
        parent = parsed[sub["parent"]]
        ledger.require(type(sub["factor"]) is int and 0 <= sub["factor"] < len(parent.factors), f"{w}.substitution.factor",
                       "must index a factor of the parent")
        pf = parent.factors[sub["factor"]]
        ledger.require(pf[2] == "case" and pf[3] == i, f"{w}.substitution", "the parent's factor does not name this case")
        ledger.require(sub["parameter"] in parent.names, f"{w}.substitution.parameter", "is not a parameter of the parent")
        index = parent.names.index(sub["parameter"])
        ledger.require(names == parent.names[:index] + parent.names[index + 1:], f"{w}.parameters",
                       "must be the parent's parameters without the substituted one")
        value = _poly(ledger, sub["value"], names, f"{w}.substitution.value")
        solved = P.linear_solution(pf[0], index)
        ledger.require(solved is not None and solved == value, f"{w}.substitution",
                       "the value is not the solution of the parent's factor for that parameter")
        links = CV.incoming_links(parsed, i)  # covers of other bodies that reach this one too
        CV.check_link_names(ledger, w, links, parsed, names)
    one, parent_one = P.const(1, nv), P.const(1, nv + 1)
    ent = b["entries"]
    memo_key = None
    legacy = i > 0 and isinstance(sub, dict) and "parameter" in sub
    if memo is not None and legacy and not links and getattr(parent, "key", None) is not None:
        memo_key = _json_key([parent.key, sub["factor"], sub["parameter"], sub["value"], names, ent])
        if memo_key is not None and memo_key in memo:
            pairs, done = memo[memo_key]
            for name in done:  # what was checked there holds here: recorded under this body's name
                ledger.require(True, w + name, "")
            return names, pairs
    start = len(ledger.done)
    ledger.require(isinstance(ent, dict) and set(ent) == set(shapes), f"{w}.entries",
                   f"must have {', '.join(shapes) if len(shapes) <= 8 else 'one matrix per key of the system'}")
    pairs = {}
    for key, shape in shapes.items():
        if shape is None:
            ledger.require(ent[key] is None, f"{w}.entries.{key}", "must be present exactly when the system has it")
            pairs[key] = None
            continue
        ledger.require(ent[key] is not None, f"{w}.entries.{key}", f"must be a {shape[0]} x {shape[1]} matrix")
        formula_matrix(ledger, ent[key], shape, f"{w}.entries.{key}", pair=True)
        pairs[key] = [[(_poly(ledger, x[0], names, f"{w}.entries.{key}"), _poly(ledger, x[1], names,
                                                                                  f"{w}.entries.{key}"))
                       for x in row] for row in ent[key]]
        for r, row in enumerate(pairs[key]):
            for c, (num, den) in enumerate(row):
                where = f"{w}.entries.{key}[{r}][{c}]"
                ledger.require(bool(den), where, "has a zero denominator")
                why = _reduced(num, den, ent[key][r][c], names)
                ledger.require(why is None, where, f"is not in lowest terms ({why}): the listed denominator "
                                                   "must be the reduced one, which decides where the system is defined")
                if i == 0:
                    try:
                        fn, fd = P.parse_pair(root["formulas"][key][r][c], names)
                    except P.FormulaError as exc:
                        raise Rejected(f"system.{key}[{r}][{c}]", f"not a formula in the parameters: {exc}") from None
                    ledger.require(_same_fraction(num, den, fn, fd), where, "is not the system's entry")
                elif legacy:
                    pn, pd = parent.pairs[key][r][c]
                    sn = P.substitute(pn, index, value, nv)
                    if pd == parent_one and den == one:  # over 1 before and after: the numerators are equal
                        ledger.require(num == sn, where, "is not the parent's entry with the substitution applied")
                        continue
                    sd = P.substitute(pd, index, value, nv)
                    ledger.require(bool(sd), where, "the substitution makes the parent's denominator vanish "
                                                    "(the factor is outside the domain, not a case)")
                    ledger.require(_same_fraction(num, den, sn, sd) and P.divide_exact(sd, den) is not None, where,
                                   "is not the parent's entry with the substitution applied")
    if i > 0:  # every cover that reaches this body: its entries are that parent's under the substitution
        for p, item in links:
            CV.link_pairs(ledger, w, pairs, parsed[p].pairs, item.cover["link"], nv,
                          f"bodies[{p}].factors.{'list' if item.kind == 'factor' else item.kind + 's'}[{item.index}]")
    if memo_key is not None:
        memo[memo_key] = (pairs, [name[len(w):] for name in ledger.done[start:] if name.startswith(w)])
    return names, pairs


def _reduced(num, den, texts, names):
    """:func:`.polynomials.reduced_pair` of an entry, decided once per certificate for the same texts."""
    if P.is_const(den):  # the common case: a polynomial entry over 1
        return P.reduced_pair(num, den)
    cache = P.reduced_cache()
    key = (texts[0], texts[1], *names)
    if key not in cache:
        cache[key] = P.reduced_pair(num, den)
    return cache[key]


def scaled_entries(ledger, w, text, pairs, names):
    """``(g, scaled)``: the body's common denominator (checked to be a multiple of every entry's) and entries times g."""
    g = _poly(ledger, text, names, f"{w}.denominator")
    ledger.require(bool(g), f"{w}.denominator", "must be nonzero")
    one = P.const(1, len(names))
    scaled = {}
    for key, rows in pairs.items():
        if rows is None:
            scaled[key] = None
            continue
        out = []
        for row in rows:
            orow = []
            for num, den in row:
                if den == one:  # g / 1 = g
                    orow.append(num if g == one else P.mul(num, g))
                    continue
                q = P.divide_exact(g, den)
                ledger.require(q is not None, f"{w}.denominator", "is not a multiple of every entry's denominator")
                orow.append(P.mul(num, q))
            out.append(orow)
        scaled[key] = out
    return g, scaled


def check_rank(ledger, w, b, rows, labels, names, p, m, *, field, dimension_at, skip_zero, row_word, relation,
               with_minor=False):
    """The lower and upper bound of one body: returns ``(k, delta, qs)``.

    ``rows`` are the scaled p x m polynomial matrices, ``labels`` their JSON names (a lag, or a
    block ``[i, j]``); ``b[field]`` is the claimed rank.  The witness minor's determinant must be the
    certificate's and nonzero; every other row (every other nonzero row with ``skip_zero``) needs a
    relation ``q row = sum p_s witness_s`` unless the rank is ``dimension_at``.
    """
    nv = len(names)
    key, one = row_word + "s", row_word
    k = b[field]
    ledger.require(type(k) is int and 0 <= k <= min(len(rows), p * m), f"{w}.{field}",
                   f"must be an integer from 0 to {min(len(rows), p * m)}")
    lb = b["lower_bound"]
    want = {key, "positions", "determinant"} | ({"minor"} if with_minor else set())
    ledger.require(isinstance(lb, dict) and set(lb) == want, f"{w}.lower_bound",
                   f"must have {', '.join(sorted(want))}")
    index = {json_key(label): t for t, label in enumerate(labels)}
    wl = lb[key]
    ledger.require(isinstance(wl, list) and len(wl) == k and all(json_key(x) in index for x in wl),
                   f"{w}.lower_bound.{key}", f"must be {k} {key} of the certificate's range")
    wl = [index[json_key(x)] for x in wl]
    ledger.require(all(a < b2 for a, b2 in zip(wl, wl[1:])), f"{w}.lower_bound.{key}", f"must be {k} increasing {key}")
    pos = lb["positions"]
    ledger.require(isinstance(pos, list) and len(pos) == k and all(
        isinstance(rc, list) and len(rc) == 2 and all(type(x) is int for x in rc) and 0 <= rc[0] < p and 0 <= rc[1] < m
        for rc in pos), f"{w}.lower_bound.positions", f"must be {k} [row, column] pairs in range")
    minor = [[rows[d][r][c] for r, c in pos] for d in wl]
    if with_minor:
        shown = lb["minor"]
        ledger.require(isinstance(shown, list) and len(shown) == k and all(isinstance(row, list) and len(row) == k
                                                                            for row in shown),
                       f"{w}.lower_bound.minor", f"must be a {k} x {k} matrix")
        for s_, row in enumerate(shown):
            for t, text in enumerate(row):
                ledger.require(is_text(text, P.MAX_POLY_CHARS) and _poly(ledger, text, names,
                                                                         f"{w}.lower_bound.minor") == minor[s_][t],
                               f"{w}.lower_bound.minor[{s_}][{t}]", "is not the entry of the witness blocks there")
    delta = _det(minor, nv)
    ledger.require(_poly(ledger, lb["determinant"], names, f"{w}.lower_bound.determinant") == delta,
                   f"{w}.lower_bound.determinant", f"is not the determinant of the minor of the scaled {key}")
    ledger.require(bool(delta), f"{w}.lower_bound.determinant", "is the zero polynomial: no lower bound")
    ub = b["upper_bound"]
    ledger.require(isinstance(ub, dict) and type(ub.get("dimension")) is bool, f"{w}.upper_bound",
                   "must have a boolean dimension")
    qs = []
    if ub["dimension"]:
        ledger.require(set(ub) == {"dimension"} and k == dimension_at, f"{w}.upper_bound.dimension",
                       f"the dimension argument applies only when the rank is {dimension_at}")
        return k, delta, qs
    ledger.require(set(ub) == {"dimension", "coefficients"} and isinstance(ub["coefficients"], list),
                   f"{w}.upper_bound", "must list coefficients")
    others = [d for d in range(len(rows)) if d not in wl and not (skip_zero and not any(x for r in rows[d] for x in r))]
    co = ub["coefficients"]
    ledger.require(len(co) == len(others) and all(isinstance(x, dict) and set(x) == {one, "q", "p"} for x in co)
                   and [json_key(x[one]) for x in co] == [json_key(labels[d]) for d in others],
                   f"{w}.upper_bound.coefficients",
                   f"must have one row for every other {'nonzero ' if skip_zero else ''}{one}, in order")
    for x, d in zip(co, others):
        where = f"{w}.upper_bound.coefficients[{one} {x[one]}]"
        q = _poly(ledger, x["q"], names, where)
        ledger.require(bool(q), where, "q must be nonzero")
        ledger.require(isinstance(x["p"], list) and len(x["p"]) == k, where, f"must have {k} coefficients")
        ps = [_poly(ledger, y, names, where) for y in x["p"]]
        L = rows[d]
        for r in range(p):
            for c in range(m):
                rhs = P.dot((ps[s], rows[wl[s]][r][c]) for s in range(k))
                ledger.require(P.mul(q, L[r][c]) == rhs, where, f"{relation} fails at entry [{r}][{c}]")
        qs.append(q)
    return k, delta, qs


def json_key(label):
    """A hashable form of a row's JSON label (an int, or a list of ints)."""
    if type(label) is int:
        return label
    if isinstance(label, list) and all(type(x) is int for x in label):
        return tuple(label)
    return None


def check_factors(ledger, w, b, names, pairs, whole, i, count, body=None):
    """The factor list of body ``i``: ``constant * prod f^e == whole``; returns the items (:class:`.covering.Item`).

    Each item's status is checked by its rule (:func:`.covering.read_item`); the factors of solved
    coefficients (``coefficient_factors``), when present, are stored on ``body``.
    """
    nv = len(names)
    fa = b["factors"]
    ledger.require(isinstance(fa, dict) and set(fa) in ({"constant", "list"}, {"constant", "list", "coefficient_factors"})
                   and isinstance(fa["list"], list) and type(fa["constant"]) is str, f"{w}.factors",
                   "must have constant and list (and coefficient_factors)")
    try:
        constant = P.parse_rational(fa["constant"])
    except P.FormulaError as exc:
        raise Malformed(f"{w}.factors.constant", str(exc)) from None
    ledger.require(constant != 0, f"{w}.factors.constant", "must be nonzero")
    factors, product, seen = [], P.const(constant, nv), set()
    for j, f in enumerate(fa["list"]):
        where = f"{w}.factors.list[{j}]"
        item = CV.read_item(ledger, f, where, names, pairs, i, count, index=j)
        ledger.require(f["polynomial"] not in seen, where, "must be a new non-constant factor")
        seen.add(f["polynomial"])
        e = f["multiplicity"]
        ledger.require(type(e) is int and 1 <= e <= 10_000, where, "multiplicity must be a positive integer")
        product = P.mul(product, P.power(item[0], e, nv))
        factors.append(item)
    ledger.require(whole == product, f"{w}.factors", "constant * prod f^e is not g * Delta * prod q_d")
    coefficients = []
    if "coefficient_factors" in fa:
        cf = fa["coefficient_factors"]
        ledger.require(isinstance(cf, list) and 1 <= len(cf) <= 10_000, f"{w}.factors.coefficient_factors",
                       "must be a non-empty list")
        seen = set()
        for t, f in enumerate(cf):
            where = f"{w}.factors.coefficient_factors[{t}]"
            item = CV.read_item(ledger, f, where, names, pairs, i, count, coefficient=True, index=t)
            ledger.require(f["polynomial"] not in seen, where, "must be a new non-constant factor")
            seen.add(f["polynomial"])
            coefficients.append(item)
    CV.check_denominators(ledger, w, factors, coefficients, nv)
    if body is not None:
        body.coefficients = coefficients
    ledger.require(type(b["complete"]) is bool, f"{w}.complete", "must be a boolean")
    return factors


def check_cases(ledger, bodies, parsed):
    """Every case factor leads to its own body; ``complete`` is computed from the leaves up and must match.

    A factor without a cover (the first form of the format) names the body whose substitution names it;
    one with a cover reaches its case by that cover (checked when the case was read).  A factor is
    covered when it is outside the domain, has no rational zero, or its case is complete and (for a
    solved coefficient) every factor of the coefficient is covered.
    """
    for i, body in enumerate(parsed):
        for j, item in enumerate(body.factors):
            if item[2] == "case" and getattr(item, "cover", None) is None:
                sub = bodies[item[3]]["substitution"]
                ledger.require(isinstance(sub, dict) and sub.get("parent") == i and sub.get("factor") == j
                               and "parameter" in sub, f"bodies[{i}].factors.list[{j}]",
                               f"names body {item[3]}, which is the case of another factor")
    complete = [False] * len(parsed)
    for i in reversed(range(len(parsed))):
        complete[i] = all(CV.covered_items(parsed[i], complete)[0])
        ledger.require(parsed[i].complete == complete[i], f"bodies[{i}].complete",
                       f"must be {str(complete[i]).lower()}: " + ("every factor is covered" if complete[i] else
                                                                  "some factor is uncovered"))
    return complete


def _content_key(b, names):
    """Everything a body's own obligations read, but its case indices: two bodies with the same key (the
    same family reached along two paths of the case tree) pass or fail the same checks.  None when the
    factors are not the expected shape (the full check then names what is wrong)."""
    fa = b["factors"]
    if not isinstance(fa, dict) or not isinstance(fa.get("list"), list) or not all(isinstance(f, dict)
                                                                                    for f in fa["list"]):
        return None
    if "coefficient_factors" in fa or any("cover" in f or "reason" in f for f in fa["list"]):
        return None  # a body with covers is reached by links, not repeated: nothing to share
    factors = dict(fa, list=[dict(f, case=None) if "case" in f else f for f in fa["list"]])
    return _json_key([names, {key: b[key] for key in b if key not in ("parameters", "substitution", "factors")},
                      factors])


def _same_content(ledger, w, b, prev, done, i, count):
    """Body ``i`` has the content of an earlier verified body ``prev``: its obligations hold as they did there
    (recorded again under this body's name, ``done``); only the case indices are its own."""
    for name in done:
        ledger.require(True, w + name, "")
    factors = []
    for j, ((poly, text, status, _), f) in enumerate(zip(prev.factors, b["factors"]["list"])):
        case = None
        if status == "case":
            case = f["case"]
            ledger.require(type(case) is int and i < case < count, f"{w}.factors.list[{j}]",
                           "case must index a later body")
        factors.append(CV.Item(poly, text, status, case, None, "factor", j))
    return factors


def _check_body(ledger, cert, system, bodies, i, parsed, memo=None):
    b = bodies[i]
    w = f"bodies[{i}]"
    keys = {"parameters", "substitution", "entries", "denominator", "head_count", "lower_bound", "upper_bound",
            "factors", "complete", "holds_for"}
    ledger.require(isinstance(b, dict) and set(b) == keys, w, f"must have exactly {', '.join(sorted(keys))}")
    N, m, p = system["N"], system["m"], system["p"]
    shapes = {"A": (N, N), "B": (N, m), "C": (p, N), "D": None if system["formulas"]["D"] is None else (p, m)}
    names, pairs = read_body_family(ledger, bodies, i, system, shapes, parsed, memo)
    content = _content_key(b, names) if memo is not None else None
    if content is not None and content in memo:
        prev, done = memo[content]
        body = ParsedBody()
        body.names, body.pairs, body.g, body.k = names, pairs, prev.g, prev.k
        body.holds, body.complete, body.index, body.key = b["holds_for"], b["complete"], i, content
        body.factors = _same_content(ledger, w, b, prev, done, i, len(bodies))
        return body
    start = len(ledger.done)
    g, scaled = scaled_entries(ledger, w, b["denominator"], pairs, names)
    T = cert["truncation"]
    n = cert["n"]
    rows_needed = min(n, T)
    lags, X = [], scaled["B"]
    for d in range(rows_needed):
        ledger.require(True, f"{w}.lags", "")
        L = matmul(scaled["C"], X)
        if d == 0 and scaled["D"] is not None:
            L = [[P.add(L[r][c], P.mul(g, scaled["D"][r][c])) for c in range(m)] for r in range(p)]
        lags.append(L)
        if d + 1 < rows_needed:
            X = matmul(scaled["A"], X)
    k, delta, qs = check_rank(ledger, w, b, lags, list(range(rows_needed)), names, p, m, field="head_count",
                              dimension_at=min(rows_needed, p * m), skip_zero=False, row_word="lag",
                              relation="q Lambda_d = sum p_s Lambda_(d_s)")
    whole = P.mul(g, delta)
    for q in qs:
        whole = P.mul(whole, q)
    body = ParsedBody()
    factors = check_factors(ledger, w, b, names, pairs, whole, i, len(bodies), body)
    wl = b["lower_bound"]["lags"]
    T_from = wl[-1] + 1 if k else 0
    ledger.require(strict_equal(b["holds_for"], {"from": T_from, "to": None if n >= T else n}), f"{w}.holds_for",
                   "is not the range the witnesses prove")
    body.names, body.pairs, body.g, body.k = names, pairs, g, k
    body.holds, body.factors, body.complete, body.index = b["holds_for"], factors, b["complete"], i
    body.key = content
    if content is not None:
        memo[content] = (body, [name[len(w):] for name in ledger.done[start:] if name.startswith(w)])
    return body


def check_parametric(ledger, cert, system, *, keep=None):
    """Every obligation of a parametric certificate; returns the one-line summary.

    ``keep`` (a list), when given, receives the parsed bodies for :func:`head_count_at`.
    """
    P.reset_work()
    keys = {"format", "version", "kind", "generator", "system", "input_sha256", "n", "truncation", "head_count",
            "complete", "bodies"}
    ledger.require(set(cert) == keys, "structure", f"a parametric certificate has exactly {', '.join(sorted(keys))}")
    n = cert["n"]
    ledger.require(type(n) is int and 0 <= n <= 10**30, "n", "must be an integer from 0 to 10^30")
    T = system["N"] + (0 if system["formulas"]["D"] is None else 1)
    ledger.require(strict_equal(cert["truncation"], T), "truncation", f"must be N (+1 with D) = {T}")
    bodies = cert["bodies"]
    ledger.require(isinstance(bodies, list) and 1 <= len(bodies) <= MAX_CASES, "bodies",
                   f"must be a list of 1 to {MAX_CASES} bodies")
    parsed, memo = [], {}
    for i in range(len(bodies)):
        parsed.append(_check_body(ledger, cert, system, bodies, i, parsed, memo))
    complete = check_cases(ledger, bodies, parsed)
    ledger.require(strict_equal(cert["head_count"], parsed[0].k), "head_count", "is not the generic body's head count")
    ledger.require(strict_equal(cert["complete"], complete[0]), "complete", "is not the generic body's completeness")
    if keep is not None:
        keep.extend(parsed)
    k = parsed[0].k
    scope = CV.scope(parsed)
    extent = f"every {scope + ' ' if scope else ''}parameter value where the system is defined" if complete[0] else \
        "every parameter value outside the uncovered factors"
    return (f"parametric head-count k({n}) = {k} generically for {system['name']!r} over "
            f"Q({', '.join(system['parameters'])}); {len(parsed)} "
            f"bod{'y covers' if len(parsed) == 1 else 'ies cover'} {extent}")


# ---------------------------------------------------------------- a point

def parse_point(text):
    """``{"a": Fraction, ...}`` from ``a=1/2,b=3``.

    Raises
    ------
    ValueError
        If the text is not a comma-separated list of ``name=rational``, or repeats a name.
    """
    point = {}
    if not text.strip():  # a family without parameters: the empty point
        return point
    for part in text.split(","):
        name, eq, value = part.strip().partition("=")
        name = name.strip()
        if not eq or not P.NAME.fullmatch(name):
            raise ValueError(f"--at: {part.strip()[:40]!r} is not name=value")
        if name in point:
            raise ValueError(f"--at: {name} is given twice")
        try:
            point[name] = P.parse_rational(value.strip())
        except P.FormulaError as exc:
            raise ValueError(f"--at: {name}: {exc}") from None
    return point


def _show(value):
    return rat_text(value)


def show_point(point):
    """The point's values as canonical strings."""
    return {k: _show(v) for k, v in point.items()}


def locate(parsed, point, what="the system"):
    """``(body, case path, reason)``: the verified body whose claim holds at ``point``, or None with the reason.

    Raises
    ------
    ValueError
        If the point does not give exactly the root's parameters.
    """
    root = parsed[0]
    if set(point) != set(root.names):
        missing = sorted(set(root.names) - set(point))
        extra = sorted(set(point) - set(root.names))
        raise ValueError("--at must give every parameter exactly: " + "; ".join(
            ([f"missing {', '.join(missing)}"] if missing else []) + ([f"unknown {', '.join(extra)}"] if extra else [])))
    values = dict(point)
    body, path = root, []
    while True:
        coords = [values[x] for x in body.names]
        for key, rows in body.pairs.items():
            for r, row in enumerate(rows or ()):
                for c, (_, den) in enumerate(row):
                    if P.evaluate(den, coords) == 0:
                        return None, path, f"{what} is not defined here: the denominator of {key}[{r}][{c}] vanishes"
        vanishing = [f for f in body.factors if P.evaluate(f[0], coords) == 0]
        if not vanishing:
            return body, path, "the generic case" if not path else "case " + ", ".join(path)
        # the first vanishing factor whose cover leads to a body (through a solved coefficient's factors
        # where the solution's denominator vanishes too); else the point is on an open factor
        steps = [CV.resolve(body, f, coords) for f in vanishing]
        step = next((st for st in steps if st[0] == "body"), steps[0])
        if step[0] != "body":
            return None, path, step[1]
        path.append(step[2])
        body = parsed[step[1]]


def head_count_at(parsed, point, n):
    """What the verified certificate proves at ``point``: a dict with ``head_count`` (int or None).

    Raises
    ------
    ValueError
        If the point does not give exactly the family's parameters.
    """
    body, path, reason = locate(parsed, point)
    return {"n": n, "point": show_point(point), "case": path, "reason": reason,
            "head_count": None if body is None else body.k, "holds_for": None if body is None else body.holds}
