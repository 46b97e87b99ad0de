"""Numerical head counts of the SSM layers of trained checkpoints (labelled numerical; not certificates).

An S4D layer with H channels is a p = m = H map with diagonal lags ``L_d = diag(K_1[d], ..., K_H[d])``
(plus ``diag(D)`` at d = 0), so its head count is the rank of the H x n channel-by-lag matrix of its
kernels.  S5 and LRU layers mix channels: their lags ``Re(C Lambda^d B)`` (+ D) are those of a real
system with twice the complex state, which the numeric path counts directly.

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
from .headcount import DEFAULT_TOL, numeric_head_count

__all__ = ["s4d_kernel", "analyse_layer", "analyse_checkpoint", "real_form"]


def _complex(view):
    view = np.asarray(view, dtype=np.float64)
    if view.shape[-1] != 2:
        raise InputError(f"a real view of complex numbers ends in a dimension of 2, got shape {view.shape}")
    return view[..., 0] + 1j * view[..., 1]


def s4d_kernel(t, n):
    """The S4D kernel ``K`` (H, n) as state-spaces/s4's standalone S4D computes it (zero-order hold)."""
    dt = np.exp(np.asarray(t["kernel.log_dt"], dtype=np.float64))
    A = -np.exp(np.asarray(t["kernel.log_A_real"], dtype=np.float64)) + 1j * np.asarray(t["kernel.A_imag"])
    C = _complex(t["kernel.C"])
    dtA = A * dt[:, None]
    Cp = C * (np.exp(dtA) - 1.0) / A
    powers = np.exp(dtA[:, :, None] * np.arange(n)[None, None, :])  # (H, N/2, n)
    return 2 * np.einsum("hn,hnl->hl", Cp, powers).real


def real_form(Lam, B, C, D, *, scale=1.0):
    """A real system (A, B, C, D) of 2P states whose lags are ``scale Re(C Lam^d B)`` (+ diag D at d = 0)."""
    Lam = np.asarray(Lam)
    A = np.block([[np.diag(Lam.real), -np.diag(Lam.imag)], [np.diag(Lam.imag), np.diag(Lam.real)]])
    Br = np.vstack([B.real, B.imag])
    Cr = scale * np.hstack([C.real, -C.imag])
    return A, Br, Cr, (np.diag(np.asarray(D, dtype=np.float64)) if D is not None else None)


def _curve(rows, n, tol):
    """Rank, singular values, gap and Eckart-Young curve of lags given as rows (lag d in row d)."""
    norms = np.linalg.norm(rows, axis=1)
    unit = rows[norms > 0] / norms[norms > 0][:, None]
    s = np.linalg.svd(unit, compute_uv=False) if unit.size else np.zeros(0)
    k = int((s > tol * s[0]).sum()) if s.size and s[0] > 0 else 0
    gap = float(s[k - 1] / s[k]) if 0 < k < s.size and s[k] > 0 else None
    weights = np.sqrt(np.maximum(n - np.arange(rows.shape[0]), 0))[:, None]
    w = np.linalg.svd(rows * weights, compute_uv=False) ** 2
    total = float(w.sum())
    tails = np.concatenate([np.cumsum(w[::-1])[::-1], [0.0]])
    errors = [math.sqrt(float(tails[H]) / total) if total > 0 else 0.0 for H in range(k + 1)]
    return k, [float(v) for v in s], gap, errors


