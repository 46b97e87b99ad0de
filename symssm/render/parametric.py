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

from ..formats.expressions import polynomial_text
from .matrices import items_block
from .polytex import tex_parameter, tex_polynomial
from .statement import factorized_class, length_range, space
from .tex import display_name, tex_count, tex_hash

__all__ = ["outline", "parametric_lines", "parametric_fragment", "parametric_markdown", "tex_polynomial",
           "tex_parameter"]

_MAX_LISTED = 12


def outline(d):
    """The cases of verified parametric data, depth first: dicts with depth, path, parameters, k, factors.

    ``k`` is a body's head count, or its interaction rank for a layer (whose bodies have no ``holds_for``).
    """
    bodies = d["bodies"]
    out = []

    def walk(i, depth, path):
        b = bodies[i]
        factors = b["factors"]["list"]
        out.append({"index": i, "depth": depth, "path": path, "parameters": b["parameters"],
                    "k": b["head_count"] if "head_count" in b else b["interaction_rank"],
                    "factors": [f["polynomial"] for f in factors],
                    "outside": [f["polynomial"] for f in factors if f["status"] == "outside-domain"],
                    "uncovered": [f["polynomial"] for f in factors if f["status"] == "uncovered"],
                    "complete": b["complete"], "holds_for": b.get("holds_for"), "body": b})
        for f in factors:
            if f["status"] == "case":
                sub = bodies[f["case"]]["substitution"]
                walk(f["case"], depth + 1, path + [(sub["parameter"], sub["value"])])

    walk(0, 0, [])
    return out


def _names(params):
    return ", ".join(params) if len(params) != 1 else params[0]


def parametric_lines(d):
    """Terminal summary lines of verified parametric data."""
    n = d["n"]
    lines = []
    for item in outline(d):
        pad = "  " * item["depth"]
        head = f"k({n}) = {item['k']}"
        cond = f" where none of {', '.join(item['factors'])} vanishes" if item["factors"] else ""
        if item["depth"] == 0:
            params = _names(item["parameters"])
            lines.append(f"{head} for every {params}{cond} (the generic case)" if params else f"{head}")
        else:
            at = ", ".join(f"{x} = {v}" for x, v in item["path"][-1:])
            lines.append(f"{pad}where {at} (and the family is defined): {head}"
                         + (_except(item["factors"]) if item["factors"] else ""))
        for f in item["outside"]:
            lines.append(f"{pad}  {f} = 0: the family is not defined there")
        for f in item["uncovered"]:
            lines.append(f"{pad}  {f} = 0: not covered, the certificate proves nothing there")
    lines.append("complete: every parameter value where the family is defined has its head count" if d["complete"]
                 else "not complete: the uncovered factors above are left open")
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
    return f"({tex_polynomial(num)})/({tex_polynomial(den)})"


_C = "\\mathbb{C}"


def system_statement(d):
    """(text after "functions of the parameters ...", whether the matrices are shown): the family's matrices,
    compressed, in the statement; by the certificate's hash when their entries are too long to print."""
    entries = d["bodies"][0]["entries"]
    named = [(k, rows) for k, rows in entries.items() if rows is not None]
    total = sum(len(x) for _, rows in named for row in rows for pair in row for x in pair)
    if total > 1200:
        return f" (given in the certificate, sha256 {tex_hash(d['input_sha256'])}).", False
    return (" (entries as reduced fractions; the family is defined where no denominator vanishes):\n"
            + items_block(named, end=".").rstrip("\n")), True


def _system_lines(d):
    entries = d["bodies"][0]["entries"]
    return entry_lines(d, {k: rows for k, rows in entries.items() if rows is not None}, str)


def entry_lines(d, entries, name):
    """The proof's list of entries (``{key: rows of [num, den]}``, each matrix named by ``name(key)`` in math),
    or a pointer to the certificate when they are long."""
    total = sum(len(x) for rows in entries.values() for row in rows for pair in row for x in pair)
    if total > 1200:
        return [f"The entries are given in the certificate (sha256 {tex_hash(d['input_sha256'])})."]
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


def _case_items(items, n):
    out = []
    for item in items:
        if item["depth"] == 0:
            where = ("For every " + _point(item["parameters"]) + _nonzero(item["factors"])) if item["parameters"] \
                else "For the system"
        else:
            path = " and ".join(f"${tex_parameter(x)} = {tex_polynomial(v)}$" for x, v in item["path"])
            rest = (", for every " + _point(item["parameters"]) + _nonzero(item["factors"])) if item["parameters"] \
                else ""
            where = f"Where {path} and the family is defined{rest}"
        out.append(f"\\item {where}: $k(n) = {item['k']}$ for every ${_ranges(item['holds_for'])}$"
                   + (f", in particular $k({tex_count(n)}) = {item['k']}$" if n != max(1, item["holds_for"]["from"]) else "")
                   + ".")
        for f in item["uncovered"]:
            where = "" if item["depth"] == 0 else " and ".join(
                f"${tex_parameter(x)} = {tex_polynomial(v)}$" for x, v in item["path"]) + " and "
            out.append(f"\\item Where {where}${tex_polynomial(f)} = 0$, this certificate proves nothing.")
    return out


_DIFFERENCE = re.compile(r"([A-Za-z][A-Za-z0-9_]*) - ([A-Za-z][A-Za-z0-9_]*)")


