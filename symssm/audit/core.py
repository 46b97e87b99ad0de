"""``symssm audit``: is every certified result of a paper visibly on its pages, as certified?

The verdict is about the compiled pages, never about the TeX source.  A ``.tex`` paper is compiled in a
throw-away copy (:mod:`symssm.audit.compile`); a ``.pdf`` is read as it is.  Then:

1. every certificate under the folder (``--certificates DIR``, default the paper's folder, recursively) is
   indexed by SHA-256 (:mod:`symssm.audit.certificates`), and the statements its symssm LaTeX typesets
   are derived from it (:mod:`symssm.audit.statements`);
2. the pages are read into painted glyphs with their visibility problems (:mod:`symssm.audit.pages`), and
   each statement is looked for as a run of glyphs in reading order (:mod:`symssm.audit.claims`);
3. the paper's **included** statements are those of the symssm fragments and macro files the engine read
   (the compile's ``.fls`` list; each such file's first comment names its certificate's SHA-256 and file).

Statuses (:data:`STATUSES`) of a claim, one row of the report each:

- ``verified``: a statement of a certificate the checker verifies, shown by glyphs that all pass;
  ``kernel-checked`` with ``--coq`` when Coq also accepts the head count's re-proof;
- ``hidden``: the statement's glyphs are on a page but a reader would not see them as they are (the
  reason from :mod:`symssm.audit.pages`: "drawn in white on page 2", "outside the crop box on page 1",
  "covered by a Stamp annotation on page 3", ...);
- ``not-shown``: the paper includes the fragment but no page shows its statement as certified;
- ``changed``: the included file names a certificate whose file now has other contents (another SHA-256);
- ``missing-certificate``: the included file's certificate is not under the folder;
- ``fails-check``: the certificate does not verify (the checker's first failed obligation);
- ``contradicts``: prose on a page gives a number for a certified system that its certificate never proves;
- ``unchecked`` and ``consistent``: prose numbers next to claim words (a number that agrees with the named
  system's certificate is ``consistent``; its words are not checked), and images near theorems, which the
  audit cannot read;
- ``unused``: a certificate under the folder that no page shows.

Exit status (:func:`exit_code`): 0 when at least one certified statement is shown, every included statement
is verified, and nothing is hidden, changed, missing, failing or contradicted; with ``strict``, also nothing
unchecked, consistent or unused; 1 otherwise; 2 when the paper cannot be compiled or read.
"""

import os
from dataclasses import dataclass, field
from typing import Optional

from ..errors import InputError

__all__ = ["Claim", "Report", "audit", "exit_code", "STATUSES", "PASSING", "FAILING", "STRICT_FAILING"]

STATUSES = {
    "verified": "VERIFIED", "kernel-checked": "KERNEL-CHECKED", "hidden": "HIDDEN", "not-shown": "NOT SHOWN",
    "changed": "CHANGED", "missing-certificate": "MISSING CERTIFICATE", "fails-check": "FAILS CHECK",
    "contradicts": "CONTRADICTS CERTIFICATE", "unchecked": "UNCHECKED", "consistent": "CONSISTENT",
    "unused": "UNUSED",
}
PASSING = {"verified", "kernel-checked"}
FAILING = {"hidden", "not-shown", "changed", "missing-certificate", "fails-check", "contradicts"}
STRICT_FAILING = {"unchecked", "consistent", "unused"}


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
    seconds: dict = field(default_factory=dict)


def exit_code(report):
    """0 when the paper passes the audit, 1 otherwise (see the module's description).

    Examples
    --------
    >>> r = Report("p.tex", ".", "p.pdf", "pdflatex", claims=[Claim("verified", "head-count fragment", "k = 2")])
    >>> exit_code(r)
    0
    >>> r.claims.append(Claim("unchecked", "prose: heads", "It needs 3 heads."))
    >>> exit_code(r)
    0
    >>> r.strict = True
    >>> exit_code(r)
    1
    """
    statuses = {c.status for c in report.claims}
    if not statuses & PASSING or statuses & FAILING:
        return 1
    if report.strict and statuses & STRICT_FAILING:
        return 1
    return 0


