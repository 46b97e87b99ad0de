"""LaTeX of head-count certificates: the theorem and its proof, from verified certificate data.

The statement is the paper's: exactly ``k`` heads are necessary and sufficient in the multi-head
factorized class to represent the SSM's interaction operator (``W_ij(X) = L_{i-j}`` for every input), for
the range of lengths the certificate proves; and, for the map itself, among models whose coefficients do
not depend on the input, or for every model when ``p = 1`` or ``m = 1``
(:func:`symssm.render.claims.map_necessity`).  For small systems the proof
shows every witness it uses (the lag operators, the minor, its leading principal minors, the
characteristic polynomial that drives the recurrence for the coefficients); for large ones it
names the lags, entries and determinant and refers to the certificate for the rest.
"""

import re

from math import lcm

from .exactsmall import charpoly, lags_of, leading_minors, number_text
from .matrices import fits_display, items_block, rows_list, system_block
from .claims import claim
from .statement import factorized_class, for_lengths, length_range, map_sentence, represents, space
from .tex import (
    COLUMN_PT,
    MAX_ROWS,
    MAX_SHOWN,
    display_name,
    index_list,
    inline_list,
    list_entry,
    number_width,
    parse_number,
    row_line,
    tex_count,
    tex_entry,
    tex_hash,
    tex_number,
)

__all__ = ["head_count_fragment", "coefficient_rows", "lengths", "positions_text", "minors_sentence"]

#: A proof with a number longer than this (digits) in running text is set ragged right: such a number has no
#: break point, so a justified line beside it would stretch to badness 10000.
_LONG_INLINE = 20

#: Most lag operators displayed in the proof (all witness lags up to this many).
MAX_LAGS_SHOWN = 8
#: Most characters of coefficient text typeset before referring to the certificate.
MAX_COEFFICIENT_CHARS = 900


def lengths(lo, hi, var="n"):
    """``n \\ge 2`` or ``2 \\le n \\le 5`` (or ``n = 3``), math mode without dollars; lengths start at 1."""
    return length_range(lo, hi, var)


def positions_text(positions):
    """Entry positions numbered from 1, as a breakable inline list."""
    return inline_list(f"({r + 1},{c + 1})" for r, c in positions)


def minors_sentence(minor):
    """"whose leading principal minors are 1, -1, all nonzero." (None when they are too long to print)."""
    minors = leading_minors(minor)
    if sum(len(x) for x in minors) > 400:
        return None
    return (f"whose leading principal minors are ${inline_list(list_entry(x) for x in minors)}$"
            + (", all nonzero." if len(minors) > 1 else ", nonzero."))


def _small(s):
    return s["N"] <= MAX_SHOWN and s["p"] <= MAX_SHOWN and s["m"] <= MAX_SHOWN


def _profile_sentence(lags, n_from, n_to):
    """k(n) = #{s : d_s < n} as runs of lengths, skipping the run the theorem states."""
    runs = []
    bounds = [0] + [d + 1 for d in lags]
    for s in range(len(lags) + 1):
        lo = bounds[s] if s else 1
        hi = lags[s] if s < len(lags) else None
        if hi is not None and hi < lo:
            continue
        if lo == n_from and hi == n_to:
            continue
        runs.append(f"$k(n) = {s}$ for ${lengths(lo, hi)}$")
    if not runs:
        return ""
    if len(runs) > 10:
        runs = runs[:9] + ["\\dots"]
    return ("\\emph{Other lengths.} The same argument gives $k(n) = \\#\\{s : d_s < n\\}$ for every $n$: "
            + ", ".join(runs) + ".")


