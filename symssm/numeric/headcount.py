"""The numeric float path: numerical head counts and best H-head approximation errors.

Everything here is **numerical** (floating point) and labelled so; nothing is a certificate.
For an exact, certified answer use :func:`symssm.certify`.

One question, answered as the certified path answers it
    The length-n operator repeats lag ``d`` on ``n - d`` block diagonals, so the Frobenius error of an
    approximation of the operator is that of the stack of rows ``sqrt(n - d) vec(L_d)``.  With the
    singular values ``s_1 >= s_2 >= ...`` of that stack, the best H-head model (Eckart-Young, coefficients
    free per lag) has relative error ``e_H = sqrt(sum_{i > H} s_i^2 / sum_i s_i^2)``.  The **numerical head
    count at tolerance tau** is the least H with ``e_H <= tau``: the quantity the certified eps-head count
    brackets (``symssm certify --tolerance``), so the two paths agree wherever the brackets decide.

The stack is reduced without storing it
    ``direct`` (all n lags, folded into a triangular factor by QR), ``horizon`` (a stable system's lags
    past the point where their weighted tail is below 1e-34 of the total are dropped), ``closed-form`` (A
    diagonalisable and well conditioned: the modal forms of :mod:`symssm.numeric.modal`, whose cost does not
    grow with n and which keep the QR accuracy; a growing A at a length where those overflow takes geometric
    sums in a rescaled log form) and ``doubling`` (any A, a defective one included: weighted Stein sums by
    square-and-multiply).  The last two that form a Gram matrix resolve the curve to about 1e-8 only; the
    result says so (``precision``).

A diagnostic, never the count
    ``lag_rank``: the rank of the unit-normalised lags ``vec(L_d) / ||L_d||`` of the first ``min(n, T)``
    lags (T = N, or N + 1 with D).  It is scale-free, which shows the exact span of lags that grow or shrink
    by many orders of magnitude, but a slow mode (``|lambda|`` near 1) makes the normalised rows nearly
    collinear, so it undercounts what the error curve needs.

Examples
--------
>>> from symssm import ssm
>>> res = numeric_head_count(ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]]), 100)
>>> res.numerical_head_count, res.approximation_error[-1] < 1e-12, res.lag_rank
(2, True, 2)
"""

import math
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from .backend import get_namespace
from ..errors import InputError, LimitError
from ..formats.limits import check_n
from ..formats.rationals import Tolerance, parse_tolerance
from ..sources.system import SSM

__all__ = ["NumericResult", "NamedFloatSystem", "numeric_head_count", "as_float_system",
           "choose_method", "curve_from_singular_values", "check_tolerance", "DEFAULT_TOL", "DEFAULT_LAG_RANK_TOL",
           "METHODS"]

#: Default tolerance: the numerical head count is the least H whose best H-head relative error is at most this.
DEFAULT_TOL = 1e-10
#: Default relative singular-value threshold of the normalised-lag rank (the diagnostic).
DEFAULT_LAG_RANK_TOL = 1e-10
#: Relative singular values and curve points kept in a result (the count is computed from all of them).
KEPT = 64


def check_tolerance(value, what="tolerance"):
    """A tolerance as a float in (0, 1): checked by the one tolerance reader, a float kept as it is.

    Parameters
    ----------
    value : float, str, Fraction or Tolerance
        The tolerance (``1e-3``, ``"1/1000"``); a :class:`~symssm.formats.rationals.Tolerance` was read at the
        boundary and is not read again.
    what : str
        Its name in the message.

    Returns
    -------
    float

    Raises
    ------
    InputError
        If ``value`` is not a number in (0, 1) (:func:`~symssm.formats.rationals.parse_tolerance`'s messages).

    Examples
    --------
    >>> check_tolerance(1e-3), check_tolerance("1/4")
    (0.001, 0.25)
    """
    if isinstance(value, Tolerance):  # read at the boundary already (the command line's --tolerance)
        return float(value)
    if isinstance(value, (float, np.floating)):
        value = float(value)
        parse_tolerance(value, what=what)  # the one reader's range and messages; the float itself is kept
        return value
    return float(parse_tolerance(value, what=what))


def curve_from_singular_values(s, tolerance):
    """``(errors, k, gap, cut)`` from the singular values of a weighted stack.

    ``errors[H] = e_H`` for H = 0..k (k: the least H with ``e_H <= tolerance``), ``gap = s_k / s_(k+1)``
    (None when there is no non-zero ``s_(k+1)``), ``cut``: whether later (non-zero) errors were left out.

    Examples
    --------
    >>> errors, k, gap, cut = curve_from_singular_values([3.0, 1.0, 1e-6], 1e-3)
    >>> k, [round(e, 7) for e in errors], round(gap), cut
    (2, [1.0, 0.3162278, 3e-07], 1000000, True)
    """
    s = np.sort(np.abs(np.asarray(s, dtype=np.float64)))[::-1]
    sq = s * s
    total = float(sq.sum())
    if total <= 0:
        return [0.0], 0, None, False
    tails = np.concatenate([np.cumsum(sq[::-1])[::-1], [0.0]])  # summed from the smallest: no cancellation
    full = [math.sqrt(max(float(t), 0.0) / total) for t in tails]
    k = next(H for H, e in enumerate(full) if e <= tolerance)
    gap = float(s[k - 1] / s[k]) if 0 < k < s.size and s[k] > 0 else None
    return full[:k + 1], k, gap, bool(full[k] > 0)


