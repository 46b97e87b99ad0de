"""The layer map of a whole model: every layer of a checkpoint in order, each named as the kind it is, with its sizes.

Only tensor names and shapes are used here (no tensor is read), with ``config.json`` where it records what the
shapes do not fix (Mamba-2's ``n_groups``, attention heads, the experts chosen per token, the step limits).

A key is split into its **block** (the prefix up to ``layers.N``, ``h.N``, ``blocks.N`` or ``layers_N``) and the
path inside it.  Inside a block, a **module** is rooted where its distinctive parameters are: ``A_log``
(a selective SSM or a linear-recurrence layer), ``q_proj``/``qkv_proj``/``query_key_value`` (attention),
``gate_proj``/``up_proj``/``fc1``/``w1`` (an MLP), ``experts`` (a mixture of experts), ``kernel.log_dt`` and the
other time-invariant names of :mod:`~symssm.sources.checkpoints`.  Every key belongs to the deepest module that
contains it; what no module claims is a norm of the block, or an unrecognised module listed under its own name.

Kinds (the rules, in the order they are tried, are in :func:`classify_module` and docs/models.md):
``mamba`` (Mamba-1: a 2-D ``A_log``, ``x_proj``, ``dt_proj``; per-group lists ``A_log.0``, ``x_proj.0`` as in
Hymba), ``mamba2`` (a 1-D ``A_log``, ``dt_bias``, ``in_proj``, ``conv1d``), ``mamba3`` (``B_bias``, ``C_bias``,
``B_norm``, no ``A_log``), ``gated-deltanet`` (``a_proj`` and ``b_proj`` beside ``A_log``, or Qwen3-Next's
``in_proj_qkvz`` and ``in_proj_ba``), ``kda`` (``f_proj.0``, ``f_proj.1``), ``gla`` (``gk_proj``), ``rwkv6``
(``bonus``), ``rwkv7`` (``k_k``, ``r_k``), ``mlstm`` (``igate``, ``fgate``), ``retnet`` (``q/k/v/g/o_proj`` and
``g_norm_swish_gate``, no decay parameter), ``attention``, ``mlp``, ``moe``, the time-invariant ``s4d``,
``s4-diag``, ``s5``, ``lru``, and ``unrecognised``.  A block holding a selective SSM and an attention module side
by side (Falcon-H1, Hymba) is one ``parallel`` entry whose output is the sum of the two; a block that applies a
shared transformer block (Zamba2's ``shared_transformer``) lists it as ``shared``, saying whose weights it uses.

Examples
--------
>>> shapes = {"model.embed_tokens.weight": (10, 4), "model.layers.0.self_attn.q_proj.weight": (4, 4),
...           "model.layers.0.self_attn.k_proj.weight": (4, 4), "model.layers.0.self_attn.v_proj.weight": (4, 4),
...           "model.layers.0.self_attn.o_proj.weight": (4, 4), "model.layers.0.mlp.up_proj.weight": (8, 4),
...           "model.layers.0.mlp.down_proj.weight": (4, 8), "model.layers.0.input_layernorm.weight": (4,)}
>>> [(e.name, e.kind) for e in model_map(shapes, {"num_attention_heads": 2})]
[('model.embed_tokens', 'embedding'), ('model.layers.0.self_attn', 'attention'), ('model.layers.0.mlp', 'mlp')]
"""

import re
from dataclasses import dataclass, field
from typing import Optional

from . import layer_kinds

#: The linear-recurrence kinds of the map are the framework's layer kinds, named by their rows (and fla's
#: ``model_type`` of a model of such layers is the kind's name).
_GDN, _KDA, _DELTANET, _GLA, _RWKV6, _RWKV7, _MLSTM, _RETNET = (
    row.name for row in (layer_kinds.GATED_DELTANET, layer_kinds.KDA, layer_kinds.DELTANET, layer_kinds.GLA,
                         layer_kinds.RWKV6, layer_kinds.RWKV7, layer_kinds.MLSTM, layer_kinds.RETNET))

__all__ = ["ModelEntry", "model_map", "classify_module", "LABELS", "config_value", "SSM_KINDS", "LTI_KINDS",
           "RECURRENCE_KINDS"]

#: What each kind is called in reports.
LABELS = {"mamba": "Mamba", "mamba2": "Mamba-2", "mamba3": "Mamba-3", _GDN: "Gated DeltaNet",
          _KDA: "Kimi Delta Attention", _DELTANET: "DeltaNet", _GLA: "GLA", _RWKV6: "RWKV-6", _RWKV7: "RWKV-7", _MLSTM: "mLSTM",
          _RETNET: "RetNet (multi-scale retention)", "attention": "attention", "mlp": "MLP", "moe": "MoE",
          "s4d": "S4D", "s4-diag": "S4 SSMKernelDiag", "s5": "S5", "lru": "LRU", "parallel": "parallel",
          "shared": "shared block", "embedding": "embedding", "buffer": "buffer (rotary frequencies)", "norm": "norm", "output": "output head",
          "unrecognised": "unrecognised", "linear-recurrence": "linear recurrence (unrecognised variant)"}
