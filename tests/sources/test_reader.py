"""One spec reader: every command and the Python API recognise every shape the same way, with the same errors."""

import json
import os

import numpy as np
import pytest

import symssm
from symssm.batch import run_lines
from symssm.cli import main
from symssm.errors import InputError
from symssm.sources.reader import SHAPES, FloatSpec, read_source, shape_of, source_from_data

from ..paths import ROOT

EXAMPLE = os.path.join(ROOT, "docs", "example")

#: One spec of each JSON shape: (shape, document, the certificate kind `symssm certify` makes of it).
DOCUMENTS = [
    ("plain", {"name": "rot", "A": [[0, -1], [1, 0]], "B": [[1, 0], [0, 1]], "C": [[1, 0], [0, 1]], "n": 8},
     "head-count"),
    ("complex", {"name": "c", "A": [["1/2i", 0], [0, "1/3"]], "B": [[1], [1]], "C": [[1, 0], [0, 1]], "n": 6},
     "head-count"),
    ("family", {"name": "ab", "parameters": ["a", "b"], "A": [["a", 0], [0, "b"]], "B": [[1, 0], [0, 1]],
                "C": [[1, 0], [0, 1]], "n": 3}, "parametric-head-count"),
    ("layer", json.load(open(os.path.join(EXAMPLE, "attention.json"))), "interaction-rank"),
    ("parametric-layer", json.load(open(os.path.join(EXAMPLE, "tap-in-t.json"))), "parametric-interaction-rank"),
]


def test_the_shapes_are_the_documented_ones():
    assert SHAPES == ("npz", "parametric-layer", "layer", "family", "complex", "plain")
    assert {shape for shape, _, _ in DOCUMENTS} | {"npz"} == set(SHAPES)


@pytest.mark.parametrize("shape, document, kind", DOCUMENTS, ids=[d[0] for d in DOCUMENTS])
def test_every_entry_point_recognises_the_shape(shape, document, kind, tmp_path, capsys):
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(document))
    assert shape_of(document) == shape
    source = read_source(path)
    assert (source.shape, source.inputs) == (shape, (path,))
    assert symssm.read_source(path).system == source_from_data(document).system
    assert main(["certify", str(path), "-o", str(tmp_path / "c.json")]) == 0
    assert json.load(open(tmp_path / "c.json"))["kind"] == kind
    row, = run_lines([json.dumps(document)])
    assert (row["kind"], row["error"], row["verified"]) == (kind, None, True)


def test_an_archive_is_read_exactly_or_as_floats(tmp_path):
    np.savez(tmp_path / "s.npz", A=np.array([[1, 2], [0, 1]]), B=np.eye(2, dtype=int), C=np.array([[1, 0]]),
             n=np.array(5))
    exact, floats = read_source(tmp_path / "s.npz"), read_source(tmp_path / "s.npz", floats=True)
    assert (exact.shape, exact.n, exact.system.A[0][1]) == ("npz", 5, 2)
    assert isinstance(floats.system, FloatSpec) and floats.system.A.tolist() == [[1, 2], [0, 1]] and floats.n == 5


def test_floats_are_read_by_the_exact_grammar_then_rounded_once():
    source = source_from_data({"A": [["1/3", "0.1"], [0, 1]], "B": [[1], [0]], "C": [[1, 0]], "name": "x"},
                              floats=True)
    assert source.system == FloatSpec([[1 / 3, 0.1], [0.0, 1.0]], [[1.0], [0.0]], [[1.0, 0.0]], None, "x")
    with pytest.raises(InputError, match="^spec: A\\[0\\]\\[0\\] overflows float64$"):
        source_from_data({"A": [["1e400"]], "B": [[1]], "C": [[1]]}, floats=True)


BAD = [
    ({"A": [[1, 2]], "B": [[1]], "C": [[1]]}, "A is 1x2 but must be square"),
    ({"A": [["abc"]], "B": [[1]], "C": [[1]]}, "A[0][0] 'abc' is not an integer, p/q or exact decimal"),
    ({"A": [[True]], "B": [[1]], "C": [[1]]}, "A[0][0] is a boolean, not a number"),
    ({"A": [[1, 2], [3]], "B": [[1], [1]], "C": [[1, 1]]}, "A is ragged: row 0 has 2 entries but row 1 has 1"),
    ({"A": [[1]], "B": [[1, 2]], "C": [[1]], "D": [[1]]}, "D is 1x1 but must be p x m = 1x2 (C is 1x1, B is 1x2)"),
]


@pytest.mark.parametrize("document, message", BAD, ids=[m[:20] for _, m in BAD])
def test_the_same_error_from_every_command(document, message, tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    errors = []
    for argv in (["certify", str(path)], ["gradient", str(path)], ["numeric", str(path)],
                 ["plot", "heads", str(path), "-o", str(tmp_path / "f.png")]):
        assert main(argv) == 2
        errors.append(capsys.readouterr().err.strip())
    assert set(errors) == {f"symssm: error: spec {path}: {message}"}
    row, = run_lines([json.dumps(document)])
    assert row["error"] == f"line 1: {message}"
    with pytest.raises(InputError) as exc:
        read_source(path)
    assert str(exc.value) == f"spec {path}: {message}"


REFUSED = [
    (["gradient"], "family", "spec {p} declares parameters; 'symssm certify' certifies the family for every parameter "
     "value (this command takes a concrete system)"),
    (["numeric"], "family", "spec {p} declares parameters; 'symssm certify' certifies the family for every parameter "
     "value (the numeric commands take a concrete system)"),
    (["gradient"], "complex", "spec {p} has complex entries; this command takes a real system (symssm certify and "
     "symssm check handle complex ones)"),
    (["numeric"], "complex", "spec {p} has complex entries; the numeric commands take a real system (symssm certify "
     "and symssm check handle complex ones)"),
    (["gradient"], "layer", "spec {p} describes a linear-attention layer; this command takes a time-invariant SSM (use "
     "'symssm certify' or 'symssm numeric' for layers)"),
    (["gradient"], "parametric-layer", "spec {p} describes a convolution layer with parameters; 'symssm certify' "
     "certifies its interaction rank for every input (this command takes a concrete system)"),
    (["numeric"], "parametric-layer", "spec {p} describes a convolution layer with parameters; 'symssm certify' "
     "certifies its interaction rank for every input (the numeric commands take a concrete layer)"),
]


@pytest.mark.parametrize("argv, shape, message", REFUSED, ids=[f"{a[0]}-{s}" for a, s, _ in REFUSED])
def test_a_command_refuses_a_shape_it_does_not_take_in_one_sentence(argv, shape, message, tmp_path, capsys):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(next(d for s, d, _ in DOCUMENTS if s == shape)))
    assert main(argv + [str(path)]) == 2
    assert capsys.readouterr().err.strip() == f"symssm: error: {message.format(p=path)}"


def test_a_built_in_family_with_parameters_is_refused_like_a_family_spec(capsys):
    assert main(["gradient", "--family", "rotation-symbolic"]) == 2
    assert capsys.readouterr().err.strip() == (
        "symssm: error: family rotation-symbolic declares parameters; 'symssm certify' certifies the family for every "
        "parameter value (this command takes a concrete system)")
