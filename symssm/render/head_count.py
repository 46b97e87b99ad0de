"""LaTeX of head-count certificates: the theorem and its proof, from verified certificate data."""

from .tex import (
    COLUMN_PT,
    MAX_ROWS,
    MAX_SHOWN,
    PREAMBLE,
    display_name,
    escape_text,
    inline_list,
    matrix_block,
    number_width,
    system_block,
    tex_number,
)

__all__ = ["head_count_fragment"]


def head_count_fragment(d):
    """The theorem and proof for head-count data that the checker has verified."""
    s = d["system"]
    k, n, T = d["head_count"], d["n"], d["truncation"]
    lb, ub, prof, hf = d["lower_bound"], d["upper_bound"], d["profile"], d["holds_for"]
    lags = lb["lags"]
    K = len(lags)
    pm = s["p"] * s["m"]
    field = "\\mathbb{Q}(i)" if d.get("field") else "\\mathbb{Q}"
    rng = f"every $n'$ with ${hf['from']} \\le n'" + (f" \\le {hf['to']}$" if hf["to"] is not None else "$")
    lines = [
        f"% symssm head-count certificate ({escape_text(d['generator'])}); input sha256 {d['input_sha256']}",
        PREAMBLE.rstrip("\n"),
        f"\\begin{{symssmtheorem}}[{{Head count of the SSM {display_name(s)}}}]\\emergencystretch=3em",
        f"Let $h_i = A h_{{i-1}} + B x_i$, $y_i = C h_i{' + D x_i' if s['D'] is not None else ''}$ "
        f"with state dimension $N = {s['N']}$, inputs in ${field}^{{{s['m']}}}$, outputs in ${field}^{{{s['p']}}}$ and",
        system_block(s, d["input_sha256"]).rstrip("\n"),
        "Let $L_0 = CB" + (" + D" if s["D"] is not None else "") + "$ and $L_d = C A^d B$ ($d \\ge 1$) be its lag operators.",
        f"On sequences of length $n = {n}$, exactly $k = {k}$ attention head{'s are' if k != 1 else ' is'} necessary and "
        f"sufficient: the SSM is represented by an $H$-head factorized model if and only if $H \\ge {k}$. "
        f"The same holds for {rng}.",
        "\\end{symssmtheorem}",
        "\\begin{proof}\\emergencystretch=3em",
    ]
    # Necessity.
    if k == 0:
        lines.append("\\emph{Necessity.} Nothing to prove: $k = 0$.")
    else:
        sub = f"the leading ${k}\\times {k}$ part of " if k < K else ""
        lag_list = inline_list(lags[:k])
        pos_list = inline_list(f"({r},{c})" for r, c in lb["positions"][:k])
        if lb["method"] == "exact":
            minor = lb["minor"]
            lines.append(
                f"\\emph{{Necessity (Interaction Rank Gap).}} Take the lags $d = {lag_list}$ "
                f"and the entries $(r,c) = {pos_list}$ "
                f"(rows and columns from 0). The matrix $M_{{st}} = (L_{{d_s}})_{{r_t c_t}}$ is {sub}")
            shown = [row[:k] for row in minor[:k]]
            lines.append(matrix_block("M", shown, suffix=".").rstrip("\n"))
            if k == K:
                lines.append(f"Its determinant is $\\det M = {tex_number(lb['determinant'])} \\neq 0$.")
            lines.append("Every leading principal minor of $M$ is nonzero (fraction-free Bareiss elimination), ")
        else:
            P = lb["prime"]
            lines.append(
                f"\\emph{{Necessity (Interaction Rank Gap).}} Take the lags $d = {lag_list}$ "
                f"and the entries $(r,c) = {pos_list}$ (from 0), and let "
                f"$M_{{st}} = (L_{{d_s}})_{{r_t c_t}}$. Reduced modulo the prime $P = {P}$, which divides no denominator "
                f"of $A, B, C{', D' if s['D'] is not None else ''}$, every leading principal minor of $M$ is nonzero"
                + (f", and $\\det M \\equiv {lb['determinant_mod_p']} \\pmod{{{P}}}$" if k == K else "")
                + ". Reduction modulo $P$ is a ring homomorphism on rationals with denominators prime to $P$, "
                "so these minors are nonzero over $\\mathbb{Q}$ as well; ")
        independent = (f"$L_d$ for the {k} lags $d$ listed above are" if k > 10 else
                       f"${inline_list(f'L_{{{d}}}' for d in lags[:k])}$ {'are' if k > 1 else 'is'}")
        lines.append(
            f"hence {independent} linearly independent{'' if k > 1 else ' (nonzero)'} and "
            f"$k(n) = \\dim \\symssmspan\\{{L_0, \\dots, L_{{n-1}}\\}} \\ge {k}$. "
            f"Every $H$-head factorized model $W_{{ij}} = \\sum_{{h=1}}^H \\alpha^h_{{ij}} V_h$ has all its operators in "
            f"$\\symssmspan\\{{V_1, \\dots, V_H\\}}$, of dimension at most $H$, while the SSM's operator takes every value "
            f"$L_{{i-j}}$, $0 \\le i - j < n$. So no model with $H < {k}$ heads represents it"
            + (" (in particular no single-head attention layer)" if k >= 2 else "")
            + f"; for each $H < {k}$ the leading $(H+1)\\times(H+1)$ minor is the witness.")
    vm = d["heads"].get("value_maps")
    if vm and len(vm[0]) <= MAX_SHOWN and len(vm[0][0]) <= MAX_SHOWN:
        shown_maps = vm[:6]
        lines.append("The lag operators used are" + (f" (the first 6 of {len(vm)})" if len(vm) > 6 else ""))
        lines.append("".join(matrix_block(f"L_{{{lags[h]}}}", V, suffix="," if h + 1 < len(shown_maps) else ".")
                             for h, V in enumerate(shown_maps)).rstrip("\n"))
    # Sufficiency.
    lines.append("")
    coeffs = ub["coefficients"]
    suff = [f"\\emph{{Sufficiency.}} By the Cayley--Hamilton theorem every lag $L_d$ with $d \\ge {T}$ lies in "
            f"$\\symssmspan\\{{L_0, \\dots, L_{{{T - 1}}}\\}}$" + (" (from $L_1$ on, as $D \\neq 0$)" if s["D"] is not None else "") + ". "]
    if ub["dimension_from_lag"] is not None:
        suff.append(f"The ${K}$ independent lags span all of $\\mathbb{{Q}}^{{{s['p']}\\times {s['m']}}}$ "
                    f"(dimension $pm = {pm}$), which covers every lag $d \\ge {ub['dimension_from_lag']}$. ")
    if coeffs:
        suff.append("Each remaining lag is an exact combination $L_d = \\sum_h c_{d,h} L_{d_h}$ of the witness lags "
                    "below it, verified entry by entry:")
        lines.append("".join(suff))
        zero = [r["lag"] for r in coeffs if not r["c"]]
        if zero:
            listed = inline_list(zero[:24]) + (",\\allowbreak \\dots" if len(zero) > 24 else "")
            lines.append(f"The lags $L_d$ with $d \\in \\{{{listed}\\}}$ are zero (no witness lag lies below them).")
        rows = [r for r in coeffs if r["c"]]
        lines.append(_coefficient_rows(rows))
    else:
        lines.append("".join(suff))
    lines.append(f"Hence $k(n') = \\#\\{{s : d_s < n'\\}}$ for every $n'$, and $k({n}) = {k}$.")
    # Construction.
    lines.append("")
    if k:
        listed = [r for r in coeffs if r["c"]]
        lines.append(
            f"\\emph{{Explicit construction with $H = {k}$.}} Take the value maps $V_h = L_{{d_h}}$ "
            f"($h = 1, \\dots, {k}$) and write $L_d = \\sum_h c_{{d,h}} V_h$, which the sufficiency part shows is "
            f"possible for every $d$ (with $c_{{d_h, h'}} = [h = h']$"
            + (", and the coefficients listed above" if listed else "")
            + "); set $\\alpha^h_{ij} = c_{i-j,h}$ for $j \\le i$ and $\\alpha^h_{ij} = 0$ for $j > i$. "
            "These coefficients do not depend on the input, and $\\sum_h \\alpha^h_{ij} V_h = L_{i-j}$ for all $j \\le i$.")
    lines.append("")
    vals = prof["values"]
    shown_vals = inline_list(vals[:24]) + (",\\allowbreak \\dots" if len(vals) > 24 else "")
    lines.append(f"\\emph{{Profile.}} $k(1), k(2), \\dots = {shown_vals}$, and $k(n) = {prof['eventual']}$ for all "
                 f"$n \\ge {prof['constant_from']}$.")
    lines.append("\\end{proof}")
    return "\n".join(lines) + "\n"


