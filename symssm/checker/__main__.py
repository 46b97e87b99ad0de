import sys

from .interrupts import exit_code, interrupted_line, run_guarded

PROG = "python -m symssm.checker"


def _run():
    from .cli import main  # under the guard: a Ctrl-C while the checker loads is one line too

    return main(prog=PROG)


def _stopped(exc):
    print(f"{PROG}: {interrupted_line(exc)}: neither verified nor rejected", file=sys.stderr)
    return exit_code(exc)


sys.exit(run_guarded(_run, _stopped, restore=False))
