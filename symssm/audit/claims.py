"""Find the certified statements on the pages, and list every other claim the pages make.

A statement is **shown** when found in the glyphs in reading order (displays also by position: :func:`page_order`)
with no glyph problem from :mod:`~symssm.audit.pages`.  **Prose** (:func:`prose_claims`): a number of heads,
``k(n)``, an interaction rank or a decay rate outside a shown statement is compared with the certificate of the
system its sentence names, else ``unchecked``; one after "at least", "not", "fewer than", ... never is.

Examples
--------
>>> [(q, v) for q, v, _, _ in numbers("The rotation needs exactly two attention heads, and k(8) = 2.")]
[('heads', 'two'), ('k(n)', '2')]
>>> [(q, v, qualified) for q, v, _, qualified in numbers("No model with fewer than 3 heads works.")]
[('heads', '3', True)]
"""

import bisect
import re
from collections import Counter, namedtuple
from itertools import accumulate
from dataclasses import dataclass

from .pages import line_text, text_lines
from .statements import normalize, significant, squeeze

__all__ = ["Run", "Stream", "find_whole", "occurrences", "numbers", "negated_before", "page_order",
           "prose_claims", "NUMBER_WORDS", "ProseClaim", "PART_WINDOW"]

NUMBER_WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve thirteen "
                                           "fourteen fifteen sixteen seventeen eighteen nineteen twenty".split())}
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
    # "a single head", "a single attention head" (not "single-head", an adjective of a layer)
    ("heads", re.compile(r"\b(?P<v>single)\s+(?:attention\s+)?heads?\b", re.I)),
    ("decay rate", re.compile(r"\bdecay(?:s|ing)?\s+(?:rate|at\s+(?:a\s+)?rate)\s*(?:of\s+|is\s+|r\s*=\s*|=\s*|"
                              r"at most\s+|≤\s*)*(?P<v>\d+(?:[./]\d+)?)", re.I)),
]
_QUALIFIERS = re.compile(r"\b(?:not|no|never|cannot|can't|fail|fails|fewer|less|least|most|more than|up to|below|"
                         r"above|than|beyond|instead|rather|except|exceed|exceeds|only if|if and only|under|over|"
                         r"single-head|bound|bounded)\b", re.I)
_COMPARED = re.compile(r"[<>≤≥≠]\s*$")
#: Words after a number in its clause that deny it ("a single head is not enough", "one head cannot").
_DENIED = re.compile(r"[^,;:.!?]*?\b(?:not|n't|cannot|never|insufficient|too few|fails?|no longer)\b", re.I)


def numbers(text):
    """``[(quantity, value, offset, qualified)]``: the numbers a sentence states next to a claim's words."""
    out, taken = [], set()
    for quantity, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            if m.start("v") in taken:
                continue
            taken.add(m.start("v"))
            before = re.split(r"[;:]|\b(?:but|whereas|while)\b", text[max(0, m.start() - 40):m.start("v")])[-1]
            qualified = bool(_QUALIFIERS.search(before) or _COMPARED.search(before) or _DENIED.match(text, m.end()))
            out.append((quantity, m.group("v"), m.start("v"), qualified))
    out.sort(key=lambda t: t[2])
    return out


@dataclass(frozen=True)
class Run:
    """Where a text was found: ``glyphs`` ((page number, Glyph), ...), ``start`` and ``end`` (glyph indices);
    ``display``: a theorem's formulas compared as a multiset (a "bag" segment)."""

    glyphs: tuple
    start: int
    end: int
    display: bool = False

    @property
    def problems(self):  # ("drawn in white on page 2", ...), once each
        return tuple(dict.fromkeys(f"{p} on page {page}" for page, g in self.glyphs for p in g.problems))

    @property
    def page(self):
        return self.glyphs[0][0] if self.glyphs else None


