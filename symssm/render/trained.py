"""LaTeX of trained layers' eps-head-count certificates (kind ``trained-head-count``), from verified data.

The theorem names the layer (architecture, checkpoint, sizes, the formula of its lags) and states
the count with the two brackets that prove it; the proof says how the transcendental lags were
enclosed (the surrogate, its radius, the tail), why the brackets widen by the relative distance,
and gives the surrogate's witnesses' form and the layer's brackets.
"""

from .approximate import _down, _up, claim_sentence, lag_class, widened_proof
from .tex import system_name, tex_count, tex_hash, tex_name, tex_number

__all__ = ["trained_fragment"]

_KIND = {"s4d": "S4D", "s5": "S5", "lru": "LRU"}


def _layer_sentence(s):
    m, P = s["channels"], s["modes"]
    hasD = s["parameters"]["D"] is not None
    where = (f"{system_name(s['name'])} of the checkpoint "
             f"{tex_name(s['checkpoint'], breakable=True)}")
    d0 = " (plus $\\operatorname{diag}(D)$ at $d = 0$)" if hasD else ""
    if s["architecture"] == "s4d":
        return (f"Let $\\mathcal{{L}}$ be the S4D layer {where}: $m = {m}$ channels (so $p = m$: inputs and outputs "
                f"in $\\mathbb{{R}}^{{{m}}}$), channel $c$ a diagonal state space model with $P = {P}$ complex modes "
                "$A_{cq} = \\mathrm{i}\\, b_{cq} - e^{a_{cq}}$ and step $\\Delta_c = e^{\\tau_c}$ (zero-order hold), "
                "so that its lags are diagonal, "
                "$L_d = \\operatorname{diag}(K_1[d], \\dots, K_m[d])$" + d0 + " with "
                "$K_c[d] = 2 \\operatorname{Re} \\sum_q C_{cq} \\frac{\\lambda_{cq} - 1}{A_{cq}} \\lambda_{cq}^d$, "
                "$\\lambda_{cq} = e^{\\Delta_c A_{cq}}$.")
    if s["architecture"] == "s5":
        return (f"Let $\\mathcal{{L}}$ be the S5 layer {where}: $m = {m}$ channels (inputs and outputs in "
                f"$\\mathbb{{R}}^{{{m}}}$) and $P = {P}$ complex modes "
                "$\\Lambda_q$ with steps $\\Delta_q = e^{\\tau_q}$ (zero-order hold), so that its lags are "
                "$L_d = 2 \\operatorname{Re}(C \\operatorname{diag}(\\lambda)^d \\bar B)$" + d0
                + " with $\\lambda_q = e^{\\Delta_q \\Lambda_q}$ and "
                "$\\bar B = \\operatorname{diag}((\\lambda_q - 1)/\\Lambda_q) B$.")
    return (f"Let $\\mathcal{{L}}$ be the LRU layer {where}: $m = {m}$ channels (inputs and outputs in "
            f"$\\mathbb{{R}}^{{{m}}}$) and $P = {P}$ complex modes "
            "$\\lambda_q = \\exp(-e^{\\nu_q} + \\mathrm{i}\\, e^{\\theta_q})$ with input scales $\\gamma_q = e^{g_q}$, so that its "
            "lags are $L_d = \\operatorname{Re}(C \\operatorname{diag}(\\lambda)^d \\operatorname{diag}(\\gamma) B)$"
            + d0 + ".")


def _power_of_two(text):
    """``2^{-k}`` for the rational 1/2^k, else the number."""
    den = text[2:] if text.startswith("1/") else ""
    if den.isdigit() and int(den) & (int(den) - 1) == 0:
        return f"2^{{-{int(den).bit_length() - 1}}}"
    return tex_number(text)


def trained_fragment(d, style):
    """The theorem and proof for trained-layer eps-head-count data that the checker has verified."""
    s, n, errs, sur = d["system"], d["n"], d["errors"], d["surrogate"]
    arch = _KIND[s["architecture"]]
    lines = [style.begin(f"Approximate head count of the {arch} layer {system_name(s['name'])}")]
    lines.append(_layer_sentence(s) + " Its parameters are the checkpoint's binary floats, read exactly as dyadic "
                 f"rationals (listed in the certificate; sha256 {tex_hash(d['input_sha256'])}).")
    lines.append(lag_class(n, s["channels"], s["channels"], "$\\mathcal{L}$"))
    lines.append(claim_sentence(d, "$\\mathcal{L}$"))
    lines.append(style.end())
    n0, Q = sur["lags"], sur["scale_bits"]
    entries = "the $m$ diagonal entries" if s["architecture"] == "s4d" else "the $m^2$ entries"
    lines.append("\\begin{proof}\\emergencystretch=3em")
    lines.append("Let $T$ be the matrix with rows $(n - d)^{1/2} \\operatorname{vec}(L_d)$, $d < n$: "
                 "$e_H = \\min_{\\operatorname{rank} X \\le H} \\lVert T - X \\rVert_F / \\lVert T \\rVert_F$ "
                 "(Eckart--Young). The lags are not rational, so the certificate gives a rational surrogate "
                 f"$\\tilde T$: integers $\\tilde K_e[d]$ for {entries} and $d < n_0 = {tex_count(n0)}$ with "
                 f"$|L_d[e] - 2^{{-{Q}}} \\tilde K_e[d]| \\le \\rho = {_power_of_two(sur['radius'])}$. The checker proves "
                 "these inequalities in ball arithmetic with outward rounding, from the parameters: $\\exp$ by its "
                 "Taylor series with the remainder bounded, the powers $\\lambda^d$ by a fixed-point recurrence whose "
                 "error it accumulates.")
    if n0 < n:
        lines.append("Beyond $n_0$ the surrogate is zero and the lags are bounded by the modes' decay: every "
                     "$|\\lambda| \\le M < 1$, and $\\sum_{n_0 \\le d < n} (n - d) \\lVert L_d \\rVert_F^2 \\le "
                     f"{_up(sur['tail'])}$.")
    lines.append(f"Hence $\\lVert T - \\tilde T \\rVert_F \\le t \\lVert \\tilde T \\rVert_F$ with $t = {_up(sur['relative_distance'])}$, "
                 "checked exactly against the Gram matrix $\\tilde G = \\sum_{d < n_0} (n - d)\\, "
                 "\\operatorname{vec}(\\tilde L_d) \\operatorname{vec}(\\tilde L_d)^{\\top}$ (so $T \\ne 0$, as $t < 1$).")
    lines.append("")
    lines.extend(widened_proof(errs, " as for a rational system,", "The layer's certified brackets, rounded outward "
                                                                    "from the exact values in the certificate, are"))
    lines.append("Since $e_H$ is non-increasing in $H$, the brackets prove the statement.")
    lines.append("\\end{proof}")
    return "\n".join(lines) + "\n"


def trained_markdown(d, safe_name):
    """A short Markdown summary of verified trained-layer data."""
    k = d["head_count"]
    return (f"**symssm approximate head count** of the {_KIND[d['system']['architecture']]} layer `{safe_name}` "
            f"(n = {d['n']}, tolerance {d['tolerance']}): "
            + (f"$k_\\varepsilon = {k}$" if k is not None else "not decided at this tolerance")
            + "; brackets " + ", ".join(f"$e_{{{e['H']}}} \\in [{_down(e['lower'])}, {_up(e['upper'])}]$"
                                         for e in d["errors"]))
