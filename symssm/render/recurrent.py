"""The theorem's words for the linear-recurrence layers (:mod:`symssm.sources.recurrent`), from certificate data.

Each kind's sentence names its recurrence and its coefficient ``c_ij``; the wrappers (token shift, short
convolution, output gate, norm, output map) are named after it, with the convention that quantities other than
the value path are those of this input.
"""

from .tex import tex_count

__all__ = ["describe_mamba2_ssd", "describe_retnet", "describe_gla", "describe_deltanet", "describe_gated_deltanet",
           "describe_kda", "describe_rwkv6", "describe_rwkv7", "describe_mlstm", "recurrent_objects"]


def _heads(s):
    H = len(s.get("heads") or [])
    return f"${H}$ head{'s' if H != 1 else ''}"


def _wrappers(s):
    """The value path and the output chain, in words."""
    parts = []
    if s.get("shift") is not None:
        parts.append("the token shift $\\tilde x_k = x_k + \\delta_k \\odot (x_{k-1} - x_k)$")
    if s.get("conv") is not None:
        L = len(s["conv"])
        parts.append(f"a causal convolution of ${L}$ tap{'s' if L != 1 else ''} per value channel")
    if s.get("value_gate") is not None:
        parts.append("per-token factors $\\sigma_j$ on the value channels")
    value = ("the values are $v_j = V x_j$" if not parts else
             "the values $v_j$ come from $V$ through " + ", ".join(parts)) + " (head $\\ell$ takes its share of them)"
    out = []
    norm = s.get("norm")
    if norm is not None:
        groups = len(norm["scale"][0]) if norm["scale"] else 1
        out.append("a normalisation" + (" with the mean removed" if norm.get("center") else "")
                   + f" over ${groups}$ group{'s' if groups != 1 else ''}, its scale that of this input")
    if s.get("gate") is not None:
        out.append("the output gate $G_i = \\mathrm{diag}(g_i)$"
                   + (" applied before the normalisation" if norm is not None and norm.get("after_gate") else ""))
    if s.get("out") is not None:
        out.append("the output map $W_O$")
    return value + ("; the heads' outputs pass through " + ", ".join(out) if out else
                    "; $y_i$ is the heads' outputs side by side")


def _sentence(name, recurrence, coefficient, s):
    return (f"the {name} layer with {_heads(s)} ({recurrence}): head $\\ell$ outputs $o^\\ell_i = \\sum_{{j \\le i}} "
            f"c^\\ell_{{ij}} v^\\ell_j$ with {coefficient}; {_wrappers(s)}. Every quantity other than the value path "
            "(queries, keys, gates, decays, scales) is the one of this input, so $y_i = \\sum_j W_{ij} x_j$ with "
            "blocks $W_{ij}$ linear along the value path")


def describe_mamba2_ssd(s):
    """Mamba-2's SSD layer."""
    return _sentence("Mamba-2 SSD", "$h_i = a_i h_{i-1} + \\Delta_i B_i x_i^{\\top}$, $y_i = h_i^{\\top} C_i + D x_i$"
                     " per head, $B_i$, $C_i$ shared by the head's channels",
                     "$c_{ij} = (a_i \\cdots a_{j+1}) \\Delta_j (C_i \\cdot B_j)$ and "
                     "$c_{ii} = \\Delta_i C_i \\cdot B_i + D$",
                     s)


def describe_retnet(s):
    """RetNet's retention."""
    return _sentence("RetNet retention", "$S_i = \\gamma S_{i-1} + k_i v_i^{\\top}$, $o_i = S_i^{\\top} q_i$ per head",
                     "$c_{ij} = \\gamma^{i-j} q_i \\cdot k_j$", s)


def describe_gla(s):
    """Gated linear attention."""
    return _sentence("gated linear attention (GLA)",
                     "$S_i = \\mathrm{diag}(\\alpha_i) S_{i-1} + k_i v_i^{\\top}$, $o_i = S_i^{\\top} q_i$ per head",
                     "$c_{ij} = q_i^{\\top} \\mathrm{diag}(\\alpha_i \\odot \\cdots \\odot \\alpha_{j+1}) k_j$", s)


def describe_deltanet(s):
    """DeltaNet (the delta rule)."""
    return _sentence("DeltaNet", "$S_i = (I - \\beta_i k_i k_i^{\\top}) S_{i-1} + \\beta_i k_i v_i^{\\top}$, "
                     "$o_i = S_i^{\\top} q_i$ per head",
                     "$c_{ij} = q_i^{\\top} M_i \\cdots M_{j+1} \\beta_j k_j$, $M_t = I - \\beta_t k_t k_t^{\\top}$", s)


