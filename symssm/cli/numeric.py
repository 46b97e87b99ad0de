"""The numeric commands (floats; not certificates): ``numeric``, ``plot`` and ``model``."""

import os
import sys

from ..errors import InputError, SymssmError
from .certify import verified_gradient
from .common import EVERY_SHAPE, NUMERIC_SHAPES, NUMERIC_TAKER, check_output, load_system, safe
from .options import (DEFAULT_N, DISCRETIZATION_NAMES, TRANSFORM_NAMES, add_budget, add_length, add_out,
                      add_system_source, add_tolerances, relative_error)

__all__ = ["add_numeric", "run_numeric", "add_plot", "run_plot", "add_model", "run_model"]


def add_numeric(p):
    add_system_source(p, default_n=f"the spec's n, else {DEFAULT_N}")
    add_tolerances(p)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                   help="array backend: cpu (numpy, default) or cuda (CuPy on a GPU; needs the gpu extra)")
    add_budget(p)


def add_plot(p):
    p.add_argument("what", choices=("heads", "gradient"), metavar="heads|gradient",
                   help="heads: best H-head error against H; gradient: certified decay against distance")
    add_system_source(p, default_n=f"the spec's n, else {DEFAULT_N}")
    add_out(p, "figure file: .png, .pdf or .svg", required=True)
    p.add_argument("--tolerance", "--tol", dest="tolerance", type=relative_error, default=None, metavar="EPS",
                   help="heads: draw the tolerance, the numerical head count at it (the least H with e_H <= EPS) and, "
                        "for an exact system within the limits, the certified error brackets (docs/numeric.md)")
    add_budget(p)


def add_model(p):
    p.add_argument("checkpoint", metavar="CHECKPOINT",
                   help=".npz, .safetensors or PyTorch .pt/.bin state dict, or a folder with config.json and its "
                        "weights (Hugging Face or state-spaces/mamba layout)")
    add_length(p, "1024")
    p.add_argument("--tokens", metavar="IDS", type=token_ids, default=None,
                   help="token ids, comma-separated: the selective layers (Mamba, Mamba-2) and the linear-recurrence "
                        "layers are evaluated on their embeddings (default: a seeded standard-normal hidden state)")
    p.add_argument("--input-length", metavar="L", type=input_length, default=None,
                   help="tokens of the seeded synthetic input (default 32); a linear-recurrence layer's blocks take "
                        "L(L+1)/2 x d_model^2 floats, so wide layers need a short input")
    add_tolerances(p, certified=True)
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
    add_budget(p)


def token_ids(text):
    """``--tokens``: comma-separated non-negative integers, 1 to 4096 of them (argparse reports a refusal)."""
    import argparse

    parts = [p.strip() for p in str(text).split(",") if p.strip()]
    if not parts or len(parts) > 4096 or not all(p.isdigit() and len(p) <= 12 for p in parts):
        raise argparse.ArgumentTypeError(f"must be 1 to 4096 comma-separated token ids (non-negative integers), got "
                                         f"{str(text)[:60]!r}")
    return [int(p) for p in parts]


def input_length(text):
    """``--input-length``: an integer from 1 to 1024 (argparse reports a refusal)."""
    import argparse

    if not str(text).isdigit() or not 1 <= int(text) <= 1024:
        raise argparse.ArgumentTypeError(f"must be an integer from 1 to 1024, got {str(text)[:60]!r}")
    return int(text)


def load_numeric_source(args):
    """(system, n, inputs) for the numeric commands: a spec (decimals welcome, read as floats), a layer, or a
    family (exact)."""
    system, n, _stem_, inputs = load_system(args, accept=NUMERIC_SHAPES, floats=True, taker=NUMERIC_TAKER)
    from ..sources.reader import FloatSpec

    if isinstance(system, FloatSpec):
        from ..numeric.headcount import NamedFloatSystem, as_float_system

        system = NamedFloatSystem(*as_float_system(system.A, system.B, system.C, system.D), system.name)
    return system, n, inputs


