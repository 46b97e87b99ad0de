"""``symssm audit PAPER.tex``: re-verify every symssm result a paper prints.

A reviewer's one command.  The paper is read as TeX reads it: its ``\\input`` and ``\\include``
files are followed (relative to the paper's folder, ``.tex`` added when missing, commented-out
commands ignored).  Every symssm fragment and macro file starts with a comment naming its
certificate's SHA-256 and the options it was rendered with, and ends with a matching comment
(:mod:`symssm.render.style`).  For each one the audit

1. finds the certificate among the ``.json`` files under ``--certificates DIR`` (default: the
   paper's folder, recursively) by that SHA-256 (of the file's bytes, or of its canonical JSON);
2. re-checks it with the independent checker, in a separate process with the checker's time and
   memory limits;
3. re-renders it with the recorded options and compares the result with the text in the paper.

One line per fragment: ``VERIFIED``, ``EDITED`` (the text differs from what the certificate
renders: the first differing line is named), ``MISSING CERTIFICATE`` or ``FAILS CHECK`` (the
checker's first failed obligation); text that looks like a symssm fragment but has no marker is
``EDITED`` too.  Exit status 0 only when every fragment verifies, 1 otherwise (also when there is
none), 2 when the paper or folder cannot be read.

Examples
--------
>>> import os, tempfile
>>> from symssm import certify, ssm
>>> folder = tempfile.mkdtemp()
>>> cert = certify(ssm([[0, -1], [1, 0]], [[1], [0]], [[1, 0]]), 8)
>>> cert.save(os.path.join(folder, "rot.cert.json"))
>>> with open(os.path.join(folder, "rot.tex"), "w") as fh:
...     _ = fh.write(cert.to_latex(source="rot.cert.json"))
>>> with open(os.path.join(folder, "paper.tex"), "w") as fh:
...     _ = fh.write("\\\\documentclass{article}\\n\\\\begin{document}\\n\\\\input{rot}\\n\\\\end{document}\\n")
>>> findings, notes = audit_paper(os.path.join(folder, "paper.tex"))
>>> [f.status for f in findings]
['VERIFIED']
"""

import hashlib
import os
import re
import shlex
from dataclasses import dataclass
from typing import Optional

from ..errors import InputError, SymssmError

__all__ = ["Finding", "audit_paper", "audit_lines", "MAX_TEX_BYTES", "MAX_TEX_FILES", "MAX_JSON_FILES"]

#: Largest TeX file read, in bytes.
MAX_TEX_BYTES = 16 * 2**20
#: Most TeX files followed through ``\\input``/``\\include``.
MAX_TEX_FILES = 500
#: Most ``.json`` files indexed under the certificates folder; larger ones than 256 MB are skipped.
MAX_JSON_FILES = 20000
MAX_JSON_BYTES = 256 * 2**20

_BEGIN = re.compile(r"% symssm (fragment|macros): ([a-z-]+) certificate ([0-9a-f]{64}); file (\S+); options (.*)")
_END = re.compile(r"% end of symssm (fragment|macros) ([0-9a-f]{64})")
_INPUT = re.compile(r"\\(input|include)\s*(?:\{([^{}]*)\}|([^\s{}%\\]+))")
#: Text that only a symssm fragment writes: seen outside a marked block, it was pasted without its markers.
_SIGNS = ("\\symssmspan", "{symssmtheorem}")


@dataclass(frozen=True)
class Finding:
    """One line of the audit: a fragment (or macro file, or unmarked text) and its verdict."""

    status: str  # VERIFIED, EDITED, MISSING CERTIFICATE, FAILS CHECK
    file: str
    line: int
    what: str  # "head-count fragment", "macros", ...
    certificate: Optional[str]
    detail: str = ""

    def text(self):
        where = f"{self.file}:{self.line}"
        cert = f" ({self.certificate})" if self.certificate else ""
        return f"{self.status}: {where}: {self.what}{cert}" + (f": {self.detail}" if self.detail else "")


def _strip_comment(line):
    """The line up to its first unescaped ``%``."""
    out, i = [], 0
    while i < len(line):
        ch = line[i]
        if ch == "\\" and i + 1 < len(line):
            out.append(line[i:i + 2])
            i += 2
            continue
        if ch == "%":
            break
        out.append(ch)
        i += 1
    return "".join(out)


def _read_tex(path):
    try:
        if not os.path.isfile(path):
            raise InputError(f"{path}: not a file")
        if os.path.getsize(path) > MAX_TEX_BYTES:
            raise InputError(f"{path}: larger than {MAX_TEX_BYTES // 2**20} MB, not read")
        with open(path, "rb") as fh:
            raw = fh.read(MAX_TEX_BYTES + 1)
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    if b"\0" in raw:
        raise InputError(f"{path}: not a TeX file (it contains NUL bytes)")
    return raw.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")


