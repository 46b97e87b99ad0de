"""The recurrent layer kinds against hostile certificates and specs: costs priced before the work, fields read
strictly, specs the generator refuses refused by the checker's spec reader too."""

import json
from fractions import Fraction

import pytest

import symssm
from symssm.checker.core import check_data
from symssm.checker.interaction import blocks, layer_spec_hash, read_layer
from symssm.checker.kernel import Ledger, Rejected, Unreadable
from symssm.checker.recurrent import growth_work
from symssm.sources.layers import layer_from_data

GLA = {"kind": "gla", "name": "g", "V": [[1, 0], [0, 1]], "gate": [[1, 2], [3, 1], [1, 1]],
       "heads": [{"q": [[1], [1], [2]], "k": [[1], [2], [1]], "alpha": [["1/2"], ["1/2"], ["1/3"]]}]}


def _system(kind="gla", n=1, heads=None, V=(("1",),), **wrappers):
    out = {"kind": kind, "name": "x", "n": n, "p": len(V), "m": len(V[0]), "heads": heads,
           "V": [list(r) for r in V], "out": None, "gate": None, "norm": None, "shift": None, "conv": None,
           "value_gate": None}
    out.update(wrappers)
    if out["out"] is not None:
        out["p"] = len(out["out"])
    return out


def test_coefficients_that_grow_along_the_tokens_are_priced_before_they_are_formed():
    # 256 tokens of two 600-bit decays over coprime denominators: each entry alone is small, a product over 255
    # tokens has 300,000 bits and every sum of two a coprime gcd (more than 10 s of work)
    a, b = f"{2 ** 600 + 1}/{3 ** 378}", f"{2 ** 600 + 3}/{5 ** 258}"
    n = 256
    system = _system(n=n, heads=[{"q": [["1", "1"]] * n, "k": [["1", "1"]] * n, "alpha": [[a, b]] * n}])
    with pytest.raises(Unreadable, match="over the cost limit"):
        read_layer(Ledger(), system)
    # the same tokens with one-word entries cost little
    small = _system(n=4, heads=[{"q": [["1", "1"]] * 4, "k": [["1", "1"]] * 4, "alpha": [["1/2", "1/3"]] * 4}])
    assert blocks(read_layer(Ledger(), small))[(4, 1)] == [[Fraction(1, 8) + Fraction(1, 27)]]  # q^T diag(alpha)^3 k


def test_growth_work_counts_the_distance_of_each_block():
    assert growth_work(3, 10, 1) == 0  # one-word entries over three tokens: nothing past the flat charge
    assert growth_work(256, 11, 29) > 1_000_000
    assert growth_work(64, 11, 2) < growth_work(64, 11, 4) < growth_work(128, 11, 4)


def test_a_centred_norm_over_many_channels_is_linear_in_them():
    # Dv = 4000 value channels, one group, centred: every output is its mean removed, 0 (all channels equal);
    # each group's mean is formed once per column, not once per channel (Dv^2)
    Dv = 4000
    system = _system(heads=[{"q": [["1"]], "k": [["1"]], "alpha": [["1"]]}], V=[["1"]] * Dv, out=[["1"] * Dv],
                     norm={"scale": [["1"]], "weight": None, "center": True, "after_gate": False})
    assert blocks(read_layer(Ledger(), system)) == {(1, 1): [[0]]}


def test_norm_flags_are_json_booleans():
    cert = symssm.certify(layer_from_data(dict(GLA, norm={"scale": [[1], [2], [1]], "center": True})))
    data = json.loads(cert.to_json())
    assert check_data(data).verified
    data["system"]["norm"]["center"] = 1  # 1 == True in Python
    result = check_data(data)
    assert not result.verified and "system.norm.center" in result.message


@pytest.mark.parametrize("edit", [{"gates": [[0, 0]] * 3}, {"n": 7}, {"p": 2}, {"parameters": {"x": 1}},
                                  {"heads": [dict(GLA["heads"][0], gamma=2)]},
                                  {"norm": {"scale": [[1], [1], [1]], "centre": True}},
                                  {"norm": {"scale": [[1], [1], [1]], "center": 1}}])
def test_the_spec_reader_refuses_what_the_generator_refuses(edit):
    spec = dict(GLA, **edit)
    with pytest.raises(symssm.errors.InputError):
        layer_from_data(spec)
    with pytest.raises(Unreadable, match="spec is not a valid gla layer"):
        layer_spec_hash(json.loads(json.dumps(spec)))
    assert layer_spec_hash(json.loads(json.dumps(GLA))) == symssm.certify(layer_from_data(GLA)).data["input_sha256"]


def test_the_mlstm_sentence_claims_no_divisor_the_checker_does_not_recompute():
    from symssm.render.recurrent import describe_mlstm

    # den is a listed number: any nonzero den verifies, so the sentence may not equate it with max(|n^T q|, 1)
    spec = {"kind": "mlstm", "V": [[1]], "heads": [{"q": [[1], [1]], "k": [[1], [2]], "i": [1, 1], "f": ["1/2", "1/2"],
                                                    "den": [5, 7]}]}
    cert = symssm.certify(layer_from_data(spec))
    assert cert.check().verified
    text = describe_mlstm(cert.data["system"])
    assert "\\mathrm{den}_i = \\max" not in text
    assert "the listed numbers" in text and "does not recompute" in text
    assert "none listed" in describe_mlstm(dict(cert.data["system"], heads=[dict(cert.data["system"]["heads"][0],
                                                                                 den=None)]))


@pytest.mark.parametrize("spec", [
    {"kind": "selective-ssm", "A": [[[1]], [[2]]], "B": [[[1]], [[1]]], "C": [[[1]], [[1]]]},
    {"kind": "convolution", "n": 3, "kernel": [[[1]], [[2]]]},
    {"kind": "linear-attention", "X": [[1], [2]], "heads": [{"Q": [[1]], "K": [[1]], "V": [[1]]}]}])
def test_every_kind_spec_with_a_field_the_generator_refuses_is_unreadable(spec):
    # "parameters" makes the spec a theorem for every input; "D2" a typo: the hash must not be the layer's
    assert layer_spec_hash(json.loads(json.dumps(spec))) == symssm.certify(layer_from_data(spec)).data["input_sha256"]
    for extra in ({"parameters": {"t": [0, 1]}}, {"D2": [[[5]], [[5]]]}):
        with pytest.raises(symssm.errors.InputError):
            layer_from_data(dict(spec, **extra))
        with pytest.raises(Unreadable, match="unknown field"):
            layer_spec_hash(json.loads(json.dumps(dict(spec, **extra))))
    if "heads" in spec:
        with pytest.raises(Unreadable, match="unknown field"):
            layer_spec_hash(dict(spec, heads=[dict(spec["heads"][0], O=[[1]])]))


def test_the_delta_rule_is_priced_at_four_factors_a_step():
    # 110 tokens of a gated delta rule with d_k = 8 and one-word entries (about 16 s to form): its carried vector
    # multiplies alpha, beta and k twice at every step
    n, dk = 110, 8
    row = [[f"{2 * t + 1}/{2 ** 20}" for t in range(dk)]] * n
    system = _system(kind="gated-deltanet", n=n, heads=[{"q": row, "k": row, "beta": ["1/3"] * n,
                                                         "alpha": ["5/7"] * n}])
    with pytest.raises(Unreadable, match="over the cost limit"):
        read_layer(Ledger(), system)
    assert growth_work(110, 40, 1, step=4) > 10 * growth_work(110, 40, 1)
