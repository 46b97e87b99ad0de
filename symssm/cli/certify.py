"""The commands that make certificates: ``certify``, ``gradient``, ``demo`` and ``batch``."""

import os
import sys

from .._version import __version__
from ..errors import OutputError
from .common import EVERY_SHAPE, check_output, emit, load_system, safe, say, stem
from .options import (DEFAULT_N, METHOD_HELP, add_budget, add_out, add_system_source, count, relative_error)

__all__ = ["add_certify", "run_certify", "add_gradient", "run_gradient", "verified_gradient", "add_demo", "run_demo",
           "add_batch", "run_batch"]


def add_certify(p):
    add_system_source(p, default_n="the spec's n, else T = N, or N + 1 with D")
    add_out(p, "certificate file (default SPEC-STEM.cert.json; '-' for standard output)")
    p.add_argument("--method", choices=("auto", "exact", "modular"), default="auto", help=METHOD_HELP)
    p.add_argument("--tolerance", type=relative_error, default=None, metavar="EPS",
                   help="certify the eps-head count instead: the least H whose best H-head model has relative error "
                        "at most EPS on length n (e.g. 1e-3), with certified brackets on every error (docs/numeric.md)")
    add_budget(p)
    p.add_argument("--no-verify", action="store_true", help="skip re-checking the certificate before writing it")


def run_certify(args):
    from ..api import certify

    system, n, name, inputs = load_system(args, accept=EVERY_SHAPE)
    out = args.output or f"{name}.cert.json"
    check_output(out, inputs)
    if args.tolerance is not None:  # eps-head counts can take minutes: a bar on a terminal
        from ..formats.progress import reporting

        with reporting("symssm certify --tolerance", "bracket"):
            cert = certify(system, n, method=args.method, max_seconds=args.max_seconds, tolerance=args.tolerance,
                           verify=not args.no_verify)
    else:  # certify() hands out the certificate once the independent checker has verified it (unless --no-verify)
        cert = certify(system, n, method=args.method, max_seconds=args.max_seconds, tolerance=args.tolerance,
                       verify=not args.no_verify)
    emit(out, cert.to_json(), inputs)
    _report(args, system, cert, out, verified=not args.no_verify)
    return 0


def _report(args, system, cert, out, *, verified):
    """The lines after a certificate is written: the system, the certificate's summary (its kind's row), the file."""
    from ..certificate import kinds

    row = kinds.of(cert.data)
    say(args, row.load("describe")(system))
    for line in row.load("summary")(cert.data):
        say(args, line)
    shown = "standard output" if out == "-" else safe(out)
    say(args, f"certificate: {shown}" + (" (verified by the independent checker)" if verified else ""))


def add_gradient(p):
    add_system_source(p, default_n=f"the spec's n, else {DEFAULT_N}")
    add_out(p, "certificate file (default SPEC-STEM.gradient.json; '-' for standard output)")
    add_budget(p)


def verified_gradient(args):
    """(system, n, stem, inputs, certificate): a gradient certificate the independent checker accepted."""
    from ..api import gradient_certificate

    system, n, name, inputs = load_system(args)
    n = n if n is not None else DEFAULT_N
    cert = gradient_certificate(system, n, max_seconds=args.max_seconds)  # verified by the independent checker
    return system, n, name, inputs, cert


def run_gradient(args):
    if args.spec is not None:
        check_output(args.output or f"{stem(args.spec)}.gradient.json", (args.spec,))
    system, n, name, inputs, cert = verified_gradient(args)
    out = args.output or f"{name}.gradient.json"
    emit(out, cert.to_json(), inputs)
    _report(args, system, cert, out, verified=True)
    return 0


def add_demo(p):
    add_out(p, "folder for the certificates (default ./symssm-demo)", default="symssm-demo")


def run_demo(args):
    from ..api import certify
    from ..render.summary import describe, head_count_summary
    from ..sources.examples import DEMO_NAMES, example

    out = args.output
    if os.path.exists(out) and not os.path.isdir(out):
        raise OutputError(f"cannot write into {safe(out)}: it is not a folder")
    os.makedirs(out, exist_ok=True)
    print(f"symssm {__version__} demo: exact head counts with independently checked certificates\n")
    for name in DEMO_NAMES:
        ex = example(name)
        cert = certify(ex.system, 8)
        verdict = cert.check()
        path = os.path.join(out, f"{name}.cert.json")
        if verdict.verified:
            cert.save(path)
        print(f"== {ex.description}")
        print("   " + describe(ex.system))
        for line in head_count_summary(cert.data):
            print("   " + line)
        print(f"   {safe(path)}: {'VERIFIED' if verdict.verified else 'REJECTED: ' + verdict.message}\n")
        if not verdict.verified:  # pragma: no cover
            return 1
    print(f"Re-check any of them with: symssm check {safe(os.path.join(out, DEMO_NAMES[0] + '.cert.json'))}")
    return 0


def add_batch(p):
    p.add_argument("input", metavar="INPUT", help="JSON Lines file: one spec (SSM, family or layer) per line")
    add_out(p, "JSON Lines results (appended as they come; resumable)", required=True)
    p.add_argument("--certificates", metavar="DIR", help="folder for the verified certificates (LINE.cert.json)")
    p.add_argument("--workers", type=count, default=None, metavar="K",
                   help="local worker processes (default: the CPU count)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="address of a Dask distributed scheduler (needs the dask extra)")
    p.add_argument("--method", choices=("auto", "exact", "modular"), default="auto", help=METHOD_HELP)
    p.add_argument("--no-progress", action="store_true", help="no progress bar (none is drawn off a terminal)")
    add_budget(p)


def run_batch(args):
    from ..batch import run_batch as batch

    total, errors = batch(args.input, args.output, cert_dir=args.certificates, workers=args.workers,
                          scheduler=args.scheduler, method=args.method,
                          progress=not args.no_progress and sys.stderr.isatty())
    print(f"batch: {total} results in {safe(args.output)} ({errors} with an error, as data)")
    return 0
