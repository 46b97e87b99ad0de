"""`symssm model` on tiny checkpoints with each family's real parameter names: the layer map (every layer, in
order, as its kind), the sizes, and the selective layers' numbers against a token-by-token numpy forward pass
(tests/layer_references.py)."""

import json

import numpy as np
import pytest

from checkpoint_tools import (attention, gated_deltanet, kda, mamba1_mixer, mamba2_mixer, mamba3_mixer, mlp, moe,
                              prefixed, qwen3_next_linear_attn, write_model)
from layer_references import mamba1_operator, mamba2_operator, operator_curve
from symssm.cli import main
from symssm.numeric.models import analyse_model
from symssm.sources.architectures import model_map
from symssm.sources.checkpoints import Checkpoint

D = 8


def _map(folder):
    ckpt = Checkpoint(folder)
    return [(e.name, e.kind) for e in model_map({k: ckpt.shape(k) for k in ckpt.names}, ckpt.config)]


def _common(rng, prefix="model"):
    return {f"{prefix}.embed_tokens.weight": rng.standard_normal((20, D)), f"{prefix}.final_layernorm.weight":
            np.ones(D), "lm_head.weight": rng.standard_normal((20, D))}


def jamba(tmp_path, rng):
    t = _common(rng)
    for i in range(4):
        p = f"model.layers.{i}"
        t[f"{p}.input_layernorm.weight"] = 1 + 0.1 * rng.standard_normal(D)
        t[f"{p}.pre_ff_layernorm.weight"] = np.ones(D)
        if i == 2:
            t.update(prefixed(f"{p}.self_attn", attention(rng, D, heads=2, kv=1, hd=4)))
        else:
            t.update(prefixed(f"{p}.mamba", mamba1_mixer(rng, D, 12, 4, 2, norms=("dt", "b", "c"))))
        t.update(prefixed(f"{p}.feed_forward", moe(rng, D) if i % 2 else mlp(rng, D)))
    config = {"model_type": "jamba", "num_attention_heads": 2, "num_key_value_heads": 1, "num_experts": 3,
              "num_experts_per_tok": 2, "rms_norm_eps": 1e-6, "hidden_size": D}
    return write_model(tmp_path / "jamba", t, config, "F64"), t, config


def test_jamba_every_layer_in_order_and_its_mamba_layers_as_computed(tmp_path):
    folder, t, config = jamba(tmp_path, np.random.default_rng(0))
    assert _map(folder) == [
        ("model.embed_tokens", "embedding"),
        ("model.layers.0.mamba", "mamba"), ("model.layers.0.feed_forward", "mlp"),
        ("model.layers.1.mamba", "mamba"), ("model.layers.1.feed_forward", "moe"),
        ("model.layers.2.self_attn", "attention"), ("model.layers.2.feed_forward", "mlp"),
        ("model.layers.3.mamba", "mamba"), ("model.layers.3.feed_forward", "moe"),
        ("model.final_layernorm", "norm"), ("lm_head", "output")]
    report = analyse_model(folder, 64, tolerance=1e-6)
    layers = {x["name"]: x for x in report["layers"]}
    assert layers["model.layers.1.feed_forward"]["sizes"]["experts"] == 3
    assert layers["model.layers.1.feed_forward"]["sizes"]["top_k"] == 2
    attn = layers["model.layers.2.self_attn"]
    assert (attn["heads"], attn["kv_heads"], attn["head_dim"]) == (2, 1, 4)
    Wv, Wo = t["model.layers.2.self_attn.v_proj.weight"], t["model.layers.2.self_attn.o_proj.weight"]
    assert attn["value_ranks"] == [np.linalg.matrix_rank(Wo[:, h * 4:(h + 1) * 4] @ Wv) for h in range(2)]
    # the Mamba layer against the token-by-token reference, with Jamba's dt/b/c norms and the pre-norm
    m = layers["model.layers.0.mamba"]
    assert m["input"] == "model" and m["norms_applied"] == ["b_layernorm", "c_layernorm", "dt_layernorm"]
    short = {k[len("model.layers.0.mamba."):]: v for k, v in t.items() if k.startswith("model.layers.0.mamba.")}
    X = np.random.default_rng(0).standard_normal((32, D))
    norms = {k: short[f"{k}_layernorm.weight"] for k in ("dt", "b", "c")}
    ref = operator_curve(mamba1_operator(short, X, t["model.layers.0.input_layernorm.weight"], norms, 1e-6, 1e-6))
    k = m["numerical_interaction_rank"]
    assert k == next(H for H, e in enumerate(ref) if e <= 1e-6)
    assert np.allclose(m["approximation_error"][:k], ref[:k], rtol=1e-7, atol=1e-12)
    # without the norms the operator is another one: they are read, not ignored
    plain = operator_curve(mamba1_operator(short, X, t["model.layers.0.input_layernorm.weight"], None, 1e-6))
    assert not np.allclose(plain[:k], ref[:k], rtol=1e-3)


