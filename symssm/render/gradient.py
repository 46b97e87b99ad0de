"""LaTeX and Markdown of gradient-highway certificates, from verified certificate data.

Only fields the checker verifies are typeset.  The certificate's informative fields
(``spectral_radius_estimate``, ``attention.bound_interval``) are not part of any proof and
never appear in the LaTeX.
"""

from ..gradient.crossover import searched_distance
from .matrices import system_block
from .tex import (MAX_SHOWN, display_name, inline_list, matrix_block, row_line, row_list, tex_approx, tex_count, tex_hash,
                  tex_number, tex_value)

__all__ = ["gradient_fragment", "gradient_macros", "gradient_markdown"]


def gradient_fragment(d, style):
    """The theorem and proof for gradient-highway data that the checker has verified."""
    s = d["system"]
    name = display_name(s)
    r, K2, c = d["decay_rate"], d["decay_constant_squared"], d["attention_lower_bound"]
    at, ly, n = d["attention"], d["lyapunov"], d["n"]
    delta = d["crossover_distance"]
    m = s["m"]
    cg = d["computation_graph"]
    beta = tex_number(at["beta"])
    small = s["N"] <= MAX_SHOWN and s["p"] <= MAX_SHOWN and m <= MAX_SHOWN
    nn = tex_count(n)
    if m >= 2:
        layer = (f"$W_Q = {beta}\\, e_1^{{\\top}}$, $W_K = e_2^{{\\top}}$, $W_V = e_1 e_2^{{\\top}}$ (scores "
                 "$s_{ij} = W_Q x_i \\cdot W_K x_j$, $y_i = \\sum_{j \\le i} a_{ij} W_V x_j$)")
        inputs = ("the query token $x_i = e_1$, the key token $x_j = e_2$ and all other tokens $0$")
    else:
        layer = (f"$W_Q = {beta}$, $W_K = 1$, $W_V = e_1$ (scores $s_{{ij}} = W_Q x_i \\cdot W_K x_j$, "
                 "$y_i = \\sum_{j \\le i} a_{ij} W_V x_j$)")
        inputs = "the tokens $x_i = x_j = 1$ and all other tokens $0$"
    lines = [style.begin(f"Gradient highway for the SSM {name}")]
    lines.append(f"Let $L_d = C A^d B$ be the lag operators of the SSM $h_i = A h_{{i-1}} + B x_i$, $y_i = C h_i$ "
                 f"with $N = {s['N']}$ states, "
                 + ("where" if small else f"whose matrices are given in the certificate (sha256 "
                                          f"{tex_hash(d['input_sha256'])})."))
    if small:
        lines.append(system_block({**s, "D": None}).rstrip("\n"))
    lines.append(
        f"Then $\\lVert \\partial y_i / \\partial x_j \\rVert_F = \\lVert L_{{i-j}} \\rVert_F \\le K r^{{\\,i-j}}$ for "
        f"$i - j \\ge 1$, with $r {tex_value(r, up=True)}$ and $K^2 {tex_value(K2, up=True)}$. "
        f"The single-head softmax attention layer with {layer} admits inputs with "
        f"$\\lVert \\partial y_i / \\partial x_j \\rVert_F \\ge c$, $c {tex_value(c, up=False)}$, at every distance "
        f"$1 \\le i - j \\le {tex_count(n - 1)}$ on sequences of length at most $n = {nn}$: {inputs}."
        + (f" Hence at every distance $\\delta$ with ${tex_count(delta)} \\le \\delta \\le {tex_count(n - 1)}$ these "
           f"inputs carry more gradient through attention than any input through the SSM. The distance "
           f"${tex_count(delta)}$ is the least one where the certified bounds cross ($K r^{{\\delta}} < c$); it is not "
           "claimed to be the least distance where attention carries more gradient, since "
           "$\\lVert L_{\\delta} \\rVert_F$ may fall below $c$ at a smaller distance."
           if delta is not None else
           f" No crossover distance up to ${tex_count(searched_distance(n))}$ is certified"
           + (" (the certified search ends there)." if n - 1 > searched_distance(n) else ".")))
    lines.append(style.end())
    lines.append("\\begin{proof}\\emergencystretch=3em")
    exact_note = ("" if all(len(x) <= 16 for x in (r, K2, c)) else
                  " (Numbers given by a decimal bound are rounded outward from the exact values in the certificate, "
                  "on which every inequality below was checked.)")
    if d.get("version") == 2:
        lines.extend(_factored_decay(ly, s, d["input_sha256"], exact_note))
    else:
        lines.append("\\emph{Decay.} The symmetric matrix")
        lines.append(matrix_block("P", ly["P"], suffix="").rstrip("\n"))
        lines.append(
            f"and $\\mu = {tex_number(ly['mu'])}$, $M = {tex_number(ly['M'])}$ satisfy $P - \\mu I \\succ 0$, "
            f"$M I - P \\succ 0$ and $r^2 P - A^{{\\top}} P A \\succ 0$, each checked exactly by the signs of all "
            f"leading principal minors. So $\\lVert A x \\rVert_P \\le r \\lVert x \\rVert_P$, hence "
            f"$\\lVert A^d \\rVert_2 \\le \\sqrt{{M/\\mu}}\\, r^d$ and "
            f"$\\lVert L_d \\rVert_F \\le \\lVert C \\rVert_F \\lVert A^d \\rVert_2 \\lVert B \\rVert_F \\le K r^d$ "
            f"with $K^2 \\ge \\lVert C \\rVert_F^2 \\lVert B \\rVert_F^2 M / \\mu$.{exact_note}")
    lines.append("")
    if m >= 2:
        lines.append(
            f"\\emph{{Attention highway.}} On these inputs the scores are $s_{{ij}} = {beta}$ and $0$ elsewhere, so "
            f"$a_{{ij}} = e^{{{beta}}} / (e^{{{beta}}} + i - 1)$, and "
            f"$\\partial y_i / \\partial x_j = a_{{ij}} (1 + {beta}(1 - a_{{ij}}))\\, e_1 e_2^{{\\top}}$, whose Frobenius "
            f"norm is at least $a_{{ij}} \\ge e^{{{beta}}} / (e^{{{beta}}} + {tex_count(n - 1)})$.")
    else:
        lines.append(
            f"\\emph{{Attention highway.}} On these inputs $a_{{ii}} = a_{{ij}} = e^{{{beta}}} / (2e^{{{beta}}} + i - 2) "
            f"\\le 1/2$ and $\\partial y_i / \\partial x_j = a_{{ij}} (1 + {beta}(1 - 2a_{{ij}}))\\, e_1$, of norm at "
            f"least $e^{{{beta}}} / (2 e^{{{beta}}} + {tex_count(n - 2)})$.")
    lines.append(
        f"Bounding $e^{{{beta}}}$ below by its Taylor polynomial of degree {at['taylor_terms']} (all terms are "
        f"positive) gives the rational lower bound $c = {tex_number(c)}$.")
    lines.append("")
    if delta is not None:
        lines.append(f"\\emph{{Crossover.}} $K^2 r^{{2\\cdot {delta}}} < c^2$"
                     + (f" while $K^2 r^{{2\\cdot {delta - 1}}} \\ge c^2$" if delta > 1 else "")
                     + ", and $K r^\\delta$ decreases in $\\delta$.")
    lines.append(
        f"\\emph{{Computation graphs.}} From $x_j$ to $y_i$ the unrolled SSM's shortest path has $i - j + 2$ edges "
        f"(${', '.join(map(str, cg['ssm_path_edges'][:6]))}, \\dots$ for $i - j = 0, 1, \\dots$), attention's has "
        f"${cg['attention_path_edges'][1]}$ for every $i - j \\ge 1$.")
    lines.append("\\end{proof}")
    return "\n".join(lines) + "\n"


