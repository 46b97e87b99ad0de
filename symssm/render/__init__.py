"""Stage 5, render: what a reader sees, from verified certificates only.

LaTeX primitives (:mod:`.tex`), the LaTeX of each kind (:mod:`.head_count`,
:mod:`.gradient`) behind one entry point (:mod:`.latex`), the plain-text summaries the
command line prints (:mod:`.summary`) and figures (:mod:`.plot`).
"""
