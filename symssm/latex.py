"""LaTeX for certificates: a theorem with its proof, a standalone document, macros.

The fragment compiles when ``\\input`` into an article that loads only amsmath,
amssymb and amsthm: it defines its theorem environment only if absent and uses
``\\providecommand`` for helpers, so it cannot clash with the host.  Text from the
certificate (the system's name) is escaped, never passed through as LaTeX.
Output is deterministic.

Examples
--------
>>> escape_text("50% of $x_1 & y^2 {ok} \\\\ #~")
'50\\\\% of \\\\$x\\\\_1 \\\\& y\\\\textasciicircum{}2 \\\\{ok\\\\} \\\\textbackslash{} \\\\#\\\\textasciitilde{}'
>>> tex_number("-3/4")
'-\\\\tfrac{3}{4}'
"""

import re

from .errors import CertificateError, InputError

__all__ = ["render", "render_macros", "render_standalone", "render_markdown", "escape_text", "tex_name", "tex_number",
           "tex_matrix", "to_latex", "MACRO_PREFIX"]

#: Default prefix of the macros ``--macros`` emits (``\\SymssmHeadCount``, ...).
MACRO_PREFIX = "Symssm"
#: Largest matrix dimension typeset entry by entry.
MAX_SHOWN = 12
#: Most coefficient-table rows typeset before truncating.
MAX_ROWS = 12
#: Numbers with more digits are abbreviated (the exact value stays in the certificate).
MAX_DIGITS_SHOWN = 40

_SPECIAL = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "%": r"\%", "#": r"\#",
    "_": r"\_", "&": r"\&", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
}


def escape_text(text):
    """Escape arbitrary text for LaTeX text mode; non-ASCII becomes ``[U+XXXX]``."""
    out = []
    for ch in str(text):
        if ch in _SPECIAL:
            out.append(_SPECIAL[ch])
        elif ch in "<>|\"":
            out.append(r"\textless{}" if ch == "<" else r"\textgreater{}" if ch == ">" else
                       r"\textbar{}" if ch == "|" else "''")
        elif 32 <= ord(ch) < 127:
            out.append(ch)
        else:
            out.append(f"[U+{ord(ch):04X}]")
    return "".join(out)


_TT_SPECIAL = set('\\{}$%#_&~^<>|"\'`')


def tex_name(text):
    """A name typeset literally in typewriter type: specials become ``\\char`` codes.

    Works in the default OT1 encoding (cmtt has the ASCII glyphs), so the PDF shows and
    pdftotext extracts exactly the characters of the name; non-ASCII becomes ``[U+XXXX]``.

    Examples
    --------
    >>> print(tex_name("a_b"))
    \\texttt{a\\char95{}b}
    """
    out = []
    for ch in str(text):
        if ch in _TT_SPECIAL:
            out.append(f"\\char{ord(ch)}{{}}")
        elif 32 <= ord(ch) < 127:
            out.append(ch)
        else:
            out.append(f"[U+{ord(ch):04X}]")
    return "\\texttt{" + "".join(out) + "}"


def _digits(s):
    if len(s) <= MAX_DIGITS_SHOWN:
        return s
    return f"{s[:12]}\\ldots{s[-6:]}\\ (\\text{{{len(s)} digits}})"


def tex_number(text):
    """A canonical rational string as math-mode LaTeX (``\\tfrac`` for fractions)."""
    if not isinstance(text, str) or not re.fullmatch(r"-?[0-9]+(/[0-9]+)?", text):
        raise CertificateError(f"not a rational in the certificate: {str(text)[:40]!r}")
    sign = "-" if text.startswith("-") else ""
    body = text.lstrip("-")
    if "/" in body:
        num, den = body.split("/")
        return f"{sign}\\tfrac{{{_digits(num)}}}{{{_digits(den)}}}"
    return sign + _digits(body)


def tex_matrix(rows):
    """A matrix of rational strings: pmatrix up to 10 columns, array beyond (MaxMatrixCols)."""
    if not rows or not rows[0]:
        return r"\begin{pmatrix}\end{pmatrix}"
    body = r" \\ ".join(" & ".join(tex_number(x) for x in row) for row in rows)
    if len(rows[0]) <= 10:
        return r"\begin{pmatrix}" + body + r"\end{pmatrix}"
    return r"\left(\begin{array}{" + "c" * len(rows[0]) + "}" + body + r"\end{array}\right)"


def _shown(name, rows):
    r, c = len(rows), len(rows[0]) if rows else 0
    if r <= MAX_SHOWN and c <= MAX_SHOWN:
        return f"{name} = {tex_matrix(rows)}"
    return f"{name} \\in \\mathbb{{Q}}^{{{r}\\times {c}}}\\ \\text{{(entries in the certificate)}}"


