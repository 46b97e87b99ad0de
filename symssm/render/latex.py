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
from .approximate import approximate_fragment, approximate_markdown
from .trained import trained_fragment, trained_markdown
from .gradient import gradient_fragment, gradient_macros, gradient_markdown
from .head_count import head_count_fragment, lengths
from .interaction import interaction_fragment, interaction_markdown
from .parametric import parametric_fragment, parametric_markdown
from .parametric_interaction import interaction_family_fragment, interaction_family_markdown
from .style import DEFAULT_ENVIRONMENT, DEFAULT_THEOREM_NAME, Style, begin_marker, derived_prefix, end_marker
from .tex import MAX_SHOWN, escape_text, tex_count, tex_decimal, tex_matrix, tex_name, tex_number

__all__ = ["render", "render_macros", "render_standalone", "render_markdown", "to_latex",
           "require_verified"]


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


def render(data, *, standalone=False, macros=False, prefix=None, label=None, environment=DEFAULT_ENVIRONMENT,
           theorem_name=DEFAULT_THEOREM_NAME, source=None):
    """LaTeX for a certificate, after the independent checker has verified it.

    Parameters
    ----------
    data : dict or Certificate
        Certificate data (or an object with a ``.data`` attribute holding it).
    standalone : bool
        A complete document (compiles with pdflatex) instead of a fragment.
    macros : bool
        Only the ``\\newcommand`` definitions of the certified numbers.
    prefix : str, optional
        Macro name prefix (letters only); default derived from ``source`` or the system's name
        (:func:`~symssm.render.style.derived_prefix`).
    label : str, optional
        A ``\\label`` inside the theorem, so the paper can ``\\ref`` it.
    environment, theorem_name : str
        The theorem environment (defined only if the host lacks it) and its printed name.
    source : str, optional
        The certificate's file name, recorded in the fragment's first comment for ``symssm audit``.

    Raises
    ------
    InputError
        If ``data`` is not a certificate, or an option is not in its grammar.
    CertificateError
        If the certificate does not verify.
    """
    style = Style(label=label, environment=environment, theorem_name=theorem_name, prefix=prefix)
    return _render_checked(require_verified(data), standalone=standalone, macros=macros, style=style, source=source)


to_latex = render


def _render_checked(data, *, standalone=False, macros=False, style=None, source=None, **options):
    """LaTeX for certificate data the caller has just had verified (see :func:`require_verified`)."""
    if style is None:
        unknown = sorted(set(options) - {"prefix", "label", "environment", "theorem_name"})
        if unknown:
            raise InputError(f"unknown LaTeX option {unknown[0]!r} (options: standalone, macros, prefix, label, "
                             "environment, theorem_name, source)")
        style = Style(**{k: v for k, v in options.items() if v is not None})
    if macros:
        return _macros(data, style, source)
    if style.label is None:
        from dataclasses import replace

        from .style import certificate_sha256

        style = replace(style, auto_label="symssm:" + certificate_sha256(data)[:16])
    body = {"head-count": head_count_fragment, "gradient-highway": gradient_fragment,
            "interaction-rank": interaction_fragment, "parametric-head-count": parametric_fragment,
            "approximate-head-count": approximate_fragment,
            "parametric-interaction-rank": interaction_family_fragment,
            "trained-head-count": trained_fragment}[data["kind"]](data, style)
    fragment = (begin_marker("fragment", data, source, style.options()) + f"\n% generated by "
                f"{escape_text(data['generator'])}; system sha256 {data['input_sha256']}\n" + body
                + end_marker("fragment", data) + "\n")
    return render_standalone(fragment) if standalone else fragment


def render_standalone(fragment):
    """Wrap a fragment into a complete article."""
    return ("\\documentclass{article}\n\\usepackage{amsmath,amssymb,amsthm}\n\\begin{document}\n"
            + fragment + "\\end{document}\n")


def render_macros(data, *, prefix=None, source=None):
    """``\\newcommand`` definitions of a verified certificate's numbers, e.g. ``\\SymssmRotationHeadCount``.

    Raises
    ------
    InputError, CertificateError
        As :func:`render`.
    """
    return _macros(require_verified(data), Style(prefix=prefix), source)


def _m(value):
    return f"\\ensuremath{{{value}}}"


