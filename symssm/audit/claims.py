"""Find the certified statements on the pages, and list every other claim the pages make.

The pages are read once (:mod:`symssm.audit.pages`) into one stream of painted glyphs in reading
order (page by page, each column top to bottom).  A statement (:mod:`symssm.audit.statements`) is
**shown** when its text is found in that stream as a run of glyphs (spaces ignored; a hyphen that
breaks a word at a line's end is skipped; a run may cross lines, columns and pages) and every glyph
of the run is visible as itself (no problem from :mod:`symssm.audit.pages`).  A run whose glyphs
have problems is reported with them ("drawn in white on page 2").

The **prose** (:func:`prose_claims`): each sentence of the pages' text that states a head count,
``k(n)``, ``k =``, a number of heads, an interaction rank or a decay rate, and whose number is not
part of a shown certified statement, is a claim.  When the sentence names a system with a verified
certificate (its name, as the fragments and macros typeset it), the number is compared with what the
certificate proves: one it never takes **contradicts** the certificate; one it takes is
**consistent** (the number agrees, the words around it are not checked).  Otherwise it is
**unchecked**.  A number qualified by "at least", "at most", "not", "fewer than", ... is unchecked,
never compared.

Examples
--------
>>> [(q, v) for q, v, _, _ in numbers("The rotation needs exactly two attention heads, and k(8) = 2.")]
[('heads', 'two'), ('k(n)', '2')]
>>> [(q, v, qualified) for q, v, _, qualified in numbers("No model with fewer than 3 heads works.")]
[('heads', '3', True)]
"""

import re
from dataclasses import dataclass

from .pages import text_lines
from .statements import normalize, squeeze

__all__ = ["Run", "Stream", "columns", "stream_of", "find", "numbers", "prose_claims", "NUMBER_WORDS", "ProseClaim",
           "values_of"]

NUMBER_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
                "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20}
_WORDS = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
_NUM = r"(?P<v>\d+|" + _WORDS + r")\b(?![./]\d)"
#: Words between a number and "heads" that do not take the number away ("3 of the heads" does).
_NOT_AN_ADJECTIVE = r"(?!(?:of|the|a|an|these|those|its|their|our|per|for|in|on|from|to|and|or|with)\b)"
_PATTERNS = [
    ("k(n)", re.compile(r"(?<![\w\\])k[a-z0-9⋆*]{0,4}\s*\(\s*(?P<n>[\w\s.,-]{1,16}?)\s*\)\s*=\s*(?P<v>\d+)\b"
                        r"(?![./]\d)")),
    ("interaction rank", re.compile(r"\binteraction rank\s*(?:of\s+|is\s+|equals?\s+|=\s*|r\s*=\s*|r\(X\)\s*=\s*|"
                                    r"exactly\s+|equal to\s+)*" + _NUM, re.I)),
    # "3 heads", "3\\,heads" (a thin space reads as none), "3 parallel heads", "three attention-heads"
    ("heads", re.compile(r"(?<![\w.])(?P<v>\d+(?![./]\d)|(?:" + _WORDS + r")\b)(?:\s*|-)(?:" + _NOT_AN_ADJECTIVE +
                         r"[A-Za-z][\w-]*?(?:\s+|-)){0,2}heads?\b", re.I)),
    ("head count", re.compile(r"\b(?:head count|number of (?:attention )?heads)\s*(?:of\s+[^\d.]{0,60}?)?"
                              r"(?:is\s+|equals?\s+|=\s*|exactly\s+|equal to\s+|of\s+|:\s*)+" + _NUM, re.I)),
    ("k", re.compile(r"(?<![\w\\(,_^])k\s*=\s*(?P<v>\d+)\b(?![./]\d)")),
    # "H⋆ = 3", "H* = 3", "Hmin = 3": a minimal number of heads written as a symbol
    ("heads", re.compile(r"(?<![\w\\])H\s*(?:[⋆*∗]|min)\s*=\s*(?P<v>\d+)\b(?![./]\d)")),
    ("decay rate", re.compile(r"\bdecay(?:s|ing)?\s+(?:rate|at\s+(?:a\s+)?rate)\s*(?:of\s+|is\s+|r\s*=\s*|=\s*|"
                              r"at most\s+|≤\s*)*(?P<v>\d+(?:[./]\d+)?)", re.I)),
]
_QUALIFIERS = re.compile(r"\b(?:not|no|never|cannot|can't|fail|fails|fewer|less|least|most|more than|up to|below|"
                         r"above|than|beyond|instead|rather|except|exceed|exceeds|only if|if and only|under|over|"
                         r"single-head|bound|bounded)\b", re.I)
