"""A head-count certificate as a Coq/mathcomp project: the claim re-proved by a proof assistant.

``coq_project(cert)`` returns the files of a Coq project (``_CoqProject``, the generic library
``SymssmLib.v`` shipped with symssm, and ``HeadCount.v``) for a verified head-count certificate
of a real system.  ``HeadCount.v`` states, in mathcomp's terms, that the dimension of the span of
the lags ``L_0 = C B + D, L_d = C A^d B`` (``d < n``) equals the certified head count for every
length the certificate covers, and the profile below it; its proofs apply the library's
theorems ``rank_lags_from`` / ``rank_lags_between`` / ``rank_lags`` to the certificate's
witnesses, and their boolean side conditions are decided by ``vm_compute`` on binary integers.
Nothing in it is admitted: ``Print Assumptions symssm_head_count`` prints "Closed under the
global context". See docs/formal.md.

Examples
--------
>>> import symssm
>>> from symssm.render.coq import coq_project
>>> rot = symssm.ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]], name="rotation")
>>> files = coq_project(symssm.certify(rot, 8))
>>> sorted(files)
['HeadCount.v', 'README.md', 'SymssmLib.v', '_CoqProject']
>>> "forall n, (2 <= n)%nat -> \\\\rank (lags A B C D n) = 2%nat" in files["HeadCount.v"]
True
"""

import os
from fractions import Fraction
from math import lcm

from ..certificate import kinds
from ..errors import CertificateError, InputError, LimitError
from ..formats.rationals import int_to_text, parse_rational
from . import coqreflect
from .coqreflect import _nlist, _z, _zlist

__all__ = ["coq_project", "MAX_N", "MAX_PM", "LIBRARY"]

#: Size limits of the exact-Z route (docs/formal.md): the proofs compute with N x N products.
MAX_N = 8
MAX_PM = 16
#: The generic library, proved once and copied into every project.
LIBRARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "coq", "SymssmLib.v")
#: The reflective library (primitive integers modulo a prime), copied into reflective projects.
REFLECT_LIBRARY = os.path.join(os.path.dirname(os.path.abspath(__file__)), "coq", "SymssmReflect.v")


def _frac(text):
    return parse_rational(text, what="a certificate entry")


def _scaled(M):
    """An integer matrix and a positive denominator with ``M = Z / den``."""
    den = 1
    for row in M:
        for x in row:
            den = lcm(den, x.denominator)
    return [[int(x * den) for x in row] for row in M], den


def _mul(X, Y):
    return [[sum(X[i][k] * Y[k][j] for k in range(len(Y))) for j in range(len(Y[0]))] for i in range(len(X))]


def _reduce(M, n):
    """Gauss-Jordan over Q on the n x (n + k) matrix M, in place; returns the determinant of its left block.

    Raises CertificateError if that block is singular (the certificate's minor is nonsingular, so this
    is a generator bug).
    """
    det = Fraction(1)
    for col in range(n):
        piv = next((r for r in range(col, n) if M[r][col] != 0), None)
        if piv is None:
            raise CertificateError("the witness minor is singular (a generator bug)")
        if piv != col:
            M[col], M[piv] = M[piv], M[col]
            det = -det
        det *= M[col][col]
        inv = 1 / M[col][col]
        M[col] = [v * inv for v in M[col]]
        for r in range(n):
            if r != col and M[r][col] != 0:
                f = M[r][col]
                M[r] = [a - f * b for a, b in zip(M[r], M[col])]
    return det


def _solve(W, rhs):
    """Solve ``x W = rhs`` (x a row) exactly; W square and nonsingular."""
    n = len(W)
    M = [[Fraction(W[c][r]) for c in range(n)] + [Fraction(rhs[r])] for r in range(n)]  # W^T x^T = rhs^T
    _reduce(M, n)
    return [M[r][n] for r in range(n)]


def _adjugate(W):
    """``(adj, det)`` of an integer matrix: ``W adj = det I`` (exact, via the inverse over Q)."""
    n = len(W)
    M = [[Fraction(x) for x in row] + [Fraction(int(i == j)) for j in range(n)] for i, row in enumerate(W)]
    det = _reduce(M, n)
    adj = [[M[i][n + j] * det for j in range(n)] for i in range(n)]
    assert all(x.denominator == 1 for row in adj for x in row) and det.denominator == 1
    return [[int(x) for x in row] for row in adj], int(det)


