"""`symssm model` on hybrid checkpoints whose linear-recurrence layers are read as their layer kinds: every layer in
order, each recurrent layer analysed on the report's one input with the numerical interaction rank of its blocks
W_ij(X), equal to the exact rank of the layer kind read independently (small sizes); Mamba-2 read the same way by
the model report and by the recurrent reader."""

import json

import numpy as np
import pytest

from checkpoint_tools import (attention, gated_deltanet, kda, mamba2_mixer, mamba3_mixer, mlp, moe, prefixed,
                              qwen3_next_linear_attn, write_model)
from layer_references import mamba2_operator
from recurrent_references import forward
from symssm.cli import main
from symssm.exact.interaction import interaction_rank
from symssm.exact.recurrent import head_coefficients
from symssm.numeric.models import MAX_RECURRENT_ENTRIES, _mamba2_rows, analyse_model, mamba2_forward
from symssm.sources.architectures import classify_module
from symssm.sources.recurrent_checkpoints import recurrent_layer, seeded_input

L = 4  # the report's input length here: the exact ranks stay fast


def _w(rng, *shape, scale=0.5):
    return rng.standard_normal(shape) * scale


def _rms(X, w, eps, offset=0.0):
    return X / np.sqrt(np.mean(X * X, axis=1, keepdims=True) + eps) * (offset + w)


def _short(t, prefix):
    return {k[len(prefix) + 1:]: v for k, v in t.items() if k.startswith(prefix + ".")}


def _exact_rank(t, prefix, family, config, X):
    return interaction_rank(recurrent_layer(_short(t, prefix), family, config=config, X=X).layer)


def _layers(report):
    return {x["name"]: x for x in report["layers"]}


def qwen3_next(tmp_path, rng, D=8):
    """Qwen3-Next's names: linear_attn (Gated DeltaNet) in layers 0-2, gated full attention in layer 3, sparse MoE
    with a shared expert in every layer; its RMSNorm scales by 1 + weight."""
    t = {"model.embed_tokens.weight": _w(rng, 20, D), "model.norm.weight": _w(rng, D, scale=0.1),
         "lm_head.weight": _w(rng, 20, D)}
    for i in range(4):
        p = f"model.layers.{i}"
        t[f"{p}.input_layernorm.weight"] = _w(rng, D, scale=0.2)
        t[f"{p}.post_attention_layernorm.weight"] = _w(rng, D, scale=0.2)
        if i < 3:
            t.update(prefixed(f"{p}.linear_attn", qwen3_next_linear_attn(rng, D, k_heads=1, v_heads=2, kd=2, vd=2)))
        else:
            a = attention(rng, D, heads=2, kv=1, hd=4, qk_norm=True)
            a["q_proj.weight"] = _w(rng, 2 * 2 * 4, D)  # the query and its output gate
            t.update(prefixed(f"{p}.self_attn", a))
        t.update(prefixed(f"{p}.mlp", moe(rng, D, 8, 3, router="gate.weight")))
        t.update(prefixed(f"{p}.mlp.shared_expert", mlp(rng, D, 8)))
        t[f"{p}.mlp.shared_expert_gate.weight"] = _w(rng, 1, D)
    config = {"model_type": "qwen3_next", "hidden_size": D, "linear_num_key_heads": 1, "linear_num_value_heads": 2,
              "linear_key_head_dim": 2, "linear_value_head_dim": 2, "linear_conv_kernel_dim": 4,
              "num_attention_heads": 2, "num_key_value_heads": 1, "head_dim": 4, "rms_norm_eps": 1e-6,
              "num_experts": 3, "num_experts_per_tok": 2,
              "layer_types": ["linear_attention"] * 3 + ["full_attention"]}
    return write_model(tmp_path / "qwen3next", t, config, "F64"), t, config