class Stream:
    """The pages' glyphs in reading order: ``text`` (squeezed, furniture left out, a line-ending hyphen before a
    letter as ``\\x01``), ``where`` (each character's index into ``glyphs``), ``lines`` ((first, end) indices)."""

    def __init__(self, pages):
        self.glyphs, self.lines, self.furniture = [], [], set()  # (page number, Glyph); (first, end); indices
        for page in pages:
            for line in text_lines(page):  # two-column pages column by column
                first = len(self.glyphs)
                self.glyphs += [(page.number, g) for g in line]
                self.lines.append((first, len(self.glyphs)))
                if all(g.role in ("margin", "line number") for g in line):
                    self.furniture.update(range(first, len(self.glyphs)))
        line_end = {end - 1 for _, end in self.lines}
        chars, following, nexts, folded = [], "", [""] * len(self.glyphs), {}
        for i in range(len(self.glyphs) - 1, -1, -1):  # the first character of the next glyph not furniture
            nexts[i] = following
            following = following if i in self.furniture else self.glyphs[i][1].char[:1]
        for i, (_, g) in enumerate(self.glyphs):
            if i not in self.furniture:
                folded.setdefault(g.char, squeeze(normalize(g.char)))
                # a hyphen that ends a line before a letter may be TeX's (not in the text) or the text's own
                hyphen = i in line_end and nexts[i].isalpha()
                for c in folded[g.char]:
                    if chars and {c, chars[-1][0]} == {"=", "\u0338"}:  # TeX's \neq: two glyphs, either order
                        chars[-1] = ("≠", chars[-1][1])
                    else:
                        chars.append(("\x01" if c == "-" and hyphen else c, i))
        self.text = "".join(c for c, _ in chars)
        self.where = [i for _, i in chars]
        # thin horizontal rules (fraction bars): a display's numerator is read above its bar, in the bar's width
        self.rules = {page.number: [d[1] for d in page.drawings if d[0] == "drawing" and
                                    d[1][3] - d[1][1] <= 1.2 and d[1][2] - d[1][0] >= 2.0] for page in pages}

    def run(self, a, b):
        first, last = self.where[a], self.where[b - 1]  # furniture between (a page's line numbers) left out
        return Run(tuple(g for i, g in enumerate(self.glyphs[first:last + 1], first) if i not in self.furniture),
                   first, last + 1)


def _pattern(text, fold_first=False):
    """A regular expression for ``text`` squeezed and normalized in the stream (TeX's hyphens allowed)."""
    target = squeeze(normalize(text))
    if not target:
        return None
    first = f"[{re.escape(target[0].lower())}{re.escape(target[0].upper())}]" if fold_first else re.escape(target[0])
    return re.compile("\x01?".join([first] + ["(?:-|\x01)" if c == "-" else re.escape(c) for c in target[1:]]))


def occurrences(stream, text, after, before):
    """Every :class:`Run` of ``text`` (its first letter in either case) starting at glyph ``after`` to ``before``."""
    pattern = _pattern(text, True)
    return [stream.run(m.start(), m.end()) for m in (pattern.finditer(stream.text) if pattern else ())
            if after <= stream.where[m.start()] <= before]


PART_WINDOW = 6000  # how far (in glyphs) a theorem's parts (title, displays, last paragraph) may lie apart


def _bands(glyphs, axis, gap, box):
    """The glyphs cut where no glyph's ink (``box``) crosses (``axis`` 0: x, left to right; 1: y, top to bottom);
    bands of letters, digits and signs closer than ``gap`` kept together (a delimiter is never joined by it)."""
    lo, hi = (0, 2) if axis == 0 else (1, 3)
    out, edge, joins = [], None, False
    for g in sorted(glyphs, key=lambda g: box[id(g)][lo] if axis == 0 else -box[id(g)][hi]):
        a, b = (box[id(g)][lo], box[id(g)][hi]) if axis == 0 else (-box[id(g)][hi], -box[id(g)][lo])
        sig = bool(significant(g.char))
        if out and (a < edge or a < edge + gap and sig and joins):
            out[-1].append(g)
            edge, joins = (b, sig) if b > edge else (edge, joins)
        else:
            out.append([g])
            edge, joins = b, sig
    return out


