"""Specs as ``.npz`` archives of arrays: for systems too large for JSON, and for trained float weights.

An archive holds arrays ``A``, ``B``, ``C``, optionally ``D`` and a 0-d integer ``n``.  For the exact
path (``symssm certify``) the matrices are integer arrays, or pairs ``A_num``/``A_den`` (and so on)
of integer arrays holding numerators and positive denominators; for the numeric path they may also
be float arrays.  Archives are read with ``allow_pickle=False``: no object arrays, nothing executed.

Examples
--------
>>> import numpy as np, os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "s.npz")
>>> np.savez(path, A=np.array([[1, 2], [0, 1]]), B=np.eye(2, dtype=int), C=np.array([[1, 0]]), n=np.array(5))
>>> spec = read_npz_spec(path)
>>> spec.system.A[0][1], spec.n
(Fraction(2, 1), 5)
"""

import zipfile

from ..errors import InputError, ParseError
from ..formats.limits import check_n
from .spec import Spec
from .system import ssm

__all__ = ["read_npz_arrays", "read_npz_spec", "is_npz"]

_MATRICES = ("A", "B", "C", "D")


def is_npz(path):
    """Whether ``path`` names an ``.npz`` archive (by its suffix).

    Parameters
    ----------
    path : str or os.PathLike
        A file name.

    Returns
    -------
    bool
    """
    return str(path).lower().endswith(".npz")


def read_npz_arrays(path):
    """``({"A": array, ...}, n)`` from an archive, validated (keys, dimensions, no objects).

    Parameters
    ----------
    path : str or os.PathLike
        The ``.npz`` archive.

    Returns
    -------
    tuple
        ``(matrices, n)``: ``{"A": array or (numerators, denominators), ...}`` (``D`` absent when not given) and
        the archive's ``n`` (None when it has none).

    Raises
    ------
    InputError
        If the file cannot be read, holds unknown keys, object arrays, or a matrix that is not 2-D.
    """
    what = f"spec {path}"
    try:
        import numpy as np  # only for .npz specs: other commands do not pay its import

        with np.load(path, allow_pickle=False) as archive:
            data = {key: archive[key] for key in archive.files}
    except FileNotFoundError:
        raise ParseError(f"{what}: no such file") from None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise ParseError(f"{what} is not a readable .npz archive ({str(exc)[:80]})") from None
    allowed = set(_MATRICES) | {f"{k}_num" for k in _MATRICES} | {f"{k}_den" for k in _MATRICES} | {"n"}
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise InputError(f"{what} has unknown array {unknown[0][:40]!r} (allowed: A, B, C, D, their _num/_den "
                         "pairs, n)")
    n = None
    if "n" in data:
        arr = data.pop("n")
        if arr.shape != () or arr.dtype.kind not in "iu":
            raise InputError(f"{what}: n must be a 0-d integer array")
        n = check_n(int(arr), what=f"{what}: n")
    mats = {}
    for key in _MATRICES:
        plain, num, den = data.get(key), data.get(f"{key}_num"), data.get(f"{key}_den")
        if plain is not None and (num is not None or den is not None):
            raise InputError(f"{what}: give {key} or {key}_num/{key}_den, not both")
        if (num is None) != (den is None):
            raise InputError(f"{what}: {key}_num and {key}_den come together")
        for name, arr in ((key, plain), (f"{key}_num", num), (f"{key}_den", den)):
            if arr is not None and (arr.ndim != 2 or arr.dtype.kind not in "iuf"):
                raise InputError(f"{what}: {name} must be a 2-D numeric array, got shape {arr.shape} {arr.dtype}")
        if num is not None:
            if num.shape != den.shape or num.dtype.kind not in "iu" or den.dtype.kind not in "iu":
                raise InputError(f"{what}: {key}_num and {key}_den must be integer arrays of one shape")
            if (den <= 0).any():
                raise InputError(f"{what}: {key}_den must be positive")
            mats[key] = (num, den)
        elif plain is not None:
            mats[key] = plain
        elif key != "D":
            raise InputError(f"{what} has no matrix {key}")
    return mats, n


def read_npz_spec(path):
    """An exact :class:`~symssm.sources.spec.Spec` from an archive of integer (or numerator/denominator) arrays.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.npz`` archive.

    Returns
    -------
    Spec
        The exact system and the archive's ``n``.

    Raises
    ------
    InputError
        As :func:`read_npz_arrays`; float arrays are refused (they belong to the numeric path).
    """
    from fractions import Fraction

    mats, n = read_npz_arrays(path)
    exact = {}
    for key, value in mats.items():
        if isinstance(value, tuple):
            num, den = value
            exact[key] = [[Fraction(int(a), int(b)) for a, b in zip(r1, r2)] for r1, r2 in zip(num.tolist(),
                                                                                             den.tolist())]
        elif value.dtype.kind == "f":
            raise InputError(f"spec {path}: {key} is a float array; the exact path takes integer arrays or "
                             f"{key}_num/{key}_den pairs (use 'symssm numeric' for float weights)")
        else:
            exact[key] = value  # an integer array: a large one is held as int64 (no Python object per entry)
    try:
        return Spec(ssm(exact["A"], exact["B"], exact["C"], exact.get("D")), n)
    except InputError as exc:
        exc.args = (f"spec {path}: {exc}",)
        raise
