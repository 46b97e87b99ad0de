"""Certified eps-head counts of trained layers: a rational surrogate of the lags, and its distance to the layer.

A trained S4D, S5 or LRU layer has exact (dyadic) parameters but transcendental lags
``L_d = s Re(C diag(lambda)^d W)`` (+ D at d = 0), ``lambda = exp(step A)``. The certificate's
surrogate lists the lags' entries rounded to integers over ``2^Q`` for ``d < n0`` and a radius
``rho`` that the checker proves with its own ball arithmetic (:mod:`symssm.checker.trained`). Its
brackets on the surrogate's errors are those of :func:`symssm.exact.approximate.gram_brackets`; the
layer's are wider by the relative distance ``t >= ||T - T~||_F / ||T~||_F`` (the distance to the
matrices of rank at most H is 1-Lipschitz).

The modes are computed here with mpmath at 70 digits (pure Python: the same bytes on every
machine), the powers by an integer recurrence with 200 fractional bits; the checker trusts neither.

Examples
--------
>>> import numpy as np
>>> from symssm.sources.checkpoints import CheckpointLayer
>>> from symssm.sources.trained import trained_layer
>>> t = {"kernel.log_dt": np.log(np.float32([0.5, 0.25])), "kernel.log_A_real": np.log(np.full((2, 1), 0.5, np.float32)),
...      "kernel.A_imag": np.zeros((2, 1), np.float32), "kernel.C": np.ones((2, 1, 2), np.float32)}
>>> layer = trained_layer(CheckpointLayer("l", "s4d", t), "m.npz")
>>> out = trained_brackets(layer, 64, "1/100")
>>> out["head_count"], out["lags"], [float(e["upper"]) < 1e-15 for e in out["errors"][1:]]
(2, 64, [False, True])
"""

from fractions import Fraction

from ..checker.trained import pow_up
from ..errors import InputError, LimitError
from ..formats.rationals import parse_tolerance
from .approximate import (MAX_APPROX_DIM, MAX_DEFINITE_WORK, _dyadic, definite_work, gram_brackets, gram_of_rows,
                          sqrt_up, widened_errors, widening)

__all__ = ["trained_brackets", "kernel_rows", "MAX_SURROGATE_LAGS", "MAX_RECURRENCE_WORK"]

#: As the checker: most lags summed, work of the recurrence, longest n, Gram work.
MAX_SURROGATE_LAGS = 4096
MAX_RECURRENCE_WORK = 13_000_000
#: The checker's weights of one mode's ``exp`` and of one ball (``symssm/checker/trained.py``: the same numbers).
EXP_WORK = 600
BALL_WORK = 40
MAX_TRAINED_N = 10 ** 12
MAX_GRAM_WORK = 20_000_000
#: Fractional bits of the recurrence, significant bits of the largest surrogate entry.
FRACTION_BITS = 200
SIGNIFICANT_BITS = 96
#: Lag entries must stay below 2^700 (the checker reads entries of at most Q / 3 + 240 digits).
MAX_LAG_EXPONENT = 700
#: The checker's exp takes arguments of modulus at most 2^16.
MAX_EXP_ARGUMENT = 2 ** 16
_DPS = 70


def entry_count(layer):
    """E: the lag entries the surrogate lists (the diagonal for S4D, all H x H otherwise)."""
    return layer.channels if layer.architecture == "s4d" else layer.channels ** 2


def _exp(z, layer, what="a parameter"):
    """exp(z), refusing an argument beyond the checker's range (its enclosure of exp stops at 2^16)."""
    import mpmath

    if abs(z) > MAX_EXP_ARGUMENT / 2:
        raise LimitError(f"{layer.name}: the exponent of {what} has modulus {float(abs(z)):.3g}, beyond the enclosures' "
                         f"range ({MAX_EXP_ARGUMENT // 2})")
    return mpmath.exp(z)


