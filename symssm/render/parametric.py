"""Theorems for families with parameters: LaTeX, terminal and Markdown text from verified certificates.

Every sentence states a case the checker verified: the generic count off the listed factors, the
count on each covered factor (recursively), where the family is undefined, and, when factors are
uncovered, that nothing is claimed there.  Polynomials are typeset from their canonical text token
by token (parameter names escaped), as inline math that can break after ``+`` and ``-``.

Examples
--------
>>> from symssm import certify
>>> from symssm.sources.parametric import parametric_family
>>> lines = parametric_lines(certify(parametric_family("rotation-symbolic"), 4).data)
>>> lines[0]
'k(4) = 2 for every t where none of t, t^2 + 1 vanishes (the generic case)'
>>> lines[1:3]
['  t^2 + 1 = 0: the family is not defined there', '  where t = 0 (and the family is defined): k(4) = 1']
"""

import re
from fractions import Fraction

from ..formats.expressions import polynomial_text
from .matrices import items_block
from .polytex import tex_fraction, tex_parameter, tex_polynomial
from .statement import factorized_class, head_symbol, length_range, represents, space, state_symbol
from .tex import display_name, entries_pointer, tex_count, tex_hash

__all__ = ["outline", "parametric_lines", "parametric_fragment", "parametric_markdown", "tex_polynomial",
           "tex_parameter"]

_MAX_LISTED = 12


def _condition(f, bodies, parent):
    """The condition of the case ``f`` (a factor item with status case) leads to, as a dict.

    ``{"factor", "kind": "solve", "x", "value", "den"}`` (``den`` None for a polynomial solution) or
    ``{"factor", "kind": "zero", "vars", "rule"}``; the first form of the format (no cover) reads the
    case's substitution.
    """
    cover = f.get("cover")
    if cover is None:
        sub = bodies[f["case"]]["substitution"]
        return {"factor": f["polynomial"], "kind": "solve", "x": sub["parameter"], "value": sub["value"], "den": None}
    if cover["rule"] == "solve":
        out = {"factor": f["polynomial"], "kind": "solve", "x": cover["parameter"], "value": cover["value"],
               "den": cover.get("denominator")}
        if out["den"] is not None:
            coefficients = parent["factors"].get("coefficient_factors") or []
            out["den_factors"] = [coefficients[t]["polynomial"] for t, _ in cover["denominator_factors"]["list"]]
        return out
    return {"factor": f["polynomial"], "kind": "zero", "vars": list(cover["variables"]), "rule": cover["rule"]}


def _links(b):
    """``[(condition item, via)]``: every covered factor of body ``b`` with a case, and every covered factor of a
    solved coefficient (``via`` the solved factor's text), in the order of the certificate."""
    coefficients = b["factors"].get("coefficient_factors") or []
    out, seen = [], set()

    def walk(f, via):
        if f["status"] == "case":
            out.append((f, via))
        cover = f.get("cover") or {}
        for t, _ in (cover.get("denominator_factors") or {}).get("list", []):
            if t not in seen:
                seen.add(t)
                walk(coefficients[t], (f["polynomial"], cover["parameter"]))

    for f in b["factors"]["list"]:
        walk(f, None)
    return out


def _open(b):
    """The uncovered factors of a body (with a solved coefficient's uncovered factors): ``[(text, reason)]``."""
    coefficients = b["factors"].get("coefficient_factors") or []
    return [(f["polynomial"], f.get("reason")) for f in b["factors"]["list"] + coefficients
            if f["status"] == "uncovered"]


def outline(d):
    """The cases of verified parametric data, depth first, each body once: dicts with depth, path, parameters, k, factors.

    ``k`` is a body's head count, or its interaction rank for a layer (whose bodies have no ``holds_for``).
    Every item has a ``number`` (its position, from 1) and ``parent`` (the number of the item it was reached
    from, None for the generic case).  A body reached along several paths (a shared case) is described at
    its first visit; later visits are items with ``ref`` (the number of the first) and nothing else to say.
    """
    bodies = d["bodies"]
    out, number = [], {}

    def walk(i, depth, path, parent):
        b = bodies[i]
        k = b["head_count"] if "head_count" in b else b["interaction_rank"]
        if i in number:
            out.append({"index": i, "number": len(out) + 1, "parent": parent, "depth": depth, "path": path, "k": k,
                        "ref": number[i], "body": b, "holds_for": b.get("holds_for"), "parameters": b["parameters"]})
            return
        number[i] = len(out) + 1
        factors = b["factors"]["list"]
        out.append({"index": i, "number": number[i], "parent": parent, "ref": None, "depth": depth, "path": path,
                    "parameters": b["parameters"], "k": k,
                    "factors": [f["polynomial"] for f in factors],
                    "outside": [f["polynomial"] for f in factors if f["status"] == "outside-domain"],
                    "outside_zero": {f["polynomial"]: f["cover"]["variables"] for f in factors
                                     if f["status"] == "outside-domain" and f.get("cover")},
                    "uncovered": [text for text, _ in _open(b)], "reasons": _open(b),
                    "nozero": [(f["polynomial"], f["cover"]["rule"]) for f in
                               factors + (b["factors"].get("coefficient_factors") or []) if f["status"] == "no-zero"],
                    "complete": b["complete"], "holds_for": b.get("holds_for"), "body": b})
        here = number[i]
        for f, via in _links(b):
            cond = _condition(f, bodies, b)
            cond["via"] = via
            walk(f["case"], depth + 1, path + [cond], here)

    walk(0, 0, [], None)
    return out


