"""Obligations of ``approximate-head-count`` certificates: certified eps-head counts (standard library; flint optional).

With ``G`` a positive multiple of ``sum_{d<n} (n - d) vec(L_d) vec(L_d)^T`` (formed here from the
system with integers) and ``S_H`` the sum of its eigenvalues after the H largest, the best H-head
relative error is ``e_H = sqrt(S_H / tr G)``. For each listed H:

1. upper: ``upper^2 tr G >= tr G - tr((V^T V)^{-1} V^T G V)`` for the integer basis V (Ky Fan);
2. lower: ``gamma_i >= 0``, ``M = zeta tr(G) I + R diag(gamma tr G) R^T - G`` positive definite (exactly),
   and ``lower^2 <= 1 - H zeta - sum_i gamma_i |r_i|^2`` (Weyl); without that witness, ``lower = 0``;
3. the claim: H runs 0, 1, ..., K; ``upper_K <= tolerance``; the eps-head count is K when
   ``lower_{K-1} > tolerance`` (e_H decreases in H), else it is withheld (``undecided_at = K - 1``).
"""

from fractions import Fraction
from math import gcd

from . import linalg
from .gradient import check_decay, decay_rate
from .limits import MAX_GRAM_WORK
from .numbers import int_text, rat_text
from .costs import MAX_LAG_WORK, lag_product_work, within
from .kernel import strict_equal
from .reading import integer, integer_text, keys, rational

MAX_APPROX_N = 4096
#: Longest n of a certificate with a tail (the lags beyond the summed ones bounded by a certified decay).
MAX_TAIL_N = 10 ** 12
MAX_APPROX_DIM = 64
#: Most word operations the definiteness tests may cost (:func:`definite_work`; both sides): about 3 s of one core
#: for the standard library's leading minors at the limit (python-flint's characteristic polynomials take less).
MAX_DEFINITE_WORK = 300_000_000


