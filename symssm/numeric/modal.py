"""Diagonal (modal) systems: the best H-head error curve in memory and time independent of n.

A diagonal or diagonalisable layer has lags ``vec(L_d) = sum_k lambda_k^d W_k`` (plus ``D0`` at
``d = 0``; with ``real=True`` the real part of that sum, the conjugate modes being implied, as in S4D,
S5 and LRU).  The weighted lag stack is ``T = V W`` with the weighted Vandermonde matrix
``V[d, k] = sqrt(n - d) lambda_k^d`` (d < n), so the singular values of ``T`` (hence the best H-head
relative errors ``e_H``, docs/numeric.md) follow from a triangular factor ``R`` with
``R^* R = V^* V``: they are those of ``R W``.  Three ways to get them, chosen by their cost
(:func:`choose_modal_method`):

``stream``
    The rows of ``T`` (or of ``V`` when there are fewer modes than entries), a block of lags at a
    time, folded into a triangular factor by QR: memory independent of n; time proportional to n, or
    to the decay horizon of stable modes (the rows past it weigh less than ``1e-34`` of the total).
``doubling``
    The factor of ``V`` in ``O(K^3 log n)``: a run of ``a`` lags has factors ``F_a`` of
    ``P_a = sum_{d<a} v_d^* v_d`` and ``G_a`` of ``W_a = sum_{d<a} (a - d) v_d^* v_d`` (``v_d``: row d
    of the unweighted Vandermonde matrix); a run of ``a`` followed by a run of ``b`` has
    ``P_{a+b} = P_a + Lambda^{a*} P_b Lambda^a`` and ``W_{a+b} = W_a + b P_a + Lambda^{a*} W_b Lambda^a``,
    each kept as the triangular factor of the stacked factors (a QR), so no Gram matrix is ever formed:
    the curve keeps the accuracy of a QR of the whole stack (about 1e-15 relative), for any n up to
    10^12 and beyond, slow modes (``|lambda| -> 1``) included.
``gram``
    The closed form ``(V^* V)_kl = f(conj(lambda_k) lambda_l)``, ``f(z) = sum_{d<n} (n - d) z^d``,
    evaluated stably near ``z = 1`` (:func:`weighted_geometric`), then eigenvalues: cost independent of
    n and cheap for many modes, but a Gram matrix: its curve is resolved to about ``sqrt(eps)`` (1e-8)
    only.  Used when the QR forms would take too long.

Examples
--------
>>> import numpy as np
>>> form = modal_form([0.5, -0.25], [[1.0, 0.0], [0.0, 1.0]])  # two modes, two entries
>>> s = stack_singular_values(form, 1000, method="doubling")[0]
>>> d = stack_singular_values(form, 1000, method="stream")[0]
>>> bool(np.allclose(s, d, rtol=1e-12))
True
"""

import math
import os
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, LimitError

__all__ = ["ModalForm", "modal_form", "weighted_geometric", "stack_singular_values", "choose_modal_method",
           "modal_lags", "MODAL_METHODS", "MEMORY_LIMIT", "physical_memory"]

#: Methods of :func:`stack_singular_values`.
MODAL_METHODS = ("auto", "stream", "doubling", "gram")
#: Most bytes one numerical curve may hold at once; a size estimate refuses more before any work starts.
MEMORY_LIMIT = 4 * 2 ** 30
#: Most numbers a dense weight matrix W (modes x entries) may hold.
MAX_DENSE_WEIGHTS = 8_000_000
#: ``auto`` prefers a QR form unless it costs more than this many flops and the Gram form is cheaper: about a
#: minute on one core.
QR_WORK_LIMIT = 2e11
#: Rows of the weighted stack below this fraction of the total (squared) are dropped by the stream.
HORIZON_TAIL = 1e-34