def _coefficient_rows(rows):
    """The coefficient table, as a tabular where it fits a column, else one breakable line per lag."""
    if not rows:
        return ""
    shown = rows[:MAX_ROWS]
    width = max(len(r["c"]) for r in shown)
    col = [max((number_width(r["c"][h]) for r in shown if h < len(r["c"])), default=0) + 12 for h in range(width)]
    out = []
    if sum(col) + 25 <= COLUMN_PT:
        body = ["$d$ & " + " & ".join(f"$c_{{d,{h + 1}}}$" for h in range(width)) + r" \\ \hline"]
        for r in shown:
            cells = [f"${tex_number(x)}$" for x in r["c"]] + [""] * (width - len(r["c"]))
            body.append(f"${r['lag']}$ & " + " & ".join(cells) + r" \\")
        out.append("\\begin{center}\n\\begin{tabular}{c|" + "c" * width + "}\n" + "\n".join(body)
                   + "\n\\end{tabular}\n\\end{center}")
    else:
        out.append("{\\raggedright")
        for r in shown:
            out.append(f"\\par\\noindent\\hspace*{{1em}}$d = {r['lag']}$: "
                       f"$(c_{{{r['lag']},1}},\\dots) = ({inline_list(tex_number(x) for x in r['c'])})$")
        out.append("\\par}")
    if len(rows) > MAX_ROWS:
        out.append(f"(The coefficients are shown for the first {MAX_ROWS} of these lags; the other "
                   f"{len(rows) - MAX_ROWS} are in the certificate.)")
    return "\n".join(out)