def head_count_fragment(d, style):
    """The theorem and proof for head-count data that the checker has verified."""
    s = d["system"]
    k, n = d["head_count"], d["n"]
    lb, hf = d["lower_bound"], d["holds_for"]
    lags = lb["lags"]
    gaussian = bool(d.get("field"))
    field = "\\mathbb{Q}(\\mathrm{i})" if gaussian else "\\mathbb{Q}"
    hasD = s["D"] is not None
    small = _small(s)
    lines = [style.begin(f"Head count of the SSM {display_name(s)}")]
    where = ("where" if small else f"whose matrices $A, B, C{', D' if hasD else ''}$ are given in the certificate "
             f"(sha256 {tex_hash(d['input_sha256'])}).")
    lines.append(f"Let $h_i = A h_{{i-1}} + B x_i$, $y_i = C h_i{' + D x_i' if hasD else ''}$ be the state space "
                 f"model with $N = {s['N']}$ states, inputs $x_i \\in {space(field, s['m'])}$ and outputs "
                 f"$y_i \\in {space(field, s['p'])}$, {where}")
    if small:
        lines.append(system_block(s, end=".").rstrip("\n"))
    start = max(1, hf["from"])
    c = claim(d)
    lines.append(f"Let $L_0 = CB{' + D' if hasD else ''}$ and $L_d = C A^d B$ ($d \\ge 1$) be its lag operators. "
                 + factorized_class(field, s["p"], s["m"]) + " " + represents("L_{i-j}"))
    lines.append(f"{for_lengths(*c.lengths)}, exactly $k = {c.value}$ attention "
                 f"head{'s are' if k != 1 else ' is'} necessary and sufficient in this class: a model of the class "
                 f"with $H$ heads represents the SSM on sequences of length $n$ if and only if $H \\ge {k}$"
                 + (f", and ${k}$ head{'s' if k != 1 else ''} suffice{'' if k != 1 else 's'} with coefficients that do "
                    "not depend on the input" if k else "")
                 + (f" (in particular for $n = {tex_count(n)}$)" if n != start else "") + "."
                 + (" On such sequences the SSM maps every input to zero." if k == 0 else
                    " " + map_sentence(c.map_necessity, s["p"], s["m"], k)))
    lines.append(style.end())
    proof = (_necessity(d, s, small, gaussian) + _map_necessity(c, field) + [""] + _sufficiency(d, s, small) + [""]
             + _construction(d, s, small))
    other = _profile_sentence(lags, max(1, hf["from"]), hf["to"])
    if other:
        proof += ["", other]
    long_number = any(re.search(r"[0-9]{%d}" % _LONG_INLINE, line) and not line.startswith("\\par\\noindent")
                      for line in proof)
    lines.append("\\begin{proof}\\emergencystretch=3em" + ("\\raggedright" if long_number else ""))
    lines += proof
    lines.append("\\end{proof}")
    return "\n".join(lines) + "\n"


