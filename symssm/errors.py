"""Exceptions raised by symssm.

Every error a user can cause derives from :class:`SymssmError`; the command line
turns it into one line ``symssm: error: ...`` and exit code 2.

Examples
--------
>>> from symssm.errors import ShapeError, SymssmError
>>> issubclass(ShapeError, SymssmError)
True
"""

__all__ = [
    "SymssmError",
    "InputError",
    "ParseError",
    "UsageError",
    "ShapeError",
    "LimitError",
    "FloatInExactPathError",
    "NotStableError",
    "BudgetExceeded",
    "BackendError",
    "CertificateError",
    "OutputError",
]


class SymssmError(Exception):
    """Base class of every error symssm raises on purpose."""

    exit_code = 2


class InputError(SymssmError, ValueError):
    """A system, spec or option is not acceptable."""


class ParseError(InputError):
    """A number or a JSON document does not follow the strict grammar."""


class UsageError(InputError):
    """The command line's words do not parse: an unknown option, a missing or extra argument."""


class ShapeError(InputError):
    """Matrix shapes do not fit together (``C is 2x3 but A is 4x4``)."""


class LimitError(InputError):
    """An input exceeds a documented resource limit (size, digits, depth)."""


class FloatInExactPathError(InputError, TypeError):
    """A binary float reached the exact core; use the numeric path instead."""


class NotStableError(SymssmError):
    """No decay certificate exists: the spectral radius is at least 1."""

    exit_code = 1


class BudgetExceeded(SymssmError):
    """The ``max_seconds`` budget ran out before the computation finished."""


class BackendError(SymssmError):
    """A requested array backend (CuPy, a GPU) is not available."""


class CertificateError(SymssmError):
    """A certificate could not be produced or rendered."""


class OutputError(InputError):
    """An output path cannot be written: a missing folder, a directory, a FIFO or device, an input file."""
