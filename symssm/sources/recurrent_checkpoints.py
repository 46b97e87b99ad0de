"""One linear-recurrence layer of a checkpoint, read by its reference names, as a layer kind on a seeded input.

:func:`recurrent_layer` takes one layer's tensors (a dict name -> array, names relative to the layer, ``.`` or
``/`` separated) and runs the layer's own forward pass in float64 on an input ``X`` (given, or seeded: ``n``
tokens with independent standard normal entries from ``numpy.random.default_rng(seed)``).  Every quantity the
framework evaluates at ``X`` (queries and keys after their convolutions, activations, rotary embeddings and
normalisations; decays, gates, steps, the normaliser's divisor, the norm's scale, the SiLU factors on the value
path) is taken from that pass and converted exactly (a float64 is a dyadic rational), so the exact path certifies
the interaction rank of the layer *as it computes on X*, with the convention of :mod:`.recurrent`: the value path
is linear in ``x_j``, bias terms (the affine part) left out.

Families (``family=``; :func:`recognise` tells one from the names):

- ``"fla-gla"``: fla ``GatedLinearAttention``: ``q_proj``, ``k_proj``, ``v_proj``, ``gk_proj.0/1``, ``g_proj``,
  ``g_norm_swish_gate`` or ``g_norm``, ``o_proj``, optional ``q/k/v_conv1d``;
- ``"fla-retnet"``: fla ``MultiScaleRetention``: ``q_proj``, ``k_proj``, ``v_proj``, ``g_proj``, the norm,
  ``o_proj``; the rotary embedding on q, k; ``gamma_h = 1 - 2^(-5-h)``;
- ``"fla-deltanet"``: fla ``DeltaNet``: ``q_proj``, ``k_proj``, ``v_proj``, ``b_proj``, ``q/k/v_conv1d``,
  ``o_norm``, optional ``g_proj``, ``o_proj``;
- ``"fla-gated-deltanet"``: fla ``GatedDeltaNet``: DeltaNet's and ``a_proj``, ``A_log``, ``dt_bias``;
- ``"fla-kda"``: fla ``KimiDeltaAttention``: ``q_proj``, ``k_proj``, ``v_proj``, ``q/k/v_conv1d``, ``f_proj.0/1``,
  ``b_proj``, ``A_log``, ``dt_bias``, ``g_proj.0/1``, ``o_norm``, ``o_proj``;
- ``"qwen3-next"``: transformers ``Qwen3NextGatedDeltaNet`` (``linear_attn``): ``in_proj_qkvz``, ``in_proj_ba``,
  ``conv1d``, ``A_log``, ``dt_bias``, ``norm``, ``out_proj``;
- ``"fla-rwkv6"``: fla ``RWKV6Attention``: ``x_proj.0.mu``, ``x_proj.0.linear``, ``x_proj.2``, ``x_bias``,
  ``r/w/k/v/g_proj.linear``, ``bonus``, ``g_norm``, ``o_proj``;
- ``"fla-rwkv7"``: fla ``RWKV7Attention``: ``x_r .. x_g``, ``k_k``, ``k_a``, ``r_k``, ``r/k/v/o_proj``,
  ``w/v/a/g_lora``, ``g_norm``;
- ``"mamba2"``: transformers ``Mamba2Mixer`` and mamba_ssm ``Mamba2``: ``in_proj``, ``conv1d``, ``dt_bias``,
  ``A_log``, ``D``, ``norm``, ``out_proj`` (the gated RMSNorm: the gate, then the norm per group);
- ``"xlstm"``: transformers xLSTM ``mLSTMLayer``: ``q``, ``k``, ``v``, ``igate_preact``, ``fgate_preact``,
  ``ogate_preact`` (or the fused ``qkv_opreact``, ``ifgate_preact``), ``multihead_norm``, ``out_proj``.

Sizes a checkpoint does not record come from ``config`` (the keys of the family's ``config.json``), with the
reference code's defaults.  What is read, and any part left out (RWKV-7's value residual without ``v_first``), is
listed in :attr:`RecurrentReading.notes`.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> t = {"q_proj.weight": rng.normal(size=(4, 3)), "k_proj.weight": rng.normal(size=(4, 3)),
...      "v_proj.weight": rng.normal(size=(4, 3)), "gk_proj.0.weight": rng.normal(size=(2, 3)),
...      "gk_proj.1.weight": rng.normal(size=(4, 2)), "gk_proj.1.bias": np.zeros(4),
...      "g_norm.weight": np.ones(2), "o_proj.weight": rng.normal(size=(3, 4))}
>>> reading = recurrent_layer(t, n=3, seed=1)
>>> reading.family, reading.layer.kind, (reading.layer.n, reading.layer.p, reading.layer.m)
('fla-gla', 'gla', (3, 3, 3))
"""

from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..errors import InputError, ShapeError
from . import layer_kinds

__all__ = ["RecurrentReading", "recurrent_layer", "recognise", "FAMILIES", "seeded_input"]

#: The families read, and the layer kind each becomes.
FAMILIES = {"fla-gla": layer_kinds.GLA, "fla-retnet": layer_kinds.RETNET, "fla-deltanet": layer_kinds.DELTANET,
            "fla-gated-deltanet": layer_kinds.GATED_DELTANET, "qwen3-next": layer_kinds.GATED_DELTANET,
            "fla-kda": layer_kinds.KDA,
            "fla-rwkv6": layer_kinds.RWKV6, "fla-rwkv7": layer_kinds.RWKV7, "mamba2": layer_kinds.MAMBA2_SSD,
            "xlstm": layer_kinds.MLSTM}


