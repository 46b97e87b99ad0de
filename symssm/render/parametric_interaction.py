"""Theorems for layers with parameters: the interaction rank for every input, from verified certificates.

Every sentence states a case the checker verified: the generic rank off the listed factors, the
rank on each covered factor (recursively), where the layer is undefined, and, where factors are
uncovered, that nothing is claimed there.

Examples
--------
>>> from symssm import certify
>>> from symssm.sources.parametric_layers import parametric_layer_from_data
>>> layer = parametric_layer_from_data({"kind": "linear-attention", "name": "scalar tokens",
...     "parameters": ["x1", "x2"], "X": [["x1"], ["x2"]], "heads": [{"Q": [[1]], "K": [[1]], "V": [[1]]}]})
>>> for line in interaction_family_lines(certify(layer).data):
...     print(line)
r = 1 for every x1, x2 where x1 is nonzero (the generic case)
  where x1 = 0 (and the layer is defined): r = 1, except where x2 vanishes
    where x2 = 0 (and the layer is defined): r = 0
complete: every input where the layer is defined has its interaction rank
"""

from .parametric import (MAX_TEX_CASES, covering_text, factored_entries, _factor_tex, _nonzero, _point, body_factors,
                         cover_witnesses,
                         entry_lines, outline, outline_lines, tex_completeness, tex_items)
from .parametric import tex_parameter, tex_polynomial
from .matrices import items_block, per_token, tex_width
from ..sources import layer_kinds
from .statement import factorized_class, head_symbol, space, state_symbol
from .tex import display_name, entries_pointer, tex_hash

__all__ = ["interaction_family_lines", "interaction_family_fragment", "interaction_family_markdown",
           "selective_family_words", "convolution_family_words", "attention_family_words", "operator_family_words"]

# ---------------------------------------------------------------- each kind's words (rows of sources/layer_kinds.py)
# ``(what the layer is, in a phrase of the theorem; its blocks scaled by the common denominator g)``

def selective_family_words(s):
    """A selective SSM with parameters (with the feedthrough terms when it has them)."""
    D = " + D_i x_i" if s.get("D") is not None else ""
    z = state_symbol(s.get("parameters") or ())
    return (f"selective state space layer (${z}_i = A_i {z}_{{i-1}} + B_i x_i$, $y_i = C_i {z}_i{D}$, so $W_{{ij}} = C_i A_i "
            f"\\cdots A_{{j+1}} B_j$ for $j < i$ and $W_{{ii}} = C_i B_i{' + D_i' if D else ''}$)",
            "$U_{ij} = g^{i-j+2} W_{ij}$")


def convolution_family_words(s):
    """A convolution with parameters."""
    return ("convolution ($W_{ij} = K_{i-j}$ for $0 \\le i - j$ below the number of taps, else $0$)",
            "$U_{ij} = g W_{ij}$")


def attention_family_words(s):
    """Linear attention with parameters."""
    return ("linear attention layer ($W_{ij} = \\sum_\\ell \\langle Q_\\ell x_i, K_\\ell x_j \\rangle V_\\ell$ for $j \\le i$)",
            "$U_{ij} = g^{5} W_{ij}$")


def operator_family_words(s):
    """An operator with parameters."""
    return "sequence map given by its blocks $W_{ij}$ (blocks not listed are zero)", "$U_{ij} = g W_{ij}$"


def interaction_family_lines(d):
    """Terminal summary lines of verified ``parametric-interaction-rank`` data."""
    return outline_lines(d, "r", "layer", "every input where the layer is defined has its interaction rank")


_C = "\\mathbb{C}"


def _words(s):
    """(What the layer is, in a phrase; its scaled blocks): the layer kind's ``family_words``."""
    return layer_kinds.of(s["kind"]).load("family_words")(s)


