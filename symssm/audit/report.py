"""The audit's report (terminal lines, a stable JSON document, one self-contained HTML page) and its command.

Each lists the claims in page order as the page shows them (never TeX); the HTML page embeds a PDFium crop of
each claim's region (no network, no script); the JSON document (:data:`SCHEMA_VERSION`, docs/latex.md) only
gains fields within a version.

Examples
--------
>>> from symssm.audit.core import Claim, Report
>>> r = Report("p.tex", ".", "p.pdf", "pdflatex", 1, [Claim("verified", "head-count fragment", "k = 2", page=1,
...                                                     label="thm:rot", certificate="rot.json", order=1)])
>>> terminal_lines(r)[0]
'audit of p.tex: PASSED: 1 certified statement shown as certified (1 page, compiled with pdflatex)'
>>> terminal_lines(r)[1], to_json(r)["claims"][0]["status"]
('#1 VERIFIED, page 1, [thm:rot]: head-count fragment (rot.json): k = 2', 'verified')
"""

import base64
import contextlib
import html
import json
import os
import sys
from collections import Counter

from .compile import ENGINES
from .core import FAILING, PASSING, STATUSES, STRICT_FAILING, exit_code

__all__ = ["terminal_lines", "to_json", "to_html", "SCHEMA_VERSION", "add_arguments", "run"]

#: Version of the JSON document's schema (1 was the TeX-reading audit's).
SCHEMA_VERSION = 2


def summary(report):
    """The verdict in one line."""
    counts = Counter(c.status for c in report.claims)
    shown, bad, loose = (sum(counts[s] for s in group) for group in (PASSING, FAILING, STRICT_FAILING))
    where = f"{report.pages} page{'s' if report.pages != 1 else ''}, " + (
        f"compiled with {report.engine}" if report.engine else "the PDF as given")
    if exit_code(report) == 0:
        head = f"PASSED: {shown} certified statement{'s' if shown != 1 else ''} shown as certified" + (
            f"; {loose} other claim{'s' if loose != 1 else ''} listed, not decided" if loose else "")
    elif not shown and not bad:
        head = "FAILED: no certified statement is shown on the pages"
    else:
        head = "FAILED: " + (f"{loose} unchecked, consistent or unused (--strict)" if report.strict and loose and
                             not bad else ", ".join(f"{counts[s]} {STATUSES[s].lower()}" for s in STATUSES
                                                    if s in FAILING and counts.get(s)))
    return f"audit of {report.paper}: {head} ({where})"


def terminal_lines(report):
    """The report as lines for a terminal: the verdict, then one line per claim, then notes."""
    out = [summary(report)]
    for c in report.claims:
        label = c.label and not c.label.startswith("symssm:") and f"[{c.label}]"
        where = ", ".join(filter(None, [c.page is not None and f"page {c.page}", c.number and f"number {c.number}",
                                        label, c.file and f"{c.file}:{c.line}"]))
        out.append(f"#{c.order} {STATUSES[c.status]}" + f", {where}" * bool(where) + f": {c.what}"
                   + f" ({c.certificate})" * bool(c.certificate) + f": {c.text}" + f": {c.reason}" * bool(c.reason))
    return out + [f"note: {n}" for n in report.notes]


def to_json(report):
    """The report as a JSON-ready dict (schema :data:`SCHEMA_VERSION`, documented in docs/latex.md)."""
    return {"format": "symssm-audit", "version": SCHEMA_VERSION, "paper": report.paper, "pdf": report.pdf,
            "engine": report.engine, "certificates_folder": report.folder, "pages": report.pages,
            "strict": report.strict, "exit_code": exit_code(report), "verdict": summary(report),
            "by_status": dict(Counter(c.status for c in report.claims)),
            "claims": [{"number": c.order, "status": c.status, "what": c.what, "text": c.text,
                        "reason": c.reason or None, "page": c.page,
                        "box": [round(v, 2) for v in c.box] if c.box else None, "label": c.label,
                        "paper_number": c.number, "file": c.file, "line": c.line, "certificate": c.certificate,
                        "sha256": c.sha256} for c in report.claims],
            "notes": list(report.notes)}


