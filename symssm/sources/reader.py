"""One reader for every spec: each command and the Python API recognise a spec's shape the same way.

A spec is a file (JSON, or an ``.npz`` archive of arrays) or a parsed JSON document (a line of a batch).
Its **shape** is recognised here, once, in this order:

``npz``
    an ``.npz`` archive (by its suffix): a time-invariant system as arrays (:mod:`.arrays`);
``parametric-layer``
    a layer with ``"kind"`` and ``"parameters"``: interaction ranks for every input (:mod:`.parametric_layers`);
``layer``
    a layer with a ``"kind"`` (:mod:`.layers`);
``family``
    a system with ``"parameters"``: a family (:mod:`.parametric`);
``complex``
    a system with an entry that has an imaginary part, exact over Q(i) (:mod:`.complex_system`);
``plain``
    a time-invariant system ``A, B, C[, D, n, name]`` with rational entries (:mod:`.spec`).

A command that does not take a shape refuses it here, with the same sentence for every command (only
who refuses it changes: "this command takes", "the numeric commands take"). The numeric commands read
``plain`` and ``npz`` specs as float matrices (:class:`FloatSpec`; decimals welcome, each entry
rounded once to the nearest float64), every other shape exactly.

Examples
--------
>>> shape_of({"A": [[1]], "B": [[1]], "C": [[1]]}), shape_of({"kind": "convolution", "parameters": ["t"]})
('plain', 'parametric-layer')
>>> source = source_from_data({"A": [["1/2i"]], "B": [[1]], "C": [[1]], "n": 3}, what="line 1")
>>> source.shape, source.n, type(source.system).__name__
('complex', 3, 'ComplexSSM')
>>> source_from_data({"A": [["a"]], "B": [[1]], "C": [[1]], "parameters": ["a"]}, accept=("plain",))
Traceback (most recent call last):
...
symssm.errors.InputError: spec declares parameters; 'symssm certify' certifies the family for every parameter value (this command takes a concrete system)
"""

import shlex
from dataclasses import dataclass
from fractions import Fraction
from typing import Optional

from ..errors import InputError
from ..formats.jsonio import load_strict
from .system import check_shapes, exact_matrix

__all__ = ["SHAPES", "Source", "FloatSpec", "shape_of", "read_source", "source_from_data", "refuse"]

#: Every shape a spec may have, in the order they are recognised (see the module's description).
SHAPES = ("npz", "parametric-layer", "layer", "family", "complex", "plain")
#: Who refuses a shape, in its message, unless a command says otherwise.
THIS_COMMAND = "this command takes"


@dataclass(frozen=True)
class Source:
    """A spec, read: its shape, the system it describes and the length it asks for.

    Parameters
    ----------
    shape : str
        One of :data:`SHAPES` (``"family"`` also for a built-in family with parameters).
    system : object
        :class:`~.system.SSM`, :class:`~.complex_system.ComplexSSM`, :class:`~.parametric.ParametricSSM`,
        :class:`~.layers.Layer`, :class:`~.parametric_layers.ParametricLayer`, or a :class:`FloatSpec` when read
        for the numeric commands.
    n : int, optional
        The spec's ``n`` (None when it gives none, and for layers, whose length is their input's).
    inputs : tuple of str
        The files read (a command never writes over them).
    """

    shape: str
    system: object
    n: Optional[int] = None
    inputs: tuple = ()


@dataclass(frozen=True)
class FloatSpec:
    """A spec read for the numeric commands: float matrices (nested lists or arrays) and a name.

    ``D`` is None when absent. :func:`symssm.numeric.headcount.as_float_system` validates the shapes.
    """

    A: object
    B: object
    C: object
    D: object = None
    name: str = ""


def shape_of(data):
    """The shape of a parsed JSON spec (``npz`` is told by a file's name, :func:`read_source`).

    Parameters
    ----------
    data : object
        Parsed JSON.

    Returns
    -------
    str
        ``"parametric-layer"``, ``"layer"``, ``"family"``, ``"complex"`` or ``"plain"`` (also for what is not a
        spec at all: its reader then says what is wrong).
    """
    from .complex_system import has_imaginary_entries

    if isinstance(data, dict) and "kind" in data:
        return "parametric-layer" if "parameters" in data else "layer"
    if isinstance(data, dict) and "parameters" in data:
        return "family"
    return "complex" if has_imaginary_entries(data) else "plain"


def refuse(shape, what, *, accept, taker=THIS_COMMAND, kind=None):
    """The one sentence that refuses a spec of ``shape`` (a command that takes only ``accept``).

    Parameters
    ----------
    shape : str
        The spec's shape.
    what : str
        The spec, as the message names it (``"spec FILE"``, ``"line 3"``, ``"family NAME"``).
    accept : collection of str
        The shapes the command takes.
    taker : str
        Who takes what: ``"this command takes"``, ``"the numeric commands take"``.
    kind : str, optional
        A layer's kind.

    Returns
    -------
    InputError
        The error to raise.
    """
    kind = str(kind)[:40]
    if shape == "layer":
        text = (f"{what} describes a {kind} layer; {taker} a time-invariant SSM (use 'symssm certify' or "
                "'symssm numeric' for layers)")
    elif shape == "parametric-layer":
        text = (f"{what} describes a {kind} layer with parameters; 'symssm certify' certifies its interaction rank "
                f"for every input ({taker} a concrete {'layer' if 'layer' in accept else 'system'})")
    elif shape == "family":
        text = (f"{what} declares parameters; 'symssm certify' certifies the family for every parameter value "
                f"({taker} a concrete system)")
    elif shape == "complex":
        text = f"{what} has complex entries; {taker} a real system (symssm certify and symssm check handle complex ones)"
    else:  # pragma: no cover - every command takes plain specs and archives
        text = f"{what}: {taker} no {shape} spec"
    return InputError(text)


