"""Layers of the unified framework whose entries are formulas in parameters: theorems for every input.

A layer spec (:mod:`symssm.sources.layers`) with a ``"parameters"`` list takes a formula of the
family grammar (``docs/parametric.md``) wherever it takes a number: token values ``X``, per-token
``A_i``, ``B_i``, ``C_i``, ``D_i``, kernel taps, the blocks of an ``operator``.  Making the tokens
parameters turns "the interaction rank on this input" into "the interaction rank on every input"::

    {"kind": "linear-attention", "parameters": ["x1", "x2", "x3"],
     "X": [["x1"], ["x2"], ["x3"]], "heads": [{"Q": [[1]], "K": [[1]], "V": [[1]]}]}

Softmax attention is refused with parameters: its weights are exponentials of the scores, outside
the rational functions the proof works with (certify it on a concrete input instead).

Every matrix of the layer is stored flat under a key (``"A[2]"`` is token 2's ``A``; ``"kernel[0]"``
the first tap; ``"X"`` the tokens; ``"Q[1]"``, ``"K[1]"``, ``"V[1]"`` head 1; ``"W[2,1]"`` an
operator's block (2, 1)); the certificate's bodies list their entries under the same keys.

Examples
--------
>>> layer = parametric_layer_from_data({"kind": "convolution", "n": 3, "parameters": ["t"],
...                                     "kernel": [[["1", "0"], ["0", "t"]], [["t", "0"], ["0", "1"]]]})
>>> layer.kind, layer.n, layer.p, layer.m, layer.parameters
('convolution', 3, 2, 2, ('t',))
>>> [key for key, _ in layer.matrices]
['kernel[0]', 'kernel[1]']
>>> layer.at({"t": 2}).param("kernel")[0]
((Fraction(1, 1), Fraction(0, 1)), (Fraction(0, 1), Fraction(2, 1)))
"""

import hashlib
import json
from dataclasses import dataclass, field as dc_field
from fractions import Fraction

from ..errors import InputError, LimitError, ParseError, ShapeError
from ..formats.expressions import check_parameters, formula_field, parse_formula
from ..formats.limits import MAX_PARAMETRIC_DIM, check_n, check_name
from . import layer_kinds

__all__ = ["ParametricLayer", "is_parametric_layer_spec", "parametric_layer_from_data", "parametric_layer",
           "read_parametric_layer", "parametric_layer_hash",
           "MAX_PARAMETRIC_TOKENS", "MAX_PARAMETRIC_HEADS", "PARAMETRIC_LAYER_KINDS", "layer_spec_fields"]

#: Longest input of a layer with parameters (its blocks grow like n^2, their degrees like n).
MAX_PARAMETRIC_TOKENS = 12
#: Most heads of an attention layer with parameters.
MAX_PARAMETRIC_HEADS = 8
#: The layer kinds a layer with parameters may have (the rows of :mod:`~symssm.sources.layer_kinds` with a family
#: reader, and those written in the form of one: the linear-recurrence kinds as selective SSMs).
PARAMETRIC_LAYER_KINDS = tuple(row.name for row in layer_kinds.KINDS
                               if row.family_reader is not None or row.family_form is not None)


def layer_spec_fields(kind):
    """The spec fields of a layer kind with parameters, as ``(required, optional)`` sets.

    Parameters
    ----------
    kind : str
        A layer kind with parameters (:data:`PARAMETRIC_LAYER_KINDS`).

    Returns
    -------
    tuple of set
        ``(required, optional)``.
    """
    row = layer_kinds.of(kind)
    return set(row.required) | {"parameters"}, set(row.optional)