_COMPARED = re.compile(r"[<>≤≥≠]\s*$")


def numbers(text):
    """``[(quantity, value, offset, qualified)]``: the numbers a sentence states next to a claim's words."""
    out, taken = [], set()
    for quantity, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            if m.start("v") in taken:
                continue
            taken.add(m.start("v"))
            before = re.split(r"[;:]", text[max(0, m.start() - 40):m.start("v")])[-1]  # this clause only
            qualified = bool(_QUALIFIERS.search(before) or _COMPARED.search(before))
            out.append((quantity, m.group("v"), m.start("v"), qualified))
    out.sort(key=lambda t: t[2])
    return out


# ---------------------------------------------------------------- the glyph stream


@dataclass(frozen=True)
class Run:
    """Where a text was found: the glyphs (with their pages) in reading order."""

    glyphs: tuple  # ((page number, Glyph), ...)
    start: int  # offset in the stream
    end: int
    display: bool = False  # a theorem's formulas compared as a multiset (a "bag" segment)

    @property
    def problems(self):
        """``("drawn in white on page 2", ...)``: every problem of the run's glyphs, once, in order."""
        out = []
        for page, g in self.glyphs:
            for p in g.problems:
                text = f"{p} on page {page}"
                if text not in out:
                    out.append(text)
        return tuple(out)

    @property
    def page(self):
        return self.glyphs[0][0] if self.glyphs else None

    def boxes(self):
        """{page: (x0, y0, x1, y1)}: the box around the run's glyphs on each page."""
        out = {}
        for page, g in self.glyphs:
            x0, y0, x1, y1 = g.bbox
            if page in out:
                a = out[page]
                out[page] = (min(a[0], x0), min(a[1], y0), max(a[2], x1), max(a[3], y1))
            else:
                out[page] = (x0, y0, x1, y1)
        return out


def columns(lines):
    """The lines of a page with two-column stretches read column by column.

    :func:`~symssm.audit.pages.text_lines` groups glyphs by baseline; where most rows of a stretch leave a
    vertical gutter free of ink (a two-column layout), each row is cut at the gutter and the stretch is read
    left column first.  A row that crosses the gutter (a title, a ``figure*``) ends the stretch.  One-column
    pages are left as they are.
    """
    import bisect

    rows = [sorted(line, key=lambda g: g.bbox[0]) for line in lines if line]
    rows.sort(key=lambda r: -max(g.origin[1] for g in r))
    if len(rows) < 4:
        return lines
    spans = [_spans(r) for r in rows]  # ink of each row, word spaces (under 0.6 em) filled in
    starts = [[a for a, _ in sp] for sp in spans]

    def crosses(k, x):
        i = bisect.bisect_right(starts[k], x) - 1
        return i >= 0 and spans[k][i][1] > x

    x0 = min(sp[0][0] for sp in spans)
    x1 = max(sp[-1][1] for sp in spans)
    if x1 <= x0:
        return lines
    best, gutter = None, None
    for step in range(61):
        x = x0 + (x1 - x0) * (0.35 + 0.3 * step / 60)
        crossing = sum(1 for k in range(len(rows)) if crosses(k, x))
        if best is None or crossing < best:
            best, gutter = crossing, x
    both = [k for k, sp in enumerate(spans) if sp[0][0] < gutter < sp[-1][1]]
    if not both or best > 0.15 * len(both) or sum(1 for sp in spans if sp[-1][1] > gutter) < 3:
        return lines
    out, left, right = [], [], []
    for k, r in enumerate(rows):
        if crosses(k, gutter):
            out += left + right + [tuple(r)]
            left, right = [], []
            continue
        a = tuple(g for g in r if g.bbox[2] <= gutter)
        b = tuple(g for g in r if g.bbox[2] > gutter)
        if a:
            left.append(a)
        if b:
            right.append(b)
    return tuple(out + left + right)


