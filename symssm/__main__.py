import sys

from .checker.interrupts import exit_code, interrupted_line, run_guarded


def _run():
    from .cli import main  # under the guard: a Ctrl-C while symssm loads is one line too

    return main()


def _stopped(exc):
    print(f"symssm: {interrupted_line(exc)}", file=sys.stderr)
    return exit_code(exc)


sys.exit(run_guarded(_run, _stopped, restore=False))