_COLOURS = {**dict.fromkeys(FAILING, ("#f8c0c0", "#7a0000")), "changed": ("#ead8f5", "#5a1f80"),
            "stale": ("#fde2c4", "#7a3a00"),
            "missing-certificate": ("#f8d0d0", "#8a1010"), "verified": ("#d8f0d8", "#1a5e1a"),
            "kernel-checked": ("#b8e6c2", "#0d4a1f"), "unchecked": ("#fff6c8", "#6a5500"),
            "consistent": ("#eef6d8", "#3f5a00"), "unused": ("#e4e4e4", "#404040")}
_STYLE = """
body { font-family: "DejaVu Sans", Arial, sans-serif; margin: 24px; color: #1b1b1b; max-width: 1400px; }
h1 { font-size: 22px; margin: 0 0 6px 0; } h2 { font-size: 17px; margin: 22px 0 8px 0; }
p.verdict { font-size: 16px; font-weight: bold; padding: 8px 12px; border-radius: 4px; }
p.pass { background: #d8f0d8; color: #1a5e1a; } p.fail { background: #f8c0c0; color: #7a0000; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { border: 1px solid #c8c8c8; padding: 4px 6px; text-align: left; vertical-align: top; }
th { background: #f0f0f0; } td.status { font-weight: bold; white-space: nowrap; }
td.text { max-width: 420px; overflow-wrap: anywhere; } img.crop { max-width: 420px; border: 1px solid #ddd; }
.muted { color: #606060; }
"""


_e = html.escape  # quotes too
_STATUS_CELLS = {s: '<td class="status" style="background:{};color:{}">{}</td>'.format(*_COLOURS[s], STATUSES[s])
                 for s in STATUSES}


def to_html(report, crops=None):
    """The report as one self-contained HTML page; ``crops``: {claim number: PNG bytes} of the page regions."""
    crops, code, counts = crops or {}, exit_code(report), Counter(c.status for c in report.claims)
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>symssm audit: {_e(report.paper)}</title>", f"<style>{_STYLE}</style>", "</head>", "<body>",
           f"<h1>symssm audit of {_e(report.paper)}</h1>",
           f'<p class="verdict {"pass" if code == 0 else "fail"}">{_e(summary(report))}. Each claim is a row of the '
           '<a href="#claims">claims table below</a>.</p>',
           '<table style="width:auto" id="summary"><tr><th>status</th><th>claims</th></tr>']
    out += [f"<tr>{_STATUS_CELLS[s]}<td>{counts[s]}</td></tr>" for s in STATUSES if counts.get(s)]
    out += ["</table>", "<h2>Claims, in the order of the pages</h2>", '<table id="claims">',
            "<thead><tr><th>#</th><th>page</th><th>number</th><th>label</th><th>status</th><th>claim</th>"
            "<th>reason</th><th>as the page shows it</th></tr></thead>", "<tbody>"]
    for c in report.claims:
        label = c.label if c.label and not c.label.startswith("symssm:") else ""
        where = f"<br><span class=\"muted\">{_e(c.file)}:{c.line}</span>" if c.file else ""
        cert = f"<br><span class=\"muted\">{_e(c.certificate)}</span>" if c.certificate else ""
        img = (f'<img class="crop" alt="page {c.page}" src="data:image/png;base64,'
               f'{base64.b64encode(crops[c.order]).decode("ascii")}">' if crops.get(c.order) else "")
        out.append(f'<tr class="claim status-{_e(c.status)}"><td>{c.order}</td><td>{c.page or ""}</td>'
                   f"<td>{_e(c.number or '')}</td><td><code>{_e(label)}</code>{where}</td>{_STATUS_CELLS[c.status]}"
                   f'<td class="text">{_e(c.what)}{cert}<br>{_e(c.text)}</td><td>{_e(c.reason)}</td>'
                   f"<td>{img}</td></tr>")
    out += ["</tbody>", "</table>"]
    if report.notes:
        out += ["<h2>Notes</h2>", '<ul id="notes">'] + [f"<li>{_e(n)}</li>" for n in report.notes] + ["</ul>"]
    out += ['<p class="muted">Written by symssm audit. VERIFIED: the statement the certificate proves (re-checked by '
            "the independent checker) is painted on the page, every glyph visible as itself. HIDDEN, NOT SHOWN, "
            "CHANGED, MISSING CERTIFICATE, FAILS CHECK, CONTRADICTS CERTIFICATE and STALE (a fragment another "
            "symssm version wrote: regenerate it with the command given) fail the audit. UNCHECKED and "
            "CONSISTENT (prose and images, listed, not decided) and UNUSED certificates fail it only with "
            "--strict. See docs/latex.md.</p>", "</body>", "</html>"]
    return "\n".join(out) + "\n"


