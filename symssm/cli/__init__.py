"""The ``symssm`` command line: argument parsing and dispatch.

The work happens in the stages below (sources, exact, numeric, gradient, certificate,
render) and in :mod:`symssm.api`; this package parses, calls, prints and maps errors to exit
codes.  Every failure a user can cause ends with one line ``symssm: error: ...`` and exit
code 2 (1 for a certificate that parses but does not verify, or a system that has no decay
certificate); Ctrl-C exits 130 and SIGTERM 143, removing any temporary file; a closed
standard output (``| head``) ends quietly.

Layout: :mod:`~symssm.cli.table` is the table of commands and builds the parser from it;
:mod:`~symssm.cli.options` reads every option value once into its typed value; the commands live
by group in :mod:`~symssm.cli.certify` (certify, gradient, demo, batch),
:mod:`~symssm.cli.certificates` (check, latex, audit, coq), :mod:`~symssm.cli.numeric` (numeric,
plot, model) and :mod:`~symssm.cli.catalogue` (catalog, framework, families); :mod:`~symssm.cli.common`
holds what they share.  Nothing heavy is imported before a command runs.
"""

import os
import signal
import sys

from ..errors import BudgetExceeded, SymssmError, UsageError
from .common import safe as _safe
from .options import (DEFAULT_N, DISCRETIZATION_NAMES, FAMILY_NAMES, PARAMETRIC_FAMILY_NAMES, PROG,
                      TRANSFORM_NAMES)
from .table import COMMANDS, build_parser

__all__ = ["main", "build_parser", "DEFAULT_N", "COMMANDS", "FAMILY_NAMES", "PARAMETRIC_FAMILY_NAMES",
           "DISCRETIZATION_NAMES", "TRANSFORM_NAMES"]

_ROWS = {row.name: row for row in COMMANDS}


def __getattr__(name):
    """Each command's run function as ``_cmd_NAME``, loaded on first use: :func:`main` calls a command through
    this name, so that a test can replace one (``monkeypatch.setattr(symssm.cli, "_cmd_demo", ...)``)."""
    if name.startswith("_cmd_") and name[5:] in _ROWS:
        return _ROWS[name[5:]].load("run")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _BudgetAlarm(BaseException):
    """The --max-seconds alarm: a BaseException, so that no ``except Exception`` on the way (the
    checker's fail-closed handler in particular) mistakes it for a fault of the data."""


class _Budget:
    """Wall-clock budget for a whole command (SIGALRM where available), on top of the engines' own checks."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.armed = False

    def __enter__(self):
        if self.seconds and hasattr(signal, "setitimer"):
            def expire(signum, frame):
                # re-arm first: an exception raised inside a garbage-collector callback or a __del__
                # is printed and dropped by Python, so the alarm repeats until it lands in real code
                signal.setitimer(signal.ITIMER_REAL, 0.25)
                raise _BudgetAlarm(f"stopped after the --max-seconds budget of {self.seconds:g} s")

            self.previous = signal.signal(signal.SIGALRM, expire)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
            self.armed = True
        return self

    def __exit__(self, *exc):
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)
        return False


def _quiet_broken_pipe():
    """Standard output was closed by its reader: stop writing to it, silently."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 141


def main(argv=None):
    """Run the command line; returns the exit code.

    The first SIGINT (130) or SIGTERM (143) ends the command with one line; later ones are ignored
    (:mod:`symssm.checker.interrupts`), so no signal shows a traceback.
    """
    from ..checker.interrupts import exit_code, interrupted_line, run_guarded

    def stopped(exc):
        print(f"{PROG}: {interrupted_line(exc)}", file=sys.stderr)
        return exit_code(exc)

    return run_guarded(lambda: _main(argv), stopped, restore=argv is not None)


def _main(argv):
    args = None
    try:
        words = list(sys.argv[1:] if argv is None else argv)
        if words[:1] == ["check"]:
            from ..checker.cli import option_file_clash

            clash = option_file_clash(words[1:])
            if clash is not None:
                raise UsageError(clash)
        # the arguments of the command given alone (the first word that is not an option names it, as argparse reads it)
        first = next((word for word in words if not word.startswith("-")), "")
        parser = build_parser(first if first in _ROWS else "")
        args, extra = parser.parse_known_args(argv)
        if extra:
            where = f"{PROG} {args.command}" if getattr(args, "command", None) else PROG
            raise UsageError(f"unrecognized arguments: {' '.join(extra)[:120]} (see '{where} --help')")
        if getattr(args, "command", None) is None:
            parser.print_help()
            return 2
        from ..formats.progress import heartbeat

        with _Budget(getattr(args, "max_seconds", None) if args.command != "check" else None), \
                heartbeat(f"{PROG} {args.command}"):  # a line on a terminal once a command runs over 2 s
            code = getattr(sys.modules[__name__], f"_cmd_{args.command}")(args)
        sys.stdout.flush()
        return code
    except SymssmError as exc:
        print(f"{PROG}: error: {_safe(exc)}", file=sys.stderr)
        return exc.exit_code
    except _BudgetAlarm as exc:
        print(f"{PROG}: error: {_safe(BudgetExceeded(str(exc)))}", file=sys.stderr)
        return BudgetExceeded.exit_code
    except BrokenPipeError:
        return _quiet_broken_pipe()
    except OSError as exc:
        where = f" {_safe(exc.filename)}" if exc.filename else ""
        print(f"{PROG}: error: cannot access{where}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except MemoryError:
        command = getattr(args, "command", None)
        hint = " or --method modular" if command in ("certify", "batch") else (" or a smaller -n" if command in (
            "model", "numeric", "plot") else "")
        print(f"{PROG}: error: out of memory (try a smaller system{hint})", file=sys.stderr)
        return 2
    except RecursionError:
        print(f"{PROG}: error: input nests too deeply", file=sys.stderr)
        return 2
    except Exception as exc:  # last resort: never a traceback (SYMSSM_DEBUG=1 shows it)
        from ..checker.interrupts import fired

        if fired() is not None:  # a library turned the signal's exception into its own error (numpy's import)
            raise fired() from None
        if os.environ.get("SYMSSM_DEBUG"):
            raise
        print(f"{PROG}: error: internal error, please report it with the input: {type(exc).__name__}: "
              f"{_safe(str(exc)[:200])}", file=sys.stderr)
        return 2
