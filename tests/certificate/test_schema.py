"""Emitted certificates conform to the JSON Schema shipped in the package."""

import json
from importlib import resources

import jsonschema
import pytest

from symssm import certify
from symssm.sources.examples import EXAMPLES


def schema():
    return json.loads(resources.files("symssm").joinpath("schema/certificate.schema.json").read_text())


def test_schema_is_valid():
    jsonschema.Draft202012Validator.check_schema(schema())


@pytest.mark.parametrize("method", ["exact", "modular"])
def test_head_count_certificates_conform(method):
    validator = jsonschema.Draft202012Validator(schema())
    for ex in EXAMPLES:
        data = json.loads(certify(ex.system, 6, method=method).to_json())
        validator.validate(data)


def test_schema_catches_a_type_error():
    data = json.loads(certify(EXAMPLES[0].system, 6).to_json())
    data["head_count"] = "2"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft202012Validator(schema()).validate(data)


def test_gradient_certificates_conform():
    from symssm import ssm
    from symssm.api import gradient_certificate

    cert = gradient_certificate(ssm([["1/2", 1], [0, "1/3"]], [[1, 0], [0, 1]], [[1, 1]]), 100)
    jsonschema.Draft202012Validator(schema()).validate(json.loads(cert.to_json()))


def test_interaction_rank_certificates_conform():
    from symssm.sources.layers import layer_from_data, mamba2_scalar_gate

    validator = jsonschema.Draft202012Validator(schema())
    for layer in (mamba2_scalar_gate(["1/2", "1/3"], [[1], [2]], [[1, 1]]),
                  layer_from_data({"kind": "softmax-attention", "X": [[1, 0], [0, 1], [1, 1]],
                                   "heads": [{"Q": [[1, 0]], "K": [[1, 1]], "V": [[1, 0]]},
                                             {"Q": [[0, 1]], "K": [[1, 0]], "V": [[0, 1]]}]}),
                  layer_from_data({"kind": "operator", "n": 2, "p": 1, "m": 1,
                                   "blocks": [{"i": 1, "j": 2, "W": [[3]]}]})):
        validator.validate(json.loads(certify(layer).to_json()))


def test_complex_head_count_certificates_conform():
    from symssm.sources.complex_system import complex_ssm

    cert = certify(complex_ssm([["1/2i", 0], [0, "-1/2+1/3i"]], [[1], [1]], [[1, 0], [0, 1]]), 10)
    jsonschema.Draft202012Validator(schema()).validate(json.loads(cert.to_json()))


def test_parametric_certificates_conform():
    from symssm.sources.parametric import PARAMETRIC_FAMILIES, parametric_family

    validator = jsonschema.Draft202012Validator(schema())
    for name in PARAMETRIC_FAMILIES:
        validator.validate(json.loads(certify(parametric_family(name), 4).to_json()))


def test_parametric_interaction_and_approximate_certificates_conform():
    from symssm import ssm
    from symssm.sources.parametric_layers import parametric_layer_from_data

    validator = jsonschema.Draft202012Validator(schema())
    for data in ({"kind": "convolution", "n": 3, "parameters": ["t"], "kernel": [[["1", "1"]], [["t", "1"]]]},
                 {"kind": "linear-attention", "parameters": ["x", "y"], "X": [["x"], ["y"]],
                  "heads": [{"Q": [[1]], "K": [[1]], "V": [[1]]}]},
                 {"kind": "operator", "n": 2, "p": 1, "m": 1, "parameters": ["s"],
                  "blocks": [{"i": 1, "j": 2, "W": [["1/s"]]}]}):
        validator.validate(json.loads(certify(parametric_layer_from_data(data)).to_json()))
    cert = certify(ssm([["1/2", 0], [0, "-1/3"]], [[1], [1]], [[1, 0], [0, 1]]), 8, tolerance="1/100")
    validator.validate(json.loads(cert.to_json()))


def test_trained_head_count_certificates_conform():
    import numpy as np

    from symssm.sources.checkpoints import CheckpointLayer
    from symssm.sources.trained import trained_layer

    f = lambda *v: np.array(v, np.float32)  # noqa: E731
    layer = trained_layer(CheckpointLayer("l", "s4d", {
        "kernel.log_dt": f(-1.0, -2.0), "kernel.log_A_real": f([-0.5], [0.0]), "kernel.A_imag": f([1.0], [3.0]),
        "kernel.C": f([[0.5, -1.0]], [[1.0, 2.0]])}), "m.npz")
    cert = certify(layer, 16, tolerance="1/100")
    jsonschema.Draft202012Validator(schema()).validate(json.loads(cert.to_json()))


def test_approximate_certificates_with_a_tail_conform():
    from symssm import ssm

    cert = certify(ssm([["1/2", 0], [0, "1/3"]], [[1], [1]], [[1, 1]]), 10 ** 6, tolerance="1/100")
    assert "tail" in cert.data
    jsonschema.Draft202012Validator(schema()).validate(json.loads(cert.to_json()))


def test_parametric_certificates_with_covers_conform():
    """Rational solutions with sibling cases, definite and binary forms, shared cases, and the first format."""
    import glob
    import os

    from paths import FIXTURES
    from symssm.sources.parametric import parametric_family, parametric_ssm
    from symssm.sources.parametric_layers import parametric_layer_from_data

    validator = jsonschema.Draft202012Validator(schema())
    cone = {"kind": "operator", "n": 2, "p": 1, "m": 2, "parameters": ["x", "y", "z"],
            "blocks": [{"i": 1, "j": 1, "W": [["x", "y"]]}, {"i": 2, "j": 1, "W": [["y", "z"]]}]}
    certs = [certify(parametric_layer_from_data(cone)),
             certify(parametric_family("generic-symbolic", N=2), 3),
             certify(parametric_family("diagonal-symbolic", N=3), 4),
             certify(parametric_ssm([["x", "2*y"], ["y", "x"]], [[1, 0], [0, 1]], [["x", "y"]],
                                    parameters=["x", "y"]), 4),
             certify(parametric_ssm([["1"]], [["t^2 - 2"]], [[1]], parameters=["t"]), 2)]
    for cert in certs:
        validator.validate(json.loads(cert.to_json()))
    for path in glob.glob(os.path.join(FIXTURES, "parametric_v1", "*.json")):
        with open(path) as fh:
            validator.validate(json.load(fh))


def test_linear_recurrence_certificates_conform():
    from symssm.sources.layers import layer_from_data

    validator = jsonschema.Draft202012Validator(schema())
    head = {"q": [[1], [1]], "k": [[1], [2]], "alpha": [["1/2"], ["1/3"]]}
    validator.validate(json.loads(certify(layer_from_data({
        "kind": "gla", "V": [[1, 0], [0, 1]], "gate": [[1, 2], [2, 1]], "shift": [[0, 0], ["1/2", "1/2"]],
        "conv": [[1, 1], [1, -1]], "norm": {"scale": [[1], [2]], "center": True}, "out": [[1, 1]],
        "heads": [head]})).to_json()))
    validator.validate(json.loads(certify(layer_from_data({
        "kind": "rwkv7", "V": [[1]], "heads": [{"r": [[1], [1]], "k": [[1], [2]], "w": [["1/2"], ["1/2"]],
                                               "a": [[1], [1]], "b": [[0], [1]], "rk": ["1"]}]})).to_json()))
