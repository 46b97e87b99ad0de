"""What a verified certificate states on the page: the exact text its fragment and sentence macros typeset.

They come from the certificate and symssm's renderer, never from the paper (:func:`glyph_text` reads only the
TeX symssm writes); characters are compared after :func:`normalize`, without spaces.

Examples
--------
>>> glyph_text("For every sequence length $n \\\\ge 2$, exactly $k = 2$ attention heads")
'For every sequence length n ≥ 2, exactly k = 2 attention heads'
>>> glyph_text("the SSM \\\\texttt{a\\\\char95{}b}")
'the SSM a_b'
>>> squeeze(normalize("ﬁnd  k − 1"))
'findk-1'
"""

import contextlib
import re
import unicodedata
from collections import deque
from dataclasses import dataclass
from typing import Optional

from ..certificate import kinds
from ..errors import InputError, SymssmError

__all__ = ["Statement", "statements", "glyph_text", "normalize", "squeeze", "Unsupported", "significant",
           "display_order", "fraction_bars"]


@dataclass(frozen=True)
class Statement:
    """One certified statement: ``what`` (``"fragment"``, ``"sentence macro \\\\Name"``), ``parts`` (its text for
    the report), ``tail`` (a fragment proof's last sentence) and ``segments``, what the page must show:
    ``("seq", text)`` right after the previous segment; ``("bag", text, displays)`` the glyphs up to the next
    "seq" (the multiset of :func:`significant` characters of ``text``; each display's :func:`display_order`)."""

    sha256: str
    kind: str
    what: str
    parts: tuple
    tail: Optional[str] = None
    segments: tuple = ()
    bars: int = 0


class Unsupported(ValueError):
    """TeX that :func:`glyph_text` does not know; ``at`` is where it starts (the text is cut there)."""

    def __init__(self, what, at=0):
        super().__init__(what)
        self.at = at


#: A base with a subscript and a superscript: TeX stacks them (``e_1^{\top}``), whatever the source's order.
_STACKED = re.compile(r"(\\[A-Za-z]+|[^\s{}$^_])(?:_(?:\{[^{}]*\}|\\?\S)\^|\^(?:\{[^{}]*\}|\\?\S)_)")
#: Control words and the characters they typeset (a command mapped to "" typesets nothing visible).
_SYMBOLS = {
    "ge": "≥", "geq": "≥", "le": "≤", "leq": "≤", "neq": "≠", "ne": "≠", "times": "×", "infty": "∞", "cdot": "·",
    "dots": "...", "ldots": "...", "cdots": "···", "sum": "∑", "alpha": "α", "in": "∈", "top": "⊤", "lVert": "‖",
    "rVert": "‖", "partial": "∂", "delta": "δ", "mid": "|", "to": "→", "pm": "±", "Lambda": "Λ", "lambda": "λ",
    "ell": "ℓ", "tau": "τ", "eta": "η", "pmod": "mod", "bmod": "mod", "symssmspan": "span", "lvert": "|",
    "rvert": "|", "prime": "'", "sqrt": "√",
    "arctan": "arctan", "chi": "χ", "det": "det", "dim": "dim", " ": " ", "#": "#", "{": "{", "}": "}", "%": "%",
    "&": "&", "_": "_", "$": "$", "varepsilon": "ε", "epsilon": "ϵ", "vartheta": "ϑ", "varphi": "φ", "phi": "ϕ",
    "varrho": "ϱ", "varsigma": "ς", "ell": "ℓ", "approx": "≈", "succ": "≻", "prec": "≺", "preceq": "⪯",
    "succeq": "⪰", "prod": "∏", "min": "min", "max": "max", "exp": "exp", "log": "log", "langle": "⟨",
    "rangle": "⟩", "neg": "¬", "subseteq": "⊆", "setminus": "∖", "circ": "∘", "otimes": "⊗", "equiv": "≡",
    "mapsto": "↦", "forall": "∀", "exists": "∃", "emptyset": "∅", "ll": "≪", "gg": "≫", "lfloor": "⌊",
    "rfloor": "⌋", "lceil": "⌈", "rceil": "⌉", "Re": "ℜ", "Im": "ℑ", "sup": "sup", "inf": "inf", "lim": "lim",
    "sin": "sin", "cos": "cos", "tr": "tr", "rank": "rank", "diag": "diag",
    **{g: chr(c) for g, c in zip("alpha beta gamma delta varepsilon zeta eta theta iota kappa lambda mu nu xi o pi "
                                 "rho varsigma sigma tau upsilon varphi chi psi omega".split(), range(0x3b1, 0x3ca))
       if g != "o"},
    **{g: chr(c) for g, c in zip("Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega".split(),
                                 (0x393, 0x394, 0x398, 0x39b, 0x39e, 0x3a0, 0x3a3, 0x3a5, 0x3a6, 0x3a8, 0x3a9))},
    **dict.fromkeys(["tilde", "hat", "bar", "widetilde", "widehat", "overline", "vec", "dot", "ddot", "check",
                     "breve", "acute", "grave", "boldsymbol", "mathbf", "mathsf", "textrm", "textsf", "textup",
                     "mathsf"]),
    **dict.fromkeys(["quad", "qquad", "allowbreak", "emergencystretch", "hangindent", "hangafter", "relax", ",",
                     ";", ":", "!", "nobreak"], ""),
    **dict.fromkeys(["mathrm", "mathbb", "texttt", "emph", "textbf", "textit", "mathit", "operatorname",
                     "ensuremath", "text", "mathcal", "mbox"])}