def describe_gated_deltanet(s):
    """Gated DeltaNet (the gated delta rule)."""
    return _sentence("Gated DeltaNet", "$S_i = \\alpha_i (I - \\beta_i k_i k_i^{\\top}) S_{i-1} + \\beta_i k_i "
                     "v_i^{\\top}$, $o_i = S_i^{\\top} q_i$ per head",
                     "$c_{ij} = q_i^{\\top} M_i \\cdots M_{j+1} \\beta_j k_j$, "
                     "$M_t = \\alpha_t (I - \\beta_t k_t k_t^{\\top})$", s)


def describe_kda(s):
    """Kimi Delta Attention (the delta rule with a decay per key channel)."""
    return _sentence("Kimi Delta Attention (KDA)", "$S_i = (I - \\beta_i k_i k_i^{\\top}) \\mathrm{diag}(\\alpha_i) "
                     "S_{i-1} + \\beta_i k_i v_i^{\\top}$, $o_i = S_i^{\\top} q_i$ per head",
                     "$c_{ij} = q_i^{\\top} M_i \\cdots M_{j+1} \\beta_j k_j$, "
                     "$M_t = (I - \\beta_t k_t k_t^{\\top}) \\mathrm{diag}(\\alpha_t)$", s)


def describe_rwkv6(s):
    """RWKV-6's time mixing."""
    return _sentence("RWKV-6 time-mixing", "$S_i = \\mathrm{diag}(w_i) S_{i-1} + k_i v_i^{\\top}$, "
                     "$o_i = (S_{i-1} + \\mathrm{diag}(u) k_i v_i^{\\top})^{\\top} r_i$ per head",
                     "$c_{ij} = r_i^{\\top} \\mathrm{diag}(w_{i-1} \\odot \\cdots \\odot w_{j+1}) k_j$ and "
                     "$c_{ii} = r_i^{\\top} \\mathrm{diag}(u) k_i$", s)


def describe_rwkv7(s):
    """RWKV-7's time mixing (the generalised delta rule)."""
    return _sentence("RWKV-7 time-mixing", "$S_i = S_{i-1} (\\mathrm{diag}(w_i) + a_i b_i^{\\top}) + v_i k_i^{\\top}$,"
                     " $o_i = S_i r_i$ per head, and the bonus $(r_i \\cdot (\\rho \\odot k_i)) v_i$ after the norm",
                     "$c_{ij} = k_j^{\\top} T_{j+1} \\cdots T_i r_i$, $T_t = \\mathrm{diag}(w_t) + a_t b_t^{\\top}$", s)


def describe_mlstm(s):
    """xLSTM's mLSTM."""
    return _sentence("mLSTM", "$C_i = f_i C_{i-1} + i_i v_i k_i^{\\top}$, $h_i = C_i q_i / \\mathrm{den}_i$ per head,"
                     " the gates those of this input and the divisors $\\mathrm{den}_i$ the listed numbers ("
                     + ("" if any(h.get("den") is not None for h in s.get("heads") or []) else "$1$, none listed; ")
                     + "the mLSTM's are $\\max(|n_i^{\\top} q_i|, 1)$ at this input, which the checker does not "
                     "recompute from the gates)",
                     "$c_{ij} = (f_i \\cdots f_{j+1})\\, i_j\\, (q_i \\cdot k_j) / \\mathrm{den}_i$", s)


def _as_matrix(value):
    if value is None:
        return None
    if isinstance(value, list) and value and isinstance(value[0], list):
        return value
    if isinstance(value, list):
        return [value]
    return [[value]]


#: How each head field is typeset.
_SYMBOLS = {"alpha": "\\alpha", "beta": "\\beta", "gamma": "\\gamma", "dt": "\\Delta", "den": "\\mathrm{den}",
            "rk": "\\rho"}


def recurrent_objects(s):
    """A recurrent layer's per-token quantities and maps: the claim is about this input."""
    n = s["n"]
    items = [("V", s["V"])]
    if s.get("out") is not None:
        items.append(("W_O", s["out"]))
    for h, head in enumerate(s["heads"], start=1):
        for field, value in head.items():
            M = _as_matrix(value)
            if M is not None:
                items.append((f"{{{_SYMBOLS.get(field, field)}^{{({h})}}}}", M))
    for key, label in (("gate", "g"), ("shift", "\\delta"), ("conv", "c"), ("value_gate", "\\sigma")):
        if s.get(key) is not None:
            items.append((label, s[key]))
    return (f"on the input of length $n = {tex_count(n)}$ whose per-token quantities (rows $1, \\dots, "
            f"{tex_count(n)}$) are these", "", items, True) if n else ("", "", items, True)