def _ids(ids):
    items = [f"({d}%nat, {_z(q)}%Z, [:: {'; '.join(_z(x) for x in P)}]%Z)" if P else f"({d}%nat, {_z(q)}%Z, [::])"
             for d, q, P in ids]
    return "[:: " + "; ".join(items) + "]" if items else "[::]"


def _comment_matrix(M):
    return "[" + "; ".join(" ".join(int_to_text(x) for x in row) for row in M) + "]"


class _Data:
    """The certificate's system and witnesses, scaled to integers as the library reads them."""

    def __init__(self, cert):
        s = cert["system"]
        self.N, self.p, self.m = s["N"], s["p"], s["m"]
        self.A = [[_frac(x) for x in row] for row in s["A"]]
        self.B = [[_frac(x) for x in row] for row in s["B"]]
        self.C = [[_frac(x) for x in row] for row in s["C"]]
        self.D = None if s["D"] is None else [[_frac(x) for x in row] for row in s["D"]]
        self.Az, self.a = _scaled(self.A)
        self.Bz, self.b = _scaled(self.B)
        self.Cz, self.c = _scaled(self.C)
        if self.D is None:
            self.Dz, self.e = [[0] * self.m for _ in range(self.p)], 1
        else:
            self.Dz, self.e = _scaled(self.D)
        self.DS = list(cert["lower_bound"]["lags"])
        self.RS = [rc[0] for rc in cert["lower_bound"]["positions"]]
        self.CS = [rc[1] for rc in cert["lower_bound"]["positions"]]
        prof = cert["profile"]
        self.values, self.n0, self.K = list(prof["values"]), prof["constant_from"], prof["eventual"]
        self._lags = {}

    def zlag(self, d):
        """The integer lag the library's ``zlag`` computes (a nonzero multiple of L_d)."""
        if d not in self._lags:
            if d == 0:
                CB = _mul(self.Cz, self.Bz)
                self._lags[d] = [[self.e * x + self.c * self.b * y for x, y in zip(r1, r2)]
                                 for r1, r2 in zip(CB, self.Dz)]
            else:
                P = self.Bz
                for _ in range(d):
                    P = _mul(self.Az, P)
                self._lags[d] = _mul(self.Cz, P)
        return self._lags[d]

    def minor(self, j):
        return [[self.zlag(self.DS[s])[self.RS[t]][self.CS[t]] for t in range(j)] for s in range(j)]

    def identity(self, d):
        """``(d, q, P)`` with ``q zlag(d) = sum_h P_h zlag(DS_h)`` over the witnesses below ``d``."""
        below = [h for h, dh in enumerate(self.DS) if dh < d]
        l = len(below)
        target = self.zlag(d)
        if l == 0:
            x = []
        else:
            W = self.minor(l)
            x = _solve(W, [target[self.RS[t]][self.CS[t]] for t in range(l)])
        q = 1
        for v in x:
            q = lcm(q, v.denominator)
        P = [int(v * q) for v in x]
        for r in range(self.p):  # the identity must hold on every entry (else the certificate lied)
            for c in range(self.m):
                if q * target[r][c] != sum(P[h] * self.zlag(self.DS[h])[r][c] for h in range(l)):
                    raise CertificateError(f"lag {d} is not in the span of the witnesses below it")
        return d, q, P


def _bits(M):
    """The largest bit length of an entry of a list of integer rows (at least 1)."""
    return max([1] + [abs(x).bit_length() for row in M for x in row])


def exact_units(d, hi, parts=False):
    """Estimated work of the exact route's ``vm_compute`` checks, in bit-products (see :func:`choose_route`).

    Two terms: ``powers``, the products of ``N x N`` matrices recomputing ``zlag d`` (entries growing
    by ``bits(A)`` a step) for every entry of a witness minor and every identity; ``big``, the
    products with the adjugate and the identities' coefficients (``j bits(L)`` bits, ``bits(L)`` the
    largest scaled lag) against lag entries.  Coq's binary integers multiply an ``x``-bit by a
    ``y``-bit number in about ``x y`` steps.
    """
    N, pm = d.N, d.p * d.m
    bA = _bits(d.Az)
    bL = max(_bits(d.zlag(x)) for x in range(N + 1))

    def zlag_units(dd):
        return N ** 3 * bA * bA * dd * (dd + 1) // 2 + N * N * (d.p + d.m) * (dd * bA + bA) * bA

    def theorem(n_top, j):
        coef = j * (bL + j.bit_length())  # bits of the adjugate, the determinant, the coefficients
        free = [x for x in range(min(n_top, N + 1)) if x not in d.DS[:j]]
        powers = j * sum(zlag_units(x) for x in d.DS[:j]) + len(free) * (j + 1) * zlag_units(N)
        big = j ** 3 * coef * bL + len(free) * pm * j * coef * bL
        return powers, big

    runs = [theorem(N + 1, len(d.DS))] if hi is None else \
        [theorem(hi, len([x for x in d.DS if x < hi])), theorem(N + 1, d.K)]
    runs += [theorem(n_small, k_small) for n_small, k_small in enumerate(d.values, start=1) if n_small < d.n0]
    powers, big = sum(r[0] for r in runs), sum(r[1] for r in runs)
    return (powers, big) if parts else powers + big


