"""The matrices a theorem states, compressed where it helps and fitted to a two-column article's column.

Entries are exact numbers (canonical rational or Gaussian rational strings) or, for families and
layers with parameters, pairs ``[numerator, denominator]`` of polynomial texts.  A matrix is stated

- as ``0``, ``I_8``, ``a_1 I_8`` or ``\\operatorname{diag}(\\dots)`` when it is one;
- as a Kronecker product ``(b_1, \\dots, b_4)^{\\top} \\otimes I_2`` when its blocks are multiples of
  one identity (the per-token matrices of a Mamba-2 head);
- transposed (``B^{\\top}``) when it is tall and narrow, so that it takes two lines instead of eight;
- with its common denominator pulled out (``\\frac{1}{30}(\\dots)``, ``\\frac{1}{t^{2} + 1}(\\dots)``);
- and, when even that is wider than the column, row by row in breakable lists.

Per-token matrices of a layer are stated once when they do not change with the token (a
time-invariant SSM), as ``A_i = a_i I_8`` when every one is a multiple of the identity, and as a
Kronecker product of a matrix's columns when every one is.

Examples
--------
>>> item("A", [["1/2", "0"], ["0", "1/2"]])[1]
'\\\\frac{1}{2} I_{2}'
>>> item("B", [["1"], ["1"], ["1"], ["1"]])[:2]
('B^{\\\\top}', '\\\\begin{pmatrix}1 & 1 & 1 & 1\\\\end{pmatrix}')
>>> item("A", [[["t", "1"], ["0", "1"]], [["0", "1"], ["t", "1"]]])[1]
't I_{2}'
"""

import re
from math import lcm

from .exactsmall import number_text
from .polytex import tex_fraction, tex_polynomial
from .tex import (COLUMN_PT, decimal_rows, display_texts, index_list, inline_list, list_entry, matrix_width,
                  number_width, parse_number, row_line, tex_entry, tex_matrix, tex_number)

__all__ = ["item", "items_block", "per_token", "entry_tex", "is_zero", "tex_width", "system_block", "rows_list",
           "fits_display"]


def _numeric(x):
    return isinstance(x, str)


_INTEGER = re.compile(r"-?[0-9]{1,40}")


def _normal(rows):
    """Rows with constant fractions ``[p, q]`` of integer literals written as exact numbers ``p/q``."""
    from fractions import Fraction

    out = []
    for row in rows:
        new = []
        for x in row:
            if not _numeric(x) and _INTEGER.fullmatch(x[0].replace(" ", "")) and x[1].isdigit():
                q = Fraction(int(x[0].replace(" ", "")), int(x[1]))
                x = str(q.numerator) if q.denominator == 1 else f"{q.numerator}/{q.denominator}"
            new.append(x)
        out.append(new)
    return out


def is_zero(x):
    """Whether an entry is zero."""
    return x == "0" if _numeric(x) else x[0] == "0"


def _key(x):
    return x if _numeric(x) else (x[0], x[1])


def entry_tex(x):
    """An entry as math-mode LaTeX: a number (an exact decimal as that decimal), a polynomial, or ``(p)/(q)``."""
    if _numeric(x):
        return tex_entry(x)
    num, den = x
    if den == "1":
        return tex_polynomial(num)
    return tex_fraction(num, den)


def _factor_tex(x):
    """An entry as a factor before ``I_n``: parenthesised when it is a sum or a fraction."""
    t = entry_tex(x)
    if _numeric(x):
        q, im = parse_number(x)
        if im == 0 and q.denominator != 1:
            return f"\\frac{{{abs(q.numerator)}}}{{{q.denominator}}}" if q > 0 else \
                f"-\\frac{{{abs(q.numerator)}}}{{{q.denominator}}}"
        return f"({t})" if im != 0 else t
    return f"({t})" if re.search(r"[-+/]", t.lstrip("-")) else t


def tex_width(tex):
    """A generous estimate (pt) of the typeset width of inline math ``tex``."""
    t = re.sub(r"\\(?:allowbreak|left|right|,|;|!|quad)\b ?", "", tex)
    t = re.sub(r"[\^_]\{([^{}]*)\}", lambda m: "x" * max(1, int(len(m.group(1)) * 0.7 + 0.5)), t)
    t = re.sub(r"\\mathrm\{i\}", "i", t)
    t = re.sub(r"\\[A-Za-z]+", "xx", t)
    t = t.replace("{", "").replace("}", "")
    return 5.6 * len(t.replace(" ", "")) + 2.5 * t.count(" ")