def _layer_statement(d):
    """(text after "functions of the parameters ...", whether the matrices are shown): the layer's matrices in the
    statement, compressed; by the certificate's hash when they are too long to print."""
    s = d["system"]
    entries = factored_entries(d, d["bodies"][0]["entries"])
    total = sum(len(x) for rows in entries.values() for row in rows for pair in row for x in pair)
    if total > 1600 or len(entries) > 40:
        return f" (given in the certificate, sha256 {tex_hash(d['input_sha256'])}).", False
    named, phrases = [], []
    groups = {}
    for key, rows in entries.items():
        name, _, index = key.partition("[")
        groups.setdefault(name, []).append((index.rstrip("]"), rows))
    for name, members in groups.items():
        if name == "X" and len(members) == 1:
            named.append(("X^{\\top}", [list(col) for col in zip(*members[0][1])]))
        elif name in layer_kinds.of(s["kind"]).per_token:
            phrase, shown = per_token(name, [rows for _, rows in members])
            named += shown
            if phrase:
                phrases.append(phrase)
        else:
            named += [(_key_tex(f"{name}[{index}]") if index else name, rows) for index, rows in members]
    words = "; " + ", ".join(phrases) if phrases else ""
    if not named:
        return f"{words}.", True
    return f"{words}, where\n" + items_block(named, end=".").rstrip("\n"), True


def _entries_lines(d):
    entries = d["bodies"][0]["entries"]
    if len(entries) > 24:
        return [entries_pointer(d["input_sha256"])]
    return entry_lines(d, factored_entries(d, entries), _key_tex)


def _key_tex(key):
    """``A[2]`` -> ``A_{2}``, ``kernel[0]`` -> ``K_{0}``, ``W[2,1]`` -> ``W_{21}``, ``X`` -> ``X``."""
    if key == "X":
        return "X"
    name, _, index = key.partition("[")
    index = index.rstrip("]").replace(",", "")
    letter = "K" if name == "kernel" else name
    return f"{letter}_{{{index}}}"


def _w(i, j):
    return f"U_{{{i}{j}}}" if max(i, j) < 10 else f"U_{{{i},{j}}}"


def _tokens_are_the_parameters(s):
    """Whether the parameters are exactly the token entries of ``X``, in order (linear attention on every input)."""
    X = s.get("X")
    return isinstance(X, list) and [x for row in X for x in row] == list(s["parameters"])


def _root_where(item, s):
    if item["parameters"] and _tokens_are_the_parameters(s):
        return (f"For every input $X \\in \\mathbb{{C}}^{{{s['n']} \\times {s['m']}}}$ (its entries are the "
                "parameters)" + _nonzero(item["factors"]))
    return ("For every " + _point(item["parameters"]) + _nonzero(item["factors"])) if item["parameters"] \
        else "For the layer"


