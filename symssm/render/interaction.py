"""LaTeX of interaction-rank certificates (the unified framework), from verified certificate data.

The theorem names what the rank depends on: the tokens for attention, the per-token matrices for
a selective SSM, nothing but the length for a convolution, the listed blocks for an operator; the
objects are shown when small, otherwise the certificate (hash once) holds them.  The proof shows
the witness blocks, the minor and its leading principal minors.
"""

from ..sources import layer_kinds
from .head_count import coefficient_rows, minors_sentence, positions_text
from .matrices import items_block, per_token
from .statement import factorized_class, space
from .tex import (
    MAX_ROWS,
    MAX_SHOWN,
    display,
    display_name,
    index_list,
    fits,
    inline_list,
    tex_count,
    tex_hash,
    tex_number,
)

__all__ = ["interaction_fragment", "interaction_markdown", "describe_selective", "describe_convolution",
           "describe_linear_attention", "describe_softmax_attention", "describe_operator", "selective_objects",
           "convolution_objects", "attention_objects", "operator_objects"]

#: Most numbers of a layer's own data (tokens, taps, blocks, heads, per-token matrices) typeset in the statement.
MAX_LAYER_NUMBERS = 200
_Q = "\\mathbb{Q}"


def _plural(count, word):
    return f"{word}{'s' if count != 1 else ''}"


# ---------------------------------------------------------------- each layer kind's sentence (rows of sources/layer_kinds.py)

def describe_selective(s):
    """How a selective SSM maps its input (a time-invariant one is stated as such)."""
    D = s.get("D")
    if _time_invariant(s):
        return ("the time-invariant SSM $h_i = A h_{i-1} + B x_i$, $y_i = C h_i" + (" + D x_i" if D is not None else "")
                + f"$ with $N = {len(s['A'][0])}$ states (a selective SSM whose matrices are the same at every token), "
                "so $W_{ij} = C A^{i-j} B$ ($j < i$) and $W_{ii} = C B" + (" + D" if D is not None else "") + "$")
    return (f"the selective SSM $h_i = A_i h_{{i-1}} + B_i x_i$, $y_i = C_i h_i{' + D_i x_i' if D is not None else ''}$ "
            f"with $N = {len(s['A'][0])}$ states, so $W_{{ij}} = C_i A_i \\cdots A_{{j+1}} B_j$ ($j < i$) and "
            f"$W_{{ii}} = C_i B_i{' + D_i' if D is not None else ''}$")


def describe_convolution(s):
    """How a convolution maps its input."""
    L = len(s.get("kernel") or [])
    return (f"the causal convolution $y_i = \\sum_{{0 \\le i-j < {L}}} K_{{i-j}} x_j$ with ${L}$ {_plural(L, 'tap')}, "
            "so $W_{ij} = K_{i-j}$")


def describe_linear_attention(s):
    """How linear attention maps its input."""
    H = len(s.get("heads") or [])
    return f"linear attention with ${H}$ {_plural(H, 'head')}, $W_{{ij}} = \\sum_\\ell (Q_\\ell x_i \\cdot K_\\ell x_j) V_\\ell$ for $j \\le i$"


def describe_softmax_attention(s):
    """How softmax attention maps its input."""
    H = len(s.get("heads") or [])
    return (f"softmax attention with ${H}$ {_plural(H, 'head')}, $W_{{ij}} = \\sum_\\ell a^\\ell_{{ij}} V_\\ell$ for $j \\le i$, "
            "$a^\\ell_{ij} = e^{s^\\ell_{ij}} / \\sum_{j' \\le i} e^{s^\\ell_{ij'}}$, $s^\\ell_{ij} = Q_\\ell x_i \\cdot K_\\ell x_j$")


def describe_operator(s):
    """How an operator (blocks given) maps its input."""
    B = len(s.get("blocks") or [])
    return f"the linear sequence map $y_i = \\sum_j W_{{ij}} x_j$ with ${B}$ nonzero {_plural(B, 'block')}"


