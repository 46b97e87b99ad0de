"""The checker's accelerators (numpy, python-flint) behind one small interface; a reader may skip this module.

The head-count path (:mod:`.lags`) asks this module first for each of the four operations below; each answers
None when no accelerator applies, and the standard-library code right after the call computes the same value.
The answers are exact (python-flint's integer matrices; numpy products of residues that cannot overflow), so the
verdicts are the same with or without them; ``SYMSSM_CHECKER_PURE=1`` turns them off, and then nothing here is
imported but this module.  The implementations are in :mod:`.fast`, imported on first use (numpy costs about
50 ms of start-up, python-flint about 25 ms; a small certificate's whole check takes 40 ms).

- ``exact_lags(system, count)``: python-flint integer products, for :func:`.lags.exact_lags`;
- ``combinations(exact, lags, rows, p, m)``: one python-flint rational product, for :func:`.lags.combinations`;
- ``minor_mod(system, lags, cells, P)``: numpy float64 or int64 residues, for :func:`.lags.minor_mod`;
- ``leading_minors_mod(M, P)``: numpy elimination (blocked past K = 64), for :func:`.lags.leading_minors_mod`.

The bulk reader of very large integer matrices (:mod:`.bulk`, numpy) is the other skippable part: it yields the
same values and hash as the plain reader.  Standard library only.
"""

import importlib
import importlib.util
import os
from contextlib import contextmanager
from typing import Any

__all__ = ["PURE", "optional", "threads", "flint_threads", "np", "flint", "accelerators", "exact_lags",
           "combinations", "minor_mod", "leading_minors_mod"]

#: Set SYMSSM_CHECKER_PURE=1 to force the standard-library path (same verdicts, slower).
PURE = bool(os.environ.get("SYMSSM_CHECKER_PURE"))


class _Lazy:
    """A module imported on first attribute access."""

    __slots__ = ("_name", "_module")

    def __init__(self, name):
        object.__setattr__(self, "_name", name)
        object.__setattr__(self, "_module", None)

    def __getattr__(self, attr):
        module = object.__getattribute__(self, "_module")
        if module is None:
            module = importlib.import_module(object.__getattribute__(self, "_name"))
            object.__setattr__(self, "_module", module)
        return getattr(module, attr)


def optional(name) -> Any:
    """A stand-in for module ``name`` that imports it on first use; None if it is not installed or PURE is set."""
    if PURE or importlib.util.find_spec(name) is None:
        return None
    return _Lazy(name)


#: The accelerators of the head-count path (None when absent or PURE; tests set them to None to force the
#: standard library).
np: Any = optional("numpy")
flint: Any = optional("flint")


def accelerators():
    """The accelerators the head-count path uses: a subset of ("numpy", "python-flint")."""
    return tuple(name for name, mod in (("numpy", np), ("python-flint", flint)) if mod is not None)


def exact_lags(system, count):
    """``L_0..L_(count-1)`` exactly with python-flint, or None (no python-flint, or no lag asked)."""
    if flint is None or not count:
        return None
    from .fast import exact_lags_flint

    return exact_lags_flint(system, count)


def combinations(exact, lags, coefficient_rows, p, m):
    """Each ``sum_h c_h L_(lags[h])`` with python-flint, or None."""
    if flint is None or not any(coefficient_rows):
        return None
    from .fast import combinations_flint

    return combinations_flint(exact, lags, coefficient_rows, p, m)


def minor_mod(system, lags, cells, prime):
    """The minor ``L_(d_s)[r_t, c_t] mod P`` with numpy (int lists, or an int64 array when K > 64), or None."""
    if np is None or not lags or prime >= 2**31:
        return None
    from .fast import minor_mod_np

    return minor_mod_np(system, lags, cells, prime)


def leading_minors_mod(M, prime):
    """The leading principal minors of M mod P with numpy (for K > 8), or None."""
    if np is None or len(M) <= 8 or prime >= 2**31:
        return None
    from .fast import leading_minors_mod_np

    return leading_minors_mod_np(M, prime)


def threads():
    """The CPUs this process may use, at most ``SYMSSM_THREADS`` when that is set (a positive integer)."""
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
    """Let python-flint (a module, or None) use :func:`threads` threads inside the block.

    Its multi-modular characteristic polynomials and integer products split across threads; their
    results are exact integers, the same whatever the thread count.
    """
    if flint is None:
        yield
        return
    before = flint.ctx.threads
    flint.ctx.threads = threads()
    try:
        yield
    finally:
        flint.ctx.threads = before
