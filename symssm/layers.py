"""The layers of the unified framework, importable as ``symssm.layers`` (a facade: the code lives
in :mod:`symssm.sources.layers`).

Examples
--------
>>> from symssm.layers import mamba2_scalar_gate
>>> layer = mamba2_scalar_gate(["1/2", "1/3", "1/4"], [[1], [2]], [[1, 1]])
>>> layer.kind, layer.n
('selective-ssm', 3)
"""

from .sources.layers import *  # noqa: F401,F403 - the facade re-exports the stage's public names
from .sources.layers import __all__

__all__ = list(__all__)
