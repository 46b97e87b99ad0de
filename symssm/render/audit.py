"""``symssm audit PAPER.tex``: every symssm result a compiled paper shows, re-checked claim by claim.

A reviewer's one command.  The paper is read as TeX reads it (:mod:`symssm.render.paper`, never
evaluated): its ``\\input``/``\\include`` files are followed, conditionals, ``comment`` environments,
``\\includeonly`` and ``\\end{document}`` decide what is typeset.  Every symssm fragment, macro file
and framework table starts with a comment naming its certificate's SHA-256 and the options it was
rendered with, and ends with a matching comment (:mod:`symssm.render.style`).  The audit lists, in
the paper's order, every **claim** the paper shows:

- each **fragment** (a theorem with its proof), each **macro file**, each **framework table**: the
  certificate is found among the ``.json`` files under ``--certificates DIR`` (default: the paper's
  folder, recursively) by that SHA-256; re-checked by the independent checker in a separate
  process; re-rendered with the recorded options and compared with the paper's text **as TeX
  tokens** (re-wrapping a line is not an edit; any change a reader could see is, and is shown as a
  token difference);
- each **use of a symssm macro** in the text, which is what its macro file says, unless the paper
  redefines it;
- **symssm text without its markers** (a fragment stripped of its comments, or pasted in part);

and, apart from the claims, the **numbers written by hand** next to "heads", "k(n)", "k =", "r =",
"interaction rank" and "rank" (:mod:`symssm.render.prose`): each is listed as unchecked, and one that
contradicts a certified result about the system the sentence names fails the audit.

Statuses of a claim (:data:`STATUSES`): ``verified``, ``kernel-checked`` (``--coq``: the head count
re-proved by Coq), ``edited`` (with the token difference), ``changed-certificate`` (a certificate of
the recorded file name is there with another SHA-256, and the checker's verdict on it),
``missing-certificate``, ``fails-check`` (the first failed obligation), ``not-typeset`` (with why),
``redefined`` (the paper redefines a command the claim uses), ``unmarked``.  A certificate under the
folder that no typeset claim uses is listed.  The paper's own numbering (Theorem 3, Certified
result 2) and pages come from its ``.aux`` when it has been compiled.

Exit status (:func:`exit_code`): 0 when every claim verifies and no hand-written number contradicts
a certificate (and, with ``--strict``, nothing is unchecked, warned about or unused); 1 otherwise, also
when the paper shows no symssm result; 2 when the paper or the folder cannot be read.

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
>>> report = audit(os.path.join(folder, "paper.tex"))
>>> [(c.status, c.what) for c in report.claims]
[('verified', 'head-count fragment')]
"""

import hashlib
import os
import re
import shlex
from ..errors import InputError, SymssmError
from .claims import PASSING, STATUSES, Claim, Report, Unchecked, exit_code, statement
from .paper import MAX_TEX_BYTES, MAX_TEX_FILES, benign_size_definition, read_paper
from .texscan import Scanner, token_text

__all__ = ["Claim", "Unchecked", "Report", "audit", "audit_paper", "audit_lines", "exit_code", "STATUSES",
           "PASSING", "MAX_TEX_BYTES", "MAX_TEX_FILES", "MAX_JSON_FILES"]

#: Most ``.json`` files indexed under the certificates folder; larger ones than 256 MB are skipped.
MAX_JSON_FILES = 20000
MAX_JSON_BYTES = 256 * 2**20
#: Phrases only symssm writes (lower case): typeset outside a marked block, they show a stripped fragment.
SIGNATURES = ("necessary and sufficient in the multi-head factorized class",
              "here a map of the multi-head factorized class with h heads sends",
              "explicit construction with h =", "take the witness lags", "take the witness blocks",
              "the checker verified", "rows and columns numbered from 1", "be its lag operators",
              "the checker recomputed", "given in the certificate (sha256", "in the certificate (sha256",
              "this certificate proves nothing", "the certified brackets")


# ---------------------------------------------------------------- certificates


