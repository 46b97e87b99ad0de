"""LaTeX primitives: escaping user text, typesetting exact numbers and matrices.

Text from a certificate (a system's name, the generator string) is escaped, never passed
through as LaTeX; numbers are re-validated as canonical rationals before they are typeset.

Examples
--------
>>> escape_text("50% of $x_1 & y^2 {ok} \\\\ #~")
'50\\\\% of \\\\$x\\\\_1 \\\\& y\\\\textasciicircum{}2 \\\\{ok\\\\} \\\\textbackslash{} \\\\#\\\\textasciitilde{}'
>>> tex_number("-3/4")
'-\\\\tfrac{3}{4}'
"""

import re

from ..errors import CertificateError

__all__ = ["escape_text", "tex_name", "tex_number", "tex_matrix", "shown", "display_name", "system_block",
           "PREAMBLE", "MAX_SHOWN", "MAX_ROWS", "MAX_DIGITS_SHOWN"]

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


def shown(name, rows):
    r, c = len(rows), len(rows[0]) if rows else 0
    if r <= MAX_SHOWN and c <= MAX_SHOWN:
        return f"{name} = {tex_matrix(rows)}"
    return f"{name} \\in \\mathbb{{Q}}^{{{r}\\times {c}}}\\ \\text{{(entries in the certificate)}}"


PREAMBLE = (
    "\\ifcsname symssmtheorem\\endcsname\\else\\newtheorem{symssmtheorem}{Certified result}\\fi\n"
    "\\providecommand{\\symssmspan}{\\operatorname{span}}\n"
)


def system_block(s):
    parts = [shown("A", s["A"]), shown("B", s["B"]), shown("C", s["C"])]
    if s["D"] is not None:
        parts.append(shown("D", s["D"]))
    return "\\[\n" + ",\\quad\n".join(parts) + ".\n\\]\n"


def display_name(s):
    return tex_name(s["name"]) if s["name"] else "under consideration"