def _modes(layer):
    """``(s, [(lambda, {entry: w})], {entry: D})`` as mpmath numbers (the checker's definition, module docstring)."""
    import mpmath

    q = lambda x: mpmath.mpf(x.numerator) / x.denominator  # noqa: E731
    arch, H = layer.architecture, layer.channels
    modes = []
    if arch == "s4d":
        log_dt, lar, aim, C = (layer.values(k) for k in ("log_dt", "log_A_real", "A_imag", "C"))
        for h in range(H):
            dt = _exp(q(log_dt[h]), layer)
            for p in range(layer.modes):
                A = mpmath.mpc(-_exp(q(lar[h][p]), layer), q(aim[h][p]))
                if A == 0:
                    raise InputError(f"{layer.name}: mode A[{h}][{p}] is 0; its zero-order hold divides by it")
                lam = _exp(dt * A, layer, f"dt A[{h}][{p}]")
                modes.append((lam, {h: mpmath.mpc(q(C[h][p][0]), q(C[h][p][1])) * (lam - 1) / A}))
        scale = 2
    elif arch == "s5":
        re, im, ls, B, C = (layer.values(k) for k in ("Lambda_re", "Lambda_im", "log_step", "B", "C"))
        for p in range(layer.modes):
            Lam = mpmath.mpc(q(re[p]), q(im[p]))
            if Lam == 0:
                raise InputError(f"{layer.name}: Lambda[{p}] is 0; its zero-order hold divides by it")
            lam = _exp(Lam * _exp(q(ls[p]), layer), layer, f"Lambda[{p}] step")
            Bbar = [(lam - 1) / Lam * mpmath.mpc(q(B[p][j][0]), q(B[p][j][1])) for j in range(H)]
            modes.append((lam, {i * H + j: mpmath.mpc(q(C[i][p][0]), q(C[i][p][1])) * Bbar[j]
                                for i in range(H) for j in range(H)}))
        scale = 2
    else:
        nu, th, ga, Br, Bi, Cr, Ci = (layer.values(k) for k in ("nu_log", "theta_log", "gamma_log", "B_re", "B_im",
                                                               "C_re", "C_im"))
        for p in range(layer.modes):
            lam = _exp(mpmath.mpc(-_exp(q(nu[p]), layer), _exp(q(th[p]), layer)), layer, f"mode {p}")
            g = _exp(q(ga[p]), layer)
            modes.append((lam, {i * H + j: mpmath.mpc(q(Cr[i][p]), q(Ci[i][p])) * g * mpmath.mpc(q(Br[p][j]), q(Bi[p][j]))
                                for i in range(H) for j in range(H)}))
        scale = 1
    D = layer.values("D")
    Dmap = None if D is None else {(i if arch == "s4d" else i * H + i): D[i] for i in range(H)}
    return scale, modes, Dmap


def kernel_rows(layer, n0):
    """``(Q, rows, rho, tail_data)``: the surrogate's integer lag entries over ``2^Q`` for ``d < n0``, its radius,
    and for the tail ``(s, M, sums)``: the scale s, the largest mode modulus and the entries' weight sums (30-digit
    rationals of mpmath's values; :func:`_tail` adds the margin that makes them upper bounds).

    Parameters
    ----------
    layer : TrainedLayer
        A trained layer.
    n0 : int
        The lags of the surrogate.

    Returns
    -------
    tuple
        ``(Q, rows, rho, tail_data)``.

    Raises
    ------
    LimitError
        If a lag entry exceeds the certificate's limits.
    """
    import mpmath

    F = FRACTION_BITS
    E = entry_count(layer)
    with mpmath.workdps(_DPS):
        scale, modes, D = _modes(layer)
        one = mpmath.mpf(2) ** F
        fix = lambda x: (int(mpmath.floor(x.real * one)), int(mpmath.floor(x.imag * one)))  # noqa: E731
        mids = [fix(lam) for lam, _ in modes]
        wts = [[(e,) + fix(w) for e, w in weights.items()] for _, weights in modes]
        moduli = [abs(lam) for lam, _ in modes]
        sums = [mpmath.mpf(0)] * E
        for _, weights in modes:
            for e, w in weights.items():
                sums[e] += abs(w)
        M = max(moduli, default=mpmath.mpf(0))
        tail_data = (scale, Fraction(str(mpmath.nstr(M, 30))) if modes else Fraction(0),
                     [Fraction(str(mpmath.nstr(s, 30))) for s in sums])
    z = [(1 << F, 0) for _ in modes]
    raw = []
    for d in range(n0):
        acc = [0] * E
        for p, (mr, mi) in enumerate(mids):
            zr, zi = z[p]
            for e, wr, wi in wts[p]:
                acc[e] += wr * zr - wi * zi
            z[p] = ((zr * mr - zi * mi) >> F, (zr * mi + zi * mr) >> F)
        raw.append([scale * a for a in acc])  # at scale 2^(2F)
    if D is not None:
        for e, v in D.items():
            raw[0][e] += v * (1 << (2 * F))
    biggest = max((abs(x) for row in raw for x in row), default=0)
    top = int(biggest).bit_length() - 1 - 2 * F if biggest >= 1 else -2 * F
    if top >= MAX_LAG_EXPONENT:
        raise LimitError(f"{layer.name}: a lag entry exceeds 2^{MAX_LAG_EXPONENT}: beyond the certificate's limits")
    Q = min(max(SIGNIFICANT_BITS - 1 - int(top), 0), 2 * F)
    shift = 2 * F - Q
    rows = [[round(Fraction(x) / (1 << shift)) for x in row] for row in raw]
    return Q, rows, Fraction(1, 2 ** Q), tail_data


