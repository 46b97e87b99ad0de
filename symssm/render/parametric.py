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

from ..formats.expressions import TOKEN
from .tex import PREAMBLE, display_name, escape_text, tex_hash

__all__ = ["outline", "parametric_lines", "parametric_fragment", "parametric_markdown", "tex_polynomial",
           "tex_parameter"]

_MAX_LISTED = 12


def outline(d):
    """The cases of verified parametric data, depth first: dicts with depth, path, parameters, k, factors."""
    bodies = d["bodies"]
    out = []

    def walk(i, depth, path):
        b = bodies[i]
        factors = b["factors"]["list"]
        out.append({"index": i, "depth": depth, "path": path, "parameters": b["parameters"],
                    "k": b["head_count"], "factors": [f["polynomial"] for f in factors],
                    "outside": [f["polynomial"] for f in factors if f["status"] == "outside-domain"],
                    "uncovered": [f["polynomial"] for f in factors if f["status"] == "uncovered"],
                    "complete": b["complete"], "holds_for": b["holds_for"], "body": b})
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

def tex_parameter(name):
    """A parameter name in math mode: ``l1`` -> ``l_{1}``, ``h`` -> ``h``, ``ab_c`` -> ``\\mathit{ab\\_c}``."""
    m = re.fullmatch(r"([A-Za-z])([0-9]+)", name)
    if m:
        return f"{m.group(1)}_{{{m.group(2)}}}"
    if len(name) == 1:
        return name
    m = re.fullmatch(r"([A-Za-z]+)([0-9]+)", name)
    if m:
        return f"\\mathit{{{m.group(1)}}}_{{{m.group(2)}}}"
    return "\\mathit{" + name.replace("_", "\\_") + "}"


def tex_polynomial(text):
    """Canonical polynomial (or formula) text as inline-math LaTeX: ``3/2*a^2*b - 1`` -> ``\\tfrac{3}{2} a^{2} b - 1``."""
    toks = []
    pos = 0
    while pos < len(text) and text[pos:].strip():
        m = TOKEN.match(text, pos)
        if not m:  # not reachable for verified data; typeset nothing unsafe
            return "\\text{(see certificate)}"
        toks.append((m.lastgroup, m.group(m.lastgroup)))
        pos = m.end()
    out, i = [], 0
    while i < len(toks):
        kind, tok = toks[i]
        if kind == "num" and i + 2 < len(toks) and toks[i + 1] == ("op", "/") and toks[i + 2][0] == "num" \
                and (i + 3 >= len(toks) or toks[i + 3][1] != "^") and (i == 0 or toks[i - 1][1] != "^"):
            out.append(f"\\tfrac{{{tok}}}{{{toks[i + 2][1]}}}")
            i += 3
            continue
        if kind == "name":
            out.append(tex_parameter(tok))
        elif tok == "^" and i + 1 < len(toks):
            out.append(f"^{{{toks[i + 1][1]}}}")
            i += 2
            continue
        elif tok == "*":
            out.append("\\,")
        elif tok in "+-":
            out.append(f" {tok} ")
        else:
            out.append(tok)
        i += 1
    return "".join(out).strip()


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


def _system_lines(d):
    body = d["bodies"][0]
    keys = ["A", "B", "C"] + (["D"] if body["entries"]["D"] is not None else [])
    total = sum(len(x) for k in keys for row in body["entries"][k] for pair in row for x in pair)
    if total > 1200:
        return [f"The entries are given in the certificate (system sha256 {tex_hash(d['input_sha256'])})."]
    lines = ["The entries, as reduced fractions, are (row by row):"]
    for k in keys:
        rows = body["entries"][k]
        cells = "; ".join(", ".join(f"${_entry(p)}$" for p in row) for row in rows)
        lines.append(f"\\par\\noindent\\hspace*{{1em}}${k}$: {cells}.")
    return ["{\\raggedright"] + lines + ["\\par}"]