def _necessity(d, s, small, gaussian):
    lb = d["lower_bound"]
    k, lags, K = d["head_count"], lb["lags"], len(lb["lags"])
    if K == 0:
        return ["\\emph{Necessity.} Every lag operator is zero, so $k(n) = 0$ for every $n$ and there is nothing "
                "to prove."]
    out = []
    ds = index_list(lambda t: f"d_{t}", 1, K)
    rc = index_list(lambda t: f"(r_{t}, c_{t})", 1, K)
    out.append(f"\\emph{{Necessity (Interaction Rank Gap).}} Take the witness lags ${ds} = {inline_list(lags)}$ "
               f"and the entries ${rc} = {positions_text(lb['positions'])}$ (rows and columns numbered from 1).")
    shown_lags = small and K <= MAX_LAGS_SHOWN
    every_entry = (K == s["p"] * s["m"] and lb["method"] == "exact"
                   and sorted(map(tuple, lb["positions"])) == [(r, c) for r in range(s["p"]) for c in range(s["m"])])
    if shown_lags and not (every_entry and K > 2):
        Ls = lags_of(s, lags)
        items = [(f"L_{{{x}}}", L) for x, L in zip(lags, Ls)]
        out.append(f"The witness lag operator{'s are' if K > 1 else ' is'}")
        out.append(items_block(items, end=".", transpose=False).rstrip("\n"))
    if lb["method"] == "exact":
        minor = lb["minor"]
        chars = sum(len(x) for row in minor for x in row)
        listed = K <= MAX_SHOWN and not fits_display("M", minor, transpose=False) and chars <= 900 and small
        out.append(f"The ${K}\\times {K}$ matrix $M$ with $M_{{st}} = (L_{{d_s}})_{{r_t c_t}}$"
                   + (" (its entries are all the entries of the witness lags, so row $s$ of $M$ lists every entry "
                      "of $L_{d_s}$)" if every_entry and shown_lags and K > 2 else "")
                   + (" has the rows" if listed else " is"))
        if K <= MAX_SHOWN and (fits_display("M", minor, transpose=False) or listed):
            sentence = minors_sentence(minor) or (f"with $\\det M = {list_entry(lb['determinant'])} \\neq 0$ and "
                                                  "every leading principal minor nonzero.")
            if listed:
                out.append(rows_list(minor, end=",", tail=sentence).rstrip("\n"))
            else:
                out.append(items_block([("M", minor)], end=",", transpose=False).rstrip("\n"))
                out.append(sentence)
        else:
            det = list_entry(lb["determinant"])
            out.append(f"listed in the certificate; the checker recomputed its entries from the lags, and "
                       f"$\\det M = {det} \\neq 0$ with every leading principal minor nonzero.")
    else:
        P = lb["prime"]
        out.append(f"Let $M_{{st}} = (L_{{d_s}})_{{r_t c_t}}$. Every entry of $A, B, C{', D' if s['D'] is not None else ''}$ "
                   f"has a denominator prime to $P = {P}$; modulo $P$, every leading principal minor of $M$ is "
                   f"nonzero and $\\det M \\equiv {lb['determinant_mod_p']} \\pmod{{{P}}}$. Reduction modulo $P$ is "
                   "a ring homomorphism on such numbers, so these minors are nonzero over "
                   + ("$\\mathbb{Q}(\\mathrm{i})$" if gaussian else "$\\mathbb{Q}$") + " as well.")
    if k == 0:
        out.append(f"On sequences of length $n \\le {lags[0]}$ no lag of the SSM is nonzero ($d_1 = {lags[0]}$ is "
                   "the first nonzero lag), so $k(n) = 0$.")
        return out
    sub = "$" + index_list(lambda t: f"L_{{d_{t}}}", 1, k) + "$"
    out.append(
        f"A vanishing combination of {sub} would vanish at the entries $(r_t, c_t)$, which the nonzero leading "
        f"${k}\\times {k}$ minor of $M$ excludes; so {'these lags are' if k > 1 else 'it is'} linearly "
        f"independent{'' if k > 1 else ' (nonzero)'}, and $k(n) = \\dim \\symssmspan\\{{L_0, \\dots, L_{{n-1}}\\}} "
        f"\\ge {k}$ for $n > d_{{{k}}} = {lags[k - 1]}$. An $H$-head factorized model "
        f"$W_{{ij}} = \\sum_{{\\ell=1}}^H \\alpha^\\ell_{{ij}} V_\\ell$ has all its operators in "
        f"$\\symssmspan\\{{V_1, \\dots, V_H\\}}$, of dimension at most $H$, while the SSM's operator takes every value "
        f"$L_{{i-j}}$, $0 \\le i - j < n$. So no model with $H < {k}$ heads represents it"
        + (" (in particular no single-head attention layer)" if k >= 2 else "")
        + (f"; for each $H < {k}$ the leading $(H+1)\\times(H+1)$ minor of $M$ is the witness." if k > 1 else "."))
    return out


