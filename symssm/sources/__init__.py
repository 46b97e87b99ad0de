"""Stage 2, sources: where systems come from.

The exact system object (:mod:`.system`), spec files (:mod:`.spec`), built-in families
(:mod:`.families`) and the examples table (:mod:`.examples`).  Imports only
:mod:`symssm.formats` and :mod:`symssm.errors`.
"""
