"""``python -m symssm`` and the ``symssm`` command: the signal guard first, then the command line.

The guard (:mod:`symssm.checker.interrupts`) is set before anything else of symssm is imported: a Ctrl-C while
the command line loads is one line and exit 130 too.  Only a signal that arrives while the interpreter itself
starts, before this module runs, is Python's to handle.
"""

import sys

from .checker.interrupts import exit_code, interrupted_line, run_guarded


def _run():
    from .cli import main  # under the guard: a Ctrl-C while symssm loads is one line too

    return main()


def _stopped(exc):
    print(f"symssm: {interrupted_line(exc)}", file=sys.stderr)
    return exit_code(exc)


def entry():
    """The ``symssm`` command's entry point: run the command line under the signal guard; returns its exit code."""
    return run_guarded(_run, _stopped, restore=False)


if __name__ == "__main__":
    sys.exit(entry())
