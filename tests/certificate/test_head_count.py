"""The head-count certificate: fields, determinism, and the checker accepting it."""

from hypothesis import given, settings
from hypothesis import strategies as st

from symssm import certify, check
from symssm.sources.examples import EXAMPLES, example
from symssm.sources.system import ssm, system_sha256

from strategies import systems  # noqa: E402


def test_fields_for_rotation():
    cert = certify(example("rotation").system, 8)
    d = cert.data
    assert d["format"] == "symssm-certificate" and d["version"] == 1 and d["kind"] == "head-count"
    assert d["head_count"] == 2 and d["n"] == 8
    assert d["system"]["A"] == [["0", "-1"], ["1", "0"]]
    assert d["input_sha256"] == system_sha256(example("rotation").system)
    assert d["profile"] == {"values": [1, 2], "constant_from": 2, "eventual": 2}
    assert d["holds_for"] == {"from": 2, "to": None}
    assert d["interaction_rank_gap"] == [{"H": 0, "minor_order": 1}, {"H": 1, "minor_order": 2}]
    assert d["lower_bound"]["determinant"] == "-1"


def test_upper_bound_by_dimension_for_generic_system():
    s = ssm([[1, 2], [3, 4]], [[1], [0]], [[1, 0], [0, 1]])  # pm = 2 = N: dimension argument
    d = certify(s, 5, method="modular").data
    assert d["upper_bound"] == {"coefficients": [], "dimension_from_lag": 2}


def test_degenerate_system_carries_coefficients():
    d = certify(example("two-rotations").system, 8, method="exact").data
    assert d["upper_bound"]["coefficients"] == [{"lag": 2, "c": ["-1", "0"]}, {"lag": 3, "c": ["0", "-1"]}]
    assert check(d).verified


def test_holds_for_a_middle_step():
    d = certify(example("shift5-two-outputs").system, 2).data
    assert d["head_count"] == 1 and d["holds_for"] == {"from": 2, "to": 3}


def test_byte_identical_output():
    a = certify(example("two-rotations").system, 8).to_json()
    b = certify(example("two-rotations").build(), 8).to_json()
    assert a == b


def test_every_example_verifies_both_methods():
    for ex in EXAMPLES:
        for method in ("exact", "modular"):
            result = check(certify(ex.system, 7, method=method))
            assert result.verified, (ex.name, method, result.message)


@settings(max_examples=40, deadline=None)
@given(systems(), st.integers(1, 12), st.sampled_from(["exact", "modular"]))
def test_checker_accepts_what_certify_emits(sys_, n, method):
    cert = certify(ssm(*sys_), n, method=method)
    result = check(cert)
    assert result.verified, result.message


def test_name_comes_from_the_system_even_when_the_witness_is_cached():
    a = ssm([[2]], [[1]], [[1]], name="first")
    b = ssm([[2]], [[1]], [[1]], name="second")
    assert certify(a, 3)["system"]["name"] == "first"
    assert certify(b, 3)["system"]["name"] == "second"