#: Selective SSM mixers (their operator depends on the input).
SSM_KINDS = ("mamba", "mamba2", "mamba3")
#: Time-invariant SSM layers (a lag operator for every input).
LTI_KINDS = ("s4d", "s4-diag", "s5", "lru")
#: Linear-recurrence layers listed by kind with their sizes.
RECURRENCE_KINDS = (_GDN, _DELTANET, _KDA, _GLA, _RWKV6, _RWKV7, _MLSTM, _RETNET,
                    "linear-recurrence")
#: ``model_type`` of linear-attention models (fla, xLSTM): their attention-named mixers are linear recurrences,
#: except in the blocks the config lists as attention layers (``attn.layers``).
LINEAR_MODEL_TYPES = ("linear_attn", "based", "rebased", "delta_net", "gated_deltanet", "hgrn", "hgrn2", "abc",
                      "gsa", "lightnet", "hla", "mesa_net", "comba", _GLA, _RETNET, _RWKV6, _RWKV7, _KDA,
                      "gated_deltaproduct", "path_attn", "forgetting_transformer", "mom", "nsa", "xlstm")

_BLOCK = re.compile(r"^(.*?(?:^|[./])(?:layers|layer|h|blocks|block|decoder_layers)(?:[./]|_)(\d+))(?:[./](.*))?$")
_MLP_NAMES = ("gate_proj", "up_proj", "down_proj", "fc1", "fc2", "fc_1", "fc_2", "gate_up_proj", "w1", "w2", "w3",
              "c_fc", "input_linear", "output_linear", "dense_h_to_4h", "dense_4h_to_h", "swiglu", "proj_up",
              "proj_down", "proj_up_gate", "receptance", "intermediate")
_ATTN_NAMES = ("q_proj", "qkv_proj", "query_key_value", "Wqkv", "c_attn", "in_proj_qkvz", "query")
_LTI_MARKS = ("kernel.log_dt", "kernel.inv_dt", "Lambda_re", "nu_log")
_NORM = re.compile(r"(^|[._])(norm|layernorm|ln)(_?\w*)?$|norm_?\d*$|layernorm$|^ln_?\w*$", re.I)


@dataclass
class ModelEntry:
    """One layer of the map: its name (key prefix), kind, block index, tensors (short name -> full key), sizes,
    and for ``parallel`` and ``shared`` entries the parts, for ``unrecognised`` ones the reason."""

    name: str
    kind: str
    block: Optional[int] = None
    keys: dict = field(default_factory=dict)
    sizes: dict = field(default_factory=dict)
    parts: list = field(default_factory=list)
    norms: dict = field(default_factory=dict)
    reason: Optional[str] = None
    note: Optional[str] = None

    @property
    def label(self):
        return LABELS.get(self.kind, self.kind)


def config_value(config, *names, default=None):
    """The first of ``names`` in ``config`` (or in its ``ssm_cfg``, ``attn_cfg``, ``text_config``), else
    ``default``.

    Parameters
    ----------
    config : dict
        A ``config.json``.
    *names : str
        The keys the families spell the value with, tried in order.
    default : object, optional
        What to return when none is there.

    Returns
    -------
    object

    Examples
    --------
    >>> config_value({"ssm_cfg": {"ngroups": 2}}, "n_groups", "ngroups", default=1)
    2
    """
    for source in (config, config.get("ssm_cfg"), config.get("attn_cfg"), config.get("text_config")):
        if isinstance(source, dict):
            for name in names:
                if name in source and source[name] is not None:
                    return source[name]
    return default


def _split_block(key):
    m = _BLOCK.match(key)
    if not m:
        return None, None, key
    return m.group(1), int(m.group(2)), m.group(3) or ""


def _parent(path):
    return path.rsplit(".", 1)[0] if "." in path else ""


