"""The audit's report, keyed by the paper: terminal lines, a JSON document, one self-contained HTML page.

All three list the claims in the paper's order, each with the paper's own number and page (from its
``.aux``), its label, file and line, its status and its certificate; then the numbers written by hand,
warnings, what stopped the audit reading the paper, and the certificates no typeset claim uses.

The JSON document (:data:`SCHEMA_VERSION`; docs/latex.md describes every field) is stable: fields
are only added, never renamed, within a version.  The HTML page needs no network and no script: its
styles are inline, every text from the paper is escaped, and the certificates are linked by relative
paths from the page's folder.

Examples
--------
>>> from symssm.render.claims import Claim, Report
>>> r = Report("p.tex", ".", claims=[Claim("verified", "head-count fragment", "rot.tex", 1, 1, label="thm:rot",
...                                          number="Theorem 1", page="2", certificate="rot.json")])
>>> terminal_lines(r)[1]
'VERIFIED: Theorem 1 [thm:rot], page 2, rot.tex:1: head-count fragment (rot.json)'
>>> to_json(r)["claims"][0]["status"]
'verified'
"""

import html
import os
from urllib.parse import quote

from .claims import PASSING, STATUSES, exit_code

__all__ = ["terminal_lines", "to_json", "to_html", "SCHEMA_VERSION"]

#: Version of the JSON document's schema.
SCHEMA_VERSION = 1


def _counts(report):
    counts = {}
    for c in report.claims:
        counts[c.status] = counts.get(c.status, 0) + 1
    return counts


def _summary(report):
    counts = _counts(report)
    n = len(report.claims)
    bad = sum(v for k, v in counts.items() if k not in PASSING)
    contradicts = sum(1 for u in report.unchecked if u.status == "contradicts")
    unchecked = len(report.unchecked) - contradicts
    if not report.claims:
        head = f"audit: no symssm result found in {report.paper} or its inputs"
    elif bad:
        parts = ", ".join(f"{v} {STATUSES[k].lower()}" for k, v in counts.items() if k not in PASSING)
        head = f"audit: {bad} of {n} claim{'s do' if n != 1 else ' does'} not verify ({parts})"
    else:
        kernel = counts.get("kernel-checked", 0)
        head = (f"audit: {'all ' if n > 1 else ''}{n} claim{'s' if n != 1 else ''} verified (certificates re-checked, text identical as TeX tokens"
                + (f"; {kernel} kernel-checked by Coq" if kernel else "") + ")")
    tail = []
    if contradicts:
        tail.append(f"{contradicts} hand-written number{'s contradict' if contradicts != 1 else ' contradicts'} a "
                    "certificate")
    if unchecked:
        tail.append(f"{unchecked} hand-written number{'s' if unchecked != 1 else ''} unchecked")
    if report.warnings:
        tail.append(f"{len(report.warnings)} warning{'s' if len(report.warnings) != 1 else ''}")
    if report.problems:
        tail.append(f"{len(report.problems)} construct{'s' if len(report.problems) != 1 else ''} the audit cannot "
                    "read")
    if report.unused:
        tail.append(f"{len(report.unused)} certificate{'s' if len(report.unused) != 1 else ''} no typeset claim "
                    "uses")
    if report.claims and not bad and exit_code(report) == 1:  # every claim verified, the paper still fails
        why = "the paper uses a construct the audit cannot read (NOT AUDITED above)" if report.problems else \
            "a hand-written number contradicts a certificate" if contradicts else \
            "with --strict, unchecked numbers, warnings and unused certificates fail it"
        head = "audit FAILED, " + why + "; " + head[len("audit: "):]
    return head + ("; " + "; ".join(tail) if tail else "")


def terminal_lines(report):
    """The report as lines of text, claims in the paper's order, the verdict last."""
    n = len(report.claims)
    out = [f"audit of {report.paper}: {n} claim{'s' if n != 1 else ''} in the paper's order"
           + (f" (numbers from {report.aux})" if report.aux else "")]
    for c in report.claims:
        out.append(c.text())
        for d in c.diff:
            if d["line"]:
                out.append(f"    line {d['line']}: expected \"{d['expected']}\"")
                out.append(f"    {' ' * len(str(d['line']))}       found    \"{d['found']}\"")
            else:
                out.append(f"    {d['expected']}")
    for file, line, message in report.problems:
        out.append(f"NOT AUDITED: {file}:{line}: {message}")
    for u in report.unchecked:
        out.append(u.text())
    for file, line, message in report.warnings:
        out.append(f"WARNING: {file}:{line}: {message}")
    for path in report.unused:
        out.append(f"UNUSED CERTIFICATE: {path}: no typeset claim uses it")
    out += report.notes
    out.append(_summary(report))
    return out