#: The top and bottom pieces of tall parentheses, brackets and braces (Unicode, and the fonts' private codes).
_TOPS, _BOTTOMS = "⎛⎞⎡⎤⎧⎫\uf8eb\uf8f6\uf8ee\uf8f9\uf8f1\uf8fc", "⎝⎠⎣⎦⎩⎭\uf8ed\uf8f8\uf8f0\uf8fb\uf8f3\uf8fe"


def page_order(glyphs):
    """A display's significant characters in :func:`~symssm.audit.statements.display_order`'s order: cut at gaps of
    ink, top to bottom, then left to right, again in each band (a matrix's columns, then rows), else left to
    right.  A tall delimiter's top piece spans down to its bottom piece (the extension may be a rule)."""
    glyphs, box = list(glyphs), {id(g): g.bbox for g in glyphs}
    for top in (g for g in glyphs if g.char in _TOPS):
        below = [b.bbox for b in glyphs if b.char in _BOTTOMS and abs(b.bbox[0] - top.bbox[0]) < 1 and
                 b.bbox[3] <= top.bbox[1] + 1]
        if below:
            box[id(top)] = (top.bbox[0], max(below, key=lambda b: b[3])[1], top.bbox[2], top.bbox[3])

    def order(gl):
        if len(gl) < 2:
            return gl
        for axis, gap in ((1, 0.0), (0, 4.5), (0, 0.0)):
            bands = _bands(gl, axis, gap, box)
            if len(bands) > 1:
                return [g for band in bands for g in order(band)]
        return sorted(gl, key=lambda g: (box[id(g)][0], -box[id(g)][3]))

    return "".join(significant(g.char) for g in order(glyphs))


_Rule = namedtuple("_Rule", "char bbox")


def _rules_within(rules, glyphs):
    """The rules inside the glyphs' extent, as glyphs without a character (a fraction's bar groups its
    numerator with its denominator in :func:`page_order`)."""
    if not rules or not glyphs:
        return []
    x0, y0 = min(g.bbox[0] for g in glyphs), min(g.bbox[1] for g in glyphs)
    x1, y1 = max(g.bbox[2] for g in glyphs), max(g.bbox[3] for g in glyphs)
    return [_Rule(" ", r) for r in rules if x0 - 1 <= r[0] and r[2] <= x1 + 1 and y0 <= r[1] and r[3] <= y1]


def _displays_shown(stream, first, end, displays):
    """Each display's :func:`page_order` found, in order, on whole lines of the glyphs ``first`` to ``end``."""
    lines, at = [(max(a, first), min(b, end)) for a, b in stream.lines if b > first and a < end], 0
    for want in displays:
        for i in range(at, len(lines)):
            glyphs = {}
            for j in range(i, len(lines)):
                for k in range(*lines[j]):
                    if k not in stream.furniture:
                        glyphs.setdefault(stream.glyphs[k][0], []).append(stream.glyphs[k][1])
                got = "".join(page_order(gl + _rules_within(stream.rules.get(num, ()), gl))
                              for num, gl in sorted(glyphs.items()))
                if got == want or len(got) > len(want):
                    break
            if got == want:
                at = j + 1
                break
        else:
            return want
    return None


def _bag_why(stream, pos, nxt, segment, following):
    """Why the glyphs from ``pos`` to ``nxt`` are not the bag ``segment`` (see :func:`find_whole`), else ""."""
    if nxt is None:
        return (f"altered: the certified theorem's \"{following[:48]}...\" is not on the page" if following else
                "altered: the theorem's end is not on the page")
    got = stream.text[pos:nxt.start()]
    want, have = Counter(significant(segment[1])), Counter(significant(got.replace("\x01", "")))
    missing, extra = want - have, have - want
    missing["-"] = 0 if missing.get("-", 0) <= got.count("\x01") else missing["-"]  # TeX broke a line at a hyphen
    missing, extra = "".join(sorted(missing.elements())), "".join(sorted(extra.elements()))
    if missing or extra:
        return ("altered: the theorem's formulas differ from the certificate's"
                + (f" (the page has \"{extra[:30]}\" more" if extra else " (")
                + (f"{', ' if extra else ''}\"{missing[:30]}\" fewer" if missing else "") + ")")
    unread = _displays_shown(stream, stream.where[pos], stream.where[nxt.start() - 1] + 1, segment[2]) \
        if nxt.start() > pos else None
    return (f"altered: a display's entries are not where the certificate's are (it reads \"{unread[:40]}\" left "
            "to right, matrices column by column)") if unread else ""


