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

from ..certificate import kinds
from ..certificate.envelope import check_envelope, verify
from ..errors import CertificateError, InputError
from .gradient import gradient_macros
from .head_count import lengths
from .style import (DEFAULT_ENVIRONMENT, DEFAULT_THEOREM_NAME, Style, begin_marker, certificate_sha256, derived_prefix,
                    end_marker)
from .tex import MAX_SHOWN, escape_text, list_entry, system_name, tex_count, tex_decimal, tex_matrix, tex_number

__all__ = ["render", "render_macros", "sentence_macros", "head_count_sentences", "gradient_sentences",
           "interaction_sentences", "render_standalone", "render_markdown", "to_latex",
           "require_verified", "head_count_macros", "interaction_macros", "approximate_macros",
           "interaction_family_macros", "parametric_macros", "gradient_highway_macros", "head_count_markdown",
           "either_mode", "TEXT_COMMAND"]


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


def _render_checked(data, *, standalone=False, macros=False, style=None, source=None, digest=None, **options):
    """LaTeX for certificate data the caller has just had verified (see :func:`require_verified`); ``digest``: its
    SHA-256 when the caller has it (:meth:`symssm.api.Certificate.to_latex`), else computed here, once."""
    digest = digest or certificate_sha256(data)
    if style is None:
        unknown = sorted(set(options) - {"prefix", "label", "environment", "theorem_name"})
        if unknown:
            raise InputError(f"unknown LaTeX option {unknown[0]!r} (options: standalone, macros, prefix, label, "
                             "environment, theorem_name, source)")
        style = Style(**{k: v for k, v in options.items() if v is not None})
    if macros:
        return _macros(data, style, source, digest)
    if style.label is None:
        from dataclasses import replace

        style = replace(style, auto_label="symssm:" + digest[:16])
    body = kinds.of(data).load("fragment")(data, style)
    fragment = (begin_marker("fragment", data, source, style.options(), digest=digest) + f"\n% generated by "
                f"{escape_text(data['generator'])}; system sha256 {data['input_sha256']}\n" + body
                + end_marker("fragment", data, digest=digest) + "\n")
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


def _macros(data, style, source, digest=None):
    digest = digest or certificate_sha256(data)
    prefix = style.prefix or derived_prefix(data, source, digest=digest)
    out = [begin_marker("macros", data, source, style.options(macros=True), digest=digest),
           f"% generated by {escape_text(data['generator'])}; system sha256 {data['input_sha256']}",
           TEXT_COMMAND]

    def define(name, value):
        out.append(f"\\newcommand{{\\{prefix}{name}}}{{{either_mode(value)}}}")
    define("SystemName", _subject(data))
    for name, value in kinds.of(data).load("macros")(data):
        define(name, value)
    for name, value in sentence_macros(data):
        define(name, value)
    out.append(end_marker("macros", data, digest=digest))
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- the macros of each kind (rows of certificate/kinds.py)

def sentence_macros(data):
    """``[(name, LaTeX sentence)]``: whole certified statements for prose (the row's ``sentences``), each starting in
    lower case (``We show that \\SymssmRotationHeadCountSentence.``), so that ``symssm audit`` finds the whole
    statement (the system, the count, the lengths) on the page rather than a lone number.

    Examples
    --------
    >>> from symssm import certify, ssm
    >>> cert = certify(ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]], name="rot"), 8)
    >>> name, tex = sentence_macros(cert.data)[0]
    >>> name
    'HeadCountSentence'
    >>> print(tex)
    the SSM rot needs exactly $2$ attention heads to represent its interaction operator, for every sequence length $n \\ge 2$
    """
    make = kinds.of(data).load("sentences")
    return make(data) if make is not None else []


#: The robust command every macro file defines (once per document) for the values with words: their text in
#: text mode, amsmath's ``\\text`` in math mode; robust, so that the mode is decided where the value is typeset,
#: also in a moving argument (a section title written to the table of contents).
TEXT_COMMAND = ("\\ifcsname symssmtext\\endcsname\\else"
                "\\DeclareRobustCommand{\\symssmtext}[1]{\\ifmmode\\text{#1}\\else#1\\fi}\\fi")


