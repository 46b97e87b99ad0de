"""Does a Coq project state what a certificate claims?  ``symssm coq --check DIR CERT``.

A project that builds proves *its own* statement; this module says whether that statement is the
certificate's: the same exact rational system ``A, B, C, D`` (read from the ``Definition`` lines,
each list of exactly the certified shape), the theorem ``symssm_head_count`` for the certificate's
lengths and head count, and the libraries symssm ships, unchanged.  ``HeadCount.v`` is read
strictly: after its comments are removed, every sentence must be one that ``symssm coq`` writes
(the imports, the four system definitions, witness definitions, ``symssm_*`` theorems each proved
by tactics up to ``Qed``, ``Print Assumptions``); anything else (a ``Notation``, an ``Axiom``, a
second definition of ``A``, ``Admitted``, a command inside a proof) is a mismatch, and so is whatever
Coq would read otherwise than this module: a character other than printable ASCII, a quote inside a
comment, a file in the folder beside the sources.  Building the project is Coq's part.

Examples
--------
>>> import symssm
>>> from symssm.render.coq import coq_project
>>> rot = symssm.ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]], name="rotation")
>>> cert = symssm.certify(rot, 8)
>>> files = coq_project(cert, route="exact")
>>> check_files(files, cert.data)
(0, 'the project states the certificate: rotation k(n) = 2 for every n >= 2')
"""

import os
import re
from fractions import Fraction

from ..errors import InputError
from ..formats.rationals import int_from_digits, parse_rational

__all__ = ["check_project", "check_files", "statement"]

#: The largest file read (a generated HeadCount.v of N = 64 with 10,000-digit entries stays below it).
MAX_BYTES = 256 * 2**20
#: Digits of one integer in a system list (the certificate's own digit limit is 10,000 per entry;
#: scaled to a common denominator an entry has at most N^2 times as many).
MAX_INT_DIGITS = 10_000 * 64 * 64

_HEADER = {
    'Set Warnings "-notation-overridden,-ambiguous-paths,-notation-incompatible-prefix".',
    "From mathcomp Require Import all_ssreflect all_algebra.",
    "From Coq Require Import ZArith.",
    "From Coq Require Import ZArith Uint63.",
    "From Symssm Require Import SymssmLib.",
    "From Symssm Require Import SymssmLib SymssmReflect.",
    "Local Open Scope ring_scope.",
}
_WITNESS = re.compile(r"Definition (P|DS|RS|CS|X|Vz|Tz|Wz|Uz|T1z|Hz) : (Uint63\.int|seq nat|useq|zseq) := "
                      r"[\[\]:;0-9 ()%a-zZ-]*\.\Z")
_SYSTEM = re.compile(r"Definition ([ABCD]) : 'M\[rat\]_\(([0-9]{1,4}), ([0-9]{1,4})\) := "
                     r"qmx ([0-9]{1,4}) ([0-9]{1,4}) ([0-9]+|0x[0-9a-f]+)%Z (\[:: .*\]%Z|\[::\]%Z)\.\Z", re.S)
_ENTRY = re.compile(r"([0-9]+|0x[0-9a-f]+)|\(-([0-9]+|0x[0-9a-f]+)\)")
_THEOREM = re.compile(r"Theorem (symssm_[a-z_0-9]+) : (.*)\.\Z", re.S)
_LIBS = ("SymssmLib.v", "SymssmReflect.v")


def _library(name):
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "coq", name), encoding="utf-8") as fh:
        return fh.read()


class _Mismatch(ValueError):
    """A text ``--check`` cannot read as Coq reads it: the project does not state the certificate (exit 1)."""