def _long(x):
    """True if an exact number is written so that its magnitude is not seen at a glance (``p \\cdot 2^{-e}``, long)."""
    return "\\cdot" in tex_number(x) or len(x) > 8


def _is_identity(rows):
    return all(x == ("1" if i == j else "0") for i, row in enumerate(rows) for j, x in enumerate(row))


def _factored_decay(ly, s, sha256, exact_note):
    """The decay paragraph of a version-2 certificate: ``P = U^T diag(q) U + mu I`` (``q``, as ``d`` is a lag) and what was checked about it."""
    N = s["N"]
    mu, M = (tex_number(x) + (f" \\approx {tex_approx(x)}" if _long(x) else "") for x in (ly["mu"], ly["M"]))
    if N <= MAX_SHOWN:
        def vector(name, items, end):  # a line of its own, breakable at every comma; magnitudes beside long entries
            exact = row_line([tex_number(x) for x in items]).replace("$(", f"${name} = (", 1)[:-1]
            if not any(_long(x) for x in items):
                return exact + f"${end}"
            return exact + f" \\approx ({inline_list(tex_approx(x) for x in items)})${end}"

        if _is_identity(ly["U"]):
            out = [f"\\emph{{Decay.}} The identity matrix $U = I_{{{N}}}$ and the positive vectors"]
        else:
            plain = all("/" not in x for row in ly["U"] for x in row)  # else each entry as it is, not over 2^-k
            out = ["\\emph{Decay.} The unit upper triangular matrix",
                   (matrix_block("U", ly["U"], suffix="") if plain else row_list("U", ly["U"], suffix="")).rstrip("\n"),
                   "and the positive vectors"]
        out += ["{\\raggedright", vector("q", ly["D"], ","), vector("w", ly["weights"], ",") + "\\par}"]
    else:
        matrix = (f"identity matrix $U = I_{{{N}}}$" if _is_identity(ly["U"]) else
                  f"unit upper triangular matrix $U \\in \\mathbb{{Q}}^{{{N}\\times {N}}}$")
        out = [f"\\emph{{Decay.}} The {matrix} and the "
               f"positive vectors $q, w \\in \\mathbb{{Q}}^{{{N}}}$ given in the certificate (sha256 {tex_hash(sha256)}),"]
    out.append(
        f"with $\\mu = {mu}$ and $M = {M}$, define $P = U^{{\\top}} \\operatorname{{diag}}(q)\\, U + \\mu I$. "
        f"Then $P - \\mu I \\succ 0$, as $q > 0$ and $U$ is invertible. "
        f"The matrix $r^2 P - A^{{\\top}} P A$, computed exactly, has a strictly dominant positive diagonal, so it is "
        f"positive definite; and $(\\lvert P \\rvert w)_i \\le M w_i$ for every $i$, so $P \\preceq M I$ "
        f"(Collatz--Wielandt). So $\\lVert A x \\rVert_P \\le r \\lVert x \\rVert_P$, hence "
        f"$\\lVert A^d \\rVert_2 \\le \\sqrt{{M/\\mu}}\\, r^d$ and "
        f"$\\lVert L_d \\rVert_F \\le \\lVert C \\rVert_F \\lVert A^d \\rVert_2 \\lVert B \\rVert_F \\le K r^d$ "
        f"with $K^2 \\ge \\lVert C \\rVert_F^2 \\lVert B \\rVert_F^2 M / \\mu$.{exact_note}")
    return out