def _index(folder):
    """(by SHA-256, symssm certificate paths, by file name) of the ``.json`` files under ``folder``.

    A file is found by the SHA-256 of its bytes or of its canonical JSON (the hash fragments record).
    """
    from ..formats.jsonio import loads_strict
    from .style import certificate_sha256

    by_sha, certs, by_name, count = {}, [], {}, 0
    for top, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(files):
            if not name.endswith(".json"):
                continue
            count += 1
            if count > MAX_JSON_FILES:
                return by_sha, certs, by_name
            path = os.path.join(top, name)
            try:
                if not os.path.isfile(path) or os.path.getsize(path) > MAX_JSON_BYTES:
                    continue
                with open(path, "rb") as fh:
                    raw = fh.read()
            except OSError:
                continue
            raw_digest = hashlib.sha256(raw).hexdigest()
            by_sha.setdefault(raw_digest, (path, raw_digest))
            try:
                data = loads_strict(raw.decode("utf-8"), what=path)
            except (SymssmError, UnicodeDecodeError, ValueError, TypeError, RecursionError):
                continue
            if isinstance(data, dict) and data.get("format") == "symssm-certificate":
                certs.append(path)
                by_name.setdefault(name, []).append(path)
                try:
                    by_sha.setdefault(certificate_sha256(data), (path, raw_digest))
                except (SymssmError, ValueError, TypeError, RecursionError):
                    pass
    return by_sha, certs, by_name


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


#: Verdicts of the checker by the SHA-256 of a certificate file's bytes (the checker is deterministic).
_VERDICTS: dict = {}


def _digest(path):
    try:
        with open(path, "rb") as fh:
            return hashlib.sha256(fh.read()).hexdigest()
    except OSError:
        return None


def _cached_check(path):
    """:func:`_check`, remembered for the same bytes within this process (a file that changes while it is checked
    is not remembered)."""
    before = _digest(path)
    if before is not None and before in _VERDICTS:
        return _VERDICTS[before]
    verdict = _check(path)
    if before is not None and _digest(path) == before:
        if len(_VERDICTS) > 4096:
            _VERDICTS.clear()
        _VERDICTS[before] = verdict
    return verdict


def _options(text):
    """Render keyword arguments from a marker's recorded options (its own grammar; nothing is evaluated)."""
    text = text.split(" %")[0].strip()  # an editor may join the next comment line to the marker
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


def _load(path, indexed):
    """The certificate data at ``path``, provided its bytes still hash to ``indexed``."""
    from ..certificate.envelope import check_envelope
    from ..formats.jsonio import loads_strict

    with open(path, "rb") as fh:
        raw = fh.read()
    if hashlib.sha256(raw).hexdigest() != indexed:
        raise InputError("the file changed while it was audited")
    data = loads_strict(raw.decode("utf-8"), what=path)
    check_envelope(data)
    return data


# ---------------------------------------------------------------- comparing tokens


def _expected_tokens(text):
    return [t for t in Scanner().tokenize(text, what="the rendered fragment") if t.kind != "comment"]


def _token_diff(expected, found, limit=3):
    """The differences between expected and found tokens: ``[{"line", "expected", "found"}]`` (at most ``limit``)."""
    import difflib

    a = [(t.kind, t.text) for t in expected]
    b = [(t.kind, t.text) for t in found]
    p = 0
    while p < len(a) and p < len(b) and a[p] == b[p]:
        p += 1
    s = 0
    while s < len(a) - p and s < len(b) - p and a[len(a) - 1 - s] == b[len(b) - 1 - s]:
        s += 1
    ma, mb = a[p:len(a) - s], b[p:len(b) - s]
    if len(ma) > 3000 or len(mb) > 3000:
        ops = [("replace", 0, len(ma), 0, len(mb))]
    else:
        ops = [op for op in difflib.SequenceMatcher(None, ma, mb, autojunk=False).get_opcodes() if op[0] != "equal"]
    out = []
    for _, i1, i2, j1, j2 in ops[:limit]:
        ctx = 40
        before = _squeeze(token_text(a[max(0, p + i1 - ctx):p + i1]))[-36:]
        after_a = _squeeze(token_text(a[p + i2:p + i2 + ctx]))[:36]
        after_b = _squeeze(token_text(b[p + j2:p + j2 + ctx]))[:36]
        before_b = _squeeze(token_text(b[max(0, p + j1 - ctx):p + j1]))[-36:]
        line = found[p + j1].line if p + j1 < len(found) else (found[-1].line if found else 0)
        out.append({"line": line, "expected": _short(before + "[" + token_text(ma[i1:i2]) + "]" + after_a),
                    "found": _short(before_b + "[" + token_text(mb[j1:j2]) + "]" + after_b)})
    if len(ops) > limit:
        out.append({"line": 0, "expected": f"... and {len(ops) - limit} more differences", "found": ""})
    return out


