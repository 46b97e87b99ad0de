"""Helpers for tests that write checkpoints: a minimal safetensors writer (no library needed)."""

import json
import struct

import numpy as np

_DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2"}


def write_safetensors(path, tensors, dtype="F64"):
    """Write ``{name: array}`` as a safetensors file: an 8-byte header length, the JSON header, raw data."""
    header, blobs, offset = {}, [], 0
    for name, arr in tensors.items():
        data = np.ascontiguousarray(arr, dtype=_DTYPES[dtype]).tobytes()
        header[name] = {"dtype": dtype, "shape": list(np.shape(arr)), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))


# ---------------------------------------------------------------- tiny models with each family's parameter names

def _w(rng, *shape, scale=0.3):
    return rng.standard_normal(shape) * scale


def mamba1_mixer(rng, d_model=8, d_inner=12, d_state=4, dt_rank=2, conv=4, norms=(), extra_rows=0, lists=False):
    """A Mamba-1 mixer (state-spaces/mamba ``Mamba``; transformers ``MambaMixer``, ``JambaMambaMixer``): with
    ``norms`` ('dt', 'b', 'c') Jamba's dt/b/c_layernorm (Hymba: ``B_layernorm``); ``extra_rows`` of attention
    q, k, v in front of in_proj and ``lists`` (``A_log.0``, ``x_proj.0``) as in Hymba."""
    t = {"in_proj.weight": _w(rng, extra_rows + 2 * d_inner, d_model), "conv1d.weight": _w(rng, d_inner, 1, conv),
         "conv1d.bias": _w(rng, d_inner, scale=0.1), "x_proj.weight": _w(rng, dt_rank + 2 * d_state, d_inner),
         "dt_proj.weight": _w(rng, d_inner, dt_rank), "dt_proj.bias": np.log(np.expm1(rng.uniform(0.01, 0.1, d_inner))),
         "A_log": np.log(np.tile(np.arange(1, d_state + 1), (d_inner, 1)).astype(float)) + _w(rng, d_inner, d_state,
                                                                                               scale=0.1),
         "D": np.ones(d_inner), "out_proj.weight": _w(rng, d_model, d_inner)}
    for tag in norms:
        name = {"dt": "dt_layernorm", "b": "b_layernorm", "c": "c_layernorm", "B": "B_layernorm",
                "C": "C_layernorm"}[tag]
        t[f"{name}.weight"] = 1.0 + _w(rng, dt_rank if tag == "dt" else d_state, scale=0.2)
    if lists:
        for k in ("x_proj", "dt_proj"):
            for p in ("weight", "bias"):
                if f"{k}.{p}" in t:
                    t[f"{k}.0.{p}"] = t.pop(f"{k}.{p}")
        t["A_log.0"], t["D.0"] = t.pop("A_log"), t.pop("D")
    return t


def mamba2_mixer(rng, d_model=8, heads=4, headdim=4, groups=1, d_state=4, conv=4, d_mlp=0, gated_norm=True):
    """A Mamba-2 mixer (state-spaces/mamba ``Mamba2``; transformers ``Mamba2Mixer`` and the Bamba, Nemotron-H,
    Falcon-H1, Zamba2, Granite-4.0-H mixers): in_proj rows ``2 d_mlp + d_ssm + conv_dim + heads``."""
    d_ssm = heads * headdim
    conv_dim = d_ssm + 2 * groups * d_state
    t = {"in_proj.weight": _w(rng, 2 * d_mlp + d_ssm + conv_dim + heads, d_model),
         "conv1d.weight": _w(rng, conv_dim, 1, conv), "conv1d.bias": _w(rng, conv_dim, scale=0.1),
         "dt_bias": np.log(np.expm1(rng.uniform(0.001, 0.1, heads))), "A_log": np.log(rng.uniform(1, 16, heads)),
         "D": np.ones(heads), "out_proj.weight": _w(rng, d_model, d_ssm)}
    if gated_norm:
        t["norm.weight"] = 1.0 + _w(rng, d_ssm, scale=0.1)
    return t


def attention(rng, d_model=8, heads=2, kv=1, hd=4, qk_norm=False):
    t = {"q_proj.weight": _w(rng, heads * hd, d_model), "k_proj.weight": _w(rng, kv * hd, d_model),
         "v_proj.weight": _w(rng, kv * hd, d_model), "o_proj.weight": _w(rng, d_model, heads * hd)}
    if qk_norm:
        t["q_norm.weight"], t["k_norm.weight"] = np.ones(hd), np.ones(hd)
    return t