def _tail(n, n0, tail_data):
    """An upper bound on ``sum_{n0 <= d < n} (n - d) |vec L_d|^2`` by the modes' decay (None if a mode may reach 1).

    The checker bounds it with its own enclosures of M and the sums, by :func:`~symssm.checker.trained.pow_up`; M
    and the sums here carry a 2^-40 margin above those, and ``pow_up`` is monotone, so this bound is at least the
    checker's."""
    scale, M, sums = tail_data
    M = _dyadic(M * (1 + Fraction(1, 2 ** 40)), 64)
    if M >= 1:
        return None
    total = sum(((scale * s * (1 + Fraction(1, 2 ** 40))) ** 2 for s in sums), Fraction(0))
    power = pow_up(M, 2 * n0)
    return _dyadic(n * total * power / (1 - M * M) * (1 + Fraction(1, 2 ** 20)), 64)


def trained_brackets(layer, n, tolerance):
    """The surrogate, its brackets and the layer's (a dict the certificate module writes).

    Parameters
    ----------
    layer : TrainedLayer
        A trained layer with exact dyadic parameters.
    n : int
        The sequence length, in ``[1, 10^12]``.
    tolerance : Tolerance, Fraction or str
        The relative error, exact, in (0, 1) (a binary float is refused).

    Returns
    -------
    dict
        The surrogate (lags, scale, kernel, radius, tail, distance), its brackets and the layer's.

    Raises
    ------
    InputError
        For a tolerance outside (0, 1), or modes whose zero-order hold is undefined.
    LimitError
        If the layer is beyond the checker's limits, or its surrogate cannot prove a count at this
        tolerance (the distance to the layer, or the tail, is too large).
    """
    tolerance = parse_tolerance(tolerance, floats=False)  # a binary float is refused, never converted
    if not 1 <= n <= MAX_TRAINED_N:
        raise LimitError(f"n must be between 1 and {MAX_TRAINED_N} for trained layers, got {n}")
    E = entry_count(layer)
    if E > MAX_APPROX_DIM:
        raise LimitError(f"{layer.name}: its lags have {E} entries; certified eps-head counts take at most "
                         f"{MAX_APPROX_DIM} (S4D: H <= 64 channels; S5, LRU: H <= 8)")
    modes = layer.channels * layer.modes if layer.architecture == "s4d" else layer.modes
    nonzero = modes * (1 if layer.architecture == "s4d" else E)
    per_lag = 4 * modes + 2 * nonzero
    exps = {"s4d": 2 * modes + layer.channels, "s5": 2 * modes}.get(layer.architecture, 4 * modes)
    setup = EXP_WORK * exps + BALL_WORK * (modes + nonzero)
    n0 = min(n, MAX_SURROGATE_LAGS, MAX_GRAM_WORK // (E * E), (MAX_RECURRENCE_WORK - setup) // per_lag)
    if n0 < 1:
        raise LimitError(f"{layer.name}: one lag of {modes} modes exceeds the checker's work limit")
    Q, rows, rho, tail_data = kernel_rows(layer, n0)
    tail = Fraction(0)
    if n0 < n:
        tail = _tail(n, n0, tail_data)
        if tail is None:
            raise LimitError(f"{layer.name}: a mode has modulus near 1, so the lags beyond {n0} cannot be bounded by "
                             f"their decay; certify a length n <= {n0}")
    G, tr = gram_of_rows(rows, [n - d for d in range(n0)], E)
    if tr == 0:
        raise LimitError(f"{layer.name}: the surrogate of its lags is zero at this precision")
    wsum = n0 * n - n0 * (n0 - 1) // 2
    t = sqrt_up((rho * rho * E * wsum + tail) * 4 ** Q / tr)
    if t >= 1:
        raise LimitError(f"{layer.name}: the surrogate's relative distance to the layer is {float(t):.3g} >= 1"
                         + (f" (the lags beyond the {n0} summed decay too slowly: a length n <= {n0})" if tail else ""))
    work = definite_work(1, E, tr)
    if work > MAX_DEFINITE_WORK:
        raise LimitError(f"{layer.name}: one definiteness test costs {work} word operations, beyond the checker's "
                         f"limit {MAX_DEFINITE_WORK}")

    out = gram_brackets(G, tr, tolerance, widen=widening(t))
    if out["head_count"] is None and out["undecided"] is None:
        raise LimitError(f"{layer.name}: no H reaches the tolerance once the surrogate's relative distance "
                         f"{float(t):.3g} is added" + (f" (the lags beyond the {n0} summed decay too slowly: a length "
                                                       f"n <= {n0}, or a larger tolerance)" if tail else
                                                       "; a larger tolerance"))
    errors = widened_errors(out["errors"], t)
    return {"lags": n0, "scale_bits": Q, "kernel": rows, "radius": rho, "tail": tail, "relative_distance": t,
            "surrogate_errors": out["errors"], "errors": errors, "head_count": out["head_count"],
            "undecided": out["undecided"], "trace": tr}
