"""``symssm audit`` of a 10-page paper, whole command, beside the bare compile in the same run.

The paper (two columns, the audit fixtures' two fragments and sentence macro, prose filler from the
``lipsum`` package) is built with tests/fixtures/audit/build.py; the baseline compiles it as an author
would (``pdflatex`` twice, no audit); then ``symssm audit PAPER.tex`` (its own compile in a confined copy,
the pages read glyph by glyph, each statement's lines and the prose lines compared pixel by pixel with PDFium
in view and print mode, the certificates re-checked, the report).

    python benchmarks/bench_audit.py [--repeat 3] [--pages 10]

Prints a Markdown table (docs/performance.md records a run).
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAPER = r"""\documentclass[twocolumn]{article}
\usepackage{amsmath,amssymb,amsthm}
\usepackage{lipsum}
\newtheorem{theorem}{Theorem}
\input{macros/rotation}
\input{macros/jordan}
\begin{document}
\section{Introduction}
We show that \SymssmRotationHeadCountSentence{} (Certified result~\ref{thm:rotation}).
\lipsum[1-%(first)d]
\input{results/rotation}
\lipsum[1-%(second)d]
\input{results/jordan}
\end{document}
"""


def _run(argv, cwd):
    t = time.perf_counter()
    res = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - t, res


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--pages", type=int, default=10)
    args = ap.parse_args()
    sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures", "audit"))
    from build import build

    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src")
        os.makedirs(src)
        per = 8 * args.pages  # lipsum paragraphs: about 8 to a two-column page
        with open(os.path.join(src, "paper.tex"), "w") as fh:
            fh.write(PAPER % {"first": max(1, per // 2 - 8), "second": max(1, per // 2 - 8)})
        paper = build(src, os.path.join(tmp, "paper"))
        folder = os.path.dirname(paper)
        compile_times, audit_times = [], []
        pages = "?"
        for _ in range(args.repeat):
            work = os.path.join(tmp, "baseline")
            shutil.rmtree(work, ignore_errors=True)
            shutil.copytree(folder, work)
            t = 0.0
            for _ in range(2):
                dt, res = _run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"], work)
                assert res.returncode == 0, res.stdout[-2000:]
                t += dt
            compile_times.append(t)
            info = subprocess.run(["pdfinfo", "paper.pdf"], cwd=work, capture_output=True, text=True).stdout
            pages = next((line.split()[-1] for line in info.splitlines() if line.startswith("Pages:")), "?")
            t = time.perf_counter()
            res = subprocess.run([sys.executable, "-m", "symssm", "audit", paper], capture_output=True, text=True,
                                 env=env)
            audit_times.append(time.perf_counter() - t)
            assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    print(f"| paper | bare compile (pdflatex x2) | symssm audit (compile + pages + checks) |")
    print("|---|---|---|")
    print(f"| {pages} pages, 2 fragments, 1 sentence macro | {statistics.median(compile_times):.2f} s "
          f"| {statistics.median(audit_times):.2f} s |")
    print(f"(median of {args.repeat}; audit runs: {', '.join(f'{t:.1f}' for t in audit_times)} s)")


if __name__ == "__main__":
    main()
