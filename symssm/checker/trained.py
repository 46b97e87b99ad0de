"""Obligations of ``trained-head-count`` certificates: eps-head counts of trained S4D, S5 and LRU layers.

A trained layer's parameters are binary floats, hence exact dyadic rationals (the certificate
lists them), but its lags involve ``exp``: they are not rational. The certificate therefore gives a
rational *surrogate*: the lags' entries ``K~_e[d]`` (integers over ``2^Q``) for ``d < n0``, and a
radius ``rho``. The checker proves, with its own ball arithmetic (:mod:`.enclosure`), that every
true entry lies within ``rho`` of the surrogate's, and bounds the lags beyond ``n0`` by their decay.
With ``T`` the layer's operator (rows ``sqrt(n - d) vec(L_d)``) and ``T~`` the surrogate's,

1. parameters: the layer's tensors, of the shapes its architecture names; ``input_sha256`` hashes them;
2. enclosure: for every entry and ``d < n0``, ``|K_e[d] - K~_e[d]| <= rho`` (the modes ``lambda_p`` and
   weights ``w_pe`` are enclosed in balls, the powers ``lambda_p^d`` by a fixed-point recurrence whose
   error is at most ``d M^(d-1) (r_lambda + 2^(1-F))``, ``M >= max(1, |lambda_p|)``);
3. tail (only when ``n0 < n``): every mode has ``|lambda_p| <= M < 1``, and
   ``tail >= n (sum_e A_e^2) M^(2 n0) / (1 - M^2)``, ``A_e = s sum_p |w_pe|``, bounds
   ``sum_{n0 <= d < n} (n - d) |vec L_d|^2``;
4. distance: ``t^2 tr(G~) >= (rho^2 E sum_{d<n0} (n - d) + tail) 4^Q`` with ``G~`` the surrogate's Gram
   matrix (an integer, at scale ``4^Q``), so ``t >= ||T - T~||_F / ||T~||_F``; and ``t < 1``, so ``T != 0``;
5. the surrogate's brackets ``[l~_H, u~_H]``, checked as for ``approximate-head-count`` on ``G~``;
6. the layer's brackets: ``lower_H <= (l~_H - t) / (1 + t)`` and ``upper_H >= min(1, (u~_H + t) / (1 - t))``
   (the distance to the matrices of rank at most H is 1-Lipschitz in the Frobenius norm); ``e_0 = 1``;
7. the claim, as for ``approximate-head-count``.
"""

import hashlib
import json
from fractions import Fraction

from . import enclosure as E
from .costs import within
from .approximate import (MAX_APPROX_DIM, MAX_DEFINITE_WORK, check_brackets, check_claim, check_widened,
                          definite_work, weighted_gram)
from .limits import MAX_GRAM_WORK
from .numbers import NumberError, canonical_rational, int_text
from .kernel import is_text
from .reading import integer, integer_text, keys, rational

__all__ = ["read_trained_layer", "check_trained", "trained_spec_hash", "ARCHITECTURES", "layer_modes"]

#: The architectures and their parameters (shapes in terms of H channels and P modes).
ARCHITECTURES = ("s4d", "s5", "lru")
#: Longest sequence, most lags summed, most modes, and the work of the recurrence (both sides).
MAX_TRAINED_N = 10 ** 12
MAX_SURROGATE_LAGS = 4096
MAX_MODES = 16_384
MAX_RECURRENCE_WORK = 13_000_000
#: The work of one ``exp`` of a ball (50 Taylor terms and the squarings: about 600 recurrence products), and of
#: forming one weight or mode from its parameters (a few balls and products).
EXP_WORK = 600
BALL_WORK = 40
#: Most fractional bits of the surrogate's integers.
MAX_SCALE_BITS = 400
#: Digits an entry of the surrogate may have beyond Q / 3 (the lags' entries are below 2^700).
MAX_KERNEL_DIGITS = 240


