"""The generator's table of certificate kinds: one row per kind, naming what every stage does with it.

This is the twin of the checker's ``KINDS`` (:mod:`symssm.checker.core`). Each :class:`Kind` row says,
for one certificate kind, which system it is about, which builder makes its data, which part of the
JSON Schema describes it, which functions typeset it (LaTeX fragment, macros, Markdown, the command
line's summary and the audit's one-line statement), what ``--at`` answers and which Coq export it
has.  :mod:`symssm.api`, :mod:`symssm.cli`, :mod:`symssm.batch`, :mod:`symssm.catalog` and
:mod:`symssm.render` find a certificate's row here (:func:`of`, :func:`for_system`) and never test a
kind's name themselves.

Functions are named, not imported: ``"render.head_count:head_count_fragment"`` is the function
``head_count_fragment`` of :mod:`symssm.render.head_count`, loaded on first use by :meth:`Kind.load`.
So the table costs no import (SymPy, numpy and the renderers load only for the kind in use), and it
can sit here, below the render stage, while naming renderers: a stage loads only the fields of its
own stage or below (``tests/test_architecture.py`` checks every name and that rule).

The complex head count is its own row: a ``head-count`` certificate with ``"field": "Q(i)"``
(:data:`GAUSSIAN_HEAD_COUNT`); :func:`of` tells the two rows apart by that field, in one place.

Adding a kind: one row here, the builder in ``certificate/``, the renderers in ``render/``, its part of
``schema/certificate.schema.json`` and the checker's obligations (docs/architecture.md, "Adding a
certificate kind").

Examples
--------
>>> of({"kind": "head-count"}) is HEAD_COUNT, of({"kind": "head-count", "field": "Q(i)"}) is GAUSSIAN_HEAD_COUNT
(True, True)
>>> [row.name for row in KINDS if row.at]
['parametric-head-count', 'parametric-interaction-rank']
>>> of({"kind": "head-count"}).load("summary").__name__
'head_count_summary'
"""

import sys
from dataclasses import dataclass
from importlib import import_module
from typing import Optional, Union

from ..errors import InputError

__all__ = ["Kind", "KINDS", "NAMES", "FIELDS", "of", "for_system", "HEAD_COUNT", "GAUSSIAN_HEAD_COUNT",
           "GRADIENT_HIGHWAY", "INTERACTION_RANK", "PARAMETRIC_HEAD_COUNT", "APPROXIMATE_HEAD_COUNT",
           "PARAMETRIC_INTERACTION_RANK", "TRAINED_HEAD_COUNT", "REFERENCES"]

#: Fields of a row that name a function or class (``"module:name"`` under ``symssm``), and the stage
#: whose folder holds it: a module may load a field only if its own stage is that stage or above.
REFERENCES = {
    "source": "sources", "builder": "certificate",
    "fragment": "render", "macros": "render", "markdown": "render", "summary": "render", "describe": "render",
    "statement": "render", "values": "render", "coq": "render", "sentences": "render",
}