def run_numeric(args):
    import json

    from ..numeric.headcount import numeric_head_count
    from ..render.summary import numeric_summary

    from ..sources.layers import Layer

    system, n, _ = load_numeric_source(args)
    if isinstance(system, Layer):
        from ..numeric.interaction import numeric_interaction_rank

        res = numeric_interaction_rank(system, tolerance=tolerance_or_default(args), rank_tol=args.lag_rank_tol)
        if args.json:
            sys.stdout.write(json.dumps(res.to_json_data(), indent=2, sort_keys=True) + "\n")
            return 0
        from ..render.summary import curve_text

        gap = "infinite (nothing below the tolerance)" if res.gap is None else f"{res.gap:.3e}"
        print("NUMERICAL RESULT (float64): not a certificate")
        print(f"numerical interaction rank r = {res.numerical_rank}: the least H whose best H-head relative error is "
              f"at most {res.tolerance:g}; gap s_r/s_(r+1) = {gap}")
        print(f"best H-head relative error, H = 0..{res.numerical_rank}: "
              + curve_text(res.approximation_error, res.approximation_error_cut))
        print(f"normalised-row rank (diagnostic, threshold {float(args.lag_rank_tol):g}): {res.normalised_rank}")
        print("For an exact, certified interaction rank: symssm certify SPEC (exact entries).")
        return 0
    n = n if n is not None else DEFAULT_N
    res = numeric_head_count(system, n, tolerance=tolerance_or_default(args), lag_rank_tol=args.lag_rank_tol,
                             device=args.device)
    if args.json:
        sys.stdout.write(json.dumps(res.to_json_data(), indent=2, sort_keys=True) + "\n")
        return 0
    for line in numeric_summary(res, n):
        print(line)
    return 0


def tolerance_or_default(args):
    from ..numeric.headcount import DEFAULT_TOL

    return args.tolerance if args.tolerance is not None else DEFAULT_TOL  # a Tolerance, read once by the parser


def exact_for_plot(args):
    """The exact system of ``plot heads --tolerance`` (its certified brackets), or None with the reason."""
    try:
        system, _n, _stem_, _inputs = load_system(args, accept=EVERY_SHAPE)
    except SymssmError as exc:
        return None, str(exc)
    from ..sources.system import SSM

    if not isinstance(system, SSM) and type(system).__name__ != "ComplexSSM":
        return None, "certified brackets are drawn for time-invariant systems"
    return system, None


def run_plot(args):
    from ..render.plot import figure_format, plot_gradient, plot_heads

    figure_format(args.output)
    if args.spec is not None:
        check_output(args.output, (args.spec,))
    if args.what == "gradient":
        _system, _n, _stem_, inputs, cert = verified_gradient(args)
        plot_gradient(cert, args.output, inputs=inputs)
        print(f"wrote {safe(args.output)}")
        return 0
    from ..numeric.headcount import DEFAULT_TOL, numeric_head_count
    from ..sources.layers import Layer

    system, n, inputs = load_numeric_source(args)
    if isinstance(system, Layer):
        raise InputError("plot heads draws the error curve of a time-invariant system; for a layer, 'symssm numeric "
                         "SPEC' reports its interaction rank and curve")
    n = n if n is not None else DEFAULT_N
    tolerance = args.tolerance if args.tolerance is not None else None
    res = numeric_head_count(system, n, tolerance=tolerance if tolerance is not None else DEFAULT_TOL)
    certified, note = None, None
    if tolerance is not None:  # the numeric count at EPS, and the certified brackets where the system is exact
        from ..api import certify

        exact, note = exact_for_plot(args)
        if exact is not None:
            try:
                cert = certify(exact, n, tolerance=tolerance)
            except SymssmError as exc:
                note = str(exc)
            else:  # verified by the independent checker
                certified = cert.data
    plot_heads([res], args.output, inputs=inputs, certified=certified,
               tolerance=float(tolerance) if tolerance is not None else None)
    print(f"wrote {safe(args.output)}")
    if tolerance is not None:
        from ..render.summary import count_text

        print(f"numerical head count {res.numerical_head_count if res.resolved else count_text(res)} at tolerance "
              f"{tolerance.text}"
              + ("; certified brackets drawn (verified by the independent checker)" if certified is not None else
                 f"; no certified brackets: {safe(note)}"))
    return 0


