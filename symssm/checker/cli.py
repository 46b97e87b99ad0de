"""Command line of the checker: ``symssm-check CERT.json [--spec SPEC] [--quiet]``."""

import argparse
import sys

from .core import check_file


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


def main(argv=None, *, prog="symssm-check"):
    """Run the checker's command line; returns the exit code (0 verified, 1 rejected, 2 unreadable/undecided)."""
    parser = argparse.ArgumentParser(
        allow_abbrev=False,
        prog=prog,
        description="Verify a symssm certificate independently (exit 0 verified, 1 rejected, 2 unreadable).",
    )
    parser.add_argument("certificate", help="certificate JSON file")
    parser.add_argument("--spec", help="also require the certificate to be about the system in this spec file")
    parser.add_argument("--max-seconds", type=float, default=None, help="give up (exit 2) after this many seconds")
    parser.add_argument("--at", metavar="NAME=VALUE,...", help="for a family certificate: what it proves at this "
                        "parameter point (rational values, e.g. a=1/2,b=3)")
    parser.add_argument("--json", action="store_true", help="print the verdict (and the --at answer) as one JSON "
                        "object")
    parser.add_argument("-q", "--quiet", action="store_true", help="print nothing, only set the exit code")
    parser.add_argument("--version", action="version", version=f"symssm-check (symssm {_version()})")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return 2 if exc.code else 0
    import signal

    at = None
    if args.at is not None:
        from .parametric import parse_point

        try:
            at = parse_point(args.at)
        except ValueError as exc:
            print(f"{prog}: error: {exc}", file=sys.stderr)
            return 2
    armed = bool(args.max_seconds) and args.max_seconds > 0 and hasattr(signal, "setitimer")
    try:
        if armed:
            def expire(signum, frame):
                raise TimeoutError

            previous = signal.signal(signal.SIGALRM, expire)
            signal.setitimer(signal.ITIMER_REAL, args.max_seconds)
        result = check_file(args.certificate, spec_path=args.spec, max_seconds=args.max_seconds, at=at)
    except KeyboardInterrupt:
        print(f"{prog}: interrupted", file=sys.stderr)
        return 130
    except TimeoutError:
        print(f"{prog}: error: not finished within --max-seconds {args.max_seconds:g}: neither verified nor "
              "rejected", file=sys.stderr)
        return 2
    except (MemoryError, RecursionError) as exc:
        print(f"{prog}: error: the certificate is too large to check ({type(exc).__name__})", file=sys.stderr)
        return 2
    except Exception as exc:  # fail closed, never a traceback
        print(f"{prog}: error: internal checker error, nothing verified: {type(exc).__name__}: {str(exc)[:200]}",
              file=sys.stderr)
        return 2
    finally:
        if armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    if args.json and not args.quiet:
        _print_json(result, at is not None)
    elif not args.quiet:
        if result.code == 0:
            print(f"VERIFIED: {result.message} ({len(result.obligations)} obligations checked)")
        elif result.code == 1:
            print(f"REJECTED: {result.message}")
        else:
            print(f"{prog}: error: {result.message}", file=sys.stderr)
        if result.code == 0 and result.at is not None:
            print(_at_line(result.at))
    return result.code


def _at_line(at):
    point = ", ".join(f"{k} = {v}" for k, v in at["point"].items())
    if at["head_count"] is None:
        return f"at {point}: the certificate proves no head count here ({at['reason']})"
    hf = at["holds_for"]
    span = f"for every n from {hf['from']}" + (f" to {hf['to']}" if hf["to"] is not None else " on")
    return f"at {point}: k({at['n']}) = {at['head_count']} ({at['reason']}; {span})"


def _print_json(result, asked_at):
    import json

    verdict = {0: "verified", 1: "rejected"}.get(result.code, "undecided")
    out = {"verdict": verdict, "message": result.message, "obligations": len(result.obligations)}
    if asked_at:
        at = result.at or {}
        out.update(head_count=at.get("head_count"), holds_for=at.get("holds_for"), n=at.get("n"),
                   point=at.get("point"), case=at.get("case"), reason=at.get("reason", "the certificate is not "
                                                                                     "verified: nothing is proven"))
    print(json.dumps(out, sort_keys=True))
