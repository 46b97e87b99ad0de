"""``symssm audit``: is every certified result of a paper visibly on its pages, as certified?

The verdict is about the compiled pages, never the TeX source.  Each certificate under the folder (found by
SHA-256) is re-checked by the independent checker in a separate process (re-proved in Coq with ``--coq``) and
the statements its LaTeX typesets are looked for on the pages as runs of visible glyphs; the paper must show
those of the symssm files the engine read (the ``.fls`` list).  Statuses and exit status: docs/latex.md.
"""

import hashlib
import itertools
import os
import re
import tempfile
from dataclasses import dataclass, field
from typing import Optional

from ..errors import InputError, SymssmError
from .compile import address, compile_paper, read_text, synctex

__all__ = ["Claim", "Report", "audit", "exit_code", "STATUSES", "PASSING", "FAILING", "STRICT_FAILING", "index",
           "check", "parse_marker", "kernel_check", "MAX_JSON_FILES", "MAX_JSON_BYTES"]

STATUSES = {"verified": "VERIFIED", "kernel-checked": "KERNEL-CHECKED", "hidden": "HIDDEN", "not-shown": "NOT SHOWN",
            "changed": "CHANGED", "missing-certificate": "MISSING CERTIFICATE", "fails-check": "FAILS CHECK",
            "contradicts": "CONTRADICTS CERTIFICATE", "unchecked": "UNCHECKED", "consistent": "CONSISTENT",
            "unused": "UNUSED"}
PASSING = {"verified", "kernel-checked"}
FAILING = {"hidden", "not-shown", "changed", "missing-certificate", "fails-check", "contradicts"}
STRICT_FAILING = {"unchecked", "consistent", "unused"}
_LAST = 10**9  # the order of a row that is on no page


@dataclass
class Claim:
    """One row of the report."""

    status: str
    what: str  # "head-count fragment", "sentence macro \\SymssmRotationHeadCountSentence", "prose: heads", ...
    text: str  # the certified statement, the prose sentence, or what the row is about
    reason: str = ""
    page: Optional[int] = None
    box: Optional[tuple] = None  # (x0, y0, x1, y1) on ``page``, PDF points
    file: Optional[str] = None  # source address (never used for a verdict)
    line: Optional[int] = None
    label: Optional[str] = None
    number: Optional[str] = None  # the paper's number for it ("1" of "Certified result 1"), from the .aux
    certificate: Optional[str] = None  # certificate path (relative to the working folder)
    sha256: Optional[str] = None
    order: int = 0
    anchor: Optional[tuple] = None  # (x, y) of the first glyph's baseline origin on ``page`` (for addresses)


@dataclass
class Report:
    """What ``symssm audit`` found: the claims, in the order of the pages."""

    paper: str
    folder: str
    pdf: str
    engine: Optional[str]  # None when a PDF was audited as given
    pages: int = 0
    claims: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    strict: bool = False


def exit_code(report):
    """0 when a certified statement is shown and nothing fails (``strict``: nor is unchecked, consistent, unused).

    Examples
    --------
    >>> r = Report("p.tex", ".", "p.pdf", "pdflatex", claims=[Claim("verified", "head-count fragment", "k = 2"),
    ...                                                       Claim("unchecked", "prose: heads", "It needs 3 heads.")])
    >>> exit_code(r), exit_code(Report("p.tex", ".", "p.pdf", "pdflatex", claims=r.claims, strict=True))
    (0, 1)
    """
    statuses = {c.status for c in report.claims}
    return 0 if statuses & PASSING and not statuses & (FAILING | STRICT_FAILING if report.strict else FAILING) else 1


def _rel(path):
    try:
        return os.path.relpath(path)
    except ValueError:
        return path


def _included(compiled):
    """``[(file, what, kind, sha, source file name, --label)]`` of the symssm files the engine read."""
    import shlex
    out = []
    for rel in compiled.inputs if compiled else ():
        first = read_text(os.path.join(compiled.folder, rel), 8192).split("\n", 1)[0] if rel.endswith(".tex") else ""
        marker = parse_marker(first)
        if marker:
            try:
                words = shlex.split(marker[4])
            except ValueError:
                words = []
            out.append((rel,) + marker[:4] + (words[words.index("--label") + 1] if "--label" in words[:-1] else None,))
        elif first.startswith("% symssm table: framework; certificates "):
            shas = first.split("certificates ", 1)[1].split(";", 1)[0].replace("+", ",").split(",")
            out += [(rel, "table", "framework", sha.strip(), "framework.tex", "") for sha in shas]
    return out