def _wrap(text):
    return f"({text})" if re.search(r"[+-]", text.strip()[1:]) else text


def scope_of(item, text):
    """``"real"`` for a factor covered as a definite form, else ``"rational"``."""
    for f in item["body"]["factors"]["list"]:
        if f["polynomial"] == text and f.get("cover"):
            return "real" if f["cover"]["rule"].startswith("definite") else "rational"
    return "rational"


def _den_texts(cond):
    """The factors of a rational solution's denominator, as texts (a solution's own denominator, at least)."""
    return cond.get("den_factors") or [cond["den"]]


def condition_text(cond):
    """A case's condition as text: ``x = v``, ``u1 = v1*u2 / v2``, ``x = y = 0`` (sums and products in parentheses)."""
    if cond["kind"] == "zero":
        return " = ".join(cond["vars"]) + " = 0"
    if cond["den"] is None:
        return f"{cond['x']} = {cond['value']}"
    den = cond["den"] if re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*|[0-9]+", cond["den"]) else f"({cond['den']})"
    return f"{cond['x']} = {_wrap(cond['value'])} / {den}"


def condition_note(cond, what=None):
    """Why the case is the whole zero set of its factor (terminal text, in parentheses), or ``""``; with
    ``what`` (family or layer), "and the family is defined" joins the parentheses."""
    inner = []
    if cond["kind"] == "zero":
        why = ("a positive definite quadratic form" if cond["rule"] == "definite-form" else
               "a binary form with no rational root, by the rational root theorem")
        inner.append(f"the only {'real' if cond['rule'] == 'definite-form' else 'rational'} zero of "
                     f"{cond['factor']}, {why}")
    elif cond["den"] is not None:
        inner.append(f"{cond['factor']} = 0 with {cond['den']} nonzero")
    elif cond.get("via"):
        inner.append(f"the coefficient of {cond['via'][1]} in {cond['via'][0]}")
    if what:
        inner.append(f"{'and ' if inner else 'and '}the {what} is defined")
    return f" ({', '.join(inner)})" if inner else ""


#: Longest terminal summary (lines); a larger case graph is summarised by its first cases.
MAX_LINES = 150
#: Most cases the LaTeX theorem states one by one (the certificate has them all).
MAX_TEX_CASES = 40

_NOZERO = {"univariate": "no rational root (rational root theorem)",
           "definite": "a positive definite quadratic, so no real zero"}


def rational_scope(d):
    """``"rational"`` when some factor's cover proves only that it has no rational zero besides a smaller set
    (binary forms, univariate polynomials), ``"real"`` when only definite quadratics, else ``""``."""
    rules = {f["cover"]["rule"] for b in d["bodies"]
             for f in b["factors"]["list"] + (b["factors"].get("coefficient_factors") or [])
             if f.get("cover") is not None}
    if rules & {"binary-form", "univariate"}:
        return "rational"
    if rules & {"definite-form", "definite"}:
        return "real"
    return ""


def _names(params):
    return ", ".join(params) if len(params) != 1 else params[0]


def parametric_lines(d):
    """Terminal summary lines of verified parametric data (symmetric cases grouped, as the LaTeX groups them)."""
    n = d["n"]
    complete = "every parameter value where the family is defined has its head count"
    merged = _partition_cases(d, outline(d))
    if merged is None:
        return outline_lines(d, f"k({n})", "family", complete)
    params = list(d["system"]["parameters"])
    listed = ", ".join(params)
    lines = []
    for part in sorted(merged, key=lambda part: (-len(part), [[params.index(x) for x in c] for c in part
                                                              if len(c) > 1])):
        k = merged[part][0]
        if len(part) == len(params):
            where = f"where {listed} are pairwise distinct"
        elif len(part) == 1:
            where = "where " + " = ".join(params)
        else:
            eq = " and ".join(" = ".join(c) for c in part if len(c) > 1)
            where = f"where {eq}, and no other two of {listed} are equal"
        lines.append(f"k({n}) = {k} {where}")
    if all(k == len(part) for part, (k, _, _) in merged.items()):
        lines.append(f"  (k({n}) is the number of distinct values among {listed})")
    lines.append(f"complete: {complete} ({len(d['bodies'])} cases, one per way the parameters can coincide)")
    return lines


