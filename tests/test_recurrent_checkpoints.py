"""Checkpoint layers of today's linear-recurrence families read as layer kinds (sources/recurrent_checkpoints.py).

Tiny tensors with each family's real parameter names; the layer kind's blocks on the input must give the layer's
output by an independent transcription of the reference code (tests/recurrent_references.py): y_i = sum_j W_ij x_j.
"""

import numpy as np
import pytest

from symssm import certify
from symssm.errors import InputError
from symssm.numeric.interaction import float_blocks
from symssm.sources.recurrent_checkpoints import recognise, recurrent_layer

from recurrent_references import forward

D, T = 4, 5


def _r(rng, *shape, scale=0.5):
    return rng.normal(size=shape) * scale


def tensors(family, rng):
    """(tensors, config) of one tiny layer: hidden 4, two heads."""
    if family == "fla-gla":  # H = 2, key 4 (d_k 2), value 4 (d_v 2), short convolutions of 3 taps
        return {"q_proj.weight": _r(rng, 4, D), "k_proj.weight": _r(rng, 4, D), "v_proj.weight": _r(rng, 4, D),
                "g_proj.weight": _r(rng, 4, D), "gk_proj.0.weight": _r(rng, 2, D), "gk_proj.1.weight": _r(rng, 4, 2),
                "gk_proj.1.bias": _r(rng, 4), "g_norm_swish_gate.weight": 1 + _r(rng, 2),
                "o_proj.weight": _r(rng, D, 4),
                "q_conv1d.weight": _r(rng, 4, 1, 3), "k_conv1d.weight": _r(rng, 4, 1, 3),
                "v_conv1d.weight": _r(rng, 4, 1, 3)}, {"num_heads": 2}
    if family == "fla-retnet":
        return {"q_proj.weight": _r(rng, 4, D), "k_proj.weight": _r(rng, 4, D), "v_proj.weight": _r(rng, 4, D),
                "g_proj.weight": _r(rng, 4, D), "g_norm_swish_gate.weight": 1 + _r(rng, 2),
                "o_proj.weight": _r(rng, D, 4)}, {"num_heads": 2}
    if family in ("fla-deltanet", "fla-gated-deltanet"):
        t = {"q_proj.weight": _r(rng, 4, D), "k_proj.weight": _r(rng, 4, D), "v_proj.weight": _r(rng, 4, D),
             "b_proj.weight": _r(rng, 2, D), "q_conv1d.weight": _r(rng, 4, 1, 3), "k_conv1d.weight": _r(rng, 4, 1, 3),
             "v_conv1d.weight": _r(rng, 4, 1, 3), "o_norm.weight": 1 + _r(rng, 2), "o_proj.weight": _r(rng, D, 4)}
        if family == "fla-gated-deltanet":
            t.update({"a_proj.weight": _r(rng, 2, D), "A_log": _r(rng, 2), "dt_bias": _r(rng, 2),
                      "g_proj.weight": _r(rng, 4, D)})
        return t, {}
    if family == "fla-kda":  # 2 heads, d_k = d_v = 2
        return {"q_proj.weight": _r(rng, 4, D), "k_proj.weight": _r(rng, 4, D), "v_proj.weight": _r(rng, 4, D),
                "q_conv1d.weight": _r(rng, 4, 1, 3), "k_conv1d.weight": _r(rng, 4, 1, 3),
                "v_conv1d.weight": _r(rng, 4, 1, 3), "f_proj.0.weight": _r(rng, 2, D), "f_proj.1.weight": _r(rng, 4, 2),
                "b_proj.weight": _r(rng, 2, D), "A_log": _r(rng, 2), "dt_bias": _r(rng, 4),
                "g_proj.0.weight": _r(rng, 2, D), "g_proj.1.weight": _r(rng, 4, 2), "g_proj.1.bias": _r(rng, 4),
                "o_norm.weight": 1 + _r(rng, 2), "o_proj.weight": _r(rng, D, 4)}, {}
    if family == "qwen3-next":  # 1 key head, 2 value heads, d_k = d_v = 2
        return {"in_proj_qkvz.weight": _r(rng, 2 + 2 + 4 + 4, D), "in_proj_ba.weight": _r(rng, 4, D),
                "conv1d.weight": _r(rng, 2 + 2 + 4, 1, 3), "A_log": _r(rng, 2), "dt_bias": _r(rng, 2),
                "norm.weight": 1 + _r(rng, 2), "out_proj.weight": _r(rng, D, 4)}, \
            {"linear_num_key_heads": 1, "linear_num_value_heads": 2, "linear_key_head_dim": 2,
             "linear_value_head_dim": 2}
    if family == "fla-rwkv6":
        R = 2
        return {"x_proj.0.mu": _r(rng, D), "x_proj.0.linear.weight": _r(rng, 5 * R, D),
                "x_proj.2.weight": _r(rng, D, 5 * R), "x_bias": _r(rng, 5, D), "r_proj.linear.weight": _r(rng, 4, D),
                "w_proj.linear.lora.0.weight": _r(rng, 2, D), "w_proj.linear.lora.2.weight": _r(rng, 4, 2),
                "w_proj.linear.lora.2.bias": _r(rng, 4), "k_proj.linear.weight": _r(rng, 4, D),
                "v_proj.linear.weight": _r(rng, 4, D), "g_proj.linear.weight": _r(rng, 4, D), "bonus": _r(rng, 2, 2),
                "g_norm.weight": 1 + _r(rng, 4), "o_proj.weight": _r(rng, D, 4)}, {}
    if family == "fla-rwkv7":
        t = {f"x_{n}": _r(rng, 1, 1, D) for n in "rwkvag"}
        t.update({"k_k": _r(rng, 4), "k_a": _r(rng, 4), "r_k": _r(rng, 2, 2), "r_proj.weight": _r(rng, 4, D),
                  "k_proj.weight": _r(rng, 4, D), "v_proj.weight": _r(rng, 4, D), "o_proj.weight": _r(rng, D, 4),
                  "w_lora.lora.0.weight": _r(rng, 2, D), "w_lora.lora.2.weight": _r(rng, 4, 2),
                  "w_lora.lora.2.bias": _r(rng, 4), "a_lora.lora.0.weight": _r(rng, 2, D),
                  "a_lora.lora.2.weight": _r(rng, 4, 2), "a_lora.lora.2.bias": _r(rng, 4),
                  "g_lora.lora.0.weight": _r(rng, 2, D), "g_lora.lora.2.weight": _r(rng, 4, 2),
                  "g_norm.weight": 1 + _r(rng, 4)})
        return t, {}
    if family == "mamba2":  # 2 heads of 2 channels, d_state 2, 1 group, conv of 4 taps
        I, N, H = 4, 2, 2
        return {"in_proj.weight": _r(rng, 2 * I + 2 * N + H, D), "conv1d.weight": _r(rng, I + 2 * N, 1, 4),
                "conv1d.bias": np.zeros(I + 2 * N), "dt_bias": _r(rng, H), "A_log": _r(rng, H), "D": _r(rng, H),
                "norm.weight": 1 + _r(rng, I), "out_proj.weight": _r(rng, D, I)}, {}
    if family == "xlstm":
        return {"q.weight": _r(rng, 4, D), "k.weight": _r(rng, 4, D), "v.weight": _r(rng, 4, D),
                "ogate_preact.weight": _r(rng, 4, D), "igate_preact.weight": _r(rng, 2, D),
                "igate_preact.bias": _r(rng, 2), "fgate_preact.weight": _r(rng, 2, D), "fgate_preact.bias": _r(rng, 2),
                "multihead_norm.weight": 1 + _r(rng, 4), "out_proj.weight": _r(rng, D, 4)}, {"num_heads": 2}
    raise ValueError(family)


