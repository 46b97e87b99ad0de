"""symssm's independent certificate checker.

Standard library only (numpy, if installed, only speeds up products modulo a
prime); it shares no code with the generator and never searches: it re-derives
every obligation a certificate states and fails closed.

Exit codes of ``symssm-check`` / ``python -m symssm.checker``: 0 verified,
1 rejected (the first failed obligation is named), 2 unreadable input or undecided
(a limit included), 130 interrupted (SIGINT), 143 terminated (SIGTERM).

The names below are loaded on first use, so that an entry point can set its signal handling
(:mod:`.interrupts`) before the checker's modules load.
"""

from importlib import import_module

__all__ = ["check_data", "check_file", "CheckResult", "main"]

_WHERE = {"check_data": "core", "check_file": "core", "CheckResult": "kernel", "main": "cli"}


def __getattr__(name):
    if name in _WHERE:
        return getattr(import_module(f"{__name__}.{_WHERE[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
