"""The ``symssm`` command line: argument parsing and dispatch.

The work happens in the stages below (sources, exact, numeric, gradient, certificate,
render) and in :mod:`symssm.api`; this module parses, calls, prints and maps errors to exit
codes.  Every failure a user can cause ends with one line ``symssm: error: ...`` and exit
code 2 (1 for a certificate that parses but does not verify, or a system that has no decay
certificate); Ctrl-C exits 130 and SIGTERM 143, removing any temporary file; a closed
standard output (``| head``) ends quietly.
"""

import argparse
import os
import signal
import sys

from ._version import __version__
from .errors import BudgetExceeded, InputError, SymssmError

__all__ = ["main", "build_parser", "DEFAULT_N"]

PROG = "symssm"
#: Sequence length of the gradient and numeric commands when neither -n nor the spec gives one.
DEFAULT_N = 1000


class _Parser(argparse.ArgumentParser):
    """argparse without abbreviations that reports a usage error in one line and exit code 2."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message):
        raise SymssmError(f"{message} (see '{self.prog} --help')")


class _Terminated(BaseException):
    """SIGTERM, raised like KeyboardInterrupt so that cleanup handlers run."""


class _BudgetAlarm(BaseException):
    """The --max-seconds alarm: a BaseException, so that no ``except Exception`` on the way (the
    checker's fail-closed handler in particular) mistakes it for a fault of the data."""


def _count(text):
    from .formats.rationals import int_from_digits

    if not text.isascii() or not text.isdigit() or len(text) > 40:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer (at most 40 digits), got {text[:60]!r}")
    return int_from_digits(text)


def _seconds(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text[:60]!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text[:60]!r}")
    return value


def _tolerance(text):
    """A relative tolerance: the value as a float (the ``--lag-rank-tol`` threshold)."""
    return float(_relative_error(text))


def _relative_error(text):
    """``--tolerance`` / ``--tol``: 1e-3, 0.001 or 1/1000, strictly between 0 and 1, read once into an exact
    :class:`~symssm.formats.rationals.Tolerance` (a Fraction that keeps its text)."""
    from .formats.rationals import parse_tolerance

    try:
        return parse_tolerance(text, what="")
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


# ---------------------------------------------------------------- inputs and outputs

#: The spec shapes (symssm.sources.reader.SHAPES) each kind of command takes.
EVERY_SHAPE = ("npz", "parametric-layer", "layer", "family", "complex", "plain")
SYSTEMS = ("npz", "plain")
NUMERIC_SHAPES = ("npz", "plain", "layer")
NUMERIC_TAKER = "the numeric commands take"


def _load_system(args, *, accept=SYSTEMS, floats=False, taker="this command takes"):
    """(system, n, stem, inputs) from a spec file or a built-in family, read by the one spec reader
    (:mod:`symssm.sources.reader`): ``accept`` the shapes this command takes, ``floats`` for the numeric commands."""
    from .sources.reader import read_source, refuse

    if (args.spec is None) == (args.family is None):
        raise SymssmError("give exactly one of a SPEC file or --family NAME")
    if args.family is not None:
        from .sources.parametric import PARAMETRIC_FAMILIES, parametric_family

        plain, symbolic = _family_names()
        if args.family not in plain and args.family not in symbolic:
            raise SymssmError(f"unknown family {args.family[:40]!r}; choose one of {', '.join(plain)}, or, with "
                              f"parameters, {', '.join(symbolic)} (see 'symssm families')")
        if args.family not in symbolic and args.family_N is None:
            raise SymssmError(f"family {args.family} needs its state dimension: -N STATES (or --states)")
        if args.family in PARAMETRIC_FAMILIES:
            if "family" not in accept:
                raise refuse("family", f"family {args.family}", accept=accept, taker=taker)
            if args.family_seed is not None:
                raise SymssmError("--seed applies to the random family only")
            system = parametric_family(args.family, N=args.family_N, p=args.family_p, m=args.family_m)
            return system, args.n, args.family, ()
        from .sources.families import family_system  # SymPy loads here, for the families without parameters

        system = family_system(args.family, N=args.family_N, p=args.family_p, m=args.family_m,
                               seed=args.family_seed)
        return system, args.n, system.name, ()
    source = read_source(args.spec, accept=accept, floats=floats, taker=taker)
    if source.shape in ("layer", "parametric-layer") and args.n is not None:
        raise SymssmError(f"spec {args.spec}: -n does not apply to a layer (its length is its input's length)")
    return source.system, (args.n if args.n is not None else source.n), _stem(args.spec), source.inputs


def _stem(path):
    return os.path.splitext(os.path.basename(path))[0] or "system"


def _emit(path, text, inputs):
    """Write ``text`` to ``path`` ('-': standard output) atomically, never over an input."""
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    from .formats.files import atomic_write

    atomic_write(path, text, inputs=inputs)


def _check_output(path, inputs):
    """Refuse a bad output path before any work is done."""
    if path not in (None, "-"):
        from .formats.files import check_output_path

        check_output_path(path, inputs=inputs)


def _say(args, line=""):
    """Print a report line, to standard error when the certificate itself goes to standard output."""
    print(line, file=sys.stderr if getattr(args, "output", None) == "-" else sys.stdout)


# ---------------------------------------------------------------- commands

def _cmd_certify(args):
    from .api import certify
    from .certificate import kinds

    system, n, stem, inputs = _load_system(args, accept=EVERY_SHAPE)
    out = args.output or f"{stem}.cert.json"
    _check_output(out, inputs)
    if args.tolerance is not None:  # eps-head counts can take minutes: a bar on a terminal
        from .formats.progress import reporting

        with reporting("symssm certify --tolerance", "bracket"):
            cert = certify(system, n, method=args.method, max_seconds=args.max_seconds, tolerance=args.tolerance,
                           verify=not args.no_verify)
    else:  # certify() hands out the certificate once the independent checker has verified it (unless --no-verify)
        cert = certify(system, n, method=args.method, max_seconds=args.max_seconds, tolerance=args.tolerance,
                       verify=not args.no_verify)
    _emit(out, cert.to_json(), inputs)
    row = kinds.of(cert.data)
    _say(args, row.load("describe")(system))
    for line in row.load("summary")(cert.data):
        _say(args, line)
    shown = "standard output" if out == "-" else _safe(out)
    _say(args, f"certificate: {shown}" + ("" if args.no_verify else " (verified by the independent checker)"))
    return 0


def _safe(text):
    from .render.summary import terminal_safe

    return terminal_safe(text)


def _cmd_check(args):
    from .checker.cli import main as check_main

    # values as --option=VALUE and the certificate after --: no file name is ever read as an option
    argv = ([f"--spec={args.spec}"] if args.spec else []) + ([f"--at={args.at}"] if args.at is not None else [])
    argv += (["--json"] if args.json else []) + (["--quiet"] if args.quiet else [])
    if args.max_seconds:
        argv += [f"--max-seconds={args.max_seconds!r}"]
    return check_main(argv + ["--", args.certificate], prog=f"{PROG} check")


def _cmd_demo(args):
    from .api import certify
    from .render.summary import describe, head_count_summary
    from .sources.examples import DEMO_NAMES, example

    out = args.output
    if os.path.exists(out) and not os.path.isdir(out):
        raise SymssmError(f"cannot write into {_safe(out)}: it is not a folder")
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
        print(f"   {_safe(path)}: {'VERIFIED' if verdict.verified else 'REJECTED: ' + verdict.message}\n")
        if not verdict.verified:  # pragma: no cover
            return 1
    print(f"Re-check any of them with: symssm check {_safe(os.path.join(out, DEMO_NAMES[0] + '.cert.json'))}")
    return 0


def _verified_certificate(path):
    """Load a certificate and verify it once; a rejected one is an error (exit 1)."""
    from .api import load_certificate

    cert = load_certificate(path)
    result = cert.check()
    if not result.verified:
        err = SymssmError(f"certificate {_safe(path)} does not verify, refusing to render it: {result.message}")
        err.exit_code = 1 if result.code == 1 else 2
        raise err
    return cert


def _cmd_latex(args):
    inputs = (args.certificate,)
    _check_output(args.output, inputs)
    cert = _verified_certificate(args.certificate)
    text = cert.to_latex(standalone=args.standalone, macros=args.macros, prefix=args.prefix, label=args.label,
                         environment=args.environment, theorem_name=args.theorem_name,
                         source=os.path.basename(args.certificate))
    _emit(args.output or "-", text, inputs)
    return 0


def _cmd_audit(args):
    from .audit.command import run

    return run(args)


def _cmd_coq(args):
    from .api import load_certificate
    from .formats.files import atomic_write
    from .render.coq import coq_project

    out = args.output
    if os.path.exists(out) and not os.path.isdir(out):
        raise SymssmError(f"cannot write the Coq project into {_safe(out)}: it is not a folder")
    cert = load_certificate(args.certificate)
    files = coq_project(cert)  # refuses (exit 1) a certificate that does not verify
    os.makedirs(out, exist_ok=True)
    for name in sorted(files):
        atomic_write(os.path.join(out, name), files[name], inputs=(args.certificate,))
    print(f"Coq project for '{_safe(cert['system']['name'])}' written to {_safe(out)} "
          f"(theorem symssm_head_count: k = {cert['head_count']})")
    print(f"build it with: cd {_safe(out)} && coq_makefile -f _CoqProject -o Makefile && make")
    return 0


def _verified_gradient(args):
    """(system, n, stem, inputs, certificate): a gradient certificate the independent checker accepted."""
    from .api import gradient_certificate

    system, n, stem, inputs = _load_system(args)
    n = n if n is not None else DEFAULT_N
    cert = gradient_certificate(system, n, max_seconds=args.max_seconds)  # verified by the independent checker
    return system, n, stem, inputs, cert


def _cmd_gradient(args):
    from .certificate import kinds

    if args.spec is not None:
        _check_output(args.output or f"{_stem(args.spec)}.gradient.json", (args.spec,))
    system, n, stem, inputs, cert = _verified_gradient(args)
    out = args.output or f"{stem}.gradient.json"
    _emit(out, cert.to_json(), inputs)
    row = kinds.of(cert.data)
    _say(args, row.load("describe")(system))
    for line in row.load("summary")(cert.data):
        _say(args, line)
    shown = "standard output" if out == "-" else _safe(out)
    _say(args, f"certificate: {shown} (verified by the independent checker)")
    return 0


def _load_numeric_source(args):
    """(system, n, inputs) for the numeric commands: a spec (decimals welcome, read as floats), a layer, or a
    family (exact)."""
    system, n, _stem_, inputs = _load_system(args, accept=NUMERIC_SHAPES, floats=True, taker=NUMERIC_TAKER)
    from .sources.reader import FloatSpec

    if isinstance(system, FloatSpec):
        from .numeric.headcount import NamedFloatSystem, as_float_system

        system = NamedFloatSystem(*as_float_system(system.A, system.B, system.C, system.D), system.name)
    return system, n, inputs


def _cmd_numeric(args):
    import json

    from .numeric.headcount import numeric_head_count
    from .render.summary import numeric_summary

    from .sources.layers import Layer

    system, n, _ = _load_numeric_source(args)
    if isinstance(system, Layer):
        from .numeric.interaction import numeric_interaction_rank

        res = numeric_interaction_rank(system, tolerance=_tolerance_or_default(args), rank_tol=args.lag_rank_tol)
        if args.json:
            sys.stdout.write(json.dumps(res.to_json_data(), indent=2, sort_keys=True) + "\n")
            return 0
        from .render.summary import curve_text

        gap = "infinite (nothing below the tolerance)" if res.gap is None else f"{res.gap:.3e}"
        print("NUMERICAL RESULT (float64): not a certificate")
        print(f"numerical interaction rank r = {res.numerical_rank}: the least H whose best H-head relative error is "
              f"at most {res.tolerance:g}; gap s_r/s_(r+1) = {gap}")
        print(f"best H-head relative error, H = 0..{res.numerical_rank}: "
              + curve_text(res.approximation_error, res.approximation_error_cut))
        print(f"normalised-row rank (diagnostic, threshold {args.lag_rank_tol:g}): {res.normalised_rank}")
        print("For an exact, certified interaction rank: symssm certify SPEC (exact entries).")
        return 0
    n = n if n is not None else DEFAULT_N
    res = numeric_head_count(system, n, tolerance=_tolerance_or_default(args), lag_rank_tol=args.lag_rank_tol,
                             device=args.device)
    if args.json:
        sys.stdout.write(json.dumps(res.to_json_data(), indent=2, sort_keys=True) + "\n")
        return 0
    for line in numeric_summary(res, n):
        print(line)
    return 0


def _tolerance_or_default(args):
    from .numeric.headcount import DEFAULT_TOL

    return float(args.tolerance) if args.tolerance is not None else DEFAULT_TOL


def _exact_for_plot(args):
    """The exact system of ``plot heads --tolerance`` (its certified brackets), or None with the reason."""
    try:
        system, _n, _stem_, _inputs = _load_system(args, accept=EVERY_SHAPE)
    except SymssmError as exc:
        return None, str(exc)
    from .sources.system import SSM

    if not isinstance(system, SSM) and type(system).__name__ != "ComplexSSM":
        return None, "certified brackets are drawn for time-invariant systems"
    return system, None


def _cmd_plot(args):
    from .render.plot import figure_format, plot_gradient, plot_heads

    figure_format(args.output)
    if args.spec is not None:
        _check_output(args.output, (args.spec,))
    if args.what == "gradient":
        _system, _n, _stem_, inputs, cert = _verified_gradient(args)
        plot_gradient(cert, args.output, inputs=inputs)
        print(f"wrote {_safe(args.output)}")
        return 0
    from .numeric.headcount import DEFAULT_TOL, numeric_head_count
    from .sources.layers import Layer

    system, n, inputs = _load_numeric_source(args)
    if isinstance(system, Layer):
        raise InputError("plot heads draws the error curve of a time-invariant system; for a layer, 'symssm numeric "
                         "SPEC' reports its interaction rank and curve")
    n = n if n is not None else DEFAULT_N
    tolerance = args.tolerance if args.tolerance is not None else None
    res = numeric_head_count(system, n, tolerance=float(tolerance) if tolerance is not None else DEFAULT_TOL)
    certified, note = None, None
    if tolerance is not None:  # the numeric count at EPS, and the certified brackets where the system is exact
        from .api import certify

        exact, note = _exact_for_plot(args)
        if exact is not None:
            try:
                cert = certify(exact, n, tolerance=tolerance)
            except SymssmError as exc:
                note = str(exc)
            else:  # verified by the independent checker
                certified = cert.data
    plot_heads([res], args.output, inputs=inputs, certified=certified,
               tolerance=float(tolerance) if tolerance is not None else None)
    print(f"wrote {_safe(args.output)}")
    if tolerance is not None:
        print(f"numerical head count {res.numerical_head_count} at tolerance {tolerance.text}"
              + ("; certified brackets drawn (verified by the independent checker)" if certified is not None else
                 f"; no certified brackets: {_safe(note)}"))
    return 0


def _cmd_catalog(args):
    from .catalog import build_catalog, catalog_files

    records = build_catalog(args.output, progress=(lambda name: print(f"  {name}", flush=True)) if args.verbose else None)
    print(f"catalogue: {len(records)} cases, {len(catalog_files(records))} files written to {_safe(args.output)}")
    return 0


def _cmd_framework(args):
    from .catalog import build_framework

    from .formats.progress import reporting

    with reporting("symssm framework", "layer"):
        rows = build_framework(args.output, seed=args.seed, n=args.tokens, m=args.m)
    print(f"the unified framework on one seeded input (seed {args.seed}, n = {args.tokens} tokens, p = m = {args.m}); "
          "every r is certified and independently checked:")
    width = max(len(label) for label, _, _, _ in rows)
    for label, bound, cert, every in rows:
        print(f"  {label:<{width}}  r = {cert['interaction_rank']}   ({bound})")
        print(f"  {'':<{width}}  for all inputs: {every[0]}")
    if args.output:
        print(f"certificates, LaTeX and framework.md written to {_safe(args.output)}")
    return 0


def _cmd_batch(args):
    from .batch import run_batch

    total, errors = run_batch(args.input, args.output, cert_dir=args.certificates, workers=args.workers,
                              scheduler=args.scheduler, method=args.method,
                              progress=not args.no_progress and sys.stderr.isatty())
    print(f"batch: {total} results in {_safe(args.output)} ({errors} with an error, as data)")
    return 0


def _cmd_model(args):
    import json

    from .formats.limits import check_n
    from .formats.progress import Progress, on_terminal, reporting
    from .numeric.headcount import DEFAULT_TOL
    from .numeric.models import analyse_checkpoint
    from .render.summary import model_summary
    from .sources.checkpoints import Conventions, scan_checkpoint

    n = args.n if args.n is not None else 1024
    check_n(n, minimum=1, maximum=10 ** 12, what="-n (the sequence length of a trained layer's operator)")
    if args.plot:
        from .render.plot import figure_format

        figure_format(args.plot)
        _check_output(args.plot, (args.checkpoint,))
    conventions = Conventions(discretization=args.discretization, dt_transform=args.dt_transform,
                              real_transform=args.real_transform, imag_transform=args.imag_transform)
    tolerance = args.tolerance
    if args.certificates is not None:
        if tolerance is None:
            raise InputError("--certificates needs --tolerance EPS: the certified eps-head counts are proven at that "
                             "relative error")
        if os.path.exists(args.certificates) and not os.path.isdir(args.certificates):
            raise InputError(f"--certificates {_safe(args.certificates)} is not a folder")
    value = float(tolerance) if tolerance is not None else DEFAULT_TOL
    layers, problems = scan_checkpoint(args.checkpoint)  # once, for the numbers and the certificates
    with Progress(len(layers), "symssm model", "layer", enabled=on_terminal() and len(layers) > 0) as bar:
        def progress(name, done, total):
            if done is None:
                bar.advance()
            else:
                bar.describe(f"{name}: {done}/{total}" if total else name)

        report = analyse_checkpoint(args.checkpoint, n, tolerance=value, lag_rank_tol=args.lag_rank_tol,
                                    layers=layers, problems=problems, conventions=conventions,
                                    progress=progress if bar.bar is not None else None)
    report["conventions"] = conventions.as_json()
    certified = None
    if args.certificates is not None:
        with reporting("symssm model: certifying", "bracket"):
            certified = _certify_layers(args, report, n, tolerance, layers, conventions)
    if args.plot:
        _plot_layers(report, args.plot, args.checkpoint, certified, value)
    if args.json:
        sys.stdout.write(json.dumps(report, indent=2, sort_keys=True) + "\n")
        return 0
    for line in model_summary(report, value):
        print(line)
    return 0


def _plot_layers(report, path, checkpoint, certified, tolerance):
    """``model --plot``: every layer's curve (Mamba layers' interaction curves labelled so) and the brackets."""
    from types import SimpleNamespace

    from .render.plot import plot_heads

    curves, certs = [], []
    for i, layer in enumerate(report["layers"]):
        count = layer.get("numerical_head_count", layer.get("numerical_interaction_rank"))
        label = layer["name"] + (f" (interaction rank, {layer['tokens']} seeded tokens)" if layer["kind"][:5] == "mamba"
                                 else "")
        curves.append(SimpleNamespace(name=label, numerical_head_count=count,
                                      approximation_error=layer["approximation_error"],
                                      approximation_error_cut=layer.get("approximation_error_cut", False)))
        certs.append(None if certified is None else certified[i])
    plot_heads(curves, path, inputs=(checkpoint,), certified=certs if certified is not None else None,
               tolerance=tolerance)


def _layer_file(name, taken):
    """A certificate file name for a layer name: its characters outside A-Z a-z 0-9 . _ - as '_', made unique."""
    import re

    stem = re.sub(r"[^A-Za-z0-9._-]", "_", name).strip(".")[:120] or "layer"
    candidate, k = f"{stem}.cert.json", 2
    while candidate in taken:
        candidate, k = f"{stem}-{k}.cert.json", k + 1
    taken.add(candidate)
    return candidate


def _certify_layers(args, report, n, tolerance, layers, conventions=None):
    """``model --tolerance EPS --certificates DIR``: certify every S4D / S4 / S5 / LRU layer, write the certificates,
    extend the report; returns each layer's certificate data (None where none)."""
    from .api import certify_checkpoint
    from .formats.rationals import format_rational

    results = certify_checkpoint(args.checkpoint, n, tolerance, layers=layers, conventions=conventions)
    os.makedirs(args.certificates, exist_ok=True)
    taken = set()
    report["certified_tolerance"] = format_rational(tolerance)
    drawn = []
    for layer, (name, cert, reason) in zip(report["layers"], results):
        drawn.append(None if cert is None else cert.data)
        if cert is None:
            note = reason if layer["kind"][:5] != "mamba" else (
                "not certified: a Mamba layer's lags depend on its input (the numerical rank is on a seeded input)")
            layer.update(certified_head_count=None, certificate=None, certificate_note=note)
            continue
        path = os.path.join(args.certificates, _layer_file(name, taken))
        cert.save(path, inputs=(args.checkpoint,))
        data = cert.data
        layer.update(certified_head_count=data["head_count"], certificate=path,
                     certified_undecided_at=data["undecided_at"],
                     certified_errors=[{"H": e["H"], "lower": e["lower"], "upper": e["upper"]} for e in data["errors"]])
    return drawn


def _cmd_families(args):
    from .sources.families import FAMILIES, FAMILY_NOTES

    print("Built-in families (symssm certify|gradient|numeric|plot --family NAME -N N [-p P -m M]; "
          "see docs/families.md):")
    from .sources.parametric import PARAMETRIC_FAMILIES, PARAMETRIC_NOTES

    width = max(map(len, list(FAMILIES) + list(PARAMETRIC_FAMILIES)))
    for name in FAMILIES:
        print(f"  {name:<{width}}  {FAMILY_NOTES[name]}")
    print("\nFamilies with parameters (symssm certify --family NAME [--N N] -n N: a certificate for every parameter "
          "value; see docs/parametric.md):")
    for name in PARAMETRIC_FAMILIES:
        print(f"  {name:<{width}}  {PARAMETRIC_NOTES[name]}")
    return 0


# ---------------------------------------------------------------- parser

# One vocabulary for every subcommand (kept here, in one place):
#   -o/--out PATH      every file or folder a command writes (--output: the older spelling, kept)
#   -n/--length N      the sequence length (--n kept)
#   -N/--states, -p/--outputs, -m/--inputs   the sizes of a family member (--N, --p, --m kept)
#   --seed SEED, --max-seconds SECONDS, --json
#: The built-in families' names for the help texts (a test keeps them equal to the registries, which
#: load SymPy: importing those for every command's help cost 0.35 s of start-up).
FAMILY_NAMES = ("shift", "rotation", "diagonal", "companion", "jordan", "hippo-legs", "hippo-legt", "s4d-real", "random")
PARAMETRIC_FAMILY_NAMES = ("rotation-symbolic", "diagonal-symbolic", "companion-symbolic", "jordan-symbolic",
                           "hippo-legs-step", "hippo-legt-step", "s4d-real-step", "generic-symbolic")


def _family_names():
    return list(FAMILY_NAMES), list(PARAMETRIC_FAMILY_NAMES)


def _family_help():
    plain, symbolic = _family_names()
    return (f"a built-in family instead of a spec: {', '.join(plain)}; with parameters (certify only): "
            f"{', '.join(symbolic)} (see 'symssm families')")


def _add_out(p, what, *, required=False, default=None):
    p.add_argument("-o", "--out", "--output", dest="output", metavar="PATH", required=required, default=default,
                   help=what)


#: The options a checkpoint does not record (kept equal to sources.checkpoints.DISCRETIZATIONS and TRANSFORMS by a
#: test, so that building the parser imports nothing heavy).
DISCRETIZATION_NAMES = ("zoh", "bilinear")
TRANSFORM_NAMES = ("exp", "softplus", "relu", "sigmoid", "none")


def _add_tolerances(p, *, certified=False):
    p.add_argument("--tolerance", "--tol", dest="tolerance", type=_relative_error, default=None, metavar="EPS",
                   help="relative error tau (default 1e-10): the numerical head count is the least H whose best "
                        "H-head approximation has relative error <= tau, the quantity the certified eps-head count "
                        "brackets" + ("; with --certificates, certified at this EPS too" if certified else "")
                        + " (--tol: the same)")
    p.add_argument("--lag-rank-tol", type=_tolerance, default=1e-10, metavar="TAU",
                   help="singular-value threshold of the normalised-lag rank, a diagnostic reported beside the count "
                        "(default 1e-10)")


def _add_length(p, default_text):
    p.add_argument("-n", "--length", "--n", type=_count, dest="n", default=None, metavar="LENGTH",
                   help=f"sequence length n (default: {default_text})")


def _add_budget(p, text="stop cleanly (exit 2, nothing written) after this many seconds"):
    p.add_argument("--max-seconds", type=_seconds, default=None, metavar="SECONDS", help=text)


def _add_system_source(p, *, default_n):
    p.add_argument("spec", nargs="?", metavar="SPEC",
                   help="system spec: a JSON file (docs/certificate-format.md) or an .npz archive; or use --family")
    p.add_argument("--family", metavar="NAME", help=_family_help())
    p.add_argument("-N", "--states", "--N", type=_count, dest="family_N", metavar="STATES",
                   help="state dimension N of the family member")
    p.add_argument("-p", "--outputs", "--p", type=_count, dest="family_p", default=None, metavar="OUTPUTS",
                   help="output dimension p of the family member (default 1)")
    p.add_argument("-m", "--inputs", "--m", type=_count, dest="family_m", default=None, metavar="INPUTS",
                   help="input dimension m of the family member (default 1)")
    p.add_argument("--seed", type=_count, dest="family_seed", default=None, metavar="SEED",
                   help="seed of the random family")
    _add_length(p, default_n)


def _command(sub, name, run, help_text):
    p = sub.add_parser(name, help=help_text, description=help_text)
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}",
                   help="print the version and exit")
    p.set_defaults(run=run)
    return p