#: Characters that a TeX font draws differently from the source text.
_SOURCE = {"~": " ", "-": "-", "'": "'", "`": "'"}
#: Parameters a fragment assigns (``\\emergencystretch=3em``, ``\\hangindent=1.5em\\hangafter=1``): nothing typeset.
_ASSIGNED = {"emergencystretch", "hangindent", "hangafter"}
_TOKEN = re.compile(r"\\([A-Za-z]+|.)|([{}$^_])|(\s+)|(.)", re.S)


def glyph_text(tex):
    """The characters that symssm's own ``tex`` shows on the page, in reading order (spaces kept for reading).

    Raises
    ------
    Unsupported
        At TeX this reader does not know (a display, ``\\\\frac``, an environment).
    """
    stacked = _STACKED.search(tex)
    if stacked:
        raise Unsupported("stacked scripts", stacked.start())
    out, pos = [], 0
    while pos < len(tex):
        m = _TOKEN.match(tex, pos)
        pos, (word, special, space, char) = m.end(), m.groups()
        if word == "char" or word is not None and word not in _SYMBOLS:
            num = re.match(r"(\d+)(\{\})?", tex[pos:]) if word == "char" else None
            if not num:
                raise Unsupported("\\" + word, m.start())
            out.append(chr(int(num.group(1))))
            pos += num.end()
        elif word is not None:
            value = _SYMBOLS[word]
            skip = re.compile(r"(?:\s*=?\s*-?[0-9.]+\s*(?:[a-z]{2})?)?" if word in _ASSIGNED else
                              r"\s*" if word.isalpha() and value is not None else "").match(tex, pos)
            pos = skip.end()
            out.append((value or "") + (" " if value and skip.end() > m.end() and word.isalpha() else ""))
        elif special is None:
            out.append(" " if space is not None else _SOURCE.get(char, char))
    return re.sub(r"\s+", " ", "".join(out)).strip()


_FOLD = {"’": "'", "‘": "'", "′": "'", "−": "-", "–": "--", "—": "---", "‐": "-", "“": "''", "”": "''",
         "ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "∥": "‖", "⩽": "≤", "⩾": "≥", "ℚ": "Q", "ℂ": "C",
         "ℝ": "R", "ℕ": "N", "ℤ": "Z", "…": "...", "⋅": "·", "∶": ":", "∆": "Δ", "µ": "μ"}


def normalize(text):
    """``text`` with the forms that differ between fonts and source made equal (NFKC, ligatures, dashes, quotes)."""
    return "".join(_FOLD.get(c, c) for c in unicodedata.normalize("NFKC", "".join(_FOLD.get(c, c) for c in text)))


def squeeze(text):
    """``text`` without white space (TeX paints none)."""
    return re.sub(r"\s+", "", text)


def significant(text):
    """The characters of ``text`` a comparison counts: letters, digits, ``-`` and math symbols (not spaces,
    punctuation or delimiters, whose glyphs differ between TeX's sizes)."""
    return "".join(c for c in squeeze(normalize(text)) if c == "-" or unicodedata.category(c) in
                   ("Lu", "Ll", "Lt", "Lm", "Lo", "Nd", "Nl", "No", "Sm") and not "\u2308" <= c <= "\u23ff" and
                   c not in "|‖~")