def _partition_cases(d, items):
    """{partition: (k, holds_for)} when every case is "which parameters are equal", else None.

    That is the shape of a complete certificate whose substitutions all set one parameter equal to
    another and whose every case is cut out by all pairwise differences of its remaining parameters:
    each case is then exactly one partition of the parameters into classes of equal values, and the
    symmetric cases (``l_1 = l_2 = l_3`` reached three ways) are one statement.
    """
    params = list(d["system"]["parameters"])
    if not d["complete"] or len(params) < 2 or len(params) > 6:
        return None
    out = {}
    for item in items:
        parent = {x: x for x in params}

        def root(x):
            while parent[x] != x:
                x = parent[x]
            return x

        for x, v in item["path"]:
            if v not in params:
                return None
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
    lines = [
        style.begin(f"Head count of the family {display_name(s)}"),
        f"Consider the state space model {display_name(s)}, $h_i = A h_{{i-1}} + B x_i$, "
        f"$y_i = C h_i{' + D x_i' if s.get('D') is not None else ''}$, with $N = {s['N']}$ states, inputs "
        f"$x_i \\in {space(_C, s['m'])}$ and outputs $y_i \\in {space(_C, s['p'])}$, whose matrices are rational "
        f"functions of the parameter{'s' if len(s['parameters']) != 1 else ''} {params}" + statement,
        factorized_class(_C, s["p"], s["m"]) + " Let $k(n)$ be the number of heads necessary and sufficient in this "
        "class to represent the SSM on sequences of length $n$ at a parameter value ($H$ heads suffice if and only if "
        "$H \\ge k(n)$).",
        "\\begin{enumerate}",
    ]
    merged = _partition_cases(d, items)
    if merged is not None:
        lines += _partition_items(merged, s["parameters"], n)
    else:
        lines += _case_items(items, n)
    lines.append("\\end{enumerate}")
    outside = items[0]["outside"]
    if d["complete"]:
        lines.append("These cases cover every parameter value at which the family is defined"
                     + (" (it is undefined exactly where " + ", ".join(f"${tex_polynomial(f)} = 0$" for f in outside)
                        + ")" if outside else "") + ".")
    else:
        lines.append("The cases do not cover the zero sets of the factors marked as proving nothing.")
    lines += [style.end(), "\\begin{proof}\\emergencystretch=3em"]
    if not shown:
        lines += _system_lines(d)
    lines.append("Let $g$ be the common denominator of the entries and $\\Lambda_d = g^{d+2} L_d$, polynomial "
                 "matrices ($\\Lambda_0 = (gC)(gB) + g (gD)$). In each case below, the minor of $\\Lambda_{d_1}, "
                 "\\dots, \\Lambda_{d_k}$ at the listed entries (rows and columns numbered from 1) has the nonzero "
                 "determinant $\\Delta$ shown (lower bound); every other lag below $\\min(n, T)$, $T = N$ ($N+1$ with "
                 "$D$), satisfies $q_d \\Lambda_d = \\sum_s p_{d,s} \\Lambda_{d_s}$, or $k = \\min(n, T, pm)$ and the "
                 "dimension argument applies (upper bound); and $g \\Delta \\prod_d q_d$ is the product of the listed "
                 "factors, so off their zero sets the rank is $k$ at every point. A factor that divides an entry's "
                 "denominator lies outside the domain; a factor linear in one parameter is covered by the family with "
                 "that parameter substituted. The checker verified every identity exactly as a polynomial identity.")
    lines.append("\\begin{itemize}")
    for item in items:
        b = item["body"]
        lb = b["lower_bound"]
        lags = ", ".join(str(x) for x in lb["lags"]) or "none"
        pos = ",\\allowbreak ".join(f"({r + 1},{c + 1})" for r, c in lb["positions"]) or "none"
        label = "generic case" if item["depth"] == 0 else "case " + ", ".join(
            f"${tex_parameter(x)} = {tex_polynomial(v)}$" for x, v in item["path"])
        ncoef = len(b["upper_bound"].get("coefficients") or [])
        upper = "the dimension argument" if b["upper_bound"]["dimension"] else \
            f"{ncoef} coefficient identit{'y' if ncoef == 1 else 'ies'}"
        co = b["upper_bound"].get("coefficients") or []
        if co and sum(len(x["q"]) + sum(len(y) for y in x["p"]) for x in co) <= 240:
            shown = []
            for x in co:
                rhs = ""
                for s_, y in enumerate(x["p"]):
                    if y == "0":
                        continue
                    lam = f"\\Lambda_{{{lb['lags'][s_]}}}"
                    term = lam if y == "1" else f"-{lam}" if y == "-1" else f"{_factor_tex(y)}\\,{lam}"
                    if rhs:
                        rhs += f" - {term[1:].lstrip()}" if term.startswith("-") else f" + {term}"
                    else:
                        rhs = term
                rhs = rhs or "0"
                q = "" if x["q"] == "1" else f"{_factor_tex(x['q'])}\\,"
                shown.append(f"${q}\\Lambda_{{{x['lag']}}} = {rhs}$")
            upper += " (" + ", ".join(shown) + ")"
        factors, delta = body_factors(b, b["head_count"])
        lines.append(f"\\item {label}: $k = {b['head_count']}$; witness lags ${lags}$ at entries ${pos}$;{delta} upper "
                     f"bound by {upper}; factors {factors}.")
    lines.append("\\end{itemize}")
    lines.append("\\end{proof}")
    return "\n".join(lines) + "\n"


def body_factors(b, rank):
    """``(factors, delta)``: a body's factor list and its determinant (factored when it can be) as proof text."""
    flist = b["factors"]["list"]
    factors = ", ".join(f"${_power(f['polynomial'], f['multiplicity'])}$" for f in flist[:_MAX_LISTED]) or "none"
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
