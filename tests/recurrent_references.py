"""Independent references for the linear-recurrence layer kinds: each layer run token by token with its matrix state.

Nothing here calls symssm.  ``run(spec, X)`` reads a layer spec (the fields of docs/framework.md, numbers as
texts or Fractions), runs the recurrence of its kind as the reference code writes it (fla's naive recurrent
kernels, the xLSTM and Mamba-2 papers) on the tokens ``X`` with exact Fractions, and returns ``y`` (n x p).  Since the
spec's quantities are fixed, ``y`` is linear in ``X``: the layer's blocks must give ``y_i = sum_j W_ij x_j``.
"""

from fractions import Fraction

import numpy as np


def _f(x):
    return Fraction(x) if not isinstance(x, str) else Fraction(x)


def _arr(value):
    return np.array([[_f(x) for x in row] for row in value], dtype=object)


def _vec(value):
    return np.array([_f(x) for x in value], dtype=object)


def _outer(a, b):
    return np.array([[x * y for y in b] for x in a], dtype=object)


def values(spec, X):
    """The value path: token shift, ``u = V x~``, the short convolution and the value factors; (n, Dv)."""
    V = _arr(spec["V"])
    n = len(X)
    Xs = [np.array(x, dtype=object) for x in X]
    shift = spec.get("shift")
    xt = []
    for k in range(n):
        if shift is None:
            xt.append(Xs[k])
        else:
            prev = Xs[k - 1] if k else np.array([Fraction(0)] * len(Xs[k]), dtype=object)
            xt.append(Xs[k] + _vec(shift[k]) * (prev - Xs[k]))
    u = [V.dot(x) for x in xt]
    conv = spec.get("conv")
    taps = [_vec(t) for t in conv] if conv is not None else [np.array([Fraction(1)] * V.shape[0], dtype=object)]
    out = []
    for l in range(n):
        v = np.array([Fraction(0)] * V.shape[0], dtype=object)
        for t, c in enumerate(taps):
            if l - t >= 0:
                v = v + c * u[l - t]
        if spec.get("value_gate") is not None:
            v = v * _vec(spec["value_gate"][l])
        out.append(v)
    return out