def to_json(report):
    """The report as a JSON-ready dict (schema :data:`SCHEMA_VERSION`, documented in docs/latex.md)."""
    counts = _counts(report)
    contradicts = sum(1 for u in report.unchecked if u.status == "contradicts")
    return {
        "format": "symssm-audit",
        "version": SCHEMA_VERSION,
        "paper": report.paper,
        "certificates_folder": report.folder,
        "aux": report.aux,
        "strict": report.strict,
        "exit_code": exit_code(report),
        "summary": {"claims": len(report.claims), "by_status": counts,
                    "unchecked": len(report.unchecked) - contradicts, "contradicts": contradicts,
                    "warnings": len(report.warnings), "problems": len(report.problems),
                    "unused_certificates": len(report.unused)},
        "claims": [{
            "index": k, "status": c.status, "what": c.what, "kind": c.kind, "label": c.label, "number": c.number,
            "page": c.page, "file": c.file, "line": c.line, "certificate": c.certificate, "sha256": c.sha256,
            "statement": c.statement, "detail": c.detail or None, "obligation": c.obligation, "diff": c.diff,
            "certificates": list(c.certificates)} for k, c in enumerate(report.claims, 1)],
        "unchecked": [{"status": u.status, "file": u.file, "line": u.line, "quantity": u.quantity, "value": u.value,
                       "sentence": u.sentence, "certificate": u.certificate, "detail": u.detail or None}
                      for u in report.unchecked],
        "warnings": [{"file": f, "line": ln, "message": m} for f, ln, m in report.warnings],
        "problems": [{"file": f, "line": ln, "message": m} for f, ln, m in report.problems],
        "unused_certificates": list(report.unused),
        "notes": list(report.notes),
    }


_COLOURS = {
    "verified": ("#d8f0d8", "#1a5e1a"), "kernel-checked": ("#b8e6c2", "#0d4a1f"), "edited": ("#ffe0b8", "#8a4300"),
    "changed-certificate": ("#ead8f5", "#5a1f80"), "missing-certificate": ("#f8d0d0", "#8a1010"),
    "fails-check": ("#f8c0c0", "#7a0000"), "not-typeset": ("#e4e4e4", "#404040"), "redefined": ("#ffe0b8", "#8a4300"),
    "unmarked": ("#f8d0d0", "#8a1010"), "unchecked": ("#fff6c8", "#6a5500"), "contradicts": ("#f8c0c0", "#7a0000"),
}

_STYLE = """
body { font-family: -apple-system, "Segoe UI", Roboto, "DejaVu Sans", Arial, sans-serif; margin: 24px; color: #1b1b1b;
       max-width: 1400px; }
h1 { font-size: 22px; margin: 0 0 6px 0; } h2 { font-size: 17px; margin: 22px 0 8px 0; }
p.verdict { font-size: 16px; font-weight: bold; padding: 8px 12px; border-radius: 4px; }
p.pass { background: #d8f0d8; color: #1a5e1a; } p.fail { background: #f8c0c0; color: #7a0000; }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { border: 1px solid #c8c8c8; padding: 4px 6px; text-align: left; vertical-align: top; }
th { background: #f0f0f0; }
table.summary { width: auto; } table.summary td { min-width: 60px; }
td.status { font-weight: bold; white-space: nowrap; }
pre { margin: 4px 0; white-space: pre-wrap; word-break: break-word; font-size: 12px; }
.diff-expected { background: #e6f4e6; } .diff-found { background: #fbe3e3; }
code { font-size: 12px; } .muted { color: #606060; }
td.detail { width: 36%; } td.where { min-width: 170px; overflow-wrap: anywhere; }
"""


def _e(text):
    return html.escape(str(text), quote=True)


def _status_cell(status, label=None):
    bg, fg = _COLOURS.get(status, ("#ffffff", "#000000"))
    return (f'<td class="status status-{_e(status)}" style="background:{bg};color:{fg}">'
            f'{_e(label or STATUSES.get(status, status.upper()))}</td>')


def _link(path, html_dir):
    if not path:
        return ""
    target = os.path.relpath(os.path.abspath(path), html_dir) if html_dir else path
    return f'<a href="{_e(quote(target.replace(os.sep, "/")))}">{_e(path)}</a>'


