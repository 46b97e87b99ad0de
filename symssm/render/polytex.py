r"""Polynomials and parameter names of families as LaTeX: token by token, parameter names escaped.

Examples
--------
>>> tex_polynomial("3/2*a^2*b - 1")
'3/2\\,a^{2}\\,b - 1'
>>> tex_parameter("l1"), tex_parameter("ab_c")
('l_{1}', '\\mathit{ab\\_c}')
"""

import re

from ..formats.expressions import TOKEN

__all__ = ["tex_parameter", "tex_polynomial"]


def tex_parameter(name):
    """A parameter name in math mode: ``l1`` -> ``l_{1}``, ``h`` -> ``h``, ``ab_c`` -> ``\\mathit{ab\\_c}``."""
    m = re.fullmatch(r"([A-Za-z])([0-9]+)", name)
    if m:
        return f"{m.group(1)}_{{{m.group(2)}}}"
    if len(name) == 1:
        return name
    m = re.fullmatch(r"([A-Za-z]+)([0-9]+)", name)
    if m:
        return f"\\mathit{{{m.group(1)}}}_{{{m.group(2)}}}"
    return "\\mathit{" + name.replace("_", "\\_") + "}"


def tex_polynomial(text):
    """Canonical polynomial (or formula) text as inline-math LaTeX: ``3/2*a^2*b - 1`` -> ``3/2\\, a^{2}\\, b - 1``."""
    toks = []
    pos = 0
    while pos < len(text) and text[pos:].strip():
        m = TOKEN.match(text, pos)
        if not m:  # not reachable for verified data; typeset nothing unsafe
            return "\\text{(see certificate)}"
        toks.append((m.lastgroup, m.group(m.lastgroup)))
        pos = m.end()
    out, i = [], 0
    while i < len(toks):
        kind, tok = toks[i]
        if kind == "num" and i + 2 < len(toks) and toks[i + 1] == ("op", "/") and toks[i + 2][0] == "num" \
                and (i + 3 >= len(toks) or toks[i + 3][1] != "^") and (i == 0 or toks[i - 1][1] != "^"):
            out.append(f"{tok}/{toks[i + 2][1]}")
            i += 3
            continue
        if kind == "name":
            out.append(tex_parameter(tok))
        elif tok == "^" and i + 1 < len(toks):
            out.append(f"^{{{toks[i + 1][1]}}}")
            i += 2
            continue
        elif tok == "*":
            out.append("\\,")
        elif tok in "+-":
            out.append(f" {tok} ")
        else:
            out.append(tok)
        i += 1
    return "".join(out).strip()