def _describe(s):
    return layer_kinds.of(s["kind"]).load("describe")(s)


def _count(items):
    return sum(len(M) * len(M[0]) for _, M in items if M and M[0])


def _time_invariant(s):
    """Whether a selective SSM's per-token matrices are the same at every token (a time-invariant SSM)."""
    return all(s[k] is None or all(M == s[k][0] for M in s[k]) for k in ("A", "B", "C") + (("D",) if s.get("D") else ()))


# ---------------------------------------------------------------- each layer kind's objects: (where, phrase, items, depends)

def attention_objects(s):
    """An attention layer's tokens and heads: the claim is about this input."""
    n = s["n"]
    items = [("X^{\\top}", [list(col) for col in zip(*s["X"])])] if s["X"] and s["X"][0] else []
    for h, head in enumerate(s["heads"]):
        items += [(f"Q_{{{h + 1}}}", head["Q"]), (f"K_{{{h + 1}}}", head["K"]), (f"V_{{{h + 1}}}", head["V"])]
    return f"on the input $X = ({index_list(lambda t: f'x_{t}', 1, n)})$ (the tokens are the columns of $X^{{\\top}}$)", "", items, True


def selective_objects(s):
    """A selective SSM's per-token matrices (for every input when they are the same at every token)."""
    n = s["n"]
    letters = ["A", "B", "C"] + (["D"] if s.get("D") is not None else [])
    items, phrases = [], []
    for letter in letters:
        text, named = per_token(letter, s[letter])
        items += named
        if text:
            phrases.append(text)
    if _time_invariant(s):
        return (f"on sequences of length $n = {tex_count(n)}$, for every input (its blocks do not depend on it)", "",
                items, False)
    return (f"with the per-token matrices ${', '.join(f'{x}_i' for x in letters)}$ ($i = {index_list(lambda t: t.strip('{}'), 1, n)}$) of this input",
            ", ".join(phrases), items, True)


def convolution_objects(s):
    """A convolution's taps (the claim holds for every input)."""
    return (f"on sequences of length $n = {tex_count(s['n'])}$ (for every input)", "",
            [(f"K_{{{t}}}", K) for t, K in enumerate(s["kernel"])], False)


def operator_objects(s):
    """An operator's listed blocks."""
    return (f"on sequences of length $n = {tex_count(s['n'])}$", "",
            [(f"W_{{{b['i']},{b['j']}}}", b["W"]) for b in s["blocks"]], False)


def _layer_objects(s):
    """(what the claim depends on, a phrase on the per-token matrices, the (name, rows) to display or None when too
    large, whether the blocks depend on the input)."""
    where, phrase, items, depends = layer_kinds.of(s["kind"]).load("objects")(s)
    small = (_count(items) <= MAX_LAYER_NUMBERS and len(items) <= 16
             and all(len(M) <= MAX_SHOWN and M and len(M[0]) <= MAX_SHOWN for _, M in items))
    return where, phrase, items if small else None, depends


def block_pairs(s):
    """The pairs ``(i, j)`` a layer's blocks range over: those listed (an operator), else ``1 <= j <= i <= n``."""
    if layer_kinds.of(s["kind"]).pairs == "listed":
        return [(b["i"], b["j"]) for b in s["blocks"]]
    return [(i, j) for i in range(1, s["n"] + 1) for j in range(1, i + 1)]


def zero_blocks(d):
    """The zero blocks among all of the layer's blocks: those with no coefficients listed that are not witnesses
    (the checker verified each is zero) and those whose listed coefficients are all zero.

    Examples
    --------
    >>> d = {"system": {"kind": "convolution", "n": 2}, "lower_bound": {"blocks": [[1, 1]]},
    ...      "upper_bound": {"coefficients": [{"block": [2, 2], "c": ["1"]}]}}
    >>> zero_blocks(d)
    [(2, 1)]
    """
    witnesses = {tuple(b) for b in d["lower_bound"]["blocks"]}
    listed = {tuple(c["block"]): c["c"] for c in d["upper_bound"]["coefficients"]}
    return [b for b in block_pairs(d["system"]) if b not in witnesses
            and (b not in listed or not any(x != "0" for x in listed[b]))]