def _check(data):
    if not isinstance(data, dict) or data.get("format") != "symssm-certificate":
        raise InputError("not a symssm certificate")
    if data.get("kind") not in ("head-count", "gradient-highway"):
        raise InputError(f"unknown certificate kind {data.get('kind')!r}")


_PREAMBLE = (
    "\\ifcsname symssmtheorem\\endcsname\\else\\newtheorem{symssmtheorem}{Certified result}\\fi\n"
    "\\providecommand{\\symssmspan}{\\operatorname{span}}\n"
)


def _system_block(s):
    parts = [_shown("A", s["A"]), _shown("B", s["B"]), _shown("C", s["C"])]
    if s["D"] is not None:
        parts.append(_shown("D", s["D"]))
    return "\\[\n" + ",\\quad\n".join(parts) + ".\n\\]\n"


def _name(s):
    return tex_name(s["name"]) if s["name"] else "under consideration"


def _head_count_fragment(d):
    s = d["system"]
    k, n, T = d["head_count"], d["n"], d["truncation"]
    lb, ub, prof, hf = d["lower_bound"], d["upper_bound"], d["profile"], d["holds_for"]
    lags = lb["lags"]
    K = len(lags)
    pm = s["p"] * s["m"]
    rng = f"every $n'$ with ${hf['from']} \\le n'" + (f" \\le {hf['to']}$" if hf["to"] is not None else "$")
    lines = [
        f"% symssm head-count certificate ({escape_text(d['generator'])}); input sha256 {d['input_sha256']}",
        _PREAMBLE.rstrip("\n"),
        f"\\begin{{symssmtheorem}}[{{Head count of the SSM {_name(s)}}}]",
        f"Let $h_i = A h_{{i-1}} + B x_i$, $y_i = C h_i{' + D x_i' if s['D'] is not None else ''}$ "
        f"with state dimension $N = {s['N']}$, inputs in $\\mathbb{{Q}}^{{{s['m']}}}$, outputs in $\\mathbb{{Q}}^{{{s['p']}}}$ and",
        _system_block(s).rstrip("\n"),
        "Let $L_0 = CB" + (" + D" if s["D"] is not None else "") + "$ and $L_d = C A^d B$ ($d \\ge 1$) be its lag operators.",
        f"On sequences of length $n = {n}$, exactly $k = {k}$ attention head{'s are' if k != 1 else ' is'} necessary and "
        f"sufficient: the SSM is represented by an $H$-head factorized model if and only if $H \\ge {k}$. "
        f"The same holds for {rng}.",
        "\\end{symssmtheorem}",
        "\\begin{proof}",
    ]
    # Necessity.
    if k == 0:
        lines.append("\\emph{Necessity.} Nothing to prove: $k = 0$.")
    else:
        sub = f"the leading ${k}\\times {k}$ part of " if k < K else ""
        if lb["method"] == "exact":
            minor = lb["minor"]
            lines.append(
                f"\\emph{{Necessity (Interaction Rank Gap).}} Take the lags $d = {', '.join(map(str, lags[:k]))}$ "
                f"and the entries $(r,c) = {', '.join(f'({r},{c})' for r, c in lb['positions'][:k])}$ "
                f"(rows and columns from 0). The matrix $M_{{st}} = (L_{{d_s}})_{{r_t c_t}}$ is {sub}")
            shown = [row[:k] for row in minor[:k]]
            lines.append("\\[\n" + _shown("M", shown) + (f",\\qquad \\det M = {tex_number(lb['determinant'])} \\neq 0" if k == K else "") + ".\n\\]")
            lines.append("Every leading principal minor of $M$ is nonzero (fraction-free Bareiss elimination), ")
        else:
            P = lb["prime"]
            lines.append(
                f"\\emph{{Necessity (Interaction Rank Gap).}} Take the lags $d = {', '.join(map(str, lags[:k]))}$ "
                f"and the entries $(r,c) = {', '.join(f'({r},{c})' for r, c in lb['positions'][:k])}$ (from 0), and let "
                f"$M_{{st}} = (L_{{d_s}})_{{r_t c_t}}$. Reduced modulo the prime $P = {P}$, which divides no denominator "
                f"of $A, B, C{', D' if s['D'] is not None else ''}$, every leading principal minor of $M$ is nonzero"
                + (f", and $\\det M \\equiv {lb['determinant_mod_p']} \\pmod{{{P}}}$" if k == K else "")
                + ". Reduction modulo $P$ is a ring homomorphism on rationals with denominators prime to $P$, "
                "so these minors are nonzero over $\\mathbb{Q}$ as well; ")
        lines.append(
            f"hence $L_{{{lags[0]}}}, \\dots, L_{{{lags[k - 1]}}}$ are linearly independent and "
            f"$k(n) = \\dim \\symssmspan\\{{L_0, \\dots, L_{{n-1}}\\}} \\ge {k}$. "
            f"Every $H$-head factorized model $W_{{ij}} = \\sum_{{h=1}}^H \\alpha^h_{{ij}} V_h$ has all its operators in "
            f"$\\symssmspan\\{{V_1, \\dots, V_H\\}}$, of dimension at most $H$, while the SSM's operator takes every value "
            f"$L_{{i-j}}$, $0 \\le i - j < n$. So no model with $H < {k}$ heads represents it"
            + (" (in particular no single-head attention layer)" if k >= 2 else "")
            + f"; for each $H < {k}$ the leading $(H+1)\\times(H+1)$ minor is the witness.")
    vm = d["heads"].get("value_maps")
    if vm:
        shown_maps = [f"L_{{{lags[h]}}} = {tex_matrix(V)}" for h, V in enumerate(vm[:6])
                      if len(V) <= MAX_SHOWN and len(V[0]) <= MAX_SHOWN]
        if shown_maps:
            lines.append("The lag operators used are\n\\[\n" + ",\\quad\n".join(shown_maps)
                         + (",\\ \\dots" if len(vm) > 6 else "") + ".\n\\]")
    # Sufficiency.
    lines.append("")
    coeffs = ub["coefficients"]
    suff = [f"\\emph{{Sufficiency.}} By the Cayley--Hamilton theorem every lag $L_d$ with $d \\ge {T}$ lies in "
            f"$\\symssmspan\\{{L_0, \\dots, L_{{{T - 1}}}\\}}$" + (" (from $L_1$ on, as $D \\neq 0$)" if s["D"] is not None else "") + ". "]
    if ub["dimension_from_lag"] is not None:
        suff.append(f"The ${K}$ independent lags span all of $\\mathbb{{Q}}^{{{s['p']}\\times {s['m']}}}$ "
                    f"(dimension $pm = {pm}$), which covers every lag $d \\ge {ub['dimension_from_lag']}$. ")
    if coeffs:
        suff.append("Each remaining lag is an exact combination $L_d = \\sum_h c_{d,h} L_{d_h}$ of the witness lags "
                    "below it, verified entry by entry:")
        lines.append("".join(suff))
        zero = [r["lag"] for r in coeffs if not r["c"]]
        if zero:
            listed = ", ".join(map(str, zero[:24])) + (", \\dots" if len(zero) > 24 else "")
            lines.append(f"The lags $L_d$ with $d \\in \\{{{listed}\\}}$ are zero (no witness lag lies below them).")
        rows = [r for r in coeffs if r["c"]]
        shown = rows[:MAX_ROWS]
        width = max((len(r["c"]) for r in shown), default=0)
        if shown and width <= 10:
            body = ["$d$ & " + " & ".join(f"$c_{{d,{h + 1}}}$" for h in range(width)) + r" \\ \hline"]
            for r in shown:
                cells = [f"${tex_number(x)}$" for x in r["c"]] + [""] * (width - len(r["c"]))
                body.append(f"${r['lag']}$ & " + " & ".join(cells) + r" \\")
            lines.append("\\begin{center}\n\\begin{tabular}{c|" + "c" * width + "}\n" + "\n".join(body)
                         + "\n\\end{tabular}\n\\end{center}")
        elif shown:
            lines.append(f"(a table with up to {width} coefficients per row, given in the certificate)")
        if len(rows) > MAX_ROWS:
            lines.append(f"(The table is truncated here: {len(rows) - MAX_ROWS} more rows are in the certificate.)")
    else:
        lines.append("".join(suff))
    lines.append(f"Hence $k(n') = \\#\\{{s : d_s < n'\\}}$ for every $n'$, and $k({n}) = {k}$.")
    # Construction.
    lines.append("")
    if k:
        lines.append(
            f"\\emph{{Explicit construction with $H = {k}$.}} Take the value maps $V_h = L_{{d_h}}$ "
            f"($h = 1, \\dots, {k}$), write $L_d = \\sum_h c_{{d,h}} V_h$ (with $c_{{d_h, h'}} = [h = h']$ and the table "
            f"above), and set $\\alpha^h_{{ij}} = c_{{i-j,h}}$ for $j \\le i$ and $\\alpha^h_{{ij}} = 0$ for $j > i$. "
            f"These coefficients do not depend on the input, and $\\sum_h \\alpha^h_{{ij}} V_h = L_{{i-j}}$ for all $j \\le i$.")
    lines.append("")
    vals = prof["values"]
    shown_vals = ", ".join(map(str, vals[:24])) + (", \\dots" if len(vals) > 24 else "")
    lines.append(f"\\emph{{Profile.}} $k(1), k(2), \\dots = {shown_vals}$, and $k(n) = {prof['eventual']}$ for all "
                 f"$n \\ge {prof['constant_from']}$.")
    lines.append("\\end{proof}")
    return "\n".join(lines) + "\n"