@dataclass(frozen=True)
class RecurrentReading:
    """A checkpoint layer read as a layer kind on an input.

    Attributes
    ----------
    layer : Layer
        The layer kind with the per-token quantities of this input (exact: float64 values as dyadic rationals).
    family : str
        The family read (:data:`FAMILIES`).
    X : numpy.ndarray
        The input (n x hidden), float64.
    y : numpy.ndarray
        The layer's output on ``X`` by its own forward pass (bias terms included), n x hidden.
    notes : tuple of str
        What was read and what was left out.
    """

    layer: object
    family: str
    X: object = field(repr=False)
    y: object = field(repr=False)
    notes: tuple = ()


# ---------------------------------------------------------------- names

def _normal(tensors):
    if not isinstance(tensors, dict) or not tensors:
        raise InputError("tensors must be a non-empty dict of name -> array")
    out = {}
    for name, value in tensors.items():
        if not isinstance(name, str):
            raise InputError("tensor names must be strings")
        array = np.asarray(value, dtype=np.float64)
        if not np.all(np.isfinite(array)):
            raise InputError(f"tensor {name[:80]!r} has non-finite entries")
        out[name.replace("/", ".")] = array
    return out


def recognise(names):
    """The family of a layer from its tensor names, or None (a layer of none of :data:`FAMILIES`).

    Parameters
    ----------
    names : iterable of str
        The layer's tensor names (relative to the layer).

    Returns
    -------
    str or None

    Examples
    --------
    >>> recognise(["in_proj_qkvz.weight", "in_proj_ba.weight", "A_log", "dt_bias", "conv1d.weight"])
    'qwen3-next'
    >>> recognise(["A_log", "dt_bias", "in_proj.weight", "conv1d.weight", "D", "out_proj.weight"])
    'mamba2'
    >>> recognise(["q_proj.weight", "k_proj.weight", "v_proj.weight", "a_proj.weight", "b_proj.weight", "A_log"])
    'fla-gated-deltanet'
    """
    s = {str(x).replace("/", ".") for x in names}
    has = lambda prefix: any(x == prefix or x.startswith(prefix + ".") for x in s)  # noqa: E731
    if has("in_proj_qkvz") and has("in_proj_ba"):
        return "qwen3-next"
    if has("r_k") and has("k_k") and has("w_lora"):
        return "fla-rwkv7"
    if has("bonus") and has("x_proj") and has("w_proj"):
        return "fla-rwkv6"
    if (has("igate_preact") and has("fgate_preact")) or (has("qkv_opreact") and has("ifgate_preact")):
        return "xlstm"
    if has("f_proj") and has("b_proj") and has("A_log"):
        return "fla-kda"
    if has("a_proj") and has("b_proj") and has("A_log"):
        return "fla-gated-deltanet"
    if has("b_proj") and has("q_proj") and not has("A_log"):
        return "fla-deltanet"
    if has("gk_proj"):
        return "fla-gla"
    if has("A_log") and has("in_proj") and has("conv1d") and has("D"):
        return "mamba2"
    if has("q_proj") and has("k_proj") and has("v_proj") and has("g_proj") and has("o_proj") \
            and (has("g_norm_swish_gate") or has("g_norm")):
        return "fla-retnet"
    return None


def seeded_input(n, hidden, seed):
    """The documented synthetic input: ``n`` tokens in R^hidden, entries standard normal from ``default_rng(seed)``.

    Parameters
    ----------
    n, hidden, seed : int

    Returns
    -------
    numpy.ndarray
        n x hidden, float64.
    """
    return np.random.default_rng(seed).standard_normal((n, hidden))


# ---------------------------------------------------------------- float helpers (the reference code's functions)

def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _silu(x):
    return x * _sigmoid(x)


def _softplus(x):
    return np.logaddexp(0.0, x)


def _l2norm(x, eps=1e-6):
    return x / np.sqrt((x * x).sum(-1, keepdims=True) + eps)


def _lin(t, name, x):
    W = t[name + ".weight"] if name + ".weight" in t else t[name]
    out = x @ W.T
    if name + ".bias" in t:
        out = out + t[name + ".bias"]
    return out


def _conv_taps(weight):
    """A depthwise causal conv's weight (D, 1, L) or (D, L) as taps by lag: ``taps[t][ch]`` multiplies ``u_{l-t}``."""
    w = weight.reshape(weight.shape[0], -1)
    return w[:, ::-1].T.copy()  # taps[t] = w[:, L-1-t]


def _conv(taps, u, bias=None):
    n = u.shape[0]
    out = np.zeros_like(u)
    for t in range(taps.shape[0]):
        out[t:] += taps[t] * u[:n - t]
    return out if bias is None else out + bias


def _heads(x, H):
    return x.reshape(x.shape[0], H, -1)


def _exact(value):
    """float64 values (nested) as exact Fractions (a float64 is a dyadic rational)."""
    if isinstance(value, np.ndarray):
        return [_exact(v) for v in value] if value.ndim else Fraction(float(value))
    if isinstance(value, (list, tuple)):
        return [_exact(v) for v in value]
    return Fraction(float(value))


# ---------------------------------------------------------------- the forward pass in float64 (per family)

class _Pass:
    """What one family's forward pass gives: per-head fields, the value path, the output chain, in float64."""

    def __init__(self, kind):
        self.kind = kind
        self.heads = []          # per head: {field: array}
        self.V = None            # Dv x m
        self.shift = None        # n x m
        self.conv = None         # taps x Dv
        self.value_gate = None   # n x Dv
        self.values = None       # n x Dv: the values as the layer computes them (biases included)
        self.gate = None         # n x Dv
        self.norm = None         # {"kind": "rms"|"layer", "groups", "eps", "weight", "after_gate"}
        self.out = None          # p x Dv
        self.bonus = None        # n x Dv: added after the norm (RWKV-7)
        self.notes = []


