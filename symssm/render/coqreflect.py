"""Witnesses and the theorem file of the reflective Coq route (``SymssmReflect.v``).

The exact-``Z`` route of :mod:`symssm.render.coq` recomputes every lag with binary integers, which
stops at ``N <= 8``.  The reflective route proves the same theorem, ``symssm_head_count``, about the
same exact rational system, from witnesses that this module computes when the project is written
(Coq alone checks them; the certificate does not carry them, see docs/formal.md):

- a prime ``P < 2^31`` and the inverse ``X`` modulo ``P`` of the certificate's witness minor (the
  lags ``lower_bound.lags`` at the entries ``lower_bound.positions``), for the lower bound;
- for the upper bound either nothing (``k >= p m``, ``k >= N + 1``, or ``k >= N`` with ``D = 0``:
  Cayley-Hamilton) or an ``A``-invariant subspace holding ``B``'s image: integer ``V`` (``N x r``),
  ``T = Tz / t`` and ``W = Wz / w`` with ``A V = V T`` and ``B = V W`` (``r + 1 <= k``, or ``r <= k``
  when ``D = 0``); if ``r`` is still too large, rows ``Uz`` (``r1 x r``) with ``U T = T1 U`` and
  ``C V = H U`` (``T1 = T1z / t1``, ``H = Hz / h``), ``r1`` the minimal realisation's dimension.

Examples
--------
>>> _inverse_mod([[2, 1], [1, 1]], 7)
[[1, 6], [6, 2]]
>>> _inverse_mod([[1, 1], [1, 1]], 7) is None
True
>>> _reachable([[2, 0], [0, 2]], 1, [[1], [1]], 1)[0]
[[1], [1]]
"""

from fractions import Fraction
from math import lcm

from ..errors import LimitError
from ..formats.rationals import int_to_text

__all__ = ["reflect_theorem", "PRIMES", "MAX_N", "MAX_PM"]

#: Limits of the reflective route (docs/formal.md, docs/performance.md).
MAX_N = 64
MAX_PM = 256
#: Primes below 2^30 tried in turn until the witness minor is invertible modulo one of them.
PRIMES = (1073741789, 1073741783, 1073741741, 1073741723, 1073741719, 1073741717, 1073741689)


def _inverse_mod(M, P):
    """The inverse of the square integer matrix ``M`` modulo the prime ``P``, or None if singular."""
    k = len(M)
    W = [[x % P for x in row] + [int(i == j) for j in range(k)] for i, row in enumerate(M)]
    for col in range(k):
        piv = next((r for r in range(col, k) if W[r][col]), None)
        if piv is None:
            return None
        W[col], W[piv] = W[piv], W[col]
        inv = pow(W[col][col], P - 2, P)
        W[col] = [x * inv % P for x in W[col]]
        for r in range(k):
            f = W[r][col]
            if r != col and f:
                W[r] = [(x - f * y) % P for x, y in zip(W[r], W[col])]
    return [row[k:] for row in W]


def _mulmod(X, Y, P):
    cols = list(zip(*Y))
    return [[sum(x * y for x, y in zip(row, col)) % P for col in cols] for row in X]


def _minor_mod(data, P, DS, RS, CS):
    """The minor of the integer lags (SymssmLib's ``zlag``) ``DS`` at the entries ``(RS_t, CS_t)`` modulo ``P``."""
    Az = [[x % P for x in row] for row in data.Az]
    Bz = [[x % P for x in row] for row in data.Bz]
    Q = [[x % P for x in row] for row in data.Cz]
    wanted = {}
    top = max(DS) if DS else -1
    for d in range(top + 1):
        if d in DS:
            L = _mulmod(Q, Bz, P)
            if d == 0:
                L = [[(data.e * x + data.c * data.b * y) % P for x, y in zip(r1, r2)] for r1, r2 in zip(L, data.Dz)]
            wanted[d] = L
        Q = _mulmod(Q, Az, P)
    return [[wanted[d][r][c] for r, c in zip(RS, CS)] for d in DS]


