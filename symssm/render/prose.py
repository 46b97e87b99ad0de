"""Prose is read, not trusted: hand-written head counts and ranks in a paper's text, against its certificates.

Every number the paper writes by hand next to "head(s)", "k(n)", "k =", "r =", "interaction rank" or
"rank" (digits, or a number word up to twelve) is listed as an **unchecked** claim, with its file, line
and sentence.  When the sentence names a system with a certificate in the paper (it ``\\ref``\\s the
fragment's label, uses one of its macros, or names the system: its certified name, or the name's
leading word such as "jordan" or "HiPPO-LegS"; failing that, the sentence before it in the same
paragraph does), the number is compared with what the certificate proves about it: a number it
never takes (no length ``n``, no parameter value) **contradicts** the certificate, and the audit
fails.  A number qualified by "at least", "at most", "not", "fewer than", ... is listed, never
compared.

A family's generic count (``\\Symssm...HeadCount`` of a family certificate) used in a sentence that
neither says "generic" nor uses the family's macros for its exceptions is a **warning** naming the
exceptional cases.

Examples
--------
>>> [(q, v) for q, v, _, _ in numbers("The rotation needs exactly two attention heads, and k(8) = 2.")]
[('heads', 'two'), ('k(n)', '2')]
>>> [(q, v, qualified) for q, v, _, qualified in numbers("No model with fewer than 3 heads works.")]
[('heads', '3', True)]
"""

import os
import re

from ..certificate import kinds
from ..errors import InputError
from .claims import Unchecked, statement

__all__ = ["numbers", "check_prose", "NUMBER_WORDS", "head_count_values", "interaction_values", "family_values"]

NUMBER_WORDS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12}
_NUM = r"(?P<v>\d+|" + "|".join(NUMBER_WORDS) + r")\b(?![./]\d)"
_PATTERNS = [
    ("k(n)", re.compile(r"(?<![\w\\])k\s*\(\s*(?P<n>[\w\s^{}.,\\-]{1,16}?)\s*\)\s*=\s*(?P<v>\d+)\b(?![./]\d)")),
    ("interaction rank", re.compile(r"\binteraction rank\s*(?:of\s+|is\s+|equals?\s+|=\s*|r\s*=\s*|r\(X\)\s*=\s*|"
                                    r"exactly\s+|equal to\s+)*" + _NUM, re.I)),
    ("heads", re.compile(r"(?<![\w.])" + _NUM + r"(?:\s+|-)(?:(?:attention|softmax|linear|self-attention|"
                         r"additional|separate|distinct|independent|more|factorized)\s+){0,2}heads?\b", re.I)),
    ("rank", re.compile(r"(?<!interaction )\brank\s*(?:of\s+|is\s+|equals?\s+|=\s*|exactly\s+|equal to\s+)*" + _NUM,
                        re.I)),
    ("k", re.compile(r"(?<![\w\\(,_^])k\s*=\s*(?P<v>\d+)\b(?![./]\d)")),
    ("r", re.compile(r"(?<![\w\\(,_^])r\s*=\s*(?P<v>\d+)\b(?![./]\d)")),
]
_QUALIFIERS = re.compile(r"\b(?:not|no|never|cannot|can't|fail|fails|fewer|less|least|most|more than|up to|below|"
                         r"above|than|beyond|instead|rather|except|exceed|exceeds|only if|if and only|under|over|"
                         r"single-head|bound|bounded)\b", re.I)
_COMPARED = re.compile(r"(?:[<>≤≥]=?|\\[lg]eq?|!=)\s*$")
_PLACEHOLDER = re.compile("\ue000([mr]):([^\ue001]*)\ue001")


def _masked(text):
    """The text with its placeholders blanked (same length, so offsets stay)."""
    return _PLACEHOLDER.sub(lambda m: "\ue002" * len(m.group(0)), text)


def numbers(text):
    """``(quantity, value, offset, qualified)`` of the hand-written counts in a sentence (see the module)."""
    return [x[:4] for x in _numbers(text)]


