"""The table of layer kinds: one row per kind of layer of the unified framework, naming what each stage does.

The twin of the certificate kinds' table (:mod:`symssm.certificate.kinds`), for the ``"kind"`` of a layer
spec (``{"kind": "convolution", ...}``).  Each :class:`LayerKind` row names, for one kind, the fields its
spec has, the function that reads a spec into a :class:`~symssm.sources.layers.Layer` and writes it back as
JSON, the exact operator (its blocks ``W_ij`` over Q), the numeric operator (float64 rows), and the renderers
of the theorem's sentence and of the objects it shows.  Every stage that acts on a layer finds its row here
(:func:`of`) and never tests a kind's name itself; only this table and the kind's own functions write a
name.  The checker, which imports no generator code, keeps its own dispatch (:mod:`symssm.checker.interaction`).

Functions are named, not imported (``"exact.interaction:convolution_blocks"``), and loaded on first use by
:meth:`LayerKind.load`: the table costs no import, and it can sit here in ``sources/`` (the lowest stage that
dispatches on a layer's kind) while naming functions of the stages above it.  A stage loads only the
fields of its own stage or below (``tests/test_architecture.py`` checks every name and that rule).

Adding a layer kind: one row here (in :data:`KINDS`), its functions in modules of their own, and the
checker's obligations (docs/architecture.md, "Adding a layer kind").

Examples
--------
>>> of("convolution").input_free, of("operator").pairs
(True, 'listed')
>>> [row.name for row in KINDS if row.exact is None]
['softmax-attention']
>>> of("convolution").load("exact").__name__
'convolution_blocks'
"""

from dataclasses import dataclass
from importlib import import_module
from typing import Optional

from ..errors import InputError

__all__ = ["LayerKind", "KINDS", "REFERENCES", "of", "names", "SELECTIVE_SSM", "CONVOLUTION", "LINEAR_ATTENTION",
           "SOFTMAX_ATTENTION", "OPERATOR", "MAMBA2_SSD", "RETNET", "GLA", "DELTANET", "GATED_DELTANET", "RWKV6", "RWKV7",
           "MLSTM", "KDA", "RECURRENT"]

#: Fields of a row that name a function (``"module:name"`` under ``symssm``), and the stage whose folder
#: holds it: a module may load a field only if its own stage is that stage or above.
REFERENCES = {"reader": "sources", "writer": "sources", "exact": "exact", "certificate": "certificate",
              "numeric": "numeric", "describe": "render", "objects": "render", "family_reader": "sources",
              "family_at": "sources", "family_blocks": "exact", "family_words": "render", "family_form": "sources"}