def outline_lines(d, count, what, complete_text):
    """The terminal lines of an outline (families and layers): ``count`` names the claim (``k(5)``, ``r``)."""
    lines = []
    items = outline(d)
    shared = {it["ref"] for it in items if it["ref"] is not None}
    for item in items:
        if len(lines) >= MAX_LINES:
            lines.append(f"... and {sum(1 for it in items[item['number'] - 1:] if it['ref'] is None)} more cases in "
                         f"the certificate (symssm check CERT --at NAME=VALUE,... answers any point)")
            break
        pad = "  " * item["depth"]
        head = f"{count} = {item['k']}"
        if item["ref"] is not None:
            cond = item["path"][-1]
            lines.append(f"{pad}where {condition_text(cond)}{condition_note(cond)}: {head}, as in the case "
                         f"[{item['ref']}] above")
            continue
        tag = f" [{item['number']}]" if item["number"] in shared else ""
        if item["depth"] == 0:
            params = _names(item["parameters"])
            cond = f" where none of {', '.join(item['factors'])} vanishes" if item["factors"] else ""
            if what == "layer" and len(item["factors"]) == 1:
                cond = f" where {item['factors'][0]} is nonzero"
            lines.append(f"{head} for every {params}{cond} (the generic case)" if params else f"{head}")
        else:
            cond = item["path"][-1]
            lines.append(f"{pad}where {condition_text(cond)}{condition_note(cond, what)}{tag}: "
                         f"{head}" + (_except(item["factors"]) if item["factors"] else ""))
        for f in item["outside"]:
            zero = item["outside_zero"].get(f)
            if zero:
                lines.append(f"{pad}  {f} = 0 only where {' = '.join(zero)} = 0 (over the "
                             f"{'reals' if len(zero) > 2 or scope_of(item, f) == 'real' else 'rationals'}), where "
                             f"{'the ' + what if item['depth'] == 0 else 'this case'} is not defined")
            else:
                cond = item["path"][-1] if item["path"] else {}
                lines.append(f"{pad}  {f} = 0: the {what} is not defined there" if item["depth"] == 0 else
                             f"{pad}  {f} = 0: not in this case (its solution for {cond['x']} is not defined "
                             "there: the case where its coefficient vanishes covers it)"
                             if cond.get("den") is not None and f in _den_texts(cond) else
                             f"{pad}  {f} = 0: the {what} is not defined there in this case")
        for f, rule in item["nozero"]:
            lines.append(f"{pad}  {f} = 0 has no rational solution: {_NOZERO[rule]}")
        for f, reason in item["reasons"]:
            lines.append(f"{pad}  {f} = 0: not covered, the certificate proves nothing there"
                         + (f" ({reason})" if reason else ""))
    scope = rational_scope(d)
    if d["complete"]:
        lines.append(f"complete: {complete_text}" if not scope else
                     f"complete over the {'rationals' if scope == 'rational' else 'reals'}: "
                     + complete_text.replace("every ", f"every {scope} ", 1))
    else:
        lines.append("not complete: the uncovered factors above are left open")
    return lines


def _except(factors):
    if len(factors) == 1:
        return f", except where {factors[0]} vanishes"
    return f", except where one of {', '.join(factors)} vanishes"


# ---------------------------------------------------------------- LaTeX

def _point(params):
    names = [tex_parameter(x) for x in params]
    if len(names) == 1:
        return f"${names[0]} \\in \\mathbb{{C}}$"
    joined = ",\\allowbreak ".join(names)
    return f"$({joined}) \\in \\mathbb{{C}}^{{{len(names)}}}$"


def _nonzero(factors):
    if not factors:
        return ""
    shown = [f"${tex_polynomial(f)} \\neq 0$" for f in factors[:_MAX_LISTED]]
    more = f" and {len(factors) - _MAX_LISTED} more factors listed in the certificate" if len(factors) > _MAX_LISTED \
        else ""
    return " with " + ", ".join(shown) + more


def _entry(pair):
    num, den = pair
    if den == "1":
        return tex_polynomial(num)
    return tex_fraction(num, den)


def factored_entries(d, entries):
    """``entries`` ({key: rows of [num, den]}) with every denominator written as the product of the generic case's
    factors it is (``(h + 1)*(h + 2)``), where the theorem states the domain by those factors; a denominator that
    is not such a product stays expanded.

    Examples
    --------
    >>> from symssm import certify
    >>> from symssm.sources.parametric import parametric_family
    >>> d = certify(parametric_family("hippo-legs-step"), 4).data
    >>> factored_entries(d, {"B": [[["-2*h", "h^2 + 3*h + 2"]]]})
    {'B': [[['-2*h', '(h + 1)*(h + 2)']]]}
    """
    b = d["bodies"][0]
    factors = [f["polynomial"] for f in b["factors"]["list"]]
    names = list(d["system"].get("parameters") or b["parameters"])
    cache = {}

    def den_text(den):
        if den not in cache:
            cache[den] = _factored_text(den, factors, names) or den
        return cache[den]

    return {k: [[[num, den_text(den)] if den != "1" else [num, den] for num, den in row] for row in rows]
            for k, rows in entries.items()}


