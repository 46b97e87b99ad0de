"""LaTeX of interaction-rank certificates (the unified framework), from verified certificate data."""

from .head_count import _coefficient_rows
from .tex import PREAMBLE, display_name, escape_text, inline_list, matrix_block, tex_hash, tex_number

__all__ = ["interaction_fragment", "interaction_markdown", "LAYER_DESCRIPTIONS"]

#: How each layer kind maps its input, in LaTeX (the certificate holds its parameters and input).
LAYER_DESCRIPTIONS = {
    "selective-ssm": "the selective SSM $h_i = A_i h_{{i-1}} + B_i x_i$, $y_i = C_i h_i{D}$ with state dimension "
                     "$N = {N}$, so $W_{{ij}} = C_i A_i \\cdots A_{{j+1}} B_j$ ($j < i$) and "
                     "$W_{{ii}} = C_i B_i{D2}$",
    "convolution": "the causal convolution $y_i = \\sum_{{0 \\le i-j < {L}}} K_{{i-j}} x_j$ with ${L}$ taps, so "
                   "$W_{{ij}} = K_{{i-j}}$",
    "linear-attention": "linear attention with ${H}$ head{s}, "
                        "$W_{{ij}} = \\sum_h (Q_h x_i \\cdot K_h x_j) V_h$ for $j \\le i$",
    "softmax-attention": "softmax attention with ${H}$ head{s}, $W_{{ij}} = \\sum_h a^h_{{ij}} V_h$ for $j \\le i$, "
                         "$a^h_{{ij}} = e^{{s^h_{{ij}}}} / \\sum_{{l \\le i}} e^{{s^h_{{il}}}}$, "
                         "$s^h_{{ij}} = Q_h x_i \\cdot K_h x_j$",
    "operator": "the sequence map whose blocks $W_{{ij}}$ are given in the certificate (${B}$ nonzero blocks "
                "listed)",
}


def _describe(s):
    kind = s["kind"]
    heads = len(s.get("heads") or [])
    D = s.get("D")
    return LAYER_DESCRIPTIONS[kind].format(
        N=len(s["A"][0]) if kind == "selective-ssm" else 0, D=" + D_i x_i" if D is not None else "",
        D2=" + D_i" if D is not None else "", L=len(s.get("kernel") or []), H=heads, s="s" if heads != 1 else "",
        B=len(s.get("blocks") or []))


