"""Stage 4, certificate: the envelope every certificate shares, and the builder of each kind.

Builders return plain JSON data; :mod:`symssm.api` wraps it in the user-facing
:class:`~symssm.api.Certificate`.  Imports the stages below (exact, gradient, sources,
formats) and the independent :mod:`symssm.checker`.
"""
