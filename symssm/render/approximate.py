"""LaTeX of eps-head-count certificates (kind ``approximate-head-count``), from verified data.

The theorem states the eps-head count with the two brackets that prove it; the proof gives the
definition of the error, the witnesses' form (Ky Fan for the upper bounds, Weyl for the lower),
and the table of every certified bracket, as decimals rounded outward from the exact values.
"""

from .matrices import system_block
from .statement import matrix_space, space
from .tex import MAX_SHOWN, display_name, tex_count, tex_decimal, tex_hash, tex_number

__all__ = ["lag_class", "approximate_fragment", "approximate_markdown", "claim_sentence", "witness_paragraphs",
           "bracket_table", "widened_proof", "WIDENING"]


def _up(text):
    return tex_number(text) if len(text) <= 10 else tex_decimal(text, up=True)


def _down(text):
    return tex_number(text) if len(text) <= 10 else tex_decimal(text, up=False)


_Q = "\\mathbb{Q}"


def lag_class(n, p, m, target):
    """The sentence that defines ``e_H``: the class with coefficients depending on ``i - j`` only, over the reals.

    Examples
    --------
    >>> "depend only on $i - j$" in lag_class(8, 2, 1, "the SSM")
    True
    """
    rows, cols = ("n" if p == 1 else f"{p}n"), ("n" if m == 1 else f"{m}n")
    return (f"On sequences of length $n = {tex_count(n)}$ let $e_H$ be the smallest relative Frobenius error of an "
            "$H$-head model of the multi-head factorized class whose coefficients depend only on $i - j$ (not on the "
            "input): the maps $y_i = \\sum_j W_{ij} x_j$ with $W_{ij} = \\sum_{\\ell=1}^H \\alpha^\\ell_{ij} "
            "V_\\ell$, real value maps $V_\\ell \\in " + matrix_space("\\mathbb{R}", p, m) + "$ shared by all "
            "positions and real coefficients $\\alpha^\\ell_{ij}$ that depend only on $i - j$. The error is that of "
            f"the model's operator relative to {target}'s on these sequences, both as real ${rows} \\times {cols}$ "
            "matrices; the minimum is over real value maps and coefficients, so $e_H$ is a real number, bracketed "
            "below by rationals.")


def approximate_fragment(d, style):
    """The theorem and proof for eps-head-count data that the checker has verified."""
    s = d["system"]
    n, errs = d["n"], d["errors"]
    small = s["N"] <= MAX_SHOWN and s["p"] <= MAX_SHOWN and s["m"] <= MAX_SHOWN
    hasD = s["D"] is not None
    lines = [style.begin(f"Approximate head count of the SSM {display_name(s)}")]
    lines.append(f"Let $h_i = A h_{{i-1}} + B x_i$, $y_i = C h_i{' + D x_i' if hasD else ''}$ be the state space "
                 f"model with $N = {s['N']}$ states, inputs in ${space(_Q, s['m'])}$ and outputs in "
                 f"${space(_Q, s['p'])}$, " + ("where" if small else "whose matrices are given in the "
                                                        f"certificate (sha256 {tex_hash(d['input_sha256'])})."))
    if small:
        lines.append(system_block(s, end=".").rstrip("\n"))
    lines.append(lag_class(n, s["p"], s["m"], "the SSM"))
    if not errs:
        lines.append("The SSM's operator on these sequences is zero, so $0$ heads represent it exactly.")
    else:
        lines.append(claim_sentence(d, "the SSM"))
    lines.append(style.end())
    lines.append("\\begin{proof}\\emergencystretch=3em")
    if "tail" in d:
        lines.extend(_tail_proof(d, hasD))
    else:
        lines.append("The operator repeats $L_d$ ($L_0 = CB" + (" + D" if hasD else "") + "$, $L_d = C A^d B$) on "
                     "$n - d$ block diagonals, so $e_H^2 = S_H / \\operatorname{tr} G$, where "
                     "$G = \\sum_{d<n} (n - d)\\, \\operatorname{vec}(L_d) \\operatorname{vec}(L_d)^{\\top}$ and $S_H$ "
                     "is the sum of the eigenvalues of $G$ after the $H$ largest (Eckart--Young). The checker forms $G$ "
                     "exactly from $A, B, C" + (", D" if hasD else "") + "$.")
    if errs and "tail" not in d:
        lines.append("")
        lines.extend(witness_paragraphs("G"))
        lines.extend(bracket_table(errs))
        lines.append("Since $e_H$ is non-increasing in $H$, the brackets prove the statement.")
    lines.append("\\end{proof}")
    return "\n".join(lines) + "\n"