def _map_necessity(c, field):
    """Why the count bounds the heads of a model that computes the SSM's map (the claim's map necessity)."""
    if not c.value:
        return []
    if c.map_necessity == "input-independent":
        return ["", "\\emph{The map.} If a model's coefficients do not depend on the input and it computes the SSM's "
                "map, the input with $x_j = e_t$ and all other tokens zero gives $W_{ij} e_t = L_{i-j} e_t$ for every "
                "$t$ and $j \\le i$: its operator is the SSM's, and the bound above applies."]
    if c.m == 1:
        return ["", "\\emph{The map.} As $m = 1$, every output "
                "$y_i = \\sum_j \\sum_\\ell \\alpha^\\ell_{ij}(X)\\, x_j V_\\ell$ of a model lies in "
                "$\\symssmspan\\{V_1, \\dots, V_H\\}$, whatever its coefficients. If it computes the SSM's map, "
                "the input $x_1 = 1$, all other tokens $0$, gives $y_{d+1} = L_d$, so every lag $L_d$, $d < n$, "
                "lies in that span and $k(n) \\le H$."]
    return ["", "\\emph{The map.} As $p = 1$, let $K \\subseteq " + field + "^{" + str(c.m) + "}$ be the common "
            "kernel of the rows $V_1, \\dots, V_H$. If a model computes the SSM's map, whatever its coefficients, the input "
            "$x_1 = x \\in K$, all other tokens $0$, has model outputs $0$ (every $V_\\ell x_j = 0$), so $L_d x = y_{d+1} "
            "= 0$ for $d < n$: every row $L_d$ vanishes on $K$, hence lies in "
            "$\\symssmspan\\{V_1, \\dots, V_H\\}$ (the rows that vanish on $K$ are exactly that span), and "
            "$k(n) \\le H$."]


def _charpoly_text(s):
    """``(inline, display lines, coefficient texts)`` of the characteristic polynomial, or None when too large to be
    worth printing: ``inline`` (``x^2 + 1``, math) when it is short enough for running text, else None and the
    display's lines (its terms packed into lines of the column, fractions stacked; a complex coefficient is one
    unbroken term)."""
    if s["N"] > 8:
        return None
    cs = charpoly(s["A"])
    if sum(len(c) for c in cs) > 160:
        return None
    N = s["N"]
    terms, shown = [], []
    for j, c in enumerate(cs):
        power = N - j
        re_, im = parse_number(c)
        if re_ == 0 and im == 0:
            continue
        mono = "" if power == 0 else ("x" if power == 1 else f"x^{{{power}}}")
        if im == 0:
            neg = re_ < 0
            mag = tex_entry(c.lstrip("-"))
            coef = "" if (mag == "1" and mono) else mag
            wide = number_width(c.lstrip("-")) if coef else 0.0
            big = coef if "/" not in coef or "\\cdot" in coef else \
                "\\frac{%s}{%s}" % tuple(coef.replace("\\allowbreak ", "").split("/"))
            wide = wide if "." not in coef else 4.5 * len(coef)
            big_w = wide * (0.6 if big != coef else 1.0)
        else:
            neg = False
            coef = f"({tex_number(c)})"
            den = lcm(re_.denominator, im.denominator)
            num = number_text((re_ * den, im * den))
            big = (f"\\left(\\frac{{{tex_number(num)}}}{{{den}}}\\right)" if den > 1 else f"({tex_number(num)})")
            wide = number_width(c) + 10
            big_w = max(number_width(num) - 10.0, 5.0 * len(str(den))) + 12.0
        sep = (" - " if neg else " + ") if terms else ("-" if neg else "")
        thin = "\\," if coef and mono and im == 0 and ("/" in coef or "." in coef) else ""
        terms.append(sep + coef + thin + mono)
        shown.append((sep + big + thin + mono,
                      big_w + (10.0 if power else 0.0) + 12.0))
    inline = "".join(terms)
    if sum(w for _, w in shown) <= _INLINE_CHARPOLY_PT and not any(parse_number(c)[1] for c in cs):
        return inline, None, cs
    lines, current, width = [], [], 50.0
    for tex, w in shown:
        if current and width + w > COLUMN_PT:
            lines.append("".join(current))
            current, width = [], 40.0
        current.append(tex)
        width += w
    lines.append("".join(current))
    return None, lines, cs