def _roots(rels):
    """The module roots inside a block (paths relative to the block, "" for the block itself)."""
    roots = {}
    for rel in rels:
        parts = rel.split(".")
        for i, part in enumerate(parts):
            here = ".".join(parts[:i])
            rest = ".".join(parts[i:])
            if part in ("A_log", "A_logs", "B_bias", "bonus", "k_k", "gk_proj", "in_proj_qkvz") or \
                    rest in _LTI_MARKS or "igate" in part and i == len(parts) - 2:
                roots.setdefault(here, "ssm")
            elif part in _ATTN_NAMES or (part == "attn" and rest == "attn.weight" and i >= 1):
                if part == "query" and i >= 2 and parts[i - 1] == "self":  # BERT: attention.self.query
                    here = ".".join(parts[:i - 1])
                if roots.get(here) in (None, "mlp"):
                    roots[here] = "attn"
            elif part == "key" and i == len(parts) - 2 and (i == 0 or parts[i - 1] != "self"):
                roots.setdefault(here, "mlp")  # RWKV's channel mix (key, value, receptance), unless attention
            elif part == "experts" or part in ("router", "block_sparse_moe"):
                roots[here if part != "block_sparse_moe" else ".".join(parts[:i + 1])] = "moe"
            elif part in _MLP_NAMES and i == len(parts) - 2:
                roots.setdefault(here, "mlp")
    # a module inside a mixture of experts is one of its experts
    moe = [r for r, what in roots.items() if what == "moe"]
    for r in list(roots):
        if any(r != m and (r.startswith(m + ".") or m == "") and roots[r] != "moe" for m in moe):
            del roots[r]
    return roots


def _owner(rel, roots):
    best = None
    for r in roots:
        if r == "" or rel.startswith(r + "."):
            if best is None or len(r) > len(best):
                best = r
    return best


def _short(rel, root):
    return rel[len(root) + 1:] if root else rel


def classify_module(shapes, config=None):
    """``(kind, sizes, reason)`` of one module from its parameters' short names and shapes.

    Parameters
    ----------
    shapes : dict
        ``{short name: shape}`` (names relative to the module).
    config : dict, optional
        The model's ``config.json``.

    Returns
    -------
    tuple
        ``(kind, sizes, reason)``; ``reason`` says why an ``unrecognised`` module is so.

    Examples
    --------
    >>> classify_module({"A_log": (4,), "dt_bias": (4,), "a_proj.weight": (4, 8), "b_proj.weight": (4, 8),
    ...                  "q_proj.weight": (16, 8), "k_proj.weight": (16, 8), "v_proj.weight": (32, 8),
    ...                  "o_proj.weight": (8, 32)})[0]
    'gated-deltanet'
    """
    config = config or {}
    names = set(shapes)
    leaves = {n.split(".")[-1] if not n.split(".")[-1].isdigit() else n.split(".")[-2] for n in names}
    stems = {n.rsplit(".weight", 1)[0] if n.endswith(".weight") else n for n in names}
    has = names.__contains__

    def first(*cands):
        return next((shapes[c] for c in cands if c in shapes), None)

    a_log = first("A_log", "A_log.0", "A_logs")
    # ---- linear-recurrence layers first: they may carry A_log and dt_bias like Mamba-2
    if has("in_proj_qkvz.weight") and has("in_proj_ba.weight"):
        nv = a_log[0] if a_log else None
        k_heads = config_value(config, "linear_num_key_heads")
        kd, vd = config_value(config, "linear_key_head_dim"), config_value(config, "linear_value_head_dim")
        return _GDN, {"value_heads": nv, "key_heads": k_heads, "key_head_dim": kd, "value_head_dim": vd,
                                  "conv_kernel": (shapes.get("conv1d.weight") or (None,))[-1],
                                  "output_gate": "z (from in_proj_qkvz)", "source": "Qwen3-Next linear_attn"}, None
    if has("a_proj.weight") and has("b_proj.weight") and a_log is not None:
        return _GDN, _qkv_sizes(shapes, a_log[0], "fla gated_deltanet.py"), None
    if any(s.startswith("f_proj.") for s in names) and has("b_proj.weight"):
        return _KDA, _qkv_sizes(shapes, a_log[0] if a_log else None, "fla kda.py"), None
    if has("b_proj.weight") and has("q_proj.weight") and has("k_proj.weight") and a_log is None:
        return _DELTANET, _qkv_sizes(shapes, None, "fla delta_net.py"), None
    if any(s.startswith("gk_proj") for s in names):
        return _GLA, _qkv_sizes(shapes, None, "fla gla.py"), None
    if "k_k" in leaves or any(s.startswith("w_lora") for s in names):
        return _RWKV7, _qkv_sizes(shapes, None, "fla rwkv7.py"), None
    if "bonus" in leaves:
        return _RWKV6, _qkv_sizes(shapes, None, "fla rwkv6.py"), None
    if any("igate" in s for s in names) and any("fgate" in s for s in names):
        return _MLSTM, _qkv_sizes(shapes, None, "mLSTM (xLSTM)"), None
    # ---- selective SSMs
    if a_log is None and has("B_bias") and has("C_bias"):
        return "mamba3", {"heads": (shapes.get("dt_bias") or (None,))[0], "d_state": shapes["B_bias"][-1],
                          "mimo_rank": shapes["B_bias"][1] if len(shapes["B_bias"]) == 3 else 1}, None
    if a_log is not None:
        if len(a_log) == 2 and (stems & {"x_proj", "x_proj.0", "dt_proj", "dt_proj.0"}):
            groups = sorted({int(n.split(".")[1]) for n in names if re.match(r"A_log\.\d+$", n)})
            return "mamba", _mamba1_sizes(shapes, groups), None
        if len(a_log) == 1 and has("dt_bias"):
            return "mamba2", _mamba2_sizes(shapes, config), None
        if any(has(f"{p}_proj.weight") for p in "qkv"):
            return "linear-recurrence", _qkv_sizes(shapes, a_log[0], None), \
                "a decay (A_log) beside q/k/v projections, in no layout read here"
        return "unrecognised", {}, (f"A_log of shape {a_log} without the other parameters of Mamba (x_proj, dt_proj) "
                                    "or Mamba-2 (dt_bias)")
    # ---- time-invariant SSMs (the names of sources.checkpoints)
    from .checkpoints import KINDS, _classify

    kind, missing = _classify({n: None for n in names})
    if kind in LTI_KINDS:
        if kind == "s4-diag" and "kernel.P" in names:
            return kind, {}, ("an S4 kernel with a low-rank term (kernel.P, SSMKernelDPLR) is not a diagonal SSM; only "
                              "diagonal kernels (S4D, SSMKernelDiag) are read")
        if kind == "s5" and "C" not in names and ("C1" in names or "C2" in names):
            return kind, {}, "a bidirectional S5 layer (C1 and C2) is not causal; only causal S5 layers are read"
        if missing:
            present = ", ".join(sorted(n for n in names if n in {x for v in KINDS.values() for x in v[2] + v[3]}))
            return kind, {}, f"{KINDS[kind][0]} parameters found ({present[:120]}) but no {', '.join(missing)}"
        return kind, {}, None
    # ---- attention, mixtures of experts, MLPs
    if has("q_proj.weight") or has("qkv_proj.weight") or has("query_key_value.weight") or has("Wqkv.weight") \
            or has("c_attn.weight") or has("attn.weight") or has("query.weight") or has("self.query.weight"):
        if has("g_proj.weight") and (any("g_norm" in s for s in names) or
                                     str(config.get("model_type", "")).startswith(_RETNET)):
            return _RETNET, _qkv_sizes(shapes, None, "fla multiscale_retention.py"), None
        return "attention", _attention_sizes(shapes, config), None
    if any(s.startswith("experts.") or s.startswith("router") or s.startswith("input_linear") and
           len(shapes[s]) == 3 for s in names):
        return "moe", _moe_sizes(shapes, config), None
    if stems & {s for s in _MLP_NAMES} or any(s.split(".")[0] in _MLP_NAMES for s in names) or \
            {"key.weight", "value.weight"} <= names:
        return "mlp", _mlp_sizes(shapes), None
    return "unrecognised", {}, "no parameter names of a known layer: " + ", ".join(sorted(names))[:160]