METHOD_HELP = ("how the witness minor is found: exact (fraction-free elimination over Q), modular (elimination "
               "modulo a prime, the minor still checked exactly or modulo a prime that divides no denominator), "
               "or auto (default: chosen by size)")


def _add_check(sub):
    p = _command(sub, "check", _cmd_check, "verify a certificate with the independent checker")
    p.add_argument("certificate", metavar="CERT", help="certificate JSON file")
    p.add_argument("--spec", metavar="SPEC", help="also require the certificate to be about this spec's system")
    _add_budget(p, "give up, undecided (exit 2), after this many seconds")
    p.add_argument("--at", metavar="NAME=VALUE,...", help="for a family certificate: what it proves at this "
                   "parameter point (rational values, e.g. a=1/2,b=3)")
    p.add_argument("--json", action="store_true", help="print the verdict (and the --at answer) as one JSON object")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing, only set the exit code")


def build_parser(only=None):
    """The argument parser of ``symssm`` (every command; no abbreviations).

    ``only="check"`` builds just the ``check`` command: the reviewer's command starts without
    importing the generator's libraries (SymPy), which the other commands' help texts need.
    """
    parser = _Parser(prog=PROG, description="Exact, certified head counts for linear state space models "
                                            "(arXiv:2512.15115). 'symssm COMMAND --help' shows a command's options.")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}", help="print the version and exit")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")
    if only == "check":
        _add_check(sub)
        return parser

    p = _command(sub, "certify", _cmd_certify, "certify the exact head count k(n) of a system (real or complex), a "
                 "family with parameters for every parameter value, or the interaction rank of a layer on its input")
    _add_system_source(p, default_n="the spec's n, else T = N, or N + 1 with D")
    _add_out(p, "certificate file (default SPEC-STEM.cert.json; '-' for standard output)")
    p.add_argument("--method", choices=("auto", "exact", "modular"), default="auto", help=METHOD_HELP)
    p.add_argument("--tolerance", type=_relative_error, default=None, metavar="EPS",
                   help="certify the eps-head count instead: the least H whose best H-head model has relative error "
                        "at most EPS on length n (e.g. 1e-3), with certified brackets on every error (docs/numeric.md)")
    _add_budget(p)
    p.add_argument("--no-verify", action="store_true", help="skip re-checking the certificate before writing it")

    _add_check(sub)

    p = _command(sub, "demo", _cmd_demo, "certify built-in examples and check the certificates")
    _add_out(p, "folder for the certificates (default ./symssm-demo)", default="symssm-demo")

    p = _command(sub, "latex", _cmd_latex, "typeset a (verified) certificate as a theorem with its proof")
    p.add_argument("certificate", metavar="CERT", help="certificate JSON file (it must verify)")
    _add_out(p, ".tex file to write (default: standard output)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--standalone", action="store_true", help="a complete document for pdflatex")
    mode.add_argument("--macros", action="store_true", help="only \\newcommand definitions of the certified numbers")
    p.add_argument("--prefix", default=None, metavar="PREFIX",
                   help="macro name prefix, letters only (default: Symssm + the certificate file's name in "
                        "CamelCase, digits spelled: rotation.cert.json gives SymssmRotation)")
    p.add_argument("--label", default=None, metavar="LABEL",
                   help="\\label placed inside the theorem, so the paper can \\ref it (A-Z a-z 0-9 : . _ - /)")
    p.add_argument("--environment", default="symssmtheorem", metavar="ENV",
                   help="theorem environment to use, e.g. your paper's 'theorem' (defined only if the paper lacks "
                        "it; default symssmtheorem)")
    p.add_argument("--theorem-name", default="Certified result", metavar="NAME",
                   help="printed name of the environment when the fragment defines it (default 'Certified result')")

    from .audit.command import HELP as AUDIT_HELP, add_arguments as audit_arguments

    audit_arguments(_command(sub, "audit", _cmd_audit, AUDIT_HELP))

    p = _command(sub, "coq", _cmd_coq, "re-prove a (verified) head-count certificate in Coq/mathcomp: write a Coq "
                 "project whose theorem symssm_head_count states the head count (N <= 8, p m <= 16)")
    p.add_argument("certificate", metavar="CERT", help="a head-count certificate of a real system")
    _add_out(p, "folder for the Coq project (created if missing)", required=True)

    p = _command(sub, "gradient", _cmd_gradient, "certify gradient decay (SSM) against a gradient highway (attention)")
    _add_system_source(p, default_n=f"the spec's n, else {DEFAULT_N}")
    _add_out(p, "certificate file (default SPEC-STEM.gradient.json; '-' for standard output)")
    _add_budget(p)

    p = _command(sub, "numeric", _cmd_numeric, "numerical head count and H-head error curve (floats; not a certificate)")
    _add_system_source(p, default_n=f"the spec's n, else {DEFAULT_N}")
    _add_tolerances(p)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                   help="array backend: cpu (numpy, default) or cuda (CuPy on a GPU; needs the gpu extra)")
    _add_budget(p)

    p = _command(sub, "catalog", _cmd_catalog, "regenerate the certified catalogue of built-in families")
    _add_out(p, "folder (default ./certificates)", default="certificates")
    p.add_argument("-v", "--verbose", action="store_true", help="name each certificate as it is written")
    _add_budget(p)

    p = _command(sub, "plot", _cmd_plot, "figures: 'heads' (error vs. H) or 'gradient' (norm vs. distance)")
    p.add_argument("what", choices=("heads", "gradient"), metavar="heads|gradient",
                   help="heads: best H-head error against H; gradient: certified decay against distance")
    _add_system_source(p, default_n=f"the spec's n, else {DEFAULT_N}")
    _add_out(p, "figure file: .png, .pdf or .svg", required=True)
    p.add_argument("--tolerance", "--tol", dest="tolerance", type=_relative_error, default=None, metavar="EPS",
                   help="heads: draw the tolerance, the numerical head count at it (the least H with e_H <= EPS) and, "
                        "for an exact system within the limits, the certified error brackets (docs/numeric.md)")
    _add_budget(p)

    p = _command(sub, "framework", _cmd_framework,
                 "certified interaction ranks of feedforward, convolution, SSMs, Mamba-2 and attention side by side")
    p.add_argument("--seed", type=_count, default=0, metavar="SEED",
                   help="seed of the shared input and parameters (default 0)")
    p.add_argument("-n", "--length", "--tokens", "--n", type=_count, dest="tokens", default=6, metavar="LENGTH",
                   help="sequence length, the number of tokens (default 6)")
    p.add_argument("-m", "--inputs", "--m", type=_count, dest="m", default=2, metavar="INPUTS",
                   help="token dimension m, and p = m (default 2)")
    _add_out(p, "folder for the certificates, their LaTeX and the table (default: print the table only)")
    _add_budget(p)

    p = _command(sub, "batch", _cmd_batch, "certify many specs (one JSON object a line); resumable; processes or Dask")
    p.add_argument("input", metavar="INPUT", help="JSON Lines file: one spec (SSM, family or layer) per line")
    _add_out(p, "JSON Lines results (appended as they come; resumable)", required=True)
    p.add_argument("--certificates", metavar="DIR", help="folder for the verified certificates (LINE.cert.json)")
    p.add_argument("--workers", type=_count, default=None, metavar="K",
                   help="local worker processes (default: the CPU count)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="address of a Dask distributed scheduler (needs the dask extra)")
    p.add_argument("--method", choices=("auto", "exact", "modular"), default="auto", help=METHOD_HELP)
    p.add_argument("--no-progress", action="store_true", help="no progress bar (none is drawn off a terminal)")
    _add_budget(p)

    p = _command(sub, "model", _cmd_model, "numerical head counts of the S4D / S5 / LRU / Mamba layers of a checkpoint")
    p.add_argument("checkpoint", metavar="CHECKPOINT", help=".npz, .safetensors or PyTorch .pt state dict")
    _add_length(p, "1024")
    _add_tolerances(p, certified=True)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--plot", metavar="FIGURE",
                   help="also draw every layer's error curve against H (.png, .pdf or .svg)")
    p.add_argument("--certificates", metavar="DIR",
                   help="also certify each S4D / S4 / S5 / LRU layer's eps-head count at --tolerance EPS, one "
                        "certificate per layer in this folder (checked by the independent checker)")
    p.add_argument("--discretization", choices=DISCRETIZATION_NAMES, default="zoh",
                   help="how S5 and S4 (SSMKernelDiag) layers were discretised, which a checkpoint does not record "
                        "(the reference code's option; default zoh)")
    p.add_argument("--dt-transform", choices=TRANSFORM_NAMES, default="exp", metavar="NAME",
                   help="S4 (SSMKernelDiag): the transform of kernel.inv_dt into the step (default exp, the kernel's "
                        "default; the repository's s4.yaml uses softplus): " + ", ".join(TRANSFORM_NAMES))
    p.add_argument("--real-transform", choices=TRANSFORM_NAMES, default="exp", metavar="NAME",
                   help="S4 (SSMKernelDiag): the transform of kernel.A_real, -Re A = f(A_real) (default exp)")
    p.add_argument("--imag-transform", choices=TRANSFORM_NAMES, default="none", metavar="NAME",
                   help="S4 (SSMKernelDiag): the transform of kernel.A_imag, -Im A = f(A_imag) (default none)")
    _add_budget(p)

    _command(sub, "families", _cmd_families, "list the built-in families with their parameters and conventions")
    return parser


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