def parametric_fragment(d):
    """The theorem and proof for parametric head-count data that the checker has verified."""
    s = d["system"]
    n = d["n"]
    items = outline(d)
    params = ", ".join(f"${tex_parameter(x)}$" for x in s["parameters"])
    lines = [
        f"% symssm parametric head-count certificate ({escape_text(d['generator'])}); input sha256 "
        f"{d['input_sha256']}",
        PREAMBLE.rstrip("\n"),
        f"\\begin{{symssmtheorem}}[{{Head count of the family {display_name(s)}}}]\\emergencystretch=3em",
        f"Consider the state space model {display_name(s)} with $N = {s['N']}$, $m = {s['m']}$, $p = {s['p']}$, whose "
        f"entries are rational functions of the parameter{'s' if len(s['parameters']) != 1 else ''} {params} "
        f"(sha256 {tex_hash(d['input_sha256'])}). Let $k = k({n})$ be the number of attention heads necessary and "
        f"sufficient to represent it on sequences of length $n = {n}$ ($H$ heads suffice if and only if $H \\ge k$).",
        "\\begin{enumerate}",
    ]
    for item in items:
        if item["depth"] == 0:
            where = ("For every " + _point(item["parameters"]) + _nonzero(item["factors"])) if item["parameters"] \
                else "For the system"
        else:
            path = " and ".join(f"${tex_parameter(x)} = {tex_polynomial(v)}$" for x, v in item["path"])
            rest = (", for every " + _point(item["parameters"]) + _nonzero(item["factors"])) if item["parameters"] \
                else ""
            where = f"Where {path} and the family is defined{rest}"
        lines.append(f"\\item {where}: $k = {item['k']}$.")
        for f in item["uncovered"]:
            where = "" if item["depth"] == 0 else " and ".join(
                f"${tex_parameter(x)} = {tex_polynomial(v)}$" for x, v in item["path"]) + " and "
            lines.append(f"\\item Where {where}${tex_polynomial(f)} = 0$, this certificate proves nothing.")
    lines.append("\\end{enumerate}")
    outside = items[0]["outside"]
    if d["complete"]:
        lines.append("These cases cover every parameter value at which the family is defined"
                     + (" (it is undefined exactly where " + ", ".join(f"${tex_polynomial(f)} = 0$" for f in outside)
                        + ")" if outside else "") + ".")
    else:
        lines.append("The cases do not cover the zero sets of the factors marked as proving nothing.")
    lines += ["\\end{symssmtheorem}", "\\begin{proof}\\emergencystretch=3em"]
    lines += _system_lines(d)
    lines.append("Let $g$ be the common denominator of the entries and $\\Lambda_d = g^{d+2} L_d$, polynomial "
                 "matrices ($\\Lambda_0 = (gC)(gB) + g (gD)$). In each case below, the minor of $\\Lambda_{d_1}, "
                 "\\dots, \\Lambda_{d_k}$ at the listed entries has a nonzero determinant $\\Delta$ (lower bound); every "
                 "other lag below $\\min(n, T)$, $T = N$ ($N+1$ with $D$), satisfies "
                 "$q_d \\Lambda_d = \\sum_s p_{d,s} \\Lambda_{d_s}$, or $k = \\min(n, T, pm)$ (upper bound); and "
                 "$g \\Delta \\prod_d q_d$ is the product of the listed factors, so off their zero sets the rank "
                 "is $k$ at every point. A factor that divides an entry's denominator lies outside the domain; a "
                 "factor linear in one parameter is covered by the family with that parameter substituted. "
                 "Every identity was verified exactly as a polynomial identity by the independent checker.")
    lines.append("\\begin{itemize}")
    for item in items:
        b = item["body"]
        lb = b["lower_bound"]
        lags = ", ".join(str(x) for x in lb["lags"]) or "none"
        pos = ",\\allowbreak ".join(f"({r},{c})" for r, c in lb["positions"]) or "none"
        label = "generic case" if item["depth"] == 0 else "case " + ", ".join(
            f"${tex_parameter(x)} = {tex_polynomial(v)}$" for x, v in item["path"])
        upper = "the dimension argument" if b["upper_bound"]["dimension"] else \
            f"{len(b['upper_bound']['coefficients'])} coefficient identit{'y' if len(b['upper_bound']['coefficients']) == 1 else 'ies'}"
        factors = ", ".join(f"${tex_polynomial(f['polynomial'])}$" + (f"$^{{{f['multiplicity']}}}$"
                                                                      if f["multiplicity"] > 1 else "")
                            for f in b["factors"]["list"][:_MAX_LISTED]) or "none"
        lines.append(f"\\item {label}: $k = {b['head_count']}$; witness lags ${lags}$ at entries ${pos}$; upper "
                     f"bound by {upper}; factors {factors}.")
    lines.append("\\end{itemize}")
    lines.append("\\end{proof}")
    return "\n".join(lines) + "\n"


def parametric_markdown(d, safe_name):
    """A short Markdown summary of verified parametric data."""
    body = "\n".join(f"- {line.strip()}" for line in parametric_lines(d))
    return f"**symssm family certificate** for `{safe_name}` (n = {d['n']}):\n\n{body}"
