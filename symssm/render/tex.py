"""LaTeX primitives: escaping user text, typesetting exact numbers and matrices, fitting a column.

Text from a certificate (a system's name, the generator string) is escaped, never passed
through as LaTeX; numbers are re-validated as canonical rationals (or Gaussian rationals) before
they are typeset.

Numbers are set so that no line collides with its neighbours: a matrix of fractions is shown as
a scale factor times an integer matrix (``\\frac{1}{12}``, or ``2^{-5}`` for dyadic entries), a
fraction in running text or in a table is written ``p/q`` (large dyadic ones ``p \\cdot 2^{-e}``), the imaginary unit is an upright ``\\mathrm{i}``, and large counts read ``10^{18}``.

Examples
--------
>>> escape_text("50% of $x_1 & y^2 {ok} \\\\ #~")
'50\\\\% of \\\\$x\\\\_1 \\\\& y\\\\textasciicircum{}2 \\\\{ok\\\\} \\\\textbackslash{} \\\\#\\\\textasciitilde{}'
>>> tex_number("-3/4")
'-3/4'
>>> tex_number("-355/113")
'-355/113'
>>> tex_number("1/2+1/3i")
'(3 + 2\\\\,\\\\mathrm{i})/6'
>>> tex_count(10**18), tex_count(3 * 10**9), tex_count(1234567)
('10^{18}', '3 \\\\cdot 10^{9}', '1\\\\,234\\\\,567')
>>> tex_matrix([["1/2", "0"], ["0", "3/4"]])
'\\\\frac{1}{4}\\\\begin{pmatrix}2 & 0 \\\\\\\\ 0 & 3\\\\end{pmatrix}'
>>> tex_matrix([["1/128", "3/256"]])
'2^{-8}\\\\begin{pmatrix}2 & 3\\\\end{pmatrix}'
"""

import re
from fractions import Fraction
from math import lcm

from ..errors import CertificateError
from ..formats.rationals import int_from_digits, int_to_text

__all__ = ["escape_text", "tex_name", "system_name", "index_list", "tex_approx", "tex_number", "tex_count", "tex_matrix", "display_name", "system_block",
           "matrix_block", "matrix_width", "number_width", "inline_list", "tex_hash", "display", "display_texts", "fits",
           "parse_number", "tex_decimal", "tex_value", "row_list", "row_line", "list_entry", "tex_entry", "exact_decimal",
           "entries_pointer",
           "decimal_rows", "COLUMN_PT", "WIDE_PT", "MAX_SHOWN", "MAX_ROWS",
           "MAX_DIGITS_SHOWN"]

#: Largest matrix dimension typeset entry by entry.
MAX_SHOWN = 12
#: Most coefficient-table rows typeset before referring to the certificate.
MAX_ROWS = 12
#: Numbers with more digits are abbreviated (the exact value stays in the certificate).
MAX_DIGITS_SHOWN = 40
#: Width budget (pt) of one displayed line: a two-column article's column is about 229 to 240 pt.
COLUMN_PT = 215
#: Widest line worth a one-line alternative for single-column hosts (``\\columnwidth`` decides).
WIDE_PT = 440

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
    breakable = breakable and len(str(text)) > _LONGEST_UNBROKEN  # a shorter name fits a column whole
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


#: Functions a family's name may hold, typeset as operators (``\\arctan``).
_FUNCTIONS = {"arctan", "arcsin", "arccos", "sin", "cos", "tan", "tanh", "exp", "log", "ln", "sqrt"}
_MATH_OPERATORS = {"=", "+", "-", "*", "/", "^", "<", ">", "<=", ">="}
#: A token of a name longer than this may break every 16 characters (else it could not fit a column).
_LONGEST_UNBROKEN = 24