def test_a_qwen3_next_hybrid_every_layer_and_its_gated_deltanet_layers_as_computed(tmp_path, capsys):
    folder, t, config = qwen3_next(tmp_path, np.random.default_rng(0))
    report = analyse_model(folder, 64, tolerance=1e-9, length=L)
    kinds = [(x["name"], x["kind"]) for x in report["layers"]]
    expected = [("model.embed_tokens", "embedding")]
    for i in range(4):
        mixer = ("linear_attn", "gated-deltanet") if i < 3 else ("self_attn", "attention")
        expected += [(f"model.layers.{i}.{mixer[0]}", mixer[1]), (f"model.layers.{i}.mlp", "moe")]
    assert kinds == expected + [("model.norm", "norm"), ("lm_head", "output")]
    assert report["input"]["kind"] == "synthetic" and report["input"]["tokens"] == L
    layers = _layers(report)
    X = seeded_input(L, 8, 0)
    for i in range(3):
        name = f"model.layers.{i}.linear_attn"
        rec = layers[name]
        assert rec["status"] == "analysed" and rec["family"] == "qwen3-next" and rec["numerical"] is True
        assert (rec["heads"], rec["key_head_dim"], rec["value_head_dim"], rec["tokens"]) == (2, 2, 2, L)
        assert rec["pre_norm"] == "input_layernorm.weight"
        # the pre-norm scales by 1 + weight (Qwen3NextRMSNorm), read independently here
        Xn = _rms(X, t[f"model.layers.{i}.input_layernorm.weight"], 1e-6, offset=1.0)
        r = _exact_rank(t, name, "qwen3-next", {k: config[k] for k in config if k.startswith("linear_")}, Xn)
        assert rec["numerical_interaction_rank"] == r and 1 <= r <= 16
        assert rec["tolerance"] == 1e-9 and "gap" in rec and rec["approximation_error"][r] <= 1e-9
        hw = rec["highway"]
        assert hw["eps_head_count"] == r and hw["status"] == "numeric" and len(hw["distance_profile"]) == L
        assert 0 < hw["decay_rate"] < 1  # Gated DeltaNet decays: alpha (I - beta k k^T), ||.|| <= alpha
    assert layers["model.layers.3.self_attn"]["heads"] == 2
    assert not report["skipped"]
    assert main(["model", str(folder), "--input-length", str(L)]) == 0
    out = capsys.readouterr().out
    assert "model.layers.0.linear_attn (Gated DeltaNet, 2 heads, d_k 2, d_v 2" in out
    assert "numerical interaction rank" in out and "not analysed" not in out


def test_mamba2_beside_kda_both_read_on_the_same_input(tmp_path):
    rng = np.random.default_rng(1)
    D = 8
    m2 = mamba2_mixer(rng, D, 4, 2, 2, 2)
    t = {"backbone.embeddings.weight": _w(rng, 20, D), **prefixed("backbone.layers.0.mixer", m2),
         "backbone.layers.0.norm.weight": 1 + _w(rng, D, scale=0.1),
         **prefixed("backbone.layers.1.attn", kda(rng, D, heads=2, hd=2)),
         "backbone.layers.1.attn_norm.weight": 1 + _w(rng, D, scale=0.1),
         **prefixed("backbone.layers.1.mlp", mlp(rng, D)), "backbone.norm_f.weight": np.ones(D)}
    # a hybrid's top-level num_heads are the Mamba-2 layers': the KDA layer takes its own heads from its tensors
    config = {"model_type": "mamba2", "num_heads": 4, "head_dim": 2, "n_groups": 2, "layer_norm_epsilon": 1e-5}
    folder = write_model(tmp_path / "m2kda", t, config, "F64")
    ids = [3, 1, 4, 1]
    report = analyse_model(folder, 64, tolerance=1e-9, tokens=ids)
    assert [x["kind"] for x in report["layers"]] == ["embedding", "mamba2", "kda", "mlp", "norm"]
    layers = _layers(report)
    X = t["backbone.embeddings.weight"][ids]
    k = layers["backbone.layers.1.attn"]
    assert k["status"] == "analysed" and k["family"] == "fla-kda" and k["heads"] == 2
    Xn = _rms(X, t["backbone.layers.1.attn_norm.weight"], 1e-5)
    assert k["numerical_interaction_rank"] == _exact_rank(t, "backbone.layers.1.attn", "fla-kda", {}, Xn)
    assert 1 <= k["heads_interaction_rank"] <= 2
    m = layers["backbone.layers.0.mixer"]
    assert m["input"] == "model" and m["tokens"] == 4
    Xm = _rms(X, t["backbone.layers.0.norm.weight"], 1e-5)
    ref = mamba2_operator(m2, Xm, 4, 2, 2, 2)
    assert m["numerical_interaction_rank"] == next(H for H, e in enumerate(_curve(ref)) if e <= 1e-9)
    # the whole Mamba-2 layer, as the linear-recurrence layers are reported
    assert m["layer_interaction_rank"] == interaction_rank(recurrent_layer(m2, "mamba2", config=config, X=Xm).layer)