@dataclass(frozen=True)
class Kind:
    """One row of the table: a certificate kind and what each stage does with it.

    Parameters
    ----------
    name : str
        The certificate's ``"kind"``.
    field : str, optional
        The certificate's ``"field"`` for a variant of a kind (``"Q(i)"``: the complex head count); None
        for the kind's plain form (no ``field`` key).
    source : str
        The system class the kind is about (``"sources.system:SSM"``).
    via : {"certify", "gradient"}
        The public function that makes it: :func:`symssm.certify` or :func:`symssm.gradient_certificate`.
    tolerance : bool
        Whether the kind is certified at a tolerance (``certify(..., tolerance=EPS)``); for a source with
        both, the tolerance chooses the row.
    builder : str
        The function that builds the JSON data: ``builder(system, **options)`` with the options in ``takes``.
    takes : tuple of str
        The options the builder accepts among ``n``, ``method``, ``max_seconds``, ``tolerance``.
    length : str or int
        The length ``n`` of a certificate when none is given: ``"truncation"`` (``N``, ``N + 1`` with ``D``),
        ``"tokens"`` (a layer's own input length; an ``n`` is refused), or a number.
    schema : str
        The kind's definition in ``schema/certificate.schema.json`` (under ``$defs``).
    fragment, macros, markdown : str
        The LaTeX theorem ``fragment(data, style)``, the macro definitions ``macros(data)`` (a list of
        ``(name, value)``) and the Markdown summary ``markdown(data, safe_name)``.
    summary, describe : str
        The command line's lines ``summary(data)`` and its one line about the system, ``describe(system)``.
    statement : str
        What the certificate proves in one plain line, ``statement(data)`` (``symssm audit``).
    values : str, optional
        The counts a paper may quote, ``values(data, n)`` (a set, or None): the audit's prose check.
    tag : str
        The kind's part of a default macro prefix (``Decay`` in ``SymssmLegsFourDecay``).
    count : str, optional
        The field holding the count proved (``head_count``, ``interaction_rank``), if there is one.
    claim : str, optional
        The claim in a certificate's ``repr``, a template over its fields (``"k({n}) = {head_count}"``).
    subject : str
        What the certificate is about, when it has no name (``"an SSM"``, ``"a layer"``).
    family : bool
        Whether it proves its count for every parameter value (``bodies``, ``complete``).
    at : str, optional
        The count ``--at`` answers at one parameter point (``Certificate.at``), or None where ``--at`` does
        not apply; the checker's ``AT_KINDS`` are the kinds with one.
    coq : str, optional
        The Coq export ``coq(certificate)``, for the kinds that have one.
    missing : str, optional
        Why a source certified only at a tolerance needs one (the message when none is given).
    sentences : str, optional
        The whole statements for prose, ``sentences(data)`` (``[(macro name, LaTeX)]``), that ``--macros``
        adds as sentence macros and ``symssm audit`` finds on the pages.
    """

    name: str
    field: Optional[str]
    source: str
    via: str
    tolerance: bool
    builder: str
    takes: tuple
    length: Union[str, int]
    schema: str
    fragment: str
    macros: str
    markdown: str
    summary: str
    describe: str
    statement: str
    values: Optional[str]
    tag: str
    count: Optional[str]
    claim: Optional[str]
    subject: str
    family: bool = False
    at: Optional[str] = None
    coq: Optional[str] = None
    missing: Optional[str] = None
    sentences: Optional[str] = None

    def load(self, what):
        """The function (or class) a field names, imported on first use.

        Parameters
        ----------
        what : str
            A field of :data:`REFERENCES` (``"builder"``, ``"fragment"``, ...).

        Returns
        -------
        callable or None
            None when the row has no such function (``coq`` of most kinds).

        Raises
        ------
        KeyError
            If ``what`` is not a field that names a function.
        """
        REFERENCES[what]  # a field that names no function is a KeyError
        return _resolve(getattr(self, what))

    def source_type(self):
        """The row's system class if its module is loaded, else a class nothing is an instance of.

        An object of a source type exists only once its module is imported, so :func:`for_system`
        needs no import of its own (``sources.trained`` alone would load numpy for a family's certificate).
        """
        module, name = self.source.split(":")
        loaded = sys.modules.get(f"{__package__.rpartition('.')[0]}.{module}")
        return getattr(loaded, name) if loaded is not None else _Absent

    def length_of(self, system, n):
        """The length ``n`` a certificate of ``system`` is about: ``n`` itself, or the row's default.

        Raises
        ------
        InputError
            If ``n`` is given to a kind whose length is its layer's (``length == "tokens"``).
        """
        if self.length == "tokens":
            if n is not None:
                raise InputError("n does not apply to a layer (its length is its input's length)")
            return system.n
        if n is not None:
            return n
        if self.length == "truncation":
            return system.N + (1 if system.has_D else 0)
        return self.length


class _Absent:
    """Stands for a class whose module is not loaded: nothing is an instance of it."""


def _resolve(reference):
    if reference is None:
        return None
    module, name = reference.split(":")
    return getattr(import_module(f"{__package__.rpartition('.')[0]}.{module}"), name)


HEAD_COUNT = Kind(
    name="head-count", field=None, source="sources.system:SSM", via="certify", tolerance=False,
    builder="certificate.head_count:certify", takes=("n", "method", "max_seconds"), length="truncation",
    schema="headCount", fragment="render.head_count:head_count_fragment", macros="render.latex:head_count_macros",
    markdown="render.latex:head_count_markdown", summary="render.summary:head_count_summary",
    describe="render.summary:describe", statement="render.claims:head_count_statement",
    values="render.claims:head_count_values", sentences="render.latex:head_count_sentences", tag="", count="head_count", claim="k({n}) = {head_count}",
    subject="an SSM", coq="render.coq:coq_project")