def _labels(compiled):
    """{label: (number, page)} from the compiled paper's ``.aux`` files (addresses only)."""
    out = {}
    for rel in compiled.inputs + (compiled.main[:-4] + ".aux",) if compiled else ():
        text = read_text(os.path.join(compiled.folder, rel), 4 * 2**20) if rel.endswith(".aux") else ""
        for m in re.finditer(r"\\newlabel\{([^{}]{1,80})\}\{\{([^{}]{0,40})\}\{([^{}]{0,20})\}", text):
            out.setdefault(m.group(1), (m.group(2), m.group(3)))
    return out


def audit(paper, certificates=None, *, engine="pdflatex", coq=False, strict=False, seconds=120.0, progress=None,
          keep=None):
    """The :class:`Report` of a paper (``.tex``: compiled; ``.pdf``: as given) against the certificates under
    ``certificates`` (default: its folder).  ``coq``: re-prove verified head counts; ``strict``: unchecked,
    consistent and unused rows fail; ``progress(line)`` at each step; ``keep(report, pdf)`` while the PDF exists.

    Raises
    ------
    InputError
        If the paper or the folder cannot be read, the paper does not compile (its first error, with file
        and line), or the PDF cannot be read.
    """
    paper = os.fspath(paper)
    if not os.path.isfile(paper):
        raise InputError(f"{paper}: no such file")
    folder = os.fspath(certificates) if certificates is not None else os.path.dirname(os.path.abspath(paper))
    if not os.path.isdir(folder):
        raise InputError(f"{folder}: not a folder of certificates")
    say = progress or (lambda text: None)
    is_pdf = paper.lower().endswith(".pdf")
    with tempfile.TemporaryDirectory(prefix="symssm-audit-") as tmp:
        compiled = None if is_pdf else compile_paper(paper, tmp, engine=engine, seconds=seconds, progress=say)
        pdf = paper if is_pdf else compiled.pdf
        report = Report(paper, _rel(folder), pdf if is_pdf else os.path.basename(pdf), None if is_pdf else engine,
                        strict=strict)
        from .pixels import final_document
        final = os.path.join(tmp, "final.pdf")  # the document PDFium opens, one revision: what every reader reads
        count = final_document(pdf, final)
        if count > 1:
            report.notes.append(f"{report.pdf} holds {count} revisions (incremental updates); the audit reads the "
                                "final document, as PDFium opens it")
        _audit_pdf(report, final, folder, compiled, coq, say)
        if keep is not None:
            keep(report, final)
    return report


def _union(boxes):
    boxes = list(boxes)
    return tuple(f(b[i] for b in boxes) for i, f in enumerate((min, min, max, max)))


def _audit_pdf(report, pdf, folder, compiled, coq, say):
    from .claims import Stream
    from .pages import read_pdf
    from .pixels import Pixels
    say("reading the pages")
    pages = read_pdf(pdf, ink=False)
    report.pages, stream = len(pages), Stream(pages)
    pixels = Pixels(pdf, pages)
    try:
        _audit_pages(report, pages, stream, pixels, folder, compiled, coq, say)
    finally:
        pixels.close()


