"""The certificate envelope: what every certificate kind shares, written once.

Every certificate is a JSON object with ``format``, ``version``, ``kind``, ``generator``,
``system`` (name, dimensions and exact entries) and ``input_sha256`` (the hash of the system's
canonical text, :attr:`symssm.sources.system.SSM.canonical_text`), then the fields of its kind.
This module builds that header, reads certificate files (checking format and kind once) and
hands data to the independent checker.

Examples
--------
>>> from symssm.sources.system import ssm
>>> head = header("head-count", ssm([[1]], [["1/2"]], [[2]], name="tiny"))
>>> head["kind"], head["system"]["B"], head["input_sha256"][:12]
('head-count', [['1/2']], '2330016ef402')
"""

import re
import sys

from .._version import __version__
from ..errors import InputError, LimitError
from ..formats.jsonio import load_strict
from ..formats.limits import MAX_DIGITS
from .kinds import NAMES

__all__ = ["FORMAT", "VERSION", "KINDS", "header", "system_json", "read_certificate", "check_envelope", "verify",
           "within_limits"]

FORMAT = "symssm-certificate"
VERSION = 1
#: The certificate kinds this generator writes (the rows of :mod:`symssm.certificate.kinds`; the checker knows the same).
KINDS = NAMES


def system_json(system):
    """The ``"system"`` field of a certificate: name, dimensions and exact entries as canonical strings.

    Parameters
    ----------
    system : SSM
        A time-invariant system (or any object with ``entry_text``, ``name``, ``N``, ``m``, ``p``).

    Returns
    -------
    dict
        ``name``, ``N``, ``m``, ``p`` and the matrices ``A``, ``B``, ``C``, ``D`` (None when absent) as rows of
        canonical number texts.

    Examples
    --------
    >>> from symssm.sources.system import ssm
    >>> system_json(ssm([["1/2"]], [[1]], [[2]], name="s"))["A"]
    [['1/2']]
    """
    text = system.entry_text
    return {"name": system.name, "N": system.N, "m": system.m, "p": system.p,
            "A": text["A"], "B": text["B"], "C": text["C"], "D": text["D"]}


def _layers():
    from ..sources import layers

    return layers


def _is_layer(system):
    """Whether ``system`` is a layer of the unified framework (one exists only once its module is loaded, so an
    SSM's certificate does not import it: 9 ms of start-up)."""
    loaded = sys.modules.get(f"{__package__.rpartition('.')[0]}.sources.layers")
    return loaded is not None and isinstance(system, loaded.Layer)


def header(kind, system):
    """The fields every certificate starts with, for ``kind`` and ``system`` (an SSM, or a layer).

    Parameters
    ----------
    kind : str
        One of :data:`KINDS` (the rows of :mod:`symssm.certificate.kinds`).
    system : object
        The system or layer the certificate is about: its ``"system"`` field and its hash come from it.

    Returns
    -------
    dict
        ``format``, ``version``, ``kind``, ``generator``, ``system`` and ``input_sha256``.

    Raises
    ------
    InputError
        If ``kind`` is not one of :data:`KINDS`.
    """
    if kind not in KINDS:
        raise InputError(f"unknown certificate kind {kind!r}")
    return {
        "format": FORMAT,
        "version": VERSION,
        "kind": kind,
        "generator": f"symssm {__version__}",
        "system": _layers().layer_json(system) if _is_layer(system) else (
            system_json(system) if hasattr(system, "entry_text") else (
                system.as_json() if hasattr(system, "as_json") else None)),
        "input_sha256": system.sha256,
    }


def check_envelope(data, *, what="certificate"):
    """Require the format marker and a known kind (the one place both are checked).

    Parameters
    ----------
    data : object
        Parsed certificate JSON.
    what : str
        How the message names it (``"certificate FILE"``).

    Returns
    -------
    dict
        ``data`` itself.

    Raises
    ------
    InputError
        If ``data`` is not a symssm certificate of a known kind.

    Examples
    --------
    >>> check_envelope({"format": "symssm-certificate", "kind": "curvature"})
    Traceback (most recent call last):
    ...
    symssm.errors.InputError: certificate has unknown kind 'curvature'
    """
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(f"{what} is not a symssm certificate (no \"format\": \"{FORMAT}\")")
    kind = data.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        raise InputError(f"{what} has unknown kind {str(kind)[:40]!r}")
    return data


def read_certificate(path):
    """Read a certificate file strictly; its content is not verified here (see :func:`verify`).

    Parameters
    ----------
    path : str or os.PathLike
        The certificate's JSON file.

    Returns
    -------
    dict
        The certificate data (format and kind checked).

    Raises
    ------
    InputError
        If the file cannot be read, is not strict JSON, or is not a symssm certificate.
    """
    return check_envelope(load_strict(path, what=f"certificate {path}"), what=f"certificate {path}")


def verify(data, *, spec=None, max_seconds=None):
    """Verify certificate data with the independent checker.

    Parameters
    ----------
    data : dict
        Certificate data.
    spec : dict, optional
        Parsed spec JSON the certificate must be about.
    max_seconds : float, optional
        The checker's budget.

    Returns
    -------
    CheckResult
        The checker's verdict (:func:`symssm.checker.check_data`).
    """
    from ..checker import check_data

    return check_data(data, spec=spec, max_seconds=max_seconds)


_DIGITS = re.compile(r"[0-9]+")


def _longest_number(obj, where="certificate"):
    """``(digits, where)`` of the longest numerator or denominator among the certificate's numbers."""
    best = (0, where)
    if isinstance(obj, str):  # a number, or a polynomial text: its longest run of digits
        longest = max(map(len, _DIGITS.findall(obj)), default=0) if len(obj) > MAX_DIGITS else 0
        return (longest, where) if longest > best[0] else best
    if isinstance(obj, dict):
        items = obj.items()
    elif isinstance(obj, list):
        items = enumerate(obj)
    else:
        return best
    for key, value in items:
        found = _longest_number(value, f"{where}.{key}" if isinstance(key, str) else f"{where}[{key}]")
        if found[0] > best[0]:
            best = found
    return best


def within_limits(data):
    """Return ``data`` if the checker's number limits admit it (the generator never writes more).

    Parameters
    ----------
    data : dict
        Certificate data; its ``"system"`` is not walked (its entries were held to the limit when read).

    Returns
    -------
    dict
        ``data`` itself.

    Raises
    ------
    LimitError
        If some numerator or denominator in the certificate would have more than
        :data:`~symssm.formats.limits.MAX_DIGITS` digits.

    Examples
    --------
    >>> within_limits({"kind": "head-count", "head_count": 2})["head_count"]
    2
    """
    # The system's entries were held to the limit when it was read; every derived number is walked.
    digits, where = _longest_number({k: v for k, v in data.items() if k != "system"})
    if digits > MAX_DIGITS:
        raise LimitError(f"the certificate would hold a number of {digits} digits at {where}; the checker's limit "
                         f"is {MAX_DIGITS} digits, so no certificate is written (use smaller entries)")
    return data
