"""The framework table (``symssm framework``) as LaTeX, from verified certificates alone.

Each row is an ``interaction-rank`` certificate of one architecture on the same seeded input, and,
where there is one, the ``parametric-interaction-rank`` certificate of the same layer for every
input.  The table is rendered from the certificates' data only (the row's label from the layer's
certified name and kind), between marker comments that list the certificates, so that
``symssm audit`` can re-check every certificate and re-render the table, as it does for a fragment.

Examples
--------
>>> table_marker([("a" * 64, None), ("b" * 64, "c" * 64)], seed=0, n=6, m=2).split(";")[1]
' certificates aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb+cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc'
>>> parse_table_options("--seed 3 -n 6 -m 2")
{'seed': 3, 'n': 6, 'm': 2}
"""

import hashlib
import re

from ..errors import InputError
from ..sources import layer_kinds
from .claims import claim, every_input_tex
from .style import certificate_sha256
from .tex import escape_text, system_name, tex_name

__all__ = ["FRAMEWORK_ROWS", "framework_table", "table_marker", "parse_table_options", "certificate_file",
           "row_label"]

#: The framework's rows: system name -> (label, structural bound, kind, blocks independent of the input).
FRAMEWORK_ROWS = {
    "feedforward": ("feedforward", "r <= 1 (W_ij = [i = j] W)", layer_kinds.OPERATOR.name, True),
    "convolution-L3": ("convolution, 3 taps", "r <= min(3, pm)", layer_kinds.CONVOLUTION.name, True),
    "ti-ssm-N4": ("time-invariant SSM, N = 4", "r = k(n) <= min(n, pm, N)", layer_kinds.SELECTIVE_SSM.name, True),
    "selective-ssm-N4": ("selective SSM (bilinear, per-token steps)", "r <= min(n(n+1)/2, pm)",
                         layer_kinds.SELECTIVE_SSM.name, False),
    "mamba2-head": ("Mamba-2 head (scalar gate)", "r <= 1 (W_ij = c (c_i . b_j) I)", layer_kinds.SELECTIVE_SSM.name,
                    False),
    "linear-attention-H2": ("linear attention, H = 2", "r <= min(H, pm)", layer_kinds.LINEAR_ATTENTION.name, False),
    "softmax-attention-H2": ("softmax attention, H = 2", "r <= min(H, pm)", layer_kinds.SOFTMAX_ATTENTION.name,
                             False),
    "gla-head": ("GLA head", "r <= 1 (W_ij = c_ij V)", layer_kinds.GLA.name, False),
    "gla-head-gated": ("GLA head + output gate", "r <= d_v (W_ij = c_ij G_i V)", layer_kinds.GLA.name, False),
    "retnet-H2": ("RetNet, H = 2", "r <= min(H, pm)", layer_kinds.RETNET.name, False),
    "gated-deltanet-conv": ("Gated DeltaNet head + short conv", "r <= d_v (W_ij = sum_l c_il D_l V)",
                            layer_kinds.GATED_DELTANET.name, False),
    "rwkv6-shift": ("RWKV-6 head + token shift", "r <= m (W_ij in span{V diag(d)})", layer_kinds.RWKV6.name, False),
}

_OPTIONS = re.compile(r"--seed ([0-9]{1,9}) -n ([0-9]{1,9}) -m ([0-9]{1,9})")


def certificate_file(data):
    """The file name ``symssm framework -o DIR`` gives a row's certificate: ``framework-NAME.json``."""
    return f"framework-{data['system']['name']}.json"


def row_label(data):
    """(LaTeX label, whether the row's blocks are independent of the input) of a row's certificate.

    The label is the architecture's name when the certified name and kind are one of the framework's
    rows, else the certified name itself (typeset literally).
    """
    s = data["system"]
    row = FRAMEWORK_ROWS.get(s["name"])
    if row is not None and row[2] == s["kind"]:
        return _SYMBOL.sub(lambda m: f"${m.group(1)} = {m.group(2)}$", escape_text(row[0])), row[3]
    return system_name(s["name"] or "unnamed"), layer_kinds.of(s["kind"]).input_free