def _factored_text(poly, factors, names):
    """``poly`` as the formula text of a constant times powers of ``factors`` (``3*(h + 1)^2*(h + 2)``), when it is
    such a product with at least two factors (or one with a power), else None."""
    if len(poly) > 600 or not factors:
        return None
    try:
        from ..formats.expressions import parameter_field, parse_formula

        field = parameter_field(names)
        rest = parse_formula(poly, field).numer
        parts, count = [], 0
        for f in factors:
            g = parse_formula(f, field).numer
            if g.is_ground:
                continue
            e = 0
            while True:
                q, r = rest.div(g)
                if not r.is_zero:
                    break
                rest, e = q, e + 1
            if e:
                atom = re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", f.strip()) is not None
                base = f if atom else f"({f})"
                parts.append(base if e == 1 else f"{base}^{e}")
                count += e
        if not rest.is_ground or count < 2:
            return None
        const = polynomial_text(rest)
    except Exception:  # pragma: no cover - verified data always parses; the expanded form instead
        return None
    if const == "1":
        return "*".join(parts)
    if const == "-1":
        return "-" + "*".join(parts)
    return "*".join([const if not const.startswith("-") else f"({const})"] + parts)


_C = "\\mathbb{C}"


def system_statement(d):
    """(text after "functions of the parameters ...", whether the matrices are shown): the family's matrices,
    compressed, in the statement; by the certificate's hash when their entries are too long to print."""
    entries = factored_entries(d, {k: rows for k, rows in d["bodies"][0]["entries"].items() if rows is not None})
    named = list(entries.items())
    total = sum(len(x) for _, rows in named for row in rows for pair in row for x in pair)
    if total > 1200:
        return f" (given in the certificate, sha256 {tex_hash(d['input_sha256'])}).", False
    return (" (entries as reduced fractions; the family is defined where no denominator vanishes):\n"
            + items_block(named, end=".").rstrip("\n")), True


def _system_lines(d):
    entries = d["bodies"][0]["entries"]
    return entry_lines(d, factored_entries(d, {k: rows for k, rows in entries.items() if rows is not None}), str)


def entry_lines(d, entries, name):
    """The proof's list of entries (``{key: rows of [num, den]}``, each matrix named by ``name(key)`` in math),
    or a pointer to the certificate when they are long."""
    total = sum(len(x) for rows in entries.values() for row in rows for pair in row for x in pair)
    if total > 1200:
        return [entries_pointer(d["input_sha256"])]
    lines = ["The entries, as reduced fractions, are (row by row):"]
    for key, rows in entries.items():
        cells = "; ".join(", ".join(f"${_entry(p)}$" for p in row) for row in rows)
        lines.append(f"\\par\\noindent\\hspace*{{1em}}${name(key)}$: {cells}.")
    return ["{\\raggedright"] + lines + ["\\par}"]


def _power(f, e, *, product=False):
    """A factor with its multiplicity (``(t^2 + 1)^{5}``): parenthesised, unless a single variable or number,
    when it carries an exponent or stands in a product."""
    text = tex_polynomial(f)
    atom = re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*|[0-9]+", f.strip()) is not None
    if e == 1:
        return text if atom or not product else f"({text})"
    return f"{text}^{{{e}}}" if atom else f"({text})^{{{e}}}"


def _factor_tex(text):
    """A polynomial as a factor of a product: parenthesised when it is a sum."""
    tex = tex_polynomial(text)
    return f"({tex})" if re.search(r"[+-]", text.strip()[1:]) else tex


def _factored(delta, factors, names):
    """``Delta`` as constant times powers of the listed factors (LaTeX), or None when it is not such a product."""
    if len(delta) > 600:
        return None
    try:
        from ..formats.expressions import parameter_field, parse_formula

        field = parameter_field(names)
        rest = parse_formula(delta, field).numer
        parts = []
        for f in factors:
            g = parse_formula(f, field).numer
            if g.is_ground:
                continue
            e = 0
            while True:
                q, r = rest.div(g)
                if not r.is_zero:
                    break
                rest, e = q, e + 1
            if e:
                parts.append(_power(f, e, product=True))
        if not rest.is_ground:
            return None
        const = polynomial_text(rest)
    except Exception:  # pragma: no cover - verified data always parses; print the expanded form instead
        return None
    if const == "1" and parts:
        return " ".join(parts)
    if const == "-1" and parts:
        return "-" + " ".join(parts)
    return " ".join([tex_polynomial(const)] + parts)


def _ranges(hf):
    return length_range(hf["from"], hf["to"])