def _strip_comments(text):
    """The text without its Coq comments (nested ``(* ... *)``); strings kept.

    Coq reads a ``"`` inside a comment as the start of a string in which ``*)`` closes nothing, so a quote
    in a comment would let the two readings of the file part: it is a mismatch (:class:`_Mismatch`), as is
    any character but printable ASCII, tab and line ends (Coq and this reader disagree on what other
    characters are blanks).  Unclosed: InputError.
    """
    for at, ch in enumerate(text):
        if not (32 <= ord(ch) < 127 or ch in "\t\n\r"):
            line = text.count("\n", 0, at) + 1
            raise _Mismatch(f"HeadCount.v line {line} holds the character U+{ord(ch):04X}; symssm writes printable "
                            "ASCII only")
    out, depth, i, n = [], 0, 0, len(text)
    in_string = False
    while i < n:
        two = text[i:i + 2]
        if depth == 0 and text[i] == '"':
            in_string = not in_string
            out.append('"')
            i += 1
        elif in_string:
            out.append(text[i])
            i += 1
        elif depth and text[i] == '"':
            line = text.count("\n", 0, i) + 1
            raise _Mismatch(f"HeadCount.v line {line} has a quote inside a comment, where Coq reads a string "
                            "(a *) in it closes nothing); symssm writes none")
        elif two == "(*":
            depth += 1
            i += 2
        elif two == "*)" and depth:
            depth -= 1
            i += 2
            if depth == 0:
                out.append(" ")
        else:
            if depth == 0:
                out.append(text[i])
            i += 1
    if depth or in_string:
        raise InputError("HeadCount.v has an unclosed comment or string")
    return "".join(out)


def _sentences(text):
    """Coq sentences: text up to a ``.`` followed by white space or the end (outside strings), normalised."""
    body = _strip_comments(text)
    out, start, in_string = [], 0, False
    for i, ch in enumerate(body):
        if ch == '"':
            in_string = not in_string
        elif ch == "." and not in_string and (i + 1 == len(body) or body[i + 1].isspace()):
            out.append(" ".join(body[start:i + 1].split()))
            start = i + 1
    rest = " ".join(body[start:].split())
    if rest:
        out.append(rest + "<end of file>")
    return out


def _integer(text):
    """A decimal or ``0x`` hexadecimal literal, of any size."""
    return int(text[2:], 16) if text.startswith("0x") else int_from_digits(text)


def _ints(text, what):
    """The rows of a ``[:: [:: 1; (-2)]; ...]%Z`` list, strictly."""
    if text == "[::]%Z":
        return []
    if not (text.startswith("[:: ") and text.endswith("]%Z")):
        raise ValueError(f"{what} is not a list of rows")
    inner = text[4:-3]
    rows = []
    for part in inner.split("; [:: ") if inner else []:
        part = part if part.startswith("[:: ") or part.startswith("[::]") else "[:: " + part
        if part == "[::]":
            rows.append([])
            continue
        if not (part.startswith("[:: ") and part.endswith("]")):
            raise ValueError(f"{what} has a row that is not a list")
        row = []
        for tok in part[4:-1].split("; "):
            m = _ENTRY.fullmatch(tok)
            if not m or len(tok) > MAX_INT_DIGITS + 3:
                raise ValueError(f"{what} has an entry that is not an integer: {tok[:30]!r}")
            row.append(_integer(m.group(1)) if m.group(1) is not None else -_integer(m.group(2)))
        rows.append(row)
    return rows


def statement(data):
    """The statements of the theorems a project of this certificate may hold, by theorem name.

    ``symssm_head_count`` states the certificate's claim: ``k(n) = head_count`` for every ``n`` of
    ``holds_for``; the others (the eventual value, the profile) state the certificate's profile.
    """
    lo, hi, k = data["holds_for"]["from"], data["holds_for"]["to"], data["head_count"]
    prof = data["profile"]
    values, n0, K = prof["values"], prof["constant_from"], prof["eventual"]
    rank = "\\rank (lags A B C D {}) = {}%nat"
    out = {"symssm_head_count": (f"forall n, ({lo} <= n)%nat -> " if hi is None
                                 else f"forall n, ({lo} <= n <= {hi})%nat -> ") + rank.format("n", k)}
    if hi is not None:
        out["symssm_eventual_head_count"] = f"forall n, ({n0} <= n)%nat -> " + rank.format("n", K)
    for i, v in enumerate(values, start=1):
        if i >= n0:
            break
        out[f"symssm_profile_{i}"] = rank.format(i, v)
    if hi is None and k == lo and all(v == i for i, v in enumerate(values[:lo - 1], start=1)):
        out["symssm_profile"] = f"forall i, (i <= {lo})%nat -> \\rank (lags A B C D i) = i"
    return out