#: A symbol set equal to a number in a row's label (``N = 4``), typeset as mathematics.
_SYMBOL = re.compile(r"\b([A-Za-z]) = ([0-9]+)\b")


def _file_tex(name):
    """A file name in typewriter type, breakable after each hyphen."""
    return "\\texttt{" + "-\\allowbreak{}".join(tex_name(part)[len("\\texttt{"):-1] for part in name.split("-")) + "}"


def table_marker(shas, *, seed, n, m):
    """The comment that opens the table: its certificates (``r`` and ``every X``) and options."""
    listed = ",".join(a + (f"+{b}" if b else "") for a, b in shas)
    return f"% symssm table: framework; certificates {listed}; file framework.tex; options --seed {seed} -n {n} -m {m}"


def _end_marker(shas):
    listed = ",".join(a + (f"+{b}" if b else "") for a, b in shas)
    return f"% end of symssm table {hashlib.sha256(listed.encode('ascii')).hexdigest()}"


def parse_table_options(text):
    """``{'seed': .., 'n': .., 'm': ..}`` of a table marker's options (its own grammar).

    Raises
    ------
    InputError
        If the options are not ``--seed S -n N -m M``.
    """
    m = _OPTIONS.fullmatch(text.split(" %")[0].strip())
    if not m:
        raise InputError(f"unreadable table options {text[:60]!r}")
    return {"seed": int(m.group(1)), "n": int(m.group(2)), "m": int(m.group(3))}


def framework_table(rows, *, seed, n, m):
    """The framework table as a LaTeX fragment that fits a two-column article's column.

    Parameters
    ----------
    rows : list of (dict, dict or None)
        Each row's verified ``interaction-rank`` certificate data and, where there is one, its
        verified ``parametric-interaction-rank`` certificate data for every input.
    seed, n, m : int
        The seed of the shared input, its number of tokens and the token dimension (p = m).
    """
    shas = [(certificate_sha256(r), certificate_sha256(e) if e is not None else None) for r, e in rows]
    body = [table_marker(shas, seed=seed, n=n, m=m),
            "\\begin{center}\\small", "\\begin{tabular}{@{}p{0.42\\columnwidth}cc@{}}",
            "architecture & $r$ on $X$ & every $X$ \\\\ \\hline"]
    files, starred, uncertified, generic = [], False, False, False
    for r, every in rows:
        label, independent = row_label(r)
        if every is not None:
            c = claim(every)
            col = every_input_tex(c)
            starred = starred or not c.complete
            generic = generic or not c.everywhere
        elif independent:
            col = f"${r['interaction_rank']}$"
        else:
            col = "--"
            uncertified = True
        # ragged right: the narrow first column never stretches a label's words
        body.append(f"\\raggedright {label} & ${r['interaction_rank']}$ & {col} \\\\")
        files.append(certificate_file(r))
        if every is not None:
            files.append(certificate_file(every))
    listed = ", ".join(_file_tex(f) for f in files)
    body += ["\\end{tabular}", "\\end{center}",
             f"{{\\footnotesize\\raggedright $r$ on $X$: the interaction rank on one input $X$ of $n = {n}$ tokens in "
             f"$\\mathbb{{Q}}^{{{m}}}$ (seed {seed}); every $X$: the rank for every input, certified with the "
             "input-dependent quantities as parameters: a number alone is the rank at every input"
             + ("; ``$\\le r$, generically $r$'': at most $r$ at every input, and exactly $r$ off an exceptional set "
                "on which the certificate gives the other values" if generic else "")
             + ("; $^{*}$ not complete: the rank is not decided where an uncovered factor of the certificate vanishes"
                if starred else "")
             + ("; -- not certified" if uncertified else "")
             + ". Each number is checked by \\texttt{symssm check} in its certificate: "
             f"{listed}.\\par}}",
             _end_marker(shas)]
    return "\n".join(body) + "\n"