def _macros(data, style, source):
    prefix = style.prefix or derived_prefix(data, source)
    out = [begin_marker("macros", data, source, style.options(macros=True)),
           f"% generated by {escape_text(data['generator'])}; system sha256 {data['input_sha256']}"]

    def define(name, value):
        out.append(f"\\newcommand{{\\{prefix}{name}}}{{{value}}}")
    define("SystemName", tex_name(data["system"]["name"]))
    if data["kind"] == "head-count":
        lb, hf = data["lower_bound"], data["holds_for"]
        define("HeadCount", _m(data["head_count"]))
        define("Length", _m(tex_count(data["n"])))
        define("N", _m(data["system"]["N"]))
        define("HoldsFrom", _m(tex_count(hf["from"])))
        define("HoldsTo", _m(tex_count(hf["to"]) if hf["to"] is not None else "\\infty"))
        define("Lengths", _m(lengths(hf["from"], hf["to"])))
        define("EventualHeadCount", _m(data["profile"]["eventual"]))
        define("Profile", _m(", ".join(str(v) for v in data["profile"]["values"][:24])
                             + (", \\dots" if len(data["profile"]["values"]) > 24 else "")))
        define("ConstantFrom", _m(data["profile"]["constant_from"]))
        if lb["method"] == "exact":
            define("WitnessDet", _m(tex_number(lb["determinant"])))
        else:
            define("WitnessDet", _m(f"{lb['determinant_mod_p']} \\pmod{{{lb['prime']}}}"))
    elif data["kind"] == "interaction-rank":
        define("InteractionRank", _m(data["interaction_rank"]))
        define("Length", _m(tex_count(data["system"]["n"])))
    elif data["kind"] in ("approximate-head-count", "trained-head-count"):
        k = data["head_count"]
        define("ApproximateHeadCount", _m(k if k is not None else "?"))
        define("Tolerance", _m(tex_number(data["tolerance"])))
        define("Length", _m(tex_count(data["n"])))
        if k is not None and data["errors"]:
            define("ErrorUpper", _m(tex_number(data["errors"][k]["upper"]) if len(data["errors"][k]["upper"]) <= 10
                                    else tex_decimal(data["errors"][k]["upper"], up=True)))
    elif data["kind"] == "parametric-interaction-rank":
        define("InteractionRank", _m(data["interaction_rank"]))
        define("Length", _m(tex_count(data["system"]["n"])))
        define("Cases", _m(len(data["bodies"])))
        define("Complete", "complete" if data["complete"] else "incomplete")
        for name, value in _family_macros(data, "InteractionRank", "r"):
            define(name, value)
    elif data["kind"] == "parametric-head-count":
        define("HeadCount", _m(data["head_count"]))
        define("Length", _m(tex_count(data["n"])))
        define("N", _m(data["system"]["N"]))
        define("Cases", _m(len(data["bodies"])))
        define("Complete", "complete" if data["complete"] else "incomplete")
        for name, value in _family_macros(data, "HeadCount", "k(n)"):
            define(name, value)
    else:
        for name, value in gradient_macros(data):
            define(name, _m(value))
    out.append(end_marker("macros", data))
    return "\n".join(out) + "\n"


def _family_macros(data, what, symbol):
    """The macros a family's prose needs besides its generic value: where that value holds, the least and the
    largest value over every case, and the exceptional cases (each with its value, or where nothing is proved)."""
    from .parametric import outline, tex_parameter, tex_polynomial

    items = outline(data)
    generic = items[0]
    cond = ", ".join(f"{tex_polynomial(f)} \\neq 0" for f in generic["factors"])
    values = [item["k"] for item in items]
    cases = []
    for item in items[1:]:
        where = " and ".join(f"{tex_parameter(x)} = {tex_polynomial(v)}" for x, v in item["path"])
        cases.append(f"\\ensuremath{{{symbol} = {item['k']}}} where \\ensuremath{{{where}}}")
    for item in items:
        for f in item["uncovered"]:
            where = " and ".join(f"{tex_parameter(x)} = {tex_polynomial(v)}" for x, v in item["path"])
            cases.append("nothing is proved where \\ensuremath{" + (where + " and " if where else "")
                         + f"{tex_polynomial(f)} = 0}}")
    return [("GenericCondition", _m(cond) if cond else "every parameter value"),
            (f"Min{what}", _m(min(values))), (f"Max{what}", _m(max(values))),
            ("Exceptions", "; ".join(cases) if cases else "none")]


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
    if data["kind"] == "parametric-interaction-rank":
        return interaction_family_markdown(data, safe)
    if data["kind"] == "approximate-head-count":
        return approximate_markdown(data, safe)
    if data["kind"] == "trained-head-count":
        return trained_markdown(data, safe)
    return gradient_markdown(data, safe)