def find_whole(stream, statement):
    """``(runs, partial, reason)``: a statement's ``segments`` (see :class:`~symssm.audit.statements.Statement`)
    found as runs of glyphs, the occurrence with the fewest problems, or None; ``reason`` says what the page
    shows instead where the theorem was found but differs ("altered: ...")."""
    segs, text = statement.segments, stream.text
    best, partial, reason = None, (), ""
    for m in _pattern(segs[0][1], True).finditer(text):
        runs, why = [stream.run(m.start(), m.end())], ""
        pos = re.compile(r"[)\].:]{0,3}").match(text, m.end()).end()  # the theorem head's ")." (amsthm)
        for k, segment in enumerate(segs[1:], 1):
            if segment[0] == "seq":
                hit = _pattern(segment[1]).match(text, pos)
                if not hit:
                    nxt = _pattern(segment[1]).search(text, pos, pos + 4000)
                    shown = text[pos:min(nxt.start() if nxt else pos + 60, pos + 60)].replace("\x01", "-")
                    why = f"altered: the page shows \"{shown}\" where the certified theorem reads \"{segment[1][:60]}\""
                    break
                runs.append(stream.run(hit.start(), hit.end()))
                pos = hit.end()
                continue
            following = segs[k + 1][1] if k + 1 < len(segs) else None
            # the bag's own length and more (a family's cases can fill pages)
            nxt = _pattern(following).search(text, pos, pos + 4000 + 2 * len(segment[1])) if following else None
            why = _bag_why(stream, pos, nxt, segment, following)
            if why:
                break
            if nxt.start() > pos:
                bag = stream.run(pos, nxt.start())
                runs.append(Run(bag.glyphs, bag.start, bag.end, True))
            pos = nxt.start()
        else:
            if best is None or sum(len(r.problems) for r in runs) < sum(len(r.problems) for r in best):
                best = tuple(runs)
            continue
        if (len(runs) > 1 or text[m.end():m.end() + 1] == ")") and (len(runs) > len(partial) or not partial):
            partial, reason = tuple(runs), why  # a theorem head "(title)", at least
    return best, partial, reason


_NEGATIONS = re.compile(r"\b(?:not(?! only\b| surprising)|no longer|false|untrue|wrong|incorrect|fails? to|never|"
                        r"cannot|disprov\w*|refut\w*|nor)\b[^.:;!?]*$", re.I)


def negated_before(stream, run):
    """The words before ``run`` in its sentence (its line and the one before) that negate it, else ""."""
    k = bisect.bisect_right([a for a, _ in stream.lines], run.start) - 1
    lines = [stream.lines[i] for i in (k - 1, k) if i >= 0]
    text = " ".join(line_text(tuple(g for j, (_, g) in enumerate(stream.glyphs[a:min(b, run.start)], a)
                                    if j not in stream.furniture)) for a, b in lines)
    before = re.split(r"[.!?;:](?=\s+[A-Z(]|$)", normalize(text))[-1]
    return " ".join(before.split())[-60:] if _NEGATIONS.search(before) else ""


#: A number on the pages next to a claim's words: status ``unchecked``, ``consistent`` or ``contradicts``; the
#: certificate of the system its sentence names; ``at``: the index of its first glyph in the stream.
ProseClaim = namedtuple("ProseClaim", "status quantity value sentence page box certificate detail at")


_ABBREVIATION = re.compile(r"(?<![A-Za-z])(?:cf|Fig|Figs|Eq|Eqs|Sec|Secs|Tab|Thm|Ref|Refs|Lem|Def|Prop|Cor|Alg|App|"
                           r"Ch|No|vs|resp|al|e\.g|i\.e|p|pp|Vol|Eqn|Thms)\.$")