def _math_word(word, parameters):
    if word in _FUNCTIONS:
        return "\\" + word if word != "sqrt" else "\\sqrt"
    if word in _MATH_OPERATORS:
        return {"*": "\\cdot", "<=": "\\le", ">=": "\\ge"}.get(word, word)
    if re.fullmatch(r"[0-9]+", word):
        return word
    if word in parameters or re.fullmatch(r"[A-Za-z]", word):
        from .polytex import tex_parameter
        return tex_parameter(word)
    return None


def _text_token(token):
    """One token of a name (no space, no hyphen): kept whole unless it is too long to fit a column.

    A token with a character roman type has no glyph for (``_ ~ ^ { } $ % # & \\ < > |``) is set in
    typewriter type with ``\\char`` codes, so the PDF shows exactly that character.
    """
    if not re.fullmatch(r"[A-Za-z0-9.,;:()+=/!?'*\[\]]*", token):
        return tex_name(token, breakable=len(token) > _LONGEST_UNBROKEN)
    if len(token) <= _LONGEST_UNBROKEN:
        return "\\mbox{" + escape_text(token) + "}"
    return "\\allowbreak{}".join("\\mbox{" + escape_text(token[i:i + 16]) + "}" for i in range(0, len(token), 16))


def _text_words(words):
    out = []
    for word in words:
        if re.fullmatch(r"[A-Za-z]{1,%d}[,;.:]?" % _LONGEST_UNBROKEN, word):  # a plain word: TeX may hyphenate it as any word of the text
            out.append(escape_text(word))
        else:  # an identifier such as N4 or hippo-legs-N4: whole tokens, a break only after a hyphen
            out.append("-\\allowbreak{}".join(_text_token(t) if t else "" for t in word.split("-")))
    return " ".join(out)


def system_name(text, *, parameters=()):
    """A system's or family's name in roman type, breakable only at its spaces and after its hyphens.

    A plain word is set as any word of the text; in an identifier (a word with a digit, a hyphen or a
    special character) each token between hyphens is kept whole (an ``\\mbox``, never hyphenated) and a line
    may break after each hyphen (``\\allowbreak``: TeX does not break after a hyphen that precedes a box);
    a run of words that is mathematics (a parameter, a function such as ``arctan``, ``N = 3``) is set
    in math mode.  Special characters are escaped; a token of more than 24 characters may break every
    16 characters (no column holds it whole).

    Examples
    --------
    >>> print(system_name("hippo-legs-N4"))
    \\mbox{hippo}-\\allowbreak{}\\mbox{legs}-\\allowbreak{}\\mbox{N4}
    >>> print(system_name("rotation by 2 arctan t", parameters=["t"]))
    rotation by $2 \\arctan t$
    >>> print(system_name("diagonal, N = 3"))
    diagonal, $N = 3$
    """
    parameters = set(parameters)
    words = str(text).split(" ")
    out, i = [], 0
    while i < len(words):
        j, core = i, []
        while j < len(words):
            word = words[j].rstrip(",;.:")
            tail = words[j][len(word):]
            tex = _math_word(word, parameters) if word else None
            if tex is None:
                break
            core.append(tex)
            j += 1
            if tail:
                break
        run = words[i:j]
        mathy = any(w.rstrip(",;.:") in parameters or w.rstrip(",;.:") in _FUNCTIONS or w.rstrip(",;.:") == "="
                    for w in run)
        if run and mathy and not (len(run) == 1 and run[0].rstrip(",;.:") in _MATH_OPERATORS):
            last = run[-1]
            tail = last[len(last.rstrip(",;.:")):]
            out.append("$" + " ".join(core) + "$" + escape_text(tail))
            i = j
        else:
            out.append(_text_words([words[i]]))
            i += 1
    return " ".join(out)