def reflect_units(d):
    """Estimated work of the reflective route's checks, in the same bit-products as :func:`exact_units`.

    Lags modulo ``P < 2^31`` (products of primitive integers, counted as one 63-bit by 63-bit step
    each): ``max(DS)`` products of a ``min(p, m) x N`` by an ``N x N`` matrix, and the ``k x k``
    product checking ``X``; then, unless a dimension bounds ``k`` (``k >= p m``, ``k >= N + 1``, or
    ``k >= N`` with ``D = 0``), the exact products ``A V = V T`` and ``B = V W`` of the upper bound's
    witnesses: ``N^3`` products of ``bits(A) + N`` by ``bits(B) + N bits(A)`` bits.
    """
    N, k = d.N, len(d.DS)
    top = max(d.DS, default=0) + 1
    modular = (top * min(d.p, d.m) * N * N + k ** 3) * 63 * 63 // 40
    d_zero = all(x == 0 for row in d.Dz for x in row)
    if d.p * d.m <= k or N + 1 <= k or (N <= k and d_zero):
        return modular
    bA, bB = _bits(d.Az), _bits(d.Bz)
    return modular + N ** 3 * (bA + N) * (bB + N * bA)


#: The chooser's cost model (docs/formal.md, "Choosing the route"), fitted to builds of both routes on
#: 15 random systems (N = 2..8, p m = 1..16, entries of 1 to 30 digits) on a loaded 2-core machine:
#: the exact route's fixed seconds and bit-products per second; the reflective route's fixed seconds
#: (its second library) and its bit-products per second (primitive 63-bit products counted as 63 x 63).
EXACT_FIXED_SECONDS = 4.0
EXACT_UNITS_PER_SECOND = 2.5e6
REFLECT_FIXED_SECONDS = 10.0
REFLECT_UNITS_PER_SECOND = 2e6


def choose_route(data_json, d):
    """The route ``auto`` takes: the one of lower estimated build time.

    The estimate is a cost model in bit-products (``bits x size``), fitted to builds of both routes
    (docs/formal.md, "Choosing the route"):

    - exact route: ``EXACT_FIXED_SECONDS + exact_units / EXACT_UNITS_PER_SECOND`` (4 s + one second
      per 2.5 million bit-products), ``exact_units`` counting the products of Coq's binary integers
      its checks perform: the ``N x N`` matrix powers recomputed for every minor entry and identity,
      and the products of the adjugate and the identities' coefficients (``j bits(L)`` bits) with
      the lags' entries (``bits(L)`` bits);
    - reflective route: ``REFLECT_FIXED_SECONDS + reflect_units / REFLECT_UNITS_PER_SECOND`` (10 s +
      one second per 2 million): lags modulo a prime below ``2^31``, whose size does not grow with the
      entries, and the exact products of its upper bound's witnesses.

    So ``auto`` takes the exact route for small systems with small entries (``exact_units`` below
    about 1.5e7; in the fitted builds N <= 6 with p m <= 4 and entries of up to three digits, or
    p = m = 1 with one-digit entries) and the reflective one otherwise.  It takes the exact route
    where the reflective one cannot state the claim (a range ``lo <= n <= hi`` with ``hi`` above the
    head count) or bound it (a head count below the minimal realisation's dimension:
    :func:`coq_project` falls back), and the reflective one past the exact one's ``N <= 8``,
    ``p m <= 16``.

    Returns
    -------
    (str, float, float)
        ``"exact"`` or ``"reflect"``, and the two estimates in seconds (``inf`` where a route
        cannot take the certificate).
    """
    inf = float("inf")
    hi = data_json["holds_for"]["to"]
    small = d.N <= MAX_N and d.p * d.m <= MAX_PM
    exact_s = (EXACT_FIXED_SECONDS + exact_units(d, hi) / EXACT_UNITS_PER_SECOND
               if small else inf)
    reflect_ok = ((hi is None or hi <= data_json["head_count"]) and d.N <= coqreflect.MAX_N
                  and d.p * d.m <= coqreflect.MAX_PM)
    reflect_s = REFLECT_FIXED_SECONDS + reflect_units(d) / REFLECT_UNITS_PER_SECOND if reflect_ok else inf
    return ("exact" if exact_s <= reflect_s and exact_s < inf else "reflect"), exact_s, reflect_s