@dataclass(frozen=True)
class LayerKind:
    """One row of the table: a layer kind and what each stage does with it.

    Parameters
    ----------
    name : str
        The spec's and the certificate's ``"kind"``.
    required, optional : frozenset of str
        The fields of its spec (``kind`` among the required).
    reader : str
        ``reader(data, name)``: the :class:`~symssm.sources.layers.Layer` of validated spec data.
    writer : str
        ``writer(params)``: the kind's own fields of the layer's JSON (canonical number texts).
    exact : str or None
        ``exact(layer)``: the blocks ``{(i, j): W_ij}`` over Q (tuples of rows of Fractions); None for a kind
        whose blocks are not rational (its ``certificate`` builder encloses them).
    numeric : str
        ``numeric(layer)``: the blocks ``vec(W_ij)`` as float64 rows, in block order.
    describe : str
        ``describe(system)``: the theorem's sentence on the map (LaTeX), from the certificate's ``"system"``.
    objects : str
        ``objects(system)``: ``(where, phrase, items, depends)``, what the claim is about and the objects shown
        (:func:`symssm.render.interaction.interaction_fragment`).
    certificate : str, optional
        A builder of its own for the kind's certificate data (softmax attention's enclosures); None: the exact
        interaction rank (:func:`symssm.certificate.interaction.interaction_data`).
    input_free : bool
        Whether its blocks are the same for every input (convolution, an operator).
    pairs : {"causal", "listed"}
        The pairs ``(i, j)`` its blocks range over: ``1 <= j <= i <= n``, or those the spec lists.
    per_token : tuple of str
        The matrices its spec lists one per token (a selective SSM's ``A``, ``B``, ``C``, ``D``).
    family_reader : str, optional
        ``family_reader(data, field)``: ``(n, p, m, matrices, structure)`` of a layer *with parameters* of this
        kind (:mod:`symssm.sources.parametric_layers`); None where the kind has no family theorem.
    family_at : str, optional
        ``family_at(layer, values)``: its own spec fields at a parameter point.
    family_blocks : str, optional
        ``family_blocks(layer, S, g, mul, blank)``: the blocks scaled by the common denominator
        (:mod:`symssm.exact.layerfamily`).
    family_words : str, optional
        ``family_words(system)``: what the layer is, in a phrase of the family theorem, and its scaled blocks.
    no_family : str
        Why a layer of this kind with parameters is refused (when ``family_reader`` and ``family_form`` are None).
    family_form : str, optional
        ``family_form(data)``: the spec of another kind with the same blocks, whose family theorem a spec of this
        kind with parameters gets (a linear-recurrence layer written as a selective SSM).
    """

    name: str
    required: frozenset
    optional: frozenset
    reader: str
    writer: str
    exact: Optional[str]
    numeric: str
    describe: str
    objects: str
    certificate: Optional[str] = None
    input_free: bool = False
    pairs: str = "causal"
    per_token: tuple = ()
    family_reader: Optional[str] = None
    family_at: Optional[str] = None
    family_blocks: Optional[str] = None
    family_words: Optional[str] = None
    no_family: str = "this layer kind has no theorem for every parameter value: certify it on a concrete input"
    family_form: Optional[str] = None

    def load(self, what):
        """The function a field names, imported on first use (None where the row names none).

        Raises
        ------
        KeyError
            If ``what`` is not a field that names a function.
        """
        REFERENCES[what]  # a field that names no function is a KeyError
        reference = getattr(self, what)
        if reference is None:
            return None
        module, name = reference.split(":")
        if module.split(".")[0] in _STAGES:  # a module of this package, named from its stage's folder
            module = f"{__package__.rpartition('.')[0]}.{module}"
        return getattr(import_module(module), name)


#: The package's stage folders: a reference starting with one is relative to the package, any other is a
#: module's full name (a kind defined outside the package, e.g. a test's).
_STAGES = frozenset(REFERENCES.values())
_NAMED = frozenset({"name"})

SELECTIVE_SSM = LayerKind(
    name="selective-ssm", required=frozenset({"kind", "A", "B", "C"}), optional=frozenset({"D", "name"}),
    reader="sources.layers:read_selective", writer="sources.layers:selective_json",
    exact="exact.interaction:selective_blocks", numeric="numeric.interaction:selective_rows",
    describe="render.interaction:describe_selective", objects="render.interaction:selective_objects",
    per_token=("A", "B", "C", "D"), family_reader="sources.parametric_layers:read_selective_family",
    family_at="sources.parametric_layers:selective_at", family_blocks="exact.layerfamily:selective_family_blocks",
    family_words="render.parametric_interaction:selective_family_words")
CONVOLUTION = LayerKind(
    name="convolution", required=frozenset({"kind", "kernel", "n"}), optional=_NAMED,
    reader="sources.layers:read_convolution", writer="sources.layers:convolution_json",
    exact="exact.interaction:convolution_blocks", numeric="numeric.interaction:convolution_rows",
    describe="render.interaction:describe_convolution", objects="render.interaction:convolution_objects",
    input_free=True, family_reader="sources.parametric_layers:read_convolution_family",
    family_at="sources.parametric_layers:convolution_at", family_blocks="exact.layerfamily:convolution_family_blocks",
    family_words="render.parametric_interaction:convolution_family_words")
LINEAR_ATTENTION = LayerKind(
    name="linear-attention", required=frozenset({"kind", "X", "heads"}), optional=_NAMED,
    reader="sources.layers:read_attention", writer="sources.layers:attention_json",
    exact="exact.interaction:linear_attention_blocks", numeric="numeric.interaction:linear_attention_rows",
    describe="render.interaction:describe_linear_attention", objects="render.interaction:attention_objects",
    family_reader="sources.parametric_layers:read_attention_family", family_at="sources.parametric_layers:attention_at",
    family_blocks="exact.layerfamily:attention_family_blocks",
    family_words="render.parametric_interaction:attention_family_words")