def _resolve(root, name):
    name = name.strip()
    if not name or "\0" in name:
        return None
    candidates = [name + ".tex", name] if not name.endswith(".tex") else [name]
    for c in candidates:
        path = c if os.path.isabs(c) else os.path.join(root, c)
        if os.path.isfile(path):
            return path
    return None


def _expand(paper):
    """(lines, notes): the paper's lines in reading order as (file, line number, text), following inputs."""
    root = os.path.dirname(os.path.abspath(paper))
    lines, notes, seen = [], [], []

    def walk(path, stack):
        if len(seen) >= MAX_TEX_FILES:
            raise InputError(f"{paper}: more than {MAX_TEX_FILES} input files; not audited")
        seen.append(path)
        text = _read_tex(path)
        shown = os.path.relpath(path, root) if path != paper else paper
        for number, line in enumerate(text.split("\n"), 1):
            lines.append((shown, number, line))
            for m in _INPUT.finditer(_strip_comment(line)):
                name = m.group(2) if m.group(2) is not None else m.group(3)
                target = _resolve(root, name)
                if target is None:
                    notes.append(f"note: {shown}:{number}: \\{m.group(1)}{{{name[:80]}}} not found beside the paper; "
                                 "not followed")
                    continue
                real = os.path.realpath(target)
                if real in stack:
                    raise InputError(f"{shown}:{number}: \\{m.group(1)}{{{name[:80]}}} inputs itself (a cycle)")
                walk(target, stack + [real])

    walk(paper, [os.path.realpath(paper)])
    return lines, notes


def _blocks(lines):
    """(marked blocks, unmarked findings): blocks are dicts with the marker's fields and the text."""
    blocks, loose, i = [], [], 0
    while i < len(lines):
        file, number, text = lines[i]
        m = _BEGIN.fullmatch(text.rstrip())
        if not m:
            if any(sign in _strip_comment(text) for sign in _SIGNS):
                loose.append(Finding("EDITED", file, number, "symssm text without its marker comments", None,
                                     "it cannot be traced to a certificate; paste the whole fragment"))
                while i + 1 < len(lines) and any(s in lines[i + 1][2] for s in _SIGNS + ("\\end{proof}",)):
                    i += 1
            i += 1
            continue
        what, kind, sha, source, options = m.groups()
        body = [text.rstrip()]
        j, closed = i + 1, False
        while j < len(lines):
            body.append(lines[j][2].rstrip())
            e = _END.fullmatch(lines[j][2].rstrip())
            if e:
                closed = e.group(1) == what and e.group(2) == sha
                break
            if _BEGIN.fullmatch(lines[j][2].rstrip()):
                body.pop()
                j -= 1
                break
            j += 1
        blocks.append({"what": what, "kind": kind, "sha": sha, "source": source, "options": options,
                       "file": file, "line": number, "text": "\n".join(body) + "\n", "closed": closed})
        i = j + 1
    return blocks, loose


def _index(folder, wanted):
    """{sha256: (path, sha256 of its bytes)} of the ``.json`` files under ``folder`` whose bytes or canonical JSON
    hash to a wanted value (the bytes' hash lets the audit notice a file that changes while it runs)."""
    from ..formats.jsonio import loads_strict
    from .style import certificate_sha256

    found, count = {}, 0
    for top, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".json"):
                continue
            count += 1
            if count > MAX_JSON_FILES:
                return found
            path = os.path.join(top, name)
            try:
                if not os.path.isfile(path) or os.path.getsize(path) > MAX_JSON_BYTES:
                    continue
                with open(path, "rb") as fh:
                    raw = fh.read()
            except OSError:
                continue
            raw_digest = digest = hashlib.sha256(raw).hexdigest()
            if digest in wanted:
                found.setdefault(digest, (path, raw_digest))
                continue
            try:
                data = loads_strict(raw.decode("utf-8"), what=path)
                digest = certificate_sha256(data) if isinstance(data, dict) else None
            except (SymssmError, UnicodeDecodeError, ValueError, TypeError, RecursionError):
                continue
            if digest in wanted:
                found.setdefault(digest, (path, raw_digest))
    return found


def _check(path):
    """(code, message) of the independent checker on ``path``, isolated with its default limits."""
    from ..checker.core import check_file
    from ..checker.isolate import Undecided, default_seconds, run_isolated

    seconds = default_seconds(os.path.getsize(path))

    def task():
        try:
            res = check_file(path, max_seconds=seconds)
        except Exception as exc:  # noqa: BLE001 - fail closed
            return {"code": 2, "message": f"undecided ({type(exc).__name__})"}
        return {"code": res.code, "message": res.message}

    try:
        out = run_isolated(task, seconds=seconds + 0.4, limit_text=f"the checker's limit of {seconds:.3g} s")
    except Undecided as exc:
        return 2, str(exc)
    return out["code"], out["message"]