def interaction_fragment(d):
    """The theorem and proof for interaction-rank data that the checker has verified."""
    s = d["system"]
    r, n, p, m = d["interaction_rank"], s["n"], s["p"], s["m"]
    lb, heads = d["lower_bound"], d["heads"]
    blocks = [tuple(b) for b in lb["blocks"]]
    scope = "all listed pairs $(i, j)$" if s["kind"] == "operator" else "$1 \\le j \\le i \\le " + str(n) + "$"
    lines = [
        f"% symssm interaction-rank certificate ({escape_text(d['generator'])}); input sha256 {d['input_sha256']}",
        PREAMBLE.rstrip("\n"),
        f"\\begin{{symssmtheorem}}[{{Interaction rank of the layer {display_name(s)}}}]\\emergencystretch=3em",
        f"Consider {_describe(s)}, with tokens in $\\mathbb{{Q}}^{{{m}}}$, outputs in $\\mathbb{{Q}}^{{{p}}}$ and the "
        f"input of $n = {n}$ tokens given in the certificate (sha256 {tex_hash(d['input_sha256'])}). Its interaction "
        f"operator $y_i = \\sum_j W_{{ij}} x_j$ has blocks spanning a space of dimension exactly $r = {r}$ over "
        f"{scope}. Hence an $H$-head factorized model $W_{{ij}} = \\sum_{{h=1}}^H \\alpha^h_{{ij}} V_h$ represents "
        f"this layer on this input if and only if $H \\ge {r}$.",
        "\\end{symssmtheorem}",
        "\\begin{proof}\\emergencystretch=3em",
    ]
    if r == 0:
        lines.append("\\emph{Necessity.} Nothing to prove: $r = 0$.")
    else:
        pos = inline_list(f"({a},{b})" for a, b in lb["positions"])
        blist = inline_list(f"({i},{j})" for i, j in blocks)
        lines.append(f"\\emph{{Necessity (Interaction Rank Gap).}} Take the blocks $(i,j) = {blist}$ and the entries "
                     f"$(r,c) = {pos}$ (from 0), and let $M_{{st}}$ be entry $(r_t, c_t)$ of the $s$-th block.")
        if lb["method"] == "exact":
            lines.append("Then")
            lines.append(matrix_block("M", lb["minor"], suffix=",").rstrip("\n"))
            lines.append(f"with $\\det M = {tex_number(lb['determinant'])} \\neq 0$ and every leading principal minor "
                         "nonzero (fraction-free Bareiss elimination).")
        else:
            lines.append(f"Its entries are irrational; outward-rounded interval arithmetic with "
                         f"{lb['precision_bits']}-bit dyadic bounds (Taylor polynomials of degree {lb['taylor_terms']} "
                         "with explicit remainders for the exponentials) encloses $\\det M$ in an interval that "
                         "excludes $0$, so $M$ is nonsingular.")
        lines.append(f"So the blocks span at least ${r}$ dimension{'s' if r != 1 else ''}, while an $H$-head model's blocks all lie in "
                     f"$\\symssmspan\\{{V_1, \\dots, V_H\\}}$; no model with $H < {r}$ heads represents the layer on "
                     "this input" + (" (in particular no single-head attention layer)" if r >= 2 else "")
                     + f"; for each $H < {r}$ the leading $(H+1)\\times(H+1)$ minor is the witness.")
    lines.append("")
    if lb["method"] == "exact":
        coeffs = d["upper_bound"]["coefficients"]
        rows = [{"lag": f"({c['block'][0]},{c['block'][1]})", "c": c["c"]} for c in coeffs if c["c"]]
        lines.append(f"\\emph{{Sufficiency.}} Every other block is zero or an exact combination of the witness blocks "
                     f"before it ({len(coeffs)} blocks, verified entry by entry)" + (":" if rows else "."))
        if rows:
            lines.append(_coefficient_rows(rows).replace("$d = ", "$(i,j) = ").replace("$d$ &", "$(i,j)$ &"))
        lines.append(f"\\emph{{Explicit construction with $H = {r}$.}} Take $V_h$ the $h$-th witness block and "
                     "$\\alpha^h_{ij}$ the coefficient of $W_{ij}$ on it (1 at its own block, the listed "
                     "coefficients, 0 for zero blocks); then $\\sum_h \\alpha^h_{ij} V_h = W_{ij}$ for every block. "
                     "The coefficients depend on the input, as $F_H$ allows.")
    else:
        basis = inline_list(h + 1 for h in heads["value_map_heads"])
        lines.append(f"\\emph{{Sufficiency.}} Every block is a combination of the value maps $V_h$, whose span has "
                     f"dimension exactly ${r}$ (an exact rank; heads ${basis}$ form a basis). A model with ${r}$ heads, "
                     "those value maps and the softmax weights re-expressed in that basis as coefficients represents "
                     "the layer on this input.")
    lines.append("\\end{proof}")
    return "\n".join(lines) + "\n"


def interaction_markdown(d, safe_name):
    """A short Markdown summary of verified interaction-rank data."""
    return (f"**symssm interaction-rank certificate** for `{safe_name}` ({d['system']['kind']}, "
            f"n = {d['system']['n']}): the blocks $W_{{ij}}$ span exactly $r = {d['interaction_rank']}$ dimensions, "
            f"so exactly {d['interaction_rank']} head(s) are necessary and sufficient on this input in the multi-head "
            "factorized class.")
