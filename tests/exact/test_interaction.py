"""The unified framework: interaction ranks of every layer kind, their certificates and the checker."""

import copy
import json
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symssm import certify, check, head_count, interaction_rank, ssm
from symssm.errors import InputError, LimitError
from symssm.exact.interaction import operator_blocks
from symssm.numeric.interaction import numeric_interaction_rank
from symssm.sources.layers import (
    layer_from_data,
    mamba2_layer,
    mamba2_scalar_gate,
    selective_bilinear,
    selective_from_ssm,
)


def _rank(rows):
    """Independent exact rank (Fraction Gaussian elimination)."""
    rows = [list(r) for r in rows if any(r)]
    rank = 0
    width = len(rows[0]) if rows else 0
    for col in range(width):
        pivot = next((i for i in range(rank, len(rows)) if rows[i][col] != 0), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for i in range(len(rows)):
            if i != rank and rows[i][col]:
                f = rows[i][col] / rows[rank][col]
                rows[i] = [a - f * b for a, b in zip(rows[i], rows[rank])]
        rank += 1
    return rank


def _flat_blocks(layer):
    return [[x for row in W for x in row] for _, W in operator_blocks(layer)]


# ---------------------------------------------------------------- known answers

def test_scalar_gated_selective_ssm_with_shared_B_C_has_rank_one_on_every_input():
    rng = random.Random(1)
    for _ in range(5):
        gates = [Fraction(rng.randint(-9, 9), rng.randint(1, 9)) for _ in range(6)]
        B = [[rng.randint(-3, 3), rng.randint(-3, 3)] for _ in range(3)]
        C = [[rng.randint(-3, 3) for _ in range(3)] for _ in range(2)]
        layer = mamba2_scalar_gate(gates, B, C)
        assert interaction_rank(layer) <= 1
        cert = certify(layer)
        assert check(cert).verified and cert["interaction_rank"] == interaction_rank(layer)


def test_mamba2_head_has_rank_one():
    head = mamba2_layer(["1/2", "1/3", "3", "-1"], [[1, 2], [0, 1], [1, 1], [2, 0]],
                        [[1, 1], [2, -1], [0, 1], [1, 3]], 3)
    assert interaction_rank(head) == 1
    assert check(certify(head)).verified


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_time_invariant_ssm_as_selective_has_its_head_count(n):
    systems = [ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]]),
               ssm([[0, 0, 0, 0, 0], [1, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 0]],
                   [[1], [0], [0], [0], [0]], [[0, 1, 0, 0, 0], [0, 0, 0, 1, 0]]),
               ssm([[0, 0], [1, 0]], [[1, 0], [0, 1]], [[0, 1], [1, 0]], [["1/2", 0], [0, 0]])]
    for system in systems:
        assert interaction_rank(selective_from_ssm(system, n)) == head_count(system, n)


def test_convolution_with_one_dependent_tap_is_one_below_the_number_of_taps():
    K0, K1 = [[1, 0], [0, 1]], [[0, 1], [1, 0]]
    K2 = [[2, 3], [3, 2]]  # 2 K0 + 3 K1
    layer = layer_from_data({"kind": "convolution", "n": 6, "kernel": [K0, K1, K2, [[1, 2], [0, 0]]]})
    assert interaction_rank(layer) == 3
    assert check(certify(layer)).verified


@pytest.mark.parametrize("V2, expected", [([[2, 0]], 1), ([[0, 1]], 2)])
def test_two_linear_attention_heads_shared_or_generic_values(V2, expected):
    layer = layer_from_data({"kind": "linear-attention", "X": [[1, 0], [0, 1], [1, 1], [2, -1]],
                             "heads": [{"Q": [[1, 0]], "K": [[1, 1]], "V": [[1, 0]]},
                                       {"Q": [[0, 1]], "K": [[1, 0]], "V": V2}]})
    assert interaction_rank(layer) == expected
    cert = certify(layer)
    assert check(cert).verified and cert["interaction_rank"] == expected