def _numbers(text):
    """:func:`numbers`, each with the length in ``k(n) = ...`` (or None) as a fifth field."""
    masked = _masked(text)
    found, taken = [], []
    for quantity, pattern in _PATTERNS:
        for m in pattern.finditer(masked):
            span = m.span("v")
            if any(a < span[1] and span[0] < b for a, b in taken):
                continue
            taken.append(span)
            before = masked[max(0, m.start() - 40):span[0]]
            clause = re.split(r"[,;:(]", before)[-1]  # the words of the number's own clause
            qualified = bool(_QUALIFIERS.search(clause) or _COMPARED.search(masked[max(0, span[0] - 6):span[0]])
                             or _COMPARED.search(masked[max(0, m.start() - 6):m.start()]))
            found.append((quantity, m.group("v"), span[0], qualified, m.groupdict().get("n")))
    found.sort(key=lambda x: x[2])
    return found


def _value(text):
    return int(text) if text.isdigit() else NUMBER_WORDS[text.lower()]


def _stems(data):
    """Words that name a certificate's system in prose: its name, and the name's leading words."""
    name = (data.get("system") or {}).get("name") or ""
    out = set()
    if len(name) >= 3:
        out.add(name.lower())
    words = []
    for part in re.split(r"[-_\s]+", name):
        if not part.isalpha():
            break
        words.append(part.lower())
    for k in range(len(words), 0, -1):
        stem = "-".join(words[:k])
        if len(stem) >= 4 and stem not in ("symbolic", "every", "input", "layer", "system", "family", "random",
                                           "framework", "linear", "attention", "head", "heads", "step", "model"):
            out.add(stem)
    return out


def _values(data, n=None):
    """The counts a certificate proves for its system (at length ``n`` when given), or None when they are not head
    counts or ranks.  Without a length, a head count is the one the theorem states (and its eventual value)."""
    try:
        values = kinds.of(data).load("values")
    except InputError:
        return None
    return None if values is None else values(data, n)


def head_count_values(data, n=None):
    """A head count's values: at length ``n``, or the one the theorem states and the eventual one."""
    prof = data["profile"]
    if n is not None:
        return {prof["values"][n - 1] if n <= len(prof["values"]) else prof["eventual"]} if n >= 1 else None
    return {prof["eventual"], data["head_count"]}


def interaction_values(data, n=None):
    """An interaction rank's value."""
    return {data["interaction_rank"]}


def family_values(data, n=None):
    """A count for every parameter value: the values of its cases."""
    key = kinds.of(data).count
    return {b[key] for b in data["bodies"]}


def _is_family(data):
    """Whether certificate data proves its count for every parameter value (its row's ``family``)."""
    try:
        return kinds.of(data).family
    except InputError:
        return False


def _named(sentence, stems, macro_sha, label_sha):
    """{certificate SHA-256: offsets where the sentence names its system} (references, macros, system names)."""
    found = {}
    for m in _PLACEHOLDER.finditer(sentence):
        sha = (macro_sha if m.group(1) == "m" else label_sha).get(m.group(2))
        if sha is not None:
            found.setdefault(sha, []).append(m.start())
    low = _masked(sentence).lower()
    for sha, words in stems.items():
        for w in words:
            for m in re.finditer(r"(?<![\w-])" + re.escape(w) + r"(?![\w-])", low):
                found.setdefault(sha, []).append(m.start())
    return found


def _about(named, offset):
    """The certificate a number at ``offset`` is about: the only one named, or the one named closest before it
    (after it, when none is named before) within 80 characters; None when that is not clear."""
    if len(named) == 1:
        return next(iter(named))
    best = []
    for sha, offsets in named.items():
        before = [offset - o for o in offsets if o <= offset]
        after = [o - offset for o in offsets if o > offset]
        best.append((min(before) if before else 10**6, min(after) if after else 10**6, sha))
    best.sort()
    if best and best[0][0] <= 80 and (len(best) == 1 or best[1][0] > best[0][0]):
        return best[0][2]
    best.sort(key=lambda x: x[1])
    if best and best[0][0] == 10**6 and best[0][1] <= 80 and (len(best) == 1 or best[1][1] > best[0][1]):
        return best[0][2]
    return None


_LENGTH = re.compile(r"(?:\bn\s*=\s*|\blength(?:-|\s+(?:n\s*=\s*)?))(\d{1,18})\b")