GAUSSIAN_HEAD_COUNT = Kind(
    name="head-count", field="Q(i)", source="sources.complex_system:ComplexSSM", via="certify", tolerance=False,
    builder="certificate.gaussian:gaussian_data", takes=("n", "method"), length="truncation",
    schema="headCount", fragment="render.head_count:head_count_fragment", macros="render.latex:head_count_macros",
    markdown="render.latex:head_count_markdown", summary="render.summary:head_count_summary",
    describe="render.summary:describe_complex", statement="render.claims:head_count_statement",
    values="render.claims:head_count_values", sentences="render.latex:head_count_sentences", tag="", count="head_count", claim="k({n}) = {head_count}",
    subject="an SSM")
GRADIENT_HIGHWAY = Kind(
    name="gradient-highway", field=None, source="sources.system:SSM", via="gradient", tolerance=False,
    builder="certificate.gradient:gradient_data", takes=("n", "max_seconds"), length=1000,
    schema="gradientHighway", fragment="render.gradient:gradient_fragment", macros="render.latex:gradient_highway_macros",
    markdown="render.gradient:gradient_markdown", summary="render.summary:gradient_summary",
    describe="render.summary:describe", statement="render.claims:gradient_statement", values=None, sentences="render.latex:gradient_sentences",
    tag="Decay",
    count=None, claim=None, subject="an SSM")
INTERACTION_RANK = Kind(
    name="interaction-rank", field=None, source="sources.layers:Layer", via="certify", tolerance=False,
    builder="certificate.interaction:interaction_data", takes=("max_seconds",), length="tokens",
    schema="interactionRank", fragment="render.interaction:interaction_fragment",
    macros="render.latex:interaction_macros", markdown="render.interaction:interaction_markdown",
    summary="render.summary:interaction_summary", describe="render.summary:describe_layer",
    statement="render.claims:interaction_statement", values="render.claims:interaction_values",
    sentences="render.latex:interaction_sentences", tag="Rank",
    count="interaction_rank", claim="r = {interaction_rank}", subject="a layer")
PARAMETRIC_HEAD_COUNT = Kind(
    name="parametric-head-count", field=None, source="sources.parametric:ParametricSSM", via="certify",
    tolerance=False, builder="certificate.parametric:parametric_data", takes=("n",), length="truncation",
    schema="parametricHeadCount", fragment="render.parametric:parametric_fragment",
    macros="render.latex:parametric_macros", markdown="render.parametric:parametric_markdown",
    summary="render.summary:parametric_summary", describe="render.summary:describe_family",
    statement="render.claims:family_statement", values="render.claims:family_values", tag="Family",
    count="head_count", claim="k({n}) = {head_count}", subject="an SSM", family=True, at="head_count")
APPROXIMATE_HEAD_COUNT = Kind(
    name="approximate-head-count", field=None, source="sources.system:SSM", via="certify", tolerance=True,
    builder="certificate.approximate:approximate_data", takes=("n", "tolerance"), length="truncation",
    schema="approximateHeadCount", fragment="render.approximate:approximate_fragment",
    macros="render.latex:approximate_macros", markdown="render.approximate:approximate_markdown",
    summary="render.summary:approximate_summary", describe="render.summary:describe",
    statement="render.claims:approximate_statement", values=None, tag="Approximate", count=None, claim=None,
    subject="an SSM")
PARAMETRIC_INTERACTION_RANK = Kind(
    name="parametric-interaction-rank", field=None, source="sources.parametric_layers:ParametricLayer",
    via="certify", tolerance=False, builder="certificate.parametric_interaction:parametric_interaction_data",
    takes=(), length="tokens", schema="parametricInteractionRank",
    fragment="render.parametric_interaction:interaction_family_fragment",
    macros="render.latex:interaction_family_macros",
    markdown="render.parametric_interaction:interaction_family_markdown",
    summary="render.summary:interaction_family_summary", describe="render.summary:describe_parametric_layer",
    statement="render.claims:family_statement", values="render.claims:family_values", tag="EveryInput",
    count="interaction_rank", claim="r = {interaction_rank}", subject="a layer", family=True, at="interaction_rank")