@pytest.mark.parametrize("V2, expected", [([[2, 0]], 1), ([[0, 1]], 2)])
def test_softmax_attention_certified_with_intervals(V2, expected):
    layer = layer_from_data({"kind": "softmax-attention", "X": [[1, 0], [0, 1], [1, 1], [2, -1]],
                             "heads": [{"Q": [[1, 0]], "K": [[1, 1]], "V": [[1, 0]]},
                                       {"Q": [[0, 1]], "K": [[1, 0]], "V": V2}]})
    cert = certify(layer)
    assert cert["interaction_rank"] == expected and cert["lower_bound"]["method"] == "interval"
    assert check(cert).verified
    assert numeric_interaction_rank(layer).numerical_rank == expected


def test_feedforward_operator_and_non_causal_blocks():
    ff = layer_from_data({"kind": "operator", "n": 4, "p": 2, "m": 2,
                          "blocks": [{"i": i, "j": i, "W": [[1, 2], [3, 4]]} for i in range(1, 5)]})
    assert interaction_rank(ff) == 1
    mixed = layer_from_data({"kind": "operator", "n": 3, "p": 1, "m": 2,
                             "blocks": [{"i": 1, "j": 3, "W": [[1, 2]]}, {"i": 2, "j": 2, "W": [[0, 1]]}]})
    assert interaction_rank(mixed) == 2 and check(certify(mixed)).verified


def test_selective_bilinear_steps():
    layer = selective_bilinear([[-1, 0], [1, -2]], [[1], [1]], [[1, 0], [0, 1]], ["1/2", "1/3", "1/5", "1/7"])
    r = interaction_rank(layer)
    assert r == _rank(_flat_blocks(layer)) >= 1
    assert check(certify(layer)).verified


def test_bad_layers_give_one_clear_error():
    with pytest.raises(InputError, match="unknown kind"):
        layer_from_data({"kind": "rnn"})
    with pytest.raises(InputError, match="needs the field 'kernel'"):
        layer_from_data({"kind": "convolution", "n": 3})
    with pytest.raises(InputError, match="unknown field"):
        layer_from_data({"kind": "convolution", "n": 3, "kernel": [[[1]]], "extra": 1})
    with pytest.raises(InputError, match="listed twice"):
        layer_from_data({"kind": "operator", "n": 2, "p": 1, "m": 1,
                         "blocks": [{"i": 1, "j": 1, "W": [[1]]}, {"i": 1, "j": 1, "W": [[2]]}]})
    with pytest.raises(LimitError):
        layer_from_data({"kind": "convolution", "n": 10**6, "kernel": [[[1]]]})
    with pytest.raises(InputError, match="float"):
        layer_from_data({"kind": "convolution", "n": 3, "kernel": [np.ones((1, 1))]})


# ---------------------------------------------------------------- properties

def _random_layer(kind, rng):
    small = lambda: rng.randint(-2, 2)
    mat = lambda r, c: [[small() for _ in range(c)] for _ in range(r)]
    n, m, p = rng.randint(1, 5), rng.randint(1, 2), rng.randint(1, 2)
    if kind == "selective-ssm":
        N = rng.randint(1, 3)
        return layer_from_data({"kind": kind, "A": [mat(N, N) for _ in range(n)], "B": [mat(N, m) for _ in range(n)],
                                "C": [mat(p, N) for _ in range(n)],
                                **({"D": [mat(p, m) for _ in range(n)]} if rng.random() < 0.5 else {})})
    if kind == "convolution":
        return layer_from_data({"kind": kind, "n": n, "kernel": [mat(p, m) for _ in range(rng.randint(1, 4))]})
    if kind == "linear-attention":
        return layer_from_data({"kind": kind, "X": mat(n, m), "heads": [
            {"Q": mat(1, m), "K": mat(1, m), "V": mat(p, m)} for _ in range(rng.randint(1, 3))]})
    return layer_from_data({"kind": "operator", "n": n, "p": p, "m": m, "blocks": [
        {"i": i, "j": j, "W": mat(p, m)} for i in range(1, n + 1) for j in range(1, n + 1) if rng.random() < 0.5]})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["selective-ssm", "convolution", "linear-attention", "operator"]), st.integers(0, 10**9))
