"""Numerical head counts of the SSM layers of trained checkpoints (labelled numerical; not certificates).

Every S4D, S4 (SSMKernelDiag), S5 and LRU layer is diagonal: its lags are ``vec(L_d) = Re(sum_k lambda_k^d W_k)``
(+ D at d = 0) over its discretised modes, so :mod:`symssm.numeric.modal` computes its best H-head error curve
in memory and time independent of n, and the numerical head count at tolerance tau is the least H whose error
is at most tau (docs/numeric.md) -- the quantity the certified eps-head count brackets.

- S4D and SSMKernelDiag: channel h has the kernel ``K_h[d] = 2 Re(sum_n C'_{h,n} lambda_{h,n}^d)``; with
  ``channels`` output copies the layer maps H inputs to ``channels x H`` outputs, lag entries ``(c, h)`` only.
- S5: ``L_d = 2 Re(C diag(lambda^d) B_bar)`` (+ diag D); LRU: ``L_d = Re(C diag(lambda^d) diag(gamma) B)``
  (+ diag D).
- Mamba (Mamba-1 and Mamba-2): B, C and the step depend on the input, so there is no lag operator; reported
  instead is the numerical **interaction rank** of the selective scan's operator ``W_ij`` on a seeded input of
  :data:`MAMBA_TOKENS` tokens, with its best H-head error curve (docs/framework.md).
- Linear-recurrence layers (Gated DeltaNet, KDA, DeltaNet, GLA, RetNet, RWKV-6/7, mLSTM) in a model report: read
  by :func:`~symssm.sources.recurrent_checkpoints.recurrent_layer` as their layer kinds on the report's input;
  the numerical interaction rank of the whole layer's blocks ``W_ij(X)`` (:func:`analyse_model`).

Examples
--------
>>> import numpy as np
>>> t = {"kernel.log_dt": np.log(np.full(3, 0.1)), "kernel.log_A_real": np.log(np.full((3, 2), 0.5)),
...      "kernel.A_imag": np.tile(np.pi * np.arange(2), (3, 1)), "kernel.C": np.ones((3, 2, 2)), "D": np.zeros(3)}
>>> from symssm.sources.checkpoints import CheckpointLayer
>>> analyse_layer(CheckpointLayer("l0", "s4d", t), 64)["numerical_head_count"]
1
"""

import math

import numpy as np

from ..errors import InputError
from ..sources.checkpoints import Conventions, check_layer
from .headcount import DEFAULT_LAG_RANK_TOL, DEFAULT_TOL, KEPT, _rank, check_tolerance, curve_from_singular_values
from .modal import choose_modal_method, modal_form, modal_lags, stack_singular_values

__all__ = ["s4d_kernel", "analyse_layer", "analyse_checkpoint", "layer_modal_form", "plan_checkpoint",
           "analyse_model", "mamba1_forward", "mamba2_forward", "hankel_singular_values", "attention_bound",
           "highway_summary", "ModelInput", "MAMBA_TOKENS", "LABELS", "recurrent_cost", "MAX_RECURRENT_ENTRIES",
           "MAX_RECURRENT_PARAMETERS", "MAMBA3_REASON"]

#: Tokens of the seeded input on which a Mamba layer's interaction operator is formed.
MAMBA_TOKENS = 32
#: Most lag entries the normalised-lag rank (a diagnostic) is computed for.
MAX_LAG_RANK_ENTRIES = 20_000_000
#: What each kind is called in reports.
LABELS = {"s4d": "S4D", "s4-diag": "S4 SSMKernelDiag", "s5": "S5", "lru": "LRU", "mamba": "Mamba",
          "mamba2": "Mamba-2"}


def _complex(view):
    return view[..., 0] + 1j * view[..., 1]


def _transform(x, how):
    """state-spaces/s4's ``param_transform``."""
    if how == "exp":
        return np.exp(x)
    if how == "softplus":
        return np.logaddexp(0.0, x)
    if how == "relu":
        return np.maximum(x, 0.0) + 1e-4
    if how == "sigmoid":
        return 1.0 / (1.0 + np.exp(-x))
    return x


def _zoh_weight(A, dtA, what):
    """``(exp(dt A) - 1) / A``, by expm1 (no cancellation for slow modes)."""
    if np.any(A == 0):
        raise InputError(f"{what}: a mode A is 0, where the zero-order hold divides by it")
    return np.expm1(dtA) / A


def _bilinear(dtA, what):
    if np.any(dtA == 2):
        raise InputError(f"{what}: a mode has dt A = 2, where the bilinear rule divides by zero")
    return (1 + dtA / 2) / (1 - dtA / 2), 1 / (1 - dtA / 2)


def layer_modal_form(layer, conventions=None):
    """``(form, info)``: the :class:`~symssm.numeric.modal.ModalForm` of an S4D, SSMKernelDiag, S5 or LRU layer
    and its sizes (``channels``, ``inputs``, ``outputs``, ``state``, ``D``, ``conventions``).

    Raises
    ------
    InputError
        For a Mamba layer, shapes that do not fit, or modes where the discretisation is undefined.
    """
    conv = conventions or Conventions()
    if not layer.dims:
        layer = check_layer(layer)
    t, kind, name = layer.tensors, layer.kind, layer.name
    D = t.get("D")
    used = {}
    if kind == "s4d":
        H, P = layer.dims["H"], layer.dims["P"]
        dt = np.exp(t["kernel.log_dt"])
        dt = np.repeat(dt, H) if dt.size == 1 else dt
        A = -np.exp(t["kernel.log_A_real"]) + 1j * t["kernel.A_imag"]
        dtA = dt[:, None] * A
        lam = np.exp(dtA)
        w = 2 * _complex(t["kernel.C"]) * _zoh_weight(A, dtA, name)
        form = modal_form(lam.reshape(-1), entry=np.repeat(np.arange(H), P), weight=w.reshape(-1), E=H, D0=D,
                          real=True)
        info = {"channels": H, "inputs": H, "outputs": H, "state": 2 * P}
        used = {"discretization": "zoh", "dt": "exp(log_dt)", "A": "-exp(log_A_real) + i A_imag"}
    elif kind == "s4-diag":
        dims = layer.dims
        H, P, S, c = dims["H"], dims["P"], dims["S"], dims["channels"]
        rep = np.arange(H) % S  # einops 't n -> (v t) n': channel h uses the parameters of row h mod S
        Are = -_transform(t["kernel.A_real"], conv.real_transform)[rep]
        Aim = -_transform(t["kernel.A_imag"], conv.imag_transform)[rep] if dims["complex"] else 0.0
        A = Are + 1j * Aim
        B = (_complex(t["kernel.B"]) if dims["complex"] else t["kernel.B"])[rep]
        C = _complex(t["kernel.C"]) if dims["complex"] else t["kernel.C"]  # (c, H, P)
        dt = _transform(t["kernel.inv_dt"], conv.dt_transform)  # (H, 1) or (H, P)
        dtA = dt * A
        if conv.discretization == "zoh":
            lam, factor = np.exp(dtA), _zoh_weight(A, dtA, name)
        else:
            lam, back = _bilinear(dtA, name)
            factor = back * dt
        w = 2 * C * (B * factor)[None]  # (c, H, P): mode (h, n) -> entries (c, h)
        if c == 1:
            form = modal_form(lam.reshape(-1), entry=np.repeat(np.arange(H), P), weight=w[0].reshape(-1), E=H,
                              D0=D, real=True)
        else:
            W = np.zeros((H * P, c * H), dtype=np.complex128)
            for ci in range(c):
                W[np.arange(H * P), ci * H + np.repeat(np.arange(H), P)] = w[ci].reshape(-1)
            form = modal_form(lam.reshape(-1), W, D0=None if D is None else D.reshape(-1), real=True)
        info = {"channels": H, "inputs": H, "outputs": c * H, "state": (2 if dims["complex"] else 1) * P}
        used = conv.as_json()
    elif kind == "s5":
        H, P = layer.dims["H"], layer.dims["P"]
        Lam = t["Lambda_re"] + 1j * t["Lambda_im"]
        step = np.exp(t["log_step"])
        if conv.discretization == "zoh":
            lam, Bbar = np.exp(Lam * step), _zoh_weight(Lam, Lam * step, name)[:, None] * _complex(t["B"])
        else:
            lam, back = _bilinear(Lam * step, name)
            Bbar = (back * step)[:, None] * _complex(t["B"])
        form = modal_form(lam, outer=(2 * _complex(t["C"]), Bbar), D0=None if D is None else np.diag(D).reshape(-1),
                          real=True)
        info = {"channels": H, "inputs": H, "outputs": H, "state": P}
        used = {"discretization": conv.discretization, "output": "2 Re(C x) (conjugate symmetry)"}
    elif kind == "lru":
        H, P = layer.dims["H"], layer.dims["P"]
        lam = np.exp(-np.exp(t["nu_log"]) + 1j * np.exp(t["theta_log"]))
        B = (t["B_re"] + 1j * t["B_im"]) * np.exp(t["gamma_log"])[:, None]
        form = modal_form(lam, outer=(t["C_re"] + 1j * t["C_im"], B),
                          D0=None if D is None else np.diag(D).reshape(-1), real=True)
        info = {"channels": H, "inputs": H, "outputs": H, "state": P}
        used = {"output": "Re(C x)"}
    else:
        raise InputError(f"{name}: a {LABELS.get(kind, kind)} layer has no fixed lag operator (its lags depend on the "
                         "input)")
    info["D"] = "present" if D is not None else "absent"
    info["conventions"] = used
    return form, info


def s4d_kernel(t, n):
    """The S4D kernel ``K`` (H, n) as state-spaces/s4's standalone S4D computes it (zero-order hold).

    Examples
    --------
    >>> import numpy as np
    >>> t = {"kernel.log_dt": np.zeros(1), "kernel.log_A_real": np.zeros((1, 1)), "kernel.A_imag": np.zeros((1, 1)),
    ...      "kernel.C": np.array([[[0.5, 0.0]]])}
    >>> np.round(s4d_kernel(t, 3), 6)  # 2 Re(C (e^-1 - 1)/(-1) e^-d)
    array([[0.632121, 0.232544, 0.085548]])
    """
    from ..sources.checkpoints import CheckpointLayer

    form, _ = layer_modal_form(CheckpointLayer("s4d", "s4d", {k: np.asarray(v) for k, v in t.items() if k != "D"}))
    return modal_lags(form, n).T


