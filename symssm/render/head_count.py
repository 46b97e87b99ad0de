"""LaTeX of head-count certificates: the theorem and its proof, from verified certificate data."""

from .tex import (
    MAX_ROWS,
    MAX_SHOWN,
    PREAMBLE,
    display_name,
    escape_text,
    shown as show_matrix,
    system_block,
    tex_matrix,
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
    rng = f"every $n'$ with ${hf['from']} \\le n'" + (f" \\le {hf['to']}$" if hf["to"] is not None else "$")
    lines = [
        f"% symssm head-count certificate ({escape_text(d['generator'])}); input sha256 {d['input_sha256']}",
        PREAMBLE.rstrip("\n"),
        f"\\begin{{symssmtheorem}}[{{Head count of the SSM {display_name(s)}}}]",
        f"Let $h_i = A h_{{i-1}} + B x_i$, $y_i = C h_i{' + D x_i' if s['D'] is not None else ''}$ "
        f"with state dimension $N = {s['N']}$, inputs in $\\mathbb{{Q}}^{{{s['m']}}}$, outputs in $\\mathbb{{Q}}^{{{s['p']}}}$ and",
        system_block(s).rstrip("\n"),
        "Let $L_0 = CB" + (" + D" if s["D"] is not None else "") + "$ and $L_d = C A^d B$ ($d \\ge 1$) be its lag operators.",
        f"On sequences of length $n = {n}$, exactly $k = {k}$ attention head{'s are' if k != 1 else ' is'} necessary and "
        f"sufficient: the SSM is represented by an $H$-head factorized model if and only if $H \\ge {k}$. "
        f"The same holds for {rng}.",
        "\\end{symssmtheorem}",
        "\\begin{proof}",
    ]
    # Necessity.
    if k == 0:
        lines.append("\\emph{Necessity.} Nothing to prove: $k = 0$.")
    else:
        sub = f"the leading ${k}\\times {k}$ part of " if k < K else ""
        if lb["method"] == "exact":
            minor = lb["minor"]
            lines.append(
                f"\\emph{{Necessity (Interaction Rank Gap).}} Take the lags $d = {', '.join(map(str, lags[:k]))}$ "
                f"and the entries $(r,c) = {', '.join(f'({r},{c})' for r, c in lb['positions'][:k])}$ "
                f"(rows and columns from 0). The matrix $M_{{st}} = (L_{{d_s}})_{{r_t c_t}}$ is {sub}")
            shown = [row[:k] for row in minor[:k]]
            lines.append("\\[\n" + show_matrix("M", shown) + (f",\\qquad \\det M = {tex_number(lb['determinant'])} \\neq 0" if k == K else "") + ".\n\\]")
            lines.append("Every leading principal minor of $M$ is nonzero (fraction-free Bareiss elimination), ")
        else:
            P = lb["prime"]
            lines.append(
                f"\\emph{{Necessity (Interaction Rank Gap).}} Take the lags $d = {', '.join(map(str, lags[:k]))}$ "
                f"and the entries $(r,c) = {', '.join(f'({r},{c})' for r, c in lb['positions'][:k])}$ (from 0), and let "
                f"$M_{{st}} = (L_{{d_s}})_{{r_t c_t}}$. Reduced modulo the prime $P = {P}$, which divides no denominator "
                f"of $A, B, C{', D' if s['D'] is not None else ''}$, every leading principal minor of $M$ is nonzero"
                + (f", and $\\det M \\equiv {lb['determinant_mod_p']} \\pmod{{{P}}}$" if k == K else "")
                + ". Reduction modulo $P$ is a ring homomorphism on rationals with denominators prime to $P$, "
                "so these minors are nonzero over $\\mathbb{Q}$ as well; ")
        lines.append(
            f"hence $L_{{{lags[0]}}}, \\dots, L_{{{lags[k - 1]}}}$ are linearly independent and "
            f"$k(n) = \\dim \\symssmspan\\{{L_0, \\dots, L_{{n-1}}\\}} \\ge {k}$. "
            f"Every $H$-head factorized model $W_{{ij}} = \\sum_{{h=1}}^H \\alpha^h_{{ij}} V_h$ has all its operators in "
            f"$\\symssmspan\\{{V_1, \\dots, V_H\\}}$, of dimension at most $H$, while the SSM's operator takes every value "
            f"$L_{{i-j}}$, $0 \\le i - j < n$. So no model with $H < {k}$ heads represents it"
            + (" (in particular no single-head attention layer)" if k >= 2 else "")
            + f"; for each $H < {k}$ the leading $(H+1)\\times(H+1)$ minor is the witness.")
    vm = d["heads"].get("value_maps")
    if vm:
        shown_maps = [f"L_{{{lags[h]}}} = {tex_matrix(V)}" for h, V in enumerate(vm[:6])
                      if len(V) <= MAX_SHOWN and len(V[0]) <= MAX_SHOWN]
        if shown_maps:
            lines.append("The lag operators used are\n\\[\n" + ",\\quad\n".join(shown_maps)
                         + (",\\ \\dots" if len(vm) > 6 else "") + ".\n\\]")
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
            listed = ", ".join(map(str, zero[:24])) + (", \\dots" if len(zero) > 24 else "")
            lines.append(f"The lags $L_d$ with $d \\in \\{{{listed}\\}}$ are zero (no witness lag lies below them).")
        rows = [r for r in coeffs if r["c"]]
        shown = rows[:MAX_ROWS]
        width = max((len(r["c"]) for r in shown), default=0)
        if shown and width <= 10:
            body = ["$d$ & " + " & ".join(f"$c_{{d,{h + 1}}}$" for h in range(width)) + r" \\ \hline"]
            for r in shown:
                cells = [f"${tex_number(x)}$" for x in r["c"]] + [""] * (width - len(r["c"]))
                body.append(f"${r['lag']}$ & " + " & ".join(cells) + r" \\")
            lines.append("\\begin{center}\n\\begin{tabular}{c|" + "c" * width + "}\n" + "\n".join(body)
                         + "\n\\end{tabular}\n\\end{center}")
        elif shown:
            lines.append(f"(a table with up to {width} coefficients per row, given in the certificate)")
        if len(rows) > MAX_ROWS:
            lines.append(f"(The table is truncated here: {len(rows) - MAX_ROWS} more rows are in the certificate.)")
    else:
        lines.append("".join(suff))
    lines.append(f"Hence $k(n') = \\#\\{{s : d_s < n'\\}}$ for every $n'$, and $k({n}) = {k}$.")
    # Construction.
    lines.append("")
    if k:
        lines.append(
            f"\\emph{{Explicit construction with $H = {k}$.}} Take the value maps $V_h = L_{{d_h}}$ "
            f"($h = 1, \\dots, {k}$), write $L_d = \\sum_h c_{{d,h}} V_h$ (with $c_{{d_h, h'}} = [h = h']$ and the table "
            f"above), and set $\\alpha^h_{{ij}} = c_{{i-j,h}}$ for $j \\le i$ and $\\alpha^h_{{ij}} = 0$ for $j > i$. "
            f"These coefficients do not depend on the input, and $\\sum_h \\alpha^h_{{ij}} V_h = L_{{i-j}}$ for all $j \\le i$.")
    lines.append("")
    vals = prof["values"]
    shown_vals = ", ".join(map(str, vals[:24])) + (", \\dots" if len(vals) > 24 else "")
    lines.append(f"\\emph{{Profile.}} $k(1), k(2), \\dots = {shown_vals}$, and $k(n) = {prof['eventual']}$ for all "
                 f"$n \\ge {prof['constant_from']}$.")
    lines.append("\\end{proof}")
    return "\n".join(lines) + "\n"