def either_mode(value):
    """A macro's body that typesets the same in text and in math mode: a value that is one ``\\ensuremath`` group
    as it is, anything else (words, a sentence with its own ``$...$``) as the argument of ``\\symssmtext``
    (:data:`TEXT_COMMAND`); a body longer than a TeX input line is cut into lines at its ``"; "`` separators.

    Examples
    --------
    >>> either_mode("\\\\ensuremath{2}")
    '\\\\ensuremath{2}'
    >>> print(either_mode("$k = 1$ where $t = 0$"))
    \\symssmtext{$k = 1$ where $t = 0$}
    """
    if re.fullmatch(r"\\ensuremath\{[^{}]*(?:\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}[^{}]*)*\}", value):
        return value
    if len(value) > 2000:
        value = value.replace("; ", ";\n")
    return "\\symssmtext{" + value + "}"


def _subject(data):
    """The system's name in roman type, breakable after its hyphens (as the fragments set it)."""
    return system_name(data["system"]["name"], parameters=data["system"].get("parameters") or ()) \
        if data["system"].get("name") else "under consideration"


def head_count_sentences(data):
    """The head count with its lengths: ``the SSM NAME needs exactly $k$ attention heads for every ...``."""
    from .statement import for_lengths

    from .claims import claim

    c = claim(data)
    k, span = c.value, for_lengths(*c.lengths)
    what = "its interaction operator" + (" and its map" if c.map_necessity == "any" else "")
    return [("HeadCountSentence", f"the SSM {_subject(data)} needs exactly ${k}$ attention head{'s' if k != 1 else ''} "
             f"to represent {what}, " + span[0].lower() + span[1:])]


def gradient_sentences(data):
    """The decay bound and, when certified, the crossover distances."""
    from .tex import tex_value

    name = _subject(data)
    out = [("DecaySentence", f"the gradients of the SSM {name} satisfy $\\lVert \\partial y_i / \\partial x_j "
            f"\\rVert_F \\le K r^{{\\,i-j}}$ with $r {tex_value(data['decay_rate'], up=True)}$")]
    delta = data["crossover_distance"]
    if delta is not None:
        out.append(("CrossoverSentence", f"the certified bounds cross at distance ${tex_count(delta)}$: at every "
                    f"distance from ${tex_count(delta)}$ to ${tex_count(data['n'] - 1)}$, single-head attention on "
                    f"suitable inputs carries more gradient than the SSM {name} on any input"))
    return out


def interaction_sentences(data):
    """The interaction rank on the layer's input."""
    return [("InteractionRankSentence", f"the layer {_subject(data)} has interaction rank exactly "
             f"$r = {data['interaction_rank']}$ on sequences of length $n = {tex_count(data['system']['n'])}$")]


def head_count_macros(data):
    """``[(name, LaTeX value)]``: the macros of verified head-count data (real or complex)."""
    lb, hf = data["lower_bound"], data["holds_for"]
    out = [("HeadCount", _m(data["head_count"])),
           ("Length", _m(tex_count(data["n"]))),
           ("N", _m(data["system"]["N"])),
           ("HoldsFrom", _m(tex_count(hf["from"]))),
           ("HoldsTo", _m(tex_count(hf["to"]) if hf["to"] is not None else "\\infty")),
           ("Lengths", _m(lengths(hf["from"], hf["to"]))),
           ("EventualHeadCount", _m(data["profile"]["eventual"])),
           ("Profile", _m(", ".join(str(v) for v in data["profile"]["values"][:24])
                          + (", \\dots" if len(data["profile"]["values"]) > 24 else ""))),
           ("ConstantFrom", _m(data["profile"]["constant_from"]))]
    if lb["method"] == "exact":
        out.append(("WitnessDet", _m(list_entry(lb["determinant"]))))  # a Gaussian rational unbroken
    else:
        out.append(("WitnessDet", _m(f"{lb['determinant_mod_p']} \\pmod{{{lb['prime']}}}")))
    return out