FAMILIES = ["fla-gla", "fla-retnet", "fla-deltanet", "fla-gated-deltanet", "fla-kda", "qwen3-next", "fla-rwkv6",
            "fla-rwkv7", "mamba2", "xlstm"]


@pytest.mark.parametrize("family", FAMILIES)
def test_the_kind_reproduces_the_reference_forward_pass(family):
    rng = np.random.default_rng(FAMILIES.index(family))
    t, config = tensors(family, rng)
    assert recognise(t) == family
    X = rng.normal(size=(T, D))
    reading = recurrent_layer(t, config=config, X=X, name=family)
    layer = reading.layer
    y_ref = forward(family, t, X, config)
    rows = float_blocks(layer).reshape(-1, layer.p, layer.m)
    y = np.zeros((T, layer.p))
    b = 0
    for i in range(T):
        for j in range(i + 1):
            y[i] += rows[b] @ X[j]
            b += 1
    assert np.allclose(y, y_ref, rtol=1e-9, atol=1e-9), (family, np.abs(y - y_ref).max())
    assert np.allclose(reading.y, y_ref, rtol=1e-9, atol=1e-9)
    assert reading.notes


def test_the_seeded_input_is_documented_and_reproducible():
    t, config = tensors("fla-retnet", np.random.default_rng(0))
    a = recurrent_layer(t, config=config, n=3, seed=5)
    b = recurrent_layer(t, config=config, n=3, seed=5)
    assert np.array_equal(a.X, np.random.default_rng(5).standard_normal((3, D))) and a.layer == b.layer


