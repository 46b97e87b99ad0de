"""The generator's table of kinds: every row, run through every stage it names (a contract test).

One small system per row is certified through :func:`symssm.certify` (or :func:`symssm.gradient_certificate`);
its data must find the same row, conform to the row's part of the JSON Schema, and go through every
renderer the row names.
"""

import json
from importlib import resources

import jsonschema
import numpy as np
import pytest

from symssm import certify, ssm
from symssm.api import gradient_certificate
from symssm.certificate import kinds
from symssm.errors import InputError
from symssm.render.style import Style
from symssm.sources.checkpoints import CheckpointLayer
from symssm.sources.complex_system import complex_ssm
from symssm.sources.layers import layer_from_data
from symssm.sources.parametric import parametric_family
from symssm.sources.parametric_layers import parametric_layer_from_data
from symssm.sources.trained import trained_layer

ROT = ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]], name="rot")
DECAY = ssm([["1/2", 1], [0, "1/3"]], [[1], [1]], [[1, 0]], name="decay")
TAP = {"kind": "convolution", "name": "a tap in t", "n": 3, "parameters": ["t"], "kernel": [[["1", "1"]], [["t", "1"]]]}


def _trained():
    H, P = 1, 2
    tensors = {"kernel.log_dt": np.full(H, np.log(0.01)).astype(np.float32),
               "kernel.log_A_real": np.log(np.full((H, P), 0.5)).astype(np.float32),
               "kernel.A_imag": np.tile(np.pi * np.arange(P), (H, 1)).astype(np.float32),
               "kernel.C": np.full((H, P, 2), 0.5, np.float32), "D": np.ones(H, np.float32)}
    return trained_layer(CheckpointLayer("l", "s4d", tensors), "x.npz")


#: One certificate of each row: (row, how it is made).
EXAMPLES = [
    (kinds.HEAD_COUNT, lambda: certify(ROT, 8)),
    (kinds.GAUSSIAN_HEAD_COUNT, lambda: certify(complex_ssm([["1/2i", 0], [0, "1/3"]], [[1], [1]], [[1, 0], [0, 1]]))),
    (kinds.GRADIENT_HIGHWAY, lambda: gradient_certificate(DECAY, 30)),
    (kinds.INTERACTION_RANK, lambda: certify(layer_from_data({"kind": "convolution", "n": 3,
                                                              "kernel": [[[1, 0]], [[2, 1]]]}))),
    (kinds.PARAMETRIC_HEAD_COUNT, lambda: certify(parametric_family("rotation-symbolic"), 4)),
    (kinds.APPROXIMATE_HEAD_COUNT, lambda: certify(DECAY, 20, tolerance="1/100")),
    (kinds.PARAMETRIC_INTERACTION_RANK, lambda: certify(parametric_layer_from_data(TAP))),
    (kinds.TRAINED_HEAD_COUNT, lambda: certify(_trained(), 32, tolerance="1/100")),
]


def test_every_row_has_an_example():
    assert [row for row, _ in EXAMPLES] == list(kinds.KINDS)


@pytest.mark.parametrize("row, make", EXAMPLES, ids=[f"{r.name}{'-' + r.field if r.field else ''}" for r, _ in EXAMPLES])
def test_each_row_through_every_stage(row, make):
    cert = make()
    data = cert.data
    assert kinds.of(data) is row and cert.kind == row.name and data.get("field") == row.field
    schema = json.loads(resources.files("symssm").joinpath("schema/certificate.schema.json").read_text())
    jsonschema.validate(data, {**schema["$defs"][row.schema], "$defs": schema["$defs"]})
    assert "\\end{symssmtheorem}" in row.load("fragment")(data, Style())
    macros = row.load("macros")(data)
    assert macros and all(isinstance(name, str) and name.isalpha() for name, _ in macros)
    assert row.load("markdown")(data, "x").startswith("**symssm")
    assert all(isinstance(line, str) for line in row.load("summary")(data))
    assert row.load("statement")(data)
    values = row.load("values")
    if values is not None:
        assert data[row.count] in values(data) if row.count in data else values(data)
    text = repr(cert)
    assert text.startswith(f"<Certificate {row.name} ") and ("generically" in text) == row.family
    if row.at:
        assert isinstance(cert.at(**{p: 0 for p in _parameters(data)})[row.at], (int, type(None)))
    else:
        with pytest.raises(InputError, match="at\\(\\) applies to certificates with parameters"):
            cert.at(t=0)


def _parameters(data):
    return data["system"]["parameters"]


def test_of_tells_the_complex_head_count_by_its_field():
    assert kinds.of({"kind": "head-count"}) is kinds.HEAD_COUNT
    assert kinds.of({"kind": "head-count", "field": "Q(i)"}) is kinds.GAUSSIAN_HEAD_COUNT
    with pytest.raises(InputError, match="unknown field 'Q\\(j\\)' of a head-count certificate"):
        kinds.of({"kind": "head-count", "field": "Q(j)"})
    with pytest.raises(InputError, match="unknown certificate kind 'nope'"):
        kinds.of({"kind": "nope"})
    with pytest.raises(InputError, match="unknown certificate kind 'None'"):
        kinds.of([])


def test_for_system_chooses_by_type_and_tolerance():
    assert kinds.for_system(ROT) is kinds.HEAD_COUNT
    assert kinds.for_system(ROT, tolerance="1/10") is kinds.APPROXIMATE_HEAD_COUNT
    assert kinds.for_system(ROT, via="gradient") is kinds.GRADIENT_HIGHWAY
    with pytest.raises(InputError, match="--tolerance certifies eps-head counts of real systems"):
        kinds.for_system(parametric_family("rotation-symbolic"), tolerance="1/10")
    with pytest.raises(InputError, match="a trained layer's lags are not rational"):
        kinds.for_system(_trained())
    with pytest.raises(InputError, match="certify takes an SSM, .* got str"):
        kinds.for_system("rot")
    with pytest.raises(InputError, match="expected an SSM, got ComplexSSM"):
        gradient_certificate(complex_ssm([["i"]], [[1]], [[1]]))


def test_lengths():
    layer = parametric_layer_from_data(TAP)
    assert kinds.HEAD_COUNT.length_of(ROT, None) == 2 and kinds.HEAD_COUNT.length_of(ROT, 7) == 7
    assert kinds.PARAMETRIC_INTERACTION_RANK.length_of(layer, None) == 3
    assert kinds.TRAINED_HEAD_COUNT.length_of(None, None) == 1024
    with pytest.raises(InputError, match="n does not apply to a layer"):
        certify(layer, 3)
