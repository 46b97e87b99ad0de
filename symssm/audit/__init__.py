"""``symssm audit``: a paper's certified results checked on its compiled pages, glyph by glyph.

The stage above ``render``: :mod:`~symssm.audit.compile` compiles the paper in a confined copy,
:mod:`~symssm.audit.pages` reads the PDF's painted glyphs, :mod:`~symssm.audit.statements` derives what
each certificate's LaTeX typesets, :mod:`~symssm.audit.claims` finds it on the pages and lists the
prose's other claims, :mod:`~symssm.audit.core` decides, :mod:`~symssm.audit.report` writes the report.

Examples
--------
>>> from symssm.audit import audit, exit_code
>>> callable(audit) and callable(exit_code)
True
"""

from .core import PASSING, STATUSES, Claim, Report, audit, exit_code

__all__ = ["audit", "exit_code", "Claim", "Report", "STATUSES", "PASSING"]