def test_one_gla_head_from_a_checkpoint_certifies_one_and_two_with_its_gate():
    rng = np.random.default_rng(3)
    t = {name: _r(rng, 2, 2) for name in ("q_proj.weight", "k_proj.weight", "v_proj.weight", "gk_proj.0.weight",
                                          "gk_proj.1.weight", "o_proj.weight")}
    t["gk_proj.1.bias"] = _r(rng, 2)
    plain = recurrent_layer(t, config={"num_heads": 1}, n=3, seed=0).layer
    assert certify(plain)["interaction_rank"] == 1
    gated = recurrent_layer(dict(t, **{"g_proj.weight": _r(rng, 2, 2)}), config={"num_heads": 1}, n=3, seed=0).layer
    cert = certify(gated)
    assert cert["interaction_rank"] == 2 and cert.check().verified


def test_unknown_and_incomplete_layers_are_refused():
    with pytest.raises(InputError, match="not a layer of a known linear-recurrence family"):
        recurrent_layer({"foo.weight": np.zeros((2, 2))})
    t, config = tensors("fla-gated-deltanet", np.random.default_rng(0))
    del t["dt_bias"]
    with pytest.raises(InputError, match="dt_bias"):
        recurrent_layer(t, "fla-gated-deltanet")
    assert recognise(["A_log", "dt_bias", "in_proj.weight", "conv1d.weight", "D"]) == "mamba2"
    assert recognise(["self_attn.q_proj.weight"]) is None


def test_mamba2_groups_come_from_the_config_and_settings_not_read_are_refused():
    rng = np.random.default_rng(9)
    I, N, H, G = 4, 2, 2, 2  # two groups: head h reads B, C of group h
    t = {"in_proj.weight": _r(rng, 2 * I + 2 * G * N + H, D), "conv1d.weight": _r(rng, I + 2 * G * N, 1, 4),
         "dt_bias": _r(rng, H), "A_log": _r(rng, H), "D": _r(rng, H), "norm.weight": 1 + _r(rng, I),
         "out_proj.weight": _r(rng, D, I)}
    X = rng.normal(size=(T, D))
    reading = recurrent_layer(t, config={"n_groups": G}, X=X)
    heads = reading.layer.param("heads")
    assert len(heads) == H and len(dict(heads[0])["B"][0]) == N
    y_ref = forward("mamba2", t, X, {"n_groups": G})
    assert np.allclose(reading.y, y_ref, atol=1e-9)
    with pytest.raises(InputError, match="one per head"):
        recurrent_layer(dict(t, D=np.ones(I)), config={"n_groups": G}, X=X)
    gla, config = tensors("fla-gla", rng)
    with pytest.raises(InputError, match="feature_map"):
        recurrent_layer(gla, config=dict(config, feature_map="relu"))


def test_xlstm_fused_weights_read_as_the_single_ones():
    rng = np.random.default_rng(4)
    t, config = tensors("xlstm", rng)
    fused = {"qkv_opreact.weight": np.vstack([t["q.weight"], t["k.weight"], t["v.weight"], t["ogate_preact.weight"]]),
             "ifgate_preact.weight": np.vstack([t["igate_preact.weight"], t["fgate_preact.weight"]]),
             "ifgate_preact.bias": np.concatenate([t["igate_preact.bias"], t["fgate_preact.bias"]]),
             "multihead_norm.weight": t["multihead_norm.weight"], "out_proj.weight": t["out_proj.weight"]}
    assert recognise(fused) == "xlstm"
    a = recurrent_layer(t, config=config, n=4, seed=2)
    b = recurrent_layer(fused, config=config, n=4, seed=2)
    assert a.layer == b.layer


def test_retnet_key_value_heads_shared_by_query_heads():
    """fla's num_kv_heads: one key/value head for two query heads reads as the same layer with k, v repeated."""
    rng = np.random.default_rng(6)
    t, config = tensors("fla-retnet", rng)
    t["k_proj.weight"], t["v_proj.weight"] = t["k_proj.weight"][:2], t["v_proj.weight"][:2]
    X = rng.normal(size=(T, D))
    full = dict(t, **{"k_proj.weight": np.vstack([t["k_proj.weight"]] * 2),
                      "v_proj.weight": np.vstack([t["v_proj.weight"]] * 2)})
    shared = recurrent_layer(t, config=config, X=X)
    assert np.allclose(shared.y, forward("fla-retnet", full, X, config), atol=1e-9)
