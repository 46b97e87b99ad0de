"""A strict, bounded TeX tokenizer: what the audit reads instead of evaluating TeX.

The audit never runs TeX.  It reads a paper's files as TeX's eyes do (its tokenizer, with the
standard category codes of a LaTeX document) and nothing more: control sequences, characters,
spaces, paragraph breaks and comments, each with its line.  That is enough to compare a fragment
with what its certificate renders *as TeX sees it* (re-wrapping a line changes no token; any change
a reader could see does), to find ``\\input`` and conditionals, and to read definitions.

What TeX's eyes do, and this tokenizer too:

- a control word is ``\\`` and letters (``@`` is a letter between ``\\makeatletter`` and
  ``\\makeatother``), and the spaces after it are skipped; a control symbol is ``\\`` and one other
  character;
- a run of spaces (and a single end of line) is one space token, a blank line is ``\\par``, the
  spaces at the start of a line are skipped;
- ``%`` starts a comment that runs to the end of the line, which it swallows; a comment is kept as
  a token (marker comments are how fragments are found), and never compared;
- ``^^`` followed by two lowercase hexadecimal digits, or by one character, stands for one
  character (TeX's notation: ``^^5c`` is a backslash);
- the contents of ``verbatim``-like environments, of ``comment`` environments (and of those
  ``\\excludecomment`` declares) and of ``\\verb`` are kept raw, as TeX does not tokenize them
  either.

Category code changes (``\\catcode``) are not followed; the reader reports them instead (a paper that
changes what a character means cannot be audited by reading it).

Examples
--------
>>> toks = tokenize("Hello \\\\emph{world}   % note\\n  again\\n\\nnext")
>>> [t.text if t.kind != "space" else " " for t in toks if t.kind != "comment"][:12]
['H', 'e', 'l', 'l', 'o', ' ', 'emph', '{', 'w', 'o', 'r', 'l']
>>> same_tokens("a b\\n  c", "a\\nb c"), same_tokens("a b", "ab")
(True, False)
"""

import re
from dataclasses import dataclass

from ..errors import InputError

__all__ = ["Token", "Scanner", "tokenize", "significant", "same_tokens", "token_text", "MAX_TOKENS",
           "VERBATIM_ENVIRONMENTS", "COMMENT_ENVIRONMENTS"]

#: Most tokens read from all the files of one paper.
MAX_TOKENS = 8_000_000
#: Environments whose contents TeX reads raw, printed as they are.
VERBATIM_ENVIRONMENTS = frozenset({"verbatim", "verbatim*", "Verbatim", "Verbatim*", "lstlisting", "minted",
                                   "alltt", "BVerbatim", "LVerbatim", "filecontents", "filecontents*"})
#: Environments whose contents are thrown away (the comment package; ``\\excludecomment`` adds more).
COMMENT_ENVIRONMENTS = frozenset({"comment"})


@dataclass(frozen=True)
class Token:
    """One token: ``kind`` is ``cs`` (``text`` = the name, no backslash), ``char``, ``space``, ``par``,
    ``comment`` (``text`` = the line after ``%``) or ``raw`` (``text`` = the untokenized contents of a
    verbatim-like or comment environment, or of ``\\verb``); ``line`` counts from 1."""

    kind: str
    text: str
    line: int


_HEX = "0123456789abcdef"