def _squeeze(text):
    return re.sub(r"\s+", " ", text)


def _short(text, limit=240):
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


# ---------------------------------------------------------------- the audit


def audit(paper, certificates=None, *, coq=False, strict=False):
    """Audit a paper: a :class:`Report` of its claims in the paper's order.

    Parameters
    ----------
    paper : str
        The main ``.tex`` file.
    certificates : str, optional
        Folder searched recursively for the certificates (default: the paper's folder).
    coq : bool
        Also re-prove every verified head count of a real system in Coq (needs ``coqc`` with mathcomp).
    strict : bool
        Make unchecked hand-written numbers, warnings and unused certificates fail the audit too.

    Raises
    ------
    InputError
        If the paper or the folder cannot be read, inputs form a cycle, or a reading limit is passed.
    """
    from .prose import check_prose

    paper = os.fspath(paper)
    folder = os.fspath(certificates) if certificates is not None else os.path.dirname(os.path.abspath(paper))
    if not os.path.isdir(folder):
        raise InputError(f"{folder}: not a folder of certificates")
    read = read_paper(paper)
    report = Report(paper, os.path.relpath(folder), strict=strict)
    report.notes += read.notes
    report.problems += read.hazards
    by_sha, all_certs, by_name = _index(folder)
    state = _State(read, report, by_sha, by_name, folder)
    for block in read.blocks:
        state.block(block)
    state.redefinitions()
    state.macro_uses()
    state.unmarked()
    _numbering(read, report, state)
    if coq:
        _kernel(report, state)
    used = {os.path.realpath(p) for p in state.used}
    report.unused = [os.path.relpath(p) for p in all_certs if os.path.realpath(p) not in used]
    report.claims.sort(key=lambda c: c.order)
    check_prose(read, report, state)
    return report