def _system(data):
    s = data["system"]
    N, p, m = s["N"], s["p"], s["m"]
    D = s["D"] if s["D"] is not None else [["0"] * m for _ in range(p)]
    return {"A": (N, N, s["A"]), "B": (N, m, s["B"]), "C": (p, N, s["C"]), "D": (p, m, D)}


def check_files(files, data):
    """``(code, message)``: 0 the project states the certificate, 1 it does not (the first difference).

    Parameters
    ----------
    files : dict
        File name -> text of the project (``_CoqProject``, ``HeadCount.v``, the libraries).
    data : dict
        The certificate's data (a verified head-count certificate over Q).

    Raises
    ------
    InputError
        If ``HeadCount.v`` cannot be read as Coq sentences (an unclosed comment).
    """
    for lib in _LIBS:
        if lib in files and files[lib] != _library(lib):
            return 1, f"{lib} is not the library symssm ships"
    libs = [x for x in _LIBS if f"\n{x}\n" in "\n" + files.get("_CoqProject", "")]
    if files.get("_CoqProject") not in ("-R . Symssm\nSymssmLib.v\nHeadCount.v\n",
                                        "-R . Symssm\nSymssmLib.v\nSymssmReflect.v\nHeadCount.v\n"):
        return 1, "_CoqProject is not one symssm writes (-R . Symssm, the libraries, HeadCount.v)"
    for lib in libs:
        if lib not in files:
            return 1, f"_CoqProject names {lib}, which the project lacks"
    want_system = _system(data)
    want_theorems = statement(data)
    seen_system, seen_theorems = {}, set()
    try:
        sentences = _sentences(files["HeadCount.v"])
    except _Mismatch as exc:
        return 1, str(exc)
    i = 0
    while i < len(sentences):
        sent = sentences[i]
        shown = sent if len(sent) <= 80 else sent[:77] + "..."
        if sent in _HEADER and not seen_system:
            i += 1
            continue
        if sent == "Print Assumptions symssm_head_count.":
            i += 1
            continue
        m = _SYSTEM.match(sent)
        if m:
            name, r1, c1, r2, c2, den, body = m.groups()
            if name in seen_system:
                return 1, f"HeadCount.v defines {name} twice"
            if seen_theorems:
                return 1, f"HeadCount.v defines {name} after a theorem"
            rows, cols, entries = want_system[name]
            if (int(r1), int(c1), int(r2), int(c2)) != (rows, cols, rows, cols):
                return 1, (f"{name} is read as a {r2} x {c2} matrix of type {r1} x {c1}; the certificate's {name} is "
                           f"{rows} x {cols}")
            try:
                got = _ints(body, name)
            except ValueError as exc:
                return 1, f"HeadCount.v: {exc}"
            if len(got) != rows or any(len(row) != cols for row in got):
                return 1, (f"{name}'s list has {len(got)} rows of lengths {sorted({len(r) for r in got})}; the "
                           f"certificate's {name} is {rows} x {cols}")
            den = _integer(den)
            if den == 0:
                return 1, f"{name}'s denominator is 0"
            for r in range(rows):
                for c in range(cols):
                    if Fraction(got[r][c], den) != parse_rational(entries[r][c], what=f"{name}[{r}][{c}]"):
                        return 1, f"{name}[{r}][{c}] is not the certificate's entry {entries[r][c][:40]}"
            seen_system[name] = True
            i += 1
            continue
        if _WITNESS.match(sent):
            i += 1
            continue
        m = _THEOREM.match(sent)
        if m:
            name, stated = m.group(1), m.group(2)
            if len(seen_system) != 4:
                return 1, f"HeadCount.v states {name} before defining A, B, C and D"
            if name not in want_theorems:
                return 1, f"HeadCount.v states a theorem {name} that the certificate does not claim"
            if name in seen_theorems:
                return 1, f"HeadCount.v states {name} twice"
            if stated != want_theorems[name]:
                return 1, (f"{name} states {stated[:120]!r}; the certificate claims "
                           f"{want_theorems[name]!r}")
            seen_theorems.add(name)
            i += 1
            if i >= len(sentences) or sentences[i] != "Proof.":
                return 1, f"{name} is not followed by Proof."
            i += 1
            while i < len(sentences) and sentences[i] != "Qed.":
                first = sentences[i].split(" ", 1)[0]
                # a tactic starts with a lower-case letter or a goal selector's digit; a command does not
                # (``Axiom``, ``#[local] Notation``, ``- Set ...``), and Coq runs commands inside proofs
                if not re.match(r"[a-z0-9]", first) or re.search(r"\b(admit|give_up)\b", sentences[i]):
                    return 1, f"the proof of {name} holds a sentence symssm does not write: {sentences[i][:80]!r}"
                i += 1
            if i >= len(sentences):
                return 1, f"the proof of {name} does not end with Qed."
            i += 1
            continue
        return 1, f"HeadCount.v holds a sentence symssm does not write: {shown!r}"
    if len(seen_system) != 4:
        return 1, f"HeadCount.v does not define {', '.join(x for x in 'ABCD' if x not in seen_system)}"
    if "symssm_head_count" not in seen_theorems:
        return 1, "HeadCount.v does not state symssm_head_count"
    lo, hi, k = data["holds_for"]["from"], data["holds_for"]["to"], data["head_count"]
    span = f"every n >= {lo}" if hi is None else f"{lo} <= n <= {hi}"
    return 0, f"the project states the certificate: {_short(data['system']['name'])} k(n) = {k} for {span}"


