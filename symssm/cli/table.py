"""The table of commands, and the parser built from it.

A command is one :class:`Command` row: its name, its help line, the function that adds its arguments to
its parser and the function that runs it (``run(args)`` returns the exit code), both named as
``"module:function"`` in this package and imported on first use: ``symssm certify ...`` imports the module
of ``certify`` alone, and ``symssm --help`` none.  :func:`build_parser` walks the table;
:func:`symssm.cli.main` runs the row of the command given.  Adding a command is one row here and its two
functions in the module of its group.

Examples
--------
>>> [row.name for row in COMMANDS][:3]
['certify', 'check', 'demo']
>>> build_parser().parse_args(["certify", "--family", "rotation", "-N", "2"]).family_N
2
"""

from collections import namedtuple
from importlib import import_module

from .options import PROG, Parser, add_version

__all__ = ["Command", "COMMANDS", "build_parser"]


class Command(namedtuple("Command", "name help arguments run")):
    """One command of ``symssm`` (an immutable row; a named tuple: ``dataclasses`` alone would add 20 ms to
    every start).

    Parameters
    ----------
    name : str
        The word that selects it (``symssm NAME``).
    help : str
        Its line in ``symssm --help``, and its description in ``symssm NAME --help``.
    arguments : str
        ``"module:function"``: ``function(parser)`` adds its positional arguments and options.
    run : str
        ``"module:function"``: ``function(args)`` does the work and returns the exit code.
    """

    __slots__ = ()

    def load(self, what):
        """The function ``arguments`` or ``run`` names, imported on first use."""
        module, name = getattr(self, what).split(":")
        return getattr(import_module(f"{__package__}.{module}"), name)


COMMANDS = (
    Command("certify", "certify the exact head count k(n) of a system (real or complex), a family with parameters "
            "for every parameter value, or the interaction rank of a layer on its input",
            "certify:add_certify", "certify:run_certify"),
    Command("check", "verify a certificate with the independent checker", "certificates:add_check",
            "certificates:run_check"),
    Command("demo", "certify built-in examples and check the certificates", "certify:add_demo", "certify:run_demo"),
    Command("latex", "typeset a (verified) certificate as a theorem with its proof", "certificates:add_latex",
            "certificates:run_latex"),
    Command("audit", "audit a paper's pages: compile PAPER.tex (or read PAPER.pdf) and check that every certified "
            "statement it includes is visibly on the pages as certified, glyph by glyph; prose numbers and images are "
            "listed (exit 0 only when every included certified statement is shown and nothing fails)",
            "certificates:add_audit", "certificates:run_audit"),
    Command("coq", "re-prove a (verified) head-count certificate in Coq/mathcomp: write a Coq project whose theorem "
            "symssm_head_count states the head count (N <= 64, p m <= 256); --check DIR says whether a project "
            "states the certificate's system and claim", "certificates:add_coq", "certificates:run_coq"),
    Command("gradient", "certify gradient decay (SSM) against a gradient highway (attention)", "certify:add_gradient",
            "certify:run_gradient"),
    Command("numeric", "numerical head count and H-head error curve (floats; not a certificate)", "numeric:add_numeric",
            "numeric:run_numeric"),
    Command("catalog", "regenerate the certified catalogue of built-in families", "catalogue:add_catalog",
            "catalogue:run_catalog"),
    Command("plot", "figures: 'heads' (error vs. H) or 'gradient' (norm vs. distance)", "numeric:add_plot",
            "numeric:run_plot"),
    Command("framework", "certified interaction ranks of feedforward, convolution, SSMs, Mamba-2 and attention side "
            "by side", "catalogue:add_framework", "catalogue:run_framework"),
    Command("batch", "certify many specs (one JSON object a line); resumable; processes or Dask", "certify:add_batch",
            "certify:run_batch"),
    Command("model", "every layer of a checkpoint (SSM, attention, MLP, MoE, hybrid blocks) and its highway map",
            "numeric:add_model", "numeric:run_model"),
    Command("families", "list the built-in families with their parameters and conventions", "catalogue:add_families",
            "catalogue:run_families"),
)


def build_parser(only=None):
    """The argument parser of ``symssm`` (every command; no abbreviations).

    Parameters
    ----------
    only : str, optional
        Give the arguments of this command alone (the one on the command line; ``""``: none, for ``symssm
        --help``): the other commands are listed with their help line, and their modules are not imported.

    Returns
    -------
    argparse.ArgumentParser
        Each command's parser has ``command`` (its name) as a default.
    """
    parser = Parser(prog=PROG, description="Exact, certified head counts for linear state space models "
                                           "(arXiv:2512.15115). 'symssm COMMAND --help' shows a command's options.")
    add_version(parser)
    sub = parser.add_subparsers(dest="command", parser_class=Parser, metavar="COMMAND")
    for row in COMMANDS:
        p = sub.add_parser(row.name, help=row.help, description=row.help)
        add_version(p)
        if only is None or row.name == only:
            row.load("arguments")(p)
    return parser

