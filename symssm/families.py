"""The built-in SSM families, importable as ``symssm.families`` (a facade: the code lives in
:mod:`symssm.sources.families` and, for families with parameters, :mod:`symssm.sources.parametric`).

Examples
--------
>>> from symssm.families import rotation
>>> sys_ = rotation(2)
>>> sys_.N, sys_.p, sys_.m
(2, 1, 1)
>>> from symssm.families import parametric_family
>>> parametric_family("rotation-symbolic").parameters
('t',)
"""

from .sources.families import *  # noqa: F401,F403 - the facade re-exports the stage's public names
from .sources.families import __all__ as _FAMILY_NAMES
from .sources.parametric import PARAMETRIC_FAMILIES, PARAMETRIC_NOTES, parametric_family

__all__ = [*_FAMILY_NAMES, "PARAMETRIC_FAMILIES", "PARAMETRIC_NOTES", "parametric_family"]