def _curve(c):
    n = c.shape[0]
    rows = np.array([c[i, j] for i in range(n) for j in range(i + 1)])
    s = np.linalg.svd(rows, compute_uv=False)
    tails = np.concatenate([np.cumsum((s * s)[::-1])[::-1], [0.0]])
    return np.sqrt(tails / tails[0])


def fla_model(rng, D=4):
    """fla's names: GLA, RetNet, RWKV-6 and RWKV-7 mixers under attn, each block with attn_norm and an MLP."""
    gla = {"q_proj.weight": _w(rng, 4, D), "k_proj.weight": _w(rng, 4, D), "v_proj.weight": _w(rng, 4, D),
           "g_proj.weight": _w(rng, 4, D), "gk_proj.0.weight": _w(rng, 2, D), "gk_proj.1.weight": _w(rng, 4, 2),
           "gk_proj.1.bias": _w(rng, 4), "g_norm_swish_gate.weight": 1 + _w(rng, 2), "o_proj.weight": _w(rng, D, 4)}
    retnet = {k: v for k, v in gla.items() if not k.startswith("gk_proj")}
    retnet = {k: v + _w(rng, *v.shape, scale=0.1) for k, v in retnet.items()}
    R = 2
    rwkv6 = {"x_proj.0.mu": _w(rng, D), "x_proj.0.linear.weight": _w(rng, 5 * R, D),
             "x_proj.2.weight": _w(rng, D, 5 * R), "x_bias": _w(rng, 5, D), "r_proj.linear.weight": _w(rng, 4, D),
             "w_proj.linear.lora.0.weight": _w(rng, 2, D), "w_proj.linear.lora.2.weight": _w(rng, 4, 2),
             "w_proj.linear.lora.2.bias": _w(rng, 4), "k_proj.linear.weight": _w(rng, 4, D),
             "v_proj.linear.weight": _w(rng, 4, D), "g_proj.linear.weight": _w(rng, 4, D), "bonus": _w(rng, 2, 2),
             "g_norm.weight": 1 + _w(rng, 4), "o_proj.weight": _w(rng, D, 4)}
    rwkv7 = {f"x_{n}": _w(rng, 1, 1, D) for n in "rwkvag"}
    rwkv7.update({"k_k": _w(rng, 4), "k_a": _w(rng, 4), "r_k": _w(rng, 2, 2), "r_proj.weight": _w(rng, 4, D),
                  "k_proj.weight": _w(rng, 4, D), "v_proj.weight": _w(rng, 4, D), "o_proj.weight": _w(rng, D, 4),
                  "w_lora.lora.0.weight": _w(rng, 2, D), "w_lora.lora.2.weight": _w(rng, 4, 2),
                  "w_lora.lora.2.bias": _w(rng, 4), "a_lora.lora.0.weight": _w(rng, 2, D),
                  "a_lora.lora.2.weight": _w(rng, 4, 2), "a_lora.lora.2.bias": _w(rng, 4),
                  "g_lora.lora.0.weight": _w(rng, 2, D), "g_lora.lora.2.weight": _w(rng, 4, 2),
                  "g_norm.weight": 1 + _w(rng, 4)})
    t = {"model.embeddings.weight": _w(rng, 20, D), "model.norm.weight": np.ones(D)}
    for i, mixer in enumerate((gla, retnet, rwkv6, rwkv7)):
        t.update(prefixed(f"model.layers.{i}.attn", mixer))
        t[f"model.layers.{i}.attn_norm.weight"] = 1 + _w(rng, D, scale=0.1)
        t.update(prefixed(f"model.layers.{i}.mlp", mlp(rng, D, 8)))
    return t