def _spans(row):
    """The row's ink as sorted ``(x0, x1)`` intervals, gaps narrower than 0.6 em (word spaces) filled in."""
    out = []
    for g in row:
        a, b = g.bbox[0], g.bbox[2]
        if out and a - out[-1][1] < 0.6 * max(g.size, 1.0):
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def _margin(line, bottom, top, height):
    """Whether a line is the page's furniture (running head, page number, line number), left out of statements.

    The reader marks such glyphs (``Glyph.role``: ``margin``, ``line number``); without the mark, a line of at
    most 4 digits or roman numerals at the top or bottom of the page is one."""
    roles = [getattr(g, "role", None) for g in line]
    if all(r in ("margin", "line number") for r in roles):
        return True
    if any(r is not None for r in roles):
        return False
    y = line[0].origin[1]
    return len(line) <= 4 and all(g.char.isdigit() or g.char in "ivxlc" for g in line) and \
        (y < bottom + 0.12 * height or y > top - 0.08 * height)


def _negated(chars):
    """``=`` and a combining long solidus painted as two glyphs (TeX's ``\\neq``) read as one ``≠``."""
    out, skip = [], False
    for k, (c, i) in enumerate(chars):
        if skip:
            skip = False
            continue
        if c == "\u0338" and out and out[-1][0] == "=":
            out[-1] = ("≠", out[-1][1])
        elif c == "\u0338" and k + 1 < len(chars) and chars[k + 1][0] == "=":
            out.append(("≠", i))
            skip = True
        else:
            out.append((c, i))
    return out


class Stream:
    """Every glyph of the pages in reading order, as one squeezed string with each character's glyph.

    Page numbers in the margins are left out (a sentence runs on across a page break).  A hyphen that ends a
    line before a letter is ``\\x01`` in ``text``: a statement may read through it (TeX's hyphenation) or
    match it as its own hyphen.  ``where`` gives each character's index into ``glyphs``.
    """

    def __init__(self, pages):
        self.glyphs = []  # (page number, Glyph)
        self.lines = []  # (first index, end index) of each line in glyphs
        self.furniture = set()  # glyph indices of the pages' furniture
        furniture = set()  # glyph indices of page numbers in the margins, left out of ``text``
        for page in pages:
            top, bottom = page.mediabox[3], page.mediabox[1]
            height = (top - bottom) or 792.0
            for line in columns(text_lines(page)):
                first = len(self.glyphs)
                self.glyphs += [(page.number, g) for g in line]
                self.lines.append((first, len(self.glyphs)))
                if _margin(line, bottom, top, height):
                    furniture.update(range(first, len(self.glyphs)))
        self.furniture = furniture
        line_end = {end - 1 for _, end in self.lines}
        chars = []
        following = ""  # the first character of the next glyph that is not furniture
        nexts = [""] * len(self.glyphs)
        for i in range(len(self.glyphs) - 1, -1, -1):
            nexts[i] = following
            if i not in furniture:
                following = self.glyphs[i][1].char[:1]
        folded = {}  # normalize() of each distinct glyph character, once
        for i, (_, g) in enumerate(self.glyphs):
            if i in furniture:
                continue
            if g.char not in folded:
                folded[g.char] = squeeze(normalize(g.char))
            for c in folded[g.char]:
                # a hyphen that ends a line before a letter may be TeX's (not in the text) or the text's own
                chars.append(("\x01" if c == "-" and i in line_end and nexts[i].isalpha() else c, i))
        chars = _negated(chars)
        self.text = "".join(c for c, _ in chars)
        self.where = [i for _, i in chars]

    def run(self, a, b):
        first, last = self.where[a], self.where[b - 1]
        return Run(tuple(self.glyphs[first:last + 1]), first, last + 1)


