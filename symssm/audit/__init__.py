"""``symssm audit``: a paper's certified results checked on its compiled pages, glyph by glyph.

The stage above ``render``: ``compile`` (a confined copy), ``pages`` (the PDF's painted glyphs), ``statements``
(what each certificate typesets), ``claims`` (found on the pages; prose), ``core`` (verdicts), ``report``.
"""

from .core import PASSING, STATUSES, Claim, Report, audit, exit_code

__all__ = ["audit", "exit_code", "Claim", "Report", "STATUSES", "PASSING"]