def _rows(shape):
    return None if shape is None else shape[0]


def _qkv_sizes(shapes, heads, source):
    out = {"source": source} if source else {}
    for p in ("q", "k", "v", "o", "g", "r"):
        if f"{p}_proj.weight" in shapes:
            out[f"{p}_proj"] = list(shapes[f"{p}_proj.weight"])
    if heads is not None:
        out["heads"] = heads
    out["output_gate"] = "g_proj" if any(s.startswith("g_proj") for s in shapes) else None
    out["short_convolutions"] = sorted(s.split(".")[0] for s in shapes if "conv1d" in s and s.endswith("weight"))
    return out


def _mamba1_sizes(shapes, groups):
    if groups:
        A = [shapes[f"A_log.{g}"] for g in groups]
        channels = sum(a[0] for a in A)
        d_state = A[0][1]
        x_proj = shapes.get(f"x_proj.{groups[0]}.weight")
    else:
        A = [shapes["A_log"]]
        channels, d_state = A[0]
        x_proj = shapes.get("x_proj.weight")
    dt_rank = None if x_proj is None else x_proj[0] - 2 * d_state
    out = {"channels": int(channels), "d_state": int(d_state), "dt_rank": dt_rank,
           "groups": len(groups) if groups else 1,
           "norms": sorted(n.split(".")[0] for n in shapes if n.split(".")[0].lower() in
                           ("dt_layernorm", "b_layernorm", "c_layernorm"))}
    if "in_proj.weight" in shapes or "in_proj.0.weight" in shapes:
        w = shapes.get("in_proj.weight") or shapes.get("in_proj.0.weight")
        out["d_model"] = int(w[1])
        if w[0] > 2 * channels:  # Hymba: in_proj = [q, k, v, x, z], attention heads beside the SSM
            out["fused_attention_rows"] = int(w[0] - 2 * channels)
    if "conv1d.weight" in shapes:
        out["conv_kernel"] = int(shapes["conv1d.weight"][-1])
    return out