def _occurrences(stream, text, after=0, before=None):
    """Every :class:`Run` of ``text`` (squeezed, normalized) in the stream from glyph ``after`` on."""
    target = squeeze(normalize(text))
    if not target:
        return []
    first = f"[{re.escape(target[0].lower())}{re.escape(target[0].upper())}]"  # "We show that \\Sentence" too
    pattern = re.compile("\x01?".join([first] + ["(?:-|\x01)" if c == "-" else re.escape(c) for c in target[1:]]))
    out = []
    for m in pattern.finditer(stream.text):
        if stream.where[m.start()] < after:
            continue
        if before is not None and stream.where[m.start()] > before:
            break
        out.append(stream.run(m.start(), m.end()))
    return out


#: How far (in glyphs) a statement's next part may start after the previous one (a theorem's displays lie
#: between its title and its last paragraph).
PART_WINDOW = 6000


def _seq_pattern(text):
    target = squeeze(normalize(text))
    return re.compile("\x01?".join("(?:-|\x01)" if c == "-" else re.escape(c) for c in target)) if target else None


def _bands(glyphs, axis, gap):
    """The glyphs cut where no glyph's ink crosses (``axis`` 0: x, left to right; 1: y, top to bottom); bands of
    letters, digits and signs closer than ``gap`` kept together (a delimiter is never joined by the gap)."""
    from .statements import significant

    lo, hi = (0, 2) if axis == 0 else (1, 3)
    out, edge, joins = [], None, False
    for g in sorted(glyphs, key=lambda g: g.bbox[lo] if axis == 0 else -g.bbox[hi]):
        a, b = (g.bbox[lo], g.bbox[hi]) if axis == 0 else (-g.bbox[hi], -g.bbox[lo])
        sig = bool(significant(g.char))
        if out and (a < edge or a < edge + gap and sig and joins):
            out[-1].append(g)
            edge, joins = (b, sig) if b > edge else (edge, joins)
        else:
            out.append([g])
            edge, joins = b, sig
    return out


def page_order(glyphs):
    """The significant characters of a display's glyphs in the order :func:`~symssm.audit.statements.display_order`
    gives its TeX: cut at gaps of ink, lines top to bottom, then left to right, then again inside each band
    (a matrix's columns, then their rows); glyphs that no cut separates read left to right."""
    from .statements import significant

    def order(gl):
        if len(gl) < 2:
            return gl
        for axis, gap in ((1, 0.0), (0, 1.5), (0, 0.0)):
            bands = _bands(gl, axis, gap)
            if len(bands) > 1:
                return [g for band in bands for g in order(band)]
        return sorted(gl, key=lambda g: (g.bbox[0], -g.bbox[3]))

    return "".join(significant(g.char) for g in order(list(glyphs)))


def _displays_shown(stream, first, end, displays):
    """Each display's :func:`page_order` found, in order, on whole lines of the glyphs ``first`` to ``end``."""
    lines = [(max(a, first), min(b, end)) for a, b in stream.lines if b > first and a < end]
    at = 0
    for want in displays:
        found = None
        for i in range(at, len(lines)):
            glyphs = {}
            for j in range(i, len(lines)):
                for k in range(*lines[j]):
                    if k not in stream.furniture:
                        glyphs.setdefault(stream.glyphs[k][0], []).append(stream.glyphs[k][1])
                got = "".join(page_order(gl) for _, gl in sorted(glyphs.items()))
                if got == want or len(got) > len(want):
                    break
            if got == want:
                found = j
                break
        if found is None:
            return want
        at = found + 1
    return None


def _bag_difference(expected, got):
    """``(missing, extra)`` significant characters of a display or sentence read as a multiset."""
    from collections import Counter

    from .statements import significant

    want = Counter(significant(expected))
    breaks = got.count("\x01")
    have = Counter(significant(got.replace("\x01", "")))
    missing, extra = want - have, have - want
    if missing.get("-", 0) <= breaks:
        missing.pop("-", None)
    return "".join(sorted(missing.elements())), "".join(sorted(extra.elements()))


def _altered(stream, a, b):
    """The page's text from stream offset ``a`` to ``b`` (at most 60 characters), for a reason."""
    return stream.text[a:min(b, a + 60)].replace("\x01", "-")


