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


ONE_COLUMN = ("\\documentclass{article}\n\\usepackage{amsmath,amssymb,amsthm}\n"
              "\\begin{document}\n%s\\end{document}\n")


def colliding_words(pdf):
    """Pairs of words on different lines whose boxes overlap (``pdftotext -bbox-layout``), as (page, a, b)."""
    import re

    out = subprocess.run(["pdftotext", "-bbox-layout", str(pdf), "-"], capture_output=True, text=True,
                         check=True).stdout
    word = re.compile(r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>')
    bad = []
    for page_no, page in enumerate(out.split("<page ")[1:], 1):
        words = []
        for li, line in enumerate(re.findall(r"<line[^>]*>(.*?)</line>", page, re.S)):
            for m in word.finditer(line):
                words.append((li, *map(float, m.groups()[:4]), m.group(5)))
        words.sort(key=lambda w: w[2])
        for i, a in enumerate(words):
            for b in words[i + 1:]:
                if b[2] >= a[4]:
                    break
                if a[0] != b[0] and min(a[3], b[3]) - max(a[1], b[1]) > 0.5 and min(a[4], b[4]) - max(a[2], b[2]) > 0.5:
                    bad.append((page_no, a[5], b[5]))
    return bad


def compile_all(folder, fragments, host):
    """Write fragments f0.tex, f1.tex, ... and doc.tex (host % inputs); compile; (overfull boxes, PDF text)."""
    for i, frag in enumerate(fragments):
        (folder / f"f{i}.tex").write_text(frag)
    (folder / "doc.tex").write_text(host % "".join(f"\\input{{f{i}}}\n" for i in range(len(fragments))))
    boxes = overfull_boxes(folder)
    overfull_boxes(folder)  # second run: labels and references
    text = subprocess.run(["pdftotext", str(folder / "doc.pdf"), "-"], capture_output=True, text=True,
                          check=True).stdout
    return boxes, text


#: More hosts authors use: amsart, and a NeurIPS-like 5.5in single column.
AMSART = ("\\documentclass{amsart}\n\\usepackage{amssymb}\n\\begin{document}\n%s\\end{document}\n")
NARROW_SINGLE = ("\\documentclass{article}\n\\usepackage{amsmath,amssymb,amsthm}\n"
                 "\\setlength{\\textwidth}{5.5in}\n\\begin{document}\n%s\\end{document}\n")