@dataclass(frozen=True)
class NumericResult:
    """A numerical (floating-point) head count; never a certificate.

    ``numerical_head_count``: the least H with ``e_H <= tolerance``; ``approximation_error``: ``e_0 .. e_k``
    (``approximation_error_cut``: later non-zero values left out); ``singular_values``: those of the weighted
    lag stack relative to its Frobenius norm (at most 64); ``gap``: ``s_k / s_(k+1)``; ``precision``: the
    absolute accuracy of the computed ``e_H`` (``resolved`` is False when the tolerance is below it);
    ``lag_rank``: the normalised-lag rank (a diagnostic, at ``lag_rank_tolerance``) with its singular values
    and gap.
    """

    name: str
    n: int
    numerical_head_count: int
    singular_values: tuple
    tolerance: float
    gap: float
    approximation_error: tuple
    approximation_method: str
    backend: str
    device: str
    approximation_error_cut: bool = False
    precision: float = 0.0
    lag_rank: Optional[int] = None
    lag_rank_tolerance: float = DEFAULT_LAG_RANK_TOL
    lag_rank_singular_values: tuple = ()
    lag_rank_gap: Optional[float] = None
    numerical: bool = field(default=True)
    #: The number of singular values of the weighted lag stack: from this H on, e_H = 0 exactly (not measured).
    exact_heads: Optional[int] = None

    @property
    def head_count_range(self):
        """``(low, high)``: the head counts this curve cannot tell apart at the tolerance.

        ``low`` is the least H whose computed ``e_H`` is within the curve's precision of the tolerance or
        below it (its true error may be at most the tolerance); ``high`` the numerical head count (the
        least H whose computed ``e_H`` is at most the tolerance) when its error is below the tolerance by
        more than the precision or is zero exactly (H at least ``exact_heads``), else ``exact_heads``, from
        which H-head models are exact.  One number only when ``low == high``.

        Examples
        --------
        >>> r = NumericResult("", 8, 3, (), 1e-10, None, (1.0, 1e-9, 1e-11, 0.0), "direct", "numpy", "cpu",
        ...                   precision=1e-8, exact_heads=3)
        >>> r.head_count_range, r.resolved
        ((1, 3), False)
        """
        k, errors = self.numerical_head_count, self.approximation_error
        low = next((H for H, e in enumerate(errors[:k]) if e <= self.tolerance + self.precision), k)
        certain = errors[k] + self.precision <= self.tolerance or (self.exact_heads is not None
                                                                    and k >= self.exact_heads)
        high = k if certain or self.exact_heads is None else max(k, self.exact_heads)
        return low, high

    @property
    def resolved(self):
        """Whether the count is one number: the tolerance above the curve's precision, no H within it of tau."""
        return bool(self.tolerance > self.precision) and self.head_count_range == (self.numerical_head_count,) * 2

    def below_precision(self, H):
        """True if the computed ``e_H`` is below the curve's precision: not a measured value (0.0 included)."""
        return self.approximation_error[H] < self.precision

    def __repr__(self):
        curve = ", ".join(f"{e:.3g}" for e in self.approximation_error[:12])
        more = ", ..." if self.approximation_error_cut or len(self.approximation_error) > 12 else ""
        low, high = self.head_count_range
        count = f"{high}" if low == high else f"between {low} and {high} (unresolved)"
        return (f"NumericResult(numerical head count {count} of {self.name or 'the system'!r} on "
                f"n = {self.n} at tolerance {self.tolerance:g}; e_H = {curve}{more}; {self.approximation_method}; "
                f"normalised-lag rank {self.lag_rank}; floating point, not a certificate)")

    def _repr_html_(self):
        """Jupyter: the numerical head count with its error curve and gap, labelled numerical."""
        import html

        gap = "infinite" if self.gap is None else f"{self.gap:.3e}"
        curve = "".join(f"<tr><td>{H}</td><td>{'below precision' if self.below_precision(H) else f'{e:.3e}'}</td></tr>"
                        for H, e in enumerate(self.approximation_error))
        if self.approximation_error_cut:
            curve += "<tr><td>...</td><td>...</td></tr>"
        note = ("" if self.resolved else f"<p>The tolerance is below the curve's precision ({self.precision:.1e}): "
                "the count is not resolved at it.</p>")
        low, high = self.head_count_range
        count = f"{high}" if low == high else f"between {low} and {high} (unresolved)"
        return (f"<p><b>Numerical</b> head count of {html.escape(self.name or 'the system')} on n = {self.n}: "
                f"<b>{count}</b>, the least H whose best H-head relative error is at most "
                f"{self.tolerance:g}; gap s_k/s_(k+1) = {gap}; normalised-lag rank (diagnostic) {self.lag_rank} "
                f"(floating point; not a certificate)</p>{note}<table><tr><th>H</th><th>best H-head error e_H</th></tr>"
                f"{curve}</table>")

    def to_json_data(self):
        """JSON-ready dict (keys: numerical_head_count, approximation_error, tolerance, gap, lag_rank, ...)."""
        fmt = lambda x: float(f"{x:.17g}")
        return {
            "kind": "numerical-head-count",
            "numerical": True,
            "note": "floating-point result, not a certificate; numerical_head_count is the least H whose best H-head "
                    "relative error is at most the tolerance; for an exact certified count run 'symssm certify' "
                    "(--tolerance for the eps-head count)",
            "name": self.name,
            "n": self.n,
            "numerical_head_count": self.numerical_head_count,
            "numerical_head_count_low": self.head_count_range[0],
            "numerical_head_count_high": self.head_count_range[1],
            "tolerance": self.tolerance,
            "approximation_error": [fmt(e) for e in self.approximation_error],
            "approximation_error_cut": self.approximation_error_cut,
            "singular_values": [fmt(s) for s in self.singular_values],
            "gap": None if self.gap is None else fmt(self.gap),
            "precision": fmt(self.precision),
            "resolved": self.resolved,
            "approximation_method": self.approximation_method,
            "lag_rank": self.lag_rank,
            "lag_rank_tolerance": self.lag_rank_tolerance,
            "lag_rank_singular_values": [fmt(s) for s in self.lag_rank_singular_values],
            "lag_rank_gap": None if self.lag_rank_gap is None else fmt(self.lag_rank_gap),
            "backend": self.backend,
            "device": self.device,
        }