def tex_condition(cond):
    """A case's condition in inline math: ``$x = v$``, ``$u_{1} = v_{1}\\,u_{2}/u_{2}$``, ``$x = y = 0$``.

    A solution is written with a slash (sums in parentheses): an inline fraction would collide with the
    lines above and below it."""
    if cond["kind"] == "zero":
        return "$" + " = ".join(tex_parameter(x) for x in cond["vars"]) + " = 0$"
    x = tex_parameter(cond["x"])
    if cond["den"] is None:
        return f"${x} = {tex_polynomial(cond['value'])}$"
    den = cond["den"]
    monomial = not re.search(r"[+-]", den.strip()[1:]) and "/" not in den  # a sum or a product in parentheses
    atom = monomial and "*" not in den
    return f"${x} = {_factor_tex(cond['value'])}/{tex_polynomial(den) if atom else '(' + tex_polynomial(den) + ')'}$"


def tex_condition_note(cond):
    """Why a case is the zero set of its factor (LaTeX), or ``""``."""
    f = f"${tex_polynomial(cond['factor'])}$"
    if cond["kind"] == "zero":
        if cond["rule"] == "definite-form":
            return f" (the only real zero of {f}, a positive definite quadratic form)"
        return f" (the only rational zero of {f}, a binary form with no rational root)"
    if cond["den"] is not None:
        return f" (that is, {f[:-1]} = 0$ with ${tex_polynomial(cond['den'])} \\neq 0$)"
    if cond.get("via"):
        return f" (where the coefficient of ${tex_parameter(cond['via'][1])}$ in ${tex_polynomial(cond['via'][0])}$ " \
               "vanishes)"
    return ""


def tex_items(items, what, claim, root_where):
    """The theorem's cases as ``\\item`` lines: the generic case (``root_where``), then each case once, relative to
    the case it is reached from ("In case 3, where ..."), a shared case's other paths pointing to it, at most
    :data:`MAX_TEX_CASES` of them (then one line for the rest).  ``claim(item)`` is the item's claim in text."""
    out = []
    for item in items:
        if item["number"] > MAX_TEX_CASES:
            rest = sum(1 for it in items[item["number"] - 1:] if it["ref"] is None)
            out.append(f"\\item[] The certificate states the remaining {rest} case{'s' if rest != 1 else ''} in the "
                       "same form (each verified by the checker); \\texttt{symssm check --at} answers any point.")
            break
        if item["depth"] == 0:
            out.append(f"\\item {root_where(item)}: {claim(item)}." + _extra(item))
            continue
        cond = item["path"][-1]
        lead = "Where" if item["parent"] == 1 else f"In case {item['parent']}, where"
        if item["ref"] is not None:
            out.append(f"\\item {lead} {tex_condition(cond)}: as in case {item['ref']}, {claim(item)}.")
            continue
        rest = (", for every " + _point(item["parameters"]) + _nonzero(item["factors"])) if item["parameters"] else ""
        out.append(f"\\item {lead} {tex_condition(cond)}{tex_condition_note(cond)} and the {what} is defined{rest}: "
                   f"{claim(item)}." + _extra(item))
    return out


def _extra(item):
    extra = tex_open(item)
    return f" {extra}" if extra else ""


_TEX_NOZERO = {"univariate": "has no rational root (rational root theorem)",
               "definite": "is a positive definite quadratic, so it has no real zero"}


def tex_path(path):
    """The conditions leading to a case, joined with "and"."""
    return " and ".join(tex_condition(c) + tex_condition_note(c) for c in path)


def tex_open(item):
    """Sentences for a case's factors with no rational zero and its uncovered factors (with reasons)."""
    out = []
    for f, rule in item["nozero"]:
        out.append(f"${tex_polynomial(f)}$ {_TEX_NOZERO[rule]}.")
    for f, reason in item["reasons"]:
        out.append(f"Where ${tex_polynomial(f)} = 0$, this certificate proves nothing"
                   + (f" ({reason})." if reason else "."))
    return " ".join(out)


def _case_items(items, n):
    def claim(item):
        return (f"$k(n) = {item['k']}$ for every ${_ranges(item['holds_for'])}$"
                + (f", in particular $k({tex_count(n)}) = {item['k']}$" if n != max(1, item["holds_for"]["from"])
                   else ""))

    def root(item):
        return ("For every " + _point(item["parameters"]) + _nonzero(item["factors"])) if item["parameters"] \
            else "For the system"

    return tex_items(items, "family", claim, root)


_DIFFERENCE = re.compile(r"([A-Za-z][A-Za-z0-9_]*) - ([A-Za-z][A-Za-z0-9_]*)")


