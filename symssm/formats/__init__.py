"""Stage 1, formats: strict exact numbers, strict JSON, canonical JSON, safe files, limits.

Everything the user hands symssm, and everything it writes, passes through this folder.
It imports nothing from symssm but :mod:`symssm.errors`.
"""