def verified_head_count(cert):
    """The data of a head-count certificate over Q that verifies.

    Raises
    ------
    CertificateError
        If it is of another kind or field (exit 2), or does not verify (exit 1).
    """
    data_json = cert.data
    if _row(data_json) is not kinds.HEAD_COUNT or "field" in data_json:
        raise CertificateError("symssm coq takes head-count certificates of real systems (over Q); this one is "
                               f"{data_json.get('kind')!s:.40}{' over ' + str(data_json['field']) if 'field' in data_json else ''}")
    result = cert.check()
    if not result.verified:
        err = CertificateError(f"the certificate does not verify, refusing to export it: {result.message}")
        err.exit_code = 1
        raise err
    return data_json


def coq_project(cert, route="auto"):
    """The files of a Coq project re-proving a verified head-count certificate.

    Parameters
    ----------
    cert : Certificate
        A head-count certificate of a real system (``field`` absent) that the checker verifies.
    route : {"auto", "exact", "reflect"}
        ``"exact"``: every lag in binary integers (``N <= 8``, ``p m <= 16``; closed under the
        global context).  ``"reflect"``: ``SymssmReflect.v``, lags modulo a prime with primitive
        integers (``N <= 64``, ``p m <= 256``, claims for every ``n`` from ``holds_for.from`` on,
        or up to ``holds_for.to`` when it is at most the head count).  ``"auto"``: the route of
        lower estimated build time (:func:`choose_route`).

    Returns
    -------
    dict
        File name -> text: ``_CoqProject``, ``SymssmLib.v`` (and ``SymssmReflect.v`` on the
        reflective route), ``HeadCount.v``, ``README.md``.

    Raises
    ------
    CertificateError
        If the certificate is not a head count over Q or does not verify.
    LimitError
        If the system is past both routes' limits (docs/formal.md), naming the limit.
    """
    data_json = verified_head_count(cert)
    d = _Data(data_json)
    small = d.N <= MAX_N and d.p * d.m <= MAX_PM
    if route == "auto":
        route = choose_route(data_json, d)[0]
        if route == "reflect" and small:
            try:
                return _reflect_project(data_json, d)
            except LimitError:  # an upper bound past the reflective witnesses: the exact route states it
                route = "exact"
    if route == "exact" and not small:
        raise LimitError(f"the exact Coq route takes N <= {MAX_N} and p m <= {MAX_PM}; this system has N = {d.N}, "
                         f"p m = {d.p * d.m}")
    if route == "reflect":
        return _reflect_project(data_json, d)
    N, p, m = d.N, d.p, d.m
    name = data_json["system"]["name"]
    n_cert, k_cert = data_json["n"], data_json["head_count"]
    lo, hi = data_json["holds_for"]["from"], data_json["holds_for"]["to"]
    idents = [d.identity(x) for x in range(N + 1) if x not in d.DS]
    lines = _header(data_json, "", ["From Coq Require Import ZArith.", "From Symssm Require Import SymssmLib."]) + [
        f"(** A = (1/{int_to_text(d.a)}) {_comment_matrix(d.Az)} *)",
        f"Definition A : 'M[rat]_({N}, {N}) := qmx {N} {N} {_z(d.a)}%Z {_zlist(d.Az)}.",
        f"(** B = (1/{int_to_text(d.b)}) {_comment_matrix(d.Bz)} *)",
        f"Definition B : 'M[rat]_({N}, {m}) := qmx {N} {m} {_z(d.b)}%Z {_zlist(d.Bz)}.",
        f"(** C = (1/{int_to_text(d.c)}) {_comment_matrix(d.Cz)} *)",
        f"Definition C : 'M[rat]_({p}, {N}) := qmx {p} {N} {_z(d.c)}%Z {_zlist(d.Cz)}.",
        f"(** D = (1/{int_to_text(d.e)}) {_comment_matrix(d.Dz)} *)",
        f"Definition D : 'M[rat]_({p}, {m}) := qmx {p} {m} {_z(d.e)}%Z {_zlist(d.Dz)}.",
        "",
    ]
    system_args = (f"(N' := {N - 1}) (p' := {p - 1}) (m' := {m - 1}) (a := {_z(d.a)}%Z) (b := {_z(d.b)}%Z) (c := {_z(d.c)}%Z) "
                   f"(e := {_z(d.e)}%Z)\n         (Az := {_zlist(d.Az)}) (Bz := {_zlist(d.Bz)})\n"
                   f"         (Cz := {_zlist(d.Cz)}) (Dz := {_zlist(d.Dz)})")

    def witnesses(j):
        adj, det = _adjugate(d.minor(j)) if j else ([], 1)
        return (f"(DS := {_nlist(d.DS)}) (RS := {_nlist(d.RS)}) (CS := {_nlist(d.CS)})\n"
                f"         (adj := {_zlist(adj) if adj else '[::]'}) (det := {_z(det)}%Z) (ids := {_ids(idents)})")

    def proof_from(n0, j):
        return ["Proof.", "rewrite /A /B /C /D.",
                f"apply: (rank_lags_from {system_args}\n         (n0 := {n0}) (j := {j}) {witnesses(j)}).",
                "all: by vm_compute.", "Qed."]

    def proof_at(n, j):
        return ["Proof.", "rewrite /A /B /C /D.",
                f"apply: (rank_lags {system_args}\n         (n := {n}) (j := {j}) {witnesses(j)}).",
                "all: by vm_compute.", "Qed."]

    def proof_between(n_lo, n_hi, j):
        return ["Proof.", "rewrite /A /B /C /D.",
                f"apply: (rank_lags_between {system_args}\n         (lo := {n_lo}) (hi := {n_hi}) (j := {j}) "
                f"{witnesses(j)}); by vm_compute.", "Qed."]

    # the certificate's claim
    if hi is None:
        lines += [f"(** The certified head count: k(n) = {k_cert} for every n >= {lo} (the certificate's n = {n_cert}). *)",
                  f"Theorem symssm_head_count : forall n, ({lo} <= n)%nat -> \\rank (lags A B C D n) = {k_cert}%nat."]
        lines += proof_from(lo, k_cert)
    else:
        lines += [f"(** The certified head count: k(n) = {k_cert} for every n from {lo} to {hi} "
                  f"(the certificate's n = {n_cert}). *)",
                  f"Theorem symssm_head_count : forall n, ({lo} <= n <= {hi})%nat -> "
                  f"\\rank (lags A B C D n) = {k_cert}%nat."]
        lines += proof_between(lo, hi, k_cert)
        lines += ["", f"(** The eventual head count: k(n) = {d.K} for every n >= {d.n0}. *)",
                  f"Theorem symssm_eventual_head_count : forall n, ({d.n0} <= n)%nat -> "
                  f"\\rank (lags A B C D n) = {d.K}%nat."]
        lines += proof_from(d.n0, d.K)
    # the profile below the eventual value
    for n_small, k_small in enumerate(d.values, start=1):
        if n_small >= d.n0:
            break
        lines += ["", f"(** The profile: k({n_small}) = {k_small}. *)",
                  f"Theorem symssm_profile_{n_small} : \\rank (lags A B C D {n_small}) = {k_small}%nat."]
        lines += proof_at(n_small, k_small)
    lines += ["", "Print Assumptions symssm_head_count.", ""]
    with open(LIBRARY, encoding="utf-8") as fh:
        library = fh.read()
    readme = (f"# Coq proof of the head count of {name}\n\n"
              "Built with Coq 8.16, mathcomp 1.15 and CoqEAL 1.1 (Debian/Ubuntu: `coq`, `libcoq-mathcomp`,\n"
              "`libcoq-coqeal`):\n\n"
              "    coq_makefile -f _CoqProject -o Makefile && make\n\n"
              "`HeadCount.v` states the theorem `symssm_head_count`; the build ends by printing\n"
              "`Print Assumptions symssm_head_count` (\"Closed under the global context\").\n"
              "`SymssmLib.v` holds the generic lemmas, proved once (symssm's docs/formal.md).\n")
    return {"_CoqProject": "-R . Symssm\nSymssmLib.v\nHeadCount.v\n", "SymssmLib.v": library,
            "HeadCount.v": "\n".join(lines), "README.md": readme}