def _short(name):
    text = "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in str(name)) or "(unnamed)"
    return text if len(text) <= 40 else text[:37] + "..."


#: What a project folder may hold: the sources symssm writes.
_SOURCES = ("_CoqProject", "HeadCount.v", "README.md") + _LIBS


def check_project(folder, data):
    """``check_files`` on a project folder that holds the sources symssm writes and nothing else.

    A build reads more than the sources: a compiled ``.vo`` newer than its ``.v`` is loaded as it is, a
    ``CoqMakefile.local`` changes the Makefile, and ``-R . Symssm`` maps every subfolder.  So any other
    entry (build outputs included) is a mismatch: check the sources, then build them.

    Raises
    ------
    InputError
        If the folder, its ``_CoqProject`` or ``HeadCount.v`` cannot be read (exit 2).
    """
    try:
        entries = sorted(os.listdir(folder))
    except OSError as exc:
        raise InputError(f"cannot read _CoqProject of the Coq project: {type(exc).__name__}") from None
    extra = [name for name in entries if name not in _SOURCES]
    if extra:
        shown = _short(extra[0])
        return 1, (f"the folder holds {shown!r}, which symssm does not write and a build may read (compiled files, "
                   f"CoqMakefile.local, subfolders); --check reads a folder of the sources alone: check it, then build")
    files = {}
    for name in ("_CoqProject", "HeadCount.v") + _LIBS:
        path = os.path.join(folder, name)
        if not os.path.lexists(path) and name in _LIBS:
            continue
        try:
            if os.path.islink(path) or not os.path.isfile(path):
                raise OSError("not a regular file")
            if os.path.getsize(path) > MAX_BYTES:
                raise InputError(f"{name} is larger than {MAX_BYTES // 2**20} MiB")
            with open(path, encoding="utf-8") as fh:
                files[name] = fh.read()
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read {name} of the Coq project: {type(exc).__name__}") from None
    return check_files(files, data)