def analyse_layer(layer, n, *, tol=DEFAULT_TOL):
    """Numerical head count of one checkpoint layer on length-n sequences (a JSON-ready dict)."""
    t = layer.tensors
    out = {"name": layer.name, "kind": layer.kind, "n": n, "tolerance": tol, "numerical": True}
    if layer.kind == "s4d":
        K = s4d_kernel(t, n)
        H = K.shape[0]
        rows = K.T.copy()  # lag d -> the diagonal of L_d
        if "D" in t:
            rows[0] += np.asarray(t["D"], dtype=np.float64).reshape(H)
        k, s, gap, errors = _curve(rows, n, tol)
        out.update(channels=H, state=2 * np.asarray(t["kernel.A_imag"]).shape[1],
                   numerical_head_count=k, singular_values=s[:64], gap=gap, approximation_error=errors)
        return out
    if layer.kind == "mamba":
        return _mamba(layer, n, tol, out)
    if layer.kind == "s5":
        Lam = np.asarray(t["Lambda_re"], dtype=np.float64) + 1j * np.asarray(t["Lambda_im"], dtype=np.float64)
        step = np.exp(np.asarray(t["log_step"], dtype=np.float64).reshape(-1))
        Lbar = np.exp(Lam * step)
        B = _complex(t["B"])  # (P, H)
        Bbar = ((Lbar - 1.0) / Lam)[:, None] * B
        system = real_form(Lbar, Bbar, _complex(t["C"]), t.get("D"), scale=2.0)
        P = Lam.size
    elif layer.kind == "lru":
        lam = np.exp(-np.exp(np.asarray(t["nu_log"], dtype=np.float64)) + 1j * np.exp(np.asarray(t["theta_log"])))
        gamma = np.exp(np.asarray(t["gamma_log"], dtype=np.float64))
        B = (np.asarray(t["B_re"]) + 1j * np.asarray(t["B_im"])) * gamma[:, None]
        C = np.asarray(t["C_re"]) + 1j * np.asarray(t["C_im"])
        system = real_form(lam, B, C, t.get("D"))
        P = lam.size
    else:
        raise InputError(f"unknown layer kind {layer.kind!r}")
    res = numeric_head_count(system, n, tol=tol)
    out.update(channels=int(system[2].shape[0]), state=P, numerical_head_count=res.numerical_head_count,
               singular_values=list(res.singular_values[:64]), gap=res.gap,
               approximation_error=list(res.approximation_error))
    return out


def analyse_checkpoint(path, n, *, tol=DEFAULT_TOL, layers=None):
    """``{"file", "n", "layers": [...]}`` for every recognised SSM layer of a checkpoint (``layers``: those
    :func:`~symssm.sources.checkpoints.read_layers` returned for it, when already read).

    Raises
    ------
    InputError
        If the file cannot be read, or holds no recognised layer.
    """
    from ..sources.checkpoints import read_layers

    if layers is None:
        layers = read_layers(path)  # only the recognised layers' tensors are read
    if not layers:
        raise InputError(f"{path}: no S4D, S5 or LRU layer recognised (docs/models.md lists the parameter names)")
    return {"file": str(path), "n": n, "numerical": True,
            "note": "floating-point results, not certificates",
            "layers": [analyse_layer(layer, n, tol=tol) for layer in layers]}


#: Tokens of the seeded input on which a Mamba layer's interaction operator is formed.
MAMBA_TOKENS = 32


def _mamba(layer, n, tol, out):
    """The numerical interaction rank of a Mamba layer's selective scan on a seeded standard-normal input.

    Channels do not mix inside the scan, so every block ``W_ij`` is diagonal: the rank is that of the
    vectors ``diag(W_ij)`` over all ``j <= i``.
    """
    t = layer.tensors
    A = -np.exp(np.asarray(t["A_log"], dtype=np.float64))  # (d_inner, d_state)
    d_inner, d_state = A.shape
    Wx = np.asarray(t["x_proj.weight"], dtype=np.float64)
    dt_rank = Wx.shape[0] - 2 * d_state
    if dt_rank < 1 or Wx.shape[1] != d_inner:
        raise InputError(f"{layer.name}: x_proj.weight is {Wx.shape}, not (dt_rank + 2 d_state, d_inner)")
    L = max(1, min(n, MAMBA_TOKENS))
    u = np.random.default_rng(0).standard_normal((L, d_inner))
    proj = u @ Wx.T
    dt, Bt, Ct = proj[:, :dt_rank], proj[:, dt_rank:dt_rank + d_state], proj[:, dt_rank + d_state:]
    raw = dt @ np.asarray(t["dt_proj.weight"], dtype=np.float64).T + np.asarray(t["dt_proj.bias"], dtype=np.float64)
    delta = np.logaddexp(0.0, raw)  # softplus, (L, d_inner)
    decay = np.exp(delta[:, :, None] * A[None])  # (L, d_inner, d_state)
    D = np.asarray(t["D"], dtype=np.float64) if "D" in t else np.zeros(d_inner)
    rows = []
    for j in range(L):
        g = delta[j][:, None] * Bt[j][None, :]  # (d_inner, d_state)
        rows.append(g @ Ct[j] + D)
        for i in range(j + 1, L):
            g = decay[i] * g
            rows.append(g @ Ct[i])
    k, s, gap, _ = _curve(np.array(rows), len(rows), tol)
    out.update(channels=d_inner, state=d_state, tokens=L, numerical_head_count=k, singular_values=s[:64], gap=gap,
               approximation_error=[], note=f"interaction rank of the selective scan on a seeded input of {L} tokens")
    return out