def _header(data_json, how, imports):
    """The first lines of ``HeadCount.v``: what it states, and its imports."""
    return [
        f"(** symssm head-count certificate for {_coq_comment(data_json['system']['name'])}, re-proved in "
        f"Coq/mathcomp{how}.",
        "",
        f"    Generated by symssm from a certificate with input_sha256 = {data_json['input_sha256']}.",
        "    The system's matrices are exact rationals, each an integer matrix over a positive",
        "    denominator: [qmx r c den M] is the r x c matrix M / den.  [lags A B C D n] is the",
        "    n x (p m) matrix whose row d is mxvec L_d, with L_0 = C B + D and L_d = C A^d B; its rank",
        "    is the dimension of span{L_0, ..., L_(n-1)}, the number of attention heads needed on",
        "    length-n sequences (arXiv:2512.15115, Head-Count Theorem). *)",
        "Set Warnings \"-notation-overridden,-ambiguous-paths,-notation-incompatible-prefix\".",
        "From mathcomp Require Import all_ssreflect all_algebra.",
        *imports,
        "",
        "Local Open Scope ring_scope.",
        "",
    ]


def _system_lines(data_json, d):
    """The header and the exact rational system of a reflective ``HeadCount.v``."""
    N, p, m = d.N, d.p, d.m
    imports = ["From Coq Require Import ZArith Uint63.", "From Symssm Require Import SymssmLib SymssmReflect."]
    return _header(data_json, " by reflection", imports) + [
        "(** The system: each matrix an integer matrix over a positive denominator. *)",
        f"Definition A : 'M[rat]_({N}, {N}) := qmx {N} {N} {_z(d.a)}%Z {_zlist(d.Az)}.",
        f"Definition B : 'M[rat]_({N}, {m}) := qmx {N} {m} {_z(d.b)}%Z {_zlist(d.Bz)}.",
        f"Definition C : 'M[rat]_({p}, {N}) := qmx {p} {N} {_z(d.c)}%Z {_zlist(d.Cz)}.",
        f"Definition D : 'M[rat]_({p}, {m}) := qmx {p} {m} {_z(d.e)}%Z {_zlist(d.Dz)}.",
        "",
    ]