def index_list(term, first, last):
    """``term(first), ..., term(last)`` with ``\\dots`` only when it hides at least one term (four or more).

    ``term`` receives the index as a subscript: ``"1"``, or braced (``"{12}"``) when it has several digits
    and for the last term after ``\\dots``.

    Examples
    --------
    >>> index_list(lambda t: f"d_{t}", 1, 2), index_list(str, 1, 3), index_list(lambda t: f"d_{t}", 1, 5)
    ('d_1, d_2', '1, 2, 3', 'd_1, \\\\dots, d_{5}')
    """
    def subscript(i, braced=False):
        return f"{{{i}}}" if braced or i > 9 or i < 0 else str(i)

    if last - first < 3:
        return ", ".join(term(subscript(i)) for i in range(first, last + 1))
    return f"{term(subscript(first))}, \\dots, {term(subscript(last, True))}"


def tex_approx(text, *, digits=3):
    """A rational rounded to ``digits`` significant digits (half away from zero), by integer arithmetic.

    For showing a magnitude beside an exact value (``d_1 \\approx 0.0494``); never a bound.

    Examples
    --------
    >>> tex_approx("13267859923/268435456"), tex_approx("-1/3"), tex_approx("123456789"), tex_approx("1/20000")
    ('49.4', '-0.333', '1.23 \\\\cdot 10^{8}', '5 \\\\cdot 10^{-5}')
    """
    q, _ = parse_number(text)
    return _decimal_text(q, digits, lambda scaled: (2 * scaled.numerator + scaled.denominator)
                         // (2 * scaled.denominator))


def _decimal_text(q, digits, rounded):
    """``q`` with ``digits`` significant digits in TeX; ``rounded(scaled)`` turns the positive rational mantissa
    ``|q| / 10^(e - digits + 1)`` into an integer (the rounding rule is the caller's)."""
    if q == 0:
        return "0"
    a = abs(q)
    e = (a.numerator.bit_length() - a.denominator.bit_length()) * 3 // 10
    while a >= Fraction(10) ** (e + 1):
        e += 1
    while a < Fraction(10) ** e:
        e -= 1
    m = rounded(a / Fraction(10) ** (e - digits + 1))
    if m >= 10 ** digits:
        m //= 10
        e += 1
    mant = int_to_text(m)
    if -4 <= e < 0:
        body = "0." + "0" * (-e - 1) + mant.rstrip("0")
    elif 0 <= e < digits:
        frac = mant[e + 1:].rstrip("0")
        body = mant[:e + 1] + ("." + frac if frac else "")
    else:
        frac = mant[1:].rstrip("0")
        body = mant[0] + ("." + frac if frac else "") + f" \\cdot 10^{{{e}}}"
    return ("-" if q < 0 else "") + body


_RATIONAL = re.compile(r"-?[0-9]+(/[0-9]+)?")
_GAUSSIAN = re.compile(r"(-?[0-9]+(?:/[0-9]+)?)?([+-]?[0-9]+(?:/[0-9]+)?)i")


def parse_number(text):
    """``(real, imag)`` Fractions of a canonical rational or Gaussian rational string.

    Raises
    ------
    CertificateError
        If ``text`` is not such a string (not reachable for verified data).
    """
    if isinstance(text, str):
        if _RATIONAL.fullmatch(text):
            return _fraction(text), Fraction(0)
        g = _GAUSSIAN.fullmatch(text)
        if g:
            return _fraction(g.group(1) or "0"), _fraction(g.group(2))
    raise CertificateError(f"not a rational in the certificate: {str(text)[:40]!r}")


def _fraction(text):
    num, _, den = text.lstrip("+").partition("/")
    return Fraction(int_from_digits(num), int_from_digits(den) if den else 1)


def _digits(s):
    if len(s) <= MAX_DIGITS_SHOWN:
        return s
    return f"{s[:12]}\\ldots{s[-6:]}\\ (\\text{{{len(s)} digits}})"


def _tiny(q):
    return abs(q.numerator) < 100 and q.denominator < 100


def _dyadic(q, num):
    """A large dyadic fraction is written ``p \\cdot 2^{-e}``: its denominator is 2^10 or more, its numerator long."""
    return q.denominator >= 1024 and q.denominator & (q.denominator - 1) == 0 and len(num) > 3


def _rational(q, *, display=False):
    sign = "-" if q < 0 else ""
    num, den = int_to_text(abs(q.numerator)), int_to_text(q.denominator)
    if den == "1":
        return sign + _digits(num)
    if _dyadic(q, num):
        return f"{sign}{_digits(num)} \\cdot 2^{{-{q.denominator.bit_length() - 1}}}"
    if display and len(num) <= 12 and len(den) <= 12:
        return f"{sign}\\frac{{{num}}}{{{den}}}"
    brk = "\\allowbreak " if len(num) + len(den) > 12 else ""
    return f"{sign}{_digits(num)}/{brk}{_digits(den)}"


_I = "\\mathrm{i}"


def _gaussian(re_, im, *, display=False):
    if im == 0:
        return _rational(re_, display=display)
    den = lcm(re_.denominator, im.denominator)
    if den > 1 and not (_tiny(re_) and _tiny(im) and re_ == 0):
        a, b = re_ * den, im * den
        inner = _gaussian(a, b)
        return f"({inner})/{den}" if re_ != 0 or b not in (1, -1) else f"{inner}/{den}"
    mag = abs(im)
    unit = _I if mag == 1 else _rational(mag) + "\\," + _I
    if re_ == 0:
        return ("-" if im < 0 else "") + unit
    return _rational(re_) + (" - " if im < 0 else " + ") + unit


def tex_number(text, *, display=False):
    """A canonical rational (or Gaussian rational) string as math-mode LaTeX.

    Integers are written as they are (abbreviated beyond :data:`MAX_DIGITS_SHOWN` digits),
    fractions ``p/q`` (``\\frac`` up to 12 digits with ``display``), the dyadic ones ``p \\cdot 2^{-e}``.
    """
    re_, im = parse_number(text)
    return _gaussian(re_, im, display=display)


def tex_count(value):
    """A nonnegative integer such as a sequence length: ``10^{18}``, ``3 \\cdot 10^{9}``, ``1\\,234\\,567``."""
    value = int(value)
    s = int_to_text(value)
    if len(s) <= 6:
        return s
    stripped = s.rstrip("0")
    zeros = len(s) - len(stripped)
    if zeros >= 6:
        return "10^{" + str(zeros) + "}" if stripped == "1" else f"{_digits(stripped)} \\cdot 10^{{{zeros}}}"
    if value & (value - 1) == 0:
        return f"2^{{{value.bit_length() - 1}}}"
    if len(s) > MAX_DIGITS_SHOWN:
        return _digits(s)
    head = len(s) % 3 or 3
    groups = [s[:head]] + [s[i:i + 3] for i in range(head, len(s), 3)]
    return "\\,".join(groups)


def number_width(text):
    """A generous estimate (pt) of the typeset width of :func:`tex_number` of ``text``."""
    re_, im = parse_number(text)
    if im != 0:
        den = lcm(re_.denominator, im.denominator)
        return (_rational_width(re_ * den if den > 1 else re_) + _rational_width(im * den if den > 1 else im)
                + 24.0 + (5.0 * min(len(int_to_text(den)), 45) + 12.0 if den > 1 else 0.0))
    return _rational_width(re_)


def _rational_width(q):
    sign = 7.8 if q < 0 else 0.0
    num, den = int_to_text(abs(q.numerator)), int_to_text(q.denominator)
    if den == "1":
        return sign + (5.0 * len(num) if len(num) <= MAX_DIGITS_SHOWN else 160.0)
    if _dyadic(q, num):
        return sign + 5.0 * min(len(num), MAX_DIGITS_SHOWN) + 30.0
    part = [5.0 * len(x) if len(x) <= MAX_DIGITS_SHOWN else 160.0 for x in (num, den)]
    return sign + part[0] + part[1] + 5.0


def _scale(rows):
    """(scale LaTeX or "", integer-text rows): rows = scale * integer rows, the common denominator pulled out."""
    nums = [[parse_number(x) for x in row] for row in rows]
    den = 1
    for row in nums:
        for a, b in row:
            den = lcm(den, a.denominator, b.denominator)
    if den == 1:
        return "", rows
    ints = [[_int_text(a * den, b * den) for a, b in row] for row in nums]
    if den >= 64 and den & (den - 1) == 0:
        return f"2^{{-{den.bit_length() - 1}}}", ints
    return f"\\frac{{1}}{{{den}}}", ints


def _int_text(a, b):
    a, b = int(a), int(b)
    if b == 0:
        return int_to_text(a)
    return (int_to_text(a) if a else "") + ("+" if b > 0 and a else "") + int_to_text(b) + "i"


def tex_matrix(rows):
    """A matrix of exact numbers: its common denominator pulled out (or, when its fractions are short exact decimals
    of decimal-looking denominators, those decimals), then ``pmatrix`` (``array`` beyond 10 columns).

    Examples
    --------
    >>> tex_matrix([["1", "0"], ["-2", "1"]])
    '\\\\begin{pmatrix}1 & 0 \\\\\\\\ -2 & 1\\\\end{pmatrix}'
    """
    if not rows or not rows[0]:
        return r"\begin{pmatrix}\end{pmatrix}"
    decimals = decimal_rows(rows)
    scale, ints = ("", decimals) if decimals else _scale(rows)
    body = r" \\ ".join(" & ".join(x if decimals else tex_number(x) for x in row) for row in ints)
    if len(rows[0]) <= 10:
        inner = r"\begin{pmatrix}" + body + r"\end{pmatrix}"
    else:
        inner = r"\left(\begin{array}{" + "c" * len(rows[0]) + "}" + body + r"\end{array}\right)"
    return scale + inner


def decimal_rows(rows):
    """The rows as exact decimals when every non-integer entry is a short one and one of them looks decimal
    (:func:`exact_decimal`), else None.

    Examples
    --------
    >>> decimal_rows([["2203/2500", "1/2"], ["0", "1"]]), decimal_rows([["1/2", "1/3"]])
    ([['0.8812', '0.5'], ['0', '1']], None)
    """
    out, any_decimal = [], False
    for row in rows:
        new = []
        for x in row:
            q, im = parse_number(x)
            if im != 0:
                return None
            if q.denominator == 1:
                new.append(tex_number(x))
                continue
            dec = exact_decimal(q, decimal_looking=False)
            if dec is None:
                return None
            new.append(dec)
            any_decimal = any_decimal or exact_decimal(q) is not None
        out.append(new)
    return out if any_decimal else None


def matrix_width(rows):
    """Estimated width (pt) of :func:`tex_matrix` of ``rows``."""
    if not rows or not rows[0]:
        return 0.0
    decimals = decimal_rows(rows)
    if decimals:
        cols = list(zip(*decimals))
        return sum(max(5.0 * len(x) + 2.0 for x in col) for col in cols) + 10.0 * (len(cols) - 1) + 20.0
    scale, ints = _scale(rows)
    cols = list(zip(*ints))
    extra = 0.0 if not scale else 8.0 + 5.0 * len(re.sub(r"[^0-9]", "", scale))
    return sum(max(number_width(x) for x in col) for col in cols) + 10.0 * (len(cols) - 1) + 20.0 + extra


def inline_list(items):
    """Items joined by commas at which a line may break (for inline math)."""
    return ",\\allowbreak ".join(str(x) for x in items)


def tex_hash(hex_text):
    """A SHA-256 in typewriter type, breakable every 16 characters."""
    return "\\texttt{" + "\\allowbreak ".join(hex_text[i:i + 16] for i in range(0, len(hex_text), 16)) + "}"


def entries_pointer(sha256):
    """The sentence that points to the certificate for entries too long to print: a paragraph of its own, ragged
    right (a line of the hash's unbreakable pieces has no space to stretch).

    Examples
    --------
    >>> print(entries_pointer("ab" * 32)[:55])
    {\\raggedright The entries are given in the certificate
    """
    return f"{{\\raggedright The entries are given in the certificate (sha256 {tex_hash(sha256)}).\\par}}"


def _name_width(name):
    return 6.5 * len(re.sub(r"\\[A-Za-z]+|[{}_^ ]", "", name)) + 4.0 * name.count("\\top")


def fits(rows, name=""):
    """True if ``name = (matrix)`` fits one line of a two-column article's column."""
    return matrix_width(rows) + _name_width(name) + 16 <= COLUMN_PT


def is_diagonal(rows):
    """A square matrix of size at least 3 whose off-diagonal entries are all zero (written ``diag(...)``)."""
    n = len(rows)
    return n >= 3 and all(len(r) == n for r in rows) and all(
        rows[i][j] == "0" for i in range(n) for j in range(n) if i != j)


def _scalar_identity(rows):
    """``c`` when the square matrix (size at least 2) is ``c I``, ``c`` nonzero, else None."""
    n = len(rows)
    if n < 2 or any(len(r) != n for r in rows) or rows[0][0] == "0":
        return None
    ok = all(rows[i][j] == (rows[0][0] if i == j else "0") for i in range(n) for j in range(n))
    return rows[0][0] if ok else None


def _identity_tex(rows):
    """``I_{n}``, ``-I_{n}`` or ``c I_{n}`` for a scalar multiple of the identity, else None (as the theorems write
    every identity)."""
    c = _scalar_identity(rows)
    if c is None:
        return None
    n = len(rows)
    if c in ("1", "-1"):
        return f"{c[:-1]}I_{{{n}}}"
    q, im = parse_number(c)
    if im == 0 and q.denominator != 1 and exact_decimal(q) is None:
        return f"{'-' if q < 0 else ''}\\frac{{{abs(q.numerator)}}}{{{q.denominator}}} I_{{{n}}}"
    t = tex_entry(c)
    return f"({t}) I_{{{n}}}" if re.search(r"[-+/]", t.lstrip("-")) else f"{t} I_{{{n}}}"


def _item_tex(rows):
    identity = _identity_tex(rows)
    if identity is not None:
        return identity
    if is_diagonal(rows):
        return "\\operatorname{diag}(" + ", ".join(tex_number(rows[i][i]) for i in range(len(rows))) + ")"
    return tex_matrix(rows)


def _item_width(name, rows):
    identity = _identity_tex(rows)
    if identity is not None:
        return 6.0 * len(identity) + _name_width(name) + 16
    if is_diagonal(rows):
        return sum(number_width(rows[i][i]) + 8.0 for i in range(len(rows))) + 30.0 + _name_width(name) + 16
    return matrix_width(rows) + _name_width(name) + 16


def display(items, *, end="."):
    """One display of ``(name, rows)`` matrices, packed into lines that fit the column.

    All items on one line when they fit :data:`COLUMN_PT`; otherwise a ``gather*`` packs them
    greedily, and, when one line would fit a wider host, ``\\columnwidth`` chooses between the two
    layouts when the document is typeset.  Text mode in, text mode out.
    """
    return display_texts([f"{name} = {_item_tex(rows)}" for name, rows in items],
                         [_item_width(name, rows) for name, rows in items], end=end)


def display_texts(texts, widths, *, end="."):
    """:func:`display` of ready math texts with their estimated widths (pt)."""
    def joined(group):
        return ",\\quad ".join(texts[i] for i in group)

    total = sum(widths) + 14 * (len(texts) - 1)
    one_line = "\\[\n" + joined(range(len(texts))) + end + "\n\\]\n"
    if total <= COLUMN_PT:
        return one_line
    lines, current, width = [], [], 0.0
    for i, w in enumerate(widths):
        if current and width + 14 + w > COLUMN_PT:
            lines.append(current)
            current, width = [], 0.0
        current.append(i)
        width += w + (14 if len(current) > 1 else 0)
    lines.append(current)
    stacked = ("\\begin{gather*}\n" + ",\\\\\n".join(joined(g) for g in lines) + end + "\n\\end{gather*}\n")
    if total <= WIDE_PT:
        return f"\\ifdim\\columnwidth<{int(total) + 20}pt\n{stacked}\\else\n{one_line}\\fi\n"
    return stacked


def matrix_block(name, rows, *, sha256=None, suffix=""):
    """A matrix that fits a two-column article's column (text mode in, text mode out).

    Small matrices are displayed as ``name = (...)`` with the common denominator pulled out;
    wider ones are listed row by row with break points after every entry; matrices larger than
    :data:`MAX_SHOWN` are given by their size and, with ``sha256``, the hash of the certificate
    they belong to.
    """
    r, c = len(rows), len(rows[0]) if rows else 0
    if r > MAX_SHOWN or c > MAX_SHOWN:
        where = f" (sha256 {tex_hash(sha256)})" if sha256 else ""
        return f"${name} \\in \\mathbb{{Q}}^{{{r}\\times {c}}}$, its entries given in the certificate{where}{suffix}\n"
    if fits(rows, name):
        return display([(name, rows)], end=suffix)
    return row_list(name, rows, suffix=suffix)


def row_list(name, rows, *, suffix=""):
    """``name`` given row by row, one breakable inline list per row (for matrices too wide to display)."""
    r, c = len(rows), len(rows[0]) if rows else 0
    field = "\\mathbb{Q}(\\mathrm{i})" if any("i" in x for row in rows for x in row) else "\\mathbb{Q}"
    lines = [f"${name} \\in {field}^{{{r}\\times {c}}}$ has the rows"]
    for i, row in enumerate(rows):
        lines.append(row_line([list_entry(x) for x in row], "," if i + 1 < r else suffix))
    return "{\\raggedright\n" + "\n".join(lines) + "\\par}\n"


#: A row of a matrix listed row by row starts this far in; its continuation lines start further in.
_ROW_START, _ROW_HANG = "1em", "1.5em"


def row_line(entries, end=""):
    """One row of a matrix listed row by row (text mode): ``(e_1, ..., e_c)`` breakable after its commas, its
    continuation lines indented beyond the row's start (a hanging indent), so that each row reads as one item.

    Examples
    --------
    >>> print(row_line(["1", "-2"], ","))
    \\par\\noindent\\hangindent=1.5em\\hangafter=1\\hspace*{1em}$(1,\\allowbreak -2)$,
    """
    return (f"\\par\\noindent\\hangindent={_ROW_HANG}\\hangafter=1\\hspace*{{{_ROW_START}}}"
            f"$({inline_list(entries)})${end}")


def exact_decimal(q, *, decimal_looking=True):
    """The exact decimal of a rational whose denominator divides a power of ten and that has at most 8 digits
    after the point, else None: ``0.8812`` for ``2203/2500``, as a reader's data gave it.  With
    ``decimal_looking`` only a denominator of at least 100 with a factor 5 (``3/4`` stays a fraction).

    Examples
    --------
    >>> exact_decimal(Fraction(2203, 2500)), exact_decimal(Fraction(-7, 1000)), exact_decimal(Fraction(3, 4))
    ('0.8812', '-0.007', None)
    >>> exact_decimal(Fraction(3, 4), decimal_looking=False)
    '0.75'
    """
    den = q.denominator
    twos = fives = 0
    while den % 2 == 0:
        den, twos = den // 2, twos + 1
    while den % 5 == 0:
        den, fives = den // 5, fives + 1
    places = max(twos, fives)
    if den != 1 or places > 8 or decimal_looking and (fives == 0 or q.denominator < 100):
        return None
    scaled = abs(q.numerator) * (10 ** places // q.denominator)
    digits = int_to_text(scaled).rjust(places + 1, "0")
    return ("-" if q < 0 else "") + digits[:-places] + "." + digits[-places:]


def tex_entry(text):
    """A matrix entry: :func:`tex_number`, with an exact decimal (:func:`exact_decimal`) written as that decimal.

    Examples
    --------
    >>> tex_entry("2203/2500"), tex_entry("39/41"), tex_entry("1/2")
    ('0.8812', '39/41', '1/2')
    """
    q, im = parse_number(text)
    if im == 0 and q.denominator != 1:
        dec = exact_decimal(q)
        if dec is not None:
            return dec
    return tex_number(text)


def list_entry(text):
    """An entry of a breakable list: a Gaussian rational ``a + b i`` is one unbreakable group (its fraction
    may break before the denominator when the group is nearly as wide as the column, and its numerator at its sign
    only when that alone is wider than a line).

    Examples
    --------
    >>> list_entry("1/2+1/3i"), list_entry("-5/6")
    ('{(3 + 2\\\\,\\\\mathrm{i})/6}', '-5/6')
    """
    tex = tex_entry(text)
    if "\\mathrm{i}" not in tex:
        return tex
    if number_width(text) <= COLUMN_PT - 40:
        return "{" + tex + "}"
    num, slash, den = tex.rpartition(")/")
    if not slash:
        return tex  # wider than a line: it breaks at its sign
    q, im = parse_number(text)
    d = lcm(q.denominator, im.denominator)
    if number_width(_int_text(q * d, im * d)) <= COLUMN_PT:
        return "{" + num + ")}/\\allowbreak{" + den + "}"
    return num + ")/\\allowbreak{" + den + "}"  # a numerator wider than a line breaks at its sign


def system_block(s, sha256=None, *, end="."):
    """The system's matrices A, B, C (and D) in one display, or by shape when they are too large."""
    names = ["A", "B", "C"] + (["D"] if s.get("D") is not None else [])
    big = [n for n in names if len(s[n]) > MAX_SHOWN or len(s[n][0]) > MAX_SHOWN]
    if big:
        return "".join(matrix_block(n, s[n], sha256=sha256 if i + 1 == len(names) else None,
                                    suffix="," if i + 1 < len(names) else end)
                       for i, n in enumerate(names))
    out, shown = "", []  # in their order: consecutive ones that fit in one display, a wider one row by row
    for i, n in enumerate(names):
        stop = end if i + 1 == len(names) else ","
        if _item_width(n, s[n]) <= COLUMN_PT:
            shown.append((n, s[n]))
            if i + 1 == len(names):
                out += display(shown, end=stop)
            continue
        if shown:
            out += display(shown, end=",")
            shown = []
        out += row_list(n, s[n], suffix=stop)
    return out


def display_name(s):
    """The system's name for the theorem's title (roman, breakable after hyphens), or a neutral phrase."""
    return system_name(s["name"], parameters=s.get("parameters") or ()) if s["name"] else "under consideration"


def tex_decimal(text, *, up, digits=4):
    """A rigorous decimal bound of a rational: rounded up (``up=True``) or down, ``digits`` significant digits.

    Examples
    --------
    >>> tex_decimal("2/3", up=True), tex_decimal("2/3", up=False), tex_decimal("123456789/7", up=True)
    ('0.6667', '0.6666', '1.764 \\\\cdot 10^{7}')
    """
    q, _ = parse_number(text)
    toward_up = up if q > 0 else not up
    return _decimal_text(q, digits, lambda scaled: -((-scaled.numerator) // scaled.denominator) if toward_up
                         else scaled.numerator // scaled.denominator)


def tex_value(text, *, up, limit=16):
    """``= exact`` when the exact value is short, else ``\\le`` (``up``) or ``\\ge`` a rounded decimal."""
    if len(text) <= limit:
        return f"= {tex_number(text)}"
    return ("\\le " if up else "\\ge ") + tex_decimal(text, up=up)