def check_prose(read, report, state):
    """Fill ``report.unchecked`` and ``report.warnings`` from the paper's sentences."""
    macro_sha, label_sha, stems, family = {}, {}, {}, {}
    for b, claim in state.block_claims:
        data = state.data.get(b.sha)
        if claim.label:
            label_sha.setdefault(claim.label, b.sha)
        if data is not None:
            stems.setdefault(b.sha, _stems(data))
    for d in read.definitions:
        if d.block is not None and not d.environment:
            macro_sha.setdefault(d.name, d.block)
    for sha, data in state.data.items():
        if _is_family(data):
            family[sha] = data
    # systems named more than once by their stems (the same system at two sizes) are told apart by the full name
    previous, in_env = {}, {}
    for s in read.sentences:
        named = _named(s.text, stems, macro_sha, label_sha)
        key = s.paragraph
        env = (s.file, s.environment, s.env_line) if s.environment else None
        if env is not None and named and env not in in_env:
            in_env[env] = named  # a theorem's title names the system its sentences are about
        found = _numbers(s.text)
        nearby = named if named else (previous.get("named", {}) if previous.get("key") == key else {})
        if not nearby and env is not None:
            nearby = in_env.get(env, {})
        length = _LENGTH.search(_masked(s.text))
        for quantity, value, offset, qualified, n_text in found:
            file, line = s.line_at(offset)
            entry = Unchecked("unchecked", file, line, quantity, value, _sentence_text(s.text))
            sha = _about(nearby, offset if named else 0) if nearby else None
            if sha is not None and sha in state.data:
                data = state.data[sha]
                entry.certificate = os.path.relpath(state.paths[sha])
                n = int(n_text) if n_text and n_text.strip().isdigit() else (int(length.group(1)) if length else None)
                allowed = _values(data, n)
                if allowed is None:
                    entry.detail = f"not compared: the certificate proves {statement(data)}"
                elif qualified:
                    entry.detail = f"qualified, not compared; the certificate proves {statement(data)}"
                elif _value(value) in allowed:
                    entry.detail = f"agrees: the certificate proves {statement(data)}"
                else:
                    entry.status = "contradicts"
                    entry.detail = (f"the certificate proves {statement(data)}" + (f", so k({n}) = {min(allowed)}"
                                                                                  if n is not None else "")
                                    + f"; not {value}")
            elif len(nearby) > 1:
                entry.detail = "the sentence names several certified systems; not compared"
            report.unchecked.append(entry)
        _family_warnings(s, report, family, macro_sha)
        previous = {"key": key, "named": named}


def _sentence_text(text):
    out = _PLACEHOLDER.sub(lambda m: ("\\" + m.group(2)) if m.group(1) == "m" else "\\ref{" + m.group(2) + "}", text)
    return out if len(out) <= 300 else out[:297] + "..."


_QUALIFYING_MACROS = ("GenericCondition", "Exceptions", "MinHeadCount", "MaxHeadCount", "MinInteractionRank",
                      "MaxInteractionRank", "Cases", "Complete")


def _family_warnings(s, report, family, macro_sha):
    """A family's generic count in a sentence that does not say where it holds."""
    from .parametric import condition_text, outline

    macros = [name for kind, name in _PLACEHOLDER.findall(s.text) if kind == "m"]
    for name in macros:
        sha = macro_sha.get(name)
        if sha not in family or not (name.endswith("HeadCount") or name.endswith("InteractionRank")):
            continue
        if name.endswith(("MinHeadCount", "MaxHeadCount", "MinInteractionRank", "MaxInteractionRank")):
            continue
        data = family[sha]
        key = kinds.of(data).count
        cases = []
        for item in outline(data):
            if item.get("ref") is not None:  # a shared case: said at its first path
                continue
            if item["depth"] and item["k"] != data[key]:
                where = " and ".join(condition_text(c) for c in item["path"])
                cases.append(f"{'k' if key == 'head_count' else 'r'} = {item['k']} where {where}")
            for f in item["uncovered"]:
                cases.append(f"nothing proved where {f} = 0")
        if not cases:
            continue
        low = _masked(s.text).lower()
        if any(m.endswith(_QUALIFYING_MACROS) and macro_sha.get(m) == sha for m in macros) or \
                re.search(r"\bgeneric(?:ally)?\b|\bexcept\b|\boutside\b|\bspecial cases?\b", low):
            continue
        shown = "; ".join(cases[:6]) + (f"; and {len(cases) - 6} more" if len(cases) > 6 else "")
        report.warnings.append((s.line_at(0)[0], s.line_at(0)[1],
                                f"\\{name} is the family's generic value {data[key]}, used in a sentence that does not "
                                f"say it is generic; the certificate has exceptional cases: {shown} "
                                f"(\"{_sentence_text(s.text)[:160]}\")"))