def gradient_macros(d):
    """``(name, value)`` pairs of the certified numbers, for ``\\newcommand`` definitions (no
    ``CrossoverDistance`` where none is certified: an infinity would read as "attention never overtakes")."""
    pairs = [
        ("DecayRate", tex_number(d["decay_rate"])),
        ("DecayConstantSquared", tex_number(d["decay_constant_squared"])),
        ("AttentionLowerBound", tex_number(d["attention_lower_bound"])),
        ("CrossoverDistance", d["crossover_distance"]),
        ("Length", tex_count(d["n"])),
    ]
    return [(name, value) for name, value in pairs if value is not None]


def gradient_markdown(d, safe_name):
    """A short Markdown summary of verified gradient-highway data."""
    delta = d["crossover_distance"]
    return (f"**symssm gradient-highway certificate** for `{safe_name}`: "
            f"$\\|L_d\\|_F \\le K r^d$ with $r = {tex_number(d['decay_rate'])}$, "
            f"$K^2 = {tex_number(d['decay_constant_squared'])}$; attention keeps "
            f"$\\|\\partial y_i/\\partial x_j\\|_F \\ge {tex_number(d['attention_lower_bound'])}$ up to $n = {d['n']}$; "
            + (f"the certified bounds cross at distance {delta} (attention carries more gradient from there on; "
               "the SSM's gradient may fall below c earlier)." if delta is not None else
               "no crossing of the certified bounds."))