class Scanner:
    """Tokenizer state shared by the files of one paper (``@`` as a letter, declared comment environments).

    Parameters
    ----------
    max_tokens : int
        The budget of tokens for all files read with this scanner.
    at_letter : bool
        Start with ``@`` as a letter (package and class files).
    """

    def __init__(self, *, max_tokens=MAX_TOKENS, at_letter=False):
        self.budget = max_tokens
        self.at_letter = at_letter
        self.comment_envs = set(COMMENT_ENVIRONMENTS)
        self.raw_envs = set(VERBATIM_ENVIRONMENTS)

    def tokenize(self, text, *, what="the paper"):
        """The tokens of ``text`` (one file).

        Raises
        ------
        InputError
            If the paper holds more tokens than the scanner's budget.
        """
        out = []
        n = len(text)
        i, line = 0, 1
        state = "N"  # N: new line, M: mid line, S: skipping blanks

        def char_at(i):
            """(character, index after it), decoding TeX's ^^ notation."""
            ch = text[i]
            if ch == "^" and text.startswith("^^", i) and i + 2 < n:
                a = text[i + 2]
                if a in _HEX and i + 3 < n and text[i + 3] in _HEX:
                    return chr(int(text[i + 2:i + 4], 16)), i + 4
                if ord(a) < 128 and a != "\n":
                    return chr(ord(a) + 64 if ord(a) < 64 else ord(a) - 64), i + 3
            return ch, i + 1

        def is_letter(ch):
            return ch.isascii() and ch.isalpha() or (ch == "@" and self.at_letter)

        while i < n:
            if len(out) >= self.budget:
                raise InputError(f"{what}: more than {MAX_TOKENS} TeX tokens; not audited")
            ch, j = char_at(i)
            if ch == "\n":
                if state == "N":
                    out.append(Token("par", "", line))
                elif state == "M":
                    out.append(Token("space", "", line))
                line += 1
                state = "N"
                i = j
                continue
            if ch in " \t\f\r":
                if state == "M":
                    out.append(Token("space", "", line))
                    state = "S"
                i = j
                continue
            if ch == "%":
                end = text.find("\n", i)
                end = n if end < 0 else end
                out.append(Token("comment", text[i + 1:end], line))
                i = end + 1 if end < n else n
                line += 1 if end < n else 0
                state = "N"
                continue
            if ch == "\\":
                if j >= n:
                    out.append(Token("cs", " ", line))
                    i = j
                    continue
                c2, k = char_at(j)
                if is_letter(c2):
                    name = [c2]
                    while k < n:
                        c3, k2 = char_at(k)
                        if not is_letter(c3):
                            break
                        name.append(c3)
                        k = k2
                    word = "".join(name)
                    out.append(Token("cs", word, line))
                    state = "S"
                    i = k
                    if word == "makeatletter":
                        self.at_letter = True
                    elif word == "makeatother":
                        self.at_letter = False
                    elif word == "verb":
                        i, line = self._verb(text, i, line, out)
                        state = "M"
                    continue
                if c2 == "\n":
                    out.append(Token("cs", " ", line))
                    line += 1
                    state = "N"
                    i = k
                    continue
                out.append(Token("cs", c2, line))
                state = "S" if c2 == " " else "M"
                i = k
                continue
            out.append(Token("char", ch, line))
            state = "M"
            i = j
            if ch == "}":
                env = _just_begun(out)
                if env is not None:
                    if env in self.raw_envs or env in self.comment_envs:
                        i, line = self._raw_environment(text, i, line, env, out)
                    continue
                declared = _just_declared(out)
                if declared is not None:
                    kind, name = declared
                    if kind == "excludecomment":
                        self.comment_envs.add(name)
                    else:
                        self.comment_envs.discard(name)
        return out

    def _verb(self, text, i, line, out):
        """``\\verb|...|`` (or ``\\verb*``): the contents up to the delimiter on the same line, raw."""
        if text.startswith("*", i):
            i += 1
        if i >= len(text) or text[i] in " \n":
            return i, line
        delim = text[i]
        end = text.find(delim, i + 1)
        stop = text.find("\n", i + 1)
        if end < 0 or (0 <= stop < end):
            return i + 1, line
        out.append(Token("raw", text[i + 1:end], line))
        return end + 1, line

    def _raw_environment(self, text, i, line, env, out):
        """The contents of ``\\begin{env}`` up to ``\\end{env}``, raw (TeX does not tokenize them either)."""
        closing = "\\end{" + env + "}"
        end = text.find(closing, i)
        end = len(text) if end < 0 else end
        body = text[i:end]
        out.append(Token("raw", body, line))
        return end, line + body.count("\n")


def _just_begun(out):
    """The environment name if ``out`` ends with ``\\begin{NAME}``."""
    k = len(out) - 2
    name = []
    while k >= 0 and out[k].kind == "char" and out[k].text not in "{}":
        name.append(out[k].text)
        k -= 1
    if k >= 1 and out[k].kind == "char" and out[k].text == "{" and out[k - 1].kind == "cs" \
            and out[k - 1].text == "begin":
        return "".join(reversed(name))
    return None


def _just_declared(out):
    """``(excludecomment|includecomment, NAME)`` if ``out`` ends with such a declaration."""
    k = len(out) - 2
    name = []
    while k >= 0 and out[k].kind == "char" and out[k].text not in "{}":
        name.append(out[k].text)
        k -= 1
    if k >= 1 and out[k].kind == "char" and out[k].text == "{" and out[k - 1].kind == "cs" \
            and out[k - 1].text in ("excludecomment", "includecomment"):
        return out[k - 1].text, "".join(reversed(name)).strip()
    return None


def tokenize(text, *, at_letter=False):
    """The tokens of one text with a fresh :class:`Scanner`."""
    return Scanner(at_letter=at_letter).tokenize(text)


def significant(tokens):
    """The tokens a reader's page depends on: comments dropped; ``(kind, text)`` pairs."""
    return [(t.kind, t.text) for t in tokens if t.kind != "comment"]


def same_tokens(a, b):
    """Whether two texts are the same TeX tokens (comments aside)."""
    return significant(tokenize(a)) == significant(tokenize(b))


_WORD = re.compile(r"[A-Za-z@]+")


def token_text(pairs):
    """TeX source for ``(kind, text)`` pairs, e.g. to show a difference: spaces and paragraphs normalised."""
    out = []
    for idx, (kind, text) in enumerate(pairs):
        if kind == "cs":
            out.append("\\" + text)
            if _WORD.fullmatch(text) and idx + 1 < len(pairs) and pairs[idx + 1][0] == "char" \
                    and pairs[idx + 1][1].isalnum():
                out.append(" ")
        elif kind == "char":
            out.append(text)
        elif kind == "space":
            out.append(" ")
        elif kind == "par":
            out.append("\n\n")
        elif kind == "raw":
            out.append(text)
    return "".join(out)
