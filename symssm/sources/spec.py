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

from typing import Optional
from dataclasses import dataclass

from ..errors import InputError
from ..formats.jsonio import load_strict, loads_strict
from ..formats.limits import check_n, check_name
from .system import SSM, ssm

__all__ = ["Spec", "read_spec", "loads_spec", "spec_from_data", "check_spec_fields", "SPEC_KEYS"]

SPEC_KEYS = ("A", "B", "C", "D", "n", "name")


@dataclass(frozen=True)
class Spec:
    """A parsed spec: the system and the optional sequence length."""

    system: SSM
    n: Optional[int] = None


def check_spec_fields(data, *, what="spec"):
    """Validate a parsed spec's keys, ``n`` and ``name`` (shared by the exact and numeric readers).

    Parameters
    ----------
    data : object
        Parsed spec JSON.
    what : str
        How messages name it.

    Returns
    -------
    tuple
        ``(n, name)``; the matrices are validated by the reader that builds the system.

    Raises
    ------
    InputError
        If the document is not an object, has an unknown key or lacks A, B or C, or if
        ``n`` or ``name`` is not acceptable (:func:`~symssm.formats.limits.check_n`,
        :func:`~symssm.formats.limits.check_name`).

    Examples
    --------
    >>> check_spec_fields({"A": [[1]], "B": [[1]], "C": [[1]], "n": 9, "name": "x"})
    (9, 'x')
    >>> check_spec_fields({"A": [[1]], "B": [[1]], "C": [[1]], "m": 2})
    Traceback (most recent call last):
    ...
    symssm.errors.InputError: spec has unknown key 'm' (allowed: A, B, C, D, n, name)
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
    if n is not None:
        check_n(n, what=f"{what}: n", minimum=1)
    name = check_name(data.get("name", ""), what=f"{what}: name")
    return n, name


def spec_from_data(data, *, what="spec"):
    """Validate parsed spec JSON and build the :class:`Spec`.

    Parameters
    ----------
    data : object
        Parsed spec JSON.
    what : str
        How messages name it.

    Returns
    -------
    Spec
        The exact system and the spec's ``n`` (None when absent).

    Raises
    ------
    InputError
        Any problem with the document, prefixed with ``what``.
    """
    n, name = check_spec_fields(data, what=what)
    try:
        return Spec(ssm(data["A"], data["B"], data["C"], data.get("D"), name=name), n)
    except InputError as exc:
        exc.args = (f"{what}: {exc}",)
        raise


def loads_spec(text, *, what="spec"):
    """Parse a spec from JSON text.

    Parameters
    ----------
    text : str or bytes
        JSON text.
    what : str
        How messages name it.

    Returns
    -------
    Spec

    Raises
    ------
    InputError
        If the text is not strict JSON or not a valid spec (:class:`~symssm.errors.ParseError`,
        :class:`~symssm.errors.LimitError` and :class:`~symssm.errors.ShapeError` are subclasses).
    """
    return spec_from_data(loads_strict(text, what=what), what=what)


def read_spec(path):
    """Read a spec file of a time-invariant system with rational entries strictly (see the module docstring).

    For a spec of any shape (an archive, a complex system, a family, a layer), use
    :func:`symssm.sources.reader.read_source`, which every command uses.

    Parameters
    ----------
    path : str or os.PathLike
        The spec's JSON file.

    Returns
    -------
    Spec

    Raises
    ------
    InputError
        If the file cannot be read, or is not strict JSON, or not a valid spec.
    """
    return spec_from_data(load_strict(path, what=f"spec {path}"), what=f"spec {path}")