@dataclass(frozen=True)
class ParametricLayer:
    """A layer over ``QQ(parameters)``.

    Attributes
    ----------
    kind : str
    n, p, m : int
        Tokens, output and input width.
    parameters : tuple of str
    matrices : tuple of (str, tuple)
        Every matrix under its key, entries :class:`~symssm.formats.ratfunc.RationalFunction` of
        :attr:`field` (python-flint, reduced), in the canonical
        order (tokens, heads and taps in order; an operator's blocks sorted by (i, j)).
    structure : tuple
        ``("selective-ssm", N, has_D)``, ``("convolution", taps)``, ``("linear-attention", heads, d)``
        or ``("operator", ((i, j), ...))``.
    spec : dict
        The spec's fields as written (formulas, integers), without the name: what is hashed.
    """

    kind: str
    n: int
    p: int
    m: int
    parameters: tuple
    matrices: tuple
    structure: tuple
    spec: dict = dc_field(repr=False, compare=False)
    name: str = dc_field(default="", compare=False)
    field: object = dc_field(default=None, repr=False, compare=False)

    @property
    def canonical_text(self):
        """The hashed text: the spec's fields as written (no name), compact JSON, keys sorted, one newline."""
        return parametric_layer_hash_text(self.spec)

    @property
    def sha256(self):
        return hashlib.sha256(self.canonical_text.encode("ascii")).hexdigest()

    def system_json(self):
        """The certificate's ``"system"``: the spec as written, with ``name``, ``n``, ``p``, ``m``."""
        out = {key: value for key, value in self.spec.items()}
        out.update(name=self.name, n=self.n, p=self.p, m=self.m)
        return out

    def at(self, point):
        """The concrete :class:`~symssm.sources.layers.Layer` at a parameter point (an independent evaluation).

        Parameters
        ----------
        point : dict
            ``{name: int, Fraction or "p/q"}`` for every parameter.

        Raises
        ------
        InputError
            If a parameter is missing or unknown, or a denominator vanishes at the point.
        """
        from .layers import layer_from_data

        if set(point) != set(self.parameters):
            raise InputError(f"give every parameter exactly ({', '.join(self.parameters)})")
        values = [Fraction(point[x]) for x in self.parameters]

        def value(entry, where):
            num, den = entry.value_at(values)
            if den == 0:
                raise InputError(f"the layer is not defined at this point: the denominator of {where} vanishes")
            v = num / den
            return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"

        mats = {key: [[value(x, f"{key}[{r}][{c}]") for c, x in enumerate(row)] for r, row in enumerate(M)]
                for key, M in self.matrices}
        data = {"kind": self.kind, "name": self.name}
        data.update(layer_kinds.of(self.kind).load("family_at")(self, mats))
        return layer_from_data(data)

    def __repr__(self):
        label = f" {self.name!r}" if self.name else ""
        return (f"<ParametricLayer {self.kind}{label} n={self.n} p={self.p} m={self.m} "
                f"over Q({', '.join(self.parameters)})>")


def parametric_layer_hash_text(spec):
    """The canonical text of a parametric layer spec's hashed fields (compact JSON, sorted keys, newline)."""
    data = {k: v for k, v in spec.items() if k != "name"}
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True) + "\n"


def parametric_layer_hash(spec):
    """SHA-256 (hex) of :func:`parametric_layer_hash_text`.

    Parameters
    ----------
    spec : dict
        The layer spec, as parsed.

    Returns
    -------
    str
    """
    return hashlib.sha256(parametric_layer_hash_text(spec).encode("ascii")).hexdigest()


def is_parametric_layer_spec(data):
    """Whether parsed spec JSON is a layer (``"kind"``) with ``"parameters"``.

    Parameters
    ----------
    data : object
        Parsed spec JSON.

    Returns
    -------
    bool
    """
    return isinstance(data, dict) and "kind" in data and "parameters" in data


def _list(value, what, limit):
    if not isinstance(value, list) or not value:
        raise ShapeError(f"{what} must be a non-empty list")
    if len(value) > limit:
        raise LimitError(f"{what} has {len(value)} items; the limit for layers with parameters is {limit}")
    return value


def _formulas(rows, what, field, shape=None):
    """The parsed entries of one matrix of formulas; ``shape`` (rows, cols) when it is known."""
    if not isinstance(rows, list) or not rows or not all(isinstance(r, list) and r for r in rows):
        raise ShapeError(f"{what} must be a non-empty matrix (a list of rows)")
    width = len(rows[0])
    if any(len(r) != width for r in rows):
        raise ShapeError(f"{what} has rows of different lengths")
    if len(rows) > MAX_PARAMETRIC_DIM or width > MAX_PARAMETRIC_DIM:
        raise LimitError(f"{what} is {len(rows)} x {width}; layers with parameters are limited to "
                         f"{MAX_PARAMETRIC_DIM} x {MAX_PARAMETRIC_DIM}")
    if shape is not None and (len(rows), width) != shape:
        raise ShapeError(f"{what} is {len(rows)} x {width} but must be {shape[0]} x {shape[1]}")
    values = []
    for r, row in enumerate(rows):
        vrow = []
        for c, entry in enumerate(row):
            if type(entry) is bool or type(entry) not in (int, str):
                raise ParseError(f"{what}[{r}][{c}] must be a formula string or an integer")
            try:
                vrow.append(parse_formula(entry, field))
            except InputError as exc:
                exc.args = (f"{what}[{r}][{c}]: {exc}",)
                raise
        values.append(tuple(vrow))
    return tuple(values)