def _reachable(Az, a, Bz, b):
    """``(Vz, Tz, t, Wz, w)``: an integer basis ``Vz`` of span{A^d B} with ``A V = V Tz/t``, ``B = V Wz/w``."""
    N, m = len(Az), len(Bz[0])
    basis, pivots = _echelon_span([[Bz[i][j] for i in range(N)] for j in range(m)],
                                  lambda v: [sum(Az[i][j] * v[j] for j in range(N)) for i in range(N)])
    scales = [lcm(*[x.denominator for x in u]) for u in basis]
    Vz = [[int(u[i] * s) for u, s in zip(basis, scales)] for i in range(N)]  # N x r, column j = s_j basis_j
    r = len(basis)
    # A V = V T: row pivots[i] of V is s_i e_i, so T[i][j] = (A V)[pivots[i]][j] / s_i
    AV = [[Fraction(sum(Az[i][l] * Vz[l][j] for l in range(N)), a) for j in range(r)] for i in range(N)]
    T = [[AV[pivots[i]][j] / scales[i] for j in range(r)] for i in range(r)]
    W = [[Fraction(Bz[pivots[i]][j], b) / scales[i] for j in range(m)] for i in range(r)]
    t = lcm(1, *[x.denominator for row in T for x in row])
    w = lcm(1, *[x.denominator for row in W for x in row])
    Tz = [[int(x * t) for x in row] for row in T]
    Wz = [[int(x * w) for x in row] for row in W]
    for i in range(N):  # exact: t Az Vz = a Vz Tz and w Bz = b Vz Wz (else a bug here)
        for j in range(r):
            assert t * sum(Az[i][l] * Vz[l][j] for l in range(N)) == a * sum(Vz[i][l] * Tz[l][j] for l in range(r))
        for j in range(m):
            assert w * Bz[i][j] == b * sum(Vz[i][l] * Wz[l][j] for l in range(r))
    return Vz, Tz, t, Wz, w


def _echelon_span(vectors, step):
    """A reduced echelon basis (rows, pivots) of the smallest ``step``-invariant span holding ``vectors``."""
    basis, pivots = [], []
    queue = [[Fraction(x) for x in v] for v in vectors]
    while queue:
        v = queue.pop(0)
        for u, pc in zip(basis, pivots):
            if v[pc]:
                f = v[pc]
                v = [x - f * y for x, y in zip(v, u)]
        pc = next((i for i, x in enumerate(v) if x), None)
        if pc is None:
            continue
        v = [x / v[pc] for x in v]
        basis = [[x - u[pc] * y for x, y in zip(u, v)] if u[pc] else u for u in basis]
        basis.append(v)
        pivots.append(pc)
        queue.append(step(v))
    return basis, pivots


def _observable(Tz, t, Vz, Cz, c):
    """``(Uz, T1z, t1, Hz, h)``: rows ``Uz`` spanning span{C V T^d} with ``U T = T1z/t1 U``, ``C V = Hz/h U``."""
    r, p, N = len(Tz), len(Cz), len(Vz)
    CV = [[Fraction(sum(Cz[i][l] * Vz[l][j] for l in range(N)), c) for j in range(r)] for i in range(p)]
    basis, pivots = _echelon_span(CV, lambda v: [sum(v[i] * Fraction(Tz[i][j], t) for i in range(r))
                                                 for j in range(r)])
    scales = [lcm(*[x.denominator for x in u]) for u in basis]
    Uz = [[int(x * s) for x in u] for u, s in zip(basis, scales)]  # r1 x r, Uz[i][pivots[i]] = s_i
    r1 = len(Uz)
    UT = [[Fraction(sum(Uz[i][l] * Tz[l][j] for l in range(r)), t) for j in range(r)] for i in range(r1)]
    T1 = [[UT[i][pivots[j]] / scales[j] for j in range(r1)] for i in range(r1)]
    H = [[CV[i][pivots[j]] / scales[j] for j in range(r1)] for i in range(p)]
    t1 = lcm(1, *[x.denominator for row in T1 for x in row])
    h = lcm(1, *[x.denominator for row in H for x in row])
    T1z = [[int(x * t1) for x in row] for row in T1]
    Hz = [[int(x * h) for x in row] for row in H]
    for i in range(r1):  # exact: t1 Uz Tz = t T1z Uz and h Cz Vz = c Hz Uz (else a bug here)
        for j in range(r):
            assert t1 * sum(Uz[i][l] * Tz[l][j] for l in range(r)) == t * sum(T1z[i][l] * Uz[l][j] for l in range(r1))
    for i in range(p):
        for j in range(r):
            assert h * CV[i][j] * c == c * sum(Hz[i][l] * Uz[l][j] for l in range(r1))
    return Uz, T1z, t1, Hz, h


#: Integers of more bits than this are written in hexadecimal (``0x...``): Coq reads a decimal literal
#: in time quadratic in its digits with a large constant (16 numbers of 550 digits: 23 s; in hexadecimal
#: 2 s), and ``hex`` has no ``sys.int_max_str_digits`` limit.
HEX_BITS = 200