def head_output(kind, head, v, n):
    """One head's outputs ``o_1 .. o_n`` (and RWKV-7's bonus terms) from its values ``v`` (n, dv), by its recurrence."""
    dv = len(v[0])
    o, bonus = [], []
    rows = lambda key: [_vec(r) for r in head[key]]  # noqa: E731
    if kind == "mamba2-ssd":  # h_t = a_t h_{t-1} + dt_t B_t x_t^T (N x P), y_t = h_t^T C_t + D x_t
        B, C = rows("B"), rows("C")
        S = np.array([[Fraction(0)] * dv for _ in range(len(B[0]))], dtype=object)
        for t in range(n):
            dt = Fraction(1) if head.get("dt") is None else _f(head["dt"][t])
            S = _f(head["a"][t]) * S + dt * _outer(B[t], v[t])
            D = Fraction(0) if head.get("D") is None else _f(head["D"])
            o.append(S.T.dot(C[t]) + D * v[t])
    elif kind == "kda":  # fla's naive_recurrent_kda: S *= exp(g) per key channel; S += beta k (v - S^T k)^T
        q, k = rows("q"), rows("k")
        S = np.array([[Fraction(0)] * dv for _ in range(len(q[0]))], dtype=object)
        for t in range(n):
            S = _vec(head["alpha"][t])[:, None] * S
            S = S + _outer(k[t], _f(head["beta"][t]) * (v[t] - S.T.dot(k[t])))
            o.append(S.T.dot(q[t]))
    elif kind in ("retnet", "gla", "deltanet", "gated-deltanet"):
        q, k = rows("q"), rows("k")
        S = np.array([[Fraction(0)] * dv for _ in range(len(q[0]))], dtype=object)
        for t in range(n):
            if kind == "retnet":
                S = _f(head["gamma"]) * S + _outer(k[t], v[t])
            elif kind == "gla":
                S = _vec(head["alpha"][t])[:, None] * S + _outer(k[t], v[t])
            else:  # fla's naive delta rule: h *= alpha; h += k (beta (v - h^T k))^T
                if kind == "gated-deltanet":
                    S = _f(head["alpha"][t]) * S
                beta = _f(head["beta"][t])
                S = S + _outer(k[t], beta * (v[t] - S.T.dot(k[t])))
            o.append(S.T.dot(q[t]))
    elif kind == "rwkv6":  # o_t = (S_{t-1} + diag(u) k_t v_t^T)^T r_t, S_t = diag(w_t) S_{t-1} + k_t v_t^T
        r, k, w, u = rows("r"), rows("k"), rows("w"), _vec(head["u"])
        S = np.array([[Fraction(0)] * dv for _ in range(len(r[0]))], dtype=object)
        for t in range(n):
            kv = _outer(k[t], v[t])
            o.append((S + u[:, None] * kv).T.dot(r[t]))
            S = w[t][:, None] * S + kv
    elif kind == "rwkv7":  # fla: S (V x K) = S diag(w) + (S a) b^T + v k^T, o = S r; bonus (r . (rk k)) v
        r, k, w, a, b = rows("r"), rows("k"), rows("w"), rows("a"), rows("b")
        S = np.array([[Fraction(0)] * len(r[0]) for _ in range(dv)], dtype=object)
        for t in range(n):
            S = S * w[t][None, :] + _outer(S.dot(a[t]), b[t]) + _outer(v[t], k[t])
            o.append(S.dot(r[t]))
            rk = head.get("rk")
            bonus.append(Fraction(0) if rk is None else sum(x * y * z for x, y, z in zip(r[t], _vec(rk), k[t])))
    elif kind == "mlstm":  # C_t = f_t C_{t-1} + i_t v_t k_t^T, h_t = C_t q_t / den_t
        q, k = rows("q"), rows("k")
        C = np.array([[Fraction(0)] * len(q[0]) for _ in range(dv)], dtype=object)
        for t in range(n):
            C = _f(head["f"][t]) * C + _f(head["i"][t]) * _outer(v[t], k[t])
            den = Fraction(1) if head.get("den") is None else _f(head["den"][t])
            o.append(C.dot(q[t]) / den)
    else:
        raise ValueError(kind)
    return o, bonus or [Fraction(0)] * n


def run(spec, X):
    """``y`` (n rows of p Fractions) of the layer ``spec`` on the tokens ``X``, token by token."""
    kind, heads = spec["kind"], spec["heads"]
    v = values(spec, X)
    n, Dv, H = len(X), len(v[0]), len(heads)
    dv = Dv // H
    outs = [head_output(kind, head, [x[h * dv:(h + 1) * dv] for x in v], n) for h, head in enumerate(heads)]
    norm, gate, W_O = spec.get("norm"), spec.get("gate"), spec.get("out")
    y = []
    for i in range(n):
        z = np.concatenate([outs[h][0][i] for h in range(H)])
        bonus = np.concatenate([outs[h][1][i] * v[i][h * dv:(h + 1) * dv] for h in range(H)])
        g = _vec(gate[i]) if gate is not None else np.array([Fraction(1)] * Dv, dtype=object)

        def normed(x):
            if norm is None:
                return x
            scale = [_f(s) for s in norm["scale"][i]]
            size = Dv // len(scale)
            res = []
            for grp, s in enumerate(scale):
                part = x[grp * size:(grp + 1) * size]
                if norm.get("center"):
                    part = part - sum(part, Fraction(0)) / size
                res.extend(s * part)
            res = np.array(res, dtype=object)
            if norm.get("weight") is not None:
                res = res * _vec(norm["weight"][0])
            return res

        if norm is not None and norm.get("after_gate"):
            z = normed(g * z) + bonus
        else:
            z = g * (normed(z) + bonus)
        y.append(_arr(W_O).dot(z) if W_O is not None else z)
    return [list(row) for row in y]