@pytest.mark.parametrize("groups, headdim", [(1, 4), (2, 4), (2, 1)])
def test_mamba2_sizes_and_numbers_from_in_proj_and_conv1d(tmp_path, groups, headdim):
    """nheads x headdim channels, d_state per group (n_groups from config.json), B, C and dt from the layer."""
    rng = np.random.default_rng(groups + headdim)
    heads, N = 4, 4
    mixer = mamba2_mixer(rng, D, heads, headdim, groups, N)
    t = {"backbone.embeddings.weight": rng.standard_normal((20, D)), "backbone.layers.0.norm.weight": np.ones(D),
         **prefixed("backbone.layers.0.mixer", mixer), "backbone.norm_f.weight": np.ones(D)}
    config = {"model_type": "mamba2", "num_heads": heads, "head_dim": headdim, "n_groups": groups, "state_size": N,
              "layer_norm_epsilon": 1e-5}
    folder = write_model(tmp_path / "m2", t, config, "F64")
    (layer,) = [x for x in analyse_model(folder, 64, tolerance=1e-6)["layers"] if x["kind"] == "mamba2"]
    assert (layer["heads"], layer["headdim"], layer["channels"], layer["n_groups"], layer["state"]) == \
        (heads, headdim, heads * headdim, groups, N)
    X = np.random.default_rng(0).standard_normal((32, D))
    ref = operator_curve(mamba2_operator(mixer, X, heads, headdim, groups, N, np.ones(D), 1e-5))
    k = layer["numerical_interaction_rank"]
    assert k == next(H for H, e in enumerate(ref) if e <= 1e-6) and k <= heads
    assert np.allclose(layer["approximation_error"][:k], ref[:k], rtol=1e-7, atol=1e-12)


def test_tokens_go_through_the_embedding(tmp_path, capsys):
    rng = np.random.default_rng(5)
    mixer = mamba2_mixer(rng, D, 2, 4, 1, 4)
    emb = rng.standard_normal((30, D))
    t = {"backbone.embeddings.weight": emb, **prefixed("backbone.layers.0.mixer", mixer)}
    folder = write_model(tmp_path / "tok", t, {"n_groups": 1}, "F64")
    ids = [3, 1, 4, 1, 5, 9, 2, 6]
    assert main(["model", str(folder), "--tokens", ",".join(map(str, ids)), "--json", "--tol", "1e-6"]) == 0
    data = json.loads(capsys.readouterr().out)
    (layer,) = [x for x in data["layers"] if x["kind"] == "mamba2"]
    assert data["input"]["tokens"] == ids and layer["tokens"] == 8
    ref = operator_curve(mamba2_operator(mixer, emb[ids], 2, 4, 1, 4))
    assert np.allclose(layer["approximation_error"][:3], ref[:3], rtol=1e-7)
    assert main(["model", str(folder), "--tokens", "31"]) == 2
    assert "outside the embedding" in capsys.readouterr().err