def _head_outputs(p, n):
    """``o`` (n x Dv) from the heads' fields and the computed values: the recurrence, run token by token."""
    Dv = p.values.shape[1]
    H = len(p.heads)
    dv = Dv // H
    out = np.zeros((n, Dv))
    for h, f in enumerate(p.heads):
        v = p.values[:, h * dv:(h + 1) * dv]
        key = "B" if "B" in f else ("r" if "r" in f else "q")
        S = np.zeros((f[key].shape[1], dv))
        for t in range(n):
            if p.kind is layer_kinds.MAMBA2_SSD:
                S = f["a"][t] * S + f["dt"][t] * np.outer(f["B"][t], v[t])
                o = S.T @ f["C"][t] + f["D"] * v[t]
            elif p.kind is layer_kinds.RETNET:
                S = f["gamma"] * S + np.outer(f["k"][t], v[t])
                o = S.T @ f["q"][t]
            elif p.kind is layer_kinds.GLA:
                S = f["alpha"][t][:, None] * S + np.outer(f["k"][t], v[t])
                o = S.T @ f["q"][t]
            elif p.kind in (layer_kinds.DELTANET, layer_kinds.GATED_DELTANET):
                S = f.get("alpha", np.ones(n))[t] * S
                S = S + np.outer(f["k"][t], f["beta"][t] * (v[t] - S.T @ f["k"][t]))
                o = S.T @ f["q"][t]
            elif p.kind is layer_kinds.KDA:
                S = f["alpha"][t][:, None] * S
                S = S + np.outer(f["k"][t], f["beta"][t] * (v[t] - S.T @ f["k"][t]))
                o = S.T @ f["q"][t]
            elif p.kind is layer_kinds.RWKV6:
                kv = np.outer(f["k"][t], v[t])
                o = (S + f["u"][:, None] * kv).T @ f["r"][t]
                S = f["w"][t][:, None] * S + kv
            elif p.kind is layer_kinds.RWKV7:  # key side: S^T_t = (diag(w_t) + b_t a_t^T) S^T_{t-1} + k_t v_t^T
                S = f["w"][t][:, None] * S + np.outer(f["b"][t], f["a"][t] @ S) + np.outer(f["k"][t], v[t])
                o = S.T @ f["r"][t]
            else:  # mLSTM
                S = f["f"][t] * S + f["i"][t] * np.outer(f["k"][t], v[t])
                o = S.T @ f["q"][t] / f["den"][t]
            out[t, h * dv:(h + 1) * dv] = o
    return out


def _norm_scales(p, o, n):
    """Per token and group, the norm's scale at X (1/rms, or 1/std with the mean removed), from its input."""
    norm = p.norm
    G = norm["groups"]
    x = o * p.gate if (norm["after_gate"] and p.gate is not None) else o
    parts = x.reshape(n, G, -1)
    if norm["kind"] == "layer":
        parts = parts - parts.mean(-1, keepdims=True)
    return 1.0 / np.sqrt((parts * parts).mean(-1) + norm["eps"])


def _finish(p, X, n, name):
    """The layer spec from a family's pass, and the layer's output on X by the pass."""
    o = _head_outputs(p, n)
    spec = {"kind": p.kind.name, "name": name, "V": _exact(p.V)}
    z = o
    if p.norm is not None:
        scale = _norm_scales(p, o, n)
        G = p.norm["groups"]
        weight = p.norm["weight"] if p.norm["weight"] is not None else np.ones(o.shape[1])
        spec["norm"] = {"scale": _exact(scale), "weight": [_exact(weight)], "center": p.norm["kind"] == "layer",
                        "after_gate": p.norm["after_gate"]}

        def normed(x):
            parts = x.reshape(n, G, -1)
            if p.norm["kind"] == "layer":
                parts = parts - parts.mean(-1, keepdims=True)
            return (parts * scale[:, :, None]).reshape(n, -1) * weight
        if p.norm["after_gate"]:
            z = normed(o * (p.gate if p.gate is not None else 1.0))
        else:
            z = normed(o)
    if p.bonus is not None:
        z = z + p.bonus
    if p.gate is not None and not (p.norm is not None and p.norm["after_gate"]):
        z = z * p.gate
    if p.gate is not None:
        spec["gate"] = _exact(p.gate)
    y = z @ p.out.T if p.out is not None else z
    if p.out is not None:
        spec["out"] = _exact(p.out)
    for key in ("shift", "conv", "value_gate"):
        value = getattr(p, key)
        if value is not None:
            spec[key] = _exact(value)
    spec["heads"] = [{key: _exact(value) for key, value in f.items()} for f in p.heads]
    return spec, y


def _qk_conv(t, name, u):
    """q or k after an optional short convolution with SiLU (fla ``ShortConvolution``), else after SiLU."""
    if name + ".weight" in t:
        return _silu(_conv(_conv_taps(t[name + ".weight"]), u, t.get(name + ".bias")))
    return None


def _value_conv(p, taps, bias, u):
    """The value path's short convolution with SiLU: its taps, the SiLU factors and the values at X."""
    pre = _conv(taps, u, bias)
    p.conv = taps
    p.value_gate = _sigmoid(pre)
    p.values = _silu(pre)


def _refuse(family, config, defaults):
    """Settings the reader does not follow, refused in one sentence rather than read wrongly."""
    for key, value in defaults.items():
        if config.get(key, value) != value:
            raise InputError(f"{family}: the setting {key} = {config[key]!r} is not read (only {value!r})")


