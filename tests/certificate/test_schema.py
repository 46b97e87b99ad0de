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