def _entry_width(x):
    return number_width(x) if _numeric(x) else tex_width(entry_tex(x))


def _scalar_identity(rows):
    n = len(rows)
    if n < 2 or any(len(r) != n for r in rows):
        return None
    d = rows[0][0]
    if is_zero(d):
        return None
    for i in range(n):
        for j in range(n):
            if (i == j and _key(rows[i][j]) != _key(d)) or (i != j and not is_zero(rows[i][j])):
                return None
    return d


def _diagonal(rows):
    n = len(rows)
    return n >= 3 and all(len(r) == n for r in rows) and all(
        is_zero(rows[i][j]) for i in range(n) for j in range(n) if i != j)


def _kron(rows):
    """``(v, "column")`` when rows = v ⊗ I_P (P = columns), ``(v, "row")`` when rows = vᵀ ⊗ I_P (P = rows)."""
    r, c = len(rows), len(rows[0]) if rows else 0
    for P, tall in ((c, True), (r, False)):
        big = r if tall else c
        if P < 2 or big <= P or big % P:
            continue
        v = []
        for k in range(big // P):
            block = [list(row) for row in rows[k * P:(k + 1) * P]] if tall else \
                [row[k * P:(k + 1) * P] for row in rows]
            d = block[0][0]
            ok = all((_key(block[i][j]) == _key(d)) if i == j else is_zero(block[i][j])
                     for i in range(P) for j in range(P))
            if not ok:
                break
            v.append(d)
        else:
            return v, P, "column" if tall else "row"
    return None


def _pair(x):
    """An entry as ``[numerator, denominator]`` text (an exact rational ``p/q`` becomes ``[p, q]``)."""
    if not _numeric(x):
        return x
    num, _, den = x.partition("/")
    return [num, den or "1"]


def _matrix_tex(rows):
    """(LaTeX, width) of a matrix with its common denominator pulled out."""
    if all(_numeric(x) for row in rows for x in row):
        return tex_matrix(rows), matrix_width(rows)
    rows = [[_pair(x) for x in row] for row in rows]
    dens = {x[1] for row in rows for x in row if not is_zero(x)}
    if len(dens) == 1 and dens != {"1"}:
        den = dens.pop()
        inner = [[[x[0], "1"] for x in row] for row in rows]
        tex, width = _matrix_tex(inner)
        d = tex_polynomial(den)
        return f"\\frac{{1}}{{{d}}}{tex}", width + tex_width(d) + 8
    cols = list(zip(*rows))
    body = r" \\ ".join(" & ".join(entry_tex(x) for x in row) for row in rows)
    env = "pmatrix" if len(rows[0]) <= 10 else None
    tex = (f"\\begin{{pmatrix}}{body}\\end{{pmatrix}}" if env else
           "\\left(\\begin{array}{" + "c" * len(rows[0]) + "}" + body + "\\end{array}\\right)")
    return tex, sum(max(_entry_width(x) for x in col) for col in cols) + 10.0 * (len(cols) - 1) + 20.0


def _name_width(name):
    return tex_width(name) + 14.0


def item(name, rows, *, transpose=True):
    """(left side, right side, width in pt) of ``name = matrix``, compressed (see the module); ``transpose``:
    a tall narrow matrix may be stated by its transpose."""
    if not rows or not rows[0]:
        return name, "0", _name_width(name) + 8
    rows = _normal(rows)
    r, c = len(rows), len(rows[0])
    if all(is_zero(x) for row in rows for x in row):
        return name, "0", _name_width(name) + 8
    d = _scalar_identity(rows)
    if d is not None:
        f = _factor_tex(d)
        rhs = f"I_{{{r}}}" if f == "1" else (f"-I_{{{r}}}" if f == "-1" else f"{f} I_{{{r}}}")
        return name, rhs, _name_width(name) + tex_width(rhs)
    if _diagonal(rows):
        decimals = _decimal_diagonal(rows)
        if decimals:
            rhs = "\\operatorname{diag}(" + ", ".join(decimals) + ")"
            return name, rhs, _name_width(name) + sum(4.2 * len(x) + 6 for x in decimals) + 30
        rhs = "\\operatorname{diag}(" + ", ".join(entry_tex(rows[i][i]) for i in range(r)) + ")"
        return name, rhs, _name_width(name) + sum(_entry_width(rows[i][i]) + 8 for i in range(r)) + 30
    kron = _kron(rows)
    if kron is not None and sum(1 for x in kron[0] if not is_zero(x)) >= 2:
        v, P, how = kron
        tex, width = _matrix_tex([v])
        rhs = (f"{tex}^{{\\top}} \\otimes I_{{{P}}}" if how == "column" else f"{tex} \\otimes I_{{{P}}}")
        return name, rhs, _name_width(name) + width + 40
    if transpose and r >= 3 and 2 * c <= r:
        tex, width = _matrix_tex([list(col) for col in zip(*rows)])
        return f"{name}^{{\\top}}", tex, _name_width(name) + 10 + width
    tex, width = _matrix_tex(rows)
    return name, tex, _name_width(name) + width


def fits_display(name, rows, *, transpose=True):
    """Whether ``name = matrix`` fits one display line of the column."""
    return item(name, rows, transpose=transpose)[2] <= COLUMN_PT


def rows_list(rows, end=".", tail=None):
    """A matrix's rows as breakable inline lists, one a line (text mode; the caller says whose rows they are),
    and ``tail``, the text that follows them, in the same ragged-right block."""
    text = _row_list(None, rows, end)
    if tail:
        text = text[:-len("\\par}\n")] + "\n\\par\\noindent " + tail + "\\par}\n"
    return text


def _row_list(lhs, rows, end):
    """A matrix too wide for the column, row by row, in breakable inline lists (a Gaussian rational unbroken)."""
    r = len(rows)
    lines = [f"${lhs}$ has the rows"] if lhs is not None and r > 1 else []
    for i, row in enumerate(rows):
        line = row_line([list_entry(x) if _numeric(x) else entry_tex(x) for x in row], "," if i + 1 < r else end)
        lines.append(line.replace("$(", f"${lhs} = (", 1) if lhs is not None and r == 1 else line)
    return "{\\raggedright\n" + "\n".join(lines) + "\\par}\n"


def _display_entry(x):
    """(LaTeX, width) of an entry in a display: a fraction (a Gaussian one too) stacked when its parts are long."""
    if not _numeric(x):
        t = entry_tex(x)
        return t, tex_width(t)
    q, im = parse_number(x)
    if im != 0:
        den = lcm(q.denominator, im.denominator)
        if den > 1:
            num = number_text((q * den, im * den))
            width = max(number_width(num), 5.0 * len(str(den)))
            return f"\\frac{{{tex_number(num)}}}{{{den}}}", width + 6
    t = tex_entry(x)
    if "/" in t and "\\cdot" not in t and len(t) <= 26:
        sign, body = ("-", t[1:]) if t.startswith("-") else ("", t)
        a, b = body.split("/")
        return f"{sign}\\frac{{{a}}}{{{b}}}", number_width(x) * 0.6 + 8
    return t, number_width(x)


def _decimal_diagonal(rows):
    """A numeric diagonal's entries as exact decimals when they all are short ones and one looks decimal (a
    trained layer's ``0.8812``), else None."""
    diagonal = [rows[i][i] for i in range(len(rows))]
    if not all(_numeric(x) for x in diagonal):
        return None
    decimals = decimal_rows([diagonal])
    return decimals[0] if decimals else None


def _diagonal_display(name, rows, end, after=()):
    """A diagonal matrix too wide for one line: ``name = diag(d_1, ..., d_N)`` over as many display lines as
    its entries need, and the displayed matrices ``after`` it ([(text, width)]) in the same display (text mode
    in, text mode out)."""
    decimals = _decimal_diagonal(rows)
    entries = ([(x, 4.2 * len(x) + 2) for x in decimals] if decimals else
               [_display_entry(rows[i][i]) for i in range(len(rows))])
    lines, current, width = [], [], _name_width(name) + 40
    for tex, w in entries:
        if current and width + w + 10 > COLUMN_PT:
            lines.append(current)
            current, width = [], 20.0
        current.append(tex)
        width += w + 10
    lines.append(current)
    body = ",\\\\\n\\quad ".join(", ".join(line) for line in lines)
    left, right = ("\\biggl(", "\\biggr)") if "\\frac" in body else ("(", ")")
    head = f"{name} = \\operatorname{{diag}}{left}{body}{right}"
    if not after:
        return f"\\begin{{gather*}}\n{head}{end}\n\\end{{gather*}}\n"
    packed, current, width = [], [], 0.0  # the matrices displayed after it join its display, packed into lines
    for tex, w in after:
        if current and width + 14 + w > COLUMN_PT:
            packed.append(current)
            current, width = [], 0.0
        current.append(tex)
        width += w + (14 if len(current) > 1 else 0)
    packed.append(current)
    rest = ",\\\\\n".join(",\\quad ".join(line) for line in packed)
    return f"\\begin{{gather*}}\n{head},\\\\\n{rest}{end}\n\\end{{gather*}}\n"


def items_block(named, *, end=".", transpose=True):
    """Text-mode LaTeX stating the matrices ``named`` = [(name, rows)] in their order: consecutive ones that fit
    the column in one display packed into lines, a diagonal one too wide for a line over several display lines,
    and any other matrix too wide for the column row by row."""
    parts = []
    for name, rows in named:
        lhs, rhs, width = item(name, rows, transpose=transpose)
        if width <= COLUMN_PT:
            if parts and parts[-1][0] == "shown":
                parts[-1][1].append((f"{lhs} = {rhs}", width))
            else:
                parts.append(("shown", [(f"{lhs} = {rhs}", width)]))
            continue
        rows = _normal(rows)
        if _diagonal(rows) or (len(rows) == 2 and _diagonal_2(rows)):
            parts.append(("diagonal", name, rows))
            continue
        if transpose and len(rows) >= 3 and 2 * len(rows[0]) <= len(rows):
            name, rows = f"{name}^{{\\top}}", [list(col) for col in zip(*rows)]
        parts.append(("listed", name, rows))
    out, k = "", 0
    while k < len(parts):
        part = parts[k]
        if part[0] == "diagonal" and k + 1 < len(parts) and parts[k + 1][0] == "shown":
            k += 1
            out += _diagonal_display(part[1], part[2], end if k + 1 == len(parts) else ",", parts[k][1])
        elif part[0] == "shown":
            out += display_texts([t for t, _ in part[1]], [w for _, w in part[1]], end=end if k + 1 == len(parts)
                                 else ",")
        elif part[0] == "diagonal":
            out += _diagonal_display(part[1], part[2], end if k + 1 == len(parts) else ",")
        else:
            out += _row_list(part[1], part[2], end if k + 1 == len(parts) else ",")
        k += 1
    return out


def _diagonal_2(rows):
    return all(len(r) == 2 for r in rows) and is_zero(rows[0][1]) and is_zero(rows[1][0])


def per_token(letter, mats, *, parameter_names=()):
    """How a layer's per-token matrices ``mats`` (token 1, 2, ...) are stated.

    Returns ``(sentence, named)``: a phrase in math saying how ``letter_i`` depends on ``i`` (or "")
    and the ``(name, rows)`` pairs to display.
    """
    n = len(mats)
    if n == 0:
        return "", []
    mats = [_normal(m) for m in mats]
    if all([[_key(x) for x in row] for row in m] == [[_key(x) for x in row] for row in mats[0]] for m in mats):
        return f"${letter}_i = {letter}$", [(letter, mats[0])]
    scalars = [_scalar_identity(m) for m in mats]
    size = len(mats[0])
    if all(s is not None for s in scalars) and all(len(m) == size for m in mats):
        low = letter.lower()
        texts = [entry_tex(s) for s in scalars]
        own = [f"{low}_{{{i + 1}}}" for i in range(n)]
        if texts == own:
            return f"${letter}_i = {low}_i I_{{{size}}}$", []
        return (f"${letter}_i = {low}_i I_{{{size}}}$ with $({index_list(lambda t: f'{low}_{t}', 1, n)}) = "
                f"({inline_list(texts)})$"), []
    krons = [_kron(m) for m in mats]
    if all(k is not None for k in krons) and len({(k[1], k[2], len(k[0])) for k in krons}) == 1:
        low = letter.lower()
        P, how = krons[0][1], krons[0][2]
        columns = [list(col) for col in zip(*[k[0] for k in krons])]
        phrase = (f"${letter}_i = {low}_i \\otimes I_{{{P}}}$" if how == "column" else
                  f"${letter}_i = {low}_i^{{\\top}} \\otimes I_{{{P}}}$")
        return phrase + f", the ${low}_i$ being the columns of ${low}$", [(low, columns)]
    return "", [(f"{letter}_{{{i + 1}}}", m) for i, m in enumerate(mats)]


def system_block(s, sha256=None, *, end="."):
    """The system's matrices A, B, C (and D) in one display, compressed; by their shape (and the hash of the
    certificate) when one is larger than :data:`~symssm.render.tex.MAX_SHOWN`."""
    from .tex import MAX_SHOWN, system_block as by_shape

    names = ["A", "B", "C"] + (["D"] if s.get("D") is not None else [])
    if any(len(s[n]) > MAX_SHOWN or len(s[n][0]) > MAX_SHOWN for n in names):
        return by_shape(s, sha256, end=end)
    return items_block([(n, s[n]) for n in names], end=end)