def find_whole(stream, statement):
    """``(runs, partial, reason)``: the fragment's whole theorem (its ``segments``) as one run of glyphs.

    Each "seq" segment must follow the previous one with nothing between (spaces, TeX's hyphens and the
    page numbers of a page break aside); a "bag" (a display, a sentence with TeX the audit does not read)
    is every glyph up to the next "seq" and must hold exactly its significant characters.  ``reason`` says
    what the page shows instead where the theorem was found but differs ("altered: ...").
    """
    segs = statement.segments
    head = _seq_pattern(segs[0][1])
    best, partial, reason = None, (), ""
    for m in head.finditer(stream.text):
        runs, pos, why = [stream.run(m.start(), m.end())], m.end(), ""
        pos = re.compile(r"[)\].:]{0,3}").match(stream.text, pos).end()  # the theorem head's ")." (amsthm)
        k = 1
        while k < len(segs):
            kind, text = segs[k][:2]
            if kind == "seq":
                hit = _seq_pattern(text).match(stream.text, pos)
                if not hit:
                    nxt = _seq_pattern(text).search(stream.text, pos, pos + 4000)
                    why = (f"altered: the page shows \"{_altered(stream, pos, nxt.start() if nxt else pos + 60)}\" "
                           f"where the certified theorem reads \"{text[:60]}\"")
                    break
                runs.append(stream.run(hit.start(), hit.end()))
                pos = hit.end()
                k += 1
                continue
            following = segs[k + 1][1] if k + 1 < len(segs) else None
            nxt = _seq_pattern(following).search(stream.text, pos, pos + 4000) if following else None
            if nxt is None:
                why = (f"altered: the certified theorem's \"{following[:48]}...\" is not on the page"
                       if following else "altered: the theorem's end is not on the page")
                break
            missing, extra = _bag_difference(text, stream.text[pos:nxt.start()])
            if missing or extra:
                why = ("altered: the theorem's formulas differ from the certificate's"
                       + (f" (the page has \"{extra[:30]}\" more" if extra else " (")
                       + (f"{', ' if extra else ''}\"{missing[:30]}\" fewer" if missing else "") + ")")
                break
            unread = _displays_shown(stream, stream.where[pos], stream.where[nxt.start() - 1] + 1, segs[k][2]) \
                if nxt.start() > pos else None
            if unread:
                why = (f"altered: a display's entries are not where the certificate's are (it reads "
                       f"\"{unread[:40]}\" left to right, matrices column by column)")
                break
            if nxt.start() > pos:
                bag = stream.run(pos, nxt.start())
                runs.append(Run(bag.glyphs, bag.start, bag.end, True))
            pos = nxt.start()
            k += 1
        if k == len(segs):
            score = sum(len(r.problems) for r in runs)
            if best is None or score < sum(len(r.problems) for r in best):
                best = tuple(runs)
        elif len(runs) > 1 or stream.text[m.end():m.end() + 1] == ")":  # a theorem head "(title)", at least
            if len(runs) > len(partial) or not partial:
                partial, reason = tuple(runs), why
    return best, partial, reason


_NEGATIONS = re.compile(r"\b(?:not(?! only\b| surprising)|no longer|false|untrue|wrong|incorrect|fails? to|never|"
                        r"cannot|disprov\w*|refut\w*|nor)\b[^.:;!?]*$", re.I)


def negated_before(stream, run):
    """The words before ``run`` in its sentence (read with spaces, from its line and the one before) that negate
    it ("It is not true that ...", "... no longer ...", "... fails to ..."), else ""."""
    import bisect

    from .pages import line_text

    k = bisect.bisect_right([a for a, _ in stream.lines], run.start) - 1
    lines = [stream.lines[i] for i in (k - 1, k) if i >= 0]
    text = " ".join(line_text(tuple(g for j, (_, g) in enumerate(stream.glyphs[a:min(b, run.start)], a)
                                    if j not in stream.furniture)) for a, b in lines)
    before = re.split(r"[.!?;:](?=\s+[A-Z(]|$)", normalize(text))[-1]
    m = _NEGATIONS.search(before)
    return "" if m is None else " ".join(before.split())[-60:]