def _n(x):
    """A non-negative integer of any size as Coq reads it: decimal, or hexadecimal past ``HEX_BITS`` bits.

    >>> _n(12), _n(2**256)[:6]
    ('12', '0x1000')
    """
    return hex(x) if x.bit_length() > HEX_BITS else int_to_text(x)


def _z(x):
    return f"(-{_n(-x)})" if x < 0 else _n(x)


def _zlist(M):
    return "[:: " + "; ".join("[:: " + "; ".join(_z(x) for x in row) + "]" for row in M) + "]%Z"


def _ulist(M):
    return "[:: " + "; ".join("[:: " + "; ".join(_n(x) for x in row) + "]" for row in M) + "]%uint63"


def _nlist(xs):
    return "[:: " + "; ".join(_n(x) for x in xs) + "]%nat" if xs else "[::]"


def _witness_lines(data, DS, RS, CS):
    """The prime and the inverse of the witness minor modulo it (LimitError if every prime fails)."""
    for P in PRIMES:
        X = _inverse_mod(_minor_mod(data, P, DS, RS, CS), P)
        if X is not None:
            break
    else:
        raise LimitError("the witness minor is singular modulo every prime the Coq export tries")
    return P, ["(** The witnesses: the prime P, the witness lags DS at the entries (RS_t, CS_t), and X, the",
               "    inverse of that minor modulo P. *)",
               f"Definition P : Uint63.int := {P}%uint63.",
               f"Definition DS : seq nat := {_nlist(DS)}.",
               f"Definition RS : seq nat := {_nlist(RS)}.",
               f"Definition CS : seq nat := {_nlist(CS)}.",
               f"Definition X : useq := {_ulist(X) if X else '[::]'}.", ""]


def _range_lines(data, lo, hi, k):
    """``symssm_head_count`` for ``lo <= n <= hi`` with ``hi <= k``: the rank of ``hi`` rows is at most ``hi``."""
    _P, lines = _witness_lines(data, data.DS[:k], data.RS[:k], data.CS[:k])
    route = "true" if data.p <= data.m else "false"
    return lines + [
        f"(** The certified head count: k(n) = {k} for every n from {lo} to {hi}. *)",
        f"Theorem symssm_head_count : forall n, ({lo} <= n <= {hi})%nat -> \\rank (lags A B C D n) = {k}%nat.",
        "Proof.", "unfold A, B, C, D.",
        f"apply: (head_count_between (P := P) (lo := {lo}) (hi := {hi}) (k := {k}) (route := {route}) "
        "(DS := DS) (RS := RS) (CS := CS) (X := X)).",
        "  1,2: by vm_compute.",
        "move=> n hn; apply: rank_upper_rows; apply: leq_trans hn _; by vm_compute.", "Qed."]


