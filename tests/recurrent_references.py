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