def _partition_cases(d, items):
    """{partition: (k, holds_for)} when every case is "which parameters are equal", else None.

    That is the shape of a complete certificate whose substitutions all set one parameter equal to
    another and whose every case is cut out by all pairwise differences of its remaining parameters:
    each case is then exactly one partition of the parameters into classes of equal values, and the
    symmetric cases (``l_1 = l_2 = l_3`` reached three ways) are one statement.
    """
    params = list(d["system"]["parameters"])
    if not d["complete"] or len(params) < 2 or len(params) > 6 or rational_scope(d):
        return None
    out = {}
    for item in items:
        parent = {x: x for x in params}

        def root(x):
            while parent[x] != x:
                x = parent[x]
            return x

        for cond in item["path"]:
            if cond["kind"] != "solve" or cond["den"] is not None or cond["value"] not in params:
                return None
            x, v = cond["x"], cond["value"]
            parent[root(x)] = root(v)
        remaining = item["parameters"]
        need = {frozenset((a, b)) for i, a in enumerate(remaining) for b in remaining[i + 1:]}
        have = set()
        for f in item["body"]["factors"]["list"]:
            m = _DIFFERENCE.fullmatch(f["polynomial"])
            if not m or f["status"] != "case" or m.group(1) not in remaining or m.group(2) not in remaining:
                return None
            have.add(frozenset(m.groups()))
        if have != need:
            return None
        classes = {}
        for x in params:
            classes.setdefault(root(x), []).append(x)
        partition = tuple(sorted((tuple(c) for c in classes.values()), key=lambda c: params.index(c[0])))
        hf = item["holds_for"]
        if partition in out and out[partition] != (item["k"], hf["from"], hf["to"]):
            return None
        out[partition] = (item["k"], hf["from"], hf["to"])
    return out


def _partition_items(merged, params, n):
    names = [tex_parameter(x) for x in params]
    listed = ", ".join(names)
    out = []
    order = sorted(merged, key=lambda part: (-len(part), [[params.index(x) for x in c] for c in part if len(c) > 1]))
    for part in order:
        k, lo, hi = merged[part]
        if len(part) == len(params):
            where = f"If ${listed}$ are pairwise distinct"
        elif len(part) == 1:
            where = "If $" + " = ".join(names) + "$"
        else:
            eq = " and ".join("$" + " = ".join(tex_parameter(x) for x in c) + "$" for c in part if len(c) > 1)
            where = f"If {eq}, and no other two of ${listed}$ are equal"
        rng = _ranges({"from": lo, "to": hi})
        out.append(f"\\item {where}: $k(n) = {k}$ for every ${rng}$"
                   + (f", in particular $k({tex_count(n)}) = {k}$" if n != max(1, lo) else "") + ".")
    if all(k == len(part) for part, (k, _, _) in merged.items()):
        lo = max(v[1] for v in merged.values())
        his = [v[2] for v in merged.values() if v[2] is not None]
        rng = _ranges({"from": lo, "to": min(his) if his else None})
        out.append(f"\\item[] In short: for every ${rng}$, $k(n)$ is the number of distinct values among ${listed}$.")
    return out