def add_arguments(p):
    """The audit's arguments on an :mod:`argparse` parser."""
    p.add_argument("paper", metavar="PAPER", help="the paper's main .tex file (compiled in a temporary copy), or a PDF")
    p.add_argument("--certificates", metavar="DIR", default=None,
                   help="folder searched (recursively) for the certificates' .json files (default: the paper's folder)")
    p.add_argument("--engine", choices=ENGINES, default="pdflatex",
                   help="TeX engine for a .tex paper (default pdflatex; lualatex is refused: "
                        "its Lua code cannot be confined, audit its PDF instead)")
    p.add_argument("--json", action="store_true", help="the report as JSON (format in docs/latex.md)")
    p.add_argument("--html", metavar="FILE", default=None,
                   help="also write the report as one self-contained HTML page with an image of each claim's region")
    p.add_argument("--coq", action="store_true",
                   help="also re-prove each verified head count in Coq; those that build are kernel-checked")
    p.add_argument("--strict", action="store_true",
                   help="fail also on unchecked or consistent prose, images near theorems and unused certificates")
    p.add_argument("--time-limit", type=float, default=300.0, metavar="SECONDS",
                   help="time limit of the compile (default 300)")


def run(args):
    """Run ``symssm audit`` with parsed ``args``; the exit status (0 passed, 1 failed).

    Raises
    ------
    InputError
        If the paper cannot be compiled or read, or the HTML file cannot be written (the command line's exit 2).
    """
    import tempfile
    from ..errors import InputError
    from ..formats.files import atomic_write, check_output_path
    from ..render.summary import terminal_safe
    from .core import audit
    from .pages import render_crop
    crops = {}
    if args.html:
        check_output_path(args.html, inputs=(args.paper,))

    def keep(report, pdf):  # {claim number: PNG bytes} of each claim's page region (its whole sentence or theorem)
        with tempfile.TemporaryDirectory(prefix="symssm-crops-") as tmp:
            for c in [c for c in report.claims if c.page is not None and c.box is not None]:
                (x0, y0, x1, y1), path = c.box, os.path.join(tmp, f"crop-{c.order}.png")
                with contextlib.suppress(InputError, OSError):
                    # the claim's own lines, 4 pt either side and 1 pt above and below: no word of a neighbouring
                    # column or line is cut in
                    render_crop(pdf, c.page, (x0 - 4, y0 - 1, x1 + 4, y1 + 1), path, scale=2.0)
                    with open(path, "rb") as fh:
                        crops[c.order] = fh.read()

    report = audit(args.paper, args.certificates, engine=args.engine, coq=args.coq, strict=args.strict,
                   seconds=args.time_limit, keep=keep if args.html else None, progress=(lambda text: print(
                       f"symssm audit: {text}", file=sys.stderr, flush=True)) if sys.stderr.isatty() else None)
    if args.html:
        atomic_write(args.html, to_html(report, crops), inputs=(args.paper,))
    if args.json:
        print(json.dumps(to_json(report), indent=2, ensure_ascii=True))
    else:
        for line in terminal_lines(report):
            print(terminal_safe(line))
        if args.html:
            print(f"audit report page written to {terminal_safe(args.html)}")
    return exit_code(report)