def test_an_fla_model_gla_retnet_rwkv6_rwkv7(tmp_path, capsys):
    t = fla_model(np.random.default_rng(2))
    folder = write_model(tmp_path / "fla", t, {"num_heads": 2, "norm_eps": 1e-5}, "F64")
    assert main(["model", str(folder), "--json", "--input-length", str(L), "--tol", "1e-9"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert [x["kind"] for x in report["layers"]] == ["embedding", "gla", "mlp", "retnet", "mlp", "rwkv6", "mlp",
                                                     "rwkv7", "mlp", "norm"]
    X = seeded_input(L, 4, 0)
    for i, family in enumerate(("fla-gla", "fla-retnet", "fla-rwkv6", "fla-rwkv7")):
        rec = report["layers"][1 + 2 * i]
        assert rec["status"] == "analysed" and rec["family"] == family, rec
        Xn = _rms(X, t[f"model.layers.{i}.attn_norm.weight"], 1e-5)
        config = {"num_heads": 2, "norm_eps": 1e-5} if family in ("fla-gla", "fla-retnet") else {"norm_eps": 1e-5}
        assert rec["numerical_interaction_rank"] == _exact_rank(t, f"model.layers.{i}.attn", family, config, Xn)
        assert rec["highway"]["eps_head_count"] == rec["numerical_interaction_rank"]
    retnet = report["layers"][3]["highway"]
    assert retnet["decay_rate"] == pytest.approx(1 - 2.0 ** -6)  # gamma_h = 1 - 2^(-5-h): the slower head
    rows = {r["name"]: r for r in report["highway"]["layers"]}
    assert rows["model.layers.0.attn"]["decay_status"] == "numeric"


def test_a_real_size_layer_is_listed_not_analysed_with_the_input_length_that_fits(tmp_path, capsys):
    rng = np.random.default_rng(3)
    D, K = 512, 16  # blocks of 512 x 512; key and value width 16 (few parameters)
    gla = {"q_proj.weight": _w(rng, K, D), "k_proj.weight": _w(rng, K, D), "v_proj.weight": _w(rng, K, D),
           "gk_proj.0.weight": _w(rng, 4, D), "gk_proj.1.weight": _w(rng, K, 4), "o_proj.weight": _w(rng, D, K),
           "g_norm_swish_gate.weight": np.ones(4)}
    folder = write_model(tmp_path / "big", {"model.embeddings.weight": _w(rng, 8, D),
                                            **prefixed("model.layers.0.attn", gla)}, {"num_heads": 4})
    report = analyse_model(folder, 64)
    rec = report["layers"][1]
    longest = max(n for n in range(1, 64) if n * (n + 1) // 2 * D * D <= MAX_RECURRENT_ENTRIES)
    assert rec["status"] == "not analysed" and "too large at n = 32" in rec["reason"]
    assert f"try --input-length {longest}" in rec["reason"]
    assert main(["model", str(folder), "--input-length", "2"]) == 0
    assert "numerical interaction rank" in capsys.readouterr().out
    wide = dict(gla, **{"v_proj.weight": _w(rng, 2048, D), "o_proj.weight": _w(rng, D, 2048),
                        "g_norm_swish_gate.weight": np.ones(512)})
    folder = write_model(tmp_path / "wide", {"model.embeddings.weight": _w(rng, 8, D),
                                             **prefixed("model.layers.0.attn", wide)}, {"num_heads": 4})
    rec = analyse_model(folder, 64, length=1)["layers"][1]
    assert rec["status"] == "not analysed" and "parameters" in rec["reason"] and "--input-length" not in rec["reason"]


@pytest.mark.parametrize("config, G, limits", [({"n_groups": 2}, 2, (0.0, np.inf)),
                                               ({"mamba_n_groups": 2}, 2, (0.0, np.inf)),
                                               ({"ssm_cfg": {"ngroups": 2, "dt_limit": [0.5, 1.0]}}, 2, (0.5, 1.0)),
                                               ({"n_groups": 1, "time_step_limit": [0.0, 0.3]}, 1, (0.0, 0.3))])
def test_mamba2_the_model_report_and_the_recurrent_reader_agree(config, G, limits):
    """Step, B, C and the heads' coefficients c_ij from numeric/models.py and from recurrent_checkpoints (family
    mamba2) on one checkpoint and input, both equal to the token-by-token reference; the layer's output too."""
    rng = np.random.default_rng(4)
    D, H, P, N, n = 8, 4, 2, 2, 5
    t = mamba2_mixer(rng, D, H, P, G, N)
    X = rng.standard_normal((n, D))
    _, sizes, _ = classify_module({k: v.shape for k, v in t.items()}, config)
    _, dt, B, C = mamba2_forward(t, X, sizes, limits)
    reading = recurrent_layer(t, "mamba2", config=config, X=X)
    heads = [dict(h) for h in reading.layer.param("heads")]
    assert len(heads) == H
    for h, f in enumerate(heads):
        assert np.allclose([float(v) for v in f["dt"]], dt[:, h], rtol=1e-14, atol=0)
        assert np.allclose([[float(v) for v in row] for row in f["B"]], B[:, h // (H // G)], rtol=1e-13, atol=1e-15)
        assert np.allclose([[float(v) for v in row] for row in f["C"]], C[:, h // (H // G)], rtol=1e-13, atol=1e-15)
    ref = mamba2_operator(t, X, H, P, G, N, dt_limit=limits)
    rows, index, _ = _mamba2_rows(-np.exp(t["A_log"]), dt, B, C, t["D"], H, P, G)
    c = head_coefficients(reading.layer)
    for i in range(n):
        for j in range(i + 1):
            assert np.allclose(rows[index[(i, j)]], ref[i, j], rtol=1e-12, atol=1e-15)
            assert np.allclose([float(c[h][i][j]) for h in range(H)], ref[i, j], rtol=1e-12, atol=1e-15)
    if limits == (0.0, np.inf):
        assert np.allclose(reading.y, forward("mamba2", t, X, {"n_groups": G}), atol=1e-12)


def test_mamba3_is_listed_with_the_reason(tmp_path, capsys):
    rng = np.random.default_rng(5)
    t = {"model.embeddings.weight": _w(rng, 20, 8), **prefixed("model.layers.0.mixer", mamba3_mixer(rng, 8))}
    folder = write_model(tmp_path / "m3", t)
    assert main(["model", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "model.layers.0.mixer (Mamba-3" in out and "not analysed" in out and "trapezoidal" in out


def test_an_xlstm_layer_takes_its_heads_from_its_gates_without_a_config(tmp_path):
    rng = np.random.default_rng(6)
    D = 4
    mlstm = {"q.weight": _w(rng, 4, D), "k.weight": _w(rng, 4, D), "v.weight": _w(rng, 4, D),
             "igate_preact.weight": _w(rng, 2, D), "igate_preact.bias": _w(rng, 2),
             "fgate_preact.weight": _w(rng, 2, D), "fgate_preact.bias": 2 + _w(rng, 2),
             "ogate_preact.weight": _w(rng, 4, D), "multihead_norm.weight": 1 + _w(rng, 4),
             "out_proj.weight": _w(rng, D, 4)}
    t = {"backbone.embeddings.weight": _w(rng, 20, D), **prefixed("backbone.blocks.0.mlstm_layer", mlstm),
         "backbone.blocks.0.norm_mlstm.weight": 1 + _w(rng, D, scale=0.1), **prefixed("backbone.blocks.0.ffn", {
             "proj_up.weight": _w(rng, 8, D), "proj_down.weight": _w(rng, D, 8)})}
    folder = write_model(tmp_path / "xlstm", t, {"model_type": "xlstm", "norm_eps": 1e-6}, "F64")
    report = analyse_model(folder, 64, tolerance=1e-9, length=L)
    assert [x["kind"] for x in report["layers"]] == ["embedding", "mlstm", "mlp"]
    rec = report["layers"][1]
    assert rec["status"] == "analysed" and rec["family"] == "xlstm" and rec["heads"] == 2
    assert rec["pre_norm"] == "norm_mlstm.weight"
    X = _rms(seeded_input(L, D, 0), t["backbone.blocks.0.norm_mlstm.weight"], 1e-6)
    assert rec["numerical_interaction_rank"] == _exact_rank(t, "backbone.blocks.0.mlstm_layer", "xlstm",
                                                            {"norm_eps": 1e-6}, X)