def parametric_fragment(d, style):
    """The theorem and proof for parametric head-count data that the checker has verified."""
    s = d["system"]
    n = d["n"]
    items = outline(d)
    params = ", ".join(f"${tex_parameter(x)}$" for x in s["parameters"])
    statement, shown = system_statement(d)
    z = state_symbol(s["parameters"])
    lines = [
        style.begin(f"Head count of the family {display_name(s)}"),
        f"Consider the state space model {display_name(s)}, ${z}_i = A {z}_{{i-1}} + B x_i$, "
        f"$y_i = C {z}_i{' + D x_i' if s.get('D') is not None else ''}$, with $N = {s['N']}$ states, inputs "
        f"$x_i \\in {space(_C, s['m'])}$ and outputs $y_i \\in {space(_C, s['p'])}$, whose matrices are rational "
        f"functions of the parameter{'s' if len(s['parameters']) != 1 else ''} {params}" + statement,
        factorized_class(_C, s["p"], s["m"], head=head_symbol(s["parameters"])) + " " + represents("L_{i-j}")
        + " Let $k(n)$ be the number of heads necessary and sufficient in this class to represent the SSM on "
        "sequences of length $n$ at a parameter value (a model with $H$ heads represents it there if and only if "
        "$H \\ge k(n)$).",
        "\\begin{enumerate}\\raggedright",  # cases hold long formulas: a ragged margin, never a stretched line
    ]
    merged = _partition_cases(d, items)
    if merged is not None:
        lines += _partition_items(merged, s["parameters"], n)
    else:
        lines += _case_items(items, n)
    lines.append("\\end{enumerate}")
    lines.append(tex_completeness(d, items, "parameter value", "family"))
    lines += [style.end(), "\\begin{proof}\\emergencystretch=3em"]
    if not shown:
        lines += _system_lines(d)
    lines.append("Let $g$ be the common denominator of the entries and $\\Lambda_d = g^{d+2} L_d$, polynomial "
                 "matrices ($\\Lambda_0 = (gC)(gB) + g (gD)$). In each case below, the minor of $\\Lambda_{d_1}, "
                 "\\dots, \\Lambda_{d_k}$ at the listed entries (rows and columns numbered from 1) has the nonzero "
                 "determinant $\\Delta$ shown (lower bound); every other lag below $\\min(n, T)$, $T = N$ ($N+1$ with "
                 "$D$), satisfies $q_d \\Lambda_d = \\sum_s p_{d,s} \\Lambda_{d_s}$, or $k = \\min(n, T, pm)$ and the "
                 "dimension argument applies (upper bound); and $g \\Delta \\prod_d q_d$ is the product of the listed "
                 "factors, so off their zero sets the rank is $k$ at every point. " + covering_text(d, "family"))
    lines.append("\\begin{itemize}\\raggedright")
    for item in items:
        if item["ref"] is not None:
            continue
        b = item["body"]
        lb = b["lower_bound"]
        lags = ", ".join(str(x) for x in lb["lags"])
        pos = ",\\allowbreak ".join(f"({r + 1},{c + 1})" for r, c in lb["positions"])
        witness = (f" witness lags ${lags}$ at entries ${pos}$;" if lb["lags"] else
                   " every lag is zero, so no witness is needed;")
        if item["number"] > MAX_TEX_CASES:
            break
        label = "generic case" if item["depth"] == 0 else f"case {item['number']}"
        ncoef = len(b["upper_bound"].get("coefficients") or [])
        upper = "the dimension argument" if b["upper_bound"]["dimension"] else \
            f"{ncoef} coefficient identit{'y' if ncoef == 1 else 'ies'}"
        co = b["upper_bound"].get("coefficients") or []
        if co and sum(len(x["q"]) + sum(len(y) for y in x["p"]) for x in co) <= 240:
            shown = []
            for x in co:
                rhs, terms = "", []
                for s_, y in enumerate(x["p"]):
                    if y == "0":
                        continue
                    lam = f"\\Lambda_{{{lb['lags'][s_]}}}"
                    terms.append(lam if y == "1" else f"-{lam}" if y == "-1" else f"{_factor_tex(y)}\\,{lam}")
                if terms and terms[0].startswith("-") and not all(t.startswith("-") for t in terms):
                    if not terms[-1].startswith("-"):  # a sum opens with a positive term
                        terms.reverse()
                    else:
                        k = next(i for i, t in enumerate(terms) if not t.startswith("-"))
                        terms = [terms[k]] + terms[:k] + terms[k + 1:]
                for term in terms:
                    if rhs:
                        rhs += f" - {term[1:].lstrip()}" if term.startswith("-") else f" + {term}"
                    else:
                        rhs = term
                rhs = rhs or "0"
                q = "" if x["q"] == "1" else f"{_factor_tex(x['q'])}\\,"
                shown.append(f"${q}\\Lambda_{{{x['lag']}}} = {rhs}$")
            upper += " (" + ", ".join(shown) + ")"
        factors, delta = body_factors(b, b["head_count"])
        lines.append(f"\\item {label}: $k = {b['head_count']}$;{witness}{delta} upper "
                     f"bound by {upper}; " + (f"factors {factors}." if factors else "no factor to exclude.")
                     + cover_witnesses(b))
    lines.append("\\end{itemize}")
    lines.append("\\end{proof}")
    return "\n".join(lines) + "\n"


def covering_text(d, what):
    """How the proof covers the factors (LaTeX), one sentence per rule the certificate uses; ``what`` is
    "family" or "layer".  Ends with the sentence that every identity was verified."""
    items = [f for b in d["bodies"] for f in b["factors"]["list"] + (b["factors"].get("coefficient_factors") or [])]
    rules = {(f.get("cover") or {}).get("rule") for f in items if f["status"] == "case"}
    rational = any(f.get("cover", {}).get("denominator") for f in items if f["status"] == "case")
    out = []
    if any(f["status"] == "outside-domain" and not f.get("cover") for f in items):
        out.append("A factor that divides an entry's denominator lies outside the domain.")
    if None in rules or "solve" in rules:
        out.append(f"A factor linear in a parameter with a constant coefficient is covered by the {what} with that "
                   "parameter substituted.")
    if rational:
        out.append(f"A factor of degree 1 in a parameter $x$, $f = a x + b$, is covered by the {what} with "
                   "$x = -b/a$ substituted where $a \\neq 0$ and, where $a = 0$, by the cases of the factors of $a$.")
    if "solve" in rules or None in rules:
        out.append("A case's entries are its parent's under the substitution, so it is defined wherever the parent "
                   "is.")
    all_rules = {(f.get("cover") or {}).get("rule") for f in items}
    if all_rules & {"definite-form", "definite"}:
        out.append("A quadratic whose Gram matrix has an exact $L D L^T$ factorisation with positive pivots is "
                   "positive definite: a form vanishes at a real point only where its variables do, and one with "
                   "lower terms nowhere.")
    if all_rules & {"binary-form", "univariate"}:
        out.append("A polynomial in one parameter, or a form in two, whose dehomogenisation has no rational root "
                   "(rational root theorem) vanishes at no rational point, or only at the origin.")
    out.append("The checker verified every identity exactly as a polynomial identity.")
    return " ".join(out)