def _reflect_project(data_json, d):
    """The reflective project (``SymssmReflect.v``): ``symssm_head_count`` for every n from holds_for.from."""
    if d.N > coqreflect.MAX_N or d.p * d.m > coqreflect.MAX_PM:
        raise LimitError(f"the Coq export takes N <= {coqreflect.MAX_N} and p m <= {coqreflect.MAX_PM}; this system "
                         f"has N = {d.N}, p m = {d.p * d.m}")
    lo, hi = data_json["holds_for"]["from"], data_json["holds_for"]["to"]
    lines = _system_lines(data_json, d) + coqreflect.reflect_theorem(d, lo, data_json["head_count"], d.values, hi)
    lines += ["", "Print Assumptions symssm_head_count.", ""]
    with open(LIBRARY, encoding="utf-8") as fh:
        library = fh.read()
    with open(REFLECT_LIBRARY, encoding="utf-8") as fh:
        reflect = fh.read()
    readme = (f"# Coq proof of the head count of {data_json['system']['name']}\n\n"
              "Built with Coq 8.16, mathcomp 1.15 and CoqEAL 1.1 (Debian/Ubuntu: `coq`, `libcoq-mathcomp`,\n"
              "`libcoq-coqeal`):\n\n"
              "    coq_makefile -f _CoqProject -o Makefile && make\n\n"
              "`HeadCount.v` states the theorem `symssm_head_count`; the build ends by printing\n"
              "`Print Assumptions symssm_head_count`: the specifications of Coq's primitive 63-bit integers\n"
              "(Uint63/PrimInt63), nothing else.  `SymssmLib.v` and `SymssmReflect.v` hold the generic\n"
              "lemmas, proved once (symssm's docs/formal.md).\n")
    return {"_CoqProject": "-R . Symssm\nSymssmLib.v\nSymssmReflect.v\nHeadCount.v\n", "SymssmLib.v": library,
            "SymssmReflect.v": reflect, "HeadCount.v": "\n".join(lines), "README.md": readme}


def _row(data):
    try:
        return kinds.of(data)
    except InputError:
        return None


def _coq_comment(text):
    """User text inside a Coq comment: no comment delimiters, no quote (Coq reads a string in a comment),
    printable ASCII."""
    safe = "".join(ch if 32 <= ord(ch) < 127 else "?" for ch in str(text)).replace('"', "'")
    return safe.replace("(*", "( *").replace("*)", "* )")