def test_a_pure_transformer_reports_attention_and_mlp(tmp_path, capsys):
    rng = np.random.default_rng(1)
    t = _common(rng)
    for i in range(2):
        t.update(prefixed(f"model.layers.{i}.self_attn", attention(rng, D, 2, 2, 4, qk_norm=True)))
        t.update(prefixed(f"model.layers.{i}.mlp", mlp(rng, D)))
        t[f"model.layers.{i}.input_layernorm.weight"] = np.ones(D)
    folder = write_model(tmp_path / "llama", t)  # no config.json: head_dim from q_norm
    assert main(["model", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "model.layers.0.self_attn (attention, 2 heads, 2 kv heads, head dim 4)" in out
    assert "model.layers.1.mlp (MLP" in out and "not read" not in out


def test_hybrids_bamba_nemotron_falcon_granite(tmp_path):
    rng = np.random.default_rng(2)
    bamba = {**_common(rng), **prefixed("model.layers.0.mamba", mamba2_mixer(rng, D, 2, 4, 1, 4)),
             **prefixed("model.layers.0.feed_forward", mlp(rng, D)),
             **prefixed("model.layers.1.self_attn", attention(rng, D)),
             **prefixed("model.layers.1.feed_forward", mlp(rng, D))}
    assert [k for _, k in _map(write_model(tmp_path / "bamba", bamba, {"mamba_n_groups": 1}))][1:5] == \
        ["mamba2", "mlp", "attention", "mlp"]
    nemo = {"backbone.embeddings.weight": rng.standard_normal((20, D)),
            **prefixed("backbone.layers.0.mixer", mamba2_mixer(rng, D, 4, 2, 2, 4)),
            **prefixed("backbone.layers.1.mixer", mlp(rng, D, names=(None, "up_proj", "down_proj"))),
            **prefixed("backbone.layers.2.mixer", attention(rng, D)),
            **prefixed("backbone.layers.3.mixer", {"gate.weight": rng.standard_normal((3, D)),
                                                   **{f"experts.{e}.{k}": v for e in range(3) for k, v in
                                                      mlp(rng, D, names=(None, "up_proj", "down_proj")).items()}}),
            "backbone.norm_f.weight": np.ones(D)}
    for i in range(4):
        nemo[f"backbone.layers.{i}.norm.weight"] = np.ones(D)
    folder = write_model(tmp_path / "nemo", nemo, {"model_type": "nemotron_h", "n_groups": 2,
                                                   "num_attention_heads": 2, "num_experts_per_tok": 2})
    assert [k for _, k in _map(folder)] == ["embedding", "mamba2", "mlp", "attention", "moe", "norm"]
    (m,) = [x for x in analyse_model(folder, 64)["layers"] if x["kind"] == "mamba2"]
    assert (m["heads"], m["headdim"], m["channels"], m["n_groups"], m["state"]) == (4, 2, 8, 2, 4)
    falcon = {**_common(rng), **prefixed("model.layers.0.mamba", mamba2_mixer(rng, D, 2, 4, 1, 4)),
              **prefixed("model.layers.0.self_attn", attention(rng, D)),
              **prefixed("model.layers.0.feed_forward", mlp(rng, D)), "model.layers.0.input_layernorm.weight":
              np.ones(D)}
    folder = write_model(tmp_path / "falcon", falcon, {"model_type": "falcon_h1", "mamba_n_groups": 1,
                                                       "num_attention_heads": 2, "num_key_value_heads": 1,
                                                       "ssm_in_multiplier": 0.5,
                                                       "ssm_multipliers": [1.0, 1.0, 2.0, 0.5, 1.0]})
    assert [k for _, k in _map(folder)][1:3] == ["parallel", "mlp"]
    par = analyse_model(folder, 64)["layers"][1]
    assert [p["kind"] for p in par["parts"]] == ["mamba2", "attention"]
    assert par["highway"]["distance_independent_paths"] == 2
    granite = {**_common(rng), **prefixed("model.layers.0.mamba", mamba2_mixer(rng, D, 2, 4, 1, 4)),
               "model.layers.0.block_sparse_moe.input_linear.weight": rng.standard_normal((4, 16, D)),
               "model.layers.0.block_sparse_moe.output_linear.weight": rng.standard_normal((4, D, 8)),
               "model.layers.0.block_sparse_moe.router.layer.weight": rng.standard_normal((4, D)),
               **prefixed("model.layers.0.shared_mlp", {"input_linear.weight": rng.standard_normal((16, D)),
                                                        "output_linear.weight": rng.standard_normal((D, 8))})}
    kinds = dict(_map(write_model(tmp_path / "granite", granite, {"num_experts_per_tok": 2})))
    assert kinds["model.layers.0.block_sparse_moe"] == "moe" and kinds["model.layers.0.shared_mlp"] == "mlp"
    assert kinds["model.layers.0.mamba"] == "mamba2"


def test_zamba2_shared_blocks_and_tied_weights(tmp_path):
    rng = np.random.default_rng(3)
    t = _common(rng)
    t.update(prefixed("model.layers.0.mamba", mamba2_mixer(rng, D, 2, 4, 1, 4)))
    t["model.layers.0.input_layernorm.weight"] = np.ones(D)
    for i in (1, 2):
        t.update(prefixed(f"model.layers.{i}.mamba_decoder.mamba", mamba2_mixer(rng, D, 2, 4, 1, 4)))
        t[f"model.layers.{i}.mamba_decoder.input_layernorm.weight"] = np.ones(D)
        t[f"model.layers.{i}.linear.weight"] = rng.standard_normal((D, D))
    t.update(prefixed("model.layers.1.shared_transformer.self_attn", attention(rng, D)))
    t.update(prefixed("model.layers.1.shared_transformer.feed_forward",
                      {"gate_up_proj.weight": rng.standard_normal((32, D)), "down_proj.weight":
                       rng.standard_normal((D, 16))}))
    config = {"model_type": "zamba2", "layers_block_type": ["mamba", "hybrid", "hybrid"], "num_mem_blocks": 1,
              "num_attention_heads": 2, "mamba_ngroups": 1}
    got = _map(write_model(tmp_path / "zamba", t, config))
    assert got[1:] == [
        ("model.layers.0.mamba", "mamba2"),
        ("model.layers.1.shared_transformer.self_attn", "attention"),
        ("model.layers.1.shared_transformer.feed_forward", "mlp"),
        ("model.layers.1.mamba_decoder.mamba", "mamba2"),
        ("model.layers.2.shared_transformer", "shared"),
        ("model.layers.2.mamba_decoder.mamba", "mamba2"),
        ("model.final_layernorm", "norm"), ("lm_head", "output")]
    report = analyse_model(tmp_path / "zamba", 64)
    shared = [x for x in report["layers"] if x["kind"] == "shared"][0]
    assert "layer 1" in shared["note"] and not report["skipped"]


def test_linear_recurrences_are_never_read_as_mamba2(tmp_path, capsys):
    rng = np.random.default_rng(4)
    t = {"model.embeddings.weight": rng.standard_normal((20, D)),
         **prefixed("model.layers.0.attn", gated_deltanet(rng, D)),
         **prefixed("model.layers.1.attn", kda(rng, D)),
         **prefixed("model.layers.2.mixer", mamba2_mixer(rng, D, 4, 2, 1, 4)),
         **prefixed("model.layers.3.linear_attn", qwen3_next_linear_attn(rng, D)),
         **prefixed("model.layers.4.mixer", mamba3_mixer(rng, D))}
    folder = write_model(tmp_path / "lr", t, {"linear_num_key_heads": 2})
    assert [k for _, k in _map(folder)] == ["embedding", "gated-deltanet", "kda", "mamba2", "gated-deltanet",
                                            "mamba3"]
    assert main(["model", str(folder)]) == 0  # KDA beside Mamba-2: both read, nothing refused
    out = capsys.readouterr().out
    assert "model.layers.1.attn (Kimi Delta Attention" in out and "not analysed" in out
    assert "model.layers.4.mixer (Mamba-3" in out and "state 128 assumed" not in out


def test_hymba_parallel_heads_and_per_group_lists(tmp_path):
    rng = np.random.default_rng(6)
    heads, kv = 2, 1
    q, k, v = D, D // 2, 12 // 2  # q = hidden, k = kv/heads hidden, v = kv/heads d_inner
    mixer = mamba1_mixer(rng, D, 12, 4, 2, norms=("dt", "B", "C"), extra_rows=q + k + v, lists=True)
    t = {"model.embed_tokens.weight": rng.standard_normal((20, D)), **prefixed("model.layers.0.mamba", mixer),
         "model.layers.0.input_layernorm.weight": np.ones(D), **prefixed("model.layers.0.moe", moe(rng, D, 8, 1))}
    config = {"model_type": "hymba", "num_attention_heads": heads, "num_key_value_heads": kv, "attn_hidden_size": D,
              "mamba_expand": 1.5}
    folder = write_model(tmp_path / "hymba", t, config, "F64")
    assert [k for _, k in _map(folder)] == ["embedding", "parallel", "moe"]
    par = [x for x in analyse_model(folder, 64)["layers"] if x["kind"] == "parallel"][0]
    ssm, attn = par["parts"]
    assert ssm["kind"] == "mamba" and ssm["channels"] == 12 and attn["heads"] == 2 and len(attn["value_ranks"]) == 2
    short = {s.replace(".0.", ".").replace("A_log.0", "A_log").replace("D.0", "D"): val for s, val in mixer.items()}
    X = np.random.default_rng(0).standard_normal((32, D))
    norms = {"dt": short["dt_layernorm.weight"], "b": short["B_layernorm.weight"], "c": short["C_layernorm.weight"]}
    ref = operator_curve(mamba1_operator(short, X, np.ones(D), norms, 1e-5, 1e-5))
    r = ssm["numerical_interaction_rank"]
    assert np.allclose(ssm["approximation_error"][:r], ref[:r], rtol=1e-7, atol=1e-12)


def test_state_spaces_layout_with_mha_and_a_certified_step_decay(tmp_path):
    rng = np.random.default_rng(7)
    heads = 2
    mixer = mamba2_mixer(rng, D, 4, 2, 1, 4)
    t = {"backbone.embedding.weight": rng.standard_normal((20, D)), **prefixed("backbone.layers.0.mixer", mixer),
         "backbone.layers.1.mixer.in_proj.weight": rng.standard_normal((3 * heads * 4, D)),
         "backbone.layers.1.mixer.out_proj.weight": rng.standard_normal((D, heads * 4)),
         **prefixed("backbone.layers.1.mlp", mlp(rng, D, names=(None, "fc1", "fc2")))}
    config = {"d_model": D, "n_layer": 2, "ssm_cfg": {"layer": "Mamba2", "ngroups": 1, "dt_limit": [0.05, 1.0]},
              "attn_layer_idx": [1], "attn_cfg": {"num_heads": heads, "num_heads_kv": heads, "head_dim": 4}}
    folder = write_model(tmp_path / "ss", t, config, "F64")
    assert [k for _, k in _map(folder)] == ["embedding", "mamba2", "attention", "mlp"]
    report = analyse_model(folder, 256)
    m, a = report["layers"][1], report["layers"][2]
    assert a["heads"] == 2 and len(a["value_ranks"]) == 2
    cert = m["highway"]["certified_decay"]
    assert cert["rate_float"] == pytest.approx(np.exp(-0.05 * np.exp(mixer["A_log"].min())), rel=1e-12)
    assert cert["rate_float"] >= m["highway"]["decay_rate"]  # the bound holds on this input
    X = np.random.default_rng(0).standard_normal((32, D))
    ref = operator_curve(mamba2_operator(mixer, X, 4, 2, 1, 4, None, dt_limit=(0.05, 1.0)))
    k = m["numerical_interaction_rank"]
    assert np.allclose(m["approximation_error"][:k], ref[:k], rtol=1e-7, atol=1e-12)


def test_the_highway_figure_and_json(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    folder, _, _ = jamba(tmp_path, np.random.default_rng(8))
    assert main(["model", str(folder), "--plot", str(tmp_path / "map.png"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (tmp_path / "map.png").read_bytes().startswith(b"\x89PNG")
    rows = {r["name"]: r for r in data["highway"]["layers"]}
    assert rows["model.layers.2.self_attn"]["distance_independent_paths"] == 2
    assert rows["model.layers.0.mamba"]["eps_head_count"] >= 1 and rows["model.layers.0.feed_forward"][
        "distance_independent_paths"] == 0


def test_a_layer_at_a_time_the_embedding_is_never_read(tmp_path):
    """A 64 MB embedding beside a small Mamba-2 layer: only the layer's tensors (and a few rows) are read."""
    import tracemalloc

    rng = np.random.default_rng(9)
    t = {"backbone.embeddings.weight": rng.standard_normal((4096, 4096)).astype(np.float32),
         **prefixed("backbone.layers.0.mixer", mamba2_mixer(rng, 4096, 2, 4, 1, 4))}
    folder = write_model(tmp_path / "big", t, {"n_groups": 1})
    tracemalloc.start()
    report = analyse_model(folder, 64, tokens=[1, 2, 3])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert report["layers"][1]["kind"] == "mamba2"
    assert peak < 12 * 1024 * 1024, peak


def test_more_linear_recurrences_and_a_linear_attention_model(tmp_path):
    rng = np.random.default_rng(10)
    w = lambda *s: rng.standard_normal(s)  # noqa: E731
    gla = {"q_proj.weight": w(8, D), "k_proj.weight": w(8, D), "v_proj.weight": w(8, D), "g_proj.weight": w(8, D),
           "gk_proj.0.weight": w(2, D), "gk_proj.1.weight": w(8, 2), "gk_proj.1.bias": w(8), "o_proj.weight": w(D, 8),
           "g_norm_swish_gate.weight": np.ones(4)}
    retnet = {k: v for k, v in gla.items() if not k.startswith("gk_proj")}
    delta = {"q_proj.weight": w(8, D), "k_proj.weight": w(8, D), "v_proj.weight": w(8, D), "b_proj.weight": w(2, D),
             "o_proj.weight": w(D, 8), "o_norm.weight": np.ones(4)}
    rwkv7 = {"x_r": w(1, 1, D), "x_w": w(1, 1, D), "k_k": w(D), "k_a": w(D), "r_k": w(2, 4),
             "r_proj.weight": w(D, D), "k_proj.weight": w(D, D), "v_proj.weight": w(D, D), "o_proj.weight": w(D, D),
             "w_lora.lora.0.weight": w(2, D), "w_lora.lora.2.weight": w(D, 2), "w_lora.lora.2.bias": w(D)}
    rwkv_ffn = {"x_k": w(1, 1, D), "key.weight": w(16, D), "value.weight": w(D, 16)}
    rwkv6 = {"x_proj.0.weight": w(4, D), "x_bias": w(5, D), "r_proj.weight": w(D, D), "k_proj.weight": w(D, D),
             "v_proj.weight": w(D, D), "g_proj.weight": w(D, D), "bonus": w(2, 4), "o_proj.weight": w(D, D),
             "w_proj.linear.weight": w(D, D)}
    mlstm = {"q.weight": w(8, D), "k.weight": w(8, D), "v.weight": w(8, D), "igate_preact.weight": w(2, D),
             "igate_preact.bias": w(2), "fgate_preact.weight": w(2, D), "fgate_preact.bias": w(2),
             "ogate_preact.weight": w(8, D), "out_proj.weight": w(D, 8)}
    t = {"model.embeddings.weight": w(20, D), **prefixed("model.layers.0.attn", gla),
         **prefixed("model.layers.1.attn", retnet), **prefixed("model.layers.2.attn", delta),
         **prefixed("model.layers.3.attn", rwkv7), **prefixed("model.layers.3.ffn", rwkv_ffn),
         **prefixed("model.layers.4.attn", rwkv6), **prefixed("model.layers.5.mlstm_layer", mlstm),
         **prefixed("model.layers.5.ffn", {"proj_up.weight": w(16, D), "proj_down.weight": w(D, 16)})}
    folder = write_model(tmp_path / "fla", t)
    assert [k for _, k in _map(folder)] == ["embedding", "gla", "retnet", "deltanet", "rwkv7", "mlp", "rwkv6",
                                            "mlstm", "mlp"]
    # a linear-attention model: its q/k/v/o mixers are linear recurrences, but in the layers attn.layers names
    lin = {"model.embeddings.weight": w(20, D), **prefixed("model.layers.0.attn", attention(rng, D)),
           **prefixed("model.layers.1.attn", attention(rng, D)), **prefixed("model.layers.1.mlp", mlp(rng, D))}
    folder = write_model(tmp_path / "lin", lin, {"model_type": "linear_attn", "attn": {"layers": [1],
                                                                                     "num_heads": 2}})
    assert [k for _, k in _map(folder)] == ["embedding", "linear-recurrence", "attention", "mlp"]
    report = analyse_model(folder, 64)
    assert report["layers"][1]["status"] == "not analysed" and "linear_attn" in report["layers"][1]["reason"]


def test_gpt2_conv1d_weights(tmp_path):
    rng = np.random.default_rng(11)
    t = {"transformer.wte.weight": rng.standard_normal((20, D)), "transformer.wpe.weight": rng.standard_normal((16, D)),
         "transformer.ln_f.weight": np.ones(D)}
    p = "transformer.h.0"
    c_attn, c_proj = rng.standard_normal((D, 3 * D)), rng.standard_normal((D, D))
    t.update({f"{p}.ln_1.weight": np.ones(D), f"{p}.attn.c_attn.weight": c_attn, f"{p}.attn.c_proj.weight": c_proj,
              f"{p}.attn.bias": np.ones((1, 1, 16, 16)), f"{p}.mlp.c_fc.weight": rng.standard_normal((D, 4 * D)),
              f"{p}.mlp.c_proj.weight": rng.standard_normal((4 * D, D))})
    folder = write_model(tmp_path / "gpt2", t, {"model_type": "gpt2", "n_head": 2})
    assert [k for _, k in _map(folder)] == ["embedding", "embedding", "attention", "mlp", "norm"]
    layers = analyse_model(folder, 64)["layers"]
    assert layers[3]["sizes"]["hidden"] == 4 * D and layers[2]["head_dim"] == 4
    Wv, Wo = c_attn[:, 2 * D:].T, c_proj.T
    assert layers[2]["value_ranks"] == [np.linalg.matrix_rank(Wo[:, h * 4:(h + 1) * 4] @ Wv[h * 4:(h + 1) * 4])
                                        for h in range(2)]


def test_bad_folders_and_options_are_refused_in_one_line(tmp_path, capsys):
    (tmp_path / "empty").mkdir()
    bad = write_model(tmp_path / "badcfg", {"model.embed_tokens.weight": np.ones((4, D))})
    (bad / "config.json").write_text("[1, 2]")
    folder, _, _ = jamba(tmp_path, np.random.default_rng(12))
    for argv, word in (([str(tmp_path / "empty")], "no weights"), ([str(bad)], "not a JSON object"),
                       ([str(folder), "--tokens", "1,x"], "token ids"), ([str(folder), "--tokens", "50"],
                                                                         "outside the embedding"),
                       ([str(folder), "--input-length", "0"], "from 1 to 1024")):
        assert main(["model"] + argv) == 2
        err = capsys.readouterr().err
        assert word in err and err.count("\n") == 1, err


def test_sharded_safetensors_folder_and_rotary_buffers(tmp_path):
    """model.safetensors.index.json: the shards are read as one checkpoint; a top-level inv_freq is a buffer."""
    from checkpoint_tools import write_safetensors

    folder, t, config = jamba(tmp_path, np.random.default_rng(13))
    shard = tmp_path / "sharded"
    shard.mkdir()
    names = sorted(t)
    halves = {"model-00001-of-00002.safetensors": names[:len(names) // 2],
              "model-00002-of-00002.safetensors": names[len(names) // 2:]}
    for file, keys in halves.items():
        write_safetensors(shard / file, {k: t[k] for k in keys})
    write_safetensors(shard / "model-00002-of-00002.safetensors",
                      {**{k: t[k] for k in halves["model-00002-of-00002.safetensors"]},
                       "model.rotary_emb.inv_freq": np.ones(2)})
    index = {"weight_map": {k: f for f, keys in halves.items() for k in keys}}
    index["weight_map"]["model.rotary_emb.inv_freq"] = "model-00002-of-00002.safetensors"
    (shard / "model.safetensors.index.json").write_text(json.dumps(index))
    (shard / "config.json").write_text(json.dumps(config))
    one = analyse_model(folder, 64, tolerance=1e-6)
    two = analyse_model(shard, 64, tolerance=1e-6)
    kinds = [x["kind"] for x in two["layers"]]
    assert kinds.count("buffer") == 1 and not two["skipped"]
    strip = [x for x in two["layers"] if x["kind"] != "buffer"]
    assert [x["name"] for x in strip] == [x["name"] for x in one["layers"]]
    assert strip[1]["approximation_error"] == one["layers"][1]["approximation_error"]