def _sentences(stream):
    """``[(text, [glyph index per character])]``: the pages' text with spaces, cut into sentences."""
    chars, index, previous = [], [], None
    for first, end in stream.lines:
        line = [g for _, g in stream.glyphs[first:end]]
        text = line_text(line)
        size = Counter(round(g.size, 1) for g in line).most_common(1)[0][0] if line else 0.0
        here = (stream.glyphs[first][0], size, line[0].origin[1] if line else 0.0)
        if previous is not None and first not in stream.furniture and here[0] == previous[0] and chars and \
                chars[-1] not in "\x00-" and (abs(size - previous[1]) > 0.12 * max(size, previous[1]) or
                                              0 < previous[2] - here[2] > 2.5 * max(size, previous[1])):
            chars.append("\x00")  # a title, a date, a heading or a caption ends where the type or spacing changes
            index.append(first)
        previous = here if first not in stream.furniture else previous
        idx = [min(first + n, end - 1) for n in accumulate((c != " " for c in text), initial=0)][:len(text)]
        if first in stream.furniture:  # a running head or page number: a sentence of its own; line numbers: none
            if any(g.role != "line number" for g in line):
                chars += ["\x00", *text, "\x00"]
                index += [first, *idx, first]
            continue
        if chars[-2:-1] and chars[-1] == "-" and chars[-2].isalpha() and text[:1].islower():
            del chars[-1], index[-1]  # a word hyphenated at the line's end (TeX hyphenates no word with a digit)
        elif chars[-1:] == ["-"]:
            pass  # a line broken after a name's own hyphen (``shift-N5-`` / ``p2``): no space
        elif chars:
            chars.append(" ")
            index.append(first)
        chars += text
        index += idx
    text = normalize("".join(chars))
    if len(text) != len(chars):  # a ligature or symbol that normalizes to several characters: keep offsets
        text = "".join(chars)
    out, start = [], 0
    for m in re.finditer(r"(?<=[.!?])\s+(?=[A-Z(]|\d+(?:\.\d+)*\s+[A-Z])|(?<=[.!?])(?=\d\s[A-Z])|\x00", text):
        if _ABBREVIATION.search(text, max(0, m.start() - 8), m.start()):  # "(cf. Fig. 1) needs 3 heads"
            continue
        out.append((text[start:m.start()], index[start:m.start()]))
        start = m.end()
    out.append((text[start:], index[start:]))
    return out