def interaction_fragment(d, style):
    """The theorem and proof for interaction-rank data that the checker has verified."""
    s = d["system"]
    r, n, p, m = d["interaction_rank"], s["n"], s["p"], s["m"]
    lb, heads = d["lower_bound"], d["heads"]
    blocks = [tuple(b) for b in lb["blocks"]]
    row = layer_kinds.of(s["kind"])
    scope = "over all listed pairs $(i, j)$" if row.pairs == "listed" else \
        f"over $1 \\le j \\le i \\le {tex_count(n)}$"
    where, phrase, items, depends = _layer_objects(s)
    ti = row is layer_kinds.SELECTIVE_SSM and _time_invariant(s)
    lines = [style.begin(f"Interaction rank of the layer {display_name(s)}")]
    shown = "" if items else f" (given in the certificate, sha256 {tex_hash(d['input_sha256'])})"
    lines.append(f"Consider {_describe(s)}, with tokens in ${space(_Q, m)}$ and outputs in "
                 f"${space(_Q, p)}$, {where}{shown}" + (f"; {phrase}" if phrase and items else "")
                 + (", where" if items else "."))
    if items:
        lines.append(items_block(items, end=".").rstrip("\n"))
    on = " on this input" if depends else ""
    lines.append(f"Its blocks $W_{{ij}}$ span a space of dimension exactly $r = {r}$ {scope}"
                 + (f" ($r = k({tex_count(n)})$, the SSM's head count)" if ti else "") + ". "
                 + factorized_class(_Q, p, m))
    lines.append((f"On this input, a model of the class with $H$ heads has this layer's interaction operator (its "
                  f"blocks are the layer's $W_{{ij}}$) if and only if $H \\ge {r}$"
                  if depends else
                  f"A model of the class with $H$ heads represents the layer (its interaction operator is the layer's: "
                  f"its blocks are the $W_{{ij}}$ for every input $X$) if and only if $H \\ge {r}$")
                 + (f": exactly ${r}$ head{'s are' if r != 1 else ' is'} necessary and sufficient in this class{on}."
                    if r else "."))
    lines.append(style.end())
    lines.append("\\begin{proof}\\emergencystretch=3em")
    if r == 0:
        lines.append("\\emph{Necessity.} Nothing to prove: $r = 0$ (every block is zero).")
    else:
        K = len(blocks)
        lines.append(f"\\emph{{Necessity (Interaction Rank Gap).}} Take the witness blocks "
                     f"$(i,j) = {inline_list(f'({i},{j})' for i, j in blocks)}$ and the entries "
                     f"$(r_t, c_t) = {positions_text(lb['positions'])}$ (rows and columns numbered from 1), and let "
                     "$M_{st}$ be entry $(r_t, c_t)$ of the $s$-th witness block.")
        vm = heads.get("value_maps")
        if vm and len(vm) <= 8 and all(fits(V, "W_{00,00}") for V in vm):
            names = [f"W_{{{i},{j}}}" for i, j in heads["value_map_blocks"]]
            lines.append(f"The witness block{'s are' if len(vm) > 1 else ' is'}")
            lines.append(display(list(zip(names, vm)), end=".").rstrip("\n"))
        if lb["method"] == "exact":
            minor = lb["minor"]
            if K <= MAX_SHOWN and fits(minor, "M"):
                lines.append("Then")
                lines.append(display([("M", minor)], end=",").rstrip("\n"))
                lines.append(minors_sentence(minor) or f"with $\\det M = {tex_number(lb['determinant'])} \\neq 0$ and "
                             "every leading principal minor nonzero.")
            else:
                lines.append(f"The checker recomputed $M$ from the layer; $\\det M = {tex_number(lb['determinant'])} "
                             "\\neq 0$ and every leading principal minor is nonzero.")
        else:
            lines.append(f"The entries of $M$ involve exponentials of the scores. Outward-rounded interval arithmetic "
                         f"with {lb['precision_bits']}-bit dyadic bounds (Taylor polynomials of degree "
                         f"{lb['taylor_terms']} with explicit remainders for the exponentials) encloses $\\det M$ in an "
                         "interval that excludes $0$, so $M$ is nonsingular.")
        lines.append(f"So the blocks span at least ${r}$ dimension{'s' if r != 1 else ''}, while an $H$-head model's "
                     f"blocks all lie in $\\symssmspan\\{{V_1, \\dots, V_H\\}}$; no model with $H < {r}$ heads "
                     "represents the layer" + (" on this input" if depends else "")
                     + (" (in particular no single-head attention layer)" if r >= 2 else "")
                     + (f"; for each $H < {r}$ the leading $(H+1)\\times(H+1)$ minor of $M$ is the witness."
                        if r > 1 and lb["method"] == "exact" else "."))
    lines.append("")
    if lb["method"] == "exact":
        coeffs = d["upper_bound"]["coefficients"]
        zero = zero_blocks(d)
        rows = [{"lag": f"({c['block'][0]},{c['block'][1]})", "c": c["c"]} for c in coeffs
                if any(x != "0" for x in c["c"])]
        text = ("\\emph{Sufficiency.} Every other block is zero or an exact combination "
                "$W_{ij} = \\sum_\\ell c_{ij,\\ell} V_\\ell$ of the witness blocks before it")
        chars = sum(len(x) for row in rows for x in row["c"])
        if rows and len(rows) <= MAX_ROWS and chars <= 900:
            lines.append(text + f" ({len(zero)} zero block{'s' if len(zero) != 1 else ''}; the others with the "
                         "coefficients below, numbered in order of the witness blocks):")
            lines.append(coefficient_rows(rows, head="(i,j)").replace("c_{(i,j),", "c_{ij,"))
        elif rows:
            lines.append(text + f" ({len(zero)} zero, {len(rows)} with coefficients listed in the certificate; the "
                         "checker verified every identity entry by entry).")
        else:
            lines.append(text + (": here every other block is zero." if zero else "."))
        if r:
            lines.append(f"\\emph{{Explicit construction with $H = {r}$.}} Take $V_\\ell$ the $\\ell$-th witness block and "
                         "$\\alpha^\\ell_{ij} = c_{ij,\\ell}$ (1 at its own block, 0 on the other witness blocks and on zero "
                         "blocks); then $\\sum_\\ell \\alpha^\\ell_{ij} V_\\ell = W_{ij}$ for every block."
                         + (" These coefficients are those of this input's blocks, which the class allows (its "
                            "coefficients may depend on the input)." if depends else
                            " These coefficients do not depend on the input."))
    else:
        basis = inline_list(h + 1 for h in heads["value_map_heads"])
        lines.append(f"\\emph{{Sufficiency.}} Every block is a combination of the value maps $V_\\ell$, whose span has "
                     f"dimension exactly ${r}$ (an exact rank; heads ${basis}$ form a basis). A model with ${r}$ "
                     f"head{'s' if r != 1 else ''}, those value maps and the softmax weights re-expressed in that "
                     "basis as coefficients represents the layer on this input.")
    lines.append("\\end{proof}")
    return "\n".join(lines) + "\n"


def interaction_markdown(d, safe_name):
    """A short Markdown summary of verified interaction-rank data."""
    return (f"**symssm interaction-rank certificate** for `{safe_name}` ({d['system']['kind']}, "
            f"n = {d['system']['n']}): the blocks $W_{{ij}}$ span exactly $r = {d['interaction_rank']}$ dimensions, "
            f"so exactly {d['interaction_rank']} head(s) are necessary and sufficient in the multi-head factorized "
            "class to represent its interaction operator on this input.")
