"""The selective layers as symssm reads them, against transformers' own modules on tiny random models built here
(the optional ``models`` extra: torch and transformers; skipped when they are absent).

symssm computes each mixer's x, step, B and C from the checkpoint (numeric.models.mamba1_forward,
mamba2_forward); here they are completed into the mixer's output (the scan, D, the gate, the gated norm,
out_proj) and compared with the output of transformers' module on the same hidden states, and the saved
checkpoint's layer map is compared with the model's own layer types."""

import numpy as np
import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from symssm.numeric.models import ModelInput, _pre_norm, mamba1_forward, mamba2_forward  # noqa: E402
from symssm.sources.architectures import model_map  # noqa: E402
from symssm.sources.checkpoints import Checkpoint  # noqa: E402


def _silu(x):
    return x / (1 + np.exp(-x))


def _scan(x, dt, A, B, C, D, heads=None):
    """y_t = C_t h_t + D x_t, h_t = exp(dt_t A) h_(t-1) + dt_t B_t x_t; Mamba-1 (per channel) or Mamba-2 (per head)."""
    L = x.shape[0]
    if heads is None:  # Mamba-1: x (L, di), dt (L, di), A (di, N), B, C (L, N)
        h = np.zeros(A.shape)
        ys = []
        for t in range(L):
            h = np.exp(dt[t][:, None] * A) * h + dt[t][:, None] * B[t][None, :] * x[t][:, None]
            ys.append(h @ C[t] + D * x[t])
        return np.array(ys)
    G, N = B.shape[1], B.shape[2]
    p = x.shape[1] // heads
    xs = x.reshape(L, heads, p)
    h = np.zeros((heads, p, N))
    ys = []
    for t in range(L):
        g = np.arange(heads) // (heads // G)
        h = np.exp(dt[t] * A)[:, None, None] * h + (dt[t][:, None, None] * xs[t][:, :, None] * B[t][g][:, None, :])
        ys.append((np.einsum("hpn,hn->hp", h, C[t][g]) + D[:, None] * xs[t]).reshape(-1))
    return np.array(ys)


def _open(model, tmp_path):
    model.save_pretrained(tmp_path)
    ckpt = Checkpoint(tmp_path)
    return ckpt, model_map({k: ckpt.shape(k) for k in ckpt.names}, ckpt.config)


def _tensors(ckpt, entry):
    data = ckpt.read(list(entry.keys.values()))
    return {s: data[k] for s, k in entry.keys.items()}


def test_jamba_mixer_output_from_symssms_reading(tmp_path):
    torch.manual_seed(0)
    cfg = transformers.JambaConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=2, num_attention_heads=2,
                                   num_key_value_heads=1, vocab_size=40, num_experts=2, num_experts_per_tok=1,
                                   attn_layer_period=2, attn_layer_offset=1, expert_layer_period=2,
                                   expert_layer_offset=1, mamba_d_state=4, mamba_dt_rank=2, use_mamba_kernels=False)
    model = transformers.JambaForCausalLM(cfg).eval()
    ckpt, entries = _open(model, tmp_path)
    assert [e.kind for e in entries if e.block is not None] == ["mamba", "mlp", "attention", "moe"]
    entry = entries[1]
    t = _tensors(ckpt, entry)
    X = ModelInput(ckpt, entries).hidden_state(16)
    Xn, norm = _pre_norm(entry, ckpt, X, ckpt.config)
    assert norm == "input_layernorm.weight"
    norms = {k: t[f"{k}_layernorm.weight"] for k in ("dt", "b", "c")}
    x, delta, B, C = mamba1_forward(t, Xn, norms, cfg.rms_norm_eps)
    di = t["A_log"].shape[0]
    z = (Xn @ t["in_proj.weight"].T)[:, di:]
    y = (_scan(x, delta, -np.exp(t["A_log"]), B, C, t["D"]) * _silu(z)) @ t["out_proj.weight"].T
    layer = model.model.layers[0]
    with torch.no_grad():
        hidden = layer.input_layernorm(torch.tensor(X[None], dtype=torch.float32))
        ref = layer.mamba(hidden)
    ref = (ref[0] if isinstance(ref, tuple) else ref)[0].double().numpy()
    assert np.allclose(y, ref, rtol=2e-4, atol=2e-5), np.max(np.abs(y - ref))


@pytest.mark.parametrize("groups", [1, 2])
def test_mamba2_mixer_output_from_symssms_reading(tmp_path, groups):
    torch.manual_seed(groups)
    cfg = transformers.Mamba2Config(hidden_size=16, num_hidden_layers=1, vocab_size=40, state_size=4, expand=2,
                                    num_heads=8, head_dim=4, n_groups=groups)
    model = transformers.Mamba2ForCausalLM(cfg).eval()
    ckpt, entries = _open(model, tmp_path)
    (entry,) = [e for e in entries if e.kind == "mamba2"]
    assert (entry.sizes["heads"], entry.sizes["headdim"], entry.sizes["n_groups"], entry.sizes["d_state"]) == \
        (8, 4, groups, 4)
    t = _tensors(ckpt, entry)
    X = ModelInput(ckpt, entries).hidden_state(16)
    Xn, _ = _pre_norm(entry, ckpt, X, ckpt.config)
    x, dt, B, C = mamba2_forward(t, Xn, entry.sizes)
    y = _scan(x, dt, -np.exp(t["A_log"]), B, C, t["D"], heads=8)
    z = (Xn @ t["in_proj.weight"].T)[:, :32]
    g = (y * _silu(z)).reshape(32, groups, -1)
    g = g / np.sqrt(np.mean(g * g, axis=-1, keepdims=True) + cfg.layer_norm_epsilon)
    out = (g.reshape(32, -1) * t["norm.weight"]) @ t["out_proj.weight"].T
    block = model.backbone.layers[0]
    with torch.no_grad():
        ref = block.mixer(block.norm(torch.tensor(X[None], dtype=torch.float32)))
    ref = (ref[0] if isinstance(ref, tuple) else ref)[0].double().numpy()
    assert np.allclose(out, ref, rtol=2e-4, atol=2e-5), np.max(np.abs(out - ref))


def test_the_hybrids_layer_maps_follow_their_configs(tmp_path):
    torch.manual_seed(3)
    small = dict(hidden_size=16, intermediate_size=32, num_attention_heads=2, num_key_value_heads=1, vocab_size=40)
    bamba = transformers.BambaForCausalLM(transformers.BambaConfig(
        **small, num_hidden_layers=3, attn_layer_indices=[1], mamba_n_heads=4, mamba_d_head=8, mamba_n_groups=2,
        mamba_d_state=4)).eval()
    _, entries = _open(bamba, tmp_path / "bamba")
    assert [e.kind for e in entries if e.block is not None] == ["mamba2", "mlp", "attention", "mlp", "mamba2", "mlp"]
    assert entries[1].sizes["n_groups"] == 2 and entries[1].sizes["d_state"] == 4
    falcon = transformers.FalconH1ForCausalLM(transformers.FalconH1Config(
        **small, num_hidden_layers=2, mamba_n_heads=4, mamba_d_head=8, mamba_n_groups=1, mamba_d_state=4,
        mamba_d_ssm=32)).eval()
    _, entries = _open(falcon, tmp_path / "falcon")
    assert [e.kind for e in entries if e.block is not None] == ["parallel", "mlp", "parallel", "mlp"]
