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
    from .core import audit, exit_code
    from .pages import render_crop
    from .report import terminal_lines, to_html, to_json

    if args.html:
        check_output_path(args.html, inputs=(args.paper,))
    crops = {}

    def keep(report, pdf):  # {claim number: PNG bytes} of each claim's page region and a margin, by PDFium
        with tempfile.TemporaryDirectory(prefix="symssm-crops-") as tmp:
            for c in [c for c in report.claims if c.page is not None and c.box is not None] if args.html else ():
                (x0, y0, x1, y1), path = c.box, os.path.join(tmp, f"crop-{c.order}.png")
                try:
                    render_crop(pdf, c.page, (x0 - 30, y0 - 20, max(x1, x0 + 120) + 30, y1 + 20), path, scale=2.0)
                    with open(path, "rb") as fh:
                        crops[c.order] = fh.read()
                except (InputError, OSError):
                    pass

    report = audit(args.paper, args.certificates, engine=args.engine, coq=args.coq, strict=args.strict,
                   seconds=args.time_limit, keep=keep, progress=(lambda text: print(
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