#: Most flops the normalised-lag rank (a diagnostic) may take; beyond, it is reported as not computed.
MAX_LAG_RANK_WORK = 4e9


def _lag_rank(form, n, tol):
    """The normalised-lag rank (the diagnostic) of a modal form, over the first ``min(n, T)`` lags (T: the modes, and
    one more for D), a block at a time, stopping once the rank is the number of entries (no lag can raise it).
    ``(None, [], None)`` when it would take more than :data:`MAX_LAG_RANK_WORK` flops."""
    from .modal import _EntryRows, _power_table

    count = min(n, 2 * form.K + 1 if form.real else form.K + 1)
    E = form.E
    if form.kind == "outer" or count * E > MAX_LAG_RANK_ENTRIES * 50:
        return None, [], None
    per_lag = 8.0 * (form.K if form.kind == "single" else form.K * E) + 2.0 * E * E
    rows_of = _EntryRows(form)
    block = max(64, min(2 * E, 4096, 2 ** 21 // max(form.K, 1)))
    table, step = _power_table(rows_of.lam, block)
    current = np.ones(rows_of.lam.size, dtype=np.complex128)
    R = np.zeros((0, E))
    done = 0
    while done < count:
        if done and (done + block) * per_lag > MAX_LAG_RANK_WORK:
            return None, [], None
        b = min(block, count - done)
        rows = rows_of(table[:b] * current[None, :])
        if done == 0 and form.D0 is not None:
            rows[0] = rows[0] + (form.D0.real if form.real else form.D0)
        norms = np.linalg.norm(rows, axis=1)
        unit = rows[norms > 0] / norms[norms > 0][:, None]
        stack = np.concatenate([R.astype(unit.dtype), unit]) if unit.size else R
        R = np.linalg.qr(stack, mode="r") if stack.shape[0] > E else stack
        done += b
        with np.errstate(under="ignore", over="ignore"):
            current = current * step
            big = float(np.max(np.abs(current))) if current.size else 0.0
            if big > 1e100 or 0 < big < 1e-100:  # only directions matter here: keep the powers representable
                current = current / big
        if _rank(np.linalg.svd(R, compute_uv=False) if R.size else np.zeros(0), tol)[0] == E:
            break
    return _rank(np.linalg.svd(R, compute_uv=False) if R.size else np.zeros(0), tol)


def _curve_fields(s, tolerance):
    errors, k, gap, cut = curve_from_singular_values(s, tolerance)
    norm = float(np.linalg.norm(s))
    rel = [float(v) / norm for v in np.sort(np.abs(s))[::-1][:KEPT]] if norm > 0 else []
    return {"approximation_error": errors, "approximation_error_cut": cut, "singular_values": rel, "gap": gap}, k


def analyse_layer(layer, n, *, tolerance=DEFAULT_TOL, tol=None, lag_rank_tol=DEFAULT_LAG_RANK_TOL, conventions=None,
                  method="auto", progress=None):
    """Numerical head count of one checkpoint layer on length-n sequences (a JSON-ready dict).

    For S4D, SSMKernelDiag, S5 and LRU layers: ``numerical_head_count`` (the least H with ``e_H <= tolerance``),
    the curve ``approximation_error`` (H = 0..k; ``approximation_error_cut`` when later values were left out),
    ``precision`` and ``resolved``, and the diagnostic ``lag_rank``.  For Mamba layers:
    ``numerical_interaction_rank`` on a seeded input of ``tokens`` tokens, with its curve.

    Raises
    ------
    InputError
        If the layer's tensors do not fit its kind, or a tolerance is not in (0, 1).
    LimitError
        If the curve would need more memory than the limit (before any work).
    """
    tolerance = check_tolerance(tol if tol is not None else tolerance)
    lag_rank_tol = check_tolerance(lag_rank_tol, "lag_rank_tol")
    if not layer.dims:
        layer = check_layer(layer)
    out = {"name": layer.name, "kind": layer.kind, "label": LABELS.get(layer.kind, layer.kind), "tolerance": tolerance,
           "numerical": True}
    if layer.kind in ("mamba", "mamba2"):
        return _mamba(layer, n, tolerance, lag_rank_tol, out)
    form, info = layer_modal_form(layer, conventions)
    out.update(n=n, quantity="head-count", **{k: info[k] for k in ("channels", "inputs", "outputs", "state", "D")},
               conventions=info["conventions"])
    s, used, precision = stack_singular_values(form, n, method=method, progress=progress)
    fields, k = _curve_fields(s, tolerance)
    from .modal import _one_blas_thread

    with _one_blas_thread(form.E):
        lag_rank, lag_s, lag_gap = _lag_rank(form, n, lag_rank_tol)
    out.update(numerical_head_count=k, **fields, precision=float(precision), resolved=bool(tolerance > precision),
               approximation_method=used, lag_rank=lag_rank, lag_rank_tolerance=lag_rank_tol,
               lag_rank_singular_values=[float(v) for v in lag_s[:KEPT]], lag_rank_gap=lag_gap)
    if info["D"] == "absent":
        out["note"] = "the checkpoint has no D for this layer: its operator is the kernel alone (no feedthrough)"
    return out


def plan_checkpoint(layers, n, conventions=None, *, memory_limit=None):
    """``[(layer, method or None)]``: the curve's form for each layer, chosen before any work (Mamba: None).

    Raises
    ------
    LimitError
        If a layer's curve would need more memory than the limit: one line, before anything is computed.
    """
    plan = []
    for layer in layers:
        if layer.kind in ("mamba", "mamba2"):
            plan.append((layer, None))
            continue
        form, _ = layer_modal_form(layer, conventions)
        try:
            plan.append((layer, choose_modal_method(form, n, memory_limit=memory_limit)))
        except Exception as exc:
            from ..errors import LimitError

            if isinstance(exc, LimitError):
                raise LimitError(f"{layer.name}: {exc}") from None
            raise
    return plan


def analyse_checkpoint(path, n, *, tolerance=DEFAULT_TOL, tol=None, lag_rank_tol=DEFAULT_LAG_RANK_TOL, layers=None,
                       problems=None, conventions=None, progress=None):
    """``{"file", "n", "layers": [...], "skipped": [...]}`` for every recognised SSM layer of a checkpoint.

    ``layers`` (and ``problems``): what :func:`~symssm.sources.checkpoints.scan_checkpoint` returned for it, when
    already read.  ``progress``: a callable ``progress(layer_name, done, total)`` (work within a layer), called
    with ``done = total = None`` when a layer is finished.

    Raises
    ------
    InputError
        If the file cannot be read, or holds no recognised layer (naming what a near-miss group lacks).
    LimitError
        If a layer's curve would need more memory than the limit (checked for every layer before any work).
    """
    from ..sources.checkpoints import scan_checkpoint

    if layers is None:
        layers, problems = scan_checkpoint(path)  # only the recognised layers' tensors are read
    problems = list(problems or [])
    if not layers:
        if problems:
            raise InputError(f"{path}: no complete SSM layer: " + "; ".join(f"{name}: {why}" for name, why in
                                                                           problems[:3]))
        raise InputError(f"{path}: no S4D, S4, S5, LRU or Mamba layer recognised (docs/models.md lists the "
                         "parameter names)")
    plan = plan_checkpoint(layers, n, conventions)
    report = []
    for i, (layer, method) in enumerate(plan):
        step = None if progress is None else (lambda done, total=None, _name=layer.name: progress(_name, done, total))
        report.append(analyse_layer(layer, n, tolerance=tol if tol is not None else tolerance,
                                    lag_rank_tol=lag_rank_tol, conventions=conventions,
                                    method=method or "auto", progress=step))
        if progress is not None:
            progress(layer.name, None, None)  # this layer is done
    return {"file": str(path), "n": n, "numerical": True,
            "note": "floating-point results, not certificates; numerical_head_count is the least H whose best H-head "
                    "relative error on length n is at most the tolerance",
            "layers": report, "skipped": [{"name": name, "reason": why} for name, why in problems]}


# ---------------------------------------------------------------- Mamba: interaction ranks on a seeded input

def _softplus(x):
    return np.logaddexp(0.0, x)


def _mamba(layer, n, tolerance, lag_rank_tol, out):
    """The numerical interaction rank of a Mamba layer's selective scan on a seeded standard-normal input.

    Channels do not mix inside the scan, so every block ``W_ij`` is diagonal: its entries are the rows here.
    Mamba-1: the scan's input ``u`` is seeded and ``(dt, B, C) = split(x_proj u)``, ``Delta = softplus(dt_proj dt +
    bias)``, ``A = -exp(A_log)``: ``W_ij = C_i . (prod_{t=j+1..i} exp(Delta_t A)) Delta_j B_j`` per channel
    (+ D at i = j).  Mamba-2 (SSD): per head ``h``, ``W_ij = (prod_{t=j+1..i} a_t) Delta_j (C_i . B_j) I``
    with ``a_t = exp(Delta_t A_h)``, ``Delta_t = softplus(dt_t + dt_bias_h)``; ``B_t``, ``C_t`` and ``dt_t`` are
    seeded (they come from the block's input projection).
    """
    t = layer.tensors
    L = max(1, min(n, MAMBA_TOKENS))
    rng = np.random.default_rng(0)
    pairs = [(i, j) for i in range(L) for j in range(i + 1)]
    if layer.kind == "mamba":
        A = -np.exp(t["A_log"])  # (d_inner, d_state)
        d_inner, d_state = A.shape
        dt_rank = layer.dims["dt_rank"]
        u = rng.standard_normal((L, d_inner))
        proj = u @ t["x_proj.weight"].T
        dt, Bt, Ct = proj[:, :dt_rank], proj[:, dt_rank:dt_rank + d_state], proj[:, dt_rank + d_state:]
        delta = _softplus(dt @ t["dt_proj.weight"].T + t["dt_proj.bias"])  # (L, d_inner)
        decay = np.exp(delta[:, :, None] * A[None])  # (L, d_inner, d_state)
        D = t.get("D")
        rows = np.zeros((len(pairs), d_inner))
        index = {pair: r for r, pair in enumerate(pairs)}
        for j in range(L):
            g = delta[j][:, None] * Bt[j][None, :]  # (d_inner, d_state)
            rows[index[(j, j)]] = g @ Ct[j] + (D if D is not None else 0)
            for i in range(j + 1, L):
                g = decay[i] * g
                rows[index[(i, j)]] = g @ Ct[i]
        channels, state = d_inner, d_state
        what = (f"the selective scan on a seeded input of {L} tokens (the scan's input drawn standard normal; "
                "x_proj, dt_proj, A_log and D from the checkpoint)")
    else:
        heads, headdim = layer.dims["H"], layer.dims["headdim"]
        d_state = layer.dims["P"] or 128
        A = -np.exp(t["A_log"])  # (heads,)
        Bt, Ct = rng.standard_normal((L, d_state)), rng.standard_normal((L, d_state))
        delta = _softplus(rng.standard_normal((L, heads)) + t["dt_bias"])  # (L, heads)
        logs = np.cumsum(delta * A[None], axis=0)  # sum_{t<=i} Delta_t A_h
        D = t.get("D")
        per_channel = D is not None and headdim > 1
        rows = np.zeros((len(pairs), heads * (headdim if per_channel else 1)))
        for r, (i, j) in enumerate(pairs):
            w = np.exp(logs[i] - logs[j]) * delta[j] * float(Ct[i] @ Bt[j])  # (heads,)
            row = np.repeat(w, headdim) if per_channel else w
            if i == j and D is not None:
                row = row + D
            rows[r] = row
        channels, state = heads * headdim, d_state
        what = (f"the SSD scan on a seeded input of {L} tokens (B_t, C_t and dt_t drawn standard normal, d_state "
                f"{d_state}{'' if layer.dims['P'] else ' assumed'}; A_log, dt_bias and D from the checkpoint; "
                "per head W_ij is a multiple of the identity)")
    s = np.linalg.svd(rows, compute_uv=False) if rows.size else np.zeros(0)
    fields, r = _curve_fields(s, tolerance)
    norms = np.linalg.norm(rows, axis=1)
    unit = rows[norms > 0] / norms[norms > 0][:, None]
    lag_rank, lag_s, lag_gap = _rank(np.linalg.svd(unit, compute_uv=False) if unit.size else np.zeros(0),
                                     lag_rank_tol)
    if layer.kind == "mamba2" and not layer.dims["P"]:
        out["state_assumed"] = True  # no in_proj / conv1d weights to read d_state from: Mamba-2's default
    out.update(quantity="interaction-rank", tokens=L, channels=channels, state=state, D="present" if D is not None
               else "absent", numerical_interaction_rank=r, **fields, precision=float(16 * np.finfo(float).eps *
                                                                                       math.sqrt(max(1, rows.shape[1]))),
               resolved=True, approximation_method="dense", row_rank=lag_rank, row_rank_tolerance=lag_rank_tol,
               row_rank_singular_values=[float(v) for v in lag_s[:KEPT]], row_rank_gap=lag_gap,
               note=f"numerical interaction rank of {what}; the scan's B, C and step depend on the input, so no "
                    "head count over all inputs is claimed")
    out["resolved"] = bool(tolerance > out["precision"])
    return out


# ---------------------------------------------------------------- whole models: every layer, read one at a time

#: Why a Mamba-3 layer (state-spaces/mamba ``mamba3.py``) is listed, not analysed.
MAMBA3_REASON = ("Mamba-3 (no A_log): its decay A_t = -softplus(dd_A_t), clamped, comes from the input; its "
                 "trapezoidal rule puts two consecutive tokens' inputs into each state update (a gate trap_t from "
                 "in_proj); and its data-dependent rotation of B and C (angles from in_proj, accumulated with the "
                 "step) makes the state complex. No layer kind of the framework has this recurrence, and the "
                 "reference computes it only in fused kernels (mamba3_siso_combined, mamba3_mimo), so no operator "
                 "is read; the layer is listed with its sizes")
#: Relative threshold of the numerical rank of an attention head's value map W_O^h W_V^h (float32 weights).
VALUE_RANK_RTOL = 1e-6
#: The seed of the synthetic input (a standard-normal hidden state per token).
INPUT_SEED = 0
#: Most modes (with their conjugates) a layer's Hankel singular values are computed for.
MAX_HANKEL_MODES = 4096


def _rms(x, w=None, eps=1e-6, groups=1):
    shape = x.shape
    xg = x.reshape(shape[:-1] + (groups, shape[-1] // groups))
    out = xg / np.sqrt(np.mean(xg * xg, axis=-1, keepdims=True) + eps)
    out = out.reshape(shape)
    return out * w if w is not None else out


def _silu(x):
    return x / (1.0 + np.exp(-x))


def _causal_conv(x, weight, bias):
    """Depthwise causal convolution (nn.Conv1d with groups = channels, padding K - 1, first L outputs)."""
    w = weight.reshape(weight.shape[0], -1)  # (channels, K)
    K = w.shape[1]
    L = x.shape[0]
    padded = np.concatenate([np.zeros((K - 1, x.shape[1])), x])
    out = np.zeros_like(x)
    for k in range(K):
        out += padded[k:k + L] * w[:, k]
    return out + (bias if bias is not None else 0.0)


class ModelInput:
    """The one input every selective and linear-recurrence layer is evaluated on: the token ids through the model's
    embedding, or the seeded standard-normal hidden state
    :func:`~symssm.sources.recurrent_checkpoints.seeded_input` ``(length, width, INPUT_SEED)``; each layer applies
    its own pre-norm.

    Raises
    ------
    InputError
        For token ids without a recognised embedding, or outside it.
    """

    def __init__(self, ckpt, entries, tokens=None, length=MAMBA_TOKENS):
        self.tokens = None if tokens is None else [int(t) for t in tokens]
        embeddings = [e for e in entries if e.kind == "embedding"]
        self.embedding = next((e for e in embeddings if not any(w in e.name.lower() for w in ("pos", "wpe"))),
                              embeddings[0] if embeddings else None)
        self.length = len(self.tokens) if self.tokens is not None else int(length)
        self._cache = {}
        self.ckpt = ckpt
        if self.tokens is not None:
            if self.embedding is None:
                raise InputError("--tokens needs the model's embedding, and this checkpoint has none recognised "
                                 "(embed_tokens, embeddings, embedding, wte)")
            key = next(iter(self.embedding.keys.values()))
            self.hidden = ckpt.read_rows(key, self.tokens)

    def describe(self):
        if self.tokens is not None:
            return {"kind": "tokens", "tokens": self.tokens, "through": self.embedding.name,
                    "note": "each selective and linear-recurrence layer sees these tokens' embeddings after its "
                            "own pre-norm (not the residual stream of the layers before it)"}
        return {"kind": "synthetic", "tokens": self.length, "seed": INPUT_SEED,
                "note": f"a standard-normal hidden state of {self.length} tokens (numpy default_rng({INPUT_SEED})) "
                        "after each layer's own pre-norm"}

    def hidden_state(self, width):
        if self.tokens is not None:
            if self.hidden.shape[1] != width:
                raise InputError(f"the embedding has width {self.hidden.shape[1]}, the layer reads {width}")
            return self.hidden
        if width not in self._cache:
            from ..sources.recurrent_checkpoints import seeded_input

            self._cache[width] = seeded_input(self.length, width, INPUT_SEED)
        return self._cache[width]


def _eps(config):
    from ..sources.architectures import config_value

    return float(config_value(config, "rms_norm_eps", "layer_norm_epsilon", "norm_epsilon", "layer_norm_eps",
                              "norm_eps", default=1e-5))


_PRE_NORMS = ("input_layernorm.weight", "norm.weight", "norm_1.weight", "ln_1.weight", "attn_norm.weight",
              "mamba_decoder.input_layernorm.weight", "mixer_norm.weight", "norm1.weight", "norm_mlstm.weight")


#: ``model_type`` of models whose RMSNorm scales by ``1 + weight`` (the weight stored as an offset from one).
_OFFSET_NORM_MODELS = ("qwen3_next", "gemma", "gemma2", "gemma3", "gemma3_text")


def _pre_norm(entry, ckpt, X, config):
    """The block's pre-norm applied to X (RMSNorm with its weight, or ``1 + weight`` for Qwen3-Next and Gemma;
    LayerNorm when it has a bias), and its name."""
    for short in _PRE_NORMS:
        if short in entry.norms:
            key = entry.norms[short]
            w = ckpt.read([key])[key].reshape(-1)
            if str(config.get("model_type", "")) in _OFFSET_NORM_MODELS:
                w = 1.0 + w
            if w.size != X.shape[1]:
                continue
            bias_key = entry.norms.get(short[:-len("weight")] + "bias")
            if bias_key is not None:
                b = ckpt.read([bias_key])[bias_key].reshape(-1)
                Xc = X - X.mean(axis=1, keepdims=True)
                return Xc / np.sqrt(np.mean(Xc * Xc, axis=1, keepdims=True) + _eps(config)) * w + b, short
            return _rms(X, w, _eps(config)), short
    return X, None


def _interaction_fields(rows, tolerance, lag_rank_tol):
    from .modal import _one_blas_thread

    with _one_blas_thread(rows.shape[1]):
        return _interaction_fields_now(rows, tolerance, lag_rank_tol)


def _interaction_fields_now(rows, tolerance, lag_rank_tol):
    s = np.linalg.svd(rows, compute_uv=False) if rows.size else np.zeros(0)
    fields, r = _curve_fields(s, tolerance)
    norms = np.linalg.norm(rows, axis=1)
    unit = rows[norms > 0] / norms[norms > 0][:, None]
    rank, rank_s, gap = _rank(np.linalg.svd(unit, compute_uv=False) if unit.size else np.zeros(0), lag_rank_tol)
    precision = float(16 * np.finfo(float).eps * math.sqrt(max(1, rows.shape[1])))
    return dict(numerical_interaction_rank=r, **fields, precision=precision, resolved=bool(tolerance > precision),
                approximation_method="dense", row_rank=rank, row_rank_tolerance=lag_rank_tol,
                row_rank_singular_values=[float(v) for v in rank_s[:KEPT]], row_rank_gap=gap)


def _distance_profile(block_norm, L):
    """``g[d] = max_i ||W_(i, i-d)||_F`` for d = 0..L-1 from ``block_norm(i, j)``."""
    return [max(block_norm(i, i - d) for i in range(d, L)) for d in range(L)]


def mamba1_forward(t, X, norms=None, eps=1e-6):
    """``(x, delta, B, C)`` of a Mamba-1 mixer on the hidden state X (L, d_model), as state-spaces/mamba's ``Mamba``
    and transformers' ``MambaMixer``/``JambaMambaMixer`` compute them: ``[x, z] = in_proj X`` (Hymba: the last
    2 d_inner rows, after the attention's q, k, v), ``x = silu(conv1d(x))``, ``[dt, B, C] = x_proj x`` with
    Jamba's and Hymba's ``dt_layernorm``, ``b_layernorm``, ``c_layernorm`` (RMSNorm) when present,
    ``delta = softplus(dt_proj dt + dt_proj.bias)``.

    Parameters
    ----------
    t : dict
        The mixer's tensors by short name (``in_proj.weight``, ``conv1d.weight``, ``conv1d.bias``,
        ``x_proj.weight``, ``dt_proj.weight``, ``dt_proj.bias``, ``A_log``; a per-group list's ``.0`` names read
        as these).
    X : ndarray
        The hidden states (L, d_model), after the block's pre-norm.
    norms : dict, optional
        ``{"dt", "b", "c"}``: the weights of the RMSNorms of dt, B and C.
    eps : float
        Their epsilon.

    Returns
    -------
    tuple
        ``(x, delta, B, C)``: the scan's input (L, d_inner), step (L, d_inner), B and C (L, d_state).

    Examples
    --------
    >>> import numpy as np
    >>> t = {"in_proj.weight": np.ones((4, 3)), "conv1d.weight": np.ones((2, 1, 2)), "x_proj.weight": np.ones((3, 2)),
    ...      "dt_proj.weight": np.ones((2, 1)), "dt_proj.bias": np.zeros(2), "A_log": np.zeros((2, 1))}
    >>> [a.shape for a in mamba1_forward(t, np.ones((5, 3)))]
    [(5, 2), (5, 2), (5, 1), (5, 1)]
    """
    norms = norms or {}
    di, N = t["A_log"].shape
    W_in = t["in_proj.weight"]
    xz = X @ W_in.T + (t["in_proj.bias"] if "in_proj.bias" in t else 0.0)
    R = W_in.shape[0]
    x = xz[:, R - 2 * di:R - di]
    x = _silu(_causal_conv(x, t["conv1d.weight"], t.get("conv1d.bias")))
    proj = x @ t["x_proj.weight"].T
    r = proj.shape[1] - 2 * N
    dt, B, C = proj[:, :r], proj[:, r:r + N], proj[:, r + N:]
    if "dt" in norms:
        dt = _rms(dt, norms["dt"], eps)
    if "b" in norms:
        B = _rms(B, norms["b"], eps)
    if "c" in norms:
        C = _rms(C, norms["c"], eps)
    delta = _softplus(dt @ t["dt_proj.weight"].T + t["dt_proj.bias"])
    return x, delta, B, C


def mamba2_forward(t, X, sizes, dt_limit=(0.0, math.inf), multipliers=None):
    """``(x, dt, B, C)`` of a Mamba-2 mixer on the hidden state X (L, d_model), as state-spaces/mamba's ``Mamba2``
    and transformers' ``Mamba2Mixer`` (Bamba, Nemotron-H, Falcon-H1, Zamba2, Granite-4.0-H) compute them:
    ``[z0, x0, z, xBC, dt] = in_proj X`` (the d_mlp parts empty but in state-spaces' MLP variant),
    ``xBC = silu(conv1d(xBC))``, ``[x, B, C] = xBC`` split ``[d_ssm, n_groups d_state, n_groups d_state]``,
    ``dt = clamp(softplus(dt + dt_bias), dt_limit)``.  Falcon-H1's ``ssm_multipliers`` scale the five parts of
    ``in_proj X`` when given (``multipliers``: five numbers).

    Parameters
    ----------
    t : dict
        The mixer's tensors by short name (``in_proj.weight``, ``conv1d.weight``, ``conv1d.bias``, ``dt_bias``).
    X : ndarray
        The hidden states (L, d_model), after the block's pre-norm.
    sizes : dict
        ``heads``, ``n_groups``, ``d_state``, ``channels`` (d_ssm) and ``d_mlp`` (the layer map's sizes).
    dt_limit : tuple
        The step's limits.
    multipliers : sequence of float, optional
        Falcon-H1's ``ssm_multipliers``.

    Returns
    -------
    tuple
        ``(x, dt, B, C)``: the scan's input (L, d_ssm), step (L, heads), B and C (L, n_groups, d_state).
    """
    heads, G, N, d_ssm, d_mlp = sizes["heads"], sizes["n_groups"], sizes["d_state"], sizes["channels"], \
        sizes.get("d_mlp", 0)
    proj = X @ t["in_proj.weight"].T + (t["in_proj.bias"] if "in_proj.bias" in t else 0.0)
    if multipliers is not None:
        m = np.ones(proj.shape[1])
        o = 2 * d_mlp
        m[o:o + d_ssm] *= multipliers[0]
        m[o + d_ssm:o + 2 * d_ssm] *= multipliers[1]
        m[o + 2 * d_ssm:o + 2 * d_ssm + G * N] *= multipliers[2]
        m[o + 2 * d_ssm + G * N:o + 2 * d_ssm + 2 * G * N] *= multipliers[3]
        m[o + 2 * d_ssm + 2 * G * N:] *= multipliers[4]
        proj = proj * m
    o = 2 * d_mlp
    xBC = proj[:, o + d_ssm:o + 2 * d_ssm + 2 * G * N]
    dt = proj[:, o + 2 * d_ssm + 2 * G * N:]
    xBC = _silu(_causal_conv(xBC, t["conv1d.weight"], t.get("conv1d.bias")))
    x, B, C = xBC[:, :d_ssm], xBC[:, d_ssm:d_ssm + G * N], xBC[:, d_ssm + G * N:]
    dt = _softplus(dt + t["dt_bias"])
    lo, hi = dt_limit
    if lo > 0.0 or hi < math.inf:
        dt = np.clip(dt, lo, hi)
    return x, dt, B.reshape(-1, G, N), C.reshape(-1, G, N)


def _mamba1_rows(A, delta, B, C, D):
    """Rows ``diag(W_ij)`` of the selective scan, pairs (i, j) with j <= i in order; and the block norms."""
    L = delta.shape[0]
    pairs = [(i, j) for i in range(L) for j in range(i + 1)]
    index = {pair: r for r, pair in enumerate(pairs)}
    decay = np.exp(delta[:, :, None] * A[None])
    rows = np.zeros((len(pairs), A.shape[0]))
    for j in range(L):
        g = delta[j][:, None] * B[j][None, :]
        rows[index[(j, j)]] = g @ C[j] + (D if D is not None else 0)
        for i in range(j + 1, L):
            g = decay[i] * g
            rows[index[(i, j)]] = g @ C[i]
    return rows, index


def _mamba2_rows(A, dt, B, C, D, heads, headdim, G):
    L = dt.shape[0]
    pairs = [(i, j) for i in range(L) for j in range(i + 1)]
    index = {pair: r for r, pair in enumerate(pairs)}
    group = np.arange(heads) // max(1, heads // G)
    logs = np.cumsum(dt * A[None], axis=0)
    per_channel = D is not None and D.size == heads * headdim and headdim > 1
    rows = np.zeros((len(pairs), heads * (headdim if per_channel else 1)))
    for r, (i, j) in enumerate(pairs):
        cb = np.einsum("gn,gn->g", C[i], B[j])[group]
        w = np.exp(logs[i] - logs[j]) * dt[j] * cb
        row = np.repeat(w, headdim) if per_channel else w
        if i == j and D is not None:
            row = row + (D if per_channel else D.reshape(heads, -1)[:, 0])
        rows[r] = row
    return rows, index, per_channel


def _step_rate_certified(A_log, dt_min):
    """An exact upper bound (a Fraction) of ``max_h exp(-dt_min exp(A_log_h))``, by python-flint's ball arithmetic
    on the stored (dyadic) values: every step of every input decays each head by at least this factor."""
    from fractions import Fraction

    import flint

    smallest = Fraction(float(np.min(A_log)))
    step = Fraction(float(dt_min))
    ball = (-(flint.arb(step.numerator) / step.denominator) *
            (flint.arb(smallest.numerator) / smallest.denominator).exp()).exp()
    man, exp = ball.upper().man_exp()  # the ball's upper end, an exact binary number
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def _highway_from_profile(profile, c, rate, what):
    """The numeric crossover from a measured distance profile: the least d with ``K r^d < c`` for the envelope
    ``K = max_d profile[d] r^-d`` (extrapolated beyond the input's length)."""
    if rate is None or not profile:
        return None
    if rate <= 0:
        return 1
    with np.errstate(divide="ignore", over="ignore"):
        K = max(p / rate ** d for d, p in enumerate(profile) if p > 0) if any(p > 0 for p in profile) else 0.0
    if K == 0.0:
        return 1
    if rate >= 1.0:
        return None
    d = max(1, math.ceil(math.log(c / K) / math.log(rate))) if K > c else 1
    while d > 1 and K * rate ** (d - 1) < c:
        d -= 1
    while K * rate ** d >= c:
        d += 1
    return d


def attention_bound(n):
    """The attention highway's lower bound ``e^beta / (e^beta + n - 1)`` with ``beta = ceil(ln n)`` (the certified
    construction of ``symssm gradient``, here in floats): a single head carries at least this much gradient at
    every distance of a length-n sequence.

    Parameters
    ----------
    n : int
        The sequence length.

    Returns
    -------
    float

    Examples
    --------
    >>> round(attention_bound(1000), 6)
    0.523294
    """
    beta = max(1, math.ceil(math.log(max(n, 2))))
    return math.exp(beta) / (math.exp(beta) + n - 1)


def hankel_singular_values(factors):
    """Hankel singular values of a diagonal system from its mode factors: ``[(lam (K,), Cm (p, K), Bm (K, m),
    real)]``, one tuple per independent block (S4D: per channel), the union over blocks, largest first.  With
    ``real``, the lags are the real part and the conjugate modes are added.

    Parameters
    ----------
    factors : list of tuple
        ``(lam, Cm, Bm, real)`` per independent block.

    Returns
    -------
    ndarray
        The singular values of the Hankel operator (past inputs to future outputs), largest first.

    Examples
    --------
    >>> import numpy as np
    >>> s = hankel_singular_values([(np.array([0.5]), np.ones((1, 1)), np.ones((1, 1)), False)])
    >>> round(float(s[0]), 6)   # 1 / (1 - 0.25) * 0.5: the Hankel matrix [0.5^(i+j+1)] has rank one
    0.666667
    """
    out = []
    for lam, Cm, Bm, real in factors:
        lam = np.asarray(lam, dtype=complex)
        Cm = np.asarray(Cm, dtype=complex)
        Bm = np.asarray(Bm, dtype=complex)
        if real:
            lam = np.concatenate([lam, lam.conj()])
            Cm = np.concatenate([Cm / 2, Cm.conj() / 2], axis=1)
            Bm = np.concatenate([Bm, Bm.conj()], axis=0)
        den = 1.0 - lam[:, None] * lam.conj()[None, :]
        P = (lam[:, None] * lam.conj()[None, :]) * (Bm @ Bm.conj().T) / den
        Q = (Cm.conj().T @ Cm) / den.T
        def root(M):
            w, V = np.linalg.eigh((M + M.conj().T) / 2)
            return V * np.sqrt(np.clip(w, 0.0, None))
        s = np.linalg.svd(root(Q).conj().T @ root(P), compute_uv=False)
        out.extend(float(v) for v in s)
    return np.sort(np.array(out))[::-1]


def _hankel_factors(layer, conventions=None):
    """Mode factors of an S4D, SSMKernelDiag, S5 or LRU layer for :func:`hankel_singular_values`."""
    form, info = layer_modal_form(layer, conventions)
    t, kind = layer.tensors, layer.kind
    if kind == "s5":
        Lam = t["Lambda_re"] + 1j * t["Lambda_im"]
        step = np.exp(t["log_step"])
        conv = conventions or Conventions()
        if conv.discretization == "zoh":
            lam, Bbar = np.exp(Lam * step), _zoh_weight(Lam, Lam * step, layer.name)[:, None] * _complex(t["B"])
        else:
            lam, back = _bilinear(Lam * step, layer.name)
            Bbar = (back * step)[:, None] * _complex(t["B"])
        return [(lam, 2 * _complex(t["C"]), Bbar, True)]
    if kind == "lru":
        lam = np.exp(-np.exp(t["nu_log"]) + 1j * np.exp(t["theta_log"]))
        B = (t["B_re"] + 1j * t["B_im"]) * np.exp(t["gamma_log"])[:, None]
        return [(lam, t["C_re"] + 1j * t["C_im"], B, True)]
    # S4D and SSMKernelDiag: input channel by input channel (lag entries e with e mod H = h), a weight per mode
    H = layer.dims["H"]
    if form.kind == "single":
        W = np.zeros((form.K, form.E), dtype=complex)
        W[np.arange(form.K), np.asarray(form.entry)] = np.asarray(form.weight)
    else:
        W = np.asarray(form.W)
    out = []
    for h in range(H):
        cols = np.arange(h, W.shape[1], H)
        modes = np.flatnonzero(np.any(W[:, cols] != 0, axis=1))
        if modes.size:
            out.append((form.lam[modes], W[np.ix_(modes, cols)].T, np.ones((modes.size, 1)), form.real))
    return out


def _lti_highway(layer, out, tolerance, conventions, n):
    """Hankel singular values, the decay rate and the gradient bound of a time-invariant layer."""
    form, _ = layer_modal_form(layer, conventions)
    rate = float(np.max(np.abs(form.lam))) if form.K else 0.0
    if form.kind == "single":
        K = float(np.sum(np.abs(form.weight)))
    elif form.kind == "dense":
        K = float(np.sum(np.linalg.norm(form.W, axis=1)))
    else:
        K = float(np.sum(np.linalg.norm(form.outer[0], axis=0) * np.linalg.norm(form.outer[1], axis=1)))
    K *= 1.0 if not form.real else 1.0
    c = attention_bound(n)
    highway = {"decay_rate": rate, "decay_constant": K,
               "decay": "for every input (time-invariant): ||L_d||_F <= K r^d with r the largest |lambda| and K the "
                        "sum of the modes' weight norms (floats: numeric)",
               "status": "numeric", "attention_bound": c}
    cross = None
    if K == 0.0:
        cross = 1
    elif rate < 1.0:
        cross = max(1, math.ceil(math.log(c / K) / math.log(rate))) if K > c else 1
        while cross > 1 and K * rate ** (cross - 1) < c:
            cross -= 1
        while K * rate ** cross >= c:
            cross += 1
    highway["crossover_distance"] = cross
    modes = form.K * (2 if form.real else 1)
    if modes <= MAX_HANKEL_MODES:
        factors = _hankel_factors(layer, conventions)
        s = hankel_singular_values(factors)
        highway["state_dimension"] = int(sum(f[0].size * (2 if f[3] else 1) for f in factors))
        top = float(s[0]) if s.size and s[0] > 0 else 0.0
        rel = [float(v) / top for v in s[:KEPT]] if top else []
        effective = int(np.sum(s > tolerance * top)) if top else 0
        highway.update(hankel_singular_values=rel, hankel_largest=top, effective_state=effective,
                       effective_state_note=f"Hankel singular values above tolerance x the largest ({tolerance:g}): "
                                            "the state the layer's operator uses on unbounded sequences")
    else:
        highway.update(hankel_singular_values=None, effective_state=None,
                       effective_state_note=f"not computed: {modes} modes (more than {MAX_HANKEL_MODES})")
    return highway


def _short_tensors(entry, ckpt, wanted=None):
    keys = {s: k for s, k in entry.keys.items() if wanted is None or s in wanted}
    data = ckpt.read(list(keys.values()))
    return {s: np.asarray(data[k], dtype=np.float64) for s, k in keys.items()}


def _group_names(t):
    """Hymba's per-group lists (``A_log.0``, ``x_proj.0.weight``): group 0's tensors under the plain names."""
    out = {}
    for s, v in t.items():
        m = s.replace(".0.", ".").replace("A_log.0", "A_log").replace("D.0", "D") if ".0" in s else s
        if s.endswith(".0") and s[:-2] in ("A_log", "D"):
            m = s[:-2]
        out.setdefault(m, v)
    return out


def _checked(entry, t, kind):
    """The layer's tensors with the scan's checked by :func:`~symssm.sources.checkpoints.check_layer` and the
    projections' shapes and finiteness checked here (one-line refusals naming the tensor)."""
    from ..sources.checkpoints import CheckpointLayer, _expect, _real

    core = {"mamba": ("A_log", "x_proj.weight", "dt_proj.weight", "dt_proj.bias", "D"),
            "mamba2": ("A_log", "dt_bias", "D")}[kind]
    layer = CheckpointLayer(entry.name, kind, {k: v for k, v in t.items() if k in core})
    checked = check_layer(layer)
    out = dict(t)
    out.update(checked.tensors)
    for k in t:
        if k not in core:
            out[k] = _real(CheckpointLayer(entry.name, kind, t), k)
    width = checked.dims["H"] if kind == "mamba" else None
    if kind == "mamba" and "in_proj.weight" in out:
        if out["in_proj.weight"].ndim != 2 or out["in_proj.weight"].shape[0] < 2 * width:
            raise InputError(f"{entry.name}: in_proj.weight has shape {out['in_proj.weight'].shape}, expected "
                             f"(at least 2 x {width}, d_model)")
        if "conv1d.weight" in out:
            _expect(layer, "conv1d.weight", out["conv1d.weight"], (width, 1, None), (width, None))
    if kind == "mamba2" and "conv1d.weight" in out and entry.sizes.get("channels") and entry.sizes.get("d_state"):
        conv = entry.sizes["channels"] + 2 * entry.sizes["n_groups"] * entry.sizes["d_state"]
        _expect(layer, "conv1d.weight", out["conv1d.weight"], (conv, 1, None), (conv, None))
    return out


def _analyse_mamba1(entry, ckpt, model_input, config, tolerance, lag_rank_tol):
    t = _checked(entry, _group_names(_short_tensors(entry, ckpt)), "mamba")
    groups = entry.sizes.get("groups", 1)
    A = -np.exp(t["A_log"])
    di, N = A.shape
    D = t.get("D")
    out = {"channels": int(di), "state": int(N), "dt_rank": entry.sizes.get("dt_rank"),
           "D": "present" if D is not None else "absent", "quantity": "interaction-rank"}
    if groups > 1:
        out["groups_note"] = f"{groups} per-group parameter lists; group 0 is analysed (the others are listed)"
    if "in_proj.weight" in t and "conv1d.weight" in t:
        X = model_input.hidden_state(t["in_proj.weight"].shape[1])
        Xn, norm = _pre_norm(entry, ckpt, X, config)
        norms = {}
        for s, v in t.items():
            low = s.lower()
            for tag in ("dt", "b", "c"):
                if low == f"{tag}_layernorm.weight":
                    norms[tag] = v
        _, delta, B, C = mamba1_forward(t, Xn, norms, _eps(config))
        what = (f"the selective scan of the layer as the model computes it on {model_input.describe()['kind']} "
                f"input of {delta.shape[0]} tokens (pre-norm {norm or 'none found'}; in_proj, conv1d + SiLU, x_proj"
                + (", " + ", ".join(f"{k}_layernorm" for k in sorted(norms)) if norms else "")
                + ", dt_proj + softplus from the checkpoint)")
        out["input"] = "model"
        out["norms_applied"] = sorted(f"{k}_layernorm" for k in norms)
    else:
        L = model_input.length
        rng = np.random.default_rng(INPUT_SEED)
        u = rng.standard_normal((L, di))
        proj = u @ t["x_proj.weight"].T
        r = proj.shape[1] - 2 * N
        delta = _softplus(proj[:, :r] @ t["dt_proj.weight"].T + t["dt_proj.bias"])
        B, C = proj[:, r:r + N], proj[:, r + N:]
        what = (f"the selective scan on a seeded input of {L} tokens at the scan's input (no in_proj / conv1d in "
                "the checkpoint: the scan's input drawn standard normal)")
        out["input"] = "scan (seeded)"
    rows, index = _mamba1_rows(A, delta, B, C, D)
    out.update(tokens=int(delta.shape[0]), **_interaction_fields(rows, tolerance, lag_rank_tol))
    out["note"] = (f"numerical interaction rank of {what}; B, C and the step depend on the input, so no head count "
                   "for every input is claimed")
    L = delta.shape[0]
    rate = float(np.max(np.exp(delta[:, :, None] * A[None])))
    prof = _distance_profile(lambda i, j: float(np.linalg.norm(rows[index[(i, j)]])), L)
    return out, rate, prof, None


def _dt_limit(config):
    from ..sources.architectures import config_value

    lim = config_value(config, "time_step_limit", "dt_limit", "mamba_dt_limit")
    try:
        lo, hi = float(lim[0]), float(lim[1])
    except (TypeError, ValueError, IndexError, KeyError):
        return (0.0, math.inf), False
    return (lo, hi), True


def _analyse_mamba2(entry, ckpt, model_input, config, tolerance, lag_rank_tol):
    from ..sources.architectures import config_value

    sizes = entry.sizes
    t = _short_tensors(entry, ckpt, {"A_log", "dt_bias", "D", "in_proj.weight", "in_proj.bias", "conv1d.weight",
                                     "conv1d.bias"})
    t = _checked(entry, t, "mamba2")
    heads = int(t["A_log"].size)
    A = -np.exp(t["A_log"])
    D = t.get("D")
    (lo, hi), recorded = _dt_limit(config)
    out = {"heads": heads, "headdim": sizes.get("headdim"), "channels": sizes.get("channels"),
           "n_groups": sizes.get("n_groups"), "n_groups_from": sizes.get("n_groups_from"),
           "state": sizes.get("d_state"), "D": "present" if D is not None else "absent",
           "dt_limit": [lo, hi if hi < math.inf else "inf"],
           "dt_limit_from": "config.json" if recorded else "the reference code's default (0, inf)",
           "quantity": "interaction-rank"}
    if sizes.get("inconsistent"):
        raise InputError(f"{entry.name}: {sizes['inconsistent']}")
    if "in_proj.weight" in t and "conv1d.weight" in t and sizes.get("d_state"):
        mult = config_value(config, "ssm_multipliers")
        mult = [float(m) for m in mult] if isinstance(mult, (list, tuple)) and len(mult) == 5 else None
        scale = config_value(config, "ssm_in_multiplier")
        X = model_input.hidden_state(t["in_proj.weight"].shape[1])
        Xn, norm = _pre_norm(entry, ckpt, X, config)
        if scale is not None:
            Xn = Xn * float(scale)
        _, dt, B, C = mamba2_forward(t, Xn, sizes, (lo, hi), mult)
        G = sizes["n_groups"]
        out.update(_whole_mamba2(entry, ckpt, config, Xn / float(scale) if scale is not None else Xn, tolerance,
                                 lag_rank_tol))
        what = (f"the SSD scan of the layer as the model computes it on {model_input.describe()['kind']} input of "
                f"{dt.shape[0]} tokens (pre-norm {norm or 'none found'}; in_proj, conv1d + SiLU, B and C per group, "
                f"softplus(dt + dt_bias)" + (f" clamped to [{lo:g}, {hi:g}]" if recorded and (lo > 0 or hi < math.inf)
                                            else "") + (", Falcon-H1's multipliers" if mult or scale else "") + ")")
        out["input"] = "model"
    else:
        L = model_input.length
        rng = np.random.default_rng(INPUT_SEED)
        N = sizes.get("d_state") or 128
        G = 1
        B, C = rng.standard_normal((L, 1, N)), rng.standard_normal((L, 1, N))
        dt = _softplus(rng.standard_normal((L, heads)) + t["dt_bias"])
        out["state"] = N
        out["state_assumed"] = not sizes.get("d_state")
        what = (f"the SSD scan on a seeded input of {L} tokens (no in_proj / conv1d in the checkpoint: B_t, C_t and "
                f"dt_t drawn standard normal, d_state {N}{'' if sizes.get('d_state') else ' assumed'})")
        out["input"] = "scan (seeded)"
    headdim = sizes.get("headdim") or 1
    rows, index, per_channel = _mamba2_rows(A, dt, B, C, D, heads, headdim, G)
    out.update(tokens=int(dt.shape[0]), **_interaction_fields(rows, tolerance, lag_rank_tol))
    out["note"] = (f"numerical interaction rank of {what}; per head W_ij is a multiple of the identity on its "
                   f"{headdim} channels; B, C and the step depend on the input, so no head count for every input is "
                   "claimed")
    L = dt.shape[0]
    scale = math.sqrt(headdim) if not per_channel else 1.0
    rate = float(np.max(np.exp(dt * A[None])))
    prof = _distance_profile(lambda i, j: float(np.linalg.norm(rows[index[(i, j)]])) * scale, L)
    certified = None
    if recorded and lo > 0.0:
        r = _step_rate_certified(t["A_log"], lo)
        certified = {"rate": str(r), "rate_float": float(r),
                     "statement": f"for every input, every step decays every head's state by at least the factor "
                                  f"exp(-dt_min exp(min A_log)) <= {float(r):.6g} (dt >= dt_min = {lo:g}, the step's "
                                  "lower limit): the gradient through this layer across distance d is at most "
                                  "r^d times the input-dependent |C_i . B_j| dt_j",
                     "proof": "python-flint ball arithmetic on the stored parameters (exact dyadic rationals); no "
                              "certificate file"}
    return out, rate, prof, certified


# ---------------------------------------------------------------- linear-recurrence layers as the model computes them

#: Most float entries of a linear-recurrence layer's block stack (its n(n+1)/2 blocks W_ij of p x m) the report
#: forms (8 bytes each: 160 MB); beyond, the layer is listed as not analysed at that input length.
MAX_RECURRENT_ENTRIES = 20_000_000
#: Most parameters of a linear-recurrence layer the report reads as its layer kind (each evaluated quantity is held
#: as an exact dyadic rational there); beyond, the layer is listed as not analysed.
MAX_RECURRENT_PARAMETERS = 1_000_000
def _recurrent_families():
    """``{map kind: (families, ...)}``: the map's linear-recurrence kinds are the layer kinds' names, and each is
    read by the :mod:`~symssm.sources.recurrent_checkpoints` families of that layer kind."""
    from ..sources.architectures import RECURRENCE_KINDS
    from ..sources.recurrent_checkpoints import FAMILIES

    out = {}
    for family, row in FAMILIES.items():
        if row.name in RECURRENCE_KINDS:
            out[row.name] = out.get(row.name, ()) + (family,)
    return out


#: The families of :mod:`~symssm.sources.recurrent_checkpoints` each layer-map kind may be read as (Gated
#: DeltaNet: fla's and Qwen3-Next's; the others one each).
RECURRENT_FAMILIES = _recurrent_families()
#: ``config.json`` keys a family reader takes (the rest of a hybrid's config is not passed on).
_RECURRENT_KEYS = ("num_heads", "head_dim", "norm_eps", "gate_logit_normalizer", "allow_neg_eigval", "feature_map",
                   "clamp_min", "gate_fn", "qk_activation", "qk_norm", "lower_bound", "linear_num_key_heads",
                   "linear_key_head_dim", "linear_value_head_dim", "rms_norm_eps", "gate_soft_cap")
#: Heads' sizes a hybrid's top-level config may give for another layer (tried without when they do not fit).
_HEAD_KEYS = ("num_heads", "head_dim")


class _NotAnalysed(Exception):
    """A layer listed with its sizes and the one-line reason it is not analysed."""


def _recurrent_config(config):
    """The keys of a family reader from ``config.json``: Kimi Linear's ``linear_attn_config`` and fla's top level
    (a nested ``text_config`` too); heads of a linear-attention block first from ``linear_attn_config``."""
    out = {}
    for source in (config.get("text_config"), config, config.get("linear_attn_config")):
        if isinstance(source, dict):
            out.update({k: source[k] for k in _RECURRENT_KEYS if source.get(k) is not None})
    return out


def recurrent_cost(n, p, m):
    """Float entries of a linear-recurrence layer's block stack on n tokens (``n(n+1)/2`` blocks of ``p x m``).

    Parameters
    ----------
    n, p, m : int
        Tokens, outputs, inputs.

    Returns
    -------
    int

    Examples
    --------
    >>> recurrent_cost(32, 64, 64)   # 528 blocks of 64 x 64: 2.2 M floats, 17 MB
    2162688
    """
    return n * (n + 1) // 2 * p * m


def _longest_input(p, m):
    """The most tokens whose block stack fits :data:`MAX_RECURRENT_ENTRIES` (0 when not even one block fits)."""
    L = 0
    while recurrent_cost(L + 1, p, m) <= MAX_RECURRENT_ENTRIES:
        L += 1
    return L


def _transition_rate(layer):
    """The largest spectral norm of a per-token state transition ``M_i = diag(e_i) + u_i w_i^T`` of any head on
    the input (float64): the factor by which one step can at most carry the state forward."""
    from ..sources.recurrent import head_cores

    rate = 0.0
    for cores in head_cores(layer, float):
        for e, u, w, *_ in cores:
            e = np.asarray(e, dtype=np.float64)
            if u is None:
                rate = max(rate, float(np.max(np.abs(e))) if e.size else 0.0)
            else:
                M = np.diag(e) + np.outer(np.asarray(u, dtype=np.float64), np.asarray(w, dtype=np.float64))
                rate = max(rate, float(np.linalg.norm(M, 2)))
    return rate


def _size_refusal(n, p, m, parameters):
    """The reason a layer's blocks are not formed at n tokens (None when they fit the limits)."""
    cost = recurrent_cost(n, p, m)
    if cost <= MAX_RECURRENT_ENTRIES and parameters <= MAX_RECURRENT_PARAMETERS:
        return None
    if parameters > MAX_RECURRENT_PARAMETERS:
        return (f"too large: {parameters} parameters, more than the {MAX_RECURRENT_PARAMETERS} read as a layer "
                "kind")
    longest = _longest_input(p, m)
    return (f"too large at n = {n} ({n * (n + 1) // 2} blocks W_ij of {p} x {m} would take {cost * 8 / 1e9:.3g} GB, "
            f"more than the limit of {MAX_RECURRENT_ENTRIES} floats)"
            + (f", try --input-length {longest}" if longest else ": not even one block fits the limit"))


def _heads_rank(layer, tolerance, lag_rank_tol):
    """The numerical rank of the heads' coefficient vectors ``(c^h_ij)_h`` over the pairs j <= i: the operator
    from the values to the heads' outputs (each head's block is ``c^h_ij I``), the quantity of a Mamba-2 layer's
    scan rank; at most the number of heads."""
    from ..sources.recurrent import coefficients, head_cores

    c = np.array([coefficients(h, 0.0) for h in head_cores(layer, float)], dtype=np.float64)
    n = layer.n
    rows = np.array([c[:, i, j] for i in range(n) for j in range(i + 1)])
    fields = _interaction_fields(rows, tolerance, lag_rank_tol)
    return {"heads_interaction_rank": fields["numerical_interaction_rank"], "heads_interaction_gap": fields["gap"],
            "heads_interaction_note": "numerical rank of the heads' coefficients (c^h_ij)_h over the pairs j <= i: "
                                      "the map from the values v_j to the heads' outputs o_i (per head c^h_ij I), "
                                      "before the norm, gate and output projection; at most the number of heads"}


def _whole_mamba2(entry, ckpt, config, Xn, tolerance, lag_rank_tol):
    """A Mamba-2 layer from its input to its output (in_proj's value rows, conv1d, the scan, the gated norm,
    out_proj) read as the Mamba-2 SSD layer kind on the same input: ``layer_interaction_rank`` and its gap, or a
    note saying why it is not formed."""
    from ..sources.recurrent_checkpoints import recurrent_layer
    from .recurrent import recurrent_rows

    shapes = {s: tuple(ckpt.shape(k)) for s, k in entry.keys.items()}
    if "out_proj.weight" not in shapes:
        return {"layer_interaction_note": "not formed: no out_proj in the checkpoint"}
    n, (p, m) = Xn.shape[0], (shapes["out_proj.weight"][0], shapes["in_proj.weight"][1])
    why = _size_refusal(n, p, m, sum(int(np.prod(s)) for s in shapes.values()))
    if why:
        return {"layer_interaction_note": f"not formed: {why}"}
    try:
        reading = recurrent_layer(_short_tensors(entry, ckpt), "mamba2", config=config, X=Xn, name=entry.name)
    except InputError as exc:
        return {"layer_interaction_note": f"not formed: {str(exc)[:200]}"}
    fields = _interaction_fields(recurrent_rows(reading.layer), tolerance, lag_rank_tol)
    return {"layer_interaction_rank": fields["numerical_interaction_rank"], "layer_interaction_gap": fields["gap"],
            "layer_interaction_note": "numerical rank of the whole layer's blocks W_ij(X) (d_model x d_model: "
                                      "in_proj's x rows, conv1d, the scan, the gated norm, out_proj) on the same "
                                      "input, the quantity reported for the linear-recurrence layers"}


def _analyse_recurrent(entry, ckpt, model_input, config, tolerance, lag_rank_tol):
    """A linear-recurrence layer read as its layer kind (:func:`~symssm.sources.recurrent_checkpoints.recurrent_layer`)
    on the report's input after its pre-norm: the numerical interaction rank of its blocks ``W_ij(X)`` (p x m, the
    whole layer from its input to its output), the heads' sizes, and the highway entry.

    Raises
    ------
    _NotAnalysed
        With the reason (an unread variant or setting, a layer too large at this input length).
    InputError
        If a tensor has non-finite entries.
    """
    from ..errors import LimitError
    from ..sources.recurrent_checkpoints import _hidden, recognise, recurrent_layer
    from .recurrent import recurrent_rows

    names = list(entry.keys)
    family = recognise(names)
    if family not in RECURRENT_FAMILIES.get(entry.kind, ()):
        raise _NotAnalysed(f"its parameter names are a {entry.label} layer's, but not those of a layout read as "
                           "its layer kind (" + ", ".join(RECURRENT_FAMILIES.get(entry.kind, ())) + ")")
    shapes = {s: tuple(ckpt.shape(k)) for s, k in entry.keys.items()}
    parameters = sum(int(np.prod(s)) for s in shapes.values())
    first = {"fla-gla": "q_proj.weight", "fla-retnet": "q_proj.weight", "fla-deltanet": "q_proj.weight",
             "fla-gated-deltanet": "q_proj.weight", "qwen3-next": "in_proj_qkvz.weight", "fla-kda": "q_proj.weight",
             "fla-rwkv6": "r_proj.linear.weight", "fla-rwkv7": "r_proj.weight",
             "xlstm": "q.weight" if "q.weight" in shapes else "qkv_opreact.weight"}[family]
    if first not in shapes or len(shapes[first]) != 2:
        raise _NotAnalysed(f"its input projection {first} is missing or not a matrix")
    m = int(shapes[first][1])
    out_w = shapes.get("o_proj.weight") or shapes.get("out_proj.weight")
    p = int(out_w[0]) if out_w else m
    n = model_input.length
    why = _size_refusal(n, p, m, parameters)
    if why:
        raise _NotAnalysed(why)
    t = _short_tensors(entry, ckpt)
    for s, v in t.items():
        if not np.all(np.isfinite(v)):
            raise InputError(f"{entry.name}: tensor {s} has non-finite entries")
    X = model_input.hidden_state(_hidden(t, family))
    Xn, norm = _pre_norm(entry, ckpt, X, config)
    settings = _recurrent_config(config)
    v_first = None
    if family == "fla-rwkv7" and "v_lora.lora.0.weight" in t:
        v_first = np.zeros((n, t["v_proj.weight"].shape[0]))  # a term free of this layer's input: left out of W
    try:
        try:
            reading = recurrent_layer(t, family, config=settings, X=Xn, name=entry.name, v_first=v_first)
        except (InputError, ValueError) as exc:
            if not any(k in settings for k in _HEAD_KEYS) or "config" not in str(exc):
                raise
            # a hybrid's top-level num_heads / head_dim may be another layer's: the tensors' own heads instead
            reading = recurrent_layer(t, family, config={k: v for k, v in settings.items() if k not in _HEAD_KEYS},
                                      X=Xn, name=entry.name, v_first=v_first)
    except LimitError as exc:
        raise _NotAnalysed(f"beyond a layer kind's limits ({str(exc)[:160]})") from None
    except InputError as exc:
        raise _NotAnalysed(f"not read as its layer kind: {str(exc)[:200]}") from None
    layer = reading.layer
    rows = recurrent_rows(layer)
    heads = layer.param("heads")
    Dv = len(layer.param("V"))
    res = {"family": family, "heads": len(heads), "key_head_dim": layer.param("dk"),
           "value_head_dim": Dv // len(heads), "state": len(heads) * layer.param("dk") * (Dv // len(heads)),
           "state_note": "heads x d_k x d_v numbers of matrix state", "inputs": layer.m, "outputs": layer.p,
           "quantity": "interaction-rank", "input": "model", "tokens": n, "pre_norm": norm,
           "wrappers": [w for w in ("shift", "conv", "value_gate", "norm", "gate", "out")
                        if layer.param(w) is not None],
           "reading_notes": list(reading.notes)}
    res.update(_interaction_fields(rows, tolerance, lag_rank_tol))
    res.update(_heads_rank(layer, tolerance, lag_rank_tol))
    res["note"] = (f"numerical interaction rank of the {entry.label} layer as the model computes it on "
                   f"{model_input.describe()['kind']} input of {n} tokens (pre-norm {norm or 'none found'}; the "
                   f"{family} reader: queries, keys, decays, gates and norms evaluated at that input, the layer "
                   "linear along its value path, bias terms left out): dim span of its blocks W_ij(X) (p x m) at "
                   "the tolerance; they depend on the input, so no head count for every input is claimed")
    index = {}
    for i in range(n):
        for j in range(i + 1):
            index[(i, j)] = len(index)
    norms = np.linalg.norm(rows, axis=1) if rows.size else np.zeros(0)
    prof = _distance_profile(lambda i, j: float(norms[index[(i, j)]]), n)
    rate = _transition_rate(layer)
    return res, rate, prof


def _value_rank(Wv, Wo, rtol=VALUE_RANK_RTOL):
    """Numerical rank of ``W_O^h W_V^h`` (d x d) from its two thin factors, with its relative singular values."""
    from .modal import _one_blas_thread

    if Wv.size == 0 or Wo.size == 0:
        return 0, []
    with _one_blas_thread(Wv.shape[0]):
        return _value_rank_now(Wv, Wo, rtol)


def _value_rank_now(Wv, Wo, rtol):
    _, Rv = np.linalg.qr(Wv.T)  # W_V^T = Q R
    _, Ro = np.linalg.qr(Wo)
    s = np.linalg.svd(Ro @ Rv.T, compute_uv=False)
    if not s.size or s[0] == 0:
        return 0, []
    return int(np.sum(s > rtol * s[0])), [float(v / s[0]) for v in s[:8]]


def _analyse_attention(entry, ckpt, config, parent=None):
    sizes = dict(entry.sizes)
    heads, kv, hd = sizes.get("heads"), sizes.get("kv_heads"), sizes.get("head_dim")
    out = {"heads": heads, "kv_heads": kv, "head_dim": hd, "quantity": "value-map ranks"}
    Wv = Wo = None
    vhd = hd
    if (parent is not None or sizes.get("packed")) and sizes.get("v_rows"):  # Hymba, state-spaces MHA: packed
        keys = (parent or entry).keys
        kin = keys.get("in_proj.weight") or keys.get("in_proj.0.weight")
        kout = keys.get("out_proj.weight") or keys.get("out_proj.0.weight")
        data = ckpt.read([kin, kout])
        start = sizes["q_rows"] + sizes["k_rows"]
        Wv = data[kin][start:start + sizes["v_rows"]]
        Wo = data[kout]
        vhd = sizes.get("value_head_dim")
    elif "v_proj.weight" in entry.keys and "o_proj.weight" in entry.keys:
        data = _short_tensors(entry, ckpt, {"v_proj.weight", "o_proj.weight"})
        Wv, Wo = data["v_proj.weight"], data["o_proj.weight"]
    elif "c_attn.weight" in entry.keys and "c_proj.weight" in entry.keys and heads and hd:  # GPT-2's Conv1D
        data = _short_tensors(entry, ckpt, {"c_attn.weight", "c_proj.weight"})
        width = heads * hd
        Wv, Wo = data["c_attn.weight"][:, 2 * width:3 * width].T, data["c_proj.weight"].T
    elif "self.value.weight" in entry.keys and "output.dense.weight" in entry.keys:  # BERT's names
        data = _short_tensors(entry, ckpt, {"self.value.weight", "output.dense.weight"})
        Wv, Wo = data["self.value.weight"], data["output.dense.weight"]
    if Wv is None:
        out["value_ranks"] = None
        out["value_ranks_note"] = "not computed: the value and output projections are not separate tensors here"
    elif not heads or not vhd:
        rank, sv = _value_rank(Wv, Wo)
        out["value_ranks"] = None
        out["value_map_rank"] = rank
        out["value_ranks_note"] = ("per-head ranks need the number of heads (config.json); the rank of the whole "
                                   "W_O W_V is given")
    else:
        group = max(1, heads // max(1, kv or heads))
        ranks = []
        for h in range(heads):
            g = h // group
            r, _ = _value_rank(Wv[g * vhd:(g + 1) * vhd], Wo[:, h * vhd:(h + 1) * vhd])
            ranks.append(r)
        out["value_ranks"] = ranks
        out["value_ranks_note"] = (f"numerical rank of each head's W_O^h W_V^h (singular values above {VALUE_RANK_RTOL:g}"
                                   " x the largest; floats: numeric)")
    out["numerical"] = True
    return out


def analyse_model(path, n=1024, *, tolerance=DEFAULT_TOL, lag_rank_tol=DEFAULT_LAG_RANK_TOL, conventions=None,
                  tokens=None, length=MAMBA_TOKENS, progress=None, ckpt=None, entries=None):
    """The per-model report: every layer of a checkpoint in order, each as the model computes it, and the highway
    map (a JSON-ready dict).  Tensors are read one layer at a time (peak memory: the largest layer).

    Parameters
    ----------
    path : str or os.PathLike
        A weight file or a folder with ``config.json`` (:class:`~symssm.sources.checkpoints.Checkpoint`).
    n : int
        Sequence length of the time-invariant layers' head counts and of the attention highway's bound.
    tolerance : float
        The relative error of the eps-head counts and interaction ranks, and of the effective state.
    tokens : list of int, optional
        Token ids: the selective and linear-recurrence layers' input is their embedding (else the seeded synthetic
        hidden state, :func:`~symssm.sources.recurrent_checkpoints.seeded_input`).
    length : int
        Tokens of the synthetic input.
    progress : callable, optional
        ``progress(name, done, total)`` before each layer is read (``done`` layers finished), and
        ``progress(None, total, total)`` at the end.

    Returns
    -------
    dict
        ``{"file", "config", "input", "n", "tolerance", "layers": [...], "highway": {...}, "skipped": [...]}``.

    Raises
    ------
    InputError
        If the file cannot be read, no layer is recognised, or a recognised layer's tensors are malformed.
    """
    from ..sources.architectures import LTI_KINDS, RECURRENCE_KINDS, model_map
    from ..sources.checkpoints import CheckpointLayer, Checkpoint

    tolerance = check_tolerance(tolerance)
    lag_rank_tol = check_tolerance(lag_rank_tol, "lag_rank_tol")
    ckpt = ckpt or Checkpoint(path)
    config = ckpt.config
    entries = entries if entries is not None else model_map({k: ckpt.shape(k) for k in ckpt.names}, config)
    if not any(e.kind not in ("unrecognised", "embedding", "norm", "output", "buffer") and
               not (e.kind in LTI_KINDS and e.reason)
               for e in entries):
        problems = [f"{e.name}: {e.reason}" for e in entries if e.kind in LTI_KINDS and e.reason]
        if problems:
            raise InputError(f"{path}: no complete layer: " + "; ".join(problems[:3]))
        raise InputError(f"{path}: no layer recognised (no S4D, S4, S5, LRU or Mamba layer, no attention, MLP or "
                         "linear-recurrence layer; docs/models.md lists the parameter names)")
    model_input = ModelInput(ckpt, entries, tokens, length)
    c = attention_bound(n)
    report, skipped = [], []

    def one(entry, parent=None):
        rec = {"name": entry.name, "kind": entry.kind, "label": entry.label, "block": entry.block,
               "sizes": {k: v for k, v in entry.sizes.items() if k != "inconsistent"}}
        if entry.note:
            rec["note"] = entry.note
        hw = {}
        if entry.kind in LTI_KINDS:
            if entry.reason:
                rec.update(status="not analysed", reason=entry.reason)
                skipped.append({"name": entry.name, "reason": entry.reason})
                return rec, hw
            layer = check_layer(CheckpointLayer(entry.name, entry.kind, _short_tensors(entry, ckpt)))
            res = analyse_layer(layer, n, tolerance=tolerance, lag_rank_tol=lag_rank_tol, conventions=conventions)
            res.pop("name"), res.pop("kind"), res.pop("label")
            rec.update(res)
            hw = _lti_highway(layer, rec, tolerance, conventions, n)
            hw.update(eps_head_count=rec["numerical_head_count"])
        elif entry.kind in ("mamba", "mamba2"):
            fn = _analyse_mamba1 if entry.kind == "mamba" else _analyse_mamba2
            res, rate, prof, certified = fn(entry, ckpt, model_input, config, tolerance, lag_rank_tol)
            rec.update(res, tolerance=tolerance, numerical=True)
            hw = {"eps_head_count": res["numerical_interaction_rank"], "eps_head_count_of": "the operator on the input",
                  "decay_rate": rate, "status": "numeric",
                  "decay": "on the input: the largest per-step factor exp(Delta_t A) over tokens and channels",
                  "distance_profile": prof, "attention_bound": c,
                  "crossover_distance": _highway_from_profile(prof, c, rate, entry.kind)}
            if certified:
                hw.update(status="certified for every input (ball arithmetic)", certified_decay=certified,
                          decay_rate_every_input=certified["rate_float"])
        elif entry.kind == "attention":
            res = _analyse_attention(entry, ckpt, config, parent)
            rec.update(res)
            heads = res.get("heads")
            hw = {"distance_independent_paths": heads, "path_length": 2, "attention_bound": c,
                  "paths_note": "each head's path x_j -> v_j -> y_i has 2 edges at every distance; the certified "
                                "single-head construction carries at least the attention bound of gradient at every "
                                f"distance of a length-{n} sequence (symssm gradient)",
                  "value_ranks": res.get("value_ranks")}
        elif entry.kind == "parallel":
            parts = [one(p, entry.parts[0] if p.kind == "attention" and p is not entry.parts[0] else None)
                     for p in entry.parts]
            rec["parts"] = [p for p, _ in parts]
            ssm_hw, attn_hw = parts[0][1], parts[1][1]
            hw = dict(ssm_hw)
            hw.update(distance_independent_paths=attn_hw.get("distance_independent_paths"), path_length=2,
                      sum="W_ij = W_ij(ssm) + W_ij(attention): the block's interaction rank is at most the sum of "
                          "the two")
            r = ssm_hw.get("eps_head_count")
            heads = attn_hw.get("distance_independent_paths")
            hw["eps_head_count_bound"] = None if r is None or heads is None else r + heads * (
                entry.parts[1].sizes.get("head_dim") or 1)
        elif entry.kind in ("mlp", "moe"):
            rec["status"] = "listed"
            hw = {"distance_independent_paths": 0, "note": "acts on each token alone (no path between tokens)"}
        elif entry.kind == "shared":
            rec["status"] = "listed"
        elif entry.kind == "mamba3":
            rec.update(status="not analysed", reason=MAMBA3_REASON)
        elif entry.kind in RECURRENCE_KINDS:
            try:
                if entry.kind not in RECURRENT_FAMILIES:
                    raise _NotAnalysed(entry.reason or f"a {entry.label} layer in no layout read as a layer kind")
                res, rate, prof = _analyse_recurrent(entry, ckpt, model_input, config, tolerance, lag_rank_tol)
            except _NotAnalysed as exc:
                rec.update(status="not analysed", reason=str(exc))
                return rec, hw
            rec.update(res, tolerance=tolerance, numerical=True, status="analysed")
            hw = {"eps_head_count": res["numerical_interaction_rank"],
                  "eps_head_count_of": "the layer's blocks W_ij on the input", "decay_rate": rate, "status": "numeric",
                  "decay": "on the input: the largest spectral norm of a head's per-token state transition M_t "
                           "(the block norms' decay with distance is the distance profile)",
                  "distance_profile": prof, "attention_bound": c,
                  "crossover_distance": _highway_from_profile(prof, c, rate, entry.kind)}
        elif entry.kind in ("embedding", "norm", "output", "buffer"):
            rec["status"] = "listed"
        else:
            rec.update(status="not recognised", reason=entry.reason or "no parameter names of a known layer")
            skipped.append({"name": entry.name, "reason": rec["reason"]})
        rec.setdefault("status", "analysed")  # every record says what was done with it
        if hw:
            rec["highway"] = hw
        return rec, hw

    def guarded(entry):
        try:
            return one(entry)
        except (ValueError, IndexError, KeyError, ZeroDivisionError, np.linalg.LinAlgError) as exc:
            if isinstance(exc, InputError):
                raise  # a malformed tensor: refused by name
            reason = (f"its tensors could not be read as a {entry.label} layer ({type(exc).__name__}: "
                      f"{str(exc)[:120]})")
            rec = {"name": entry.name, "kind": entry.kind, "label": entry.label, "block": entry.block,
                   "sizes": {k: v for k, v in entry.sizes.items() if k != "inconsistent"}, "status": "not analysed",
                   "reason": reason}
            skipped.append({"name": entry.name, "reason": reason})
            return rec, {}

    total = len(entries)
    for i, entry in enumerate(entries):
        if progress is not None:
            progress(entry.name, i, total)  # before the layer's tensors are read: the bar names it
        rec, _ = guarded(entry)
        report.append(rec)
    if progress is not None:
        progress(None, total, total)
    return {"file": str(path), "config": ckpt.config_path, "model_type": config.get("model_type"), "n": n,
            "tolerance": tolerance, "numerical": True, "input": model_input.describe(),
            "note": "floating-point results, not certificates, except where a decay is marked certified; "
                    "eps-head counts are the least H whose best H-head relative error is at most the tolerance",
            "layers": report, "highway": highway_summary(report, n), "skipped": skipped}


def highway_summary(report, n):
    """The model's highway map in one place: per layer the eps-head count, decay, paths and crossover.

    Parameters
    ----------
    report : list of dict
        The layers of :func:`analyse_model`'s report.
    n : int
        The sequence length of the attention bound.

    Returns
    -------
    dict
    """
    rows = []
    for rec in report:
        hw = rec.get("highway")
        if not hw:
            continue
        rows.append({"name": rec["name"], "kind": rec["kind"], "eps_head_count": hw.get("eps_head_count"),
                     "effective_state": hw.get("effective_state"), "decay_rate": hw.get("decay_rate"),
                     "decay_status": hw.get("status"), "distance_independent_paths": hw.get(
                         "distance_independent_paths"), "crossover_distance": hw.get("crossover_distance")})
    attn = sum(1 for r in rows if r["kind"] in ("attention", "parallel") and r["distance_independent_paths"])
    return {"n": n, "attention_bound": attention_bound(n), "layers": rows, "attention_layers": attn,
            "note": "crossover distance: the least distance at which the attention highway's bound exceeds the "
                    "layer's gradient bound K r^d (numeric unless the decay is certified; Mamba layers: K from the "
                    "input's distance profile, extrapolated)"}
