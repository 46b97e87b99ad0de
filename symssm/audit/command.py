"""``symssm audit``'s arguments and its run: compile or read the paper, audit it, print or write the report.

Examples
--------
>>> import argparse
>>> p = argparse.ArgumentParser()
>>> add_arguments(p)
>>> p.parse_args(["paper.tex", "--engine", "lualatex", "--strict"]).engine
'lualatex'
"""

import json
import os
import sys

from .compile import ENGINES

__all__ = ["add_arguments", "run"]


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


def _progress():
    if not sys.stderr.isatty():
        return None

    def say(text):
        print(f"symssm audit: {text}", file=sys.stderr, flush=True)
    return say


def _crops(report, pdf, folder):
    """{claim number: PNG bytes} of each claim's page region (a margin around it), rendered by PDFium."""
    from ..errors import InputError
    from .pages import render_crop

    out = {}
    for c in report.claims:
        if c.page is None or c.box is None:
            continue
        x0, y0, x1, y1 = c.box
        box = (x0 - 30, y0 - 20, max(x1, x0 + 120) + 30, y1 + 20)
        path = os.path.join(folder, f"crop-{c.order}.png")
        try:
            render_crop(pdf, c.page, box, path, scale=2.0)
            with open(path, "rb") as fh:
                out[c.order] = fh.read()
        except (InputError, OSError):
            continue
    return out


def run(args):
    """Run ``symssm audit`` with parsed ``args``; the exit status (0 passed, 1 failed).

    Raises
    ------
    InputError
        If the paper cannot be compiled or read, or the HTML file cannot be written (the command line's exit 2).
    """
    import tempfile

    from ..formats.files import atomic_write, check_output_path
    from ..render.summary import terminal_safe
    from .core import audit, exit_code
    from .report import terminal_lines, to_html, to_json

    if args.html:
        check_output_path(args.html, inputs=(args.paper,))
    crops = {}

    def keep(report, pdf):
        if args.html:
            with tempfile.TemporaryDirectory(prefix="symssm-crops-") as tmp:
                crops.update(_crops(report, pdf, tmp))

    report = audit(args.paper, args.certificates, engine=args.engine, coq=args.coq, strict=args.strict,
                   seconds=args.time_limit, progress=_progress(), keep=keep)
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