def reflect_theorem(data, lo, k, profile=(), hi=None):
    """The Coq lines defining the witnesses and proving ``symssm_head_count`` (every ``n >= lo``).

    Parameters
    ----------
    data : object
        The scaled system and the certificate's witnesses (``symssm.render.coq._Data``).
    lo, k : int
        The claim ``k(n) = k`` for every ``n >= lo`` (up to ``hi``).
    profile : sequence of int
        The certificate's ``profile.values`` (``k(1), k(2), ...``); when ``k = lo`` and they are
        ``1, 2, ..., lo - 1``, the file also proves ``symssm_profile``: ``k(i) = i`` for ``i <= lo``.
    hi : int, optional
        A range ``lo <= n <= hi`` (``holds_for.to``); it needs ``hi <= k`` (the upper bound: an
        ``n x p m`` matrix has rank at most ``n``).

    Returns
    -------
    list of str
        Lines of ``HeadCount.v`` after the system's definitions (``A .. D``); the proofs unfold them,
        and the lemmas read the integer lists and denominators off the goal.

    Raises
    ------
    LimitError
        If no listed prime leaves the witness minor invertible, or if ``k`` is below the generic
        bounds and below the minimal realisation's dimension (plus one with ``D``).
    """
    N, p, m = data.N, data.p, data.m
    if hi is not None:
        if hi > k:
            raise LimitError(f"the reflective Coq route proves a range lo <= n <= hi only when hi <= k; this "
                             f"certificate claims k = {k} for {lo} <= n <= {hi} (the exact route takes it for "
                             "N <= 8, p m <= 16)")
        DS = [d for d in data.DS if d < lo]
        if len(DS) != k:
            raise LimitError(f"the reflective Coq route needs {k} witness lags below {lo}")
        return _range_lines(data, lo, hi, k)
    if any(d >= lo for d in data.DS) or len(data.DS) != k:
        raise LimitError(f"the reflective Coq route needs {k} witness lags below {lo}")
    _P, lines = _witness_lines(data, data.DS, data.RS, data.CS)
    d_zero = all(x == 0 for row in data.Dz for x in row)
    if p * m <= k or N + 1 <= k or (N <= k and d_zero):
        upper = ["apply: rank_upper_generic.", "by vm_compute."]
    else:
        Vz, Tz, t, Wz, w = _reachable(data.Az, data.a, data.Bz, data.b)
        r = len(Tz)
        fits = lambda dim: dim > 0 and (dim + 1 <= k or (dim <= k and d_zero))  # noqa: E731
        lines += ["(** The upper bound's witness: V (N x r) spans an A-invariant subspace that holds B's image,",
                  "    A V = V T and B = V W, with T = Tz / t and W = Wz / w. *)",
                  f"Definition Vz : zseq := {_zlist(Vz)}.",
                  f"Definition Tz : zseq := {_zlist(Tz)}.",
                  f"Definition Wz : zseq := {_zlist(Wz)}.", ""]
        Uz, T1z, t1, Hz, h = _observable(Tz, t, Vz, data.Cz, data.c) if r and not fits(r) else (None,) * 5
        if fits(r):
            upper = [f"apply: (rank_upper_reduced _ _ _ n (r' := {r - 1}) (t := {_z(t)}%Z) (w := {_z(w)}%Z) "
                     "(Vz := Vz) (Tz := Tz) (Wz := Wz)).", "by vm_compute."]
        elif not Uz:
            # no lag after L_0 is nonzero (B = 0, C = 0, or C V = 0): k(n) <= 1, and 0 when D = 0
            if not r:  # B = 0: V one zero column, T = 0, W = 0
                Vz, Tz, t, Wz, w, r = [[0] for _ in range(N)], [[0]], 1, [[0] * m], 1, 1
                lines[-4:-1] = [f"Definition Vz : zseq := {_zlist(Vz)}.", f"Definition Tz : zseq := {_zlist(Tz)}.",
                                f"Definition Wz : zseq := {_zlist(Wz)}."]
            upper = [f"apply: (rank_upper_null _ _ n (r' := {r - 1}) (t := {_z(t)}%Z) (w := {_z(w)}%Z) "
                     "(Vz := Vz) (Tz := Tz) (Wz := Wz)).", "by vm_compute."]
        else:
            r1 = len(Uz)
            if not fits(r1):
                raise LimitError(f"k = {k} is below min(N{'' if d_zero else ' + 1'}, p m) and the minimal realisation "
                                 f"has {r1} states; the reflective Coq route bounds k by that number"
                                 f"{'' if d_zero else ' + 1'} only")
            lines += ["(** Then U (r1 x r) with U T = T1 U and C V = H U, T1 = T1z / t1, H = Hz / h: the lags are",
                      "    those of an r1-state system. *)",
                      f"Definition Uz : zseq := {_zlist(Uz)}.",
                      f"Definition T1z : zseq := {_zlist(T1z)}.",
                      f"Definition Hz : zseq := {_zlist(Hz)}.", ""]
            upper = [f"apply: (rank_upper_observed _ n (r' := {r - 1}) (r1' := {r1 - 1}) (t := {_z(t)}%Z) "
                     f"(w := {_z(w)}%Z) (t1 := {_z(t1)}%Z) (h := {_z(h)}%Z)\n         (Vz := Vz) (Tz := Tz) (Wz := Wz) "
                     "(Uz := Uz) (T1z := T1z) (Hz := Hz)).", "by vm_compute."]
    route = "true" if p <= m else "false"
    lines += [f"(** The certified head count: k(n) = {k} for every n >= {lo}. *)",
              f"Theorem symssm_head_count : forall n, ({lo} <= n)%nat -> \\rank (lags A B C D n) = {k}%nat.",
              "Proof.", "unfold A, B, C, D.",
              f"apply: (head_count_from (P := P) (lo := {lo}) (k := {k}) (route := {route}) "
              "(DS := DS) (RS := RS) (CS := CS) (X := X)).",
              "  1,2: by vm_compute.",
              "move=> n; " + upper[0], upper[1], "Qed."]
    if k == lo and all(v == i for i, v in enumerate(list(profile)[:lo - 1], start=1)):
        lines += ["", f"(** The profile below it: k(i) = i for every i <= {lo} (every prefix of independent lags is",
                  "    independent). *)",
                  f"Theorem symssm_profile : forall i, (i <= {lo})%nat -> \\rank (lags A B C D i) = i.",
                  f"Proof. move=> i hi; exact: (rank_prefix (symssm_head_count {lo} (leqnn {lo})) hi). Qed."]
    return lines