def _shapes(arch, H, P):
    if arch == "s4d":
        return {"log_dt": (H,), "log_A_real": (H, P), "A_imag": (H, P), "C": (H, P, 2), "D": (H,)}
    if arch == "s5":
        return {"Lambda_re": (P,), "Lambda_im": (P,), "log_step": (P,), "B": (P, H, 2), "C": (H, P, 2), "D": (H,)}
    return {"nu_log": (P,), "theta_log": (P,), "gamma_log": (P,), "B_re": (P, H), "B_im": (P, H), "C_re": (H, P),
            "C_im": (H, P), "D": (H,)}


def _tensor(ledger, value, where, shape, table):
    """Nested lists of canonical rationals of the given shape (distinct texts parsed once)."""
    if not shape:
        ledger.require(type(value) is str, where, "entries must be canonical rationals such as \"-3/8\"")
        if value not in table:
            try:
                table[value] = canonical_rational(value)
            except NumberError:
                ledger.require(False, where, "entries must be canonical rationals such as \"-3/8\"")
        return table[value]
    ledger.require(isinstance(value, list) and len(value) == shape[0], where, f"must be a list of {shape[0]} entries")
    return [_tensor(ledger, v, f"{where}[{i}]", shape[1:], table) for i, v in enumerate(value)]


def read_trained_layer(ledger, obj):
    """The trained layer of a certificate, validated; with its canonical hash (its name and file excluded)."""
    keys(ledger, obj, "system", ("architecture", "name", "checkpoint", "channels", "modes", "parameters"))
    arch = obj["architecture"]
    ledger.require(is_text(arch, 10) and arch in ARCHITECTURES, "system.architecture",
                   f"must be one of {', '.join(ARCHITECTURES)}")
    ledger.require(is_text(obj["name"], 200), "system.name", "must be a string of at most 200 characters")
    ledger.require(is_text(obj["checkpoint"], 200), "system.checkpoint", "must be a string of at most 200 characters")
    H = integer(ledger, obj["channels"], "system.channels", 1, 4096)
    P = integer(ledger, obj["modes"], "system.modes", 1, MAX_MODES)
    modes = H * P if arch == "s4d" else P
    ledger.afford(modes <= MAX_MODES, "system.modes", f"the layer has {modes} modes; the limit is {MAX_MODES}")
    shapes = _shapes(arch, H, P)
    params = obj["parameters"]
    keys(ledger, params, "system.parameters", tuple(shapes))
    table = {}
    values = {}
    for name, shape in shapes.items():
        if name == "D" and params[name] is None:
            values[name] = None
            continue
        values[name] = _tensor(ledger, params[name], f"system.parameters.{name}", shape, table)
    canonical = {k: v for k, v in obj.items() if k not in ("name", "checkpoint")}
    text = json.dumps(canonical, sort_keys=True, ensure_ascii=True, separators=(",", ":"), allow_nan=False) + "\n"
    return {"architecture": arch, "name": obj["name"], "checkpoint": obj["checkpoint"], "H": H, "P": P,
            "parameters": values, "sha256": hashlib.sha256(text.encode("ascii")).hexdigest()}


def trained_spec_hash(spec):
    """A trained layer has no spec file of its own (``symssm model`` reads the checkpoint)."""
    return None