def prose_claims(stream, covered, systems, fragments=(), beside=None, numbered=None):
    """Every number claim of the pages' prose outside the glyph indices ``covered``.  ``systems``: ``(name, path,
    values, kind, counts at one length, {"headline", "family", "parameters", "N", "from"})`` of the verified
    certificates; ``fragments``: ``(first, end, system)`` of the shown ones (a proved or qualified number there
    is not listed); ``beside(glyph indices)``: what lies beside a sentence that names a system but has no number
    read; ``numbered``: {the paper's number of a shown fragment ("1"): [(its printed name or None, its system)]}.

    The system a number is about: the one the sentence names, else the only one with the states it names
    ("with N = 4 states"), else the one whose number it cites ("Result 1"), else, for a sentence that opens
    with "It", "Its", "This", "These" or "Such", the shown theorem just before it."""
    numbered, starts = numbered or {}, [a for a, _ in stream.lines]
    out = []
    for text, index in _sentences(stream):
        found, sentence = numbers(text), " ".join(text.split())
        named = _named_system(text, len(text), systems) if not found and _CLAIM_WORDS.search(text) else None
        glyphs = sorted(set(index) - covered) if named and beside is not None else ()
        reasons = beside(glyphs) if glyphs else ()
        if reasons:  # "the rotation needs [a 3 drawn as a path] heads"
            page, glyph = stream.glyphs[glyphs[0]]
            out.append(ProseClaim("unchecked", "unreadable", "", sentence[:300], page, glyph.bbox, named[1],
                                  f"{reasons[0]}; what it shows is not read", glyphs[0]))
        for quantity, value, offset, qualified in found:
            if offset >= len(index) or index[offset] in covered:
                continue
            page, glyph = stream.glyphs[index[offset]]
            # the whole lines of the sentence on the number's page (a crop of them cuts no word)
            box = _union_box([stream.glyphs[i][1].bbox for k in {bisect.bisect_right(starts, i) - 1 for i in index}
                              for i in range(*stream.lines[k]) if stream.glyphs[i][0] == page and
                              i not in stream.furniture]) or glyph.bbox
            lo = max(0, offset - 140)
            shown = sentence if len(sentence) <= 300 else \
                ("..." if lo else "") + " ".join(text[lo:lo + 280].split()) + "..."
            inside = next((f[2] for f in fragments if f[0] <= index[offset] < f[1]), None)
            named = inside or _named_system(text, offset, systems) or _states_system(text, systems) or \
                _referenced_system(text, numbered) or _nearest_system(text, index[offset], fragments)
            v = int(NUMBER_WORDS.get(value.lower(), 1 if value.lower() == "single" else value)) \
                if quantity != "decay rate" else None
            if inside is not None and (qualified or (inside[2] is not None and v in inside[2])):
                continue
            status, cert, detail = "unchecked", named[1] if named else "", ""
            if named and (qualified or v is None):
                detail = "qualified; not compared" if qualified else "not compared"
            elif named:
                name, vals = named[0], named[2]
                wrong = _wrong_lengths(text, offset, v, named, quantity) or _wrong_headline(text, offset, v, named)
                if vals is None:
                    detail = "not a count the certificate proves"
                elif v in vals:
                    status, detail = ("contradicts", f"{name}: {wrong}") if wrong else \
                        ("consistent", f"{name}: the certificate proves {quantity} {v}")
                else:
                    status = "contradicts"
                    detail = f"{name}: the certificate proves {quantity} {' or '.join(map(str, sorted(vals)))}, not {v}"
            out.append(ProseClaim(status, quantity, str(value), shown, page, box, cert, detail, index[offset]))
    return out


def _union_box(boxes):
    """The box around ``boxes``, or None."""
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
            max(b[3] for b in boxes)) if boxes else None


_LENGTHS = re.compile(r"(?<![\w\\])n\s*(≥|>|=)\s*(\d{1,6})\b(?![./]\d)|\b(?:length|lengths)\s+(?:of\s+)?"
                      r"(?:n\s*=\s*)?(\d{1,6})\b(?![./]\d)|\bk[a-z0-9⋆*]{0,4}\s*\(\s*(\d{1,6})\s*\)")


def _clause(text, offset):
    """The number's own clause: from the last ";", "(", ")", "while", "but", "and" before it to the next one."""
    lo = max(0, offset - 80)
    cuts = [0] + [c.end() for c in re.finditer(r"[;()]|\b(?:while|whereas|but|and)\b", text[lo:offset + 100])] + [10**6]
    start, end = max(c for c in cuts if c <= offset - lo), min(c for c in cuts if c > offset - lo)
    return text[lo + start:lo + end]


_AT_LENGTH = re.compile(r"k[a-z0-9⋆*]{0,4}\s*\(\s*(\d{1,6})\s*\)\s*=\s*$")


def _wrong_lengths(text, offset, value, system, quantity="heads"):
    """Why "``value`` for every n >= m" (or "at length m", "k(m) = value") is not what the certificate proves
    (``system[4]``: counts at n), or ""."""
    at = system[4] if len(system) > 4 else None
    m = _AT_LENGTH.search(text, max(0, offset - 30), offset) or \
        _LENGTHS.search(_clause(text, offset))  # a length or a range in the number's own clause
    if at is None or m is None:
        return ""
    if m.re is _AT_LENGTH or m.group(1) is None or m.group(1) == "=":
        n = int(m.group(1) if m.re is _AT_LENGTH else m.group(2) or m.group(3) or m.group(4))
        got = at(n) if n >= 1 else None
        return "" if got is None or got == {value} else \
            f"the certificate proves k({n}) = {', '.join(map(str, sorted(got)))}, not {value}"
    low = int(m.group(2)) + (m.group(1) == ">")
    got, last = at(max(low, 1)), at(10**6)
    if got is None or last is None or got == {value} == last:
        return ""
    return (f"the certificate proves k({max(low, 1)}) = {', '.join(map(str, sorted(got)))}, so not {value} for every "
            f"n {m.group(1)} {m.group(2)}")