def _sentences(tex):
    """The sentences of one paragraph of symssm's TeX, split at ". " outside math."""
    out, start, math = [], 0, False
    for i, c in enumerate(tex):
        if c == "$" and (i == 0 or tex[i - 1] != "\\"):
            math = not math
        elif c == "." and not math and tex[i + 1:i + 2] in (" ", "") and i + 1 - start > 1:
            out.append(tex[start:i + 1].strip())
            start = i + 1
    return out + [tex[start:].strip()] * bool(tex[start:].strip())


def _convert(tex):
    """``glyph_text`` of ``tex``, cut before the first construct it does not know (None when little is left)."""
    while True:
        try:
            text = glyph_text(tex)
            return text if len(squeeze(text)) >= 12 else None
        except Unsupported as exc:
            tex = tex[:exc.at]
            tex = tex[:tex.rindex("$")] if tex.count("$") % 2 else tex  # cut inside math: end it


def _segments(title, body):
    """The theorem's segments (see :class:`Statement`): its title, then each sentence and display in order."""
    out = [("seq", glyph_text(title))]
    body = body[1:] if body.startswith("]") else body
    # a display laid out for the column's width: the page shows one branch, with the same characters
    body = re.sub(r"\\ifdim[^\n]*\n(.*?)\\else.*?\\fi\b", r"\1", body, flags=re.S)
    body = re.sub(r"\\label\{[^{}]*\}|\\emergencystretch\s*=?\s*[0-9.]+\s*[a-z]{2}|"
                  r"\\hangindent\s*=?\s*[0-9.]+\s*[a-z]{2}|\\hangafter\s*=?\s*-?[0-9]+", " ", body)
    chunks = re.split(r"(\\\[.*?\\\]|\\begin\{(gather\*|enumerate)\}.*?\\end\{\2\})", body, flags=re.S)
    for k, chunk in enumerate(chunks):
        pieces = [] if k % 3 == 2 else [chunk] if k % 3 else [x for p in chunk.split("\n\n")
                                                               for x in _sentences(" ".join(p.split()))]
        for tex in filter(str.strip, pieces):
            try:
                text = glyph_text(tex) if k % 3 == 0 else None
            except Unsupported:
                text = None
            if text is not None:
                out += [("seq", text)] * bool(squeeze(text))
                continue
            order = display_order(tex)
            shown = (order,) if k % 3 == 1 and "enumerate" not in tex[:20] else ()
            out[-1:] = [("bag", out[-1][1] + order, out[-1][2] + shown)] if out[-1][0] == "bag" else \
                [out[-1], ("bag", order, shown)]
    return tuple(out)


_LAYOUT = re.compile(r"\\(?:[A-Za-z]+\*?|.)|\S", re.S)
_SKIPPED = {"\\left", "\\right", "\\label", "\\ref", "\\eqref", "\\cite", "\\hspace", "\\hspace*", "\\vspace",
            "\\vspace*"}
_MATRICES = {"pmatrix", "bmatrix", "Bmatrix", "vmatrix", "Vmatrix", "matrix", "smallmatrix"}


def display_order(tex):
    r"""A display's significant characters in the page's order (:func:`symssm.audit.claims.page_order`): left to
    right, stacked ones top to bottom (numerator, superscript first), a matrix column by column.

    Examples
    --------
    >>> display_order(r"\[ A = \frac{1}{2}\begin{pmatrix}3 & -4 \\ 4 & 3\end{pmatrix},\quad B = I_{2}. \]")
    'A=1234-43B=I2'
    >>> display_order(r"\alpha^h_{ij} x_{i}^{2} \{a\}")
    'αhijx2ia'
    """
    tokens, items = deque(_LAYOUT.findall(re.sub(r"\\\\\[[^\]]*\]", r"\\\\", tex))), [0]  # "\\\\[1em]": a row

    def take():
        return tokens.popleft() if tokens else "}"

    def argument():
        t = take()
        return sequence("}") if t == "{" else atom(t)

    def name():
        return "".join(iter(take, "}"))[1:] if tokens and tokens[0] == "{" else ""

    def atom(t):
        if t in ("\\frac", "\\tfrac", "\\dfrac"):
            return argument() + argument()
        env = name() if t in ("\\begin", "\\end") else ""
        if t == "\\begin" and env in _MATRICES:
            rows, row, cell = [], [], []
            while tokens:
                t = take()
                if t not in ("&", "\\\\", "\\end"):
                    cell.append(atom(t))
                    continue
                row, cell = row + ["".join(cell)], []
                rows, row = (rows + [row], []) if t != "&" else (rows, row)
                if t == "\\end":
                    name()
                    break
            return "".join(r[j] for j in range(max(map(len, rows))) for r in rows if j < len(r))
        if t in _SKIPPED:  # a delimiter's size, a label, a space
            argument()
            return ""
        if t == "\\item" and tokens and tokens[0] == "[":  # a label of its own ("\\item[]": none)
            take()
            return "".join(atom(x) for x in iter(take, "]"))
        if t == "\\item":  # an enumerate's number
            items[0] += 1
            return str(items[0])
        if t == "{":
            return sequence("}")
        if env or t in ("\\begin", "\\end"):
            return ""
        if t.startswith("\\"):
            return significant(_SYMBOLS.get(t[1:]) or "")
        return significant(t)

    def sequence(stop):
        items = []  # [base, superscript, subscript]
        while tokens:
            t = take()
            if t == stop:
                break
            if t in ("^", "_") and items:
                items[-1][1 if t == "^" else 2] += argument()
            elif t not in ("&", "\\\\"):
                items.append([atom(t), "", ""])
        return "".join("".join(i) for i in items)

    return sequence(None)