def interaction_macros(data):
    """``[(name, LaTeX value)]``: the macros of verified interaction-rank data."""
    return [("InteractionRank", _m(data["interaction_rank"])), ("Length", _m(tex_count(data["system"]["n"])))]


def approximate_macros(data):
    """``[(name, LaTeX value)]``: the macros of verified eps-head-count data (of a system or a trained layer)."""
    k = data["head_count"]
    out = [("ApproximateHeadCount", _m(k if k is not None else "?")),
           ("Tolerance", _m(tex_number(data["tolerance"]))),
           ("Length", _m(tex_count(data["n"])))]
    if k is not None and data["errors"]:
        out.append(("ErrorUpper", _m(tex_number(data["errors"][k]["upper"]) if len(data["errors"][k]["upper"]) <= 10
                                     else tex_decimal(data["errors"][k]["upper"], up=True))))
    return out


def interaction_family_macros(data):
    """``[(name, LaTeX value)]``: the macros of verified interaction ranks for every input."""
    return [("InteractionRank", _m(data["interaction_rank"])),
            ("Length", _m(tex_count(data["system"]["n"]))),
            ("Cases", _m(len(data["bodies"]))),
            ("Complete", "complete" if data["complete"] else "incomplete"),
            *_family_macros(data, "InteractionRank", "r")]


def parametric_macros(data):
    """``[(name, LaTeX value)]``: the macros of a verified family's head count."""
    return [("HeadCount", _m(data["head_count"])),
            ("Length", _m(tex_count(data["n"]))),
            ("N", _m(data["system"]["N"])),
            ("Cases", _m(len(data["bodies"]))),
            ("Complete", "complete" if data["complete"] else "incomplete"),
            *_family_macros(data, "HeadCount", "k(n)")]


def gradient_highway_macros(data):
    """``[(name, LaTeX value)]``: the macros of verified gradient-highway data."""
    return [(name, _m(value)) for name, value in gradient_macros(data)]


def _family_macros(data, what, symbol):
    """The macros a family's prose needs besides its generic value: where that value holds, the least and the
    largest value over every case, and the exceptional cases (each with its value, or where nothing is proved)."""
    from .parametric import outline, tex_condition, tex_polynomial

    items = [item for item in outline(data) if item.get("ref") is None]  # a shared case once
    generic = items[0]
    cond = ", ".join(f"{tex_polynomial(f)} \\neq 0" for f in generic["factors"])
    values = [item["k"] for item in items]
    cases = []

    def path(item):
        return " and ".join(tex_condition(c)[1:-1] for c in item["path"])  # each condition without its $ $

    for item in items[1:]:
        cases.append(f"\\ensuremath{{{symbol} = {item['k']}}} where \\ensuremath{{{path(item)}}}")
    for item in items:
        for f in item["uncovered"]:
            where = path(item)
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
    return kinds.of(data).load("markdown")(data, safe)


def head_count_markdown(data, safe):
    """A short Markdown summary of verified head-count data (``safe``: the system's name, made safe)."""
    lb = data["lower_bound"]
    k = data["head_count"]
    text = (f"**symssm certificate** for `{safe}`: $k({data['n']}) = {k}$ — exactly {k} head(s) necessary and "
            f"sufficient to represent its interaction operator (for $n$ from {data['holds_for']['from']}"
            + (f" to {data['holds_for']['to']}" if data["holds_for"]["to"] is not None else " on") + ").")
    if lb["method"] == "exact" and 0 < len(lb["minor"]) <= MAX_SHOWN:
        text += f"\n\n$$M = {tex_matrix(lb['minor'])},\\quad \\det M = {tex_number(lb['determinant'])}$$"
    text += "\n\nProfile: $k(1..) = " + ", ".join(map(str, data["profile"]["values"][:24])) + "$."
    return text