def _rel(path):
    try:
        return os.path.relpath(path)
    except ValueError:
        return path


def _included(compiled):
    """``[(file, what, kind, sha, source file name, options)]`` of the symssm files the engine read."""
    from .certificates import parse_marker

    out = []
    if compiled is None:
        return out
    for rel in compiled.inputs:
        if not rel.endswith(".tex"):
            continue
        try:
            with open(os.path.join(compiled.folder, rel), "rb") as fh:
                first = fh.readline(8192).decode("utf-8", "replace")
        except OSError:
            continue
        marker = parse_marker(first)
        if marker:
            out.append((rel,) + marker)
        elif first.startswith("% symssm table: framework; certificates "):
            shas = first.split("certificates ", 1)[1].split(";", 1)[0].replace("+", ",").split(",")
            out += [(rel, "table", "framework", sha.strip(), "framework.tex", "") for sha in shas]
    return out


def _labels(compiled):
    """{label: (number, page)} from the compiled paper's ``.aux`` files (addresses only)."""
    import re

    out = {}
    if compiled is None:
        return out
    for rel in compiled.inputs + (compiled.main[:-4] + ".aux",):
        if not rel.endswith(".aux"):
            continue
        try:
            with open(os.path.join(compiled.folder, rel), encoding="utf-8", errors="replace") as fh:
                text = fh.read(4 * 2**20)
        except OSError:
            continue
        for m in re.finditer(r"\\newlabel\{([^{}]{1,80})\}\{\{([^{}]{0,40})\}\{([^{}]{0,20})\}", text):
            out.setdefault(m.group(1), (m.group(2), m.group(3)))
    return out


def _label_option(options):
    import shlex

    try:
        words = shlex.split(options)
    except ValueError:
        return None
    return words[words.index("--label") + 1] if "--label" in words[:-1] else None


def audit(paper, certificates=None, *, engine="pdflatex", coq=False, strict=False, seconds=120.0, progress=None,
          keep=None):
    """Audit a paper (``.tex``: compiled first; ``.pdf``: as given): a :class:`Report`.

    Parameters
    ----------
    paper : str
        The main ``.tex`` file, or the PDF.
    certificates : str, optional
        Folder searched recursively for the certificates (default: the paper's folder).
    engine : str
        ``pdflatex`` (default) or ``xelatex``; ``lualatex`` is refused (its Lua code cannot be confined).
    coq : bool
        Also re-prove every verified head count of a real system in Coq.
    strict : bool
        Make unchecked and consistent prose, images near theorems and unused certificates fail the audit.
    seconds : float
        Time limit of the compile.
    progress : callable, optional
        Called with a short line at each step.
    keep : callable, optional
        Called with the report and the PDF's path while the PDF still exists (the HTML report's images).

    Raises
    ------
    InputError
        If the paper or the folder cannot be read, the paper does not compile (its first error, with file
        and line), or the PDF cannot be read.

    Examples
    --------
    >>> audit("no-such-folder/no-such-paper.tex")
    Traceback (most recent call last):
    ...
    symssm.errors.InputError: no-such-folder/no-such-paper.tex: no such file
    """
    import time

    from .compile import compile_paper, temporary_folder

    paper = os.fspath(paper)
    if not os.path.isfile(paper):
        raise InputError(f"{paper}: no such file")
    folder = os.fspath(certificates) if certificates is not None else os.path.dirname(os.path.abspath(paper))
    if not os.path.isdir(folder):
        raise InputError(f"{folder}: not a folder of certificates")
    say = progress or (lambda text: None)
    is_pdf = paper.lower().endswith(".pdf")
    with temporary_folder() as tmp:
        t0 = time.monotonic()
        compiled = None
        if is_pdf:
            pdf = paper
        else:
            compiled = compile_paper(paper, tmp, engine=engine, seconds=seconds, progress=say)
            pdf = compiled.pdf
        report = Report(paper, _rel(folder), pdf if is_pdf else os.path.basename(pdf), None if is_pdf else engine,
                        strict=strict)
        report.seconds["compile"] = time.monotonic() - t0
        _audit_pdf(report, pdf, folder, compiled, coq, say)
        if keep is not None:
            keep(report, pdf)
    return report