# ---------------------------------------------------------------- whole layers from their tensors (float64)
#
# Each forward transcribes the family's reference code (fla layers and their naive recurrent kernels, transformers'
# Qwen3-Next, Mamba-2 and xLSTM modeling files) with numpy, state by state, token by token.

def _sig(x):
    return 1 / (1 + np.exp(-x))


def _silu(x):
    return x * _sig(x)


def _l2(x, eps=1e-6):
    return x / np.sqrt((x ** 2).sum(-1, keepdims=True) + eps)


def _causal_conv(u, weight, bias=None):
    """torch Conv1d(groups=D, padding=L-1)[..., :T] on (T, D); weight (D, 1, L)."""
    T, D = u.shape
    w = weight.reshape(D, -1)
    L = w.shape[1]
    pad = np.vstack([np.zeros((L - 1, D)), u])
    out = np.stack([(pad[t:t + L] * w.T).sum(0) for t in range(T)])
    return out if bias is None else out + bias


def _rms(x, w, eps):
    return x / np.sqrt((x ** 2).mean(-1, keepdims=True) + eps) * w


def _layer_norm(x, w, eps):
    x = x - x.mean(-1, keepdims=True)
    return x / np.sqrt((x ** 2).mean(-1, keepdims=True) + eps) * (1 if w is None else w)


