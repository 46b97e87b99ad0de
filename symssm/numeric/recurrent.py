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

from ..sources.recurrent import coefficients, head_cores, output_chain, value_taps

__all__ = ["recurrent_rows"]


def recurrent_rows(layer):
    """A recurrent layer's blocks ``vec(W_ij)`` as float64 rows, in block order ``(1,1), (2,1), (2,2), ...``.

    Parameters
    ----------
    layer : Layer
        A recurrent layer.

    Returns
    -------
    list of numpy.ndarray
    """
    n, m, p = layer.n, layer.m, layer.p
    cores = head_cores(layer, float)
    c = np.array([coefficients(h, 0.0) for h in cores], dtype=np.float64)  # (H, n, n)
    post = np.array([[core[6] for core in h] for h in cores], dtype=np.float64)  # (H, n)
    E = np.array(value_taps(layer, float), dtype=np.float64)  # (n, K + 1, Dv, m)
    chain = output_chain(layer, float)
    Out = np.array([a for a, _ in chain], dtype=np.float64).reshape(n, p, -1)
    Post = np.array([b for _, b in chain], dtype=np.float64).reshape(n, p, -1)
    H, Dv = c.shape[0], E.shape[2]
    dv = Dv // H
    K = E.shape[1] - 1
    cc = np.repeat(c, dv, axis=0)  # (Dv, n, n): the coefficient of each channel's head
    pp = np.repeat(post, dv, axis=0)  # (Dv, n)
    rows = []
    for i in range(n):
        for j in range(i + 1):
            Z = np.zeros((Dv, m))
            for l in range(j, min(i, j + K) + 1):
                Z += cc[:, i, l][:, None] * E[l, l - j]
            W = Out[i] @ Z
            if i - j <= K:
                W = W + Post[i] @ (pp[:, i][:, None] * E[i, i - j])
            rows.append(W.reshape(-1))
    return rows
