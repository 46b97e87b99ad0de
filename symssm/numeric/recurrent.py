"""The linear-recurrence layers' blocks in float64 (:mod:`symssm.sources.recurrent`), for numerical ranks.

The same formula as the exact blocks (:mod:`symssm.exact.recurrent`), with every number a float and the
products done by numpy; never a certificate.

Examples
--------
>>> from symssm.sources.layers import layer_from_data
>>> layer = layer_from_data({"kind": "retnet", "V": [[1]], "heads": [
...     {"q": [[1], [1]], "k": [[1], [2]], "gamma": "1/2"}]})
>>> [float(r[0]) for r in recurrent_rows(layer)]
[1.0, 0.5, 2.0]
"""

import numpy as np

from ..sources.recurrent import coefficients, head_cores

__all__ = ["recurrent_rows"]


def _floats(value):
    return None if value is None else np.array(value, dtype=np.float64)


def _value_maps(layer):
    """``E`` (n, K + 1, Dv, m): ``E[l, s] = d v_l / d x_(l-s)``, as :func:`~symssm.sources.recurrent.value_taps`."""
    n, m = layer.n, layer.m
    V = _floats(layer.param("V"))
    Dv = V.shape[0]
    shift, conv, vg = (_floats(layer.param(k)) for k in ("shift", "conv", "value_gate"))
    taps = conv if conv is not None else np.ones((1, Dv))
    K = taps.shape[0] - 1 + (1 if shift is not None else 0)
    E = np.zeros((n, K + 1, Dv, m))
    for l in range(n):
        for t in range(taps.shape[0]):
            k = l - t
            if k < 0:
                continue
            if shift is None:
                E[l, t] += taps[t][:, None] * V
                continue
            E[l, t] += taps[t][:, None] * (V * (1.0 - shift[k])[None, :])
            if k >= 1:
                E[l, t + 1] += taps[t][:, None] * (V * shift[k][None, :])
        if vg is not None:
            E[l] *= vg[l][None, :, None]
    return E


def _output_maps(layer):
    """``(Out, Post)`` (n, p, Dv) each, as :func:`~symssm.sources.recurrent.output_chain` (the same order of the
    norm, the gate and W_O)."""
    n = layer.n
    Dv = len(layer.param("V"))
    W_O = _floats(layer.param("out"))
    gate = _floats(layer.param("gate"))
    norm = layer.param("norm")
    norm = dict(norm) if norm else None
    G = np.ones((n, Dv)) if gate is None else gate
    if norm is None:
        N = np.broadcast_to(np.eye(Dv), (n, Dv, Dv))
    else:
        scale = np.array(norm["scale"], dtype=np.float64)  # (n, groups)
        groups = scale.shape[1]
        size = Dv // groups
        weight = np.ones(Dv) if norm["weight"] is None else np.array(norm["weight"][0], dtype=np.float64)
        block = np.kron(np.eye(groups), np.ones((size, size)))
        centred = np.eye(Dv) - (block / size if norm["center"] else 0.0)
        N = (weight[None, :, None] * np.repeat(scale, size, axis=1)[:, :, None]) * centred[None]
    if norm is not None and norm["after_gate"]:
        chain = N * G[:, None, :]
        post = np.broadcast_to(np.eye(Dv), (n, Dv, Dv))
    else:
        chain = G[:, :, None] * N
        post = G[:, :, None] * np.eye(Dv)[None]
    if W_O is not None:
        chain = np.einsum("pd,nde->npe", W_O, chain)
        post = np.einsum("pd,nde->npe", W_O, post)
    return np.asarray(chain), np.asarray(post)


def recurrent_rows(layer):
    """A recurrent layer's blocks ``vec(W_ij)`` as float64 rows, in block order ``(1,1), (2,1), (2,2), ...``.

    The value path's maps and the output chain are formed with numpy (the same formulas as
    :func:`~symssm.sources.recurrent.value_taps` and :func:`~symssm.sources.recurrent.output_chain`); the heads'
    coefficients by :func:`~symssm.sources.recurrent.coefficients` in floats.

    Parameters
    ----------
    layer : Layer
        A recurrent layer.

    Returns
    -------
    numpy.ndarray
        ``n(n+1)/2`` rows of ``p m`` entries.
    """
    n, m, p = layer.n, layer.m, layer.p
    cores = head_cores(layer, float)
    c = np.array([coefficients(h, 0.0) for h in cores], dtype=np.float64)  # (H, n, n)
    post = np.array([[core[6] for core in h] for h in cores], dtype=np.float64)  # (H, n)
    E = _value_maps(layer)  # (n, K + 1, Dv, m)
    Out, Post = _output_maps(layer)
    H, Dv = c.shape[0], E.shape[2]
    dv = Dv // H
    K = E.shape[1] - 1
    cc = np.repeat(c, dv, axis=0)  # (Dv, n, n): the coefficient of each channel's head
    pp = np.repeat(post, dv, axis=0)  # (Dv, n)
    has_post = bool(np.any(pp))
    rows = np.zeros((n * (n + 1) // 2, p * m))
    r = 0
    for i in range(n):
        Z = np.zeros((i + 1, Dv, m))
        for j in range(i + 1):
            for l in range(j, min(i, j + K) + 1):
                Z[j] += cc[:, i, l][:, None] * E[l, l - j]
        W = np.einsum("pd,jdm->jpm", Out[i], Z)
        if has_post:
            for j in range(max(0, i - K), i + 1):
                W[j] += Post[i] @ (pp[:, i][:, None] * E[i, i - j])
        rows[r:r + i + 1] = W.reshape(i + 1, p * m)
        r += i + 1
    return rows
