"""The command line's vocabulary: the parser class, the readers of option values, the shared options.

One vocabulary for every subcommand (kept here, in one place):

- ``-o/--out PATH``: every file or folder a command writes (``--output``: the older spelling, kept)
- ``-n/--length N``: the sequence length (``--n`` kept)
- ``-N/--states``, ``-p/--outputs``, ``-m/--inputs``: the sizes of a family member (``--N``, ``--p``, ``--m`` kept)
- ``--seed SEED``, ``--max-seconds SECONDS``, ``--json``

Every option value is read here, once, into its typed value (an ``int``, a float of seconds, a
:class:`~symssm.formats.rationals.Tolerance`); the commands pass that value on and never parse it again.
Nothing heavy is imported: building the parser for ``symssm --help`` costs a few milliseconds.

Examples
--------
>>> count("12"), seconds("2.5")
(12, 2.5)
>>> relative_error("1e-3").text, float(relative_error("1/1000"))
('1e-3', 0.001)
"""

import argparse

from .._version import __version__
from ..errors import InputError, UsageError

__all__ = ["PROG", "DEFAULT_N", "Parser", "count", "length", "seconds", "relative_error", "FAMILY_NAMES",
           "PARAMETRIC_FAMILY_NAMES", "DISCRETIZATION_NAMES", "TRANSFORM_NAMES", "METHOD_HELP", "family_names",
           "add_out", "add_tolerances", "add_length", "add_budget", "add_system_source", "add_version"]

PROG = "symssm"
#: Sequence length of the gradient and numeric commands when neither -n nor the spec gives one.
DEFAULT_N = 1000


class Parser(argparse.ArgumentParser):
    """argparse without abbreviations that reports a usage error in one line and exit code 2."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message):
        raise UsageError(f"{message} (see '{self.prog} --help')")


def count(text):
    """A non-negative integer option (``-n``, ``-N``, ``--seed``, ``--workers``), at most 40 digits.

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not such a number (argparse turns it into a usage error).
    """
    from ..formats.rationals import int_from_digits

    if not text.isascii() or not text.isdigit() or len(text) > 40:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer (at most 40 digits), got {text[:60]!r}")
    return int_from_digits(text)


def length(text):
    """A sequence length option (``-n``): a positive integer, read by :func:`symssm.formats.limits.check_n`.

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not a positive integer (argparse turns it into a one-line usage error, exit code 2).

    Examples
    --------
    >>> length("8")
    8
    """
    from ..formats.limits import check_n

    if not text.isascii() or not text.isdigit() or len(text) > 40:
        raise argparse.ArgumentTypeError(f"the sequence length must be an integer >= 1 (at most 40 digits), "
                                         f"got {text[:60]!r}")
    value = count(text)
    try:
        return check_n(value, what="the sequence length", minimum=1, maximum=10 ** 40)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def seconds(text):
    """A positive, finite number of seconds (``--max-seconds``).

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not such a number.
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number of seconds, got {text[:60]!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text[:60]!r}")
    return value




def relative_error(text):
    """``--tolerance`` / ``--tol``: 1e-3, 0.001 or 1/1000, strictly between 0 and 1, read once into an exact
    :class:`~symssm.formats.rationals.Tolerance` (a Fraction that keeps its text).

    Raises
    ------
    argparse.ArgumentTypeError
        If ``text`` is not such a number.
    """
    from ..formats.rationals import parse_tolerance

    try:
        return parse_tolerance(text, what="")
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


#: The built-in families' names for the help texts (a test keeps them equal to the registries, which
#: load SymPy: importing those for every command's help cost 0.35 s of start-up).
FAMILY_NAMES = ("shift", "rotation", "diagonal", "companion", "jordan", "hippo-legs", "hippo-legt", "s4d-real", "random")
PARAMETRIC_FAMILY_NAMES = ("rotation-symbolic", "diagonal-symbolic", "companion-symbolic", "jordan-symbolic",
                           "hippo-legs-step", "hippo-legt-step", "s4d-real-step", "generic-symbolic")
#: The options a checkpoint does not record (kept equal to sources.checkpoints.DISCRETIZATIONS and TRANSFORMS by a
#: test, so that building the parser imports nothing heavy).
DISCRETIZATION_NAMES = ("zoh", "bilinear")
TRANSFORM_NAMES = ("exp", "softplus", "relu", "sigmoid", "none")

METHOD_HELP = ("how the witness minor is found: exact (fraction-free elimination over Q), modular (elimination "
               "modulo a prime, the minor still checked exactly or modulo a prime that divides no denominator), "
               "or auto (default: chosen by size)")


def family_names():
    """The plain families' names and those with parameters, as two lists."""
    return list(FAMILY_NAMES), list(PARAMETRIC_FAMILY_NAMES)


def _family_help():
    plain, symbolic = family_names()
    return (f"a built-in family instead of a spec: {', '.join(plain)}; with parameters (certify only): "
            f"{', '.join(symbolic)} (see 'symssm families')")


def add_version(p):
    """``--version`` on a parser."""
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}", help="print the version and exit")


def add_out(p, what, *, required=False, default=None):
    """``-o/--out PATH``: the file or folder a command writes."""
    p.add_argument("-o", "--out", "--output", dest="output", metavar="PATH", required=required, default=default,
                   help=what)


def add_tolerances(p, *, certified=False):
    """``--tolerance EPS`` and ``--lag-rank-tol TAU`` of the numeric commands."""
    p.add_argument("--tolerance", "--tol", dest="tolerance", type=relative_error, default=None, metavar="EPS",
                   help="relative error tau (default 1e-10): the numerical head count is the least H whose best "
                        "H-head approximation has relative error <= tau, the quantity the certified eps-head count "
                        "brackets" + ("; with --certificates, certified at this EPS too" if certified else "")
                        + " (--tol: the same)")
    p.add_argument("--lag-rank-tol", type=relative_error, default="1e-10", metavar="TAU",
                   help="singular-value threshold of the normalised-lag rank, a diagnostic reported beside the count "
                        "(default 1e-10)")


def add_length(p, default_text):
    """``-n/--length LENGTH``."""
    p.add_argument("-n", "--length", "--n", type=length, dest="n", default=None, metavar="LENGTH",
                   help=f"sequence length n (default: {default_text})")


def add_budget(p, text="stop cleanly (exit 2, nothing written) after this many seconds"):
    """``--max-seconds SECONDS``."""
    p.add_argument("--max-seconds", type=seconds, default=None, metavar="SECONDS", help=text)


def add_system_source(p, *, default_n):
    """A system: ``SPEC`` or ``--family NAME -N -p -m --seed``, and ``-n``."""
    p.add_argument("spec", nargs="?", metavar="SPEC",
                   help="system spec: a JSON file (docs/certificate-format.md) or an .npz archive; or use --family")
    p.add_argument("--family", metavar="NAME", help=_family_help())
    p.add_argument("-N", "--states", "--N", type=count, dest="family_N", metavar="STATES",
                   help="state dimension N of the family member")
    p.add_argument("-p", "--outputs", "--p", type=count, dest="family_p", default=None, metavar="OUTPUTS",
                   help="output dimension p of the family member (default 1)")
    p.add_argument("-m", "--inputs", "--m", type=count, dest="family_m", default=None, metavar="INPUTS",
                   help="input dimension m of the family member (default 1)")
    p.add_argument("--seed", type=count, dest="family_seed", default=None, metavar="SEED",
                   help="seed of the random family")
    add_length(p, default_n)