def _audit_pdf(report, pdf, folder, compiled, coq, say):
    import time

    from . import certificates as certs
    from .claims import PART_WINDOW, Stream, find, find_whole, negated_before, prose_claims
    from ..render.style import certificate_sha256
    from .pages import read_pdf
    from .statements import statements

    t0 = time.monotonic()
    say("reading the pages")
    pages = read_pdf(pdf)
    report.pages = len(pages)
    stream = Stream(pages)
    report.seconds["pages"] = time.monotonic() - t0
    t0 = time.monotonic()
    say("finding the certified statements")
    _, paths, by_name = certs.index(folder)
    data = {}  # sha -> (path, data)
    for path in paths:
        try:
            d = certs.load(path, None)
            data.setdefault(certificate_sha256(d), (path, d))
        except (InputError, ValueError, TypeError, KeyError, RecursionError, OSError, UnicodeDecodeError):
            continue
    included = _included(compiled)
    labels = _labels(compiled)
    verdicts = {}

    def verdict(sha):
        if sha not in verdicts:
            say(f"checking {os.path.basename(data[sha][0])}")
            verdicts[sha] = certs.cached_check(data[sha][0])
        return verdicts[sha]

    covered, shown_shas, claims, regions = set(), set(), [], []
    included_shas = {entry[3] for entry in included}
    fragment_file = {entry[3]: (entry[0], entry[5]) for entry in included if entry[1] == "fragment"}
    for sha, (path, d) in sorted(data.items(), key=lambda kv: kv[1][0]):
        try:
            sts = statements(d, sha)
        except InputError as exc:
            report.notes.append(f"{_rel(path)}: {exc}")
            continue
        if sha in fragment_file and not any(st.what == "fragment" for st in sts):
            # fail closed: the paper includes this fragment, and the audit cannot say what it must show
            rel, opts = fragment_file[sha]
            claims.append(Claim("not-shown", f"{d['kind']} fragment", os.path.basename(rel),
                                "the audit cannot derive the statement this fragment typesets, so it cannot show "
                                "that the page states it as certified", file=rel, line=1,
                                label=_label_option(opts) or None, certificate=_rel(path), sha256=sha))
        for st in sts:
            why = ""
            if st.segments:
                runs, partial, why = find_whole(stream, st)
            else:
                runs, partial = find(stream, st)
            is_fragment = st.what == "fragment"
            required = is_fragment and sha in fragment_file
            if runs is None and not required and not (why and partial):
                continue
            code, message = verdict(sha)
            claim = Claim("verified", f"{d['kind']} {st.what}", st.text, certificate=_rel(path), sha256=sha)
            if is_fragment and sha in fragment_file:
                rel, opts = fragment_file[sha]
                claim.file, claim.line = rel, 1
                claim.label = _label_option(opts) or None
            if code != 0:
                claim.status, claim.reason = "fails-check", message
            if runs is None:
                if claim.status == "verified":
                    claim.status = "not-shown"
                    claim.reason = ("the paper includes this fragment but no page shows its statement as certified"
                                    + (f" ({why})" if why else ""))
                if why and claim.status in ("verified", "not-shown"):  # found, but its theorem differs
                    claim.status = "not-shown"
                    claim.reason = f"the theorem on the page is not the certified one: {why}"
                if partial:
                    claim.page, claim.box = partial[0].page, partial[0].boxes()[partial[0].page]
                    claim.order = partial[0].start
                    # what the page shows after the title is about this certificate's system
                    regions.append((partial[0].start, partial[-1].end + PART_WINDOW // 4, sha))
                else:
                    claim.order = 10**9
            else:
                problems = tuple(p for r in runs for p in r.problems) + _beside(runs, pages)
                seen = []
                for p in problems:
                    if p not in seen:
                        seen.append(p)
                if seen and claim.status == "verified":
                    claim.status, claim.reason = "hidden", "; ".join(seen[:4])
                negation = "" if is_fragment else negated_before(stream, runs[0])
                if negation and claim.status == "verified":  # "It is not true that \\Sentence"
                    claim.status = "contradicts"
                    claim.reason = (f"negated: the page has \"{negation}\" before the certified sentence, and so "
                                    "states the opposite of what the certificate proves")
                claim.page = runs[-1].page
                boxes = [r.boxes()[claim.page] for r in runs if claim.page in r.boxes()]
                claim.box = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes),
                             max(b[3] for b in boxes))
                claim.order = runs[0].start
                claim.anchor = runs[-1].glyphs[0][1].origin
                for r in runs:
                    covered.update(range(r.start, r.end))
                end = runs[-1].end
                if st.tail:  # the proof's last sentence; else about a column of the proof
                    tails = _tail(stream, st.tail, end)
                    end = tails.end if tails else end + PART_WINDOW // 2
                regions.append((runs[0].start, end, sha))
                shown_shas.add(sha)
            if claim.label is None and is_fragment:
                auto = "symssm:" + sha[:16]
                claim.label = auto if auto in labels else None
            if claim.label in labels:
                claim.number = labels[claim.label][0] or None
            claims.append(claim)
    # included files whose certificate is not there (or has changed)
    tables = {rel for rel, what, *_ in included if what == "table"}
    for rel in sorted(tables):
        report.notes.append(f"{rel}: the framework table's rows are not certified statements the audit reads; "
                            "put a layer's fragment or sentence macro in the paper to have it verified")
    for rel, what, kind, sha, name, _ in included:
        if what == "table":
            continue
        if sha in data:
            if what == "macros" and verdict(sha)[0] != 0:
                claims.append(Claim("fails-check", f"{kind} macros", f"the macros of {name}", verdict(sha)[1],
                                    file=rel, line=1, certificate=_rel(data[sha][0]), sha256=sha, order=10**9))
            continue
        same_name = by_name.get(name, [])
        if same_name:
            claims.append(Claim("changed", f"{kind} {what}", f"{what} of {name}",
                                f"{_rel(same_name[0])} has changed since this {what} was generated (the file "
                                f"records SHA-256 {sha[:16]}...)", file=rel, line=1, certificate=_rel(same_name[0]),
                                sha256=sha, order=10**9))
        else:
            claims.append(Claim("missing-certificate", f"{kind} {what}", f"{what} of {name}",
                                f"no certificate with SHA-256 {sha[:16]}... under {report.folder}", file=rel, line=1,
                                sha256=sha, order=10**9))
    report.seconds["statements"] = time.monotonic() - t0
    t0 = time.monotonic()
    say("reading the prose")
    systems = []
    from ..render.claims import values

    for sha, (path, d) in data.items():
        name = (d.get("system") or {}).get("name")
        if name and verdicts.get(sha, (None,))[0] == 0:
            systems.append(_system(name, path, d))
    fragments = [(a, b, _system(data[sha][1]["system"].get("name") or "", data[sha][0], data[sha][1]))
                 for a, b, sha in regions]
    def beside(indices):
        by_page = {}
        for i in indices:
            num, g = stream.glyphs[i]
            by_page.setdefault(num, []).append(g)
        from .claims import Run

        return _beside([Run(tuple((num, g) for g in gl), 0, 0) for num, gl in by_page.items()], pages)

    for pc in prose_claims(stream, covered, systems, fragments, beside):
        claims.append(Claim(pc.status, f"prose: {pc.quantity} {pc.value}".strip(), pc.sentence, pc.detail, page=pc.page,
                            box=pc.box, certificate=pc.certificate or None, order=_order_of(stream, pc)))
    claims += _images(pages, stream)
    _addresses(claims, pages, compiled)
    claims.sort(key=lambda c: c.order)
    if coq:
        _kernel(claims, data, report)
    for sha, (path, d) in sorted(data.items(), key=lambda kv: kv[1][0]):
        if sha not in shown_shas and sha not in included_shas:
            claims.append(Claim("unused", d["kind"], f"{os.path.basename(path)}",
                                "no page shows a statement of this certificate", certificate=_rel(path), sha256=sha,
                                order=10**9 + 1))
    for i, c in enumerate(claims, 1):
        c.order = i
    report.claims = claims
    report.seconds["prose"] = time.monotonic() - t0