def test_rank_equals_an_independent_rank_and_every_certificate_verifies(kind, seed):
    layer = _random_layer(kind, random.Random(seed))
    r = interaction_rank(layer)
    assert r == _rank(_flat_blocks(layer))
    cert = certify(layer)
    assert check(cert).verified, check(cert).message
    assert numeric_interaction_rank(layer).numerical_rank == r


def _corrupt(data, change):
    data = copy.deepcopy(data)
    change(data)
    return data


def test_corrupted_interaction_certificates_are_rejected():
    layer = layer_from_data({"kind": "linear-attention", "X": [[1, 0], [0, 1], [1, 1], [2, -1]],
                             "heads": [{"Q": [[1, 0]], "K": [[1, 1]], "V": [[1, 0], [0, 1]]},
                                       {"Q": [[0, 1]], "K": [[1, 0]], "V": [[0, 1], [1, 1]]}]})
    good = json.loads(certify(layer).to_json())
    assert check(good).verified and good["interaction_rank"] == 2
    cases = {
        "r + 1": (lambda d: d.update(interaction_rank=3), "lower_bound.blocks"),
        "r - 1": (lambda d: d.update(interaction_rank=1), "lower_bound.blocks"),
        "wrong block": (lambda d: d["lower_bound"]["blocks"].__setitem__(1, [4, 4]), "lower_bound.minor"),
        "wrong coefficient": (lambda d: d["upper_bound"]["coefficients"][0]["c"].__setitem__(0, "7"),
                              "upper_bound.coefficients block"),
        "missing coefficient": (lambda d: d["upper_bound"]["coefficients"].pop(0), "upper_bound"),
        "token changed": (lambda d: d["system"]["X"][0].__setitem__(0, "5"), "input_sha256"),
        "value map": (lambda d: d["heads"]["value_maps"][0][0].__setitem__(0, "9"), "heads.value_maps[0]"),
        "gap": (lambda d: d.update(interaction_rank_gap=[]), "interaction_rank_gap"),
    }
    for label, (change, obligation) in cases.items():
        result = check(_corrupt(good, change))
        assert result.code == 1 and result.message.startswith(obligation), (label, result.message)


def test_corrupted_softmax_certificates_are_rejected():
    layer = layer_from_data({"kind": "softmax-attention", "X": [[1, 0], [0, 1], [1, 1]],
                             "heads": [{"Q": [[1, 0]], "K": [[1, 1]], "V": [[1, 0]]},
                                       {"Q": [[0, 1]], "K": [[1, 0]], "V": [[0, 1]]}]})
    good = json.loads(certify(layer).to_json())
    assert check(good).verified
    for change, obligation in (
            (lambda d: d.update(interaction_rank=1), "interaction_rank"),
            (lambda d: d["lower_bound"].update(blocks=[[1, 1], [1, 1]]), "lower_bound.blocks"),
            (lambda d: d["lower_bound"].update(precision_bits=4), "lower_bound.precision_bits"),
            (lambda d: d["heads"].update(value_map_heads=[0, 0]), "heads.value_map_heads"),
            (lambda d: d["upper_bound"].update(value_maps_rank=3), "upper_bound.value_maps_rank")):
        result = check(_corrupt(good, change))
        assert result.code == 1 and result.message.startswith(obligation), result.message


def test_framework_table(tmp_path):
    from symssm.catalog import build_framework

    rows = build_framework(str(tmp_path), seed=0, n=5, m=2)
    ranks = {label: cert["interaction_rank"] for label, _, cert, _ in rows}
    assert ranks["feedforward"] == 1 and ranks["Mamba-2 head (scalar gate)"] == 1
    assert ranks["linear attention, H = 2"] == 2 and ranks["softmax attention, H = 2"] == 2
    assert (tmp_path / "framework.md").exists() and (tmp_path / "framework.tex").exists()
