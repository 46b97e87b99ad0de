"""Source addresses of page positions from the compile's SyncTeX file (addresses only, never verdicts).

``-synctex=1`` makes the engine write ``PAPER.synctex.gz``: the input files by tag, then for each page
records ``TYPE tag,line:x,y...`` in scaled points from the page's top left corner.  :func:`address`
maps a glyph's baseline origin to the file and line of the nearest record on its line at or before it.

Examples
--------
>>> text = "SyncTeX Version:1\\nInput:1:/w/./paper.tex\\nContent:\\n{1\\nx1,7:4736286,10962208\\n}1\\n"
>>> s = parse(text, "/w")
>>> address(s, 1, 72.5, 792 - 166.6, 792.0)
('paper.tex', 7)
"""

import gzip
import os
import re

__all__ = ["parse", "read", "address"]

_RECORD = re.compile(r"^[xkg$](\d+),(\d+):(-?\d+),(-?\d+)", re.M)  # glyphs, kerns, glue, math: where they came from
_SP = 72.0 / 72.27 / 65536.0  # scaled points to PDF points


def parse(text, folder):
    """``(inputs, pages)``: {tag: path relative to ``folder``} and {page: [(x, y from top, tag, line)]}."""
    inputs, pages = {}, {}
    _, _, content = text.partition("\nContent:")
    for m in re.finditer(r"^Input:(\d+):(.*)$", text, re.M):  # files opened later are declared in the content
        path = os.path.normpath(m.group(2))
        rel = os.path.relpath(path, os.path.normpath(folder))
        inputs[int(m.group(1))] = None if rel.startswith("..") else rel
    for m in re.finditer(r"^\{(\d+)\n(.*?)^\}\1$", content, re.S | re.M):
        rows = pages.setdefault(int(m.group(1)), [])
        for r in _RECORD.finditer(m.group(2)):
            rows.append((int(r.group(3)) * _SP, int(r.group(4)) * _SP, int(r.group(1)), int(r.group(2))))
    return inputs, pages


def read(path, folder):
    """:func:`parse` of a ``.synctex.gz`` file, or None when it is missing or unreadable."""
    try:
        with gzip.open(path, "rt", encoding="utf-8", errors="replace") as fh:
            return parse(fh.read(64 * 2**20), folder)
    except (OSError, EOFError, ValueError):
        return None


def address(synctex, page, x, y, top):
    """``(file, line)`` of the source at PDF position ``(x, y)`` on ``page`` (``top``: the page's top edge), or
    None (a file outside the paper's folder, or no record near)."""
    inputs, pages = synctex or ({}, {})
    near = [(rx, tag, line) for rx, ry, tag, line in pages.get(page, ()) if abs(ry - (top - y)) <= 3.0 and rx <= x + 1]
    best = max(near, default=None)
    return (inputs[best[1]], best[2]) if best and inputs.get(best[1]) is not None else None