class _State:
    """What the audit learns as it goes: verdicts, certificate data, claims by block."""

    def __init__(self, read, report, by_sha, by_name, folder):
        self.read, self.report, self.by_sha, self.by_name, self.folder = read, report, by_sha, by_name, folder
        self.verdicts = {}
        self.data = {}  # sha -> certificate data (when found and readable)
        self.paths = {}  # sha -> path
        self.used = set()
        self.block_claims = []  # (block, claim)

    def _shown(self, path):
        return os.path.relpath(path)

    def certificate(self, sha, source):
        """(path, data, claim fields) for a recorded SHA-256: ``status`` is None when the certificate verifies."""
        path, indexed = self.by_sha.get(sha, (None, None))
        if path is None:
            same = self.by_name.get(os.path.basename(source), []) if source and source != "-" else []
            if same:
                other = same[0]
                code, message = self._verdict(other)
                data = self._read(other)
                verdict = (f"it verifies and proves {statement(data) if data is not None else 'another result'} "
                           "(render the text again from it)" if code == 0 else
                           ("the checker rejects it: " if code == 1 else "the checker cannot decide it: ") + message)
                now = ""
                return other, None, {"status": "changed-certificate", "obligation": message if code else None,
                                     "detail": f"{self._shown(other)} is not the certificate this was rendered from "
                                               f"(sha256 {sha[:16]}...): it has another SHA-256, and {verdict}{now}"}
            return None, None, {"status": "missing-certificate",
                                "detail": f"no .json file under {self.folder} has sha256 {sha[:16]}..."
                                          + (f" or the file name {os.path.basename(source)}" if source != "-" else "")}
        code, message = self._verdict(path)
        if code != 0:
            return path, None, {"status": "fails-check", "obligation": message,
                                "detail": ("rejected: " if code == 1 else "undecided: ") + message}
        try:
            data = _load(path, indexed)
        except (SymssmError, UnicodeDecodeError, OSError) as exc:
            return path, None, {"status": "fails-check", "obligation": None,
                                "detail": f"unreadable: {str(exc)[:120]}"}
        self.data[sha] = data
        self.paths[sha] = path
        return path, data, {"status": None}

    def _verdict(self, path):
        if path not in self.verdicts:
            self.verdicts[path] = _cached_check(path)
        return self.verdicts[path]

    def _read(self, path):
        try:
            from ..formats.jsonio import loads_strict

            with open(path, "rb") as fh:
                return loads_strict(fh.read().decode("utf-8"), what=path)
        except (SymssmError, UnicodeDecodeError, OSError, ValueError):
            return None

    def block(self, b):
        if b.what == "table":
            return self.table(b)
        what = f"{b.kind} {b.what}"
        claim = Claim("verified", what, b.file, b.line, b.order, kind=b.kind, sha256=b.sha)
        self.block_claims.append((b, claim))
        self.report.claims.append(claim)
        try:
            options = _options(b.options)
        except InputError as exc:
            options = None
            claim.status, claim.detail = "edited", f"its marker's options cannot be read ({exc})"
        if options is not None and b.what == "fragment":
            claim.label = options.get("label") or f"symssm:{b.sha[:16]}"
            claim.environment = options.get("environment", "symssmtheorem")
            claim.theorem_name = options.get("theorem_name", "Certified result")
        if b.reason is not None:
            claim.status, claim.detail = "not-typeset", b.reason
            path = self.by_sha.get(b.sha, (None, None))[0]
            claim.certificate = self._shown(path) if path else (b.source if b.source != "-" else None)
            return
        path, data, verdict = self.certificate(b.sha, b.source)
        claim.certificate = self._shown(path) if path else (b.source if b.source != "-" else None)
        if path is not None:
            self.used.add(path)
        if verdict["status"] is not None:
            claim.status, claim.detail = verdict["status"], verdict["detail"]
            claim.obligation = verdict.get("obligation")
            return
        claim.statement = statement(data)
        if claim.status != "verified":
            return
        if not b.closed:
            claim.status, claim.detail = "edited", "its closing marker comment is missing or does not match"
            return
        from .latex import _render_checked

        try:
            source = None if b.source == "-" else b.source
            expected = _render_checked(data, source=source, **options)
        except (SymssmError, UnicodeDecodeError, OSError) as exc:
            claim.status, claim.detail = "edited", f"its marker cannot be re-rendered ({str(exc)[:120]})"
            return
        self.compare(claim, expected, b)

    def compare(self, claim, expected, b):
        want = _expected_tokens(expected)
        if [(t.kind, t.text) for t in want] != [(t.kind, t.text) for t in b.tokens]:
            claim.status = "edited"
            claim.diff = _token_diff(want, list(b.tokens))
            count = sum(1 for d in claim.diff if d["line"])
            first = claim.diff[0]["line"] if claim.diff else 0
            claim.detail = ("its text differs from what the certificate renders, as TeX tokens"
                            + (f" ({'first of several differences' if count > 1 else 'one difference'}, "
                               f"at line {first})" if first else ""))

    def table(self, b):
        from .framework import framework_table, parse_table_options

        claim = Claim("verified", "framework table", b.file, b.line, b.order, kind="framework", sha256=b.sha)
        self.block_claims.append((b, claim))
        self.report.claims.append(claim)
        rows, problems = [], []
        for r_sha, e_sha in b.certificates:
            datas = []
            for sha in (r_sha, e_sha):
                if sha is None:
                    datas.append(None)
                    continue
                if b.reason is not None:
                    path = self.by_sha.get(sha, (None, None))[0]
                    claim.certificates.append(self._shown(path) if path else sha[:16])
                    continue
                path, data, verdict = self.certificate(sha, "-")
                if path is not None:
                    self.used.add(path)
                claim.certificates.append(self._shown(path) if path else f"sha256 {sha[:16]}...")
                if verdict["status"] is not None:
                    problems.append((verdict, path))
                datas.append(data)
            rows.append(datas)
        claim.certificate = ", ".join(claim.certificates[:3]) + (f" and {len(claim.certificates) - 3} more"
                                                                   if len(claim.certificates) > 3 else "")
        if b.reason is not None:
            claim.status, claim.detail = "not-typeset", b.reason
            return
        if problems:
            verdict, path = problems[0]
            claim.status = verdict["status"]
            claim.obligation = verdict.get("obligation")
            claim.detail = (f"{len(problems)} of its certificates: " if len(problems) > 1 else "its certificate ") \
                + (f"{self._shown(path)}: " if path else "") + verdict["detail"]
            return
        if not b.closed:
            claim.status, claim.detail = "edited", "its closing marker comment is missing or does not match"
            return
        try:
            options = parse_table_options(b.options)
            expected = framework_table([(r, e) for r, e in rows], **options)
        except (SymssmError, KeyError, TypeError) as exc:
            claim.status, claim.detail = "edited", f"its marker cannot be re-rendered ({str(exc)[:120]})"
            return
        claim.statement = "; ".join(f"{r['system']['name']}: r = {r['interaction_rank']}" for r, _ in rows[:3]) + \
            (", ..." if len(rows) > 3 else "")
        self.compare(claim, expected, b)

    def redefinitions(self):
        """A fragment fails when the paper redefines a command or environment it uses."""
        paper_defs = [d for d in self.read.definitions if d.block is None and d.command != "newif"
                      and not benign_size_definition(d)]  # a conference style's \small: still \small
        if not paper_defs:
            return
        by_name = {}
        for d in paper_defs:
            by_name.setdefault((d.name, d.environment), d)
        for b, claim in self.block_claims:
            if claim.status not in PASSING or b.what == "macros":
                continue
            used = set()
            toks = b.tokens
            for k, t in enumerate(toks):
                if t.kind == "cs":
                    used.add((t.text, False))
                    if t.text in ("begin", "end") and k + 1 < len(toks):
                        name = []
                        for x in toks[k + 2:k + 42]:
                            if x.kind != "char" or x.text == "}":
                                break
                            name.append(x.text)
                        used.add(("".join(name), True))
            hits = [by_name[u] for u in sorted(used) if u in by_name]
            if hits:
                d = hits[0]
                claim.status = "redefined"
                what = f"environment {d.name}" if d.environment else f"\\{d.name}"
                more = f" (and {len(hits) - 1} more)" if len(hits) > 1 else ""
                claim.detail = (f"the paper redefines {what}, which it uses ({d.file}:{d.line}, \\{d.command})"
                                f"{more}: the page may not show what the certificate proves")

    def macro_uses(self):
        """Each use of a symssm macro in the typeset text is a claim: what its macro file says, if not redefined."""
        defined = {}
        for d in self.read.definitions:
            if d.block is not None and not d.environment:
                defined.setdefault(d.name, d)
        by_block = {b.sha: (b, c) for b, c in self.block_claims if b.what == "macros"}
        hand = {}
        for d in self.read.definitions:
            if d.block is None and not d.environment:
                hand.setdefault(d.name, d)
        for name, file, line, order in self.read.macro_uses:
            claim = Claim("verified", f"macro \\{name}", file, line, order)
            self.report.claims.append(claim)
            d = defined.get(name)
            if d is None or d.block not in by_block:
                claim.status = "unmarked"
                h = hand.get(name)
                claim.detail = (f"defined by hand ({h.file}:{h.line}, \\{h.command}), not by a symssm macro file"
                                if h is not None else "no symssm macro file the paper reads defines it")
                continue
            b, mc = by_block[d.block]
            claim.kind, claim.sha256, claim.certificate = b.kind, b.sha, mc.certificate
            value = token_text([(k, t) for k, t in d.body])
            claim.statement = f"{_plain(value)}"
            if mc.status not in PASSING:
                claim.status = mc.status if mc.status != "not-typeset" else "not-typeset"
                claim.detail = (f"its macro file ({b.file}:{b.line}) is not read: {mc.detail}"
                                if mc.status == "not-typeset" else
                                f"its macro file ({b.file}:{b.line}) does not verify ({STATUSES[mc.status].lower()})")
                continue
            h = hand.get(name)
            if h is not None:
                claim.status = "redefined"
                claim.detail = f"the paper redefines it ({h.file}:{h.line}, \\{h.command})"
                continue
            inner = sorted({t for k, t in d.body if k == "cs" and t in hand and t != name})
            if inner:  # \renewcommand{\ensuremath}{...}: the macro's body typesets something else
                h = hand[inner[0]]
                claim.status = "redefined"
                more = f" (and {len(inner) - 1} more)" if len(inner) > 1 else ""
                claim.detail = (f"the paper redefines \\{h.name}, which the macro uses ({h.file}:{h.line}, "
                                f"\\{h.command}){more}: the page may not show what the certificate proves")

    def unmarked(self):
        """symssm's own text outside a marked block: a fragment stripped of its markers, or pasted in part."""
        seen = set()
        for file, line, sign, order in self.read.signs:
            key = (file, line)
            if key in seen:
                continue
            seen.add(key)
            self.report.claims.append(Claim("unmarked", "symssm text without its marker comments", file, line, order,
                                            detail=f"{sign} appears outside a marked fragment: it cannot be traced "
                                                   "to a certificate; paste the whole fragment"))
        envs = set()
        for s in self.read.sentences:
            low = s.text.lower()
            hit = next((p for p in SIGNATURES if p in low), None)
            if hit is None:
                continue
            key = (s.environment, s.env_line) if s.environment else (s.file, s.line)
            if key in envs or (s.file, s.line) in seen:
                continue
            envs.add(key)
            order = _order_of(self.read, s)
            self.report.claims.append(Claim("unmarked", "symssm-like text without marker comments", s.file, s.line,
                                            order, detail=f"it reads \"{hit}\", as a symssm fragment does, but no "
                                                          "marker traces it to a certificate"))