def to_html(report, html_path=None):
    """The report as one self-contained HTML page (no network, no script); certificates linked from
    the page's folder (``html_path``)."""
    html_dir = os.path.dirname(os.path.abspath(html_path)) if html_path else None
    code = exit_code(report)
    counts = _counts(report)
    contradicts = sum(1 for u in report.unchecked if u.status == "contradicts")
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           f"<title>symssm audit: {_e(report.paper)}</title>", f"<style>{_STYLE}</style>", "</head>", "<body>",
           f"<h1>symssm audit of {_e(report.paper)}</h1>",
           f'<p class="muted">Certificates searched under {_e(report.folder)}'
           + (f"; numbers and pages from {_e(report.aux)}" if report.aux else
              "; compile the paper to see its own numbers and pages") + ".</p>",
           f'<p class="verdict {"pass" if code == 0 else "fail"}">{_e(_summary(report))}</p>',
           '<table class="summary" id="summary"><tr><th>status</th><th>claims</th></tr>']
    for status in STATUSES:
        if counts.get(status):
            out.append(f"<tr>{_status_cell(status)}<td>{counts[status]}</td></tr>")
    if report.unchecked:
        out.append(f"<tr>{_status_cell('unchecked', 'UNCHECKED (hand-written)')}"
                   f"<td>{len(report.unchecked) - contradicts}</td></tr>")
    if contradicts:
        out.append(f"<tr>{_status_cell('contradicts', 'CONTRADICTS CERTIFICATE')}<td>{contradicts}</td></tr>")
    out.append("</table>")
    out += ["<h2>Claims, in the paper's order</h2>", '<table id="claims">',
            "<thead><tr><th>#</th><th>number</th><th>label</th><th>page</th><th>file:line</th><th>claim</th>"
            "<th>status</th><th>certificate</th><th>what it proves / why not</th></tr></thead>", "<tbody>"]
    for k, c in enumerate(report.claims, 1):
        detail = _e(c.statement) if c.status in PASSING and c.statement else _e(c.detail)
        if c.obligation and c.obligation not in (c.detail or ""):
            detail += f"<br>obligation: <code>{_e(c.obligation)}</code>"
        if c.diff:
            for d in c.diff:
                if d["line"]:
                    detail += (f'<pre class="diff-expected">line {d["line"]}, expected: {_e(d["expected"])}</pre>'
                               f'<pre class="diff-found">line {d["line"]}, found: {_e(d["found"])}</pre>')
                else:
                    detail += f"<pre>{_e(d['expected'])}</pre>"
        certs = c.certificates if c.certificates else ([c.certificate] if c.certificate else [])
        cert = "<br>".join(_link(x, html_dir) if os.path.exists(x) else _e(x) for x in certs)
        label = c.label if c.label and not c.label.startswith("symssm:") else (c.label or "")
        out.append(f'<tr class="claim status-{_e(c.status)}"><td>{k}</td><td>{_e(c.number or "")}</td>'
                   f"<td><code>{_e(label)}</code></td><td>{_e(c.page or '')}</td>"
                   f'<td class="where">{_e(c.file)}:{c.line}</td>'
                   f'<td>{_e(c.what)}</td>{_status_cell(c.status)}<td>{cert}</td><td class="detail">{detail}</td></tr>')
    out += ["</tbody>", "</table>"]
    if report.unchecked:
        out += ["<h2>Numbers written by hand</h2>", '<table id="unchecked">',
                "<thead><tr><th>file:line</th><th>quantity</th><th>value</th><th>status</th><th>sentence</th>"
                "<th>compared with</th></tr></thead>", "<tbody>"]
        for u in report.unchecked:
            label = "CONTRADICTS CERTIFICATE" if u.status == "contradicts" else "UNCHECKED"
            out.append(f"<tr><td>{_e(u.file)}:{u.line}</td><td>{_e(u.quantity)}</td><td>{_e(u.value)}</td>"
                       f"{_status_cell(u.status, label)}<td>{_e(u.sentence)}</td>"
                       f"<td>{_link(u.certificate, html_dir) if u.certificate else ''}"
                       f"{'<br>' if u.certificate and u.detail else ''}{_e(u.detail)}</td></tr>")
        out += ["</tbody>", "</table>"]
    for title, rows, ident in (("Warnings", report.warnings, "warnings"),
                               ("What the audit cannot read", report.problems, "problems")):
        if rows:
            out += [f"<h2>{title}</h2>", f'<table id="{ident}"><tbody>']
            out += [f"<tr><td>{_e(f)}:{ln}</td><td>{_e(m)}</td></tr>" for f, ln, m in rows]
            out += ["</tbody>", "</table>"]
    if report.unused:
        out += ["<h2>Certificates no typeset claim uses</h2>", '<ul id="unused">']
        out += [f"<li>{_link(p, html_dir)}</li>" for p in report.unused]
        out.append("</ul>")
    if report.notes:
        out += ["<h2>Notes</h2>", '<ul id="notes">'] + [f"<li>{_e(n)}</li>" for n in report.notes] + ["</ul>"]
    out += ['<p class="muted">Written by symssm audit. Statuses: verified (the certificate re-checked by the '
            "independent checker, the text identical as TeX tokens to what it renders); kernel-checked (also "
            "re-proved by Coq); edited (the text differs: the differences are shown); changed certificate (a file of "
            "the recorded name has another SHA-256); missing certificate; fails check (the checker's first failed "
            "obligation); not typeset (and why); redefined (the paper redefines a command the claim uses); unmarked "
            "(symssm text without marker comments, or a macro defined by hand).</p>", "</body>", "</html>"]
    return "\n".join(out) + "\n"