def _beside(runs, pages):
    """What lies beside the runs' glyphs that they do not explain (a digit drawn as a path, a Type 3 glyph, an
    annotation, stray ink): :func:`symssm.audit.pages.run_problems`, page by page (empty before the reader has it)."""
    try:
        from .pages import run_problems
    except ImportError:
        return ()
    by_number = {p.number: p for p in pages}
    out = []
    for r in runs:
        by_page = {}
        for num, g in r.glyphs:
            by_page.setdefault(num, []).append(g)
        for num, glyphs in by_page.items():
            for reason in run_problems(by_number[num], glyphs):
                if r.display and reason.startswith("a drawing beside"):
                    continue  # a display's rules (fraction bars, radicals) are read as drawings beside it today
                if reason not in out:
                    out.append(reason)
    return tuple(out)


def _system(name, path, d):
    """``(name, certificate path, values, kind, counts at one length or None)`` of a certified system."""
    from ..render.claims import values

    at = None
    if "profile" in d:
        def at(n, d=d):
            try:
                return values(d, n)
            except (KeyError, TypeError, IndexError):
                return None
    return (name, _rel(path), values(d), d["kind"], at)


def _addresses(claims, pages, compiled):
    """The source file and line of each claim found on a page without one, from SyncTeX (addresses only)."""
    from .synctex import address, read

    if compiled is None:
        return
    sync = read(os.path.join(compiled.folder, compiled.main[:-4] + ".synctex.gz"), compiled.folder)
    tops = {p.number: p.mediabox[3] for p in pages}
    for c in claims:
        if c.file is None and c.page is not None and c.box is not None:
            x, y = c.anchor or (c.box[0], c.box[1])
            found = address(sync, c.page, x + 0.5, y, tops.get(c.page, 792.0))
            if found:
                c.file, c.line = found