def _order_of(read, sentence):
    """A position in reading order for a sentence (after the blocks and macro uses before it)."""
    best = 0
    files = [f for f, _ in read.files]
    for b in read.blocks:
        if (files.index(b.file) if b.file in files else 0, b.line) <= (files.index(sentence.file)
                                                                      if sentence.file in files else 0, sentence.line):
            best = max(best, b.order)
    return best + 0.5


def _plain(tex):
    """A macro's value as plain text for the report: ``\\ensuremath{2}`` -> ``2``."""
    text = re.sub(r"\\ensuremath\s*", "", tex)
    text = re.sub(r"\\texttt\s*", "", text)
    text = re.sub(r"\\char\s*(\d+)\s*\{\}", lambda m: chr(int(m.group(1))), text)
    text = text.replace("\\allowbreak", "").replace("{}", "").replace("{", "").replace("}", "")
    return " ".join(text.split())[:120]


# ---------------------------------------------------------------- numbering (.aux)

_NEWLABEL = re.compile(r"\\newlabel\{([^{}]{1,200})\}\{\{((?:[^{}]|\{[^{}]*\}){0,200})\}\{((?:[^{}]|\{[^{}]*\}){0,100})\}")
_AUXINPUT = re.compile(r"\\@input\{([^{}]{1,200})\}")