#: Widest characteristic polynomial (pt) written in running text; a wider or complex one is displayed.
_INLINE_CHARPOLY_PT = 120


def coefficient_rows(rows, head="d"):
    """The coefficient table: a tabular where it fits a column, else one breakable line per row."""
    if not rows:
        return ""
    width = max(len(r["c"]) for r in rows)
    col = [max((number_width(r["c"][h]) for r in rows if h < len(r["c"])), default=0) + 12 for h in range(width)]
    label_w = max(6 * len(str(r["lag"])) for r in rows) + 12
    if sum(col) + label_w <= COLUMN_PT:
        body = [f"${head}$ & " + " & ".join(f"$c_{{{head},{h + 1}}}$" for h in range(width)) + r" \\ \hline"]
        for r in rows:
            cells = [f"${list_entry(x)}$" for x in r["c"]] + [""] * (width - len(r["c"]))
            body.append(f"${r['lag']}$ & " + " & ".join(cells) + r" \\")
        return ("\\begin{center}\n\\begin{tabular}{c|" + "c" * width + "}\n" + "\n".join(body)
                + "\n\\end{tabular}\n\\end{center}")
    out = ["{\\raggedright"]
    for r in rows:
        out.append(row_line([list_entry(x) for x in r["c"]]).replace("\\hspace*{1em}", f"\\hspace*{{1em}}${head} = {r['lag']}$: ", 1))
    out.append("\\par}")
    return "\n".join(out)


def _first_lags(T):
    """``L_0, \\dots, L_{T-1}`` written out when T is 1, 2 or 3."""
    if T <= 3:
        return ", ".join(f"L_{{{d}}}" for d in range(T))
    return f"L_0, \\dots, L_{{{T - 1}}}"


def _listed(d):
    """The coefficient rows the proof needs (lags the dimension argument does not cover): (zero, nonzero)."""
    ub = d["upper_bound"]
    dim_from = ub["dimension_from_lag"]
    rows = [r for r in ub["coefficients"] if dim_from is None or r["lag"] < dim_from]
    return [r["lag"] for r in rows if not any(x != "0" for x in r["c"])], [r for r in rows if any(x != "0" for x in r["c"])]


def _sufficiency(d, s, small):
    ub, lb = d["upper_bound"], d["lower_bound"]
    T, K = d["truncation"], len(lb["lags"])
    hasD = s["D"] is not None
    cp = _charpoly_text(s) if small else None
    start = "N + 1" if hasD else "N"
    if cp and cp[0] is not None:
        chi = (f"$\\chi_A(x) = \\det(xI - A) = {cp[0]}$, written "
               "$x^N + \\sum_{j=0}^{N-1} a_j x^j$. ")
    elif cp:
        rows = "\\\\\n&\\quad ".join(cp[1])
        chi = ("$\\chi_A(x) = \\det(xI - A) = x^N + \\sum_{j=0}^{N-1} a_j x^j$ be the characteristic polynomial of $A$:\n\\begin{align*}\n"
               f"\\chi_A(x) &= {rows}.\n\\end{{align*}}\n")
    else:
        chi = "$\\chi_A(x) = \\det(xI - A) = x^N + a_{N-1} x^{N-1} + \\dots + a_0$. "
    out = [f"\\emph{{Sufficiency.}} Let {chi}By the Cayley--Hamilton theorem "
           f"$\\chi_A(A) = 0$, so $L_d = -\\sum_{{j=0}}^{{N-1}} a_j L_{{d-N+j}}$ for every $d \\ge {start} = {T}$"
           + (" (where $L_{d-N} = C A^{d-N} B$ does not involve $D$)" if hasD else "")
           + f"; every lag lies in $\\symssmspan\\{{{_first_lags(T)}\\}}$."]
    dim_from = ub["dimension_from_lag"]
    if dim_from is not None:
        field = "\\mathbb{Q}(\\mathrm{i})" if d.get("field") else "\\mathbb{Q}"
        out.append(f"The $pm = {K}$ independent witness lag{'s' if K > 1 else ''} span all of ${field}^{{{s['p']}\\times {s['m']}}}$, "
                   f"which contains every lag, in particular every $L_d$ with $d \\ge {dim_from}$.")
    zero, rows = _listed(d)
    if zero:
        listed = inline_list(zero[:24]) + (",\\allowbreak \\dots" if len(zero) > 24 else "")
        out.append(f"The lags $L_d$ with $d \\in \\{{{listed}\\}}$ are zero.")
    if rows:
        chars = sum(len(x) for r in rows for x in r["c"])
        if len(rows) <= MAX_ROWS and chars <= MAX_COEFFICIENT_CHARS:
            out.append("The other lags below " + f"${T}$" + " are the exact combinations "
                       "$L_d = \\sum_\\ell c_{d,\\ell} L_{d_\\ell}$ of the witness lags below them, with")
            out.append(coefficient_rows(rows))
        else:
            out.append(f"The other {len(rows)} lags below ${T}$ ($d = {inline_list(r['lag'] for r in rows[:12])}"
                       + (",\\allowbreak \\dots" if len(rows) > 12 else "") + "$) are exact combinations "
                       "$L_d = \\sum_\\ell c_{d,\\ell} L_{d_\\ell}$ of the witness lags below them; the coefficients are in the "
                       "certificate, and the checker verified every identity entry by entry.")
    out.append("By induction on $d$, $\\symssmspan\\{L_0, \\dots, L_{n-1}\\} = \\symssmspan\\{L_{d_s} : d_s < n\\}$ "
               f"for every $n$, so $k(n) \\le {d['head_count']}$ on the stated lengths.")
    return out


