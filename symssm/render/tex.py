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
           "matrix_block", "matrix_width", "number_width", "inline_list", "tex_hash", "COLUMN_PT",
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


def tex_name(text, *, breakable=False):
    """A name typeset literally in typewriter type: specials become ``\\char`` codes.

    Works in the default OT1 encoding (cmtt has the ASCII glyphs), so the PDF shows and
    pdftotext extracts exactly the characters of the name; non-ASCII becomes ``[U+XXXX]``.

    Examples
    --------
    >>> print(tex_name("a_b"))
    \\texttt{a\\char95{}b}
    """
    out = []
    for i, ch in enumerate(str(text)):
        if breakable and i and i % 16 == 0:
            out.append("\\allowbreak{}")
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


_GAUSSIAN = re.compile(r"(-?[0-9]+(?:/[0-9]+)?)?([+-]?[0-9]+(?:/[0-9]+)?)i")


def tex_number(text):
    """A canonical rational (or Gaussian rational) string as math-mode LaTeX (``\\tfrac`` for fractions)."""
    g = _GAUSSIAN.fullmatch(text) if isinstance(text, str) else None
    if g:
        real, imag = g.groups()
        im = tex_number(imag.lstrip("+"))
        return (tex_number(real) + (" - " + im[1:] if im.startswith("-") else " + " + im) if real else im) + "\\,i"
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
    """``name = (matrix)`` in math mode, or its size when it is larger than :data:`MAX_SHOWN`."""
    r, c = len(rows), len(rows[0]) if rows else 0
    if r <= MAX_SHOWN and c <= MAX_SHOWN:
        return f"{name} = {tex_matrix(rows)}"
    return f"{name} \\in \\mathbb{{Q}}^{{{r}\\times {c}}}\\ \\text{{(entries in the certificate)}}"


#: Width budget (pt) of one displayed line: a two-column article's column is about 229 to 240 pt.
COLUMN_PT = 215


def number_width(text):
    """A generous estimate (pt) of the typeset width of :func:`tex_number` of ``text``."""
    sign = 7.8 if text.startswith("-") else 0.0
    body = text.lstrip("-")
    if "/" in body:
        num, den = body.split("/")
        digits = max(min(len(num), 20), min(len(den), 20))
        extra = 60.0 if max(len(num), len(den)) > MAX_DIGITS_SHOWN else 0.0
        return sign + 3.6 * digits + 2.0 + extra
    extra = 60.0 if len(body) > MAX_DIGITS_SHOWN else 0.0
    return sign + 5.0 * min(len(body), 20) + extra


def matrix_width(rows):
    """Estimated width (pt) of :func:`tex_matrix` of ``rows``."""
    if not rows or not rows[0]:
        return 0.0
    cols = list(zip(*rows))
    return sum(max(number_width(x) for x in col) for col in cols) + 10.0 * (len(cols) - 1) + 22.0


def inline_list(items):
    """Items joined by commas at which a line may break (for inline math)."""
    return ",\\allowbreak ".join(str(x) for x in items)


def tex_hash(hex_text):
    """A SHA-256 in typewriter type, breakable every 16 characters."""
    return "\\texttt{" + "\\allowbreak ".join(hex_text[i:i + 16] for i in range(0, len(hex_text), 16)) + "}"


def matrix_block(name, rows, *, sha256=None, suffix=""):
    """A displayed matrix that fits a two-column article's column (text mode in, text mode out).

    Small matrices are displayed as ``name = (...)``; wider ones are listed row by row with
    break points after every entry; matrices larger than :data:`MAX_SHOWN` are given by their
    size and, with ``sha256``, the hash of the system they belong to (the entries are in the
    certificate).
    """
    r, c = len(rows), len(rows[0]) if rows else 0
    if r > MAX_SHOWN or c > MAX_SHOWN:
        where = f" (system sha256 {tex_hash(sha256)})" if sha256 else ""
        return (f"${name} \\in \\mathbb{{Q}}^{{{r}\\times {c}}}$, its entries given in the certificate{where}"
                f"{suffix}\n")
    if matrix_width(rows) + 12 * len(name) + 20 <= COLUMN_PT:
        return f"\\[\n{name} = {tex_matrix(rows)}{suffix}\n\\]\n"
    lines = [f"${name} \\in \\mathbb{{Q}}^{{{r}\\times {c}}}$ has the rows"]
    for i, row in enumerate(rows):
        end = "," if i + 1 < r else suffix
        lines.append(f"\\par\\noindent\\hspace*{{1em}}$({inline_list(tex_number(x) for x in row)})${end}")
    return "{\\raggedright\n" + "\n".join(lines) + "\\par}\n"


PREAMBLE = (
    "\\ifcsname symssmtheorem\\endcsname\\else\\newtheorem{symssmtheorem}{Certified result}\\fi\n"
    "\\providecommand{\\symssmspan}{\\operatorname{span}}\n"
)


def system_block(s, sha256=None):
    """The system's matrices, each as a :func:`matrix_block`."""
    names = ["A", "B", "C"] + (["D"] if s["D"] is not None else [])
    return "".join(matrix_block(n, s[n], sha256=sha256, suffix="," if i + 1 < len(names) else ".")
                   for i, n in enumerate(names))


def display_name(s):
    """The system's name for the theorem's title (typewriter, breakable), or a neutral phrase."""
    return tex_name(s["name"], breakable=True) if s["name"] else "under consideration"