_EVERY = re.compile(r"\b(?:for|at|in)\s+(?:every|all|each|any)\b|\b(?:always|whatever|regardless|uniformly)\b",
                    re.I)


def _wrong_headline(text, offset, value, system):
    """Why a count stated without a length is not what the certificate proves for every length from the
    certified one on (a family: for every parameter value when the sentence says "for every ..."), or ""."""
    info = system[5] if len(system) > 5 else {}
    if info.get("family"):
        counts = sorted(system[2] or ())
        if _EVERY.search(_clause(text, offset)) and counts and counts != [value]:
            return (f"the certificate's cases prove {' or '.join(map(str, counts))} (not {value} for every parameter "
                    "value)")
        return ""
    if _LENGTHS.search(_clause(text, offset)) or _AT_LENGTH.search(text, max(0, offset - 30), offset):
        return ""
    head = info.get("headline")
    if not head or head == {value}:
        return ""
    return (f"the certificate proves {' or '.join(map(str, sorted(head)))} for every length n ≥ {info.get('from')}, "
            f"so not {value} (the sentence names no length)")


_STATES = re.compile(r"\bN\s*=\s*(\d{1,4})\b(?:\s*states?)?|\b(\d{1,4}|" + _WORDS + r")\s+states\b", re.I)
_CITED = re.compile(r"\b(?:Certified result|Result|Theorem|Thm\.|Proposition|Prop\.|Lemma|Corollary)\s*"
                    r"(\d+(?:\.\d+)*)\b")
_ANAPHOR = re.compile(r"^\W*(?:It|Its|This|These|Such)\b")


def _states_system(text, systems):
    """The only certified system with the number of states the sentence names ("with N = 4 states"), or None."""
    sizes = {int(NUMBER_WORDS.get((m.group(2) or "").lower(), m.group(1) or m.group(2)))
             for m in _STATES.finditer(text)}
    found = [e for e in systems if len(e) > 5 and e[5].get("N") in sizes]
    return found[0] if len(found) == 1 else None


def _referenced_system(text, numbered):
    """The system of the shown theorem the sentence cites by its number ("Result 1"), or None: ``numbered``
    maps a number to ``[(printed name or None, system)]``; a name ending with the cited word ("Certified result"
    for "Result") is that theorem, else the only one whose name the paper chose."""
    found = []
    for m in _CITED.finditer(text):
        word, options = m.group(0)[:m.start(1) - m.start()].strip().rstrip(".").lower(), numbered.get(m.group(1), [])
        named = [s for name, s in options if name and name.lower().endswith(word)] if len(options) > 1 else \
            [s for _, s in options]
        named = named or [s for name, s in options if name is None]
        found += named if len(named) == 1 else []
    return found[0] if len({id(s) for s in found}) == 1 else None


def _nearest_system(text, at, fragments):
    """The system of the shown theorem just before a sentence that opens with "It", "This", ... (within a page
    of glyphs), or None."""
    if not _ANAPHOR.match(text):
        return None
    before = [f for f in fragments if f[1] <= at and at - f[1] < 4000]
    return max(before, key=lambda f: f[1])[2] if before else None


_CLAIM_WORDS = re.compile(r"\bheads?\b|\bk\s*\(|\binteraction rank|\bdecay", re.I)


def _named_system(text, offset, systems):
    """The system a sentence names closest before ``offset`` (else after it), or None (no spaces, hyphens)."""
    def flat(t):
        return squeeze(normalize(t)).lower().replace("-", "")

    whole, here, names = flat(text), len(flat(text[:offset])), [flat(e[0]) for e in systems]
    best = min(((here - m.end() if m.end() <= here else 10**6 + m.start() - here, i) for i, name in enumerate(names)
                if len(name) >= 4 for m in re.finditer(re.escape(name), whole)), default=None)
    return None if best is None else systems[best[1]]