def find(stream, statement):
    """``(runs, partial)``: the best way the statement's parts are shown, in order, near each other.

    ``runs`` is a tuple of one :class:`Run` per part (the cleanest occurrence: fewest problems), or None when
    some part is not found; ``partial`` then names the parts that were found (for the report).
    """
    best, partial = None, ()
    for first in _occurrences(stream, statement.parts[0]):
        runs = [first]
        for part in statement.parts[1:]:
            nxt = _occurrences(stream, part, runs[-1].end, runs[-1].end + PART_WINDOW)
            if not nxt:
                break
            nxt.sort(key=lambda r: (len(r.problems), r.start))
            runs.append(nxt[0])
        if len(runs) < len(statement.parts):
            if len(runs) > len(partial):
                partial = tuple(runs)
            continue
        score = sum(len(r.problems) for r in runs)
        if best is None or score < sum(len(r.problems) for r in best):
            best = tuple(runs)
    return best, partial


# ---------------------------------------------------------------- prose


@dataclass(frozen=True)
class ProseClaim:
    """A number on the pages next to a claim's words: status ``unchecked``, ``consistent`` or ``contradicts``."""

    status: str
    quantity: str
    value: str
    sentence: str
    page: int
    box: tuple
    certificate: str = ""  # the certificate of the system the sentence names
    detail: str = ""


_ABBREVIATION = re.compile(r"(?<![A-Za-z])(?:cf|Fig|Figs|Eq|Eqs|Sec|Secs|Tab|Thm|Ref|Refs|Lem|Def|Prop|Cor|Alg|App|"
                           r"Ch|No|vs|resp|al|e\.g|i\.e|p|pp|Vol|Eqn|Thms)\.$")


def _sentences(stream):
    """``[(text, [glyph index per character])]``: the pages' text with spaces, cut into sentences."""
    from .pages import line_text

    chars, index = [], []
    for first, end in stream.lines:
        line = tuple(g for _, g in stream.glyphs[first:end])
        text = line_text(line)
        if first in stream.furniture:  # a running head or page number: a sentence of its own; line numbers: none
            if not all(getattr(g, "role", None) == "line number" for g in line):
                chars += ["\x00"] + list(text) + ["\x00"]
                index += [first] + [min(first + k, end - 1) for k in range(len(text))] + [first]
            continue
        if chars and chars[-1] == "-" and text[:1].islower():  # a word hyphenated at the line's end
            chars.pop()
            index.pop()
        elif chars:
            chars.append(" ")
            index.append(first)
        k = first
        for c in text:
            chars.append(c)
            index.append(min(k, end - 1))
            if c != " ":
                k += 1
    text = normalize("".join(chars))
    if len(text) != len(chars):  # a ligature or symbol that normalizes to several characters: keep offsets
        text = "".join(chars)
    out, start = [], 0
    for m in re.finditer(r"(?<=[.!?])\s+(?=[A-Z(])|(?<=[.!?])(?=\d\s[A-Z])|\x00", text):
        if _ABBREVIATION.search(text, max(0, m.start() - 8), m.start()):  # "(cf. Fig. 1) needs 3 heads"
            continue
        out.append((text[start:m.start()], index[start:m.start()]))
        start = m.end()
    out.append((text[start:], index[start:]))
    return out


def values_of(data):
    """The counts a verified certificate proves for its system (every length, every case), or None."""
    from ..render.claims import values

    return values(data)