def layer_modes(layer, tick=lambda: None):
    """``(scale s, modes, D)``: each mode a pair (ball of lambda_p, {entry index: ball of w_pe}), such that
    ``K_e[d] = s Re sum_p w_pe lambda_p^d`` (+ ``D_e`` at d = 0, exact).

    Raises
    ------
    EnclosureError
        If a zero-order hold divides by a mode's enclosure containing 0, or an exponent is out of range.
    """
    arch, H, P, t = layer["architecture"], layer["H"], layer["P"], layer["parameters"]
    one = E.ball(1)
    modes = []
    if arch == "s4d":
        for h in range(H):
            dt = E.exp(E.ball(t["log_dt"][h]))
            for p in range(P):
                tick()
                A = E.sub(E.ball(0, t["A_imag"][h][p]), E.exp(E.ball(t["log_A_real"][h][p])))
                lam = E.exp(E.mul(dt, A))
                w = E.mul(E.ball(*t["C"][h][p]), E.div(E.sub(lam, one), A))
                modes.append((lam, {h: w}))
        scale = 2
    elif arch == "s5":
        for p in range(P):
            tick()
            Lam = E.ball(t["Lambda_re"][p], t["Lambda_im"][p])
            lam = E.exp(E.mul(Lam, E.exp(E.ball(t["log_step"][p]))))
            f = E.div(E.sub(lam, one), Lam)
            Bbar = [E.mul(f, E.ball(*t["B"][p][j])) for j in range(H)]
            modes.append((lam, {i * H + j: E.mul(E.ball(*t["C"][i][p]), Bbar[j]) for i in range(H) for j in range(H)}))
        scale = 2
    else:
        for p in range(P):
            tick()
            nu, theta = E.exp(E.ball(t["nu_log"][p])), E.exp(E.ball(t["theta_log"][p]))
            lam = E.exp((-nu[0], theta[0], nu[2] + theta[2]))
            gamma = E.exp(E.ball(t["gamma_log"][p]))
            Bg = [E.mul(gamma, E.ball(t["B_re"][p][j], t["B_im"][p][j])) for j in range(H)]
            modes.append((lam, {i * H + j: E.mul(E.ball(t["C_re"][i][p], t["C_im"][i][p]), Bg[j])
                                for i in range(H) for j in range(H)}))
        scale = 1
    D = t["D"]
    Dvec = None if D is None else {(i * H + i if arch != "s4d" else i): D[i] for i in range(H)}
    return scale, modes, Dvec


