"""Expensive results many tests read, computed once per test process (certificates are never mutated by tests)."""

from functools import lru_cache


@lru_cache(maxsize=None)
def framework_certificates(seed=0, n=6, m=2):
    """``(label, layer, certificate)`` of every framework layer on the seeded input (each verified)."""
    from symssm import certify
    from symssm.catalog import _framework_layers

    return tuple((label, layer, certify(layer)) for label, _, layer, _ in _framework_layers(seed, n, m))


@lru_cache(maxsize=None)
def framework_rows(seed=0, n=6, m=2):
    """``build_framework(None, ...)``'s rows, with the certificates for every input."""
    from symssm.catalog import build_framework

    return tuple(build_framework(None, seed=seed, n=n, m=m))