def interaction_family_fragment(d, style):
    """The theorem and proof for verified ``parametric-interaction-rank`` data."""
    s = d["system"]
    items = outline(d)
    names = s["parameters"]
    params = ", ".join(f"${tex_parameter(x)}$" for x in names)
    statement, shown = _layer_statement(d)
    lines = [
        style.begin(f"Interaction rank of {display_name(s)} for every input"),
        f"Consider the {_words(s)[0]} {display_name(s)} on $n = {s['n']}$ tokens $x_i \\in "
        f"{space(_C, s['m'])}$, with outputs $y_i \\in {space(_C, s['p'])}$, whose matrices are rational functions "
        f"of the parameter{'s' if len(names) != 1 else ''} {params}" + statement,
        factorized_class(_C, s["p"], s["m"], head=head_symbol(s.get("parameters") or ())) + " Let $r$ be the dimension of the span of the layer's blocks $W_{ij}$"
        + ("" if layer_kinds.of(s["kind"]).pairs == "listed" else " ($1 \\le j \\le i \\le n$)")
        + " at a point: exactly $r$ heads are necessary and sufficient in this class there (a model with $H$ heads "
          "has the layer's interaction operator at that point, its blocks being the layer's $W_{ij}$ there, if and "
          "only if $H \\ge r$).",
        "\\begin{enumerate}\\raggedright",  # cases hold long formulas: a ragged margin, never a stretched line
    ]
    lines += tex_items(items, "layer", lambda item: f"$r = {item['k']}$", lambda item: _root_where(item, s))
    lines.append("\\end{enumerate}")
    lines.append(tex_completeness(d, items, "point", "layer"))
    lines += [style.end(), "\\begin{proof}\\emergencystretch=3em"]
    if not shown:
        lines += _entries_lines(d)
    lines.append(f"Let $g$ be the common denominator of the entries; multiplying every matrix of the layer by $g$ "
                 f"gives polynomial blocks {_words(s)[1]}, which span the same space wherever the layer is "
                 "defined ($g \\ne 0$ there). In each case below, the minor of the witness blocks at the listed entries "
                 "(rows and columns numbered from 1) has the nonzero determinant $\\Delta$ shown (lower bound); every "
                 "other nonzero block satisfies $q_b U_b = \\sum_s p_{b,s} U_{b_s}$, or $r = pm$ and the dimension "
                 "argument applies (upper bound); and $g \\Delta \\prod_b q_b$ is the product of the listed factors, "
                 "so off their zero sets the rank is $r$ at every point. " + covering_text(d, "layer"))
    lines.append("\\begin{itemize}\\raggedright")
    for item in items:
        if item["ref"] is not None:
            continue
        if item["number"] > MAX_TEX_CASES:
            break
        b = item["body"]
        lb = b["lower_bound"]
        blocks = ",\\allowbreak ".join(_w(i, j) for i, j in lb["blocks"])
        pos = ",\\allowbreak ".join(f"({r + 1},{c + 1})" for r, c in lb["positions"])
        label = "generic case" if item["depth"] == 0 else f"case {item['number']}"
        co = b["upper_bound"].get("coefficients") or []
        upper = "the dimension argument" if b["upper_bound"]["dimension"] else \
            f"{len(co)} coefficient identit{'y' if len(co) == 1 else 'ies'}"
        if co and sum(len(x["q"]) + sum(len(y) for y in x["p"]) for x in co) <= 240:
            shown = []
            for x in co:
                terms = []
                for (i, j), y in zip(lb["blocks"], x["p"]):
                    if y == "0":
                        continue
                    w = _w(i, j)
                    terms.append(w if y == "1" else f"-{w}" if y == "-1" else f"{_factor_tex(y)}\\,{w}")
                rhs = terms[0] if terms else "0"
                for t in terms[1:]:
                    rhs += f" - {t[1:]}" if t.startswith("-") else f" + {t}"
                q = "" if x["q"] == "1" else f"{_factor_tex(x['q'])}\\,"
                i, j = x["block"]
                shown.append(f"${q}{_w(i, j)} = {rhs}$")
            upper += " (" + ", ".join(shown) + ")"
        factors, delta = body_factors(b, b["interaction_rank"])
        minor = lb.get("minor") or []
        if 1 < len(minor) <= 4 and sum(len(x) for row in minor for x in row) <= 400:  # 1 x 1: Delta is the entry
            texts = [[tex_polynomial(x) for x in row] for row in minor]
            widest = max(sum(tex_width(x) for x in row) + 12 * len(row) for row in texts)
            if all(x == ("1" if i == j else "0") for i, row in enumerate(texts) for j, x in enumerate(row)):
                delta = f" minor $I_{{{len(texts)}}}$;" + delta  # the identity, as every theorem writes it
            elif widest <= 150:
                cells = " \\\\ ".join(" & ".join(row) for row in texts)
                delta = f" minor $\\left(\\begin{{smallmatrix}} {cells} \\end{{smallmatrix}}\\right)$;" + delta
            else:  # too wide for a line of the column: the entries one by one, each breakable after + and -
                listed = ", ".join(f"$M_{{{i + 1}{j + 1}}} = {x}$" for i, row in enumerate(texts)
                                   for j, x in enumerate(row))
                delta = f" minor $M$ with {listed};" + delta
        witness = (f" witness blocks ${blocks}$ at entries ${pos}$;" if lb["blocks"] else
                   " every block is zero, so no witness is needed;")
        lines.append(f"\\item {label}: $r = {b['interaction_rank']}$;{witness}"
                     f"{delta} upper bound by {upper}; "
                     + (f"factors {factors}." if factors else "no factor to exclude.") + cover_witnesses(b))
    lines.append("\\end{itemize}")
    lines.append("\\end{proof}")
    return "\n".join(lines) + "\n"


def interaction_family_markdown(d, safe_name):
    """A short Markdown summary of verified ``parametric-interaction-rank`` data."""
    body = "\n".join(f"- {line.strip()}" for line in interaction_family_lines(d))
    return f"**symssm certificate for every input** of the layer `{safe_name}` (n = {d['system']['n']}):\n\n{body}"