def parametric_layer_from_data(data, *, what="layer"):
    """Validate a layer spec with ``"parameters"`` and build the :class:`ParametricLayer`.

    Parameters
    ----------
    data : object
        Parsed layer JSON with ``"kind"`` and ``"parameters"``.
    what : str
        How messages name it.

    Returns
    -------
    ParametricLayer

    Raises
    ------
    InputError
        An unknown kind or field, a missing field, a formula outside the grammar or naming an
        undeclared parameter, wrong shapes, or a limit exceeded (``MAX_PARAMETRIC_TOKENS`` tokens,
        ``MAX_PARAMETRIC_DIM`` per dimension, ``MAX_PARAMETRIC_HEADS`` heads, 16 parameters); the
        message starts with ``what`` and names the field.
    """
    try:
        return _build(data, what)
    except InputError as exc:
        if not str(exc).startswith(what):
            exc.args = (f"{what}: {exc}",)
        raise


def _build(data, what):
    if not isinstance(data, dict):
        raise ParseError("must be a JSON object")
    kind = data.get("kind")
    row = next((row for row in layer_kinds.KINDS if row.name == kind), None)
    if row is not None and row.family_reader is None and row.family_form is not None:
        data = row.load("family_form")(data)  # the same blocks as a kind with a family theorem
        kind = data["kind"]
        row = layer_kinds.of(kind)
    if row is not None and row.family_reader is None:
        raise InputError(row.no_family)
    if row is None:
        raise InputError(f"unknown kind {str(kind)[:40]!r}; the layer kinds with parameters are "
                         f"{', '.join(PARAMETRIC_LAYER_KINDS)}")
    required, optional = layer_spec_fields(kind)
    missing = sorted(required - set(data))
    if missing:
        raise InputError(f"a {kind} layer needs the field {missing[0]!r}")
    unknown = sorted(set(data) - required - optional)
    if unknown:
        raise InputError(f"unknown field {unknown[0][:40]!r} for a {kind} layer with parameters")
    parameters = check_parameters(data["parameters"])
    name = check_name(data.get("name", ""), what="name")
    field = formula_field(parameters)
    spec = {key: data[key] for key in sorted(required | optional) if key in data and key != "name"}
    n, p, m, mats, structure = row.load("family_reader")(data, field)
    return ParametricLayer(kind, n, p, m, parameters, tuple(mats), structure, spec, name, field)


def parametric_layer(data, *, what="layer"):
    """A layer with parameters from a spec dict (``symssm.parametric_layer``; see :func:`parametric_layer_from_data`).

    Parameters
    ----------
    data : dict
        The layer spec.
    what : str
        How messages name it.

    Returns
    -------
    ParametricLayer

    Raises
    ------
    InputError
        As :func:`parametric_layer_from_data`.

    Examples
    --------
    >>> import symssm
    >>> layer = symssm.parametric_layer({"kind": "linear-attention", "parameters": ["x1", "x2"],
    ...     "X": [["x1"], ["x2"]], "heads": [{"Q": [[1]], "K": [[1]], "V": [[1]]}]})
    >>> cert = symssm.certify(layer)
    >>> cert["interaction_rank"], cert.at(x1=0, x2=0)["interaction_rank"]
    (1, 0)
    """
    return parametric_layer_from_data(data, what=what)


def read_parametric_layer(path):
    """Read a layer spec file with ``"parameters"`` strictly.

    Parameters
    ----------
    path : str or os.PathLike
        The spec's JSON file.

    Returns
    -------
    ParametricLayer

    Raises
    ------
    InputError
        If the file is not strict JSON or not a valid layer with parameters (the message names the file).
    """
    from ..formats.jsonio import load_strict

    return parametric_layer_from_data(load_strict(path, what=f"spec {path}"), what=f"spec {path}")


# ---------------------------------------------------------------- each kind's family reader and evaluation (rows of layer_kinds.py)

def read_selective_family(data, field):
    """``(n, p, m, matrices, structure)`` of a selective SSM with parameters (per-token ``A``, ``B``, ``C``, ``D``)."""
    mats = []
    A = _list(data["A"], "A", MAX_PARAMETRIC_TOKENS)
    n = len(A)
    lists = {"A": A, "B": _list(data["B"], "B", MAX_PARAMETRIC_TOKENS),
             "C": _list(data["C"], "C", MAX_PARAMETRIC_TOKENS)}
    if "D" in data:
        lists["D"] = _list(data["D"], "D", MAX_PARAMETRIC_TOKENS)
    if any(len(v) != n for v in lists.values()):
        raise ShapeError(f"A, B, C (and D) must list one matrix per token: A has {n}")
    first = {key: _formulas(v[0], f"{key}[1]", field) for key, v in lists.items()}
    N, m, p = len(first["A"]), len(first["B"][0]), len(first["C"])
    shapes = {"A": (N, N), "B": (N, m), "C": (p, N), "D": (p, m)}
    for key, seq in lists.items():
        for i, M in enumerate(seq, start=1):
            mats.append((f"{key}[{i}]", _formulas(M, f"{key}[{i}]", field, shapes[key])))
    structure = (data["kind"], N, "D" in lists)
    return n, p, m, mats, structure


