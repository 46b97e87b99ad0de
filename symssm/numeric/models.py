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
           "MAMBA_TOKENS", "LABELS"]

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