#: TeX that draws a fraction bar.
_BARS = re.compile(r"\\(?:[dtc]?frac|over)(?![A-Za-z])")


def fraction_bars(tex):
    r"""The most fraction bars ``tex`` can draw (each ``\frac``, ``\dfrac``, ``\tfrac``, ``\cfrac``, ``\over``).

    >>> fraction_bars(r"A = \frac{1}{6}\begin{pmatrix}3 & 0\end{pmatrix}, \tfrac12, {a \over b}, \overline{x}")
    3
    """
    return len(_BARS.findall(tex))


def statements(data, sha256):
    """Every statement a verified certificate's symssm LaTeX shows: its fragment's, then its sentence macros'
    (:func:`symssm.render.latex.sentence_macros`).

    Raises
    ------
    InputError
        If the certificate's kind is unknown.
    """
    from ..render.latex import sentence_macros
    out = []
    with contextlib.suppress(SymssmError, KeyError, ValueError, TypeError, IndexError):
        out.append(_fragment(data, sha256))
    try:
        out += [Statement(sha256, data["kind"], f"sentence macro {name}", (text,), segments=(("seq", text),),
                          bars=fraction_bars(tex))
                for name, text, tex in ((name, glyph_text(tex), tex) for name, tex in sentence_macros(data))]
    except InputError:
        raise
    except (SymssmError, KeyError, ValueError, TypeError):
        pass
    return out


def _fragment(data, sha256):
    """The :class:`Statement` a certificate's fragment shows (raises where it cannot be derived)."""
    from ..render.style import Style
    style = Style()
    fragment, env = kinds.of(data).load("fragment")(data, style), style.environment
    begin = depth = fragment.index("\\begin{" + env + "}[{") + len(env) + 10
    for i in range(begin, len(fragment)):  # the title's group ends where its braces balance
        depth += {"{": 1, "}": -1}.get(fragment[i], 0)
        if depth < begin:
            break
    title, body = fragment[begin:i], fragment[i + 1:fragment.index("\\end{" + env + "}")]
    last = [line for line in body.split("\n") if line.strip()][-1]
    cases = body[body.index("\\begin{enumerate}"):body.index("\\end{enumerate}")] if "\\end{enumerate}" in body else ""
    parts = [glyph_text(title)] + [t for t in map(_convert, [i.strip() for i in cases.split("\\item")[1:]] +
                                                  _sentences(last)) if t]  # a family's cases, each with its count
    proof = fragment[:fragment.rindex("\\end{proof}")] if "\\end{proof}" in fragment else ""
    # the proof's last sentence: of its last line that is not a list's \begin or \end (a family's last case)
    paragraphs = [re.sub(r"^\\item(?:\[\])?\s*", "", p.strip()) for p in proof.split("\n")
                  if p.strip() and not re.fullmatch(r"\\(?:begin|end)\{\w+\}(?:\\raggedright)?", p.strip())]
    tail = next(filter(None, map(_convert, reversed(_sentences(paragraphs[-1])))), None) if paragraphs else None
    # amsthm's proof head right after the theorem: nothing may come between
    segments = _segments(title, body) + ((("seq", "Proof."),) if proof else ())
    return Statement(sha256, data["kind"], "fragment", tuple(parts), tail, segments, fraction_bars(title + body))