def read_source(path, *, accept=SHAPES, floats=False, taker=THIS_COMMAND):
    """Read a spec file of any shape.

    Parameters
    ----------
    path : str or os.PathLike
        A JSON spec, or an ``.npz`` archive.
    accept : collection of str
        The shapes the caller takes (default: every shape); others are refused with :func:`refuse`.
    floats : bool
        Read ``plain`` and ``npz`` specs as float matrices (a :class:`FloatSpec`) for the numeric commands.
    taker : str
        Who refuses a shape, in the message.

    Returns
    -------
    Source

    Raises
    ------
    InputError
        If the file cannot be read, its shape is not in ``accept``, or the spec is invalid (the message
        starts with ``spec PATH``).

    Examples
    --------
    >>> import json, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "rot.json")
    >>> _ = open(path, "w").write(json.dumps({"A": [[0, -1], [1, 0]], "B": [[1], [0]], "C": [[0, 1]], "n": 5}))
    >>> source = read_source(path)
    >>> source.shape, source.n, source.system.N
    ('plain', 5, 2)
    >>> read_source(path, floats=True).system.A
    [[0.0, -1.0], [1.0, 0.0]]
    """
    from .arrays import is_npz

    what = f"spec {path}"
    if is_npz(path):
        if floats:
            return Source("npz", *_float_npz(path), (path,))
        from .arrays import read_npz_spec

        spec = read_npz_spec(path)
        return Source("npz", spec.system, spec.n, (path,))
    data = load_strict(path, what=what)
    if is_certificate(data):
        raise InputError(f"{path} is a certificate, not a spec: to verify it, run 'symssm check {shlex.quote(str(path))}'")
    source = source_from_data(data, what=what, accept=accept, floats=floats, taker=taker)
    return Source(source.shape, source.system, source.n, (path,))


def is_certificate(data):
    """True if parsed JSON is a symssm certificate (its ``format`` field), which no command reads as a spec.

    Examples
    --------
    >>> is_certificate({"format": "symssm-certificate", "kind": "head-count"}), is_certificate({"A": [[1]]})
    (True, False)
    """
    return isinstance(data, dict) and data.get("format") == "symssm-certificate"


def source_from_data(data, *, what="spec", accept=SHAPES, floats=False, taker=THIS_COMMAND):
    """Read a parsed JSON spec of any shape (a batch line, a document from Python).

    Parameters
    ----------
    data : object
        Parsed JSON.
    what : str
        How messages name the spec.
    accept, floats, taker
        As :func:`read_source`.

    Returns
    -------
    Source
        With no ``inputs``.

    Raises
    ------
    InputError
        If the shape is not in ``accept`` or the spec is invalid (the message starts with ``what``).
    """
    if is_certificate(data):
        raise InputError(f"{what} is a certificate, not a spec: to verify it, run 'symssm check'")
    shape = shape_of(data)
    if shape not in accept:
        raise refuse(shape, what, accept=accept, taker=taker, kind=data.get("kind") if isinstance(data, dict) else None)
    if shape == "parametric-layer":
        from .parametric_layers import parametric_layer_from_data

        return Source(shape, parametric_layer_from_data(data, what=what))
    if shape == "layer":
        from .layers import layer_from_data

        return Source(shape, layer_from_data(data, what=what))
    if shape == "family":
        from .parametric import parametric_from_data

        system, n = parametric_from_data(data, what=what)
        return Source(shape, system, n)
    from .spec import check_spec_fields, spec_from_data

    if shape == "plain" and not floats:
        spec = spec_from_data(data, what=what)
        return Source(shape, spec.system, spec.n)
    n, name = check_spec_fields(data, what=what)
    if shape == "complex":
        from .complex_system import complex_ssm

        try:
            return Source(shape, complex_ssm(data["A"], data["B"], data["C"], data.get("D"), name=name), n)
        except InputError as exc:
            exc.args = (f"{what}: {exc}",)
            raise
    A, B, C, D = (_float_matrix(data, key, what) for key in "ABCD")
    try:
        check_shapes(A, B, C, D)
    except InputError as exc:
        exc.args = (f"{what}: {exc}",)
        raise
    return Source(shape, FloatSpec(A, B, C, D, name=name), n)


def _float_matrix(data, key, what):
    """Matrix ``key`` of a spec as nested lists of floats: read exactly, as every command reads it (the same
    errors), then each entry rounded once to the nearest float64."""
    if data.get(key) is None:  # check_spec_fields has required A, B and C
        return None
    value = data[key]
    if hasattr(value, "array") and type(value).__name__ == "IntegerMatrix":  # a large integer matrix, read as int64
        return value.array.astype("float64")
    try:
        exact = exact_matrix(key, value)
    except InputError as exc:
        exc.args = (f"{what}: {exc}",)
        raise
    out = []
    for i, row in enumerate(exact):
        try:
            out.append([float(x) for x in row])
        except OverflowError:
            j = next(j for j, x in enumerate(row) if abs(x) > _LARGEST)
            raise InputError(f"{what}: {key}[{i}][{j}] overflows float64") from None
    return out


#: The largest finite float64.
_LARGEST = Fraction(1.7976931348623157e308)


def _float_npz(path):
    """``(FloatSpec, n)`` of an archive: its matrices as float arrays (numerator/denominator pairs divided)."""
    from .arrays import read_npz_arrays

    mats, n = read_npz_arrays(path)
    floats = {key: (value[0].astype("float64") / value[1].astype("float64")) if isinstance(value, tuple) else value
              for key, value in mats.items()}
    return FloatSpec(floats["A"], floats["B"], floats["C"], floats.get("D")), n
