"""What the commands share: reading a system from a spec or a family, writing outputs, printing safely.

Examples
--------
>>> stem("docs/example/rotation.json")
'rotation'
"""

import os
import sys

from ..errors import InputError
from .options import family_names

__all__ = ["EVERY_SHAPE", "SYSTEMS", "NUMERIC_SHAPES", "NUMERIC_TAKER", "load_system", "stem", "emit", "check_output",
           "say", "safe"]

#: The spec shapes (symssm.sources.reader.SHAPES) each kind of command takes.
EVERY_SHAPE = ("npz", "parametric-layer", "layer", "family", "complex", "plain")
SYSTEMS = ("npz", "plain")
NUMERIC_SHAPES = ("npz", "plain", "layer")
NUMERIC_TAKER = "the numeric commands take"


def load_system(args, *, accept=SYSTEMS, floats=False, taker="this command takes"):
    """(system, n, stem, inputs) from a spec file or a built-in family, read by the one spec reader
    (:mod:`symssm.sources.reader`): ``accept`` the shapes this command takes, ``floats`` for the numeric commands.

    Raises
    ------
    InputError
        If neither or both of a spec and a family are given, the family is unknown or lacks its sizes, or the
        spec is not one of the shapes accepted.
    """
    from ..sources.reader import read_source, refuse

    if (args.spec is None) == (args.family is None):
        raise InputError("give exactly one of a SPEC file or --family NAME")
    if args.family is not None:
        from ..sources.parametric import PARAMETRIC_FAMILIES, parametric_family

        plain, symbolic = family_names()
        if args.family not in plain and args.family not in symbolic:
            raise InputError(f"unknown family {args.family[:40]!r}; choose one of {', '.join(plain)}, or, with "
                             f"parameters, {', '.join(symbolic)} (see 'symssm families')")
        if args.family not in symbolic and args.family_N is None:
            raise InputError(f"family {args.family} needs its state dimension: -N STATES (or --states)")
        if args.family in PARAMETRIC_FAMILIES:
            if "family" not in accept:
                raise refuse("family", f"family {args.family}", accept=accept, taker=taker)
            if args.family_seed is not None:
                raise InputError("--seed applies to the random family only")
            system = parametric_family(args.family, N=args.family_N, p=args.family_p, m=args.family_m)
            return system, args.n, args.family, ()
        from ..sources.families import family_system  # SymPy loads here, for the families without parameters

        system = family_system(args.family, N=args.family_N, p=args.family_p, m=args.family_m,
                               seed=args.family_seed)
        return system, args.n, system.name, ()
    source = read_source(args.spec, accept=accept, floats=floats, taker=taker)
    if source.shape in ("layer", "parametric-layer") and args.n is not None:
        raise InputError(f"spec {args.spec}: -n does not apply to a layer (its length is its input's length)")
    return source.system, (args.n if args.n is not None else source.n), stem(args.spec), source.inputs


def stem(path):
    """A spec's file name without folder and extension (``system`` if nothing is left)."""
    return os.path.splitext(os.path.basename(path))[0] or "system"


def emit(path, text, inputs):
    """Write ``text`` to ``path`` ('-': standard output) atomically, never over an input."""
    if path == "-":
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    from ..formats.files import atomic_write

    atomic_write(path, text, inputs=inputs)


def check_output(path, inputs):
    """Refuse a bad output path before any work is done."""
    if path not in (None, "-"):
        from ..formats.files import check_output_path

        check_output_path(path, inputs=inputs)


def say(args, line=""):
    """Print a report line, to standard error when the certificate itself goes to standard output."""
    print(line, file=sys.stderr if getattr(args, "output", None) == "-" else sys.stdout)


def safe(text):
    """``text`` with terminal control characters escaped (:func:`symssm.render.summary.terminal_safe`)."""
    from ..render.summary import terminal_safe

    return terminal_safe(text)
