"""symssm: exact, certified head counts and gradient bounds for linear state space models.

Implements the instance form of "How Many Heads Make an SSM?" (arXiv:2512.15115):
the lag operators L_d = C A^d B (L_0 = CB + D), the head count
k(n) = dim span{L_0..L_{n-1}} with proofs, gradient-highway bounds, LaTeX.

Names are loaded on first use, so ``import symssm.checker`` stays free of SymPy
and of generator code.

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
    "SSM": "system",
    "ssm": "system",
    "lags": "operators",
    "lag": "operators",
    "head_count": "headcount",
    "profile": "headcount",
    "find_witness": "headcount",
    "Profile": "headcount",
    "HeadCountWitness": "headcount",
    "certify": "certification",
    "Certificate": "certificate",
    "check": "verify",
    "read_spec": "spec",
    "loads_spec": "spec",
    "load_certificate": "loading",
    "to_latex": "latex",
    "gradient_certificate": "gradient",
    "numeric_head_count": "numeric",
    "families": None,
    "errors": None,
}

__all__ = ["__version__", *_EXPORTS]


def __getattr__(name):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'symssm' has no attribute {name!r}")
    module = _EXPORTS[name]
    if module is None:
        return import_module(f".{name}", __name__)
    return getattr(import_module(f".{module}", __name__), name)


def __dir__():
    return sorted(__all__)
