"""LaTeX and Markdown of gradient-highway certificates, from verified certificate data.

Only fields the checker verifies are typeset.  The certificate's informative fields
(``spectral_radius_estimate``, ``attention.bound_interval``) are not part of any proof and
never appear in the LaTeX.
"""

from .tex import PREAMBLE, display_name, escape_text, matrix_block, system_block, tex_number

__all__ = ["gradient_fragment", "gradient_macros", "gradient_markdown"]


def gradient_fragment(d):
    """The theorem and proof for gradient-highway data that the checker has verified."""
    s = d["system"]
    name = display_name(s)
    r, K2, c = d["decay_rate"], d["decay_constant_squared"], d["attention_lower_bound"]
    at, ly, n = d["attention"], d["lyapunov"], d["n"]
    delta = d["crossover_distance"]
    m = s["m"]
    cg = d["computation_graph"]
    lines = [
        f"% symssm gradient-highway certificate ({escape_text(d['generator'])}); input sha256 {d['input_sha256']}",
        PREAMBLE.rstrip("\n"),
        f"\\begin{{symssmtheorem}}[{{Gradient highway for the SSM {name}}}]\\emergencystretch=3em",
        f"Let $L_d = C A^d B$ be the lag operators of the SSM with state dimension $N = {s['N']}$ and",
        system_block({**s, "D": None}, d["input_sha256"]).rstrip("\n"),
        f"Then $\\lVert \\partial y_i / \\partial x_j \\rVert_F = \\lVert L_{{i-j}} \\rVert_F \\le K r^{{\\,i-j}}$ for "
        f"$i - j \\ge 1$, with $r = {tex_number(r)}$ and $K^2 = {tex_number(K2)}$. "
        f"The single-head softmax attention layer below has "
        f"$\\lVert \\partial y_i / \\partial x_j \\rVert_F \\ge c = {tex_number(c)}$ for every distance "
        f"$1 \\le i - j \\le {n - 1}$ on sequences of length at most $n = {n}$."
        + (f" Hence for every distance $\\delta$ with ${delta} \\le \\delta \\le {n - 1}$ the attention path carries "
           f"more gradient than the SSM, and ${delta}$ is the least distance where the bounds cross."
           if delta is not None else " No crossover distance is certified within this length."),
        "\\end{symssmtheorem}",
        "\\begin{proof}\\emergencystretch=3em",
        "\\emph{Decay.} The symmetric matrix",
        matrix_block("P", ly["P"], sha256=None, suffix="").rstrip("\n"),
        f"and $\\mu = {tex_number(ly['mu'])}$, $M = {tex_number(ly['M'])}$ satisfy $P - \\mu I \\succ 0$, "
        f"$M I - P \\succ 0$ and $r^2 P - A^{{\\top}} P A \\succ 0$, each checked exactly by the signs of all "
        f"leading principal minors. So $\\lVert A x \\rVert_P \\le r \\lVert x \\rVert_P$, hence "
        f"$\\lVert A^d \\rVert_2 \\le \\sqrt{{M/\\mu}}\\, r^d$ and "
        f"$\\lVert L_d \\rVert_F \\le \\lVert C \\rVert_F \\lVert A^d \\rVert_2 \\lVert B \\rVert_F \\le K r^d$ with "
        f"$K^2 \\ge \\lVert C \\rVert_F^2 \\lVert B \\rVert_F^2 M / \\mu$.",
        "",
    ]
    beta = tex_number(at["beta"])
    if m >= 2:
        lines.append(
            f"\\emph{{Attention highway.}} Take $W_Q = {beta}\\, e_0^{{\\top}}$, $W_K = e_1^{{\\top}}$, $W_V = e_0 e_1^{{\\top}}$, "
            f"the query token $x_i = e_0$, the key token $x_j = e_1$ and all other tokens $0$. The scores are "
            f"$s_{{ij}} = {beta}$ and $0$ elsewhere, so $a_{{ij}} = e^{{{beta}}} / (e^{{{beta}}} + i - 1)$, and "
            f"$\\partial y_i / \\partial x_j = a_{{ij}} (1 + {beta}(1 - a_{{ij}}))\\, e_0 e_1^{{\\top}}$, whose Frobenius "
            f"norm is at least $a_{{ij}} \\ge e^{{{beta}}} / (e^{{{beta}}} + {n - 1})$.")
    else:
        lines.append(
            f"\\emph{{Attention highway.}} Take $W_Q = {beta}$, $W_K = 1$, $W_V = e_0$, the tokens $x_i = x_j = 1$ "
            f"and all others $0$. Then $a_{{ii}} = a_{{ij}} = e^{{{beta}}} / (2e^{{{beta}}} + i - 2) \\le 1/2$ and "
            f"$\\partial y_i / \\partial x_j = a_{{ij}} (1 + {beta}(1 - 2a_{{ij}}))\\, e_0$, of norm at least "
            f"$e^{{{beta}}} / (2 e^{{{beta}}} + {n - 2})$.")
    lines.append(
        f"Bounding $e^{{{beta}}}$ below by its Taylor polynomial of degree {at['taylor_terms']} (all terms are positive) "
        f"gives the rational lower bound $c = {tex_number(c)}$.")
    lines.append("")
    if delta is not None:
        lines.append(f"\\emph{{Crossover.}} $K^2 r^{{2\\cdot {delta}}} < c^2$"
                     + (f" while $K^2 r^{{2\\cdot {delta - 1}}} \\ge c^2$" if delta > 1 else "")
                     + ", and $K r^\\delta$ decreases in $\\delta$.")
    lines.append(
        f"\\emph{{Computation graphs.}} From $x_j$ to $y_i$ the unrolled SSM's shortest path has $i - j + 2$ edges "
        f"(${', '.join(map(str, cg['ssm_path_edges'][:8]))}, \\dots$ for $i - j = 0, 1, \\dots$), attention's has "
        f"${cg['attention_path_edges'][1]}$ for every $i - j \\ge 1$.")
    lines.append("\\end{proof}")
    return "\n".join(lines) + "\n"


def gradient_macros(d):
    """``(name, value)`` pairs of the certified numbers, for ``\\newcommand`` definitions."""
    return [
        ("DecayRate", tex_number(d["decay_rate"])),
        ("DecayConstantSquared", tex_number(d["decay_constant_squared"])),
        ("AttentionLowerBound", tex_number(d["attention_lower_bound"])),
        ("CrossoverDistance", d["crossover_distance"] if d["crossover_distance"] is not None else "\\infty"),
        ("N", d["n"]),
    ]


def gradient_markdown(d, safe_name):
    """A short Markdown summary of verified gradient-highway data."""
    delta = d["crossover_distance"]
    return (f"**symssm gradient-highway certificate** for `{safe_name}`: "
            f"$\\|L_d\\|_F \\le K r^d$ with $r = {tex_number(d['decay_rate'])}$, "
            f"$K^2 = {tex_number(d['decay_constant_squared'])}$; attention keeps "
            f"$\\|\\partial y_i/\\partial x_j\\|_F \\ge {tex_number(d['attention_lower_bound'])}$ up to $n = {d['n']}$; "
            + (f"crossover distance {delta}." if delta is not None else "no crossover certified."))