def tex_completeness(d, items, point, what):
    """The sentence after the cases: what they cover (every point, or every rational or real point)."""
    zero = items[0]["outside_zero"]
    outside = [f if f not in zero else None for f in items[0]["outside"]]
    shown = [f"${tex_polynomial(f)} = 0$" if f is not None else "" for f in outside]
    shown = [x for x in shown if x] + ["$" + " = ".join(tex_parameter(v) for v in vs) + " = 0$" for vs in zero.values()]
    if not d["complete"]:
        return "The cases do not cover the zero sets of the factors marked as proving nothing."
    scope = rational_scope(d)
    head = "The certificate's cases" if len(items) > MAX_TEX_CASES else "These cases"
    return (f"{head} cover every {scope + ' ' if scope else ''}{point} at which the {what} is defined"
            + (" (it is undefined exactly where " + _either(shown) + ")" if shown else "")
            + (": the zero sets of the factors covered by a form or a polynomial in one parameter are covered at "
               f"their {scope} points only" if scope else "") + ".")


def _either(conditions):
    """``a``, ``a or b``, ``a, b or c``: where one of the conditions holds."""
    return conditions[0] if len(conditions) == 1 else ", ".join(conditions[:-1]) + " or " + conditions[-1]


def _linear_text(coeffs, names):
    """``sum c_i m_i`` as text (``m_i`` a name, or 1 for the last entry when ``names`` is one shorter)."""
    terms = []
    for c, m in zip(coeffs, names + ["1"]):
        c = Fraction(c)
        if c == 0:
            continue
        mag = abs(c)
        body = m if mag == 1 and m != "1" else (str(mag) if m == "1" else f"{mag}*{m}")
        terms.append(("-" if c < 0 else "+", body))
    if not terms:
        return "0"
    text = ("-" if terms[0][0] == "-" else "") + terms[0][1]
    for sign, body in terms[1:]:
        text += f" {sign} {body}"
    return text


def cover_witnesses(b):
    """The proof's witnesses of the factors covered by a form (LaTeX sentences), or ``""``.

    A definite quadratic is written as the weighted sum of squares its ``L D L^T`` gives; a polynomial in
    one parameter or a binary form names its dehomogenisation, which has no rational root.
    """
    out = []
    items = b["factors"]["list"] + (b["factors"].get("coefficient_factors") or [])
    for f in items:
        cover = f.get("cover") or {}
        rule = cover.get("rule")
        if rule in ("definite-form", "definite"):
            L, D, names = cover["L"], cover["D"], list(cover["variables"])
            if all(L[r][c] == ("1" if r == c else "0") for r in range(len(L)) for c in range(len(L))):
                continue  # a weighted sum of the squares of its variables (and 1), as it is written
            squares = []
            for j, dj in enumerate(D):
                lin = _linear_text([L[i][j] for i in range(len(L))], names[:len(L)] if len(L) == len(names)
                                   else names)
                lin_tex = tex_polynomial(lin)
                base = lin_tex if re.fullmatch(r"[A-Za-z_{}0-9\\]+", lin_tex) else f"({lin_tex})"
                weight = "" if dj == "1" else f"{tex_polynomial(dj)}\\,"
                squares.append(f"{weight}{base}^{{2}}")
            if sum(len(x) for x in squares) > 300:
                out.append(f" ${tex_polynomial(f['polynomial'])}$ is a positive definite quadratic (its $L D L^T$ "
                           "with positive pivots is in the certificate).")
            else:
                out.append(f" ${tex_polynomial(f['polynomial'])} = " + " + ".join(squares) + "$.")
        elif rule in ("binary-form", "univariate"):
            x = tex_parameter(cover["variables"][0])
            what = (f"${tex_polynomial(f['polynomial'])}$ at ${tex_parameter(cover['variables'][1])} = 1$"
                    if rule == "binary-form" else f"${tex_polynomial(f['polynomial'])}$")
            out.append(f" {what} has no rational root in ${x}$ (rational root theorem).")
    return "".join(out)


def body_factors(b, rank):
    """``(factors, delta)``: a body's factor list (``""`` when it has none) and its determinant (factored when it can
    be) as proof text."""
    flist = b["factors"]["list"]
    factors = ", ".join(f"${_power(f['polynomial'], f['multiplicity'])}$" for f in flist[:_MAX_LISTED])
    if len(flist) > _MAX_LISTED:
        factors += f" and {len(flist) - _MAX_LISTED} more in the certificate"
    det = b["lower_bound"].get("determinant")
    delta = ""
    if det is not None and rank:
        fact = _factored(det, [f["polynomial"] for f in flist], b["parameters"])
        if fact is not None and len(fact) <= 300:
            delta = f" $\\Delta = {fact}$;"
        elif len(det) <= 200:
            delta = f" $\\Delta = {tex_polynomial(det)}$;"
        else:
            delta = f" $\\Delta$ of {len(det)} characters in the certificate;"
    return factors, delta


def parametric_markdown(d, safe_name):
    """A short Markdown summary of verified parametric data."""
    body = "\n".join(f"- {line.strip()}" for line in parametric_lines(d))
    return f"**symssm family certificate** for `{safe_name}` (n = {d['n']}):\n\n{body}"