def render(data, *, standalone=False, macros=False, prefix=MACRO_PREFIX):
    """LaTeX for certificate data (a dict, or a :class:`~symssm.certificate.Certificate`).

    Parameters
    ----------
    standalone : bool
        A complete document (compiles with pdflatex) instead of a fragment.
    macros : bool
        Only the ``\\newcommand`` definitions of the certified numbers.
    prefix : str
        Macro name prefix (letters only), default ``Symssm``.
    """
    data = getattr(data, "data", data)
    _check(data)
    if macros:
        return render_macros(data, prefix=prefix)
    if data["kind"] == "head-count":
        body = _head_count_fragment(data)
    else:
        from .gradient.latex import gradient_fragment

        body = gradient_fragment(data, _PREAMBLE, escape_text, tex_number, _shown)
    return render_standalone(body) if standalone else body


to_latex = render


def render_standalone(fragment):
    """Wrap a fragment into a complete article."""
    return ("\\documentclass{article}\n\\usepackage{amsmath,amssymb,amsthm}\n\\begin{document}\n"
            + fragment + "\\end{document}\n")


def render_macros(data, *, prefix=MACRO_PREFIX):
    """``\\newcommand`` definitions of a certificate's numbers, e.g. ``\\SymssmHeadCount``."""
    data = getattr(data, "data", data)
    _check(data)
    if not isinstance(prefix, str) or not re.fullmatch(r"[A-Za-z]{1,40}", prefix):
        raise InputError(f"macro prefix must be 1 to 40 ASCII letters, got {prefix!r}")
    out = [f"% symssm macros ({escape_text(data['generator'])}); input sha256 {data['input_sha256']}"]
    def define(name, value):
        out.append(f"\\newcommand{{\\{prefix}{name}}}{{{value}}}")
    define("SystemName", tex_name(data["system"]["name"]))
    if data["kind"] == "head-count":
        lb = data["lower_bound"]
        define("HeadCount", data["head_count"])
        define("N", data["n"])
        define("HoldsFrom", data["holds_for"]["from"])
        define("HoldsTo", data["holds_for"]["to"] if data["holds_for"]["to"] is not None else "\\infty")
        define("EventualHeadCount", data["profile"]["eventual"])
        define("ConstantFrom", data["profile"]["constant_from"])
        if lb["method"] == "exact":
            define("WitnessDet", tex_number(lb["determinant"]))
        else:
            define("WitnessDet", f"{lb['determinant_mod_p']} \\pmod{{{lb['prime']}}}")
    else:
        from .gradient.latex import gradient_macros

        for name, value in gradient_macros(data, tex_number):
            define(name, value)
    return "\n".join(out) + "\n"


def render_markdown(data):
    """A short Markdown + MathJax summary for Jupyter (``Certificate._repr_markdown_``)."""
    data = getattr(data, "data", data)
    name = data["system"]["name"] or "SSM"
    safe = re.sub(r"[^A-Za-z0-9 ._+-]", "?", name)
    if data["kind"] == "head-count":
        lb = data["lower_bound"]
        k = data["head_count"]
        text = (f"**symssm certificate** for `{safe}`: $k({data['n']}) = {k}$ — exactly {k} head(s) necessary and "
                f"sufficient (for $n$ from {data['holds_for']['from']}"
                + (f" to {data['holds_for']['to']}" if data["holds_for"]["to"] is not None else " on") + ").")
        if lb["method"] == "exact" and 0 < len(lb["minor"]) <= MAX_SHOWN:
            text += f"\n\n$$M = {tex_matrix(lb['minor'])},\\quad \\det M = {tex_number(lb['determinant'])}$$"
        text += "\n\nProfile: $k(1..) = " + ", ".join(map(str, data["profile"]["values"][:24])) + "$."
        return text
    from .gradient.latex import gradient_markdown

    return gradient_markdown(data, safe, tex_number)