#: Why the brackets of T follow from those of a surrogate within relative distance t.
WIDENING = ("The distance to the matrices of rank at most $H$ changes by at most $\\lVert T - \\tilde T \\rVert_F$, "
            "and $\\lVert T \\rVert_F$ lies within it of $\\lVert \\tilde T \\rVert_F$, so "
            "$e_H \\ge (\\tilde l_H - t) / (1 + t)$ and $e_H \\le (\\tilde u_H + t) / (1 - t)$.")


def _tail_proof(d, hasD):
    """The proof's opening for a certificate whose lags beyond ``n0`` are bounded by a certified decay."""
    tail, n0 = d["tail"], d["tail"]["summed"]
    return ["Let $T$ be the matrix with rows $(n - d)^{1/2} \\operatorname{vec}(L_d)$, $d < n$ ($L_0 = CB"
            + (" + D" if hasD else "") + "$, $L_d = C A^d B$): $e_H = \\min_{\\operatorname{rank} X \\le H} "
            "\\lVert T - X \\rVert_F / \\lVert T \\rVert_F$ (Eckart--Young). Let $\\tilde T$ keep its rows "
            f"$d < n_0 = {tex_count(n0)}$ and set the others to zero; the checker forms its Gram matrix "
            "$\\tilde G = \\sum_{d < n_0} (n - d)\\, \\operatorname{vec}(L_d) \\operatorname{vec}(L_d)^{\\top}$ "
            "exactly. The certificate gives a rational $P$ with $\\mu I \\prec P \\prec M I$ and "
            f"$r^2 P - A^{{\\top}} P A \\succ 0$ for $r = {tex_number(tail['decay_rate'])}$ (each checked exactly), so "
            "$\\lVert L_d \\rVert_F^2 \\le K^2 r^{2d}$ with $K^2 = \\lVert C \\rVert_F^2 \\lVert B \\rVert_F^2 M / \\mu$, "
            f"and the rows beyond $n_0$ weigh $\\sum_{{d \\ge n_0}} (n - d) \\lVert L_d \\rVert_F^2 \\le n K^2 r^{{2 n_0}} "
            f"/ (1 - r^2) \\le {_up(tail['bound'])}$. Hence $\\lVert T - \\tilde T \\rVert_F \\le t \\lVert \\tilde T \\rVert_F$ with "
            f"$t = {_up(tail['relative_distance'])}$.",
            ""] + widened_proof(d["errors"], "", "The certified brackets of $e_H$, rounded outward from the exact "
                                                 "values in the certificate, are")


def widened_proof(errs, how, intro):
    """The proof's part after ``||T - T~||_F <= t ||T~||_F``: the surrogate's brackets (``how``: a phrase after
    "proven exactly,"), why they widen, and the table of ``errs`` introduced by ``intro``."""
    return (["For $\\tilde T$ the brackets $\\tilde e_H \\in [\\tilde l_H, \\tilde u_H]$ are proven exactly," + how
             + " with $S_H$ the sum of the eigenvalues of $\\tilde G$ after the $H$ largest:"]
            + witness_paragraphs("\\tilde G", err="\\tilde e_H") + [WIDENING] + bracket_table(errs, intro))


def approximate_markdown(d, safe_name):
    """A short Markdown summary of verified eps-head-count data."""
    k = d["head_count"]
    return (f"**symssm approximate head count** for `{safe_name}` (n = {d['n']}, tolerance {d['tolerance']}): "
            + (f"$k_\\varepsilon = {k}$" if k is not None else "not decided at this tolerance")
            + "; brackets " + ", ".join(f"$e_{{{e['H']}}} \\in [{float(_fraction(e['lower'])):.4g}, "
                                         f"{float(_fraction(e['upper'])):.4g}]$" for e in d["errors"]))


