"""Command line of the checker: ``symssm-check CERT.json [--spec SPEC] [--quiet]``."""

import argparse
import sys

from .core import check_file
from .interrupts import exit_code, interrupted_line, run_guarded
from .kernel import CheckResult

__all__ = ["main", "option_file_clash"]


def _version():
    """The package version, read from symssm/_version.py as text (the checker imports no generator code)."""
    import os
    import re

    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "_version.py")
    try:
        with open(path) as fh:
            m = re.search(r"__version__ = \"([^\"]+)\"", fh.read())
    except OSError:
        m = None
    return m.group(1) if m else "unknown"


#: The options that end a command with exit 0 without checking anything.
_EXITING_OPTIONS = ("-h", "--help", "--version")


def option_file_clash(argv):
    """The error to print when a help or version option is also the name of a file here, else None.

    ``symssm-check --version`` prints the version and exits 0, and so does ``-qh`` (``-q -h``); in a
    loop over files (``for f in *; do symssm-check "$f"; done``) a certificate named like that would
    then pass unchecked. A command with any option-like word that is also a file here is refused
    (exit 2) instead, and says how to check the file: after ``--`` (or as ``./--version``) a name is
    always a path.

    >>> option_file_clash(["--", "--version"]) is None
    True

    Parameters
    ----------
    argv : list of str
        The command's arguments.

    Returns
    -------
    str or None
    """
    import os

    for word in argv:
        if word == "--":
            return None
        # any word argparse may read as options (``-qh`` is ``-q -h``: help, exit 0) that names a file here
        if word.startswith("-") and word != "-" and os.path.lexists(word):
            return (f"{word!r} is an option and also a file here: nothing was checked; to check the file, "
                    f"write -- before it ('-- {word}') or ./{word}")
    return None


def main(argv=None, *, prog="symssm-check"):
    """Run the checker's command line; returns the exit code (0 verified, 1 rejected, 2 unreadable/undecided,
    130 interrupted by SIGINT, 143 by SIGTERM).

    The first SIGINT or SIGTERM ends the check with one line and never a verdict; later ones are ignored
    (:mod:`.interrupts`), so no signal, however often sent, shows a traceback or exits 1.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default ``sys.argv[1:]``).
    prog : str
        The command's name in messages.

    Returns
    -------
    int
        0 verified, 1 rejected, 2 unreadable or undecided, 130 or 143 interrupted.
    """
    def stopped(exc):
        print(f"{prog}: {interrupted_line(exc)}: neither verified nor rejected", file=sys.stderr)
        return exit_code(exc)

    return run_guarded(lambda: _main(argv, prog), stopped, restore=argv is not None)


def _main(argv, prog):
    parser = argparse.ArgumentParser(
        allow_abbrev=False,
        prog=prog,
        description="Verify a symssm certificate independently (exit 0 verified, 1 rejected, 2 unreadable).",
    )
    parser.add_argument("certificate", help="certificate JSON file")
    parser.add_argument("--spec", help="also require the certificate to be about the system in this spec file")
    parser.add_argument("--max-seconds", type=float, default=None, help="also stop (undecided, exit 2, the message "
                        "saying it was the clock) after this many seconds of wall time; without it the verdict "
                        "depends on the certificate alone")
    parser.add_argument("--at", metavar="NAME=VALUE,...", help="for a certificate with parameters (a family, or a "
                        "layer for every input): what it proves at this point (rational values, e.g. a=1/2,b=3)")
    parser.add_argument("--json", action="store_true", help="print the verdict (and the --at answer) as one JSON "
                        "object")
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing, only set the exit code")
    parser.add_argument("--version", action="version", version=f"symssm-check (symssm {_version()})")
    clash = option_file_clash(sys.argv[1:] if argv is None else argv)
    if clash is not None:
        print(f"{prog}: error: {clash}", file=sys.stderr)
        return 2
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 2 if exc.code else 0

    at = None
    if args.at is not None:
        from .parametric import parse_point

        try:
            at = parse_point(args.at)
        except ValueError as exc:
            print(f"{prog}: error: {exc}", file=sys.stderr)
            return 2
    from .isolate import Undecided, run_isolated

    if args.max_seconds is not None and not args.max_seconds > 0:
        print(f"{prog}: error: --max-seconds must be a positive number of seconds", file=sys.stderr)
        return 2
    # no clock unless one is asked for: the verdict is the certificate's alone (its charges, checker/costs.py)
    seconds = args.max_seconds
    limit_text = None if seconds is None else f"the wall-clock limit of --max-seconds {seconds:g}"

    def task():
        try:
            res = check_file(args.certificate, spec_path=args.spec, max_seconds=seconds, at=at)
        except (MemoryError, RecursionError) as exc:
            return {"code": 2, "message": f"the certificate is too large to check ({type(exc).__name__})"}
        except Exception as exc:  # fail closed, never a traceback
            return {"code": 2, "message": f"undecided: the checker could not decide this certificate "
                                         f"({type(exc).__name__}: {str(exc)[:160]}); neither verified nor rejected"}
        return {"code": res.code, "message": res.message, "obligations": len(res.obligations), "at": res.at}

    try:
        # with --max-seconds the child's own clock (above) reports first; the parent's kill is the backstop for
        # native code
        out = run_isolated(task, seconds=None if seconds is None else seconds + 0.4, limit_text=limit_text)
    except Undecided as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    result = CheckResult(out["code"], out["message"])
    result.count = out.get("obligations", 0)
    result.at = out.get("at")
    if args.json and not args.quiet:
        from .answers import print_json

        print_json(result, at is not None)
    elif not args.quiet:
        if result.code == 0:
            print(f"VERIFIED: {result.message} ({result.count} obligations checked)")
        elif result.code == 1:
            print(f"REJECTED: {result.message}")
        else:
            print(f"{prog}: error: {result.message}", file=sys.stderr)
        if result.code == 0 and result.at is not None:
            from .answers import at_line

            print(at_line(result.at))
    return result.code
