"""Stage 3, numeric: the float head count, the H-head error curve and their array backends.

Every result here is labelled numerical; nothing in this folder reaches a certificate.
Imports :mod:`symssm.sources`, :mod:`symssm.formats` and :mod:`symssm.errors`.
"""
