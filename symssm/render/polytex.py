r"""Polynomials and parameter names of families as LaTeX: token by token, parameter names escaped.

Examples
--------
>>> tex_polynomial("3/2*a^2*b - 1")
'3/2\\,a^{2}\\,b - 1'
>>> tex_polynomial("-t^2 + 1"), tex_polynomial("(-h + 2)/(h + 2)"), tex_polynomial("-h - 1")
('1 - t^{2}', '(2 - h)/(h + 2)', '- h - 1')
>>> tex_fraction("-h + 2", "h + 2"), tex_fraction("-2*h", "(h + 1)*(h + 2)"), tex_fraction("h", "h + 1")
('-(h - 2)/(h + 2)', '-2\\,h/((h + 1)\\,(h + 2))', 'h/(h + 1)')
>>> tex_parameter("l1"), tex_parameter("ab_c")
('l_{1}', '\\mathit{ab\\_c}')
"""

import re

from ..formats.expressions import TOKEN

__all__ = ["tex_parameter", "tex_polynomial", "tex_fraction"]


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


def _binary(toks, i):
    """True if the sign at ``toks[i]`` separates two terms (it follows an operand)."""
    return i > 0 and (toks[i - 1][0] in ("num", "name") or toks[i - 1] == ("op", ")"))


def _leading_positive(toks):
    """Each sum (top level and in every parenthesis) that would open with a minus sign but has a positive term,
    reordered to open with a positive one: ``-t^2 + 1`` is written ``1 - t^2`` (descending order unless the leading
    coefficient is negative, then ascending; where both ends are negative, the first positive term leads)."""
    out, i = [], 0
    while i < len(toks):  # rewrite inner groups first
        if toks[i] == ("op", "("):
            depth, j = 1, i + 1
            while j < len(toks) and depth:
                depth += {("op", "("): 1, ("op", ")"): -1}.get(toks[j], 0)
                j += 1
            out += [toks[i]] + _leading_positive(toks[i + 1:j - 1]) + [toks[j - 1]] if depth == 0 else toks[i:]
            i = j
            continue
        out.append(toks[i])
        i += 1
    terms, depth, start = [], 0, 0
    for i, tok in enumerate(out):
        depth += {("op", "("): 1, ("op", ")"): -1}.get(tok, 0)
        if depth == 0 and tok in (("op", "+"), ("op", "-")) and _binary(out, i):
            terms.append(out[start:i])
            start = i
    terms.append(out[start:])
    if len(terms) < 2 or terms[0][:1] != [("op", "-")] or all(t[0] == ("op", "-") for t in terms[1:]):
        return out
    signed = [terms[0]] + terms[1:]
    signed = [t if t[0] in (("op", "+"), ("op", "-")) else [("op", "+")] + t for t in signed]
    if signed[-1][0] == ("op", "+"):
        signed.reverse()  # descending order with a negative leading coefficient: ascending instead
    else:  # both ends negative (several variables): the first positive term leads
        k = next(i for i, t in enumerate(signed) if t[0] == ("op", "+"))
        signed = [signed[k]] + signed[:k] + signed[k + 1:]
    first = signed[0][1:] if signed[0][0] == ("op", "+") else signed[0]
    return first + [tok for t in signed[1:] for tok in t]


def _tokens(text):
    toks, pos = [], 0
    while pos < len(text) and text[pos:].strip():
        m = TOKEN.match(text, pos)
        if not m:  # not reachable for verified data
            return None
        toks.append((m.lastgroup, m.group(m.lastgroup)))
        pos = m.end()
    return toks


def _top_level_signs(toks):
    """The indices of the signs that separate top-level terms."""
    out, depth = [], 0
    for i, tok in enumerate(toks):
        depth += {("op", "("): 1, ("op", ")"): -1}.get(tok, 0)
        if depth == 0 and tok in (("op", "+"), ("op", "-")) and _binary(toks, i):
            out.append(i)
    return out


def _is_sum(toks):
    return bool(_top_level_signs(toks))


def tex_fraction(num, den):
    """An entry ``num/den`` of a family's matrix as inline math, both in the same (descending) order as the
    canonical text gives them: a numerator whose leading coefficient is negative is written with the sign in front
    of the fraction (``-(h - 2)/(h + 2)``, never ``(2 - h)/(h + 2)``), so that one polynomial reads the same in
    every entry; a monomial or a single factor is not put in parentheses, a sum or a product is."""
    nt, dt = _tokens(num), _tokens(den)
    if nt is None or dt is None:
        return "\\text{(see certificate)}"
    sign = ""
    if nt and nt[0] == ("op", "-"):
        sign, nt = "-", nt[1:]
        nt = [("op", "-" if tok[1] == "+" else "+") if i in _top_level_signs(nt) else tok
              for i, tok in enumerate(nt)]
    top = _render(nt)
    if _is_sum(nt):
        top = f"({top})"
    bottom = _render(dt)
    if _is_sum(dt) or any(tok == ("op", "*") for tok in dt):
        bottom = f"({bottom})"
    return f"{sign}{top}/{bottom}"


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
    return _render(_leading_positive(toks))


def _render(toks):
    """Tokens of a formula as inline math."""
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