TRAINED_HEAD_COUNT = Kind(
    name="trained-head-count", field=None, source="sources.trained:TrainedLayer", via="certify", tolerance=True,
    builder="certificate.trained:trained_data", takes=("n", "tolerance"), length=1024,
    schema="trainedHeadCount", fragment="render.trained:trained_fragment", macros="render.latex:approximate_macros",
    markdown="render.trained:trained_markdown", summary="render.summary:approximate_summary",
    describe="render.summary:describe_trained", statement="render.claims:approximate_statement", values=None,
    tag="Trained", count=None, claim=None, subject="a layer",
    missing="a trained layer's lags are not rational: certify its eps-head count (a tolerance)")

#: Every row, in the order of the checker's table (a kind's variants after its plain form).
KINDS = (HEAD_COUNT, GAUSSIAN_HEAD_COUNT, GRADIENT_HIGHWAY, INTERACTION_RANK, PARAMETRIC_HEAD_COUNT,
         APPROXIMATE_HEAD_COUNT, PARAMETRIC_INTERACTION_RANK, TRAINED_HEAD_COUNT)
#: The kinds' names (a certificate's ``"kind"``), each once.
NAMES = tuple(dict.fromkeys(row.name for row in KINDS))
#: For each kind with variants, its ``"field"`` values (``{"head-count": ("Q(i)",)}``).
FIELDS = {name: tuple(row.field for row in KINDS if row.name == name and row.field is not None)
          for name in NAMES if any(row.name == name and row.field is not None for row in KINDS)}
_BY_KEY = {(row.name, row.field): row for row in KINDS}


def of(data):
    """The row of certificate data: by its ``"kind"``, and by its ``"field"`` for a kind with variants.

    Parameters
    ----------
    data : dict
        Certificate data (or an object with a ``.data`` attribute holding it).

    Returns
    -------
    Kind

    Raises
    ------
    InputError
        If the kind (or its field) is not in the table.

    Examples
    --------
    >>> of({"kind": "interaction-rank"}).count
    'interaction_rank'
    >>> of({"kind": "nonsense"})
    Traceback (most recent call last):
    ...
    symssm.errors.InputError: unknown certificate kind 'nonsense'
    """
    data = getattr(data, "data", data)
    kind = data.get("kind") if isinstance(data, dict) else None
    field = data.get("field") if kind in FIELDS else None
    row = _BY_KEY.get((kind, field)) if isinstance(kind, str) and (field is None or isinstance(field, str)) else None
    if row is None:
        raise InputError(f"unknown certificate kind {str(kind)[:40]!r}" if (kind, None) not in _BY_KEY else
                         f"unknown field {str(field)[:40]!r} of a {kind} certificate")
    return row


#: What :func:`symssm.certify` takes, for the message about anything else.
_TAKES = ("an SSM, a complex SSM, a family with parameters (ParametricSSM), a layer, a layer with parameters "
          "(ParametricLayer) or a trained layer")


def for_system(system, *, tolerance=None, via="certify"):
    """The row of the certificate that ``via`` makes for ``system`` (with ``tolerance``, its eps-head count).

    Parameters
    ----------
    system : object
        A source object (:mod:`symssm.sources`).
    tolerance : object, optional
        Whether a tolerance is given (its value is not read here).
    via : {"certify", "gradient"}
        The public function asking.

    Returns
    -------
    Kind

    Raises
    ------
    InputError
        If no kind is made from such a system, or the tolerance does not fit it.

    Examples
    --------
    >>> from symssm.sources.system import ssm
    >>> for_system(ssm([[1]], [[1]], [[1]])).name, for_system(ssm([[1]], [[1]], [[1]]), tolerance="1/10").name
    ('head-count', 'approximate-head-count')
    """
    matches = [row for row in KINDS if row.via == via and isinstance(system, row.source_type())]
    if not matches:
        if via == "gradient":
            raise InputError(f"expected an SSM, got {type(system).__name__}")
        raise InputError(f"certify takes {_TAKES}, got {type(system).__name__}")
    for row in matches:
        if row.tolerance == (tolerance is not None):
            return row
    if tolerance is not None:
        raise InputError("--tolerance certifies eps-head counts of real systems (rational or float entries)")
    raise InputError(matches[0].missing)