def forward(family, t, X, config=None):
    """The layer's output on X (T x hidden), by the family's reference code."""
    c = config or {}
    T = X.shape[0]
    if family == "fla-gla":
        H = c["num_heads"]
        q, k, v = X @ t["q_proj.weight"].T, X @ t["k_proj.weight"].T, X @ t["v_proj.weight"].T
        if "q_conv1d.weight" in t:
            q, k, v = (_silu(_causal_conv(a, t[f"{n}_conv1d.weight"])) for a, n in ((q, "q"), (k, "k"), (v, "v")))
        gk = (X @ t["gk_proj.0.weight"].T) @ t["gk_proj.1.weight"].T + t["gk_proj.1.bias"]
        gk = -np.logaddexp(0, -gk) / c.get("gate_logit_normalizer", 16)
        q, k, v, gk = (a.reshape(T, H, -1) for a in (q, k, v, gk))
        K = q.shape[-1]
        o = np.zeros_like(v)
        for h in range(H):
            S = np.zeros((K, v.shape[-1]))
            for i in range(T):  # fused_recurrent_gla: h = h * exp(gk) + k v^T; o = (q * scale)^T h
                S = S * np.exp(gk[i, h])[:, None] + np.outer(k[i, h], v[i, h])
                o[i, h] = (q[i, h] * K ** -0.5) @ S
        g = (X @ t["g_proj.weight"].T).reshape(T, H, -1)
        o = _rms(o, t["g_norm_swish_gate.weight"], 1e-5) * _silu(g)
        return o.reshape(T, -1) @ t["o_proj.weight"].T
    if family == "fla-retnet":
        H = c["num_heads"]
        q, k, v = ((X @ t[f"{n}_proj.weight"].T).reshape(T, H, -1) for n in "qkv")
        d = q.shape[-1]
        inv = 1 / 10000 ** (np.arange(0, d, 2) / d)
        ang = np.arange(T)[:, None, None] * inv
        cos, sin = np.concatenate([np.cos(ang)] * 2, -1), np.concatenate([np.sin(ang)] * 2, -1)
        rot = lambda x: np.concatenate([-x[..., d // 2:], x[..., :d // 2]], -1)  # noqa: E731
        q, k = q * cos + rot(q) * sin, k * cos + rot(k) * sin
        o = np.zeros_like(v)
        for h in range(H):  # naive retention: decay 1 - 2^(-5-h), scores (q d^-1/2) k^T
            gamma = 1 - 2.0 ** (-5 - h)
            for i in range(T):
                o[i, h] = sum(gamma ** (i - j) * ((q[i, h] * d ** -0.5) @ k[j, h]) * v[j, h] for j in range(i + 1))
        g = (X @ t["g_proj.weight"].T).reshape(T, H, -1)
        o = _rms(o, t["g_norm_swish_gate.weight"], 1e-5) * _silu(g)
        return o.reshape(T, -1) @ t["o_proj.weight"].T
    if family in ("fla-deltanet", "fla-gated-deltanet"):
        q, k, v = (_silu(_causal_conv(X @ t[f"{n}_proj.weight"].T, t[f"{n}_conv1d.weight"])) for n in "qkv")
        H = t["b_proj.weight"].shape[0]
        q, k, v = (a.reshape(T, H, -1) for a in (q, k, v))
        q, k = _l2(q), _l2(k)
        beta = _sig(X @ t["b_proj.weight"].T)
        if family == "fla-gated-deltanet":
            g = -np.exp(t["A_log"]) * np.logaddexp(0, X @ t["a_proj.weight"].T + t["dt_bias"])
        else:
            g = np.zeros((T, H))
        o = np.zeros_like(v)
        for h in range(H):  # naive_recurrent_gated_delta_rule
            S = np.zeros((q.shape[-1], v.shape[-1]))
            for i in range(T):
                S = S * np.exp(g[i, h])
                bv = (v[i, h] - (S * k[i, h][:, None]).sum(0)) * beta[i, h]
                S = S + np.outer(k[i, h], bv)
                o[i, h] = (q[i, h] * q.shape[-1] ** -0.5) @ S
        if "g_proj.weight" in t:
            o = _rms(o, t["o_norm.weight"], 1e-5) * _silu((X @ t["g_proj.weight"].T).reshape(T, H, -1))
        else:
            o = _rms(o, t["o_norm.weight"], 1e-5)
        return o.reshape(T, -1) @ t["o_proj.weight"].T
    if family == "fla-kda":
        q, k, v = (_silu(_causal_conv(X @ t[f"{n}_proj.weight"].T, t[f"{n}_conv1d.weight"])) for n in "qkv")
        H = t["b_proj.weight"].shape[0]
        q, k, v = (a.reshape(T, H, -1) for a in (q, k, v))
        K = q.shape[-1]
        q, k = _l2(q), _l2(k)
        beta = _sig(X @ t["b_proj.weight"].T)
        f = (X @ t["f_proj.0.weight"].T) @ t["f_proj.1.weight"].T
        g = -np.exp(t["A_log"])[:, None] * np.logaddexp(0, f.reshape(T, H, K) + t["dt_bias"].reshape(H, K))
        o = np.zeros_like(v)
        for h in range(H):  # naive_recurrent_kda
            S = np.zeros((K, v.shape[-1]))
            for i in range(T):
                S = S * np.exp(g[i, h])[:, None]
                S = S + np.outer(beta[i, h] * k[i, h], v[i, h] - (k[i, h][:, None] * S).sum(0))
                o[i, h] = (q[i, h] * K ** -0.5) @ S
        gate = (X @ t["g_proj.0.weight"].T) @ t["g_proj.1.weight"].T + t["g_proj.1.bias"]
        o = _rms(o, t["o_norm.weight"], 1e-5) * _sig(gate.reshape(T, H, -1))
        return o.reshape(T, -1) @ t["o_proj.weight"].T
    if family == "qwen3-next":
        Hk, Hv, dk, dv = c["linear_num_key_heads"], c["linear_num_value_heads"], c["linear_key_head_dim"], \
            c["linear_value_head_dim"]
        r = Hv // Hk
        qkvz = (X @ t["in_proj_qkvz.weight"].T).reshape(T, Hk, -1)
        ba = (X @ t["in_proj_ba.weight"].T).reshape(T, Hk, -1)
        q, k, v, z = np.split(qkvz, [dk, 2 * dk, 2 * dk + r * dv], axis=2)
        b, a = np.split(ba, [r], axis=2)
        mixed = np.concatenate([q.reshape(T, -1), k.reshape(T, -1), v.reshape(T, -1)], 1)
        mixed = _silu(_causal_conv(mixed, t["conv1d.weight"]))
        q, k, v = np.split(mixed, [Hk * dk, 2 * Hk * dk], axis=1)
        q, k = np.repeat(q.reshape(T, Hk, dk), r, 1), np.repeat(k.reshape(T, Hk, dk), r, 1)
        v, z = v.reshape(T, Hv, dv), z.reshape(T, Hv, dv)
        beta, g = _sig(b.reshape(T, Hv)), -np.exp(t["A_log"]) * np.logaddexp(0, a.reshape(T, Hv) + t["dt_bias"])
        q, k = _l2(q), _l2(k)
        o = np.zeros_like(v)
        for h in range(Hv):
            S = np.zeros((dk, dv))
            for i in range(T):
                S = S * np.exp(g[i, h])
                S = S + np.outer(k[i, h], (v[i, h] - S.T @ k[i, h]) * beta[i, h])
                o[i, h] = (q[i, h] * dk ** -0.5) @ S
        o = _rms(o, t["norm.weight"], 1e-6) * _silu(z)
        return o.reshape(T, -1) @ t["out_proj.weight"].T
    if family == "fla-rwkv6":
        hidden = X.shape[1]
        H, K = t["bonus"].shape
        shifted = np.vstack([np.zeros((1, hidden)), X[:-1]])
        delta = shifted - X
        x = np.tanh((X + delta * t["x_proj.0.mu"]) @ t["x_proj.0.linear.weight"].T)
        R = x.shape[1] // 5
        x = np.einsum("tnr,hnr->tnh", x.reshape(T, 5, R), t["x_proj.2.weight"].reshape(hidden, 5, R)) + t["x_bias"]
        mr, mw, mk, mv, mg = (x[:, i] for i in range(5))
        r = (X + delta * mr) @ t["r_proj.linear.weight"].T
        lw = np.tanh((X + delta * mw) @ t["w_proj.linear.lora.0.weight"].T) @ t["w_proj.linear.lora.2.weight"].T \
            + t["w_proj.linear.lora.2.bias"]
        k = (X + delta * mk) @ t["k_proj.linear.weight"].T
        v = (X + delta * mv) @ t["v_proj.linear.weight"].T
        g = (X + delta * mg) @ t["g_proj.linear.weight"].T
        r, k, lw = (a.reshape(T, H, K) for a in (r, k, lw))
        v = v.reshape(T, H, -1)
        w = -np.exp(lw)
        o = np.zeros_like(v)
        for h in range(H):  # naive_recurrent_rwkv6 with scale 1
            S = np.zeros((K, v.shape[-1]))
            for i in range(T):
                kv = np.outer(k[i, h], v[i, h])
                o[i, h] = ((S + t["bonus"][h][:, None] * kv) * r[i, h][:, None]).sum(0)
                S = S * np.exp(w[i, h])[:, None] + kv
        o = _layer_norm(o, t["g_norm.weight"].reshape(H, -1), 1e-5).reshape(T, -1) * _silu(g)
        return o @ t["o_proj.weight"].T
    if family == "fla-rwkv7":
        hidden = X.shape[1]
        H, K = t["r_k"].shape
        shifted = np.vstack([np.zeros((1, hidden)), X[:-1]])
        delta = shifted - X
        xr, xw, xk, xv, xa, xg = (X + delta * t[f"x_{n}"].reshape(-1) for n in "rwkvag")
        lora = lambda x, n, f: f(x @ t[f"{n}.lora.0.weight"].T) @ t[f"{n}.lora.2.weight"].T + \
            t.get(f"{n}.lora.2.bias", 0)  # noqa: E731
        r = xr @ t["r_proj.weight"].T
        w = -0.6065306597126334 * _sig(lora(xw, "w_lora", np.tanh))
        k = xk @ t["k_proj.weight"].T
        v = xv @ t["v_proj.weight"].T
        a = _sig(lora(xa, "a_lora", lambda z: z))
        g = lora(xg, "g_lora", _sig)
        kk = _l2((k * t["k_k"]).reshape(T, H, K))
        k = k * (1 + (a - 1) * t["k_a"])
        r, w, k, a = (z.reshape(T, H, K) for z in (r, w, k, a))
        v = v.reshape(T, H, -1)
        o = np.zeros_like(v)
        for h in range(H):  # S (V x K) = S diag(exp w) + (S (-kk)) (kk a)^T + v k^T; o = S r
            S = np.zeros((v.shape[-1], K))
            for i in range(T):
                S = (S * np.exp(w[i, h])[None] + np.outer(S @ (-kk[i, h]), kk[i, h] * a[i, h])
                     + np.outer(v[i, h], k[i, h]))
                o[i, h] = S @ r[i, h]
        o = _layer_norm(o, t["g_norm.weight"].reshape(H, -1), K * 1e-5)
        o = o + (r * k * t["r_k"]).sum(-1, keepdims=True) * v
        return (o.reshape(T, -1) * g) @ t["o_proj.weight"].T
    if family == "mamba2":
        H = t["A_log"].shape[0]
        G = c.get("n_groups", 1)
        I = t["norm.weight"].shape[0]
        N = (t["conv1d.weight"].shape[0] - I) // (2 * G)
        P = I // H
        proj = X @ t["in_proj.weight"].T
        z, xBC, dt = np.split(proj, [I, 2 * I + 2 * G * N], axis=1)
        xBC = _silu(_causal_conv(xBC, t["conv1d.weight"], t.get("conv1d.bias")))
        x, B, C = np.split(xBC, [I, I + G * N], axis=1)
        dt = np.logaddexp(0, dt + t["dt_bias"])
        A = -np.exp(t["A_log"])
        x, B, C = x.reshape(T, H, P), B.reshape(T, G, N), C.reshape(T, G, N)
        y = np.zeros_like(x)
        for h in range(H):  # the SSM recurrence: h = exp(dt A) h + dt B x^T; y = C^T h + D x
            S = np.zeros((N, P))
            gidx = h // (H // G)
            for i in range(T):
                S = np.exp(dt[i, h] * A[h]) * S + dt[i, h] * np.outer(B[i, gidx], x[i, h])
                y[i, h] = C[i, gidx] @ S + t["D"][h] * x[i, h]
        y = y.reshape(T, I) * _silu(z)
        y = np.concatenate([_rms(part, 1, 1e-5) for part in np.split(y, G, axis=1)], 1) * t["norm.weight"]
        return y @ t["out_proj.weight"].T
    if family == "xlstm":
        H = c["num_heads"]
        cap = 15.0
        q, k, v = ((X @ t[f"{n}.weight"].T).reshape(T, H, -1) for n in "qkv")
        ip = cap * np.tanh((X @ t["igate_preact.weight"].T + t["igate_preact.bias"]) / cap)
        fp = cap * np.tanh((X @ t["fgate_preact.weight"].T + t["fgate_preact.bias"]) / cap)
        o = np.zeros_like(v)
        dk = q.shape[-1]
        for h in range(H):  # stabilised mLSTM recurrence (the xLSTM paper, eq. 19-27)
            Cs, ns, m = np.zeros((v.shape[-1], dk)), np.zeros(dk), 0.0
            for i in range(T):
                logf = -np.logaddexp(0, -fp[i, h])
                m_new = max(logf + m, ip[i, h]) if i else ip[i, h]
                fi, ii = np.exp(logf + m - m_new) if i else 0.0, np.exp(ip[i, h] - m_new)
                Cs = fi * Cs + ii * np.outer(v[i, h], k[i, h])
                ns = fi * ns + ii * k[i, h]
                qs = q[i, h] * dk ** -0.5
                o[i, h] = Cs @ qs / max(abs(ns @ qs), np.exp(-m_new))
                m = m_new
        o = _layer_norm(o, t["multihead_norm.weight"].reshape(H, -1), 1e-6)
        return (_sig(X @ t["ogate_preact.weight"].T) * o.reshape(T, -1)) @ t["out_proj.weight"].T
    raise ValueError(family)
