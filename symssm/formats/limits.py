"""Every resource limit of the generator in one place, the validators that apply them, and budgets.

The limits are documented in ``docs/robustness.md``; the independent checker enforces the
same numbers with its own code (``symssm/checker/limits.py``), and a test keeps the two
tables equal, so the generator never writes a certificate the checker would refuse.

Examples
--------
>>> check_n(10**18)
1000000000000000000
>>> check_n(-1)
Traceback (most recent call last):
...
symssm.errors.InputError: n must be a non-negative integer, got -1
>>> Deadline(None).check("anything")  # no budget: never expires
"""

import os
import time
from contextlib import contextmanager

from ..errors import BudgetExceeded, InputError, LimitError

__all__ = [
    "threads",
    "flint_threads",
    "MAX_DIGITS",
    "MAX_EXPONENT",
    "MAX_FILE_BYTES",
    "MAX_DEPTH",
    "MAX_DIM",
    "MAX_ENTRIES",
    "MAX_INTEGER_ENTRIES",
    "MAX_INTEGER_FILE_BYTES",
    "integer_system_memory",
    "MAX_NAME",
    "MAX_N",
    "MAX_MATERIALISED_LAGS",
    "MAX_PARAMETERS",
    "MAX_PARAMETRIC_DIM",
    "MAX_FORMULA_CHARS",
    "MAX_FORMULA_DEGREE",
    "MAX_POLY_TERMS",
    "MAX_POLY_DEGREE",
    "MAX_CASES",
    "MAX_POLY_WORK",
    "MAX_FORMULA_WORK",
    "MAX_ROOT_COEFFICIENT",
    "MAX_ROOT_CANDIDATES",
    "check_n",
    "check_name",
    "Deadline",
]

#: Most digits one entry may hold (numerator, denominator and mantissa together).
MAX_DIGITS = 10_000
#: Largest absolute decimal exponent (``1e10000``) an entry may use.
MAX_EXPONENT = 10_000
#: Largest spec or certificate file the readers accept.
MAX_FILE_BYTES = 64 * 1024 * 1024
#: Deepest nesting of arrays and objects the readers accept.
MAX_DEPTH = 32
#: Largest state, input or output dimension.
MAX_DIM = 4096
#: Most entries a system may hold in all when it is read entry by entry (a Python object, about 100 bytes, per
#: entry; N = 2048 with p = m = 64 fits; the checker has the same limit).
MAX_ENTRIES = 8_388_608
#: Most entries of a system whose matrices are integers below 10^18 in absolute value, read and held as int64
#: arrays (formats/intmatrix.py: 8 bytes an entry, no object per entry): N = 4096 with p = m = 64 fits.  The
#: number comes from :func:`integer_system_memory`: such a system stays below 2 GB of working memory, the
#: checker's limit (the checker has the same limits).
MAX_INTEGER_ENTRIES = 17_825_792
#: Largest spec or certificate file of such a system (what is not a matrix of integers stays below MAX_FILE_BYTES):
#: N = 4096, p = m = 32 with entries up to 2^20 is a 144 MB spec and a 180 MB certificate.
MAX_INTEGER_FILE_BYTES = 256 * 1024 * 1024
#: Longest system name, in characters.
MAX_NAME = 200
#: Largest sequence length (the head count is the same for every n >= N + 1).
MAX_N = 10**30
#: Most lags :func:`symssm.lags` materialises; ``head_count`` works for any n without forming them.
MAX_MATERIALISED_LAGS = 100_000


def integer_system_memory(N, m, p, file_bytes=None):
    """Bytes of working memory the integer fast path needs, at most, for an N-state system (either side).

    The file (``file_bytes``, default the largest allowed) read once and compacted once; each entry as an int64
    and once more as a float64 residue; four N x N float64 matrices for the lags mod P (A^s, its square, a
    product and its reduction); the lag stack (T lags of p m int64 entries).

    Examples
    --------
    >>> integer_system_memory(4096, 64, 64) < 2 * 1024**3  # the largest system the limits admit
    True
    """
    entries = N * N + N * m + p * N + p * m
    file_bytes = MAX_INTEGER_FILE_BYTES if file_bytes is None else file_bytes
    return 2 * file_bytes + 16 * entries + 4 * 8 * N * N + 8 * (N + 1) * p * m