def _read_aux(path, root, seen, labels, depth=0):
    if depth > 8 or len(seen) > 200 or path in seen or not os.path.isfile(path):
        return
    seen.add(path)
    try:
        if os.path.getsize(path) > MAX_TEX_BYTES:
            return
        with open(path, "rb") as fh:
            text = fh.read().decode("utf-8", errors="replace")
    except OSError:
        return
    for m in _NEWLABEL.finditer(text):
        labels.setdefault(m.group(1), (m.group(2), m.group(3)))
    for m in _AUXINPUT.finditer(text):
        _read_aux(os.path.join(root, m.group(1)), root, seen, labels, depth + 1)


def _clean_number(text):
    text = re.sub(r"\\[A-Za-z@]+\s*", "", text)
    return " ".join(text.replace("{", "").replace("}", "").split())


def _numbering(read, report, state):
    """The paper's own numbers and pages (from its .aux) for every labelled claim."""
    aux = os.path.splitext(os.path.abspath(read.path))[0] + ".aux"
    if not os.path.isfile(aux):
        return
    labels = {}
    _read_aux(aux, read.root, set(), labels)
    report.aux = os.path.relpath(aux)
    try:
        if os.path.getmtime(aux) + 1 < read.mtime:
            report.notes.append(f"note: {os.path.relpath(aux)} is older than the paper's sources: numbers and pages "
                                "may be out of date (compile the paper again)")
    except OSError:
        pass
    for b, claim in state.block_claims:
        if claim.label is None or claim.label not in labels:
            continue
        number, page = labels[claim.label]
        env = getattr(claim, "environment", "symssmtheorem")
        name = read.theorems.get(env) or (getattr(claim, "theorem_name", None) if env == "symssmtheorem" else None)
        number = _clean_number(number)
        claim.number = f"{name} {number}" if name else number
        claim.page = _clean_number(page) or None