def mlp(rng, d_model=8, hidden=16, names=("gate_proj", "up_proj", "down_proj")):
    g, u, d = names
    t = {f"{u}.weight": _w(rng, hidden, d_model), f"{d}.weight": _w(rng, d_model, hidden)}
    if g:
        t[f"{g}.weight"] = _w(rng, hidden, d_model)
    return t


def moe(rng, d_model=8, hidden=8, experts=3, router="router.weight"):
    t = {router: _w(rng, experts, d_model)}
    for e in range(experts):
        t.update({f"experts.{e}.{k}": v for k, v in mlp(rng, d_model, hidden).items()})
    return t


def gated_deltanet(rng, d_model=8, heads=2, hd=4):
    """fla ``gated_deltanet.py``: q/k/v/a/b/g/o projections, A_log and dt_bias per head, short convolutions."""
    return {"q_proj.weight": _w(rng, heads * hd, d_model), "k_proj.weight": _w(rng, heads * hd, d_model),
            "v_proj.weight": _w(rng, 2 * heads * hd, d_model), "a_proj.weight": _w(rng, heads, d_model),
            "b_proj.weight": _w(rng, heads, d_model), "A_log": np.log(rng.uniform(1, 16, heads)),
            "dt_bias": _w(rng, heads), "q_conv1d.weight": _w(rng, heads * hd, 1, 4),
            "k_conv1d.weight": _w(rng, heads * hd, 1, 4), "v_conv1d.weight": _w(rng, 2 * heads * hd, 1, 4),
            "g_proj.weight": _w(rng, 2 * heads * hd, d_model), "o_norm.weight": np.ones(2 * hd),
            "o_proj.weight": _w(rng, d_model, 2 * heads * hd)}


def kda(rng, d_model=8, heads=2, hd=8):
    """fla ``kda.py``: f_proj and g_proj as two-layer Sequentials, A_log per head, dt_bias per key channel."""
    return {"q_proj.weight": _w(rng, heads * hd, d_model), "k_proj.weight": _w(rng, heads * hd, d_model),
            "v_proj.weight": _w(rng, heads * hd, d_model), "f_proj.0.weight": _w(rng, hd, d_model),
            "f_proj.1.weight": _w(rng, heads * hd, hd), "b_proj.weight": _w(rng, heads, d_model),
            "A_log": np.log(rng.uniform(1, 16, heads)), "dt_bias": np.zeros(heads * hd),
            "g_proj.0.weight": _w(rng, hd, d_model), "g_proj.1.weight": _w(rng, heads * hd, hd),
            "g_proj.1.bias": np.zeros(heads * hd), "o_norm.weight": np.ones(hd),
            "o_proj.weight": _w(rng, d_model, heads * hd)}


def qwen3_next_linear_attn(rng, d_model=8, k_heads=2, v_heads=4, kd=4, vd=4):
    """transformers ``Qwen3NextGatedDeltaNet`` (``linear_attn``)."""
    key_dim, value_dim = k_heads * kd, v_heads * vd
    return {"in_proj_qkvz.weight": _w(rng, 2 * key_dim + 2 * value_dim, d_model),
            "in_proj_ba.weight": _w(rng, 2 * v_heads, d_model), "conv1d.weight": _w(rng, 2 * key_dim + value_dim, 1, 4),
            "dt_bias": np.ones(v_heads), "A_log": np.log(rng.uniform(1, 16, v_heads)), "norm.weight": np.ones(vd),
            "out_proj.weight": _w(rng, d_model, value_dim)}


def mamba3_mixer(rng, d_model=8, heads=2, headdim=4, d_state=4):
    """state-spaces/mamba ``Mamba3`` (SISO): no A_log; B_bias, C_bias, B_norm, C_norm, dt_bias, D."""
    d_inner = heads * headdim
    angles = d_state // 4
    return {"in_proj.weight": _w(rng, 2 * d_inner + 2 * d_state + 3 * heads + angles, d_model),
            "dt_bias": _w(rng, heads), "B_bias": np.ones((heads, 1, d_state)), "C_bias": np.ones((heads, 1, d_state)),
            "B_norm.weight": np.ones(d_state), "C_norm.weight": np.ones(d_state), "D": np.ones(heads),
            "out_proj.weight": _w(rng, d_model, d_inner)}


def prefixed(prefix, tensors):
    return {f"{prefix}.{k}": v for k, v in tensors.items()}


def write_model(folder, tensors, config=None, dtype="F32"):
    """A Hugging Face style folder: ``model.safetensors`` and ``config.json``."""
    folder.mkdir(parents=True, exist_ok=True)
    write_safetensors(folder / "model.safetensors", tensors, dtype)
    if config is not None:
        (folder / "config.json").write_text(json.dumps(config))
    return folder
