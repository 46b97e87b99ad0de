"""Independent float64 references for trained layers: the lags written out from the reference code's formulas
(state-spaces/s4, lindermanlab/S5, the LRU paper), lag by lag, and the dense SVD of the weighted lag stack.

Nothing here calls symssm: these are the oracles the numeric path is tested against.
"""

import numpy as np


def transform(x, how):
    """state-spaces/s4 ``param_transform``."""
    return {"exp": np.exp, "softplus": lambda v: np.log1p(np.exp(v)), "relu": lambda v: np.maximum(v, 0) + 1e-4,
            "sigmoid": lambda v: 1 / (1 + np.exp(-v)), "none": lambda v: v}[how](x)


def s4d_lags(t, n):
    """Minimal S4D (models/s4/s4d.py): rows vec(L_d) restricted to the diagonal, (n, H)."""
    dt = np.exp(np.asarray(t["kernel.log_dt"], float).reshape(-1))
    A = -np.exp(np.asarray(t["kernel.log_A_real"], float)) + 1j * np.asarray(t["kernel.A_imag"], float)
    H = A.shape[0]
    dt = np.repeat(dt, H) if dt.size == 1 else dt
    C = np.asarray(t["kernel.C"], float)
    C = C[..., 0] + 1j * C[..., 1]
    dtA = A * dt[:, None]
    Cp = C * (np.exp(dtA) - 1.0) / A
    K = np.zeros((H, n))
    for d in range(n):  # the Vandermonde product of the reference, one lag at a time
        K[:, d] = 2 * (Cp * np.exp(dtA * d)).sum(axis=1).real
    if "D" in t:
        K[:, 0] += np.asarray(t["D"], float).reshape(H)
    return K.T


def s4_diag_lags(t, n, disc="zoh", dt_transform="exp", real_transform="exp", imag_transform="none"):
    """SSMKernelDiag.forward (src/models/sequence/kernels/ssm.py) and FFTConv's D: rows (n, channels * H)."""
    is_real = "kernel.A_imag" not in t
    A_real = np.asarray(t["kernel.A_real"], float)
    A = -transform(A_real, real_transform)
    if not is_real:
        A = A - 1j * transform(np.asarray(t["kernel.A_imag"], float), imag_transform)
    Bv, Cv = np.asarray(t["kernel.B"], float), np.asarray(t["kernel.C"], float)
    B = Bv if is_real else Bv[..., 0] + 1j * Bv[..., 1]
    C = Cv if is_real else Cv[..., 0] + 1j * Cv[..., 1]
    B = B.reshape((1,) + B.shape[-2:])
    if C.ndim == 2:
        C = C[None]
    c, H, N = C.shape
    repeat = H // A.shape[0]
    A = np.tile(A, (repeat, 1))  # repeat(A, 't n -> (v t) n')
    B = np.tile(B, (1, repeat, 1))
    dt = transform(np.asarray(t["kernel.inv_dt"], float).reshape(H, -1), dt_transform)
    dtA = dt * A
    Cc = (B[:, None, :, :] * C).reshape(-1, H, N)
    if disc == "zoh":
        Cc = Cc * (np.exp(dtA) - 1.0) / A
        nodes = dtA
    else:
        Cc = Cc * (1.0 / (1.0 - dtA / 2)) * dt
        nodes = np.log((1.0 + dtA / 2) / (1.0 - dtA / 2))
    K = np.zeros((c, H, n))
    for d in range(n):
        K[:, :, d] = 2 * (Cc * np.exp(nodes * d)).sum(axis=-1).real
    if "D" in t:
        K[:, :, 0] += np.asarray(t["D"], float).reshape(c, H)
    return K.reshape(c * H, n).T