def _on_sigterm(signum, frame):
    raise _Terminated()


def _quiet_broken_pipe():
    """Standard output was closed by its reader: stop writing to it, silently."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    return 141


def main(argv=None):
    """Run the command line; returns the exit code."""
    previous = None
    args = None
    try:
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    except (ValueError, OSError):  # not the main thread
        previous = None
    try:
        words = list(sys.argv[1:] if argv is None else argv)
        if words[:1] == ["check"]:
            from .checker.cli import option_file_clash

            clash = option_file_clash(words[1:])
            if clash is not None:
                raise SymssmError(clash)
        parser = build_parser("check" if words[:1] == ["check"] else None)
        args, extra = parser.parse_known_args(argv)
        if extra:
            where = f"{PROG} {args.command}" if getattr(args, "command", None) else PROG
            raise SymssmError(f"unrecognized arguments: {' '.join(extra)[:120]} (see '{where} --help')")
        if getattr(args, "run", None) is None:
            parser.print_help()
            return 2
        with _Budget(getattr(args, "max_seconds", None) if args.command != "check" else None):
            code = args.run(args)
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
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except _Terminated:
        print(f"{PROG}: terminated", file=sys.stderr)
        return 143
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
        if os.environ.get("SYMSSM_DEBUG"):
            raise
        print(f"{PROG}: error: internal error, please report it with the input: {type(exc).__name__}: "
              f"{_safe(str(exc)[:200])}", file=sys.stderr)
        return 2
    finally:
        if previous is not None:
            try:
                signal.signal(signal.SIGTERM, previous)
            except (ValueError, OSError):
                pass
