"""``symssm audit``: a paper's certified results checked on its compiled pages, glyph by glyph.

The stage above ``render``: ``compile`` (the paper in a confined copy), ``pages`` (the PDF's painted glyphs),
``statements`` (what each certificate typesets), ``claims`` (found on the pages; the prose's other claims),
``core`` (the verdicts), ``report`` (terminal, JSON, HTML).
"""

from .core import PASSING, STATUSES, Claim, Report, audit, exit_code

__all__ = ["audit", "exit_code", "Claim", "Report", "STATUSES", "PASSING"]
