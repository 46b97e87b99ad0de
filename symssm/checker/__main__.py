"""``python -m symssm.checker`` and the ``symssm-check`` command: the signal guard first, then the checker.

The guard is set before the checker's modules load, so a Ctrl-C at any moment after this module starts is one
line and exit 130, never a verdict.
"""

import sys

from .interrupts import exit_code, interrupted_line, run_guarded

PROG = "python -m symssm.checker"


def _stopped_as(prog):
    def stopped(exc):
        print(f"{prog}: {interrupted_line(exc)}: neither verified nor rejected", file=sys.stderr)
        return exit_code(exc)

    return stopped


def entry(prog="symssm-check"):
    """The checker command's entry point: its command line under the signal guard; returns the exit code."""

    def run():
        from .cli import main  # under the guard: a Ctrl-C while the checker loads is one line too

        return main(prog=prog)

    return run_guarded(run, _stopped_as(prog), restore=False)


if __name__ == "__main__":
    sys.exit(entry(PROG))