def prose_claims(stream, covered, systems, fragments=(), beside=None):
    """Every number claim of the pages' prose (see the module's description).

    Parameters
    ----------
    stream : Stream
    covered : set of int
        Glyph indices inside shown certified statements (their numbers are not prose).
    systems : list of (name, certificate path, values, kind)
        The systems of the verified certificates, by the name their fragments typeset.
    fragments : list of (first glyph, end glyph, system)
        Shown fragments (from their title to their proof's end): a number there is about the fragment's system;
        one its certificate proves, or one qualified ("H < 2 heads"), is part of the fragment and not listed.
    """
    out = []
    for text, index in _sentences(stream):
        found = numbers(text)
        if not found:
            if beside is not None and index and _CLAIM_WORDS.search(text) and _named_system(text, len(text), systems):
                glyphs = sorted(set(i for i in index if i not in covered))
                reasons = beside(glyphs) if glyphs else ()
                if reasons:  # "the rotation needs [a 3 drawn as a path] heads"
                    named = _named_system(text, len(text), systems)
                    page, glyph = stream.glyphs[glyphs[0]]
                    out.append(ProseClaim("unchecked", "unreadable", "", " ".join(text.split())[:300], page,
                                          glyph.bbox, named[1], f"{reasons[0]}; what it shows is not read"))
            continue
        for quantity, value, offset, qualified in found:
            if not index or offset >= len(index) or index[offset] in covered:
                continue
            page, glyph = stream.glyphs[index[offset]]
            sentence = " ".join(text.split())
            if len(sentence) > 300:
                lo = max(0, offset - 140)
                sentence = ("..." if lo else "") + " ".join(text[lo:lo + 280].split()) + "..."
            inside = next((f[2] for f in fragments if f[0] <= index[offset] < f[1]), None)
            named = inside or _named_system(text, offset, systems)
            v = NUMBER_WORDS.get(value.lower(), value)
            if inside is not None and (qualified or (inside[2] is not None and int(v) in inside[2])):
                continue
            if named is None or qualified or quantity == "decay rate":
                status, cert, detail = "unchecked", "", ""
                if named is not None:
                    cert = named[1]
                    detail = "qualified; not compared" if qualified else "not compared"
            else:
                name, cert, vals = named[:3]
                wrong = _wrong_lengths(text, offset, int(v), named)
                if vals is None:
                    status, detail = "unchecked", "not a count the certificate proves"
                elif int(v) in vals and wrong:
                    status, detail = "contradicts", f"{name}: {wrong}"
                elif int(v) in vals:
                    status, detail = "consistent", f"{name}: the certificate proves {quantity} {v}"
                else:
                    status = "contradicts"
                    detail = (f"{name}: the certificate proves {quantity} "
                              f"{' or '.join(str(x) for x in sorted(vals))}, not {v}")
            out.append(ProseClaim(status, quantity, str(value), sentence, page, glyph.bbox, cert, detail))
    return out


_LENGTHS = re.compile(r"(?<![\w\\])n\s*(≥|>)\s*(\d{1,6})\b(?![./]\d)")


def _wrong_lengths(text, offset, value, system):
    """Why "``value`` for every n >= m" (the range the sentence states) is not what the certificate proves, or "".

    ``system[4]``, when there, gives the counts the certificate proves at one length (None: not a head count).
    """
    at = system[4] if len(system) > 4 else None
    lo = max(0, offset - 80)
    cuts = [0] + [c.end() for c in re.finditer(r"[;()]|\b(?:while|whereas|but|and)\b", text[lo:offset + 100])] + [10**6]
    here = offset - lo
    start = max(c for c in cuts if c <= here)
    end = min(c for c in cuts if c > here)
    m = _LENGTHS.search(text[lo + start:lo + end])  # a range in the number's own clause
    if at is None or m is None:
        return ""
    low = int(m.group(2)) + (m.group(1) == ">")
    got, last = at(max(low, 1)), at(10**6)
    if got is None or last is None or got == {value} == last:
        return ""
    shown = ", ".join(str(x) for x in sorted(got))
    return f"the certificate proves k({max(low, 1)}) = {shown}, so not {value} for every n {m.group(1)} {m.group(2)}"


_CLAIM_WORDS = re.compile(r"\bheads?\b|\bk\s*\(|\binteraction rank|\bdecay", re.I)


def _named_system(text, offset, systems):
    """The system a sentence names closest before ``offset`` (else after it), or None.  Names are compared
    without spaces and hyphens (a line may break at a name's hyphen)."""
    def flat(t):
        return squeeze(normalize(t)).lower().replace("-", "")

    whole, here = flat(text), len(flat(text[:offset]))
    best = None
    for entry in systems:
        name = flat(entry[0])
        if len(name) < 4:
            continue
        for m in re.finditer(re.escape(name), whole):
            d = here - m.end() if m.end() <= here else 10**6 + m.start() - here
            if best is None or d < best[0]:
                best = (d, entry)
    return None if best is None else best[1]