def _tail(stream, text, after):
    from .claims import PART_WINDOW, _occurrences

    found = _occurrences(stream, text, after, after + 3 * PART_WINDOW)
    return found[0] if found else None


def _order_of(stream, pc):
    for i, (page, g) in enumerate(stream.glyphs):
        if page == pc.page and g.bbox == pc.box:
            return i
    return 10**9


def _images(pages, stream):
    """Images on pages that carry a theorem-like heading: the audit cannot read them."""
    import re

    out = []
    for page in pages:
        if not page.images:
            continue
        text = " ".join(g.char for g in page.glyphs)
        heads = bool(re.search(r"T\s*h\s*e\s*o\s*r\s*e\s*m|L\s*e\s*m\s*m\s*a|C\s*e\s*r\s*t\s*i\s*f\s*i\s*e\s*d|"
                               r"P\s*r\s*o\s*p\s*o\s*s\s*i\s*t\s*i\s*o\s*n|C\s*o\s*r\s*o\s*l\s*l\s*a\s*r\s*y", text))
        for box in page.images:
            if heads:
                order = next((i for i, (p, _) in enumerate(stream.glyphs) if p == page.number), 10**9)
                out.append(Claim("unchecked", "image", f"an image on page {page.number}",
                                 "images are not readable by the audit; check what it shows by eye",
                                 page=page.number, box=tuple(box), order=order))
    return out


def _kernel(claims, data, report):
    from .certificates import has_coq, kernel_check

    done = {}
    for claim in claims:
        if claim.status != "verified" or not claim.what.endswith("fragment") or claim.sha256 not in data:
            continue
        d = data[claim.sha256][1]
        if not has_coq(d["kind"]) or d.get("field"):
            continue
        if claim.sha256 not in done:
            done[claim.sha256] = kernel_check(d)
        if done[claim.sha256] is True:
            claim.status = "kernel-checked"
        else:
            report.notes.append(f"{claim.certificate}: {done[claim.sha256]}")
