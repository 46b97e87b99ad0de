"""symssm: exact, certified head counts and gradient bounds for linear state space models.

Implements the instance form of "How Many Heads Make an SSM?" (arXiv:2512.15115):
the lag operators L_d = C A^d B (L_0 = CB + D), the head count
k(n) = dim span{L_0..L_{n-1}} with proofs, gradient-highway bounds, LaTeX.

Names are loaded on first use, so ``import symssm.checker`` stays free of SymPy
and of generator code.  The package is laid out by stage of the data flow (see
docs/architecture.md): ``formats`` -> ``sources`` -> ``exact`` / ``numeric`` / ``gradient``
-> ``certificate`` -> ``render`` -> ``api``, ``cli``, ``catalog``; ``checker`` stands apart.

Examples
--------
>>> import symssm
>>> rot = symssm.ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]], name="rotation")
>>> symssm.head_count(rot, 10**18)
2
>>> symssm.check(symssm.certify(rot, 16)).verified
True
"""

from importlib import import_module

from ._version import __version__

_EXPORTS = {
    "SSM": "sources.system",
    "ssm": "sources.build",
    "lags": "exact.lags",
    "lag": "exact.lags",
    "head_count": "exact.headcount",
    "profile": "exact.headcount",
    "find_witness": "exact.headcount",
    "Profile": "exact.headcount",
    "HeadCountWitness": "exact.headcount",
    "certify": "api",
    "Certificate": "api",
    "check": "api",
    "read_spec": "sources.spec",
    "read_source": "sources.reader",
    "loads_spec": "sources.spec",
    "load_certificate": "api",
    "to_latex": "api",
    "gradient_certificate": "api",
    "numeric_head_count": "numeric.headcount",
    "Layer": "sources.layers",
    "read_layer": "sources.layers",
    "loads_layer": "sources.layers",
    "interaction_rank": "exact.interaction",
    "operator_blocks": "exact.interaction",
    "layers": "layers",
    "families": "families",
    "ParametricSSM": "sources.parametric",
    "parametric_ssm": "sources.parametric",
    "parametric_family": "sources.parametric",
    "ParametricLayer": "sources.parametric_layers",
    "parametric_layer": "sources.parametric_layers",
    "read_parametric_layer": "sources.parametric_layers",
    "errors": "errors",
}
#: Names that are modules themselves rather than attributes of one.
_MODULES = ("families", "errors", "layers")

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'symssm' has no attribute {name!r}")
    module = import_module(f".{_EXPORTS[name]}", __name__)
    return module if name in _MODULES else getattr(module, name)


def __dir__():
    return sorted(__all__)