def run_model(args):
    import json

    from ..formats.limits import check_n
    from ..formats.progress import Progress, on_terminal, reporting
    from ..numeric.headcount import DEFAULT_TOL
    from ..numeric.models import MAMBA_TOKENS, analyse_model
    from ..render.summary import model_summary
    from ..sources.architectures import model_map
    from ..sources.checkpoints import Checkpoint, Conventions

    n = args.n if args.n is not None else 1024
    check_n(n, minimum=1, maximum=10 ** 12, what="-n (the sequence length of a trained layer's operator)")
    if args.plot:
        from ..render.plot import figure_format

        figure_format(args.plot)
        check_output(args.plot, (args.checkpoint,))
    conventions = Conventions(discretization=args.discretization, dt_transform=args.dt_transform,
                              real_transform=args.real_transform, imag_transform=args.imag_transform)
    tolerance = args.tolerance
    if args.certificates is not None:
        if tolerance is None:
            raise InputError("--certificates needs --tolerance EPS: the certified eps-head counts are proven at that "
                             "relative error")
        if os.path.exists(args.certificates) and not os.path.isdir(args.certificates):
            raise InputError(f"--certificates {safe(args.certificates)} is not a folder")
    given = tolerance if tolerance is not None else DEFAULT_TOL  # the Tolerance itself: read once, by the parser
    value = float(given)
    ckpt = Checkpoint(args.checkpoint)  # headers and config.json only; tensors are read layer by layer
    entries = model_map({k: ckpt.shape(k) for k in ckpt.names}, ckpt.config)
    with Progress(len(entries), "symssm model", "layer", enabled=on_terminal() and len(entries) > 0) as bar:
        def progress(name, done, total):
            if name is not None:
                bar.describe(name)
            bar.update_to(done)

        report = analyse_model(args.checkpoint, n, tolerance=value, lag_rank_tol=args.lag_rank_tol,
                               conventions=conventions, tokens=args.tokens,
                               length=args.input_length or MAMBA_TOKENS, ckpt=ckpt, entries=entries,
                               progress=progress if bar.bar is not None else None)
    report["conventions"] = conventions.as_json()
    certified = None
    if args.certificates is not None:
        with reporting("symssm model: certifying", "bracket"):
            certified = certify_layers(args, report, n, tolerance, lti_layers(ckpt, entries), conventions)
    if args.plot:
        from ..render.plot import plot_model

        plot_model(report, args.plot, inputs=(args.checkpoint,), certified=certified)
    if args.json:
        sys.stdout.write(json.dumps(report, indent=2, sort_keys=True, default=str) + "\n")
        return 0
    for line in model_summary(report, value):
        print(line)
    return 0


def lti_layers(ckpt, entries):
    """The checked S4D / S4 / S5 / LRU layers of a model map, their tensors read (for the certificates)."""
    from ..sources.architectures import LTI_KINDS
    from ..sources.checkpoints import CheckpointLayer, check_layer

    out = []
    for e in entries:
        if e.kind in LTI_KINDS and not e.reason:
            data = ckpt.read(list(e.keys.values()))
            out.append(check_layer(CheckpointLayer(e.name, e.kind, {s: data[k] for s, k in e.keys.items()})))
    return out


def layer_file(name, taken):
    """A certificate file name for a layer name: its characters outside A-Z a-z 0-9 . _ - as '_', made unique."""
    import re

    stem = re.sub(r"[^A-Za-z0-9._-]", "_", name).strip(".")[:120] or "layer"
    candidate, k = f"{stem}.cert.json", 2
    while candidate in taken:
        candidate, k = f"{stem}-{k}.cert.json", k + 1
    taken.add(candidate)
    return candidate


def certify_layers(args, report, n, tolerance, layers, conventions=None):
    """``model --tolerance EPS --certificates DIR``: certify every S4D / S4 / S5 / LRU layer, write the certificates,
    extend the report; returns each layer's certificate data (None where none)."""
    from ..api import certify_checkpoint
    from ..formats.rationals import format_rational

    results = certify_checkpoint(args.checkpoint, n, tolerance, layers=layers, conventions=conventions)
    os.makedirs(args.certificates, exist_ok=True)
    taken = set()
    report["certified_tolerance"] = format_rational(tolerance)
    by_name = {layer["name"]: layer for layer in report["layers"]}
    drawn_by_name = {}
    for name, cert, reason in results:
        layer = by_name[name]
        drawn_by_name[name] = None if cert is None else cert.data
        if cert is None:
            note = reason if layer["kind"][:5] != "mamba" else (
                "not certified: a Mamba layer's lags depend on its input (the numerical rank is on a seeded input)")
            layer.update(certified_head_count=None, certificate=None, certificate_note=note)
            continue
        path = os.path.join(args.certificates, layer_file(name, taken))
        cert.save(path, inputs=(args.checkpoint,))
        data = cert.data
        layer.update(certified_head_count=data["head_count"], certificate=path,
                     certified_undecided_at=data["undecided_at"],
                     certified_errors=[{"H": e["H"], "lower": e["lower"], "upper": e["upper"]} for e in data["errors"]])
    for layer in report["layers"]:
        if layer["kind"] in ("mamba", "mamba2"):
            layer.update(certified_head_count=None, certificate=None, certificate_note=(
                "not certified: a Mamba layer's operator depends on its input (the numerical rank is on one input)"))
    return [drawn_by_name.get(layer["name"]) for layer in report["layers"]]