def _round_up(x, bits=64):
    """A dyadic rational at least the non-negative rational x, with ``bits`` significant bits."""
    if x <= 0:
        return Fraction(0)
    e = x.numerator.bit_length() - x.denominator.bit_length()
    s = bits - e
    num = x.numerator << s if s >= 0 else x.numerator
    den = x.denominator if s >= 0 else x.denominator << -s
    return Fraction(-((-num) // den), 1) / (Fraction(2) ** s)


def pow_up(x, k):
    """A rational at least ``x^k`` (x >= 0), rounded up to 64 significant bits at each squaring."""
    if x == 1 or k == 0:
        return Fraction(1)
    result, base = Fraction(1), _round_up(Fraction(x))
    while k:
        if k & 1:
            result = _round_up(result * base)
        base = _round_up(base * base)
        k >>= 1
    return result


def mode_exps(architecture, H, modes):
    """How many ``exp`` enclosures the modes of a layer take (:func:`layer_modes`): S4D two per mode and one per
    channel, S5 two per mode, LRU four per mode."""
    return {"s4d": 2 * modes + H, "s5": 2 * modes}.get(architecture, 4 * modes)


def recurrence_work(n0, modes, nonzero, exps):
    """The cost measure of the enclosures, known before any runs: the recurrence's big-integer products
    (``n0 (4 modes + 2 nonzero)``), the modes' ``exp`` and the weights, in the same unit (measured:
    ``benchmarks/bench_limits.py``)."""
    return n0 * (4 * modes + 2 * nonzero) + EXP_WORK * exps + BALL_WORK * (modes + nonzero)


def _kernel_check(ledger, kernel, Q, rho, scale, modes, D, n0, count):
    """Obligation 2: every surrogate entry within rho of the layer's lag entry."""
    F = E.FRACTION_BITS
    u = Fraction(2, 1 << F)
    # the uniform error bound of each entry's enclosure, for d <= n0 - 1
    err = [Fraction(0)] * count
    for lam, weights in modes:
        r_lam = E.radius(lam)
        Mx = max(Fraction(1), E.modulus_up(lam))
        grow = pow_up(Mx, max(n0 - 1, 0))
        power_err = (n0 - 1) * pow_up(Mx, max(n0 - 2, 0)) * (r_lam + u) if n0 > 1 else Fraction(0)
        for e, w in weights.items():
            err[e] += E.radius(w) * grow + E.modulus_up(w) * power_err
    err = [scale * x for x in err]
    ledger.require(all(x < rho for x in err), "surrogate.radius",
                   "is below the checker's own enclosure error of the lags")
    slack = [(rho - x) * (1 << (2 * F)) for x in err]  # at scale 2^(2F)
    shift = 2 * F - Q
    z = [(1 << F, 0) for _ in modes]
    mids = [(lam[0], lam[1]) for lam, _ in modes]
    wts = [[(e, w[0], w[1]) for e, w in weights.items()] for _, weights in modes]
    for d in range(n0):
        acc = [0] * count
        for p in range(len(modes)):
            zr, zi = z[p]
            for e, wr, wi in wts[p]:
                acc[e] += wr * zr - wi * zi
            mr, mi = mids[p]
            z[p] = ((zr * mr - zi * mi) >> F, (zr * mi + zi * mr) >> F)
        row = kernel[d]
        for e in range(count):
            true_mid = scale * acc[e]
            if d == 0 and D is not None and e in D:
                true_mid = true_mid + D[e] * (1 << (2 * F))
            stored = row[e] << shift
            if abs(stored - true_mid) > slack[e]:
                ledger.require(False, f"surrogate.kernel[{d}][{e}]",
                               f"is not within the radius of the layer's lag entry (lag {d}, entry {e})")
        if d % 64 == 0:
            ledger.require(True, "surrogate.kernel", "")


def _tail_bound(modes, scale, count, n, n0):
    """A rational ``M < 1`` bounding every mode, and the bound of obligation 3 (None when a mode may reach 1)."""
    M = max((E.modulus_up(lam) for lam, _ in modes), default=Fraction(0))
    if M >= 1:
        return None
    A = [Fraction(0)] * count
    for _, weights in modes:
        for e, w in weights.items():
            A[e] += E.modulus_up(w)
    total = sum((scale * a) ** 2 for a in A)
    return n * total * pow_up(M, 2 * n0) / (1 - M * M)


def _surrogate(ledger, sur, count):
    keys(ledger, sur, "surrogate", ("lags", "scale_bits", "kernel", "radius", "tail", "relative_distance"))
    n0 = integer(ledger, sur["lags"], "surrogate.lags", 1, MAX_SURROGATE_LAGS)
    Q = integer(ledger, sur["scale_bits"], "surrogate.scale_bits", 0, MAX_SCALE_BITS)
    kernel = sur["kernel"]
    ledger.require(isinstance(kernel, list) and len(kernel) == n0, "surrogate.kernel", f"must list {n0} lags")
    limit = Q // 3 + MAX_KERNEL_DIGITS  # digits: the generator writes entries below 2^(Q + 700)
    rows = []
    for d, row in enumerate(kernel):
        ledger.require(isinstance(row, list) and len(row) == count, f"surrogate.kernel[{d}]",
                       f"must list {count} entries")
        rows.append([integer_text(ledger, x, f"surrogate.kernel[{d}][{j}]", limit) for j, x in enumerate(row)])
    rho = rational(ledger, sur["radius"], "surrogate.radius")
    tail = rational(ledger, sur["tail"], "surrogate.tail")
    t = rational(ledger, sur["relative_distance"], "surrogate.relative_distance")
    ledger.require(rho > 0 and tail >= 0 and 0 <= t < 1, "surrogate", "needs radius > 0, tail >= 0 and "
                   "0 <= relative_distance < 1")
    return n0, Q, rows, rho, tail, t


def check_trained(ledger, cert, layer):
    """Every obligation of a trained-layer eps-head-count certificate (module docstring)."""
    keys(ledger, cert, "certificate", ("format", "version", "kind", "generator", "system", "input_sha256", "n",
                                       "tolerance", "head_count", "undecided_at", "surrogate", "surrogate_errors",
                                       "errors"))
    count = layer["H"] if layer["architecture"] == "s4d" else layer["H"] ** 2
    ledger.afford(count <= MAX_APPROX_DIM, "system.channels", f"the layer's lags have {count} entries; eps-head "
                   f"counts are checked for at most {MAX_APPROX_DIM}")
    n = integer(ledger, cert["n"], "n", 1, MAX_TRAINED_N)
    tol = rational(ledger, cert["tolerance"], "tolerance")
    ledger.require(0 < tol < 1, "tolerance", "must lie strictly between 0 and 1")
    n0, Q, kernel, rho, tail, t = _surrogate(ledger, cert["surrogate"], count)
    ledger.require(n0 <= n, "surrogate.lags", "must be at most n")
    within(ledger, n0 * count * count, MAX_GRAM_WORK, "surrogate.lags", f"the Gram matrix takes n0 E^2 > "
                   f"{MAX_GRAM_WORK} multiply-adds: beyond the checker's limit")
    modes_n = layer["H"] * layer["P"] if layer["architecture"] == "s4d" else layer["P"]
    nonzero = modes_n * (1 if layer["architecture"] == "s4d" else count)
    work = recurrence_work(n0, modes_n, nonzero, mode_exps(layer["architecture"], layer["H"], modes_n))
    within(ledger, work, MAX_RECURRENCE_WORK, "surrogate.lags", f"enclosing {n0} lags of {modes_n} modes costs "
                   f"{work} products; the limit is {MAX_RECURRENCE_WORK}")
    try:
        scale, modes, D = layer_modes(layer, lambda: ledger.require(True, "system.parameters", ""))
    except E.EnclosureError as exc:
        ledger.require(False, "system.parameters", f"no enclosure of the layer's modes: {exc}")
    _kernel_check(ledger, kernel, Q, rho, scale, modes, D, n0, count)
    if n0 < n:
        bound = _tail_bound(modes, scale, count, n, n0)
        ledger.require(bound is not None, "surrogate.tail", "a mode's enclosure reaches modulus 1: the lags beyond "
                       "n0 cannot be bounded by their decay")
        ledger.require(tail >= bound, "surrogate.tail", "is below the checker's bound on the lags beyond n0")
    else:
        ledger.require(tail == 0, "surrogate.tail", "must be 0 when every lag is in the surrogate")
    weights = [n - d for d in range(n0)]
    G, tr = weighted_gram(kernel, weights, count)
    wsum = n0 * n - n0 * (n0 - 1) // 2
    ledger.require(tr > 0 and t * t * tr >= (rho * rho * count * wsum + tail) * 4 ** Q, "surrogate.relative_distance",
                   "is below ||T - T~||_F / ||T~||_F as bounded by the radius and the tail")
    sur_errors, errors = cert["surrogate_errors"], cert["errors"]
    for name, lst in (("surrogate_errors", sur_errors), ("errors", errors)):
        ledger.require(isinstance(lst, list) and 1 <= len(lst) <= count + 1, name,
                       f"must be a list of 1 to {count + 1} brackets")
    ledger.require(len(sur_errors) == len(errors), "surrogate_errors", "must list as many brackets as errors")
    cost = definite_work(len(sur_errors), count, tr)
    within(ledger, cost, MAX_DEFINITE_WORK, "surrogate_errors", f"checking {len(sur_errors)} brackets costs {cost} "
                   f"word operations; the limit is {MAX_DEFINITE_WORK}")
    low_s, up_s = check_brackets(ledger, sur_errors, G, tr, "surrogate_errors")
    lowers, uppers = check_widened(ledger, errors, low_s, up_s, t)
    what = (f"{layer['architecture'].upper()} layer {layer['name']!r} on length {int_text(n)}")
    return check_claim(ledger, cert, lowers, uppers, tol, what)