# ---------------------------------------------------------------- Coq


class _Verified:
    """Certificate data with the ``check`` that :func:`~symssm.render.coq.coq_project` asks for."""

    def __init__(self, data):
        self.data = data

    def check(self):
        from ..certificate.envelope import verify

        return verify(self.data)


def _kernel(report, state):
    """Re-prove every verified head count of a real system in Coq; those that build are kernel-checked."""
    import shutil
    import subprocess
    import tempfile

    from ..errors import CertificateError, LimitError
    from .coq import coq_project

    if shutil.which("coqc") is None or shutil.which("coq_makefile") is None:
        report.notes.append("note: --coq: coqc is not installed; no claim is kernel-checked")
        return
    done = {}
    for b, claim in state.block_claims:
        if claim.status != "verified" or not _has_coq(claim.kind) or b.what != "fragment":
            continue
        data = state.data.get(b.sha)
        if data is None:
            continue
        if b.sha not in done:
            try:
                files = coq_project(_Verified(data))
            except (CertificateError, LimitError, SymssmError) as exc:
                done[b.sha] = f"not kernel-checked: {str(exc)[:100]}"
            else:
                with tempfile.TemporaryDirectory(prefix="symssm-coq-") as tmp:
                    for name, text in files.items():
                        with open(os.path.join(tmp, name), "w", encoding="utf-8") as fh:
                            fh.write(text)
                    try:
                        res = subprocess.run("coq_makefile -f _CoqProject -o Makefile && make", shell=True, cwd=tmp,
                                             capture_output=True, text=True, timeout=600)
                        done[b.sha] = True if res.returncode == 0 else "Coq did not accept the proof"
                    except subprocess.TimeoutExpired:
                        done[b.sha] = "Coq did not finish in 600 s"
        if done[b.sha] is True:
            claim.status = "kernel-checked"
        else:
            report.notes.append(f"note: {claim.file}:{claim.line}: {done[b.sha]}")


# ---------------------------------------------------------------- lines


def _has_coq(kind):
    """Whether certificates of ``kind`` have a Coq export (a row of the table with one)."""
    from ..certificate import kinds

    try:
        return kinds.of({"kind": kind}).coq is not None
    except InputError:
        return False


def audit_paper(paper, certificates=None):
    """(claims in the paper's order, notes): :func:`audit`'s claims, for callers of the first version.

    Raises
    ------
    InputError
        As :func:`audit`.
    """
    report = audit(paper, certificates)
    return report.claims, report.notes


def audit_lines(paper, certificates=None, *, coq=False, strict=False):
    """(exit code, lines to print) of ``symssm audit``.

    Raises
    ------
    InputError
        As :func:`audit`.
    """
    from .report import terminal_lines

    report = audit(paper, certificates, coq=coq, strict=strict)
    return exit_code(report), terminal_lines(report)