def _fraction(text):
    from fractions import Fraction

    return Fraction(text)


def claim_sentence(d, what):
    """The theorem's claim about ``what``: the eps-head count the brackets prove, or the two counts they leave."""
    errs, k, eps = d["errors"], d["head_count"], tex_number(d["tolerance"])
    if k is not None:
        first = (f"Then $e_{{{k}}} = 0 < \\varepsilon = {eps}$" if errs[k]["upper"] == "0" else
                 f"Then $e_{{{k}}} \\le {_up(errs[k]['upper'])} \\le \\varepsilon = {eps}$")
        return (first + (f" while $e_{{{k - 1}}} \\ge {_down(errs[k - 1]['lower'])} > \\varepsilon$" if k else "")
                + f": exactly $k_\\varepsilon = {k}$ head{'s are' if k != 1 else ' is'} needed to approximate "
                f"{what} to relative error $\\varepsilon$ in this class.")
    h = d["undecided_at"]
    return (f"Then $e_{{{h + 1}}} \\le {_up(errs[h + 1]['upper'])} \\le \\varepsilon = {eps}$, and "
            f"${_down(errs[h]['lower'])} \\le e_{{{h}}} \\le {_up(errs[h]['upper'])}$: whether "
            f"${h}$ heads reach $\\varepsilon$ is not decided here, so $k_\\varepsilon \\in \\{{{h}, {h + 1}\\}}$.")


def witness_paragraphs(G, err="e_H"):
    """The proof's paragraphs on the Ky Fan (upper) and Weyl (lower) witnesses for the Gram matrix named ``G``
    (``err``: the error they bound)."""
    tr = f"\\operatorname{{tr}} {G}"
    return [f"\\emph{{Upper bounds.}} For each $H$ the certificate gives an integer matrix $V$ with $H$ "
            "independent columns; no $H$-dimensional projection captures more than the $H$ largest "
            f"eigenvalues (Ky Fan), so $S_H \\le {tr} - \\operatorname{{tr}}((V^{{\\top}} V)^{{-1}} "
            f"V^{{\\top}} {G} V)$, computed exactly.",
            "\\emph{Lower bounds.} For each $H$ it gives $\\zeta \\ge 0$, $\\gamma_1, \\dots, \\gamma_H \\ge 0$ "
            f"and an integer matrix $R$ such that $\\zeta \\operatorname{{tr}}({G}) I + R \\operatorname{{diag}}"
            f"(\\gamma {tr}) R^{{\\top}} - {G}$ is positive definite (checked exactly by the signs "
            f"of its characteristic polynomial). By Weyl's inequalities the $H$ largest eigenvalues of ${G}$ "
            f"sum to at most $H \\zeta {tr} + \\sum_\\ell \\gamma_\\ell \\lVert r_\\ell \\rVert^2 {tr}$, so "
            f"${err}^2 \\ge 1 - H\\zeta - \\sum_\\ell \\gamma_\\ell \\lVert r_\\ell \\rVert^2$."]


def bracket_table(errs, intro="The certified brackets, rounded outward from the exact values in the certificate, are"):
    """The brackets as a small table (a list of them beyond 16 rows), rounded outward."""
    lines = [intro]
    if len(errs) <= 16:
        body = "\n".join(f"${e['H']}$ & ${_down(e['lower'])}$ & ${_up(e['upper'])}$ \\\\" for e in errs)
        lines.append("\\begin{center}\n\\begin{tabular}{c|cc}\n$H$ & $e_H \\ge$ & $e_H \\le$ \\\\ \\hline\n"
                     + body + "\n\\end{tabular}\n\\end{center}")
    else:
        lines.append("; ".join(f"$e_{{{e['H']}}} \\in [{_down(e['lower'])}, {_up(e['upper'])}]$" for e in errs) + ".")
    return lines