def _options(text):
    """Render keyword arguments from a marker's recorded options (its own grammar; nothing is evaluated)."""
    if text == "-":
        return {}
    try:
        words = shlex.split(text)
    except ValueError:
        raise InputError("unreadable options") from None
    flags = {"--label": "label", "--environment": "environment", "--theorem-name": "theorem_name",
             "--prefix": "prefix"}
    out, i = {}, 0
    while i < len(words):
        w = words[i]
        if w == "--macros":
            out["macros"] = True
            i += 1
        elif w in flags and i + 1 < len(words):
            out[flags[w]] = words[i + 1]
            i += 2
        else:
            raise InputError(f"unknown option {w[:40]!r}")
    return out


def _first_difference(a, b):
    la, lb = a.split("\n"), b.split("\n")
    for k, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return k
    return min(len(la), len(lb))


def audit_paper(paper, certificates=None):
    """Audit a paper: (a :class:`Finding` per symssm fragment or macro file, in reading order; notes).

    Parameters
    ----------
    paper : str
        The main ``.tex`` file.
    certificates : str, optional
        Folder searched recursively for the certificates (default: the paper's folder).

    Raises
    ------
    InputError
        If the paper or the folder cannot be read, or inputs form a cycle.
    """
    from ..certificate.envelope import check_envelope
    from ..formats.jsonio import loads_strict
    from .latex import _render_checked

    paper = os.fspath(paper)
    folder = os.fspath(certificates) if certificates is not None else (os.path.dirname(os.path.abspath(paper)))
    if not os.path.isdir(folder):
        raise InputError(f"{folder}: not a folder of certificates")
    lines, notes = _expand(paper)
    blocks, loose = _blocks(lines)
    index = _index(folder, {b["sha"] for b in blocks})
    verdicts = {}
    findings = []
    for b in blocks:
        what = f"{b['kind']} {b['what']}" if b["what"] == "fragment" else f"{b['kind']} macros"
        path, indexed = index.get(b["sha"], (None, None))
        shown = os.path.relpath(path) if path else b["source"] if b["source"] != "-" else None
        if path is None:
            findings.append(Finding("MISSING CERTIFICATE", b["file"], b["line"], what, shown,
                                    f"no .json file under {folder} has sha256 {b['sha'][:16]}..."))
            continue
        if path not in verdicts:
            verdicts[path] = _check(path)
        code, message = verdicts[path]
        if code != 0:
            findings.append(Finding("FAILS CHECK", b["file"], b["line"], what, shown,
                                    ("rejected: " if code == 1 else "undecided: ") + message))
            continue
        if not b["closed"]:
            findings.append(Finding("EDITED", b["file"], b["line"], what, shown, "its closing marker comment is "
                                    "missing or does not match"))
            continue
        try:
            with open(path, "rb") as fh:
                raw = fh.read()
            if hashlib.sha256(raw).hexdigest() != indexed:
                raise InputError("the file changed while it was audited")
            data = loads_strict(raw.decode("utf-8"), what=path)
            check_envelope(data)
            options = _options(b["options"])
            source = None if b["source"] == "-" else b["source"]
            expected = _render_checked(data, source=source, **options)
        except (SymssmError, UnicodeDecodeError, OSError) as exc:
            findings.append(Finding("EDITED", b["file"], b["line"], what, shown,
                                    f"its marker cannot be re-rendered ({str(exc)[:120]})"))
            continue
        expected = "\n".join(x.rstrip() for x in expected.split("\n"))
        if expected == b["text"]:
            findings.append(Finding("VERIFIED", b["file"], b["line"], what, shown))
        else:
            k = _first_difference(b["text"], expected)
            findings.append(Finding("EDITED", b["file"], b["line"], what, shown,
                                    f"line {b['line'] + k} differs from what the certificate renders"))
    findings += loose
    findings.sort(key=lambda f: (f.file != paper, f.file, f.line))
    return findings, notes


def audit_lines(paper, certificates=None):
    """(exit code, lines to print) of ``symssm audit``.

    Raises
    ------
    InputError
        As :func:`audit_paper`.
    """
    findings, notes = audit_paper(paper, certificates)
    out = [f.text() for f in findings] + notes
    bad = sum(f.status != "VERIFIED" for f in findings)
    if not findings:
        out.append(f"audit: no symssm fragment or macro file found in {paper} or its inputs")
        return 1, out
    if bad:
        out.append(f"audit: {bad} of {len(findings)} symssm results do not verify")
        return 1, out
    out.append(f"audit: all {len(findings)} symssm results verified (certificates re-checked, text identical)")
    return 0, out
