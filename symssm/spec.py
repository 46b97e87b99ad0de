"""Reading a system specification ("spec") file.

A spec is a JSON object::

    {"A": [[...]], "B": [[...]], "C": [[...]], "D": [[...]], "n": 8, "name": "..."}

``D``, ``n`` and ``name`` are optional.  Entries are JSON integers, or strings
holding an integer, ``p/q`` or an exact decimal; JSON non-integer numbers are
read exactly from their decimal text.  No other keys are allowed.

Examples
--------
>>> spec = loads_spec('{"A": [["1/2"]], "B": [[1]], "C": [[0.25]], "n": 4}')
>>> spec.system.C, spec.n
(((Fraction(1, 4),),), 4)
"""

from dataclasses import dataclass

from .errors import InputError
from .jsonio import load_strict, loads_strict
from .system import SSM, ssm

__all__ = ["Spec", "read_spec", "loads_spec", "spec_from_data", "check_spec_fields", "SPEC_KEYS", "MAX_N"]

SPEC_KEYS = ("A", "B", "C", "D", "n", "name")
#: Largest sequence length a spec may ask for (the head count is the same for every n >= N + 1).
MAX_N = 10**30


@dataclass(frozen=True)
class Spec:
    """A parsed spec: the system and the optional sequence length."""

    system: SSM
    n: int = None


def check_spec_fields(data, *, what="spec"):
    """Validate a parsed spec's keys, ``n`` and ``name`` (shared by the exact and numeric readers).

    Returns ``(n, name)``; the matrices are validated by the reader that builds the system.
    """
    if not isinstance(data, dict):
        raise InputError(f"{what} must be a JSON object with keys A, B, C (and optionally D, n, name)")
    unknown = sorted(k for k in data if k not in SPEC_KEYS)
    if unknown:
        raise InputError(f"{what} has unknown key {unknown[0]!r} (allowed: {', '.join(SPEC_KEYS)})")
    for key in ("A", "B", "C"):
        if key not in data:
            raise InputError(f"{what} has no matrix {key}")
    n = data.get("n")
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 0):
        raise InputError(f"{what}: n must be a non-negative integer, got {str(n)[:40]!r}")
    if n is not None and n > MAX_N:
        raise InputError(f"{what}: n must be at most 10^30")
    name = data.get("name", "")
    if not isinstance(name, str):
        raise InputError(f"{what}: name must be a string")
    if len(name) > 200:
        raise InputError(f"{what}: name is {len(name)} characters; the limit is 200")
    return n, name


def spec_from_data(data, *, what="spec"):
    """Validate parsed spec JSON and build the :class:`Spec`."""
    n, name = check_spec_fields(data, what=what)
    try:
        return Spec(ssm(data["A"], data["B"], data["C"], data.get("D"), name=name), n)
    except InputError as exc:
        exc.args = (f"{what}: {exc}",)
        raise


def loads_spec(text, *, what="spec"):
    """Parse a spec from JSON text."""
    return spec_from_data(loads_strict(text, what=what), what=what)


def read_spec(path):
    """Read a spec file strictly (see the module docstring)."""
    return spec_from_data(load_strict(path, what=f"spec {path}"), what=f"spec {path}")