def check_n(n, *, what="n", minimum=0, maximum=MAX_N):
    """Validate a sequence length or count: an int (not a bool) in ``[minimum, maximum]``.

    Parameters
    ----------
    n : object
        The value to check.
    what : str
        Its name in the error message.
    minimum, maximum : int
        The accepted range.

    Returns
    -------
    int

    Raises
    ------
    InputError
        If ``n`` is not an integer, or a boolean, or below ``minimum``.
    LimitError
        If ``n`` is above ``maximum``.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < minimum:
        shown = repr(n) if not isinstance(n, str) else repr(n[:40])
        kind = "a non-negative integer" if minimum == 0 else f"an integer >= {minimum}"
        raise InputError(f"{what} must be {kind}, got {shown[:60]}")
    if n > maximum:
        raise LimitError(f"{what} must be at most {maximum if maximum < 10**12 else _power(maximum)}")
    return n


def _power(value):
    digits = len(str(value)) - 1
    return f"10^{digits}" if value == 10**digits else str(value)


def check_name(name, *, what="name"):
    """Validate a system name: a string of at most :data:`MAX_NAME` characters.

    Raises
    ------
    InputError
        If it is not a string.
    LimitError
        If it is too long.
    """
    if not isinstance(name, str):
        raise InputError(f"{what} must be a string, got {type(name).__name__}")
    if len(name) > MAX_NAME:
        raise LimitError(f"{what} is {len(name)} characters; the limit is {MAX_NAME}")
    return name


class Deadline:
    """Stop cleanly once ``max_seconds`` have passed (``None``: no limit).

    Raises
    ------
    InputError
        If ``max_seconds`` is not a positive number.

    Examples
    --------
    >>> Deadline(10).remaining() > 0
    True
    """

    def __init__(self, max_seconds=None):
        if max_seconds is not None:
            if isinstance(max_seconds, bool) or not isinstance(max_seconds, (int, float)) or not max_seconds > 0:
                raise InputError(f"max_seconds must be a positive number, got {max_seconds!r}")
        self.max_seconds = max_seconds
        self._end = None if max_seconds is None else time.monotonic() + max_seconds

    def remaining(self):
        """Seconds left (``inf`` without a budget)."""
        return float("inf") if self._end is None else self._end - time.monotonic()

    def check(self, doing):
        """Raise :class:`~symssm.errors.BudgetExceeded` if the budget is spent."""
        if self._end is not None and time.monotonic() > self._end:
            raise BudgetExceeded(f"stopped after the --max-seconds budget of {self.max_seconds} s while {doing}")

# ---------------------------------------------------------------- families with parameters
#: Most parameters a parametric system may have.
MAX_PARAMETERS = 16
#: Largest state size, input and output width of a parametric system.
MAX_PARAMETRIC_DIM = 8
#: Most characters in one entry formula.
MAX_FORMULA_CHARS = 1000
#: Largest exponent ``^k`` in a formula, and largest total degree of any numerator or denominator.
MAX_FORMULA_DEGREE = 64
#: Most terms in one polynomial of a parametric certificate (entries, determinants, coefficients).
MAX_POLY_TERMS = 20_000
#: Largest exponent of a parameter in a polynomial of a parametric certificate (determinants and
#: coefficients grow past a formula's degree: an 8-state family in a step h has a determinant of
#: degree 324 in h).
MAX_POLY_DEGREE = 10_000
#: Most bodies (the generic case plus every case of the exceptional set) in one certificate.
MAX_CASES = 1024
#: Most term products the generator spends expanding one formula (the checker's bound is MAX_POLY_WORK).
MAX_FORMULA_WORK = 1_000_000
#: Most term-by-term products of polynomials one parametric certificate may need (both sides).
MAX_POLY_WORK = 64_000_000
#: Largest |constant| and |leading| integer coefficient of a polynomial whose rational roots are
#: decided by the rational root theorem (a factor in one parameter, or a binary form); both sides.
MAX_ROOT_COEFFICIENT = 10**9
#: Most candidate roots p/q (2 * #divisors(c_0) * #divisors(c_d)) that test may evaluate (both sides).
MAX_ROOT_CANDIDATES = 100_000


def threads():
    """The CPUs this process may use, at most ``SYMSSM_THREADS`` when that is set (a positive integer).

    Examples
    --------
    >>> threads() >= 1
    True
    """
    try:
        count = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        count = os.cpu_count() or 1
    cap = os.environ.get("SYMSSM_THREADS", "")
    if cap.isdigit() and int(cap) >= 1:
        count = min(count, int(cap))
    return max(1, count)


@contextmanager
def flint_threads(flint):
    """Let the python-flint module use :func:`threads` threads inside the block (then as before).

    Its multi-modular characteristic polynomials and integer matrix products split across threads;
    their results are exact integers, the same whatever the thread count.
    """
    before = flint.ctx.threads
    flint.ctx.threads = threads()
    try:
        yield
    finally:
        flint.ctx.threads = before