def _gla(t, X, config):
    _refuse("fla-gla", config, {"feature_map": None, "clamp_min": None, "gate_fn": "swish"})
    p = _Pass(layer_kinds.GLA)
    n = X.shape[0]
    norm_w = t.get("g_norm_swish_gate.weight", t.get("g_norm.weight"))
    Vw = t["v_proj.weight"]
    K, Kkv = t["q_proj.weight"].shape[0], t["k_proj.weight"].shape[0]
    H = int(config.get("num_heads") or (Vw.shape[0] * (K // Kkv) // norm_w.shape[0] if norm_w is not None else 4))
    groups = K // Kkv
    dk = K // H
    q, k, u = _lin(t, "q_proj", X), _lin(t, "k_proj", X), _lin(t, "v_proj", X)
    if "q_conv1d.weight" in t:
        q, k = _qk_conv(t, "q_conv1d", q), _qk_conv(t, "k_conv1d", k)
    gk = _lin(t, "gk_proj.1", _lin(t, "gk_proj.0", X))
    alpha = np.exp(-_softplus(-gk) / float(config.get("gate_logit_normalizer", 16)))
    kv_heads = Kkv // dk

    def repeat(a):  # key/value heads shared by `groups` query heads (fla's num_kv_heads)
        return np.repeat(a.reshape(a.shape[0], kv_heads, -1), groups, axis=1).reshape(a.shape[0], -1)

    p.V = repeat(Vw.T).T
    if "v_conv1d.weight" in t:
        bias = t.get("v_conv1d.bias")
        _value_conv(p, repeat(_conv_taps(t["v_conv1d.weight"])), None if bias is None else repeat(bias[None])[0],
                    repeat(u))
    else:
        p.values = repeat(u)
    q = _heads(q, H) * dk ** -0.5
    k = np.repeat(_heads(k, Kkv // dk), groups, axis=1)
    alpha = np.repeat(_heads(alpha, Kkv // dk), groups, axis=1)
    p.heads = [{"q": q[:, h], "k": k[:, h], "alpha": alpha[:, h]} for h in range(H)]
    eps = float(config.get("norm_eps", 1e-5))
    p.norm = {"kind": "rms", "groups": H, "eps": eps, "after_gate": False,
              "weight": None if norm_w is None else np.tile(norm_w, H)}
    if "g_proj.weight" in t:
        p.gate = _silu(_lin(t, "g_proj", X))
    p.out = t["o_proj.weight"]
    p.notes.append(f"GLA: {H} heads, d_k = {dk}, d_v = {p.V.shape[0] // H}; q scaled by d_k^-1/2; "
                   "alpha = exp(logsigmoid(gk) / normalizer)")
    return p


def _rotary(x, base=10000.0):
    """fla's RotaryEmbedding (not interleaved) at positions 0 .. n-1 on (n, H, d)."""
    n, _, d = x.shape
    inv = 1.0 / base ** (np.arange(0, d, 2) / d)
    ang = np.arange(n)[:, None] * inv[None, :]
    cos, sin = np.cos(ang)[:, None, :], np.sin(ang)[:, None, :]
    x1, x2 = x[..., :d // 2], x[..., d // 2:]
    return np.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1)


def _retnet(t, X, config):
    _refuse("fla-retnet", config, {"feature_map": None, "gate_fn": "swish"})
    p = _Pass(layer_kinds.RETNET)
    norm_w = t.get("g_norm_swish_gate.weight", t.get("g_norm.weight"))
    Vw = t["v_proj.weight"]
    ratio = t["q_proj.weight"].shape[0] // t["k_proj.weight"].shape[0]
    H = int(config.get("num_heads") or (Vw.shape[0] * ratio // norm_w.shape[0] if norm_w is not None else 8))
    K, Kkv = t["q_proj.weight"].shape[0], t["k_proj.weight"].shape[0]
    dk = K // H
    groups = K // Kkv  # fla's num_kv_heads: each key and value head serves `groups` query heads

    def repeat(a):
        return np.repeat(a.reshape(a.shape[0], Kkv // dk, -1), groups, axis=1).reshape(a.shape[0], -1)

    q = _rotary(_heads(_lin(t, "q_proj", X), H)) * dk ** -0.5
    k = np.repeat(_rotary(_heads(_lin(t, "k_proj", X), Kkv // dk)), groups, axis=1)
    p.V, p.values = repeat(Vw.T).T, repeat(_lin(t, "v_proj", X))
    p.heads = [{"q": q[:, h], "k": k[:, h], "gamma": np.float64(1.0 - 2.0 ** (-5.0 - h))} for h in range(H)]
    p.norm = {"kind": "rms", "groups": H, "eps": float(config.get("norm_eps", 1e-5)), "after_gate": False,
              "weight": None if norm_w is None else np.tile(norm_w, H)}
    if "g_proj.weight" in t:
        p.gate = _silu(_lin(t, "g_proj", X))
    p.out = t["o_proj.weight"]
    p.notes.append(f"RetNet: {H} heads, gamma_h = 1 - 2^(-5-h), rotary embedding on q and k, q scaled by d_k^-1/2")
    return p


def _delta(t, X, config, gated):
    kind = layer_kinds.GATED_DELTANET if gated else layer_kinds.DELTANET
    _refuse("fla-deltanet", config, {"qk_activation": "silu", "qk_norm": "l2"})
    p = _Pass(kind)
    n = X.shape[0]
    norm_w = t.get("o_norm.weight")
    Vw = t["v_proj.weight"]
    Hv = t["A_log"].shape[0] if gated else t["b_proj.weight"].shape[0]
    K = t["q_proj.weight"].shape[0]
    Hk = int(config.get("num_heads") or (K // int(config["head_dim"]) if config.get("head_dim") else Hv))
    if K % Hk or Hv % Hk:
        raise ShapeError(f"{'fla-gated-deltanet' if gated else 'fla-deltanet'}: {Hk} query heads do not share the "
                         f"key width {K} and the {Hv} value heads (give config num_heads or head_dim)")
    dk = K // Hk
    q, k, u = _lin(t, "q_proj", X), _lin(t, "k_proj", X), _lin(t, "v_proj", X)
    if "q_conv1d.weight" in t:
        q, k = _qk_conv(t, "q_conv1d", q), _qk_conv(t, "k_conv1d", k)
        _value_conv(p, _conv_taps(t["v_conv1d.weight"]), t.get("v_conv1d.bias"), u)
    else:
        q, k = _silu(q), _silu(k)
        p.value_gate, p.values = _sigmoid(u), _silu(u)
    p.V = Vw
    q = np.repeat(_l2norm(_heads(q, Hk)), Hv // Hk, axis=1) * dk ** -0.5
    k = np.repeat(_l2norm(_heads(k, Hk)), Hv // Hk, axis=1)
    beta = _sigmoid(_lin(t, "b_proj", X)) if "b_proj.weight" in t else np.ones((n, Hv))
    if config.get("allow_neg_eigval"):
        beta = 2.0 * beta
    p.heads = [{"q": q[:, h], "k": k[:, h], "beta": beta[:, h]} for h in range(Hv)]
    if gated:
        g = -np.exp(t["A_log"]) * _softplus(_lin(t, "a_proj", X) + t["dt_bias"])
        for h, f in enumerate(p.heads):
            f["alpha"] = np.exp(g[:, h])
    p.norm = {"kind": "rms", "groups": Hv, "eps": float(config.get("norm_eps", 1e-5)), "after_gate": False,
              "weight": None if norm_w is None else np.tile(norm_w, Hv)}
    if "g_proj.weight" in t:
        p.gate = _silu(_lin(t, "g_proj", X))
    p.out = t["o_proj.weight"]
    p.notes.append(f"{'Gated ' if gated else ''}DeltaNet: {Hv} heads, d_k = {dk}; q, k L2-normalised, q scaled by "
                   "d_k^-1/2; beta = sigmoid(b_proj x)" + ("; alpha = exp(-exp(A_log) softplus(a_proj x + dt_bias))"
                                                         if gated else ""))
    return p


def _kda(t, X, config):
    _refuse("fla-kda", config, {"lower_bound": None})
    p = _Pass(layer_kinds.KDA)
    Hv = t["A_log"].shape[0]
    K = t["q_proj.weight"].shape[0]
    Hk = int(config.get("num_heads") or (K // int(config["head_dim"]) if config.get("head_dim") else Hv))
    if K % Hk or Hv % Hk:
        raise ShapeError(f"fla-kda: {Hk} query heads do not share the key width {K} and the {Hv} value heads "
                         "(give config num_heads or head_dim)")
    dk = K // Hk
    q, k, u = _lin(t, "q_proj", X), _lin(t, "k_proj", X), _lin(t, "v_proj", X)
    if "q_conv1d.weight" in t:
        q, k = _qk_conv(t, "q_conv1d", q), _qk_conv(t, "k_conv1d", k)
        _value_conv(p, _conv_taps(t["v_conv1d.weight"]), t.get("v_conv1d.bias"), u)
    else:
        q, k = _silu(q), _silu(k)
        p.value_gate, p.values = _sigmoid(u), _silu(u)
    p.V = t["v_proj.weight"]
    q = np.repeat(_l2norm(_heads(q, Hk)), Hv // Hk, axis=1) * dk ** -0.5
    k = np.repeat(_l2norm(_heads(k, Hk)), Hv // Hk, axis=1)
    beta = _sigmoid(_lin(t, "b_proj", X)) * (2.0 if config.get("allow_neg_eigval") else 1.0)
    f = _lin(t, "f_proj.1", _lin(t, "f_proj.0", X)).reshape(X.shape[0], Hv, dk)
    g = -np.exp(t["A_log"])[None, :, None] * _softplus(f + t["dt_bias"].reshape(Hv, dk))
    p.heads = [{"q": q[:, h], "k": k[:, h], "beta": beta[:, h], "alpha": np.exp(g[:, h])} for h in range(Hv)]
    norm_w = t.get("o_norm.weight")
    p.norm = {"kind": "rms", "groups": Hv, "eps": float(config.get("norm_eps", 1e-5)), "after_gate": False,
              "weight": None if norm_w is None else np.tile(norm_w, Hv)}
    p.gate = _sigmoid(_lin(t, "g_proj.1", _lin(t, "g_proj.0", X)))
    p.out = t["o_proj.weight"]
    p.notes.append(f"KDA: {Hv} heads, d_k = {dk}; q, k L2-normalised, q scaled by d_k^-1/2; beta = sigmoid(b_proj x); "
                   "alpha = exp(-exp(A_log) softplus(f_proj x + dt_bias)) per key channel; the sigmoid output gate")
    return p


def _qwen3_next(t, X, config):
    p = _Pass(layer_kinds.GATED_DELTANET)
    n = X.shape[0]
    Hv = t["A_log"].shape[0]
    dv = int(config.get("linear_value_head_dim") or t["norm.weight"].shape[0])
    value_dim = Hv * dv
    key_dim = (t["in_proj_qkvz.weight"].shape[0] - 2 * value_dim) // 2
    dk = int(config.get("linear_key_head_dim") or dv)
    Hk = int(config.get("linear_num_key_heads") or key_dim // dk)
    if Hk * dk != key_dim or Hv % Hk:
        raise ShapeError(f"qwen3-next: {Hk} key heads of {dk} do not give the key width {key_dim} (give config)")
    r = Hv // Hk
    W = t["in_proj_qkvz.weight"].reshape(Hk, 2 * dk + 2 * r * dv, -1)
    Wq, Wk = W[:, :dk].reshape(-1, W.shape[2]), W[:, dk:2 * dk].reshape(-1, W.shape[2])
    Wv, Wz = W[:, 2 * dk:2 * dk + r * dv].reshape(-1, W.shape[2]), W[:, 2 * dk + r * dv:].reshape(-1, W.shape[2])
    Wba = t["in_proj_ba.weight"].reshape(Hk, 2 * r, -1)
    Wb, Wa = Wba[:, :r].reshape(-1, Wba.shape[2]), Wba[:, r:].reshape(-1, Wba.shape[2])
    taps = _conv_taps(t["conv1d.weight"])
    bias = t.get("conv1d.bias")
    pre = _conv(taps, np.concatenate([X @ Wq.T, X @ Wk.T, X @ Wv.T], 1), bias)
    q, k = _silu(pre[:, :key_dim]), _silu(pre[:, key_dim:2 * key_dim])
    p.V, p.conv = Wv, taps[:, 2 * key_dim:]
    p.value_gate, p.values = _sigmoid(pre[:, 2 * key_dim:]), _silu(pre[:, 2 * key_dim:])
    q = np.repeat(_l2norm(_heads(q, Hk)), r, axis=1) * dk ** -0.5
    k = np.repeat(_l2norm(_heads(k, Hk)), r, axis=1)
    beta = _sigmoid(X @ Wb.T)
    g = -np.exp(t["A_log"]) * _softplus(X @ Wa.T + t["dt_bias"])
    p.heads = [{"q": q[:, h], "k": k[:, h], "beta": beta[:, h], "alpha": np.exp(g[:, h])} for h in range(Hv)]
    p.norm = {"kind": "rms", "groups": Hv, "eps": float(config.get("rms_norm_eps", 1e-6)), "after_gate": False,
              "weight": np.tile(t["norm.weight"], Hv)}
    p.gate = _silu(X @ Wz.T)
    p.out = t["out_proj.weight"]
    p.notes.append(f"Qwen3-Next Gated DeltaNet: {Hk} key heads and {Hv} value heads (d_k = {dk}, d_v = {dv}); "
                   "in_proj_qkvz and in_proj_ba split per key head as the reference code does")
    del n
    return p


def _lora(t, name, x, act):
    h = _lin(t, f"{name}.lora.0", x)
    h = {"tanh": np.tanh, "sigmoid": _sigmoid, None: lambda v: v}[act](h)
    return _lin(t, f"{name}.lora.2", h)


def _shifted(X):
    prev = np.zeros_like(X)
    prev[1:] = X[:-1]
    return prev - X  # delta = x_{t-1} - x_t


def _group_norm(p, t, name, H, eps):
    p.norm = {"kind": "layer", "groups": H, "eps": eps, "after_gate": False, "weight": t.get(f"{name}.weight")}
    if f"{name}.bias" in t:
        p.notes.append("the norm's bias (an affine term) is left out of W")


def _rwkv6(t, X, config):
    p = _Pass(layer_kinds.RWKV6)
    n, hidden = X.shape
    H, dk = t["bonus"].shape
    delta = _shifted(X)
    lo = np.tanh(_lin(t, "x_proj.0.linear", X + delta * t["x_proj.0.mu"]))
    R = t["x_proj.2.weight"].shape[1] // 5
    mus = np.einsum("tnr,hnr->tnh", lo.reshape(n, 5, R), t["x_proj.2.weight"].reshape(hidden, 5, R)) + t["x_bias"]
    mu = {key: mus[:, i] for i, key in enumerate("rwkvg")}
    lerp = lambda key: X + delta * mu[key]  # noqa: E731
    r = _heads(_lin(t, "r_proj.linear", lerp("r")), H)
    wlog = _lora(t, "w_proj.linear", lerp("w"), "tanh") if "w_proj.linear.lora.0.weight" in t \
        else _lin(t, "w_proj.linear", lerp("w"))
    w = _heads(np.exp(-np.exp(wlog)), H)
    k = _heads(_lin(t, "k_proj.linear", lerp("k")), H)
    p.V = t["v_proj.linear.weight"]
    p.shift = mu["v"]
    p.values = _lin(t, "v_proj.linear", lerp("v"))
    p.heads = [{"r": r[:, h], "k": k[:, h], "w": w[:, h], "u": t["bonus"][h]} for h in range(H)]
    _group_norm(p, t, "g_norm", H, float(config.get("norm_eps", 1e-5)))
    p.gate = _silu(_lin(t, "g_proj.linear", lerp("g")))
    p.out = t["o_proj.weight"]
    p.notes.append(f"RWKV-6: {H} heads, d_k = {dk}; the value's token shift delta_t = mu_v(X) (data-dependent lerp); "
                   "w = exp(-exp(w_proj)); GroupNorm per head, then the SiLU gate")
    return p


def _rwkv7(t, X, config, v_first):
    p = _Pass(layer_kinds.RWKV7)
    H, dk = t["r_k"].shape
    delta = _shifted(X)
    lerp = lambda key: X + delta * t[f"x_{key}"].reshape(-1)  # noqa: E731
    r = _heads(_lin(t, "r_proj", lerp("r")), H)
    w = _heads(np.exp(-0.6065306597126334 * _sigmoid(_lora(t, "w_lora", lerp("w"), "tanh"))), H)
    k = _lin(t, "k_proj", lerp("k"))
    v = _lin(t, "v_proj", lerp("v"))
    a = _sigmoid(_lora(t, "a_lora", lerp("a"), None))
    kk = _l2norm(_heads(k * t["k_k"], H))
    k = _heads(k * (1 + (a - 1) * t["k_a"]), H)
    a = _heads(a, H)
    p.V, p.shift = t["v_proj.weight"], np.tile(t["x_v"].reshape(1, -1), (X.shape[0], 1))
    if "v_lora.lora.0.weight" in t and v_first is not None:
        s = _sigmoid(_lora(t, "v_lora", lerp("v"), None))
        p.value_gate = 1.0 - s
        p.values = v + s * (np.asarray(v_first, dtype=np.float64) - v)
        p.notes.append("the value residual lerp(v, v_first, s): the factor 1 - s on this layer's values; s v_first is "
                       "a term that does not depend on this layer's input (left out of W)")
    else:
        p.values = v
        if "v_lora.lora.0.weight" in t:
            p.notes.append("the value residual (v_lora) is left out: v_first, the first layer's values, was not given")
    p.heads = [{"r": r[:, h], "k": k[:, h], "w": w[:, h], "a": -kk[:, h], "b": kk[:, h] * a[:, h], "rk": t["r_k"][h]}
               for h in range(H)]
    _group_norm(p, t, "g_norm", H, dk * float(config.get("norm_eps", 1e-5)))
    bonus = np.einsum("thd,thd->th", r, k * t["r_k"][None])
    dv = p.V.shape[0] // H
    p.bonus = np.repeat(bonus, dv, axis=1) * p.values
    p.gate = _lora(t, "g_lora", lerp("g"), "sigmoid")
    p.out = t["o_proj.weight"]
    p.notes.append(f"RWKV-7: {H} heads, d_k = {dk}; w = exp(-e^-1/2 sigmoid(w_lora)); a = -kk, "
                   "b = kk * sigmoid(a_lora); the bonus (r . (r_k k)) v after the GroupNorm, then the gate")
    return p


def _step_limits(value):
    """Mamba-2's step limits ``(lo, hi)`` from ``time_step_limit`` / ``dt_limit`` (default ``(0, inf)``)."""
    if value is None:
        return 0.0, float("inf")
    try:
        lo, hi = float(value[0]), float(value[1])
    except (TypeError, ValueError, IndexError, KeyError):
        raise InputError(f"mamba2: the step limits {str(value)[:40]} are not two numbers") from None
    return lo, hi


def _mamba2(t, X, config):
    p = _Pass(layer_kinds.MAMBA2_SSD)
    n = X.shape[0]
    H = t["A_log"].shape[0]
    rows = t["in_proj.weight"].shape[0]
    conv_dim = t["conv1d.weight"].shape[0]
    # the inner width: the norm's, else the config's, else in_proj's rows less conv1d's channels and the steps
    I = t["norm.weight"].shape[0] if "norm.weight" in t else int(config.get("intermediate_size") or
                                                                  rows - conv_dim - H)
    from .architectures import config_value

    G = int(config_value(config, "n_groups", "mamba_n_groups", "mamba_ngroups", "ngroups", default=1))
    if H % G:
        raise ShapeError(f"mamba2: {H} heads do not split into {G} groups")
    N = (conv_dim - I) // (2 * G)
    d_mlp = (rows - 2 * I - 2 * G * N - H) // 2
    if N <= 0 or d_mlp < 0 or I % H:
        raise ShapeError(f"mamba2: in_proj has {rows} rows and conv1d {conv_dim} channels, which do not fit "
                         f"{H} heads of {I} channels in {G} groups (give config n_groups)")
    P = I // H
    # Falcon-H1: the input scaled by ssm_in_multiplier, the parts z, x, B, C, dt of in_proj's output by
    # ssm_multipliers
    scale = float(config_value(config, "ssm_in_multiplier", default=1.0))
    mult = config_value(config, "ssm_multipliers")
    mult = [float(v) for v in mult] if isinstance(mult, (list, tuple)) and len(mult) == 5 else [1.0] * 5
    proj = _lin(t, "in_proj", X * scale)[:, 2 * d_mlp:]
    proj = proj * np.concatenate([np.full(I, mult[0]), np.full(I, mult[1]), np.full(G * N, mult[2]),
                                  np.full(G * N, mult[3]), np.full(proj.shape[1] - 2 * I - 2 * G * N, mult[4])])
    z, xBC, dt = proj[:, :I], proj[:, I:I + conv_dim], proj[:, I + conv_dim:]
    Wx = t["in_proj.weight"][2 * d_mlp + I:2 * d_mlp + 2 * I] * (mult[1] * scale)
    taps = _conv_taps(t["conv1d.weight"])
    pre = _conv(taps, xBC, t.get("conv1d.bias"))
    post = _silu(pre)
    B, C = post[:, I:I + G * N].reshape(n, G, N), post[:, I + G * N:].reshape(n, G, N)
    lo, hi = _step_limits(config_value(config, "time_step_limit", "dt_limit", "mamba_dt_limit"))
    step = np.clip(_softplus(dt + t["dt_bias"]), lo, hi)
    A = -np.exp(t["A_log"])
    p.V, p.conv = Wx, taps[:, :I]
    p.value_gate, p.values = _sigmoid(pre[:, :I]), post[:, :I]
    D = t.get("D", np.zeros(H)).reshape(-1)
    if D.shape[0] != H:
        raise ShapeError(f"mamba2: D has {D.shape[0]} entries; one per head ({H}) is read (a D per channel is not)")
    p.heads = [{"a": np.exp(step[:, h] * A[h]), "dt": step[:, h], "B": B[:, h // (H // G)], "C": C[:, h // (H // G)],
                "D": np.float64(D[h])} for h in range(H)]
    p.gate = _silu(z)
    if "norm.weight" in t:  # the gated RMSNorm: the gate, then the norm per group; without it y * silu(z)
        p.norm = {"kind": "rms", "groups": G,
                  "eps": float(config_value(config, "layer_norm_epsilon", "rms_norm_eps", default=1e-5)),
                  "after_gate": True, "weight": t["norm.weight"]}
    p.out = t["out_proj.weight"]
    p.notes.append(f"Mamba-2: {H} heads of {P} channels, d_state = {N}, {G} group(s); B, C and the step from "
                   f"in_proj and conv1d (the step clamped to [{lo:g}, {hi:g}]); the gated RMSNorm: z's SiLU gate, "
                   "then the norm per group" + ("; Falcon-H1's multipliers" if scale != 1.0 or mult != [1.0] * 5
                                                else ""))
    return p


def _xlstm(t, X, config):
    p = _Pass(layer_kinds.MLSTM)
    n = X.shape[0]
    # the heads: config's num_heads, else one input and one forget gate per head (igate_preact's rows)
    gates = t.get("igate_preact.weight")
    H = int(config.get("num_heads") or (gates.shape[0] if gates is not None else
                                        t["ifgate_preact.weight"].shape[0] // 2))
    cap = config.get("gate_soft_cap", 15.0)
    soft = (lambda v: cap * np.tanh(v / cap)) if cap else (lambda v: v)
    if "qkv_opreact.weight" in t:  # weight_mode "fused": q, k, v, o in one projection; i, f in another
        W, Wif = t["qkv_opreact.weight"], t["ifgate_preact.weight"]
        v_dim = t["out_proj.weight"].shape[1]
        qk = (W.shape[0] - 2 * v_dim) // 2
        b = t.get("qkv_opreact.bias", np.zeros(W.shape[0]))
        bif = t.get("ifgate_preact.bias", np.zeros(Wif.shape[0]))
        t = dict(t, **{"q.weight": W[:qk], "k.weight": W[qk:2 * qk], "v.weight": W[2 * qk:2 * qk + v_dim],
                       "ogate_preact.weight": W[2 * qk + v_dim:], "igate_preact.weight": Wif[:H],
                       "fgate_preact.weight": Wif[H:], "q.bias": b[:qk], "k.bias": b[qk:2 * qk],
                       "v.bias": b[2 * qk:2 * qk + v_dim], "ogate_preact.bias": b[2 * qk + v_dim:],
                       "igate_preact.bias": bif[:H], "fgate_preact.bias": bif[H:]})
    q, k = _heads(_lin(t, "q", X), H), _heads(_lin(t, "k", X), H)
    dk = q.shape[2]
    q = q * dk ** -0.5
    i_gate = np.exp(soft(_lin(t, "igate_preact", X)))
    f_gate = _sigmoid(soft(_lin(t, "fgate_preact", X)))
    p.V, p.values = t["v.weight"], _lin(t, "v", X)
    for h in range(H):
        nvec, den = np.zeros(dk), np.zeros(n)
        for s in range(n):
            nvec = f_gate[s, h] * nvec + i_gate[s, h] * k[s, h]
            den[s] = max(abs(nvec @ q[s, h]), 1.0)
        p.heads.append({"q": q[:, h], "k": k[:, h], "i": i_gate[:, h], "f": f_gate[:, h], "den": den})
    p.norm = {"kind": "layer", "groups": H, "eps": float(config.get("norm_eps", 1e-6)), "after_gate": False,
              "weight": t.get("multihead_norm.weight")}
    p.gate = _sigmoid(_lin(t, "ogate_preact", X))
    p.out = t["out_proj.weight"]
    p.notes.append(f"mLSTM: {H} heads, d_qk = {dk}; i = exp(softcap(i~)), f = sigmoid(softcap(f~)); the divisor "
                   "max(|n_i . q_i|, 1) (the stabiliser m cancels); per-head LayerNorm, then the output gate")
    return p


def recurrent_layer(tensors, family=None, *, config=None, n=8, seed=0, X=None, name="", v_first=None):
    """One checkpoint layer as its layer kind, with the per-token quantities it computes on an input.

    Parameters
    ----------
    tensors : dict
        The layer's tensors, name -> array (names relative to the layer; ``.`` or ``/`` separated).
    family : str, optional
        One of :data:`FAMILIES`; default: :func:`recognise` from the names.
    config : dict, optional
        Sizes and constants the tensors do not record (the family's ``config.json`` keys: ``num_heads``,
        ``n_groups``, ``linear_key_head_dim``, ``norm_eps``, ``gate_logit_normalizer``, ``allow_neg_eigval``, ...).
    n : int
        Tokens of the seeded input (when ``X`` is not given).
    seed : int
        The seed of the input (:func:`seeded_input`).
    X : array-like, optional
        The input itself (n x hidden), e.g. token embeddings.
    name : str
        The layer's name.
    v_first : array-like, optional
        RWKV-7 layers after the first: the first layer's values on this input (n x value_dim).

    Returns
    -------
    RecurrentReading
        The layer (:class:`~symssm.sources.layers.Layer`), the family, the input, the output of the layer's own
        forward pass on it, and notes.

    Raises
    ------
    InputError
        An unknown family, a missing tensor, or shapes that do not fit the family (one sentence naming it).
    """
    from .layers import layer_from_data

    t = _normal(tensors)
    family = family or recognise(t)
    if family not in FAMILIES:
        raise InputError(f"not a layer of a known linear-recurrence family ({', '.join(FAMILIES)}); "
                         f"its tensors are {', '.join(sorted(t)[:8])}")
    config = dict(config or {})
    hidden = _hidden(t, family)
    if X is None:
        X = seeded_input(n, hidden, seed)
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != hidden:
        raise ShapeError(f"X must be n x {hidden} (the layer's input width), got {X.shape}")
    try:
        p = {"fla-gla": _gla, "fla-retnet": _retnet, "fla-deltanet": lambda *a: _delta(*a, gated=False),
             "fla-gated-deltanet": lambda *a: _delta(*a, gated=True), "qwen3-next": _qwen3_next, "fla-kda": _kda,
             "fla-rwkv6": _rwkv6,
             "fla-rwkv7": lambda *a: _rwkv7(*a, v_first), "mamba2": _mamba2, "xlstm": _xlstm}[family](t, X, config)
    except KeyError as exc:
        raise InputError(f"{family}: the tensor or setting {exc.args[0]!r} is missing") from None
    except ValueError as exc:
        raise ShapeError(f"{family}: the tensors' shapes do not fit the family ({str(exc)[:120]})") from None
    spec, y = _finish(p, X, X.shape[0], name)
    return RecurrentReading(layer_from_data(spec), family, X, y, tuple(p.notes))


def _hidden(t, family):
    """The layer's input width from its first projection."""
    first = {"fla-gla": "q_proj.weight", "fla-retnet": "q_proj.weight", "fla-deltanet": "q_proj.weight",
             "fla-gated-deltanet": "q_proj.weight", "qwen3-next": "in_proj_qkvz.weight", "fla-kda": "q_proj.weight",
             "fla-rwkv6": "r_proj.linear.weight", "fla-rwkv7": "r_proj.weight", "mamba2": "in_proj.weight",
             "xlstm": "q.weight" if "q.weight" in t else "qkv_opreact.weight"}[family]
    if first not in t:
        raise InputError(f"{family}: the tensor {first!r} is missing")
    return t[first].shape[1]