SOFTMAX_ATTENTION = LayerKind(
    name="softmax-attention", required=frozenset({"kind", "X", "heads"}), optional=_NAMED,
    reader="sources.layers:read_softmax_attention", writer="sources.layers:attention_json", exact=None,
    numeric="numeric.interaction:softmax_attention_rows", describe="render.interaction:describe_softmax_attention",
    objects="render.interaction:attention_objects", certificate="certificate.softmax:softmax_data",
    no_family="softmax attention with parameters is not certified: its weights are exponentials of the scores, "
              "outside the rational functions the proof works with (certify it on a concrete input)")
OPERATOR = LayerKind(
    name="operator", required=frozenset({"kind", "n", "p", "m", "blocks"}), optional=_NAMED,
    reader="sources.layers:read_operator", writer="sources.layers:operator_json",
    exact="exact.interaction:listed_blocks", numeric="numeric.interaction:listed_rows",
    describe="render.interaction:describe_operator", objects="render.interaction:operator_objects",
    input_free=True, pairs="listed", family_reader="sources.parametric_layers:read_operator_family",
    family_at="sources.parametric_layers:operator_at", family_blocks="exact.layerfamily:operator_family_blocks",
    family_words="render.parametric_interaction:operator_family_words")



def _recurrent(name, own):
    """A row of a linear-recurrence layer (:mod:`symssm.sources.recurrent`): ``own`` names its reader and sentence."""
    return LayerKind(
        name=name, required=frozenset({"kind", "V", "heads"}),
        optional=frozenset({"name", "out", "gate", "norm", "shift", "conv", "value_gate"}),
        reader=f"sources.recurrent:read_{own}", writer="sources.recurrent:recurrent_json",
        exact="exact.recurrent:recurrent_blocks", numeric="numeric.recurrent:recurrent_rows",
        describe=f"render.recurrent:describe_{own}", objects="render.recurrent:recurrent_objects",
        family_form="sources.recurrent_family:selective_family_spec")


MAMBA2_SSD = _recurrent("mamba2-ssd", "mamba2_ssd")
RETNET = _recurrent("retnet", "retnet")
GLA = _recurrent("gla", "gla")
DELTANET = _recurrent("deltanet", "deltanet")
GATED_DELTANET = _recurrent("gated-deltanet", "gated_deltanet")
KDA = _recurrent("kda", "kda")
RWKV6 = _recurrent("rwkv6", "rwkv6")
RWKV7 = _recurrent("rwkv7", "rwkv7")
MLSTM = _recurrent("mlstm", "mlstm")
#: The linear-recurrence rows (one head state per head, transitions on the key side; :mod:`.recurrent`).
RECURRENT = (MAMBA2_SSD, RETNET, GLA, DELTANET, GATED_DELTANET, KDA, RWKV6, RWKV7, MLSTM)

#: Every row, in the order the messages list the kinds.
KINDS = (SELECTIVE_SSM, CONVOLUTION, LINEAR_ATTENTION, SOFTMAX_ATTENTION, OPERATOR) + RECURRENT


def names():
    """The layer kinds' names, in the table's order.

    Returns
    -------
    tuple of str
        One name per row of :data:`KINDS`.

    Examples
    --------
    >>> names()[:2]
    ('selective-ssm', 'convolution')
    """
    return tuple(row.name for row in KINDS)


def of(kind):
    """The row of a layer kind (a name, or an object with a ``kind`` attribute or key).

    Parameters
    ----------
    kind : str, dict or object
        A kind's name, a spec or certificate dict with a ``"kind"`` key, or an object with a ``kind`` attribute.

    Returns
    -------
    LayerKind
        Its row of :data:`KINDS`.

    Raises
    ------
    InputError
        If the kind is not in the table (the message lists the kinds).

    Examples
    --------
    >>> of("nonsense")
    Traceback (most recent call last):
    ...
    symssm.errors.InputError: unknown kind 'nonsense'; the layer kinds are selective-ssm, convolution, linear-attention, softmax-attention, operator, mamba2-ssd, retnet, gla, deltanet, gated-deltanet, kda, rwkv6, rwkv7, mlstm
    """
    name = kind.get("kind") if isinstance(kind, dict) else getattr(kind, "kind", kind)
    for row in KINDS:  # read at each call: a test may add a row (monkeypatch KINDS)
        if row.name == name:
            return row
    raise InputError(f"unknown kind {str(name)[:40]!r}; the layer kinds are {', '.join(names())}")
