"""LaTeX for verified certificates: a theorem with its proof, a standalone document, macros.

The fragment compiles when ``\\input`` into an article that loads only amsmath,
amssymb and amsthm: it defines its theorem environment only if absent and uses
``\\providecommand`` for helpers, so it cannot clash with the host.  Text from the
certificate (the system's name) is escaped, never passed through as LaTeX.
Output is deterministic.

Every public function here verifies the certificate with the independent checker before a
word of it is typeset, and refuses (:class:`~symssm.errors.CertificateError`) one that does
not verify; :mod:`symssm.api` calls :func:`_render_checked` with the result it already has,
so nothing is verified twice.

Examples
--------
>>> from symssm import certify, ssm
>>> text = render(certify(ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]]), 8).data)
>>> "exactly $k = 2$ attention heads are necessary" in text
True
>>> render({"format": "symssm-certificate"})
Traceback (most recent call last):
...
symssm.errors.InputError: certificate has unknown kind 'None'
"""

import re

from ..certificate.envelope import check_envelope, verify
from ..errors import CertificateError, InputError
from .gradient import gradient_fragment, gradient_macros, gradient_markdown
from .head_count import head_count_fragment
from .interaction import interaction_fragment, interaction_markdown
from .parametric import parametric_fragment, parametric_markdown
from .tex import MAX_SHOWN, escape_text, tex_matrix, tex_name, tex_number

__all__ = ["render", "render_macros", "render_standalone", "render_markdown", "to_latex",
           "require_verified", "MACRO_PREFIX"]

#: Default prefix of the macros ``--macros`` emits (``\\SymssmHeadCount``, ...).
MACRO_PREFIX = "Symssm"


def require_verified(data, result=None):
    """Return ``data`` if the checker verifies it (``result``: a verdict already obtained).

    Raises
    ------
    InputError
        If ``data`` is not a symssm certificate of a known kind.
    CertificateError
        If the checker does not verify it: nothing unverified is ever typeset.
    """
    data = getattr(data, "data", data)
    check_envelope(data)
    if result is None:
        result = verify(data)
    if not result.verified:
        raise CertificateError(f"the certificate does not verify, refusing to render it: {result.message}")
    return data


def render(data, *, standalone=False, macros=False, prefix=MACRO_PREFIX):
    """LaTeX for a certificate, after the independent checker has verified it.

    Parameters
    ----------
    data : dict or Certificate
        Certificate data (or an object with a ``.data`` attribute holding it).
    standalone : bool
        A complete document (compiles with pdflatex) instead of a fragment.
    macros : bool
        Only the ``\\newcommand`` definitions of the certified numbers.
    prefix : str
        Macro name prefix (letters only), default ``Symssm``.

    Raises
    ------
    InputError
        If ``data`` is not a certificate, or the prefix is not 1 to 40 letters.
    CertificateError
        If the certificate does not verify.
    """
    return _render_checked(require_verified(data), standalone=standalone, macros=macros, prefix=prefix)


to_latex = render


def _render_checked(data, *, standalone=False, macros=False, prefix=MACRO_PREFIX):
    """LaTeX for certificate data the caller has just had verified (see :func:`require_verified`)."""
    if macros:
        return _macros(data, prefix)
    body = {"head-count": head_count_fragment, "gradient-highway": gradient_fragment,
            "interaction-rank": interaction_fragment, "parametric-head-count": parametric_fragment}[data["kind"]](data)
    return render_standalone(body) if standalone else body


def render_standalone(fragment):
    """Wrap a fragment into a complete article."""
    return ("\\documentclass{article}\n\\usepackage{amsmath,amssymb,amsthm}\n\\begin{document}\n"
            + fragment + "\\end{document}\n")


def render_macros(data, *, prefix=MACRO_PREFIX):
    """``\\newcommand`` definitions of a verified certificate's numbers, e.g. ``\\SymssmHeadCount``.

    Raises
    ------
    InputError, CertificateError
        As :func:`render`.
    """
    return _macros(require_verified(data), prefix)


def _macros(data, prefix):
    if not isinstance(prefix, str) or not re.fullmatch(r"[A-Za-z]{1,40}", prefix):
        raise InputError(f"macro prefix must be 1 to 40 ASCII letters, got {prefix!r}")
    out = [f"% symssm macros ({escape_text(data['generator'])}); input sha256 {data['input_sha256']}"]
    def define(name, value):
        out.append(f"\\newcommand{{\\{prefix}{name}}}{{{value}}}")
    define("SystemName", tex_name(data["system"]["name"]))
    if data["kind"] == "head-count":
        lb = data["lower_bound"]
        define("HeadCount", data["head_count"])
        define("N", data["n"])
        define("HoldsFrom", data["holds_for"]["from"])
        define("HoldsTo", data["holds_for"]["to"] if data["holds_for"]["to"] is not None else "\\infty")
        define("EventualHeadCount", data["profile"]["eventual"])
        define("ConstantFrom", data["profile"]["constant_from"])
        if lb["method"] == "exact":
            define("WitnessDet", tex_number(lb["determinant"]))
        else:
            define("WitnessDet", f"{lb['determinant_mod_p']} \\pmod{{{lb['prime']}}}")
    elif data["kind"] == "interaction-rank":
        define("InteractionRank", data["interaction_rank"])
        define("N", data["system"]["n"])
    elif data["kind"] == "parametric-head-count":
        define("HeadCount", data["head_count"])
        define("N", data["n"])
        define("Cases", len(data["bodies"]))
        define("Complete", "complete" if data["complete"] else "incomplete")
    else:
        for name, value in gradient_macros(data):
            define(name, value)
    return "\n".join(out) + "\n"


def render_markdown(data, result=None):
    """A short Markdown + MathJax summary of a verified certificate (Jupyter's ``_repr_markdown_``).

    Raises
    ------
    InputError, CertificateError
        As :func:`render`.
    """
    data = require_verified(data, result)
    name = data["system"]["name"] or "SSM"
    safe = re.sub(r"[^A-Za-z0-9 ._+-]", "?", name)
    if data["kind"] == "head-count":
        lb = data["lower_bound"]
        k = data["head_count"]
        text = (f"**symssm certificate** for `{safe}`: $k({data['n']}) = {k}$ — exactly {k} head(s) necessary and "
                f"sufficient (for $n$ from {data['holds_for']['from']}"
                + (f" to {data['holds_for']['to']}" if data["holds_for"]["to"] is not None else " on") + ").")
        if lb["method"] == "exact" and 0 < len(lb["minor"]) <= MAX_SHOWN:
            text += f"\n\n$$M = {tex_matrix(lb['minor'])},\\quad \\det M = {tex_number(lb['determinant'])}$$"
        text += "\n\nProfile: $k(1..) = " + ", ".join(map(str, data["profile"]["values"][:24])) + "$."
        return text
    if data["kind"] == "interaction-rank":
        return interaction_markdown(data, safe)
    if data["kind"] == "parametric-head-count":
        return parametric_markdown(data, safe)
    return gradient_markdown(data, safe)
