"""A wall-clock budget that long computations check between steps.

Examples
--------
>>> Deadline(None).check("anything")  # no budget: never expires
>>> Deadline(10).remaining() > 0
True
"""

import time

from .errors import BudgetExceeded, InputError

__all__ = ["Deadline"]


class Deadline:
    """Stop cleanly once ``max_seconds`` have passed (``None``: no limit)."""

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
        """Raise :class:`BudgetExceeded` if the budget is spent."""
        if self._end is not None and time.monotonic() > self._end:
            raise BudgetExceeded(f"stopped after the --max-seconds budget of {self.max_seconds} s while {doing}")