def _mamba2_sizes(shapes, config):
    """Mamba-2 sizes from the shapes, with ``n_groups`` from the config (the shapes fix only n_groups x d_state)."""
    heads = int(shapes["A_log"][0])
    out = {"heads": heads}
    d_ssm = None
    if "norm.weight" in shapes:
        d_ssm = int(shapes["norm.weight"][0])
    elif "out_proj.weight" in shapes:
        d_ssm = int(shapes["out_proj.weight"][1])
    elif "D" in shapes and int(shapes["D"][0]) % heads == 0 and int(shapes["D"][0]) > heads:
        d_ssm = int(shapes["D"][0])
    ngroups = config_value(config, "n_groups", "mamba_n_groups", "mamba_ngroups", "ngroups")
    out["n_groups_from"] = "config.json" if ngroups is not None else "assumed (not recorded without config.json)"
    ngroups = int(ngroups) if ngroups is not None else 1
    if "conv1d.weight" in shapes and "in_proj.weight" in shapes and d_ssm is not None:
        conv_dim = int(shapes["conv1d.weight"][0])
        d_in = int(shapes["in_proj.weight"][0])
        gn = conv_dim - d_ssm
        d_mlp2 = d_in - d_ssm - conv_dim - heads
        if gn <= 0 or gn % 2 or d_mlp2 < 0 or d_mlp2 % 2 or d_ssm % heads:
            out["inconsistent"] = (f"in_proj ({d_in} rows), conv1d ({conv_dim} channels), {heads} heads and d_ssm "
                                   f"{d_ssm} do not split as z, x, B, C, dt")
        else:
            gn //= 2
            if gn % ngroups:
                out["inconsistent"] = f"n_groups {ngroups} does not divide n_groups x d_state = {gn}"
            else:
                out.update(d_state=gn // ngroups, d_mlp=d_mlp2 // 2, conv_kernel=int(shapes["conv1d.weight"][-1]),
                           d_model=int(shapes["in_proj.weight"][1]))
        out["groups_x_state"] = gn
    elif d_ssm is None:
        d_ssm = heads * (int(shapes["D"][0]) // heads if "D" in shapes else 1)
    out.update(n_groups=ngroups, headdim=d_ssm // heads if d_ssm else None, channels=d_ssm,
               gated_norm="norm.weight" in shapes)
    return out


def _attention_sizes(shapes, config):
    out = {}
    q = shapes.get("q_proj.weight") or shapes.get("query.weight") or shapes.get("self.query.weight")
    o = shapes.get("o_proj.weight") or shapes.get("dense.weight") or shapes.get("out_proj.weight") or \
        shapes.get("c_proj.weight") or shapes.get("proj.weight") or shapes.get("output.dense.weight")
    heads = config_value(config, "num_attention_heads", "num_heads", "n_head", "n_heads", "attention_heads")
    kv = config_value(config, "num_key_value_heads", "num_heads_kv", "n_query_groups", "num_kv_heads", "kv_heads")
    head_dim = config_value(config, "head_dim", "attention_head_dim", "kv_channels")
    if "q_norm.weight" in shapes:
        head_dim = int(shapes["q_norm.weight"][0])
    if q is None and heads and o is not None:
        conv1d = "c_attn.weight" in shapes  # GPT-2's Conv1D: weights stored (in, out)
        width = o[1] if not conv1d else o[0]
        head_dim = head_dim or width // int(heads)
        kv = kv or heads
    if q is not None:
        width = q[0]
        if heads is None and head_dim:
            heads = width // int(head_dim)
        if heads and o is not None and o[1] % int(heads) == 0:
            head_dim = o[1] // int(heads)  # the value heads' width: o_proj's columns per head
        if heads and not head_dim:
            head_dim = width // int(heads)
        if heads and head_dim and width == 2 * int(heads) * int(head_dim):
            out["query_gate"] = "q_proj holds the query and an output gate (Qwen3-Next)"
        v = shapes.get("v_proj.weight") or shapes.get("value.weight") or shapes.get("self.value.weight")
        if v is not None and head_dim and v[0] % int(head_dim) == 0:
            kv = v[0] // int(head_dim)
    if heads is not None:
        out["heads"] = int(heads)
        out["kv_heads"] = int(kv) if kv is not None else int(heads)
        out["head_dim"] = int(head_dim) if head_dim else None
    else:
        out["heads"] = None
        out["heads_note"] = "the number of heads is not recorded (no config.json)"
    if o is not None:
        out["d_model"] = int(o[0] if "c_attn.weight" not in shapes else o[1])
    out["fused_qkv"] = q is None
    return out


def _packed_attention_sizes(shapes, config):
    """state-spaces/mamba's ``MHA`` (mha.py): ``in_proj`` packs q, k, v (``(heads + 2 kv_heads) x head_dim`` rows)."""
    heads = config_value(config, "num_heads")
    kv = config_value(config, "num_heads_kv", default=heads)
    d_model = shapes["out_proj.weight"][0]
    hd = config_value(config, "head_dim", default=(d_model // int(heads)) if heads else None)
    out = {"fused_qkv": "in_proj packs q, k, v (state-spaces/mamba mha.py)", "d_model": int(d_model)}
    if heads and hd:
        q, k = int(heads) * int(hd), int(kv) * int(hd)
        out.update(heads=int(heads), kv_heads=int(kv), head_dim=int(hd), q_rows=q, k_rows=k, v_rows=k,
                   value_head_dim=int(hd), packed="in_proj")
    else:
        out.update(heads=None, heads_note="the number of heads is not recorded (no config.json attn_cfg)")
    return out


def _fused_attention_sizes(sizes, config):
    """Hymba's attention heads, whose queries, keys and values are rows of the SSM's in_proj."""
    rows = sizes["fused_attention_rows"]
    heads = config_value(config, "num_attention_heads")
    kv = config_value(config, "num_key_value_heads", default=heads)
    d_model = sizes.get("d_model")
    out = {"fused_qkv": "in_proj rows [q, k, v] before the SSM's x and z", "qkv_rows": rows, "d_model": d_model}
    if heads:
        q = config_value(config, "attn_hidden_size", default=d_model)
        kd = int(int(kv) * int(q) // int(heads))
        out.update(heads=int(heads), kv_heads=int(kv), head_dim=int(q) // int(heads), q_rows=int(q), k_rows=kd,
                   v_rows=int(rows - int(q) - kd), value_head_dim=sizes["channels"] // int(heads))
    else:
        out.update(heads=None, heads_note="the number of heads is not recorded (no config.json)")
    return out


def _moe_sizes(shapes, config):
    experts = set()
    fused = None
    for s, shape in shapes.items():
        m = re.match(r"experts\.(\d+)\.", s)
        if m:
            experts.add(int(m.group(1)))
        elif (s.startswith("experts.") or s.startswith("input_linear")) and len(shape) == 3:
            fused = shape[0]
    count = len(experts) if experts else fused
    top_k = config_value(config, "num_experts_per_tok", "top_k", "moe_top_k", "num_selected_experts")
    shared = sorted({s.split(".")[0] for s in shapes if s.startswith("shared_expert") or s.startswith("shared_mlp")})
    return {"experts": count, "top_k": top_k, "top_k_from": "config.json" if top_k is not None else "not recorded",
            "shared_experts": shared}


def _mlp_sizes(shapes):
    out = {}
    for name in ("gate_proj", "up_proj", "fc1", "fc_1", "w1", "gate_up_proj", "input_linear", "c_fc"):
        if f"{name}.weight" in shapes:
            out["hidden"], out["d_model"] = (int(x) for x in shapes[f"{name}.weight"][:2])
            if name == "c_fc":  # GPT-2's Conv1D stores (in, out)
                out["hidden"], out["d_model"] = out["d_model"], out["hidden"]
            out["gated"] = name in ("gate_proj", "gate_up_proj", "w1") or "gate_proj.weight" in shapes
            break
    return out


_TOP = (("embed", "embedding"), ("wte", "embedding"), ("wpe", "embedding"),
        ("embedding", "embedding"), ("lm_head", "output"), ("norm", "norm"), ("ln_f", "norm"))


def _top_kind(name):
    for word, kind in _TOP:
        if word in name.lower().split(".")[-1]:
            return kind
    return "unrecognised"


def model_map(shapes, config=None):
    """Every layer of a model in order: ``[ModelEntry]`` from ``{key: shape}`` and ``config.json``.

    Parameters
    ----------
    shapes : dict
        ``{tensor name: shape}`` (a checkpoint's header).
    config : dict, optional
        The model's ``config.json``.

    Returns
    -------
    list of ModelEntry
        Top-level tensors (embedding, final norm, output head) and each block's modules, in block order.
    """
    config = config or {}
    blocks, top = {}, {}
    for key in shapes:
        nk = key.replace("/", ".")
        prefix, index, rel = _split_block(nk)
        if prefix is None:
            top.setdefault(_parent(nk) if "." in nk else nk, {})[nk] = key
        else:
            blocks.setdefault((prefix, index), {})[rel] = key
    entries = []
    # tensors outside any block that form layers themselves (an S4D layer under "enc.kernel...") are modules too
    loose = {key.replace("/", "."): key for keys in top.values() for key in keys.values()}
    lone_roots = _roots(loose)
    ordered_top = []
    if lone_roots:
        ordered_top = [e for e in _modules(loose, lone_roots, shapes, config, None, "") if e.kind != "unrecognised"]
        claimed = set()
        for e in ordered_top:
            claimed |= set(e.keys.values())
            for p in e.parts:
                claimed |= set(p.keys.values())
        top = {s: {nk: k for nk, k in ks.items() if k not in claimed} for s, ks in top.items()}
        top = {s: ks for s, ks in top.items() if ks}
    pre, post = [], []
    for stem, keys in top.items():
        kind = "buffer" if all(k.endswith("inv_freq") for k in keys) else _top_kind(stem)
        entry = ModelEntry(stem, kind, None, {nk[len(stem) + 1:] if nk != stem else "weight": k
                                               for nk, k in keys.items()})
        w = next(iter(keys.values()))
        entry.sizes = {"shape": list(shapes[w])}
        if kind == "unrecognised":
            entry.reason = "a tensor outside the model's blocks with no known name"
        (pre if kind == "embedding" else post).append(entry)
    entries.extend(pre)
    entries.extend(ordered_top)
    for (prefix, index), rels in sorted(blocks.items(), key=lambda kv: (kv[0][0].rsplit(".", 1)[0], kv[0][1])):
        roots = _roots(rels)
        entries.extend(_modules(rels, roots, shapes, config, index, prefix + "."))
    entries.extend(sorted(post, key=lambda e: {"norm": 0, "output": 2}.get(e.kind, 1)))
    _mark_shared(entries, config)
    for e in entries:  # names as spelled in the checkpoint ("/" separators of flax trees kept)
        _respell(e)
    return entries


def _respell(entry):
    key = next(iter(entry.keys.values()), None)
    if key is not None and key.replace("/", ".").startswith(entry.name) and "/" in key:
        entry.name = key[:len(entry.name)]
    for part in entry.parts:
        _respell(part)


def _modules(rels, roots, shapes, config, index, prefix):
    """The entries of one block (or of the loose tensors, prefix "")."""
    members = {r: {} for r in roots}
    free = {}
    for rel, key in rels.items():
        owner = _owner(rel, roots)
        if owner is None:
            free[rel] = key
        else:
            members[owner][_short(rel, owner)] = key
    entries = {}
    for root, keys in members.items():
        kind, sizes, reason = classify_module({s: tuple(shapes[k]) for s, k in keys.items()}, config)
        name = (prefix + root).rstrip(".") if root else prefix.rstrip(".")
        entries[root] = ModelEntry(name, kind, index, dict(keys), sizes, reason=reason)
    model_type = str(config.get("model_type", ""))
    attn_cfg = config.get("attn") if isinstance(config.get("attn"), dict) else {}
    attn_layers = attn_cfg.get("layers") if isinstance(attn_cfg.get("layers"), list) else []
    for root, entry in list(entries.items()):
        if entry.kind == "attention" and model_type in LINEAR_MODEL_TYPES and index not in attn_layers:
            entry.kind = "linear-recurrence"
            entry.reason = (f"an attention-named mixer of a {model_type} model (config.json model_type), not among "
                            "its softmax-attention layers (attn.layers): read as that model's linear recurrence")
            entry.sizes = dict(entry.sizes, model_type=model_type)
    for root, entry in list(entries.items()):
        if entry.kind == "mamba" and entry.sizes.get("fused_attention_rows"):
            attn = ModelEntry(entry.name + " (attention heads)", "attention", index, {},
                              _fused_attention_sizes(entry.sizes, config))
            entries[root] = ModelEntry(entry.name, "parallel", index, {}, {"sum": "W = W_mamba + W_attention"},
                                       parts=[entry, attn])
    norms, others = {}, {}
    for rel, key in free.items():
        stem = rel.rsplit(".", 1)[0] if rel.endswith((".weight", ".bias")) else rel
        if _NORM.search(stem.split(".")[-1]) and len(shapes[key]) <= 1:
            norms[rel] = key
        else:
            head = stem.split(".")[0]
            others.setdefault(head, {})[rel[len(head) + 1:] if rel != head else rel] = key
    # which norm goes before which module: the block's pre-norms in the families' order
    for entry in entries.values():
        entry.norms = dict(norms)
        for part in entry.parts:
            part.norms = dict(norms)
    out = []
    # parallel blocks: a selective SSM and attention side by side (or attention inside the SSM module, Hymba)
    ssm = [r for r, e in entries.items() if e.kind in SSM_KINDS + LTI_KINDS + RECURRENCE_KINDS]
    attn = [r for r, e in entries.items() if e.kind == "attention"]
    shared_roots = [r for r in entries if r.split(".")[0] in ("shared_transformer", "shared_block", "shared_attn")]
    parallel = []
    for a in attn:
        if a in shared_roots or any(a.startswith(s + ".") for s in shared_roots):
            continue
        for s in ssm:
            depth_ok = "." not in a and "." not in s and a != "" and s != ""
            nested = s != "" and a.startswith(s + ".") or s == "" and a != ""
            if depth_ok or nested:
                parallel.append((s, a))
                break
    used = set()
    for s, a in parallel:
        if s in used or a in used:
            continue
        used |= {s, a}
        e_s, e_a = entries[s], entries[a]
        name = e_s.name if a.startswith(s + ".") else (prefix.rstrip(".") or e_s.name)
        entry = ModelEntry(name, "parallel", index, {}, {"sum": f"W = W_{e_s.kind} + W_attention"},
                           parts=[e_s, e_a], norms=dict(norms))
        entries[s] = entry
        entries.pop(a)
    for stem, keys in list(others.items()):
        attn_idx = config_value(config, "attn_layer_idx", default=None)
        if set(keys) >= {"in_proj.weight", "out_proj.weight"} and isinstance(attn_idx, list) and index in attn_idx:
            entries[stem] = ModelEntry((prefix + stem).rstrip("."), "attention", index, dict(keys),
                                       _packed_attention_sizes({k: tuple(shapes[v]) for k, v in keys.items()}, config),
                                       norms=dict(norms))
            del others[stem]

    def rank(r):
        kind = entries[r].kind
        return (0 if r.split(".")[0] in ("shared_transformer", "shared_block") else 1,
                0 if kind not in ("mlp", "moe", "unrecognised") else 1 if kind in ("mlp", "moe") else 2, r)

    for root in sorted(entries, key=rank):
        out.append(entries[root])
    if "intermediate" in others and "output" in others and "dense.weight" in others["intermediate"]:
        keys = {f"intermediate.{k}": v for k, v in others.pop("intermediate").items()}
        keys.update({f"output.{k}": v for k, v in others.pop("output").items()})
        w = shapes[keys["intermediate.dense.weight"]]
        out.append(ModelEntry((prefix + "intermediate").rstrip("."), "mlp", index, keys,
                              {"hidden": int(w[0]), "d_model": int(w[1]), "gated": False}, norms=dict(norms)))
    for stem, keys in others.items():
        full = (prefix + stem).rstrip(".")
        types = config.get("layers_block_type") or config.get("layer_types") or []
        if stem == "linear" and not shared_roots and index is not None and index < len(types) and \
                types[index] == "hybrid":
            out.insert(0, ModelEntry((prefix + "shared_transformer").rstrip("."), "shared", index,
                                     {"(output) linear": next(iter(keys.values()))}, {},
                                     note=f"{full} projects the shared block's output before it is added"))
            continue
        if stem == "linear" and shared_roots:
            target = next(e for r, e in entries.items() if r in shared_roots or any(r.startswith(s + ".")
                                                                                     for s in shared_roots))
            target.note = f"{full} projects the shared block's output before it is added"
            target.keys["(output) " + stem] = next(iter(keys.values()))
            continue
        e = ModelEntry(full, "unrecognised", index, dict(keys), {"shapes": {k: list(shapes[v]) for k, v in
                                                                             keys.items()}},
                       reason="no parameter names of a known layer: " + ", ".join(sorted(keys))[:160])
        out.append(e)
    return out


def _mark_shared(entries, config):
    """Zamba2: the modules under ``shared_transformer`` apply a block shared across layers; a hybrid layer whose
    shared weights are not stored (tied to an earlier layer's) gets a ``shared`` entry saying which."""
    types = config.get("layers_block_type") or config.get("layer_types")
    mem = config.get("num_mem_blocks")
    hybrid = [i for i, t in enumerate(types or []) if t == "hybrid"]
    stored = {}
    for e in entries:
        if ".shared_transformer" in e.name and e.kind != "shared":
            e.sizes = dict(e.sizes, shared=True)
            stored.setdefault(e.block, []).append(e)
    if not hybrid:
        return
    missing = [i for i in hybrid if i not in stored]
    if not missing:
        return
    by_block = {}
    for e in entries:
        by_block.setdefault(e.block, []).append(e)
    for i in missing:
        if i not in by_block:
            continue
        k = hybrid.index(i)
        source = hybrid[k % mem] if mem else None
        note = (f"the shared transformer block of layer {source} (weights tied: num_mem_blocks = {mem})"
                if source is not None else "a shared transformer block whose weights are stored with another layer")
        existing = next((e for e in by_block[i] if e.kind == "shared"), None)
        if existing is not None:
            existing.sizes = {"weights_of": source}
            existing.note = note + (f"; {existing.note}" if existing.note else "")
            continue
        pos = entries.index(by_block[i][0])
        block_prefix = _split_block(by_block[i][0].name)[0] or by_block[i][0].name.rsplit(".", 1)[0]
        entries.insert(pos, ModelEntry(f"{block_prefix}.shared_transformer", "shared", i,
                                       {}, {"weights_of": source}, note=note))