def s5_lags(t, n, disc="zoh"):
    """S5SSM (s5/ssm.py), conj_sym: y = 2 Re(C x) + D u; rows vec(L_d), (n, H^2)."""
    Lam = np.asarray(t["Lambda_re"], float) + 1j * np.asarray(t["Lambda_im"], float)
    Bv, Cv = np.asarray(t["B"], float), np.asarray(t["C"], float)
    B, C = Bv[..., 0] + 1j * Bv[..., 1], Cv[..., 0] + 1j * Cv[..., 1]
    step = np.exp(np.asarray(t["log_step"], float).reshape(-1))
    if disc == "zoh":
        Lbar = np.exp(Lam * step)
        Bbar = (1 / Lam * (Lbar - 1))[:, None] * B
    else:
        BL = 1 / (1 - (step / 2.0) * Lam)
        Lbar = BL * (1 + (step / 2.0) * Lam)
        Bbar = (BL * step)[:, None] * B
    H = C.shape[0]
    rows = []
    for d in range(n):
        L = 2 * ((C * Lbar ** d) @ Bbar).real
        if d == 0 and "D" in t:
            L = L + np.diag(np.asarray(t["D"], float))
        rows.append(L.reshape(H * H))
    return np.array(rows)


def lru_lags(t, n):
    """LRU (minimal-LRU lru/model.py): y = Re(C h) + D x, h_k = lambda h_(k-1) + gamma B x_k; rows (n, H^2)."""
    lam = np.exp(-np.exp(np.asarray(t["nu_log"], float)) + 1j * np.exp(np.asarray(t["theta_log"], float)))
    B = (np.asarray(t["B_re"], float) + 1j * np.asarray(t["B_im"], float)) * np.exp(
        np.asarray(t["gamma_log"], float))[:, None]
    C = np.asarray(t["C_re"], float) + 1j * np.asarray(t["C_im"], float)
    H = C.shape[0]
    rows = []
    for d in range(n):
        L = ((C * lam ** d) @ B).real
        if d == 0 and "D" in t:
            L = L + np.diag(np.asarray(t["D"], float))
        rows.append(L.reshape(H * H))
    return np.array(rows)


def dense_curve(rows, n=None):
    """e_H, H = 0..rank, from the dense SVD of the weighted stack sqrt(n - d) vec(L_d)."""
    n = rows.shape[0] if n is None else n
    T = rows * np.sqrt(n - np.arange(rows.shape[0]))[:, None]
    s = np.linalg.svd(T, compute_uv=False)
    sq = s * s
    tails = np.concatenate([np.cumsum(sq[::-1])[::-1], [0.0]])
    return np.sqrt(tails / tails[0])


def least_H(curve, tau):
    return int(next(H for H, e in enumerate(curve) if e <= tau))


def system_lags(A, B, C, D, n):
    """Rows vec(C A^d B) (+ D at d = 0) of a plain system, lag by lag."""
    rows, X = [], np.asarray(B, dtype=complex)
    for d in range(n):
        L = np.asarray(C) @ X + (D if (d == 0 and D is not None) else 0)
        rows.append(L.reshape(-1))
        X = np.asarray(A) @ X
    return np.array(rows)


# ---------------------------------------------------------------- selective layers, token by token

def _rms_row(v, w, eps):
    return v / np.sqrt(np.mean(v * v) + eps) * w


def _softplus(v):
    return np.log1p(np.exp(-np.abs(v))) + np.maximum(v, 0)


def _conv_token(xs, t, weight, bias):
    """Causal depthwise convolution at token t (weight (channels, 1, K)), written as the sum over taps."""
    K = weight.shape[-1]
    out = np.array(bias, dtype=float) if bias is not None else np.zeros(weight.shape[0])
    for k in range(K):
        s = t - (K - 1) + k
        if s >= 0:
            out = out + weight[:, 0, k] * xs[s]
    return out