def read_convolution_family(data, field):
    """``(n, p, m, matrices, structure)`` of a convolution with parameters (its taps)."""
    mats = []
    n = check_n(data["n"], what="n", minimum=1, maximum=MAX_PARAMETRIC_TOKENS)
    taps = _list(data["kernel"], "kernel", MAX_PARAMETRIC_TOKENS)
    K0 = _formulas(taps[0], "kernel[0]", field)
    p, m = len(K0), len(K0[0])
    for d, M in enumerate(taps):
        mats.append((f"kernel[{d}]", _formulas(M, f"kernel[{d}]", field, (p, m))))
    structure = (data["kind"], len(taps))
    return n, p, m, mats, structure


def read_attention_family(data, field):
    """``(n, p, m, matrices, structure)`` of linear attention with parameters (tokens and heads)."""
    mats = []
    X = _list(data["X"], "X", MAX_PARAMETRIC_TOKENS)
    Xv = _formulas(X, "X", field)
    n, m = len(Xv), len(Xv[0])
    heads = _list(data["heads"], "heads", MAX_PARAMETRIC_HEADS)
    mats.append(("X", Xv))
    p = d = None
    for h, head in enumerate(heads, start=1):
        if not isinstance(head, dict) or set(head) != {"Q", "K", "V"}:
            raise InputError(f"heads[{h - 1}] must be an object with exactly Q, K and V")
        Q = _formulas(head["Q"], f"heads[{h - 1}].Q", field)
        d = len(Q) if d is None else d
        Q = _formulas(head["Q"], f"heads[{h - 1}].Q", field, (d, m))
        K = _formulas(head["K"], f"heads[{h - 1}].K", field, (d, m))
        V = _formulas(head["V"], f"heads[{h - 1}].V", field)
        p = len(V) if p is None else p
        V = _formulas(head["V"], f"heads[{h - 1}].V", field, (p, m))
        mats += [(f"Q[{h}]", Q), (f"K[{h}]", K), (f"V[{h}]", V)]
    structure = (data["kind"], len(heads), d)
    return n, p, m, mats, structure


def read_operator_family(data, field):
    """``(n, p, m, matrices, structure)`` of an operator with parameters (its listed blocks)."""
    n = check_n(data["n"], what="n", minimum=1, maximum=MAX_PARAMETRIC_TOKENS)
    p = check_n(data["p"], what="p", minimum=1, maximum=MAX_PARAMETRIC_DIM)
    m = check_n(data["m"], what="m", minimum=1, maximum=MAX_PARAMETRIC_DIM)
    blocks = _list(data["blocks"], "blocks", n * n)
    found = {}
    for b, item in enumerate(blocks):
        if not isinstance(item, dict) or set(item) != {"i", "j", "W"}:
            raise InputError(f"blocks[{b}] must be an object with exactly i, j and W")
        i = check_n(item["i"], what=f"blocks[{b}].i", minimum=1, maximum=n)
        j = check_n(item["j"], what=f"blocks[{b}].j", minimum=1, maximum=n)
        if (i, j) in found:
            raise InputError(f"blocks[{b}]: the block ({i}, {j}) is listed twice")
        found[(i, j)] = _formulas(item["W"], f"blocks[{b}].W", field, (p, m))
    order = tuple(sorted(found))
    mats = [(f"W[{i},{j}]", found[(i, j)]) for i, j in order]
    structure = (data["kind"], order)
    return n, p, m, mats, structure


def selective_at(layer, mats):
    """A selective SSM's own spec fields at a point (``mats``: every matrix's value texts under its key)."""
    return {key: [mats[f"{key}[{i}]"] for i in range(1, layer.n + 1)]
            for key in ("A", "B", "C") + (("D",) if layer.structure[2] else ())}


def convolution_at(layer, mats):
    """A convolution's own spec fields at a point."""
    return {"n": layer.n, "kernel": [mats[f"kernel[{d}]"] for d in range(layer.structure[1])]}


def attention_at(layer, mats):
    """Linear attention's own spec fields at a point."""
    return {"X": mats["X"], "heads": [{"Q": mats[f"Q[{h}]"], "K": mats[f"K[{h}]"], "V": mats[f"V[{h}]"]}
                                      for h in range(1, layer.structure[1] + 1)]}


def operator_at(layer, mats):
    """An operator's own spec fields at a point."""
    return {"n": layer.n, "p": layer.p, "m": layer.m,
            "blocks": [{"i": i, "j": j, "W": mats[f"W[{i},{j}]"]} for i, j in layer.structure[1]]}