def physical_memory():
    """The machine's memory in bytes (None when unknown)."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
        return None



@dataclass(frozen=True)
class ModalForm:
    """Lags ``vec(L_d) = sum_k lam_k^d W_k`` (``0^0 = 1``), or their real part when ``real``.

    ``lam`` (K,) complex; ``W`` (K, E) complex, or None with ``entry`` (K,) int and ``weight`` (K,)
    complex when each mode touches one entry (S4D's channels); ``D0`` (E,) added at d = 0 (or None).
    ``E`` counts the lag entries that can be non-zero (the Frobenius norm sees only those).
    """

    lam: np.ndarray
    W: object
    entry: object
    weight: object
    D0: object
    real: bool
    E: int
    outer: object = None  # (Cm (E1, K), Bm (K, E2)): W_k = vec(Cm[:, k] Bm[k, :]) (S5, LRU: E = E1 E2)

    @property
    def K(self):
        return int(self.lam.size)

    @property
    def dense(self):
        return self.W is not None

    @property
    def kind(self):
        """How the weights are held: ``dense``, ``single`` (one entry per mode) or ``outer`` (rank one per mode)."""
        return "dense" if self.W is not None else ("outer" if self.outer is not None else "single")


def _finite(name, a):
    if not np.all(np.isfinite(a)):
        raise InputError(f"{name} has entries that are not finite (NaN or infinite)")
    return a


def modal_form(lam, W=None, D0=None, *, real=False, entry=None, weight=None, E=None, outer=None):
    """A :class:`ModalForm`, validated; equal eigenvalues are merged (their weights added).

    Give ``W`` (K, E); or ``entry`` (K,) with ``weight`` (K,) and ``E``; or ``outer = (Cm, Bm)`` with
    ``Cm`` (E1, K) and ``Bm`` (K, E2), mode k's weight being ``vec(Cm[:, k] Bm[k, :])`` (row-major), kept
    dense when that takes at most :data:`MAX_DENSE_WEIGHTS` numbers.

    Raises
    ------
    InputError
        If the shapes do not fit or a value is not finite.
    """
    lam = _finite("the eigenvalues", np.asarray(lam, dtype=np.complex128).reshape(-1))
    K = lam.size
    if outer is not None:
        Cm = _finite("the output weights", np.asarray(outer[0], dtype=np.complex128))
        Bm = _finite("the input weights", np.asarray(outer[1], dtype=np.complex128))
        if Cm.ndim != 2 or Bm.ndim != 2 or Cm.shape[1] != K or Bm.shape[0] != K:
            raise InputError(f"the output and input weights are {Cm.shape} and {Bm.shape}; expected (E1, {K}) and "
                             f"({K}, E2)")
        E = Cm.shape[0] * Bm.shape[1]
        if K * E <= MAX_DENSE_WEIGHTS:
            W = (Cm.T[:, :, None] * Bm[:, None, :]).reshape(K, E)
        else:
            outer = (Cm, Bm)
    if W is not None:
        outer = None
        W = _finite("the mode weights", np.asarray(W, dtype=np.complex128))
        if W.ndim != 2 or W.shape[0] != K:
            raise InputError(f"the mode weights are {W.shape}, expected ({K}, E)")
        E = W.shape[1]
        lam, W = _merge_dense(lam, W)
        entry = weight = None
    elif outer is None:
        entry = np.asarray(entry, dtype=np.int64).reshape(-1)
        weight = _finite("the mode weights", np.asarray(weight, dtype=np.complex128).reshape(-1))
        if entry.size != K or weight.size != K or E is None or (K and (entry.min() < 0 or entry.max() >= E)):
            raise InputError("each mode needs one entry index below E and one weight")
        lam, W, entry, weight = _merge_single(lam, entry, weight, E)
    if D0 is not None:
        D0 = _finite("D", np.asarray(D0).reshape(-1))
        if D0.size != E:
            raise InputError(f"D has {D0.size} entries, expected {E}")
        if not np.any(D0):
            D0 = None
    return ModalForm(lam, W, entry, weight, D0, bool(real), int(E), outer)


def _merge_dense(lam, W):
    keep = np.any(W != 0, axis=1)
    lam, W = lam[keep], W[keep]
    if lam.size == 0:
        return lam, W
    uniq, inverse = np.unique(lam, return_inverse=True)
    if uniq.size == lam.size:
        return lam, W
    merged = np.zeros((uniq.size, W.shape[1]), dtype=np.complex128)
    np.add.at(merged, inverse.reshape(-1), W)
    return uniq, merged


def _merge_single(lam, entry, weight, E):
    keep = weight != 0
    lam, entry, weight = lam[keep], entry[keep], weight[keep]
    if lam.size == 0:
        return lam, None, entry, weight
    uniq, inverse = np.unique(lam, return_inverse=True)
    if uniq.size == lam.size:
        return lam, None, entry, weight
    if uniq.size * E <= MAX_DENSE_WEIGHTS:  # shared modes (channels with the same A and dt): merge them
        merged = np.zeros((uniq.size, E), dtype=np.complex128)
        np.add.at(merged, (inverse.reshape(-1), entry), weight)
        return uniq, merged, None, None
    return lam, None, entry, weight


def dense_weights(form):
    """``W`` (K, E) of a form (built from the single-entry or rank-one weights when needed)."""
    if form.W is not None:
        return form.W
    if form.outer is not None:
        Cm, Bm = form.outer
        return (Cm.T[:, :, None] * Bm[:, None, :]).reshape(form.K, form.E)
    W = np.zeros((form.K, form.E), dtype=np.complex128)
    W[np.arange(form.K), form.entry] = form.weight
    return W


def _complex_modes(form):
    """``(lam, W)`` with the conjugate modes explicit (for ``real``) and D0 as the mode 0 (``0^0 = 1``); for
    rank-one weights ``(lam, None)`` (see :func:`_weight_gram`)."""
    if form.outer is not None:
        lam = np.concatenate([form.lam, np.conj(form.lam)]) if form.real else form.lam
        if form.D0 is not None:
            lam = np.concatenate([lam, [0.0]])
        return lam, None
    lam, W = form.lam, dense_weights(form)
    if form.real:
        lam = np.concatenate([lam, np.conj(lam)])
        W = np.concatenate([W / 2, np.conj(W) / 2])
    if form.D0 is not None:
        lam = np.concatenate([lam, [0.0]])
        W = np.concatenate([W, np.asarray(form.D0, dtype=np.complex128)[None, :]])
    return _merge_dense(lam, W)


def _weight_gram(form):
    """``M = W W^*`` over the modes of :func:`_complex_modes` for rank-one weights, without forming W:
    ``<vec(c_k b_k^T), vec(c_l b_l^T)> = (c_l^* c_k)(b_l^* b_k)``."""
    Cm, Bm = form.outer
    if form.real:
        Cm = np.concatenate([Cm, np.conj(Cm)], axis=1)
        Bm = np.concatenate([Bm / 2, np.conj(Bm) / 2])
    M = (Cm.T @ np.conj(Cm)) * (Bm @ np.conj(Bm).T)
    if form.D0 is not None:
        D0 = np.asarray(form.D0, dtype=np.complex128).reshape(Cm.shape[0], Bm.shape[1])
        cross = np.sum((Cm.T @ np.conj(D0)) * Bm, axis=1)  # <W_k, D0> = sum_ij c_ik b_kj conj(D_ij)
        K = M.shape[0]
        full = np.empty((K + 1, K + 1), dtype=np.complex128)
        full[:K, :K] = M
        full[:K, K] = cross
        full[K, :K] = np.conj(cross)
        full[K, K] = np.vdot(D0, D0).real
        M = full
    return (M + np.conj(M).T) / 2


# ---------------------------------------------------------------- f(z) = sum_{d<n} (n - d) z^d

def _phi2(x):
    """``(exp(x) - 1 - x) / x^2`` for complex arrays, by its series near 0 (no cancellation)."""
    x = np.asarray(x, dtype=np.complex128)
    out = np.empty_like(x)
    small = np.abs(x) < 0.5
    xs = x[small]
    term = np.full(xs.shape, 0.5, dtype=np.complex128)
    acc = term.copy()
    for j in range(1, 22):
        term = term * xs / (j + 2)
        acc = acc + term
    out[small] = acc
    xl = x[~small]
    out[~small] = (np.expm1(xl) - xl) / (xl * xl)
    return out


def weighted_geometric(z, n):
    """``f(z) = sum_{d<n} (n - d) z^d`` for complex ``z`` (an array), stable where ``z`` is near 1.

    With ``s = log z``: for ``|s| >= 1/2``, ``f = (z expm1(n s) - n expm1(s)) / expm1(s)^2``; near 1,
    ``f = (n (1 - (1 - s) phi(s)) + z n^2 phi(n s)) / (1 + s phi(s))^2`` with
    ``phi(x) = (e^x - 1 - x) / x^2`` summed by its series, so neither form cancels. ``f(0) = n``.

    Raises
    ------
    LimitError
        If a value would overflow float64 (``|z|^n`` beyond about 1e260).

    Examples
    --------
    >>> import numpy as np
    >>> z = np.array([0.5, 1.0, 1 - 1e-9, np.exp(1e-7j), 0.0])
    >>> direct = [sum((10 - d) * complex(v) ** d for d in range(10)) for v in z]
    >>> bool(np.allclose(weighted_geometric(z, 10), direct, rtol=1e-13))
    True
    """
    z = np.asarray(z, dtype=np.complex128)
    out = np.full(z.shape, complex(n), dtype=np.complex128)
    nz = z != 0
    if not np.any(nz):
        return out
    zz = z[nz]
    s = np.log(zz)
    if np.any(s.real * n > 600):
        raise LimitError(f"the geometric sums of the modes overflow float64 at n = {n} (a mode grows too fast)")
    res = np.empty_like(zz)
    near = np.abs(s) < 0.5
    sn, zn = s[near], zz[near]
    res[near] = (n * (1 - (1 - sn) * _phi2(sn)) + zn * float(n) ** 2 * _phi2(n * sn)) / (1 + sn * _phi2(sn)) ** 2
    sf, zf = s[~near], zz[~near]
    e1 = np.expm1(sf)
    res[~near] = (zf * np.expm1(n * sf) - n * e1) / (e1 * e1)
    out[nz] = res
    return out


# ---------------------------------------------------------------- the three forms

def _qr_r(X):
    return np.linalg.qr(X, mode="r")


def _doubling_factor(lam, n, progress=None):
    """``R`` (upper triangular) with ``R^* R = V^* V``, ``V[d, k] = sqrt(n - d) lam_k^d`` (d < n)."""
    K = lam.size
    ones = np.ones((1, K), dtype=np.complex128)
    cur = (1, ones, ones, lam.astype(np.complex128))  # (a, factor of W_a, factor of P_a, lam^a)
    res = None
    e = n
    steps = max(1, int(n).bit_length())
    done = 0

    def combine(x, y):
        a, Gw, Fp, La = x
        b, Gw_b, Fp_b, Lb = y
        with np.errstate(under="ignore"):
            P = _qr_r(np.concatenate([Fp, Fp_b * La[None, :]]))
            W = _qr_r(np.concatenate([Gw, math.sqrt(b) * Fp, Gw_b * La[None, :]]))
            return a + b, W, P, La * Lb

    while e:
        if e & 1:
            res = cur if res is None else combine(res, cur)
        e >>= 1
        if e:
            cur = combine(cur, cur)
        done += 1
        if progress is not None:
            progress(done, steps)
    return res[1]


def _gram_modes(lam, n):
    """``S = V^* V`` in closed form: ``S_kl = f(conj(lam_k) lam_l)``."""
    Z = np.conj(lam)[:, None] * lam[None, :]
    S = weighted_geometric(Z, n)
    return (S + np.conj(S).T) / 2


class _EntryRows:
    """Rows ``vec(L_d)`` (before the real part) from a block of powers ``P[j, k] = lam_k^(d0 + j)``: ``P @ W`` for
    dense weights; for one entry per mode, the modes sorted by entry once and each entry's sum by ``reduceat``."""

    def __init__(self, form):
        self.form = form
        self.lam = form.lam
        if form.W is None and form.outer is None:
            order = np.argsort(form.entry, kind="stable")
            self.lam = form.lam[order]
            self.weight = form.weight[order]
            ent = form.entry[order]
            self.starts = np.flatnonzero(np.r_[True, ent[1:] != ent[:-1]]) if ent.size else np.zeros(0, int)
            self.targets = ent[self.starts]
            self.norms = np.abs(self.weight)
        elif form.W is not None:
            self.norms = np.linalg.norm(form.W, axis=1)

    def __call__(self, P):
        form = self.form
        if form.W is not None:
            rows = P @ form.W
        else:
            P *= self.weight[None, :]  # P is a fresh block: scaled in place
            rows = np.zeros((P.shape[0], form.E), dtype=np.complex128)
            if self.starts.size:
                rows[:, self.targets] = np.add.reduceat(P, self.starts, axis=1)
        return rows.real if form.real else rows


def _power_table(lam, block):
    """``lam^j`` for ``j < block`` (rows) and ``lam^block``, with ``0^0 = 1``."""
    j = np.arange(block)
    with np.errstate(under="ignore"):
        table = np.exp(np.log(np.where(lam == 0, 1, lam))[None, :] * j[:, None])
        table[:, lam == 0] = (j == 0)[:, None]
        step = table[-1] * np.where(lam == 0, 0, lam)
    return table, step


def _stream(form, n, *, side, horizon, progress=None):
    """The weighted stack by QR over blocks of lags (``side``: "entries" for rows of T: its singular values;
    "modes" for rows of V: the triangular factor R, for ``R W``)."""
    if side == "modes":
        lam, W = _complex_modes(form)
        width = lam.size
        if W is not None:
            norms = np.linalg.norm(W, axis=1)
        else:  # rank-one weights: |vec(c b^T)| = |c| |b|
            Cm, Bm = form.outer
            norms = np.linalg.norm(Cm, axis=0) * np.linalg.norm(Bm, axis=1) / (2 if form.real else 1)
            if form.real:
                norms = np.concatenate([norms, norms])
            if form.D0 is not None:
                norms = np.concatenate([norms, [np.linalg.norm(form.D0)]])
    else:
        rows_of = _EntryRows(form)
        lam, norms = rows_of.lam, rows_of.norms
        width = form.E
    K = lam.size
    if K == 0:
        return np.zeros((0, 0), dtype=np.complex128) if side == "modes" else np.zeros(0)
    block = int(min(4096, max(16, 2 ** 20 // max(K, width, 1))))
    top = float(np.abs(lam).max())
    if top > 1:  # growing modes: a block must not overflow (lam^block below 1e100)
        block = max(1, min(block, int(230 / math.log(top))))
    fold = max(4 * width, 1024)  # rows gathered before each QR: the QR's cost is then mostly its new rows
    table, step = _power_table(lam, block)
    current = np.ones(K, dtype=np.complex128)
    real_rows = side == "entries" and form.real
    R = np.zeros((0, width), dtype=np.float64 if real_rows else np.complex128)
    pending, pending_rows = [], 0
    rho = float(np.abs(lam).max())
    stable = horizon and rho < 1
    total = 0.0
    d0 = 0
    scale_log = 0.0

    def folded(R, pending):
        stack = np.concatenate([R] + pending)
        return _qr_r(stack) if stack.shape[0] > width else stack

    while d0 < n:
        b = min(block, n - d0)
        P = table[:b] * current[None, :]
        weights = np.sqrt((n - d0 - np.arange(b)).astype(np.float64))[:, None]
        rows = P if side == "modes" else rows_of(P)
        if d0 == 0 and side == "entries" and form.D0 is not None:
            rows[0] = rows[0] + (form.D0.real if form.real else form.D0) * math.exp(-scale_log)
        rows = rows * weights
        total += float(np.sum(np.abs(rows) ** 2))
        pending.append(rows)
        pending_rows += b
        if pending_rows >= fold:
            R, pending, pending_rows = folded(R, pending), [], 0
        d0 += b
        with np.errstate(under="ignore", over="ignore"):
            current = current * step
        big = float(np.max(np.abs(current)))
        if big > 1e100:  # growing modes: rescale so nothing overflows (the curve is relative)
            R = folded(R, pending) / big
            pending, pending_rows = [], 0
            current = current / big
            total /= big * big
            scale_log += math.log(big)
        if progress is not None:
            progress(d0, n)
        if stable and d0 < n:
            tail = (n - d0) * float(np.sum(np.abs(current) * norms)) ** 2 / (1 - rho * rho)
            if total > 0 and tail <= HORIZON_TAIL * total:
                break
    if pending:
        R = folded(R, pending)
    if side == "modes":
        return R if R.shape[0] else np.zeros((0, width), dtype=np.complex128)
    return np.linalg.svd(R, compute_uv=False) if R.size else np.zeros(0)


# ---------------------------------------------------------------- cost model and chooser

def _horizon(form, n):
    """Lags the stream visits: n, or the decay horizon of stable modes (an estimate for the chooser)."""
    moduli = np.abs(form.lam)
    rho = float(moduli.max()) if moduli.size else 0.0
    if rho >= 1 or rho == 0:
        return n if rho >= 1 else 1
    return int(min(n, math.ceil((80 + math.log(max(n, 2))) / (-2 * math.log(rho))) + 64))


def estimates(form, n):
    """``{method: (flops, bytes)}`` for the forms that apply (real floating-point operations, bytes at peak).

    A complex Householder QR of an m x k matrix costs about ``8 m k^2`` flops, a real one ``2 m k^2``; a complex
    multiply-add 8.  The stream pays a row and its share of the QR per lag it visits (the decay horizon for stable
    modes); the doubling pays two combinations of three stacked k x k factors per bit of n, counted at a quarter of
    their flops: its QRs of small stacked triangles run about four times faster per flop than the stream's
    blocks (measured on 65 modes, benchmarks/bench_models.py).
    """
    K, E = form.K, form.E
    Kc = 2 * K + 1 if form.real else K + 1  # modes with the conjugates and D made explicit
    lags = float(_horizon(form, n))
    steps = max(1, int(n).bit_length())
    out = {}
    if form.kind == "outer":
        E1, E2 = form.outer[0].shape[0], form.outer[1].shape[1]
        weights = 16.0 * Kc * (E1 + E2 + 2 * Kc)
        final = 8.0 * Kc * Kc * (E1 + E2) + 40.0 * Kc ** 3
    else:
        weights = 16.0 * Kc * E * 2
        final = 8.0 * Kc * Kc * E + 40.0 * min(Kc, E) ** 3
        width = max(K, E)
        block = min(4096, max(16, 2 ** 20 // max(width, 1)))
        per_lag = 8.0 * (K if form.kind == "single" else K * E) + (2.0 if form.real else 8.0) * E * E
        out["stream"] = (lags * per_lag + 10.0 * E ** 3,
                         16.0 * (2 * block * width + 2 * E * E + K * (E if form.dense else 2)))
    block = min(4096, max(16, 2 ** 20 // Kc))
    out["stream-modes"] = (lags * (8.0 * Kc + 8.0 * Kc * Kc) + final, 16.0 * (2 * block * Kc + 2 * Kc * Kc) + weights)
    out["doubling"] = (20.0 * Kc ** 3 * steps + final, 16.0 * 12 * Kc * Kc + weights)
    out["gram"] = (200.0 * Kc * Kc + 40.0 * Kc ** 3 + final, 16.0 * 6 * Kc * Kc + weights)
    return out


def choose_modal_method(form, n, *, memory_limit=None):
    """The form ``method="auto"`` uses: the cheapest QR form (stream or doubling), the Gram form only when
    both would exceed :data:`QR_WORK_LIMIT` flops and it is cheaper; none over the memory limit.

    Raises
    ------
    LimitError
        If every form needs more memory than the limit (one line, before any work).
    """
    limit = _memory_limit(memory_limit)
    est = {m: w for m, w in estimates(form, n).items() if w[1] <= limit}
    if not est:
        need = min(b for _, b in estimates(form, n).values())
        raise LimitError(f"the error curve of {form.K} modes x {form.E} lag entries needs about "
                         f"{need / 2 ** 30:.1f} GiB, beyond the {limit / 2 ** 30:.1f} GiB limit")
    qr = {m: w for m, w in est.items() if m != "gram"}
    if qr:
        best = min(qr, key=lambda m: qr[m][0])
        if qr[best][0] <= QR_WORK_LIMIT or "gram" not in est or est["gram"][0] >= qr[best][0]:
            return best
    return "gram"


def _memory_limit(limit):
    if limit is not None:
        return limit
    phys = physical_memory()
    return min(MEMORY_LIMIT, phys // 2) if phys else MEMORY_LIMIT


def stack_singular_values(form, n, *, method="auto", progress=None):
    """``(s, method, precision)``: the singular values of the weighted lag stack of ``form`` on length n, the
    form used, and the absolute precision of the relative errors computed from them.

    Raises
    ------
    InputError
        For an unknown method.
    LimitError
        If the form chosen (or every form) needs more memory than the limit, or the sums overflow.
    """
    if method not in MODAL_METHODS and method != "stream-modes":
        raise InputError(f"method must be one of {', '.join(MODAL_METHODS)}; got {method!r}")
    if method == "auto":
        method = choose_modal_method(form, n)
    with _one_blas_thread(form.E if method == "stream" else (2 * form.K + 1 if form.real else form.K + 1)):
        return _singular_values(form, n, method, progress)


#: Factors at most this wide are reduced on one BLAS thread: their QRs are too small to gain from two, and lose
#: several times over when the other core is busy (as for the skinny products of the numeric path).
ONE_THREAD_WIDTH = 512


def _one_blas_thread(width):
    import contextlib

    if width > ONE_THREAD_WIDTH:
        return contextlib.nullcontext()
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def _singular_values(form, n, method, progress):
    eps = np.finfo(np.float64).eps
    gram_precision = math.sqrt(16 * eps * max(1, min(2 * form.K + 1, form.E)))
    if method == "gram":
        lam, W = _complex_modes(form)
        S = _gram_modes(lam, n)
        if W is not None and W.shape[1] <= lam.size:
            G = np.conj(W).T @ S @ W
            ev = np.linalg.eigvalsh((G + np.conj(G).T) / 2)
        else:
            w, U = np.linalg.eigh(S)
            half = (U * np.sqrt(np.clip(w, 0, None))[None, :]) @ np.conj(U).T
            M = half @ (W @ np.conj(W).T if W is not None else _weight_gram(form)) @ half
            ev = np.linalg.eigvalsh((M + np.conj(M).T) / 2)
        return np.sqrt(np.sort(np.clip(ev, 0, None))[::-1]), "gram", gram_precision
    if method in ("doubling", "stream-modes"):
        lam, W = _complex_modes(form)
        if method == "doubling":
            if lam.size and float(np.abs(lam).max()) > 1 and (n - 1) * math.log(float(np.abs(lam).max())) > 300:
                raise LimitError(f"the modes grow too fast for the doubling form at n = {n}")
            R = _doubling_factor(lam, n, progress)
            precision = 64 * eps * math.sqrt(max(1, lam.size)) * max(1, int(n).bit_length())
        else:
            R = _stream(form, n, side="modes", horizon=True, progress=progress)
            precision = 16 * eps * math.sqrt(max(1, lam.size))
        if W is not None:
            return np.linalg.svd(R @ W, compute_uv=False), method.split("-")[0], precision
        X = R @ _weight_gram(form) @ np.conj(R).T
        ev = np.linalg.eigvalsh((X + np.conj(X).T) / 2)
        return np.sqrt(np.sort(np.clip(ev, 0, None))[::-1]), method.split("-")[0], gram_precision
    s = _stream(form, n, side="entries", horizon=True, progress=progress)
    return s, "stream", 16 * eps * math.sqrt(max(1, form.E))


def modal_lags(form, count):
    """The first ``count`` lags as rows ``vec(L_d)`` (count x E; real when ``form.real``)."""
    if count <= 0:
        return np.zeros((0, form.E))
    d = np.arange(count)
    with np.errstate(under="ignore"):
        P = np.exp(np.log(np.where(form.lam == 0, 1, form.lam))[None, :] * d[:, None])
        P[:, form.lam == 0] = (d == 0)[:, None]
    if form.W is not None:
        rows = P @ form.W
    else:
        rows = np.zeros((count, form.E), dtype=np.complex128)
        np.add.at(rows.T, form.entry, (P * form.weight[None, :]).T)
    if form.real:
        rows = rows.real
    if form.D0 is not None:
        rows[0] = rows[0] + (form.D0.real if form.real else form.D0)
    return rows