def mamba1_operator(t, X, pre_norm=None, norms=None, eps=1e-5, norm_eps=1e-6):
    """Diagonals of W_ij (L, L, d_inner) of a Mamba-1 mixer on hidden states X, token by token: the recurrence run
    on a unit impulse at token j (transformers' MambaMixer.slow_forward / JambaMambaMixer, read independently)."""
    norms = norms or {}
    L = X.shape[0]
    A = -np.exp(t["A_log"])
    di, N = A.shape
    rows = t["in_proj.weight"].shape[0]
    xs = []
    for s in range(L):
        h = X[s] if pre_norm is None else _rms_row(X[s], pre_norm, eps)
        xs.append((t["in_proj.weight"] @ h)[rows - 2 * di:rows - di])
    delta, Bs, Cs = [], [], []
    for s in range(L):
        x = _conv_token(xs, s, t["conv1d.weight"], t.get("conv1d.bias"))
        x = x / (1 + np.exp(-x))
        p = t["x_proj.weight"] @ x
        r = p.size - 2 * N
        dt, B, C = p[:r], p[r:r + N], p[r + N:]
        if "dt" in norms:
            dt = _rms_row(dt, norms["dt"], norm_eps)
        if "b" in norms:
            B = _rms_row(B, norms["b"], norm_eps)
        if "c" in norms:
            C = _rms_row(C, norms["c"], norm_eps)
        delta.append(_softplus(t["dt_proj.weight"] @ dt + t["dt_proj.bias"]))
        Bs.append(B)
        Cs.append(C)
    W = np.zeros((L, L, di))
    for j in range(L):
        state = np.zeros((di, N))
        for i in range(j, L):
            state = np.exp(delta[i][:, None] * A) * state + (delta[j][:, None] * Bs[j][None, :] if i == j else 0)
            W[i, j] = state @ Cs[i] + (t["D"] if i == j else 0)
    return W


def mamba2_operator(t, X, heads, headdim, groups, d_state, pre_norm=None, eps=1e-5, dt_limit=(0.0, np.inf)):
    """Per-head coefficients c_ij (L, L, heads) with W_ij = c_ij I on each head (plus D), of a Mamba-2 mixer on X:
    transformers' Mamba2Mixer.torch_forward read token by token (the recurrence on a unit impulse)."""
    L = X.shape[0]
    d_ssm = heads * headdim
    GN = groups * d_state
    A = -np.exp(t["A_log"])
    rows = []
    for s in range(L):
        h = X[s] if pre_norm is None else _rms_row(X[s], pre_norm, eps)
        rows.append(t["in_proj.weight"] @ h)
    d_mlp = (rows[0].size - 2 * d_ssm - 2 * GN - heads) // 2
    xbc = [r[2 * d_mlp + d_ssm:2 * d_mlp + 2 * d_ssm + 2 * GN] for r in rows]
    dts, Bs, Cs = [], [], []
    for s in range(L):
        v = _conv_token(xbc, s, t["conv1d.weight"], t.get("conv1d.bias"))
        v = v / (1 + np.exp(-v))
        Bs.append(v[d_ssm:d_ssm + GN].reshape(groups, d_state))
        Cs.append(v[d_ssm + GN:].reshape(groups, d_state))
        dt = _softplus(rows[s][-heads:] + t["dt_bias"])
        dts.append(np.clip(dt, *dt_limit))
    per = heads // groups
    c = np.zeros((L, L, heads))
    for hh in range(heads):
        g = hh // per
        for j in range(L):
            state = np.zeros(d_state)
            for i in range(j, L):
                state = np.exp(dts[i][hh] * A[hh]) * state + (dts[j][hh] * Bs[j][g] if i == j else 0)
                c[i, j, hh] = state @ Cs[i][g] + (t["D"][hh] if i == j else 0)
    return c


def operator_curve(W):
    """Best H-head relative errors of the rows W_ij (j <= i), from a dense SVD."""
    L = W.shape[0]
    rows = np.array([W[i, j] for i in range(L) for j in range(i + 1)])
    s = np.linalg.svd(rows, compute_uv=False)
    tails = np.concatenate([np.cumsum((s * s)[::-1])[::-1], [0.0]])
    return np.sqrt(tails / tails[0])
