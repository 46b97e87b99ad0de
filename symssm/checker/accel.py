"""The checker's optional accelerators (numpy, python-flint), imported on first use.

Both only speed up work whose result the standard-library path gives too, so the verdicts are the
same with or without them; ``SYMSSM_CHECKER_PURE=1`` turns them off.  Importing them lazily keeps
them out of the start-up of checks that never need them (numpy costs about 50 ms, python-flint
about 25 ms; a small family's whole check takes 40 ms).  Standard library only.
"""

import importlib
import importlib.util
import os
from contextlib import contextmanager
from typing import Any

__all__ = ["PURE", "optional", "threads", "flint_threads"]

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
