"""The commands about the built-in collections: ``catalog``, ``framework`` and ``families``."""

from .common import safe
from .options import add_budget, add_out, count, length

__all__ = ["add_catalog", "run_catalog", "add_framework", "run_framework", "add_families", "run_families"]


def add_catalog(p):
    add_out(p, "folder (default ./certificates)", default="certificates")
    p.add_argument("-v", "--verbose", action="store_true", help="name each certificate as it is written")
    add_budget(p)


def add_framework(p):
    p.add_argument("--seed", type=count, default=0, metavar="SEED",
                   help="seed of the shared input and parameters (default 0)")
    p.add_argument("-n", "--length", "--tokens", "--n", type=length, dest="tokens", default=6, metavar="LENGTH",
                   help="sequence length, the number of tokens (default 6)")
    p.add_argument("-m", "--inputs", "--m", type=count, dest="m", default=2, metavar="INPUTS",
                   help="token dimension m, and p = m (default 2)")
    add_out(p, "folder for the certificates, their LaTeX and the table (default: print the table only)")
    add_budget(p)


def add_families(p):
    """``families`` takes no option."""


def run_catalog(args):
    from ..catalog import build_catalog, catalog_files

    records = build_catalog(args.output, progress=(lambda name: print(f"  {name}", flush=True)) if args.verbose else None)
    print(f"catalogue: {len(records)} cases, {len(catalog_files(records))} files written to {safe(args.output)}")
    return 0


def run_framework(args):
    from ..catalog import build_framework

    from ..formats.progress import reporting

    with reporting("symssm framework", "layer"):
        rows = build_framework(args.output, seed=args.seed, n=args.tokens, m=args.m)
    print(f"the unified framework on one seeded input (seed {args.seed}, n = {args.tokens} tokens, p = m = {args.m}); "
          "every r is certified and independently checked:")
    width = max(len(label) for label, _, _, _ in rows)
    for label, bound, cert, every in rows:
        print(f"  {label:<{width}}  r = {cert['interaction_rank']}   ({bound})")
        print(f"  {'':<{width}}  for all inputs: {every[0]}")
    if args.output:
        print(f"certificates, LaTeX and framework.md written to {safe(args.output)}")
    return 0


def run_families(args):
    from ..sources.families import FAMILIES, FAMILY_NOTES

    print("Built-in families (symssm certify|gradient|numeric|plot --family NAME -N N [-p P -m M]; "
          "see docs/families.md):")
    from ..sources.parametric import PARAMETRIC_FAMILIES, PARAMETRIC_NOTES

    width = max(map(len, list(FAMILIES) + list(PARAMETRIC_FAMILIES)))
    for name in FAMILIES:
        print(f"  {name:<{width}}  {FAMILY_NOTES[name]}")
    print("\nFamilies with parameters (symssm certify --family NAME [--N N] -n N: a certificate for every parameter "
          "value; see docs/parametric.md):")
    for name in PARAMETRIC_FAMILIES:
        print(f"  {name:<{width}}  {PARAMETRIC_NOTES[name]}")
    return 0