@dataclass(frozen=True)
class NamedFloatSystem:
    """Float matrices with a name (what the numeric command line reads from a spec)."""

    A: object
    B: object
    C: object
    D: object = None
    name: str = ""

    @property
    def N(self):
        return int(np.shape(self.A)[0])

    @property
    def p(self):
        return int(np.shape(self.C)[0])

    @property
    def m(self):
        return int(np.shape(self.B)[1])


def as_float_system(A, B, C, D=None):
    """Validate numeric matrices (arrays or nested lists): float64, or complex128 if any is complex.

    Raises
    ------
    InputError
        If a matrix is not 2-D, has non-finite entries, or the shapes do not fit.
    """
    out = []
    for name, M in (("A", A), ("B", B), ("C", C), ("D", D)):
        if M is None:
            out.append(None)
            continue
        complex_input = np.iscomplexobj(M) or (hasattr(M, "dtype") and "complex" in str(M.dtype))
        try:
            arr = np.asarray(M, dtype=np.complex128 if complex_input else np.float64)
        except (TypeError, ValueError) as exc:
            raise InputError(f"{name} is not a numeric matrix ({exc})") from None
        if arr.ndim != 2:
            raise InputError(f"{name} must be a 2-D matrix, got shape {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise InputError(f"{name} has entries that are not finite float64 numbers")
        out.append(arr)
    if any(M is not None and np.iscomplexobj(M) for M in out):  # complex arithmetic throughout
        out = [None if M is None else M.astype(np.complex128) for M in out]
    A, B, C, D = out
    N = A.shape[0]
    if A.shape != (N, N) or N == 0:
        raise InputError(f"A is {A.shape[0]}x{A.shape[1]} but must be square and non-empty")
    if B.shape[0] != N:
        raise InputError(f"B is {B.shape[0]}x{B.shape[1]} but A is {N}x{N}")
    if C.shape[1] != N:
        raise InputError(f"C is {C.shape[0]}x{C.shape[1]} but A is {N}x{N}")
    if D is not None and D.shape != (C.shape[0], B.shape[1]):
        raise InputError(f"D is {D.shape[0]}x{D.shape[1]} but must be {C.shape[0]}x{B.shape[1]}")
    if D is not None and not np.any(D):
        D = None
    return A, B, C, D


def _from_source(system):
    if isinstance(system, NamedFloatSystem):
        return (*as_float_system(system.A, system.B, system.C, system.D), system.name)
    if isinstance(system, SSM):
        f = lambda M: None if M is None else np.array([[float(x) for x in row] for row in M], dtype=np.float64)
        return f(system.A), f(system.B), f(system.C), f(system.D), system.name
    if isinstance(system, (tuple, list)) and len(system) in (3, 4):
        return (*as_float_system(*system), "")
    if all(hasattr(system, k) for k in ("A", "B", "C", "D")):
        return (*_from_state_space_object(system), "")
    raise InputError("numeric_head_count takes an SSM, a tuple (A, B, C[, D]) of float matrices, or a python-control "
                     "/ scipy.signal state-space system")


def _from_state_space_object(sys_):
    """A python-control or scipy.signal system ``x+ = A x + B u, y = C x + D u`` in symssm's convention.

    Its Markov parameters ``D, CB, CAB, ...`` are the lags of the 2N-state system with state
    ``[x_(i+1); x_i]``: ``A' = [[A, 0], [I, 0]]``, ``B' = [B; 0]``, ``C' = [0, C]``, ``D' = D``
    (docs/families.md; :func:`symssm.sources.interop.from_state_space` is the exact version).
    """
    A, B, C, D = (np.atleast_2d(np.asarray(getattr(sys_, k))) for k in ("A", "B", "C", "D"))
    N = A.shape[0]
    Az = np.block([[A, np.zeros((N, N))], [np.eye(N), np.zeros((N, N))]])
    Bz = np.vstack([B, np.zeros_like(B)])
    Cz = np.hstack([np.zeros_like(C), C])
    return as_float_system(Az, Bz, Cz, D)


class _Progress:
    """A bar for long sums (:mod:`symssm.formats.progress`: on a terminal only), for runs of 20,000 lags or more."""

    def __init__(self, total, label):
        from ..formats.progress import Progress, on_terminal

        self.bar = Progress(total, label, "lag", enabled=total >= 20000 and on_terminal())

    def __call__(self, done, total=None):
        self.bar.update_to(done, total)

    def close(self):
        self.bar.close()


def lag_span_columns(xp, A, B, C, D, count, *, full_rank_tol=None):
    """Unit-normalised ``vec(L_d) / ||L_d||`` for ``d < count`` as the columns of a (pm, count) array.

    The state block ``A^d B`` is renormalised at every step (its direction is all that matters),
    so lags that grow or shrink by hundreds of orders of magnitude neither overflow nor vanish.
    Zero lags give zero columns.  With ``full_rank_tol`` it stops as soon as the stack has
    numerical rank ``pm`` at that tolerance (no further lag can raise it).  Uses only the array API.
    """
    N, m = B.shape
    p = C.shape[0]
    cols = []
    X = B
    for d in range(count):
        L = C @ X
        if d == 0 and D is not None:
            L = L + D
        v = xp.reshape(L, (p * m,))
        nrm = float(xp.linalg.vector_norm(v))
        cols.append(v / nrm if nrm > 0 else v)
        X = A @ X
        size = float(xp.linalg.vector_norm(xp.reshape(X, (N * m,))))
        if size > 0:
            X = X / size
        if full_rank_tol is not None and len(cols) % (p * m) == 0:
            if _rank(xp.linalg.svdvals(xp.stack(cols, axis=1)), full_rank_tol)[0] == p * m:
                break
    if not cols:
        return xp.zeros((p * m, 0), dtype=B.dtype)
    return xp.stack(cols, axis=1)


def _rank(s, tol):
    s = [float(v) for v in s]
    if not s or s[0] <= 0.0:
        return 0, s, None
    k = sum(1 for v in s if v > tol * s[0])
    gap = s[k - 1] / s[k] if k < len(s) and s[k] > 0 else None
    return k, s, gap


#: Rows of the weighted lag stack gathered before each QR update of the triangular factor.
_QR_BLOCK = 256


def _weighted_factor_direct(xp, A, B, C, D, n, *, stop_when_decayed, progress):
    """A triangular factor R with R^T R = the Gram matrix of sqrt(n-d) vec(L_d), d < n (or up to the horizon).

    R is updated by QR of the stacked rows, block by block, so its singular values are those of the
    weighted lag stack to rounding (an explicit Gram matrix would square the condition number and
    leave an error floor near 1e-8 where the exact error is 0).  Scaled by exp(-log_scale).
    """
    N, m = B.shape
    p = C.shape[0]
    R = xp.zeros((0, p * m), dtype=B.dtype)
    rows = []

    def fold(R, rows):
        if not rows:
            return R
        stack = xp.concat([R, xp.stack(rows, axis=0)], axis=0)
        return xp.linalg.qr(stack, mode="reduced")[1] if stack.shape[0] > p * m else stack

    X = B
    log_scale = 0.0  # X_true = X * exp(log_scale)
    total = 0.0
    shrinking = 0
    prev = None
    used = n
    for d in range(n):
        L = C @ X
        if d == 0 and D is not None:
            L = L + D * math.exp(-log_scale)
        v = xp.reshape(L, (p * m,))
        w = float(n - d)
        contrib = w * _squared_norm(xp, v)
        rows.append(math.sqrt(w) * v)
        if len(rows) >= _QR_BLOCK:
            R, rows = fold(R, rows), []
        total += contrib
        X = A @ X
        size = float(xp.linalg.vector_norm(xp.reshape(X, (N * m,))))
        if size == 0.0:
            used = d + 1
            break
        if size > 1e100:  # renormalise growing lags so nothing overflows (shrinking ones just fade)
            factor = 1.0 / size
            X = X * factor
            R, rows = fold(R, rows) * factor, []
            total *= factor * factor
            log_scale -= math.log(factor)
        if stop_when_decayed:
            shrinking = shrinking + 1 if (prev is not None and size < prev) else 0
            prev = size
            if shrinking >= 8 and (n - d) * _squared_norm(xp, C @ X) < 1e-34 * max(total, 1e-300):
                used = d + 1
                break
        if progress is not None and d % 1000 == 0:
            progress(d)
    return fold(R, rows), used


def _squared_norm(xp, v):
    """Sum of squared moduli (real or complex arrays, array API only)."""
    return float(xp.linalg.vector_norm(xp.reshape(v, (-1,)))) ** 2


def _weighted_gram_closed_form(A, B, C, D, n):
    """Closed form for diagonalisable, well-conditioned A (numpy, complex arithmetic); None if not applicable."""
    lam, V = np.linalg.eig(A)
    if np.linalg.cond(V) > 1e8:
        return None
    W = np.linalg.solve(V, B.astype(complex))  # V^-1 B
    CV = C.astype(complex) @ V
    N = A.shape[0]
    p, m = C.shape[0], B.shape[1]
    M = np.stack([np.outer(CV[:, k], W[k, :]).reshape(p * m) for k in range(N)], axis=1)  # (pm, N)
    logs = np.log(np.abs(lam) + 1e-300)
    shift = max(0.0, float(np.max(logs))) * (n - 1)  # largest |lambda|^(2(n-1)) exponent / 2
    Z = lam[:, None] * np.conj(lam)[None, :]
    S = np.empty_like(Z)
    for (i, j), z in np.ndenumerate(Z):
        S[i, j] = _weighted_geometric(z, n, 2 * shift)
    G = M @ S @ M.conj().T
    if not np.iscomplexobj(A) and not np.iscomplexobj(B) and not np.iscomplexobj(C):
        G = G.real
    # d = 0 term with D: replace sum_k M_k by L_0 = CB + D (weight n).
    if D is not None:
        scale = math.exp(-2 * shift)
        L0k = M.sum(axis=1)
        L0 = (C @ B + D).reshape(p * m)
        G = G - n * scale * np.outer(L0k, L0k.conj()) + n * scale * np.outer(L0, np.conj(L0))
        if not np.iscomplexobj(G) or not np.iscomplexobj(L0):
            G = np.real(G)
    return G


#: The doubling form keeps min(p, m)^2 blocks of N x N: at most this many numbers ...
DOUBLING_MAX_ENTRIES = 20_000_000
#: ... and at most this many multiply-adds over its O(log n) steps (about a minute on one core at worst).
DOUBLING_MAX_WORK = 300_000_000_000


def doubling_fits(N, p, m, n):
    """Whether the doubling form's memory and work stay within the limits above for this shape and n."""
    blocks = min(p, m) ** 2
    return blocks * N * N <= DOUBLING_MAX_ENTRIES and 8 * blocks * N ** 3 * max(1, int(n).bit_length()) \
        <= DOUBLING_MAX_WORK


def _weighted_gram_doubling(A, B, C, D, n):
    """``sum_{d<n} (n - d) vec(L_d) vec(L_d)^*`` in O(log n) products, for any A (defective too).

    Column by column, ``L_d[:, j] = C A^d b_j``, so the Gram matrix's block (j, l) is
    ``C S_jl C^*`` with the weighted Stein sum ``S_jl = sum_{d<n} (n - d) A^d b_j b_l^* A^{*d}``.
    With ``P_k = sum_{d<k} A^d Y A^{*d}`` and ``Q_k = sum_{d<k} d A^d Y A^{*d}`` (Y holding every
    ``b_j b_l^*``), two runs combine as ``P_{a+b} = P_a + A^a P_b A^{*a}``,
    ``Q_{a+b} = Q_a + A^a (Q_b + a P_b) A^{*a}``, so square-and-multiply gives ``n P_n - Q_n`` in
    O(log n) steps of ``m^2`` products of N x N matrices (rows instead of columns when p < m).
    Raises InputError when float64 cannot represent the sums (they overflow) at this n.
    """
    A, B, C = np.asarray(A), np.asarray(B), np.asarray(C)
    p, m = C.shape[0], B.shape[1]
    if p < m:  # L_d^T = B^T (A^T)^d C^T: fewer blocks; transpose back at the end
        GT = _weighted_gram_doubling(A.T, C.T, B.T, None if D is None else np.asarray(D).T, n)
        perm = np.arange(p * m).reshape(p, m).T.reshape(p * m)  # vec of L^T -> vec of L
        inv = np.argsort(perm)
        return GT[np.ix_(inv, inv)]
    N = A.shape[0]
    dtype = complex if (np.iscomplexobj(A) or np.iscomplexobj(B) or np.iscomplexobj(C)) else float
    A = A.astype(dtype)
    Bd = B.astype(dtype)
    Y = np.einsum("ij,kl->jlik", Bd, np.conj(Bd))  # Y[j, l] = b_j b_l^* (N x N), batched

    def move(Ak, X):  # A^k X A^{*k} for every block at once (batched BLAS products)
        return Ak @ X @ np.conj(Ak).T

    zero = np.zeros_like(Y)
    res = (0, zero, zero, np.eye(N, dtype=dtype))  # (count, P, Q, A^count)
    cur = (1, Y, zero, A)
    e = n
    with np.errstate(over="ignore", invalid="ignore"):
        while e:
            if e & 1:
                a, Pa, Qa, Aa = res
                b, Pb, Qb, Ab = cur
                res = (a + b, Pa + move(Aa, Pb), Qa + move(Aa, Qb + a * Pb), Aa @ Ab)
            e >>= 1
            if e:
                k, Pk, Qk, Ak = cur
                cur = (2 * k, Pk + move(Ak, Pk), Qk + move(Ak, Qk + k * Pk), Ak @ Ak)
            if not all(np.all(np.isfinite(x)) for x in (res[1], res[2], cur[1], cur[2])):
                raise InputError(f"the weighted sums of the lags overflow float64 at n = {n} (the system grows too "
                                 "fast for the numeric path at this length); try a smaller n")
    S = n * res[1] - res[2]  # S[j, l] = sum_{d<n} (n - d) A^d b_j b_l^* A^{*d}
    Cd = C.astype(dtype)
    T = Cd @ S @ np.conj(Cd).T  # T[j, l] = C S_jl C^* (p x p)
    G = T.transpose(2, 0, 3, 1).reshape(p * m, p * m)  # G[(r, j), (s, l)], row-major vec of L_d
    if D is not None:
        L0k = (C @ B).reshape(p * m)
        L0 = (C @ B + D).reshape(p * m)
        G = G - n * np.outer(L0k, np.conj(L0k)) + n * np.outer(L0, np.conj(L0))
    if dtype is float:
        G = np.real(G)
    return G


def _weighted_geometric(z, n, log_shift):
    """exp(-log_shift) * sum_{d=0}^{n-1} (n - d) z^d, stable for large n."""
    if abs(z - 1) < 1e-12:
        return complex(n * (n + 1) / 2 * math.exp(-log_shift))
    if abs(z) < 1 and log_shift == 0:
        return (n - (n + 1) * z + z ** (n + 1)) / (1 - z) ** 2
    logz = np.log(complex(z))
    big = np.exp((n + 1) * logz - log_shift)
    return (n * math.exp(-log_shift) - (n + 1) * z * math.exp(-log_shift) + big) / (1 - z) ** 2


def _errors_from_squares(ev, k):
    """``e_H`` for H = 0..k from the squared singular values ``ev`` (0 past the factor's own values)."""
    ev = np.asarray(ev, dtype=np.float64)
    total = float(ev.sum())
    if total <= 0:
        return [0.0] * (k + 1)
    tails = np.concatenate([np.cumsum(ev[::-1])[::-1], [0.0]])
    return [math.sqrt(float(tails[min(H, len(ev))]) / total) for H in range(k + 1)]


def _gram_singular_values(G):
    ev = np.linalg.eigvalsh(np.asarray(G))[::-1]
    return np.sqrt(np.clip(ev, 0.0, None))


#: Methods of the error curve (see the module docstring).
METHODS = ("auto", "direct", "horizon", "closed-form", "doubling")
#: ``auto`` considers the horizon form only past this many multiples of N: below it the direct
#: sum over n lags costs about as much as finding where a stable system's tail becomes negligible.
HORIZON_MIN_RATIO = 4
#: ``auto`` takes the closed form (cost independent of n) once n exceeds this, for systems that are not
#: stable or whose decay horizon is longer: the direct sum costs O(n N^2 m) and took about 2 s at N = 64 and
#: n = 200,000 on a 2-core machine (docs/performance.md), while the modal forms cost O(N^3 log n).
CLOSED_FORM_MIN_N = 200_000
#: Largest condition number of the eigenvector matrix the closed form accepts (its weights lose that factor).
MAX_EIGENVECTOR_CONDITION = 1e8


def _spectral_radius(A):
    return float(np.max(np.abs(np.linalg.eigvals(A)))) if A.size else 0.0


def choose_method(A, n):
    """The error-curve method ``method="auto"`` uses for state matrix ``A`` and length ``n``.

    ``direct`` up to ``HORIZON_MIN_RATIO * N``.  Beyond, ``horizon`` (which stops once a decaying
    system's weighted tail is negligible, and is the direct sum otherwise) up to
    ``CLOSED_FORM_MIN_N``; past that, ``horizon`` only where :func:`decay_horizon_bound` proves the
    lags negligible within ``CLOSED_FORM_MIN_N`` steps, and ``closed-form`` otherwise (slow modes,
    ``|lambda|`` near 1, transients of non-normal matrices, systems that do not decay).  The closed
    form falls back to the doubling form (O(log n) products, any A) where A is defective or its
    eigenvectors are badly conditioned, so the cost past ``CLOSED_FORM_MIN_N`` does not grow with n.

    Examples
    --------
    >>> import numpy as np
    >>> choose_method(np.array([[0.5]]), 3), choose_method(np.array([[0.5]]), 10**6)
    ('direct', 'horizon')
    >>> choose_method(np.array([[2.0]]), 10**6), choose_method(np.array([[0.99999]]), 10**7)
    ('closed-form', 'closed-form')
    >>> choose_method(np.array([[0.999999, 0.002], [0.0, 0.99]]), 10**9)  # power iteration misjudges it
    'closed-form'
    """
    N = A.shape[0]
    if n <= HORIZON_MIN_RATIO * N:
        return "direct"
    if n <= CLOSED_FORM_MIN_N:
        return "horizon"
    if decay_horizon_bound(A, CLOSED_FORM_MIN_N) <= CLOSED_FORM_MIN_N:
        return "horizon"
    return "closed-form"


def decay_horizon_bound(A, limit):
    """A bound on the lag after which ``||A^d||_2 <= 2^-HORIZON_BITS`` (a float past ``limit`` when none is found).

    By repeated squaring: the norms ``||A^(2^j)||_2`` (computed, not estimated) until one is at most
    ``1/2``, say at ``K = 2^j``.  Every ``A^r`` with ``r < K`` is a product of distinct ``A^(2^i)``,
    ``i < j``, so ``||A^r|| <= M = prod_i max(1, ||A^(2^i)||)``, and ``||A^d|| <= M 2^-floor(d/K)``:
    the lags are below ``2^-HORIZON_BITS`` of their start from ``d = K (HORIZON_BITS + log2 M + 1)``
    on.  Unlike a power-iteration estimate of the spectral radius, this bound holds for non-normal
    matrices (a slow mode hidden behind a fast one, a long transient); rounding in the products
    changes it by a relative ``O(N eps)`` per squaring.

    Examples
    --------
    >>> import numpy as np
    >>> decay_horizon_bound(np.array([[0.5]]), 10**6)
    65
    >>> decay_horizon_bound(np.array([[0.999999, 0.002], [0.0, 0.99]]), 10**6) > 10**6
    True
    """
    X = np.asarray(A, dtype=complex if np.iscomplexobj(A) else float)
    if X.size == 0:
        return 0
    K, log2M = 1, 0.0
    with np.errstate(over="ignore", invalid="ignore"):
        while True:
            norm = float(np.linalg.norm(X, 2)) if np.all(np.isfinite(X)) else math.inf
            if norm == 0.0:
                return K
            if norm <= 0.5:
                return int(K * (HORIZON_BITS + math.ceil(log2M) + 1))
            if not math.isfinite(norm) or K > limit:
                return math.inf
            log2M += max(0.0, math.log2(norm))
            if K * (HORIZON_BITS + log2M + 1) > 2 * limit and norm >= 1.0:
                return math.inf
            X = X @ X
            K *= 2


#: The decay the horizon form needs before it stops (its tail test compares squares with 1e-34).
HORIZON_BITS = 64


def numeric_head_count(system, n, *, tolerance=DEFAULT_TOL, tol=None, lag_rank_tol=DEFAULT_LAG_RANK_TOL,
                       device="cpu", xp=None, method="auto", progress=None):
    """Numerical head count at ``tolerance``: the least H whose best H-head relative error is at most it.

    Parameters
    ----------
    system : SSM or tuple (A, B, C[, D]) of float matrices
        Also a python-control / scipy.signal state-space object.
    n : int
        Sequence length (>= 1).
    tolerance : float
        The relative error tau in (0, 1): the count is the least H with ``e_H <= tau`` (default 1e-10).
    tol : float, optional
        The same (the older name); if given it wins.
    lag_rank_tol : float
        Relative singular-value threshold of the normalised-lag rank (``lag_rank``, a diagnostic).
    device : {"cpu", "cuda"}
    xp : array namespace, optional
        Run the core in this namespace instead (tests pass ``array_api_strict``).
    method : {"auto", "direct", "horizon", "closed-form", "doubling"}
        How to reduce the weighted lag stack.
    progress : callable, optional
        ``progress(done, total)`` as the work advances.

    Returns
    -------
    NumericResult

    Raises
    ------
    InputError
        If ``n``, a tolerance or ``method`` is not valid, or the matrices are not finite matrices
        of fitting shapes.
    LimitError
        If the weighted sums overflow float64 at this n.
    BackendError
        If ``device="cuda"`` and no usable CuPy / GPU is present.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.diag([0.995, 0.99, 0.9]); B = np.eye(3); C = np.eye(3)
    >>> res = numeric_head_count((A, B, C), 1024, tolerance=1e-3)
    >>> res.numerical_head_count, res.approximation_error[-1] <= 1e-3 < res.approximation_error[-2]
    (3, True)
    """
    check_n(n, minimum=1)
    tolerance = check_tolerance(tol if tol is not None else tolerance)
    lag_rank_tol = check_tolerance(lag_rank_tol, "lag_rank_tol")
    if method not in METHODS:
        raise InputError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
    A, B, C, D, name = _from_source(system)
    with _blas_threads(B.shape[1]):
        return _numeric_core(A, B, C, D, name, n, tolerance, lag_rank_tol, device, xp, method, progress)


#: Products ``A X`` with X of at most this many columns are skinny: one BLAS thread runs them as fast
#: as two on an idle machine and 5 to 30 times faster when the other core is busy (docs/performance.md).
SKINNY_COLUMNS = 64


def _blas_threads(columns):
    """One BLAS thread for skinny products (threadpoolctl, when installed); otherwise no change."""
    import contextlib

    if columns > SKINNY_COLUMNS:
        return contextlib.nullcontext()
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl is a dependency
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


_EPS = float(np.finfo(np.float64).eps)


def _closed_form(A, B, C, D, n, progress):
    """``(singular values, precision)`` of the weighted stack for a diagonalisable A, or None when A is defective
    or its eigenvectors are badly conditioned."""
    from .modal import modal_form, stack_singular_values

    lam, V = np.linalg.eig(A)
    cond = float(np.linalg.cond(V))
    if not math.isfinite(cond) or cond > MAX_EIGENVECTOR_CONDITION:
        return None
    Wr = np.linalg.solve(V, B.astype(complex))  # V^-1 B: row k is mode k's input weights
    CV = C.astype(complex) @ V
    p, m = C.shape[0], B.shape[1]
    W = (CV.T[:, :, None] * Wr[:, None, :]).reshape(A.shape[0], p * m)  # vec(C v_k w_k^T), row-major
    D0 = None if D is None else np.asarray(D, dtype=complex).reshape(p * m)
    form = modal_form(lam, W, D0)
    try:
        s, _used, precision = stack_singular_values(form, n, progress=progress)
    except LimitError:  # modes that grow too fast for the QR forms at this n: geometric sums in log form
        G = _weighted_gram_closed_form(A, B, C, D, n)
        return _gram_singular_values(G), math.sqrt(16 * _EPS * p * m)
    return s, precision * max(1.0, cond)


def _numeric_core(A, B, C, D, name, n, tolerance, lag_rank_tol, device, xp, method, progress):
    if xp is None:
        xp = get_namespace(device)
    else:
        device = getattr(xp, "__name__", "custom")
    dtype = xp.complex128 if np.iscomplexobj(A) else xp.float64
    to = lambda M: None if M is None else xp.asarray(M, dtype=dtype)
    Ax, Bx, Cx, Dx = to(A), to(B), to(C), to(D)
    N = A.shape[0]
    p, m = C.shape[0], B.shape[1]
    T = N + (1 if D is not None else 0)
    cols = lag_span_columns(xp, Ax, Bx, Cx, Dx, min(n, T), full_rank_tol=lag_rank_tol)
    ls = xp.linalg.svdvals(cols) if cols.shape[1] else xp.zeros((0,), dtype=xp.float64)
    lag_rank, lag_svals, lag_gap = _rank(ls, lag_rank_tol)

    bar = _Progress(n, "symssm numeric") if progress is None else None
    report = progress if progress is not None else (lambda done, total=None: bar(done))
    if method == "auto":
        method = choose_method(A, n)
    s = None
    precision = 16 * _EPS * math.sqrt(p * m)
    try:
        if method == "closed-form":
            out = _closed_form(A, B, C, D, n, report)
            if out is None:  # A is defective or badly conditioned: repeated squaring (log n) where N is small
                method = "doubling" if doubling_fits(N, p, m, n) else "direct"
            else:
                s, precision = out
        if method == "doubling":
            s = _gram_singular_values(_weighted_gram_doubling(np.asarray(A), np.asarray(B), np.asarray(C),
                                                              None if D is None else np.asarray(D), n))
            precision = math.sqrt(16 * _EPS * p * m)
        if s is None:
            Rx, _used = _weighted_factor_direct(xp, Ax, Bx, Cx, Dx, n, stop_when_decayed=(method == "horizon"),
                                                progress=report)
            R = np.asarray(_to_numpy(Rx))
            s = np.linalg.svd(R, compute_uv=False) if R.shape[0] else np.zeros(0)
    finally:
        if bar is not None:
            bar.close()
    if not np.all(np.isfinite(s)):
        raise LimitError(f"the weighted sums of the lags overflow float64 at n = {n}; try a smaller n")
    errors, k, gap, cut = curve_from_singular_values(s, tolerance)
    norm = float(np.linalg.norm(s))
    rel = tuple(float(v) / norm for v in np.sort(s)[::-1][:KEPT]) if norm > 0 else ()
    return NumericResult(
        name=name, n=n, numerical_head_count=k, singular_values=rel, tolerance=tolerance, gap=gap,
        approximation_error=tuple(errors), approximation_method=method,
        backend=getattr(xp, "__name__", "unknown"), device=device, approximation_error_cut=cut,
        precision=float(precision), lag_rank=lag_rank, lag_rank_tolerance=lag_rank_tol,
        lag_rank_singular_values=tuple(lag_svals[:KEPT]), lag_rank_gap=lag_gap, exact_heads=int(np.size(s)),
    )


def _to_numpy(x):
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "get"):  # CuPy
        return x.get()
    return np.from_dlpack(x)  # any array API namespace on the CPU (array-api-strict included)