def definite_work(brackets, pm, trace):
    """The cost measure of the definiteness tests, known before any of them runs, priced as the standard library
    does them: per bracket, fraction-free elimination of a ``pm x pm`` integer matrix whose entries have about the
    words of ``tr G`` and grow to ``x = pm words(tr G)`` words, ``pm^3`` products of about ``2 x^1.5`` word
    operations each.  The same charge whatever engine runs.

    >>> definite_work(13, 16, 2 ** 204)
    54525952
    """
    from math import isqrt

    grown = pm * (1 + trace.bit_length() // 64)
    return brackets * 2 * pm ** 3 * grown * isqrt(grown)


def gram(system, n, n0=None):
    """``(G, tr G, S2)``: ``G = S2 sum_{d<n0} (n - d) vec(L_d) vec(L_d)^T``, an integer matrix (n0 = n by default)."""
    from math import lcm

    A, B, C, D = system["A"], system["B"], system["C"], system["D"]
    p, m = system["p"], system["m"]
    a, b, c = linalg._den(A), linalg._den(B), linalg._den(C)
    Ai = [[int(x * a) for x in row] for row in A]
    X = [[int(x * b) for x in row] for row in B]
    Ci = [[int(x * c) for x in row] for row in C]
    n0 = n if n0 is None else n0
    rows, scales = [], []
    for d in range(n0):
        Y = linalg._matmul_int(Ci, X)
        if d == 0 and D is not None:
            delta = linalg._den(D)
            Y = [[y * delta + int(v * c * b * delta) for y, v in zip(r1, r2)] for r1, r2 in zip(Y, D)]
            scales.append(c * b * delta)
        else:
            scales.append(c * b * a ** d)
        rows.append([v for row in Y for v in row])
        if d + 1 < n0:
            X = linalg._matmul_int(Ai, X)
    S = 1
    for s in scales:
        S = lcm(S, s)
    weights = [(n - d) * (S // s) ** 2 for d, s in enumerate(scales)]
    G, tr = weighted_gram(rows, weights, p * m)
    return G, tr, S * S


def weighted_gram(rows, weights, pm):
    """``(G, tr G)``, ``G = sum_d weights[d] rows[d] rows[d]^T`` for integer rows of length pm (flint when present)."""
    n = len(rows)
    if linalg._flint is not None and n:
        fz = linalg._flint.fmpz_mat
        Yt = fz(n, pm, [v for row in rows for v in row]).transpose()
        Yw = fz(n, pm, [v * w for row, w in zip(rows, weights) for v in row])
        G = [[int(x) for x in row] for row in (Yt * Yw).tolist()]
    else:
        G = [[sum(w * r[i] * r[j] for r, w in zip(rows, weights)) for j in range(pm)] for i in range(pm)]
    return G, sum(G[i][i] for i in range(pm))


def _captured(G, V):
    """``tr((V^T V)^{-1} V^T G V)`` exactly (V integer, full column rank), or None if V^T V is singular."""
    H = len(V[0])
    pm = len(G)
    if linalg._flint is not None:  # the same integer products in FLINT
        fz = linalg._flint.fmpz_mat
        Vf = fz(V)
        Vt = Vf.transpose()
        return linalg.trace_of_solve((Vt * Vf).tolist(), (Vt * fz(G) * Vf).tolist())
    cols = [[V[i][h] for i in range(pm)] for h in range(H)]
    gram_v = [[sum(x * y for x, y in zip(cols[a], cols[b_])) for b_ in range(H)] for a in range(H)]
    GV = [[sum(G[i][k] * cols[h][k] for k in range(pm)) for i in range(pm)] for h in range(H)]
    inner = [[sum(cols[a][i] * GV[b_][i] for i in range(pm)) for b_ in range(H)] for a in range(H)]
    return linalg.trace_of_solve(gram_v, inner)


def _int_matrix(ledger, value, where, rows, cols):
    ledger.require(isinstance(value, list) and len(value) == rows and all(
        isinstance(r, list) and len(r) == cols for r in value), where, f"must be a {rows} x {cols} matrix")
    return [[integer_text(ledger, x, f"{where}[{i}][{j}]", 400) for j, x in enumerate(r)] for i, r in enumerate(value)]


def check_approximate(ledger, cert, system):
    """Every obligation of an eps-head-count certificate (module docstring); returns the verdict's summary."""
    keys(ledger, cert, "certificate", ("format", "version", "kind", "generator", "system", "input_sha256", "n",
                                       "tolerance", "head_count", "undecided_at", "errors"), optional=("tail",))
    p, m = system["p"], system["m"]
    pm = p * m
    ledger.afford(pm <= MAX_APPROX_DIM, "system", f"eps-head counts are checked for p*m <= {MAX_APPROX_DIM}")
    tail = cert.get("tail")
    n = integer(ledger, cert["n"], "n", 1, MAX_APPROX_N if tail is None else MAX_TAIL_N)
    n0 = n
    if tail is not None:
        keys(ledger, tail, "tail", ("summed", "decay_rate", "lyapunov", "bound", "relative_distance", "summed_errors"))
        n0 = integer(ledger, tail["summed"], "tail.summed", 1, min(n - 1, MAX_APPROX_N))
    within(ledger, n0 * pm * pm, MAX_GRAM_WORK, "n", f"the Gram matrix takes n (p m)^2 > {MAX_GRAM_WORK} "
                   "multiply-adds: beyond the checker's limit")
    bound = linalg.lag_bit_bound(system, n0 - 1)
    ledger.afford(bound <= linalg.MAX_LAG_BITS, "n", f"the exact lags up to L_{n0 - 1} may need {bound} bits; the "
                   f"limit is {linalg.MAX_LAG_BITS}")
    work = lag_product_work(n0, system["N"], p, m, bound)
    within(ledger, work, MAX_LAG_WORK, "n", f"forming the exact lags L_0..L_{n0 - 1} costs {work} word operations; "
                  f"the limit is {MAX_LAG_WORK} (checker/costs.py)")
    tol = rational(ledger, cert["tolerance"], "tolerance")
    ledger.require(0 < tol < 1, "tolerance", "must lie strictly between 0 and 1")
    errors = cert["errors"]
    ledger.require(isinstance(errors, list) and len(errors) <= pm + 1, "errors", f"must be a list of at most {pm + 1} "
                   "brackets")
    G, tr, S2 = gram(system, n, n0)
    what = f"{system['name'] or 'the system'!r} on length {int_text(n)}"
    if tail is None:
        if tr == 0:
            ledger.require(errors == [] and strict_equal(cert["head_count"], 0) and cert["undecided_at"] is None, "head_count",
                           "the operator is zero: no brackets, head count 0")
            return f"eps-head count 0 for {system['name'] or 'the system'!r}: its operator on length {n} is zero"
        _within_definite_work(ledger, len(errors), pm, tr, "errors")
        lowers, uppers = check_brackets(ledger, errors, G, tr, "errors")
        return check_claim(ledger, cert, lowers, uppers, tol, what)
    # the lags beyond n0: ||L_d||_F^2 <= K^2 r^(2d) (a Lyapunov witness), so their weighted sum is at most
    # n K^2 r^(2 n0) / (1 - r^2)
    r = decay_rate(ledger, tail["decay_rate"], "tail.decay_rate")
    K2 = check_decay(ledger, tail["lyapunov"], r, system, "tail.lyapunov")
    tau = rational(ledger, tail["bound"], "tail.bound")
    ledger.require(tau >= n * K2 * r ** (2 * n0) / (1 - r * r), "tail.bound",
                   "is below n K^2 r^(2 n0) / (1 - r^2), the decay's bound on the lags beyond the summed ones")
    t = rational(ledger, tail["relative_distance"], "tail.relative_distance")
    ledger.require(0 <= t < 1 and tr > 0 and t * t * tr >= tau * S2, "tail.relative_distance",
                   "must be below 1 and bound sqrt(tail / ||T~||_F^2), the tail relative to the summed lags")
    summed = tail["summed_errors"]
    ledger.require(isinstance(summed, list) and 1 <= len(summed) <= pm + 1 and isinstance(errors, list)
                   and len(errors) == len(summed), "tail.summed_errors",
                   f"must list 1 to {pm + 1} brackets, as many as errors")
    _within_definite_work(ledger, len(summed), pm, tr, "tail.summed_errors")
    low_s, up_s = check_brackets(ledger, summed, G, tr, "tail.summed_errors")
    lowers, uppers = check_widened(ledger, errors, low_s, up_s, t)
    return check_claim(ledger, cert, lowers, uppers, tol, what)


def _within_definite_work(ledger, brackets, pm, tr, where):
    work = definite_work(brackets, pm, tr)
    within(ledger, work, MAX_DEFINITE_WORK, where, f"checking {brackets} brackets of a {pm} x {pm} Gram matrix "
                   f"of {tr.bit_length()}-bit entries costs {work} word operations; the limit is {MAX_DEFINITE_WORK}")


def check_widened(ledger, errors, low_s, up_s, t):
    """The brackets of an operator within relative distance t (Frobenius) of one with brackets [low_s, up_s]:
    ``lower_H <= (l_H - t)/(1 + t)``, ``upper_H >= min(1, (u_H + t)/(1 - t))`` (the distance to the matrices of
    rank at most H is 1-Lipschitz), ``e_0 = 1``. Returns the lists of lower and upper bounds."""
    lowers, uppers = [], []
    for H, e in enumerate(errors):
        w = f"errors[{H}]"
        ledger.require(isinstance(e, dict) and e.get("H") == H and not isinstance(e.get("H"), bool), f"{w}.H",
                       f"must be {H}")
        keys(ledger, e, w, ("H", "lower", "upper"))
        lo, up = rational(ledger, e["lower"], f"{w}.lower"), rational(ledger, e["upper"], f"{w}.upper")
        ledger.require(0 <= lo <= up, f"{w}.lower", "must satisfy 0 <= lower <= upper")
        if H == 0:
            ledger.require(lo <= 1 <= up, w, "e_0 = 1: the bracket must contain 1")
        else:
            ledger.require(lo <= max(Fraction(0), (low_s[H] - t) / (1 + t)), f"{w}.lower",
                           "is above the summed operator's lower bound less the relative distance")
            ledger.require(up >= min(Fraction(1), (up_s[H] + t) / (1 - t)), f"{w}.upper",
                           "is below the summed operator's upper bound plus the relative distance")
        lowers.append(lo)
        uppers.append(up)
    return lowers, uppers


def _definite_matrix(z, g, R, q, G):
    """The integer matrix ``z I + R diag(g) R^T - q G`` (in FLINT when it is installed: the same integers)."""
    pm, H = len(G), len(g)
    if linalg._flint is not None and H:
        fz = linalg._flint.fmpz_mat
        Rf = fz(R)
        Rg = fz(pm, H, [R[i][h] * g[h] for i in range(pm) for h in range(H)])
        M = Rg * Rf.transpose() - fz(G) * q
        return [[int(x) + (z if i == j else 0) for j, x in enumerate(row)] for i, row in enumerate(M.tolist())]
    return [[(z if i == j else 0) + sum(g[h] * R[i][h] * R[j][h] for h in range(H)) - q * G[i][j]
             for j in range(pm)] for i in range(pm)]


def check_brackets(ledger, errors, G, tr, where):
    """Obligations 1 and 2 for every bracket of ``errors`` (a list for H = 0, 1, ...) on the integer Gram matrix
    ``G`` of trace ``tr``; returns the lists of lower and upper bounds."""
    pm = len(G)
    lowers, uppers = [], []
    for H, e in enumerate(errors):
        w = f"{where}[{H}]"
        ledger.require(isinstance(e, dict) and e.get("H") == H and not isinstance(e.get("H"), bool), f"{w}.H",
                       f"must be {H} (the brackets list H = 0, 1, ...)")
        keys(ledger, e, w, ("H", "lower", "upper") if H == 0 else ("H", "lower", "upper", "basis", "definite"))
        lo, up = rational(ledger, e["lower"], f"{w}.lower"), rational(ledger, e["upper"], f"{w}.upper")
        ledger.require(0 <= lo <= up, f"{w}.lower", "must satisfy 0 <= lower <= upper")
        if H == 0:
            ledger.require(lo <= 1 <= up, w, "e_0 = 1: the bracket must contain 1")
        else:
            V = _int_matrix(ledger, e["basis"], f"{w}.basis", pm, H)
            cap = _captured(G, V)
            ledger.require(cap is not None, f"{w}.basis", "its columns are linearly dependent")
            rest = Fraction(tr) - cap
            ledger.require(up * up * tr >= rest, f"{w}.upper",
                           f"is below the error of the basis' projection (e_{H}^2 <= {rat_text(rest / tr)[:60]})")
            dfn = e["definite"]
            if dfn is None:
                ledger.require(lo == 0, f"{w}.lower", "must be 0 without a definiteness witness")
            else:
                keys(ledger, dfn, f"{w}.definite", ("zeta", "gammas", "factor"))
                zeta = rational(ledger, dfn["zeta"], f"{w}.definite.zeta")
                ledger.require(isinstance(dfn["gammas"], list) and len(dfn["gammas"]) == H, f"{w}.definite.gammas",
                               f"must list {H} numbers")
                gammas = [rational(ledger, g, f"{w}.definite.gammas") for g in dfn["gammas"]]
                ledger.require(zeta >= 0 and all(g >= 0 for g in gammas), f"{w}.definite", "zeta and the gammas must be "
                               "non-negative")
                R = _int_matrix(ledger, dfn["factor"], f"{w}.definite.factor", pm, H)
                # q M, an integer matrix (q clears the denominators of zeta and the gammas): the same definiteness
                q = 1
                for x in [zeta] + gammas:
                    q = q * x.denominator // gcd(q, x.denominator)
                z, g = int(zeta * q) * tr, [int(x * q) * tr for x in gammas]
                M = _definite_matrix(z, g, R, q, G)
                ledger.require(linalg.positive_definite_int(M), f"{w}.definite",
                               "zeta tr(G) I + R diag(gamma tr G) R^T - G is not positive definite")
                low_sq = 1 - H * zeta - sum((g * sum(R[i][h] ** 2 for i in range(pm)) for h, g in enumerate(gammas)),
                                            Fraction(0))
                ledger.require(lo == 0 or lo * lo <= low_sq, f"{w}.lower",
                               f"is above what the witness proves (e_{H}^2 >= {rat_text(low_sq)[:60]})")
        lowers.append(lo)
        uppers.append(up)
    return lowers, uppers


def check_claim(ledger, cert, lowers, uppers, tol, what):
    """Obligation 3: the brackets stop at the first upper bound within the tolerance, and ``head_count`` /
    ``undecided_at`` say what they prove about ``what`` (a phrase for the summary)."""
    K = len(uppers) - 1
    ledger.require(K >= 0 and uppers[K] <= tol, "errors", "the last bracket's upper bound must be within the tolerance")
    ledger.require(all(u > tol for u in uppers[:K]), "errors", "the brackets must stop at the first H whose upper "
                   "bound is within the tolerance")
    k = cert["head_count"]
    if K == 0 or lowers[K - 1] > tol:
        ledger.require(strict_equal(k, K) and cert["undecided_at"] is None, "head_count",
                       f"the brackets prove the eps-head count {K}")
        return (f"eps-head count {int_text(K)} for {what} at "
                f"tolerance {rat_text(tol)} (e_{K} <= {float(uppers[K]):.3g}"
                + (f", e_{K - 1} >= {float(lowers[K - 1]):.3g})" if K else ")"))
    ledger.require(k is None and strict_equal(cert["undecided_at"], K - 1), "head_count",
                   f"the bracket of e_{K - 1} straddles the tolerance: no count may be claimed (undecided_at {K - 1})")
    return (f"no eps-head count claimed for {what}: e_{K - 1} "
            f"lies in [{float(lowers[K - 1]):.3g}, {float(uppers[K - 1]):.3g}], around the tolerance")
