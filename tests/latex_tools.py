"""Helpers for tests that compile LaTeX: pdflatex and pdftotext, required on CI."""

import os
import shutil
import subprocess

import pytest


def require_tools():
    missing = [t for t in ("pdflatex", "pdftotext") if shutil.which(t) is None]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must install {', '.join(missing)} (.ci/run does)")
        pytest.skip(f"{', '.join(missing)} not installed")


def compile_tex(folder, name="doc.tex"):
    """pdflatex -halt-on-error; returns the PDF's text."""
    result = subprocess.run(["pdflatex", "-halt-on-error", "-interaction=nonstopmode", name],
                            cwd=folder, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-2000:]
    pdf = os.path.join(folder, name[:-4] + ".pdf")
    return subprocess.run(["pdftotext", pdf, "-"], capture_output=True, text=True, check=True).stdout


HOST = ("\\documentclass{article}\n\\usepackage{amsmath,amssymb,amsthm}\n\\newtheorem{theorem}{Theorem}\n"
        "\\begin{document}\n\\begin{theorem}Host.\\end{theorem}\n%s\\end{document}\n")


TWO_COLUMN = ("\\documentclass[twocolumn]{article}\n\\usepackage{amsmath,amssymb,amsthm}\n"
              "\\begin{document}\n%s\\end{document}\n")


def overfull_boxes(folder, name="doc.tex"):
    """Compile (pdflatex) and return the overfull boxes of the log, in pt (any size)."""
    import re

    result = subprocess.run(["pdflatex", "-halt-on-error", "-interaction=nonstopmode", name],
                            cwd=folder, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-2000:]
    log = open(os.path.join(folder, name[:-4] + ".log"), errors="replace").read()
    return [float(x) for x in re.findall(r"Overfull \\[hv]box \(([0-9.]+)pt too", log)]
