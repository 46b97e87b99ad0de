"""The commands that take a certificate: ``check``, ``latex``, ``coq`` and ``audit`` (a paper's certificates)."""

import os

from ..errors import CertificateError, OutputError
from .common import check_output, emit, safe
from .options import PROG, add_budget, add_out

__all__ = ["add_check", "run_check", "add_latex", "run_latex", "add_audit", "run_audit", "add_coq", "run_coq"]


def add_check(p):
    p.add_argument("certificate", metavar="CERT", help="certificate JSON file")
    p.add_argument("--spec", metavar="SPEC", help="also require the certificate to be about this spec's system")
    add_budget(p, "give up, undecided (exit 2), after this many seconds")
    p.add_argument("--at", metavar="NAME=VALUE,...", help="for a family certificate: what it proves at this "
                   "parameter point (rational values, e.g. a=1/2,b=3)")
    p.add_argument("--json", action="store_true", help="print the verdict (and the --at answer) as one JSON object")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing, only set the exit code")


def run_check(args):
    from ..checker.cli import main as check_main

    # values as --option=VALUE and the certificate after --: no file name is ever read as an option
    argv = ([f"--spec={args.spec}"] if args.spec else []) + ([f"--at={args.at}"] if args.at is not None else [])
    argv += (["--json"] if args.json else []) + (["--quiet"] if args.quiet else [])
    if args.max_seconds:
        argv += [f"--max-seconds={args.max_seconds!r}"]
    if not args.json:
        return check_main(argv + ["--", args.certificate], prog=f"{PROG} check")
    return _check_json(check_main, argv, args.certificate)


def _check_json(check_main, argv, path):
    """``check --json``: the checker's JSON object, with the claim it verified (``"claim"``, from
    :func:`symssm.render.claims.claim`) when the verdict is ``verified``."""
    import contextlib
    import io
    import json

    from ..formats.jsonio import load_strict
    from ..render.claims import claim

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = check_main(argv + ["--", path], prog=f"{PROG} check")
    text = out.getvalue()
    try:
        verdict = json.loads(text)
    except ValueError:
        verdict = None
    if code == 0 and isinstance(verdict, dict) and verdict.get("verdict") == "verified":
        verdict["claim"] = claim(load_strict(path, what=f"certificate {path}")).to_json()
        text = json.dumps(verdict, sort_keys=True) + "\n"
    print(text, end="")
    return code


def verified_certificate(path):
    """Load a certificate and verify it once; a rejected one is an error (exit 1).

    Raises
    ------
    CertificateError
        If the checker rejects it (exit code 1) or cannot decide (exit code 2).
    """
    from ..api import load_certificate

    cert = load_certificate(path)
    result = cert.check()
    if not result.verified:
        err = CertificateError(f"certificate {safe(path)} does not verify, refusing to render it: {result.message}")
        err.exit_code = 1 if result.code == 1 else 2
        raise err
    return cert


def add_latex(p):
    p.add_argument("certificate", metavar="CERT", help="certificate JSON file (it must verify)")
    add_out(p, ".tex file to write (default: standard output)")
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


def run_latex(args):
    inputs = (args.certificate,)
    check_output(args.output, inputs)
    cert = verified_certificate(args.certificate)
    text = cert.to_latex(standalone=args.standalone, macros=args.macros, prefix=args.prefix, label=args.label,
                         environment=args.environment, theorem_name=args.theorem_name,
                         source=os.path.basename(args.certificate))
    emit(args.output or "-", text, inputs)
    return 0


def add_audit(p):
    from ..audit.report import add_arguments

    add_arguments(p)


def run_audit(args):
    from ..audit.report import run

    return run(args)


def add_coq(p):
    p.add_argument("certificate", metavar="CERT", help="a head-count certificate of a real system")
    p.add_argument("--route", choices=("auto", "exact", "reflect"), default="auto",
                   help="exact: binary integers, N <= 8, p m <= 16; reflect: primitive integers modulo a prime, "
                        "N <= 64, p m <= 256; auto (default): the route of lower estimated cost (docs/formal.md)")
    add_out(p, "folder for the Coq project (created if missing)")
    p.add_argument("--check", metavar="DIR", help="instead of writing a project: say whether the project in DIR "
                   "states this certificate's system and claim (exit 0 it does, 1 it does not, 2 unreadable)")


def run_coq(args):
    from ..api import load_certificate
    from ..errors import UsageError
    from ..formats.files import atomic_write
    from ..render.coq import coq_project

    if args.check is not None:
        if args.output is not None:
            raise UsageError("symssm coq takes --out DIR (write a project) or --check DIR (compare one), not both")
        return _check_coq(args)
    if args.output is None:
        raise UsageError("symssm coq needs --out DIR, the folder to write the project into (or --check DIR)")
    out = args.output
    if os.path.exists(out) and not os.path.isdir(out):
        raise OutputError(f"cannot write the Coq project into {safe(out)}: it is not a folder")
    cert = load_certificate(args.certificate)
    files = coq_project(cert, route=args.route)  # refuses (exit 1) a certificate that does not verify
    os.makedirs(out, exist_ok=True)
    for name in sorted(files):
        atomic_write(os.path.join(out, name), files[name], inputs=(args.certificate,))
    print(f"Coq project for '{safe(cert['system']['name'])}' written to {safe(out)} "
          f"(theorem symssm_head_count: k = {cert['head_count']})")
    print(f"build it with: cd {safe(out)} && coq_makefile -f _CoqProject -o Makefile && make")
    return 0


def _check_coq(args):
    from ..api import load_certificate
    from ..render.coq import verified_head_count
    from ..render.coqcheck import check_project

    cert = load_certificate(args.certificate)
    verified_head_count(cert)  # a certificate of another kind: exit 2; one that does not verify: exit 1
    code, message = check_project(args.check, cert.data)
    print(f"{safe(args.check)}: {safe(message)}")
    return code