def _audit_pages(report, pages, stream, pixels, folder, compiled, coq, say):
    from .claims import PART_WINDOW, Run, find_whole, negated_before, occurrences, prose_claims
    from .pages import line_text
    from .statements import statements
    say("finding the certified statements")
    data, by_name = index(folder)
    included, labels, verdicts = _included(compiled), _labels(compiled), {}

    def verdict(sha):
        if sha not in verdicts:
            say(f"checking {os.path.basename(data[sha][0])}")
            verdicts[sha] = check(data[sha][0])
        return verdicts[sha]

    covered, shown, claims, regions = set(), set(), [], []
    fragment_file = {e[3]: (e[0], e[5]) for e in included if e[1] == "fragment"}
    for sha, (path, d) in sorted(data.items(), key=lambda kv: kv[1][0]):
        try:
            sts = statements(d, sha)
        except InputError as exc:
            report.notes.append(f"{_rel(path)}: {exc}")
            continue
        rel, label = fragment_file.get(sha, (None, None))
        if rel and not any(st.what == "fragment" for st in sts):  # fail closed: what must the page show?
            claims.append(Claim("not-shown", f"{d['kind']} fragment", os.path.basename(rel),
                                "the audit cannot derive the statement this fragment typesets, so it cannot show "
                                "that the page states it as certified", file=rel, line=1, label=label,
                                certificate=_rel(path), sha256=sha))
        for st in sts:
            runs, partial, why = find_whole(stream, st)
            is_fragment = st.what == "fragment"
            if runs is None and not (is_fragment and rel) and not (why and partial):
                continue
            code, message = verdict(sha)
            claim = Claim("verified" if code == 0 else "fails-check", f"{d['kind']} {st.what}", " ... ".join(st.parts),
                          "" if code == 0 else message, certificate=_rel(path), sha256=sha, order=_LAST)
            if is_fragment and rel:
                claim.file, claim.line, claim.label = rel, 1, label
            if runs is None:
                if claim.status == "verified":
                    claim.status = "not-shown"
                    claim.reason = (f"the theorem on the page is not the certified one: {why}" if why else
                                    "the paper includes this fragment but no page shows its statement as certified")
                if partial:
                    first = partial[0]
                    claim.page, claim.order = first.page, first.start
                    claim.box = _union(g.bbox for p, g in first.glyphs if p == first.page)
                    # what the page shows after the title is about this certificate's system
                    regions.append((first.start, partial[-1].end + PART_WINDOW // 4, sha))
            else:
                # the pixels decide what the region shows; what lies beside the lines only names the reason
                seen = pixels.statement([pg for r in runs for pg in r.glyphs], bars=st.bars)
                problems = tuple(dict.fromkeys([p for r in runs for p in r.problems] +
                                               (list(seen) + list(_beside(runs, pages)) if seen else [])))
                negation = "" if is_fragment else negated_before(stream, runs[0])
                if problems and claim.status == "verified":
                    claim.status, claim.reason = "hidden", "; ".join(problems[:4])
                elif negation and claim.status == "verified":  # "It is not true that \\Sentence"
                    claim.status = "contradicts"
                    claim.reason = (f"negated: the page has \"{negation}\" before the certified sentence, and so "
                                    "states the opposite of what the certificate proves")
                claim.page, claim.order, claim.anchor = runs[-1].page, runs[0].start, runs[-1].glyphs[0][1].origin
                claim.box = _union(g.bbox for r in runs for p, g in r.glyphs if p == claim.page)
                covered.update(i for r in runs for i in range(r.start, r.end))
                end = runs[-1].end
                if st.tail:  # the proof's last sentence; else about a column of the proof
                    tails = occurrences(stream, st.tail, end, end + 3 * PART_WINDOW)
                    end = tails[0].end if tails else end + PART_WINDOW // 2
                regions.append((runs[0].start, end, sha))
                shown.add(sha)
            auto = "symssm:" + sha[:16]
            claim.label = claim.label or (auto if is_fragment and auto in labels else None)
            claim.number = labels[claim.label][0] or None if claim.label in labels else None
            claims.append(claim)
    for rel in sorted({e[0] for e in included if e[1] == "table"}):
        report.notes.append(f"{rel}: the framework table's rows are not certified statements the audit reads; "
                            "put a layer's fragment or sentence macro in the paper to have it verified")
    for rel, what, kind, sha, name, _ in included:  # included files whose certificate is not there, or fails
        if what == "table" or sha in data and (what != "macros" or verdict(sha)[0] == 0):
            continue
        same = by_name.get(name, [])
        if sha in data:
            row = ("fails-check", f"the macros of {name}", verdict(sha)[1], data[sha][0])
        elif same:
            row = ("changed", f"{what} of {name}", f"{_rel(same[0])} has changed since this {what} was generated "
                   f"(the file records SHA-256 {sha[:16]}...)", same[0])
        else:
            row = ("missing-certificate", f"{what} of {name}",
                   f"no certificate with SHA-256 {sha[:16]}... under {report.folder}", None)
        claims.append(Claim(row[0], f"{kind} {what}", row[1], row[2], file=rel, line=1,
                            certificate=row[3] and _rel(row[3]), sha256=sha, order=_LAST))
    say("reading the prose")
    systems = [_system(d, path) for sha, (path, d) in data.items() if verdicts.get(sha, (None,))[0] == 0 and
               (d.get("system") or {}).get("name")]
    fragments = [(a, b, _system(data[sha][1], data[sha][0])) for a, b, sha in regions]
    claims += [Claim(pc.status, f"prose: {pc.quantity} {pc.value}".strip(), pc.sentence, pc.detail, page=pc.page,
                     box=pc.box, certificate=pc.certificate or None, order=pc.at)
               for pc in prose_claims(stream, covered, systems, fragments, lambda indices: _beside(
                   [Run(tuple(stream.glyphs[i] for i in indices), 0, 0)], pages))]
    say("comparing the prose's pixels")
    for number, line, reasons in pixels.prose(stream, covered, [c.order for c in claims if c.what.startswith(
            "prose") and c.order != _LAST]):
        claims.append(Claim("hidden", "prose line", line_text(line), "; ".join(reasons), page=number,
                            box=_union(g.bbox for g in line), order=stream.glyphs.index((number, line[0]))))
    for page in pages:  # images on pages with a theorem-like heading: the audit cannot read them
        text = "".join(g.char for g in page.glyphs)
        if page.images and re.search("Theorem|Lemma|Certified|Proposition|Corollary", text):
            order = next((i for i, (p, _) in enumerate(stream.glyphs) if p == page.number), _LAST)
            claims += [Claim("unchecked", "image", f"an image on page {page.number}", "images are not readable by "
                             "the audit; check what it shows by eye", page=page.number, box=tuple(box), order=order)
                       for box in page.images]
    sync, tops = synctex(compiled) if compiled else None, {p.number: p.mediabox[3] for p in pages}
    for c in claims:  # source addresses from SyncTeX (never used for a verdict)
        if sync and c.file is None and c.page is not None and c.box is not None:
            x, y = c.anchor or c.box[:2]
            c.file, c.line = address(sync, c.page, x + 0.5, y, tops.get(c.page, 792.0)) or (None, None)
    kernel = {}
    for c in claims if coq else ():  # Coq re-proves each verified head count of a real system
        if c.status == "verified" and c.what.endswith("fragment") and c.sha256 in data:
            k = kernel[c.sha256] = kernel[c.sha256] if c.sha256 in kernel else kernel_check(data[c.sha256][1])
            c.status = "kernel-checked" if k is True else c.status
            report.notes += [f"{c.certificate}: {k}"] if isinstance(k, str) else []
    claims += [Claim("unused", d["kind"], os.path.basename(path), "no page shows a statement of this certificate",
                     certificate=_rel(path), sha256=sha, order=_LAST + 1)
               for sha, (path, d) in sorted(data.items(), key=lambda kv: kv[1][0])
               if sha not in shown and sha not in {e[3] for e in included}]
    report.claims = sorted(claims, key=lambda c: c.order)
    for i, c in enumerate(report.claims, 1):
        c.order = i


def _beside(runs, pages):
    """What lies beside the runs' glyphs that they do not explain: :func:`~symssm.audit.pages.run_problems`."""
    from .pages import run_problems
    by_number, out = {p.number: p for p in pages}, []
    for r in runs:
        for num in dict.fromkeys(n for n, _ in r.glyphs):  # a display's rules are drawings beside it, not problems
            out += [x for x in run_problems(by_number[num], [g for n, g in r.glyphs if n == num])
                    if not (r.display and x.startswith("a drawing beside"))]
    return tuple(dict.fromkeys(out))


def _system(d, path):
    """``(name, certificate path, values, kind, counts at one length or None)`` of a certified system."""
    from ..render.claims import values

    def at(n):
        try:
            return values(d, n)
        except (KeyError, TypeError, IndexError):
            return None
    return ((d.get("system") or {}).get("name") or "", _rel(path), values(d), d["kind"],
            at if "profile" in d else None)


MAX_JSON_FILES, MAX_JSON_BYTES = 20000, 256 * 2**20  # most .json files indexed; larger ones are skipped

_MARKER = re.compile(r"% symssm (fragment|macros): ([a-z-]+) certificate ([0-9a-f]{64}); file (\S+); options (.*)")


def parse_marker(line):
    """``(what, kind, sha256, file, options)`` of a fragment's or macro file's first comment, else None."""
    m = _MARKER.match(line.strip())
    return m.groups() if m else None


def index(folder):
    """``({sha256: (path, data)}, {file name: [paths]})`` of the symssm certificates under ``folder`` (one whose
    envelope does not check by name only: a fragment naming it is "changed")."""
    from ..certificate.envelope import check_envelope
    from ..formats.jsonio import loads_strict
    from ..render.style import certificate_sha256
    by_sha, by_name = {}, {}
    walk = (os.path.join(top, name) for top, dirs, files in os.walk(folder)
            if dirs.sort() is None  # the folders in place in sorted order: the same walk on every machine
            for name in sorted(f for f in files if f.endswith(".json")))
    for path in itertools.islice(walk, MAX_JSON_FILES):
        try:
            if not os.path.isfile(path) or os.path.getsize(path) > MAX_JSON_BYTES:
                continue
            with open(path, "rb") as fh:
                data = loads_strict(fh.read().decode("utf-8"), what=path)
            if isinstance(data, dict) and data.get("format") == "symssm-certificate":
                by_name.setdefault(os.path.basename(path), []).append(path)
                check_envelope(data)
                by_sha.setdefault(certificate_sha256(data), (path, data))
        except (SymssmError, OSError, UnicodeDecodeError, ValueError, TypeError, KeyError, RecursionError):
            continue
    return by_sha, by_name


#: Verdicts of the checker by the SHA-256 of a certificate file's bytes (the checker is deterministic).
_VERDICTS: dict = {}


def check(path):
    """(code, message) of the independent checker on ``path``, isolated with its default limits; remembered for
    the same bytes within this process (not when the file changes while it is checked)."""
    from ..checker.core import check_file
    from ..checker.isolate import Undecided, default_seconds, run_isolated

    def digest():
        try:
            with open(path, "rb") as fh:
                return hashlib.sha256(fh.read()).hexdigest()
        except OSError:
            return None

    def task():
        try:
            res = check_file(path, max_seconds=seconds)
        except Exception as exc:  # noqa: BLE001 - fail closed
            return {"code": 2, "message": f"undecided ({type(exc).__name__})"}
        return {"code": res.code, "message": res.message}

    before = digest()
    if before is not None and before in _VERDICTS:
        return _VERDICTS[before]
    seconds = default_seconds(os.path.getsize(path))
    try:
        out = run_isolated(task, seconds=seconds + 0.4, limit_text=f"the checker's limit of {seconds:.3g} s")
        verdict = out["code"], out["message"]
    except Undecided as exc:
        verdict = 2, str(exc)
    if before is not None and digest() == before:
        if len(_VERDICTS) > 4096:
            _VERDICTS.clear()
        _VERDICTS[before] = verdict
    return verdict


def kernel_check(data, seconds=600):
    """True when Coq accepts the re-proof of a verified head count of a real system (``coqc`` with mathcomp), None
    when its kind has no Coq export or it has a field, else why not.

    Raises
    ------
    InputError
        If ``coqc`` or ``coq_makefile`` is not installed.
    """
    import shutil
    import subprocess
    from types import SimpleNamespace
    from ..certificate import kinds
    from ..certificate.envelope import verify
    from ..render.coq import coq_project
    try:
        if kinds.of({"kind": data["kind"]}).coq is None or data.get("field"):
            return None
    except InputError:
        return None
    if shutil.which("coqc") is None or shutil.which("coq_makefile") is None:
        raise InputError("--coq: coqc is not installed")
    try:
        files = coq_project(SimpleNamespace(data=data, check=lambda: verify(data)))
    except SymssmError as exc:
        return f"not kernel-checked: {str(exc)[:100]}"
    with tempfile.TemporaryDirectory(prefix="symssm-coq-") as tmp:
        for name, text in files.items():
            with open(os.path.join(tmp, name), "w", encoding="utf-8") as fh:
                fh.write(text)
        try:
            res = subprocess.run(["sh", "-c", "coq_makefile -f _CoqProject -o Makefile && make"], cwd=tmp,
                                 capture_output=True, text=True, timeout=seconds)
        except subprocess.TimeoutExpired:
            return f"Coq did not finish in {seconds} s"
    return True if res.returncode == 0 else "Coq did not accept the proof"