def _construction(d, s, small):
    k = d["head_count"]
    if k == 0:
        return ["\\emph{Construction.} The model with no heads (the zero map) represents the SSM."]
    ub = d["upper_bound"]
    T = d["truncation"]
    hasD = s["D"] is not None
    kk = "\\ell = " + index_list(lambda t: t.strip("{}"), 1, k)
    text = (f"\\emph{{Explicit construction with $H = {k}$.}} Take the value maps $V_\\ell = L_{{d_\\ell}}$ (${kk}$) and "
            "coefficients $c_{d,\\ell}$ with $L_d = \\sum_\\ell c_{d,\\ell} V_\\ell$ for every lag $d < n$: "
            "$c_{d_\\ell,\\ell} = 1$ and $c_{d_\\ell,\\ell'} = 0$ for $\\ell' \\neq \\ell$; ")
    zero, rows = _listed(d)
    if zero:
        text += "$c_{d,\\ell} = 0$ for the zero lags; "
    if rows:
        text += "the coefficients above (or in the certificate) for the other lags below " + f"${T}$; "
    if ub["dimension_from_lag"] is not None and k == len(d["lower_bound"]["lags"]):
        text += (f"and, for $d \\ge {ub['dimension_from_lag']}$, the unique solution of "
                 "$\\sum_\\ell c_{d,\\ell} M_{\\ell t} = (L_d)_{r_t c_t}$ ($t = " + index_list(lambda t: t.strip("{}"), 1, k) + "$), $M$ being invertible. ")
    else:
        text += (f"and, for $d \\ge {T}$, the recurrence $c_{{d,\\ell}} = -\\sum_{{j=0}}^{{N-1}} a_j c_{{d-N+j,\\ell}}$ "
                 "given by $\\chi_A$" + (" (the lags it uses are at least 1, so $D$ does not enter)" if hasD else "")
                 + ". ")
    text += ("Set $\\alpha^\\ell_{ij} = c_{i-j,\\ell}$ for $j \\le i$ and $\\alpha^\\ell_{ij} = 0$ for $j > i$. These "
             "coefficients do not depend on the input, and $\\sum_\\ell \\alpha^\\ell_{ij} V_\\ell = L_{i-j}$ for all $j \\le i$.")
    return [text]
