"""The ``symssm`` command line.

Every failure a user can cause ends with one line ``symssm: error: ...`` and
exit code 2 (1 for a certificate that parses but does not verify, or a system
that has no decay certificate); Ctrl-C exits 130.  Outputs are written to a
temporary file and renamed, so nothing half-written is left behind.
"""

import argparse
import os
import sys

from ._version import __version__
from .errors import BudgetExceeded, SymssmError

__all__ = ["main"]

PROG = "symssm"


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line and exit code 2."""

    def error(self, message):
        raise SymssmError(f"{message} (see '{self.prog} --help')")


def _positive_int(text):
    from .rationals import int_from_digits

    if not text.isascii() or not text.isdigit() or len(text) > 40:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer (at most 40 digits), got {text!r}")
    return int_from_digits(text)


def _seconds(text):
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return value


def _add_system_source(p):
    p.add_argument("spec", nargs="?", help="system spec JSON file (or use --family)")
    p.add_argument("--family", help="a built-in family instead of a spec (see 'symssm families')")
    p.add_argument("--N", type=_positive_int, dest="family_N", help="family state dimension")
    p.add_argument("--p", type=_positive_int, dest="family_p", default=None, help="family output dimension")
    p.add_argument("--m", type=_positive_int, dest="family_m", default=None, help="family input dimension")
    p.add_argument("--seed", type=_positive_int, dest="family_seed", default=None, help="seed (random family)")
    p.add_argument("-n", type=_positive_int, dest="n", default=None, help="sequence length (default: the spec's n, else T)")


def _load_system(args):
    """(system, n, stem) from a spec file or a family."""
    if (args.spec is None) == (args.family is None):
        raise SymssmError("give exactly one of a SPEC file or --family NAME")
    if args.family is not None:
        from .families import family_system

        system = family_system(args.family, N=args.family_N, p=args.family_p, m=args.family_m,
                               seed=args.family_seed)
        return system, args.n, system.name
    from .spec import read_spec

    spec = read_spec(args.spec)
    n = args.n if args.n is not None else spec.n
    stem = os.path.splitext(os.path.basename(args.spec))[0]
    return spec.system, n, stem


def _describe(system):
    name = system.name or "(unnamed system)"
    return f"{name}: N = {system.N}, m = {system.m}, p = {system.p}{', D present' if system.has_D else ''}"


def head_count_summary(cert):
    """Short human summary of a head-count certificate (lines of text)."""
    k, n = cert["head_count"], cert["n"]
    prof = cert["profile"]
    hf = cert["holds_for"]
    lb = cert["lower_bound"]
    vals = prof["values"]
    shown = ", ".join(map(str, vals[:12])) + (", ..." if len(vals) > 12 else "")
    upto = f"for every n from {hf['from']}" + (f" to {hf['to']}" if hf["to"] is not None else " on")
    lines = [
        f"k({n}) = {k}: exactly {k} attention head{'s' if k != 1 else ''} necessary and sufficient "
        f"on length-{n} sequences ({upto})",
        f"profile: k(1..{len(vals)}) = {shown}; k(n) = {prof['eventual']} for all n >= {prof['constant_from']}",
    ]
    if k >= 2:
        lines.append(f"Interaction Rank Gap: single-head attention fails; every H < {k} fails "
                     f"(H = {', '.join(str(h) for h in range(min(k, 8)))}{', ...' if k > 8 else ''})")
    elif k == 1:
        lines.append("a single head suffices (H = 0 fails)")
    if k:
        if lb["method"] == "exact":
            det = lb["determinant"]
            lines.append(f"witness: exact {k}x{k} minor of lags {lb['lags'][:k]}, det = {det if len(det) < 60 else det[:57] + '...'}")
        else:
            lines.append(f"witness: {len(lb['lags'])}x{len(lb['lags'])} minor nonzero modulo the prime {lb['prime']}")
    return lines


def _write(path, text):
    from .jsonio import atomic_write

    atomic_write(path, text)


def _cmd_certify(args):
    from .certification import certify

    system, n, stem = _load_system(args)
    cert = certify(system, n, method=args.method, max_seconds=args.max_seconds)
    out = args.output or f"{stem}.cert.json"
    _write(out, cert.to_json())
    print(_describe(system))
    for line in head_count_summary(cert):
        print(line)
    if not args.no_verify:
        result = cert.check()
        if not result.verified:  # pragma: no cover - a generator bug
            raise SymssmError(f"internal error: the checker rejected the new certificate: {result.message}")
        print(f"certificate: {out} (verified by the independent checker)")
    else:
        print(f"certificate: {out}")
    return 0


def _cmd_check(args):
    from .checker.cli import main as check_main

    argv = [args.certificate] + (["--spec", args.spec] if args.spec else [])
    if args.max_seconds:
        argv += ["--max-seconds", str(args.max_seconds)]
    return check_main(argv, prog=f"{PROG} check")


def _cmd_demo(args):
    from .certification import certify
    from .examples import DEMO_NAMES, example

    out = args.out
    os.makedirs(out, exist_ok=True)
    print(f"symssm {__version__} demo: exact head counts with independently checked certificates\n")
    for name in DEMO_NAMES:
        ex = example(name)
        system = ex.system
        n = 8
        cert = certify(system, n)
        path = os.path.join(out, f"{name}.cert.json")
        _write(path, cert.to_json())
        verdict = cert.check()
        print(f"== {ex.description}")
        print("   " + _describe(system))
        for line in head_count_summary(cert):
            print("   " + line)
        print(f"   {path}: {'VERIFIED' if verdict.verified else 'REJECTED: ' + verdict.message}\n")
        if not verdict.verified:  # pragma: no cover
            return 1
    print(f"Re-check any of them with: symssm check {os.path.join(out, DEMO_NAMES[0] + '.cert.json')}")
    return 0


def _verified_certificate(path):
    """Load a certificate and verify it; a rejected one is an error (exit 1)."""
    from .loading import load_certificate

    cert = load_certificate(path)
    result = cert.check()
    if not result.verified:
        err = SymssmError(f"certificate {path} does not verify, refusing to render it: {result.message}")
        err.exit_code = 1
        raise err
    return cert


def _cmd_latex(args):
    from .latex import render

    cert = _verified_certificate(args.certificate)
    text = render(cert, standalone=args.standalone, macros=args.macros, prefix=args.prefix)
    if args.output:
        _write(args.output, text)
    else:
        sys.stdout.write(text)
    return 0


#: Sequence length of the gradient and numeric commands when neither -n nor the spec gives one.
DEFAULT_N = 1000


def _verified_gradient(args):
    """(system, n, stem, certificate): a gradient certificate re-checked by the independent checker."""
    from .gradient import gradient_certificate

    system, n, stem = _load_system(args)
    n = n if n is not None else DEFAULT_N
    cert = gradient_certificate(system, n, max_seconds=args.max_seconds)
    result = cert.check()
    if not result.verified:  # pragma: no cover - a generator bug
        raise SymssmError(f"internal error: the checker rejected the new certificate: {result.message}")
    return system, n, stem, cert


def _cmd_gradient(args):
    system, n, stem, cert = _verified_gradient(args)
    out = args.output or f"{stem}.gradient.json"
    _write(out, cert.to_json())
    d = cert.data
    delta = d["crossover_distance"]
    print(_describe(system))
    print(f"SSM decay: ||L_d||_F <= K r^d for d >= 1 with r = {d['decay_rate']} "
          f"(spectral radius about {d['spectral_radius_estimate']}), K^2 = {d['decay_constant_squared']}")
    print(f"attention highway: ||dy_i/dx_j||_F >= c = {d['attention_lower_bound']} for every distance 1..{n - 1}")
    print("crossover: " + (f"attention provably carries more gradient from distance {delta} on (up to n = {n})"
                           if delta is not None else f"none certified within n = {n}"))
    cg = d["computation_graph"]
    print(f"computation graph: x_j -> y_i takes i - j + 2 edges in the SSM ({', '.join(map(str, cg['ssm_path_edges'][1:6]))}, ...), "
          f"{cg['attention_path_edges'][1]} in attention")
    print(f"certificate: {out} (verified by the independent checker)")
    return 0


def _load_numeric_source(args):
    """(float system, n, stem) for the numeric commands: a spec (decimals welcome) or a family."""
    from .numeric import NamedFloatSystem, read_numeric_spec

    if args.family is not None or args.spec is None:
        return _load_system(args)  # families are exact; it also reports a missing or doubled source
    (A, B, C, D), n, name = read_numeric_spec(args.spec)
    n = args.n if args.n is not None else n
    stem = os.path.splitext(os.path.basename(args.spec))[0]
    return NamedFloatSystem(A, B, C, D, name), n, stem


def _cmd_numeric(args):
    import json

    from .numeric import numeric_head_count

    system, n, _ = _load_numeric_source(args)
    n = n if n is not None else DEFAULT_N
    res = numeric_head_count(system, n, tol=args.tol, device=args.device)
    if args.json:
        sys.stdout.write(json.dumps(res.to_json_data(), indent=2, sort_keys=True) + "\n")
        return 0
    k = res.numerical_head_count
    s = res.singular_values
    gap = ("infinite (no singular value below the tolerance)" if res.gap is None else f"{res.gap:.3e}")
    print(f"NUMERICAL RESULT (float64 on {res.backend}, device {res.device}): not a certificate")
    print(f"system: {res.name or '(unnamed)'}, n = {n}")
    print(f"numerical head count k = {k} at relative tolerance tau = {res.tolerance:g}; gap s_k/s_(k+1) = {gap}")
    print("singular values of the normalised lag stack: " + ", ".join(f"{v:.3e}" for v in s[:16])
          + (", ..." if len(s) > 16 else ""))
    print(f"best H-head relative error of the length-{n} operator ({res.approximation_method}):")
    for H, e in enumerate(res.approximation_error):
        print(f"  H = {H:3d}: {e:.3e}")
    print("For an exact, certified head count: symssm certify SPEC (exact entries).")
    return 0


def _cmd_plot(args):
    from .plot import plot_gradient, plot_heads

    if args.what == "gradient":
        plot_gradient(_verified_gradient(args)[3], args.output)
    else:
        from .numeric import numeric_head_count

        system, n, _ = _load_numeric_source(args)
        plot_heads([numeric_head_count(system, n if n is not None else DEFAULT_N)], args.output)
    print(f"wrote {args.output}")
    return 0


def _cmd_catalog(args):
    from .catalog import build_catalog

    records = build_catalog(args.out, progress=(lambda name: print(f"  {name}", flush=True)) if args.verbose else None)
    files = sum(2 + (2 if r["gradient"] else 0) for r in records)
    print(f"catalogue: {len(records)} cases, {files} files and README.md written to {args.out}")
    return 0


def build_parser():
    parser = _Parser(prog=PROG, description="Exact, certified head counts for linear state space models "
                                            "(arXiv:2512.15115).")
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser, metavar="COMMAND")

    p = sub.add_parser("certify", help="certify the exact head count k(n) of a system")
    _add_system_source(p)
    p.add_argument("-o", "--output", help="certificate file (default SPEC-STEM.cert.json)")
    p.add_argument("--method", choices=("auto", "exact", "modular"), default="auto")
    p.add_argument("--max-seconds", type=_seconds, default=None, help="stop cleanly after this budget")
    p.add_argument("--no-verify", action="store_true", help="skip re-checking the certificate after writing it")
    p.set_defaults(run=_cmd_certify)

    p = sub.add_parser("check", help="verify a certificate with the independent checker")
    p.add_argument("certificate")
    p.add_argument("--spec", help="also require the certificate to be about this spec's system")
    p.add_argument("--max-seconds", type=_seconds, default=None)
    p.set_defaults(run=_cmd_check)

    p = sub.add_parser("demo", help="certify built-in examples and check the certificates")
    p.add_argument("--out", default="symssm-demo", help="folder for the certificates (default ./symssm-demo)")
    p.set_defaults(run=_cmd_demo)

    p = sub.add_parser("latex", help="typeset a (verified) certificate as a theorem with its proof")
    p.add_argument("certificate")
    p.add_argument("-o", "--output", help="output .tex file (default: standard output)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--standalone", action="store_true", help="a complete document for pdflatex")
    mode.add_argument("--macros", action="store_true", help="only \\newcommand definitions of the certified numbers")
    p.add_argument("--prefix", default="Symssm", help="macro name prefix, letters only (default Symssm)")
    p.set_defaults(run=_cmd_latex)

    p = sub.add_parser("gradient", help="certify gradient decay (SSM) against a gradient highway (attention)")
    _add_system_source(p)
    p.add_argument("-o", "--output", help="certificate file (default SPEC-STEM.gradient.json)")
    p.add_argument("--max-seconds", type=_seconds, default=None)
    p.set_defaults(run=_cmd_gradient)

    p = sub.add_parser("numeric", help="numerical head count and H-head error curve (floats; not a certificate)")
    _add_system_source(p)
    p.add_argument("--tol", type=float, default=1e-10, help="relative tolerance of the numerical rank (default 1e-10)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--max-seconds", type=_seconds, default=None, help="stop cleanly after this budget")
    p.set_defaults(run=_cmd_numeric)

    p = sub.add_parser("catalog", help="regenerate the certified catalogue of built-in families")
    p.add_argument("--out", default="certificates", help="folder (default ./certificates)")
    p.add_argument("-v", "--verbose", action="store_true")
    p.add_argument("--max-seconds", type=_seconds, default=None, help="stop cleanly after this budget")
    p.set_defaults(run=_cmd_catalog)

    p = sub.add_parser("plot", help="figures: 'heads' (error vs. H) or 'gradient' (norm vs. distance)")
    p.add_argument("what", choices=("heads", "gradient"))
    _add_system_source(p)
    p.add_argument("-o", "--output", required=True, help="PNG file")
    p.add_argument("--max-seconds", type=_seconds, default=None, help="stop cleanly after this budget")
    p.set_defaults(run=_cmd_plot)

    return parser


class _Budget:
    """Wall-clock budget for a whole command (SIGALRM where available), on top of the engines' own checks."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.armed = False

    def __enter__(self):
        import signal

        if self.seconds and hasattr(signal, "setitimer"):
            def expire(signum, frame):
                raise BudgetExceeded(f"stopped after the --max-seconds budget of {self.seconds:g} s")

            self.previous = signal.signal(signal.SIGALRM, expire)
            signal.setitimer(signal.ITIMER_REAL, self.seconds)
            self.armed = True
        return self

    def __exit__(self, *exc):
        if self.armed:
            import signal

            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.previous)
        return False


def main(argv=None):
    """Run the command line; returns the exit code."""
    try:
        parser = build_parser()
        args = parser.parse_args(argv)
        if getattr(args, "run", None) is None:
            parser.print_help()
            return 2
        with _Budget(getattr(args, "max_seconds", None) if args.command != "check" else None):
            return args.run(args)
    except SymssmError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return exc.exit_code
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except OSError as exc:
        where = f" {exc.filename}" if exc.filename else ""
        print(f"{PROG}: error: cannot access{where}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except MemoryError:
        print(f"{PROG}: error: out of memory (try a smaller system or --method modular)", file=sys.stderr)
        return 2
    except RecursionError:
        print(f"{PROG}: error: input nests too deeply", file=sys.stderr)
        return 2
    except Exception as exc:  # last resort: never a traceback (SYMSSM_DEBUG=1 shows it)
        if os.environ.get("SYMSSM_DEBUG"):
            raise
        print(f"{PROG}: error: internal error, please report it with the input: {type(exc).__name__}: "
              f"{str(exc)[:200]}", file=sys.stderr)
        return 2
