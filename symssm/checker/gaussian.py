"""Head-count certificates over Q(i) (``"field": "Q(i)"``): the checker's own Gaussian arithmetic.

Standard library only (python-flint, if installed, forms the lags from integer matrices of the real
and imaginary parts, with the same results).  Numbers are pairs of Fractions; the lags are recomputed exactly over Q(i);
the witness minor's leading principal minors are the pivots of elimination without pivoting (a
field, so each is exact); coefficient identities are checked entry by entry.
"""

import hashlib
import json
import re
from bisect import bisect_left
from fractions import Fraction
from operator import mul as _times
from functools import lru_cache
from math import lcm

from . import linalg
from .costs import charge
from .headcount import nonsingular_minor_mod
from .limits import MAX_ENTRIES, MAX_PRIME  # the same bounds as over Q
from .numbers import NumberError, canonical_rational, int_text, is_prime
from .kernel import Malformed, Rejected, Unreadable, is_text, strict_equal
from .reading import integer, keys, matrix, positions, system_record, witness_lags

FIELD = "Q(i)"
#: Largest N of a Q(i) system (modular witnesses); exact elimination is checked up to MAX_EXACT_N.
MAX_N = 1024
MAX_EXACT_N = 64
#: Most word-weighted Gaussian products the lags may cost: sum over d < T of (N^2 m + p N m) times the
#: 64-bit words of L_d's entries (bound below): at the limit, about 4 s of one core on either path (integer
#: products over the common denominators).  Honest: a random N = 64, p = m = 4 system with one-digit Gaussian
#: integers costs 7.5e6 (1.4 s); the generator refuses what is over the limit.
MAX_GAUSSIAN_WORK = 20_000_000
#: Largest bound on the bits of a lag entry (numerator plus denominator of a part): the bound over Q.
MAX_GAUSSIAN_LAG_BITS = linalg.MAX_LAG_BITS


def _bits(M):
    """Bits of the entries of ``M`` (real and imaginary parts) over their common denominator: the largest
    numerator and the lcm of the denominators (capped past the lag limit), what both paths' products touch (the
    bits of the largest entry alone would price 60 distinct 2,000-digit denominators as one of them)."""
    big, dens = 0, set()
    for row in M:
        for z in row:
            for x in (z.a, z.b):
                big = max(big, x.numerator.bit_length())
                dens.add(x.denominator)
    return big + common_denominator_bits(dens, MAX_GAUSSIAN_LAG_BITS)


def common_denominator_bits(dens, cap):
    """Bits of the lcm of ``dens``, or ``cap + 1`` as soon as it passes ``cap`` (so its cost stays bounded).

    >>> common_denominator_bits({2, 3, 4}, 100), common_denominator_bits({2 ** 90 + 1, 2 ** 90 + 3}, 100)
    (4, 101)
    """
    den = 1
    for d in sorted(dens):
        den = lcm(den, d)
        if den.bit_length() > cap:
            return cap + 1
    return den.bit_length()


def lag_cost(system, T):
    """``(bits bound of L_(T-1), word-weighted products)`` of the lags L_0..L_(T-1) (the generator: the same).

    The entries of ``L_d = C A^d B`` have at most ``bits(C) + bits(B) + d bits(A) + (d + 1) ceil(log2 2N)``
    bits (each part's numerator and denominator), so forming L_d costs ``N^2 m + p N m`` products of
    that many bits at most.
    """
    N, p, m = system["N"], system["p"], system["m"]
    bA, bB, bC = _bits(system["A"]), _bits(system["B"]), _bits(system["C"])
    log_n = max(1, (2 * N - 1).bit_length())
    work = 0
    bound = 0
    for d in range(T):
        bound = bC + bB + d * bA + (d + 1) * log_n
        work += (N * N * m + p * N * m) * (1 + bound // 64)
    return bound, work
HEADS_RULE = "alpha^h_ij = c_(i-j),h for j <= i and 0 for j > i, with V_h = L_(d_h)"
_RAT = r"-?(?:0|[1-9][0-9]*)(?:/[1-9][0-9]*)?"
_GAUSS = re.compile(rf"(?:({_RAT})([+-](?:0|[1-9][0-9]*)(?:/[1-9][0-9]*)?)i|({_RAT})i|({_RAT}))\Z")


class G:
    """a + b i with Fraction parts."""

    __slots__ = ("a", "b")

    def __init__(self, a, b=Fraction(0)):
        self.a, self.b = a, b

    def __add__(self, o):
        return G(self.a + o.a, self.b + o.b)

    def __sub__(self, o):
        return G(self.a - o.a, self.b - o.b)

    def __mul__(self, o):
        return G(self.a * o.a - self.b * o.b, self.a * o.b + self.b * o.a)

    def div(self, o):
        n = o.a * o.a + o.b * o.b
        return G((self.a * o.a + self.b * o.b) / n, (self.b * o.a - self.a * o.b) / n)

    def __eq__(self, o):
        return isinstance(o, G) and self.a == o.a and self.b == o.b

    def nonzero(self):
        return self.a != 0 or self.b != 0


ZERO = G(Fraction(0))


def parse(text):
    """A canonical Gaussian rational string ("p/q", "p/qi", "p/q+r/si"); raises NumberError otherwise."""
    if type(text) is not str or not text.isascii() or len(text) > 40_010:
        raise NumberError("not a Gaussian rational string")
    if len(text) <= 24:  # short entries repeat: each text is parsed once (G values are never mutated)
        return _parse_short(text)
    return _parse(text)


@lru_cache(maxsize=65536)
def _parse_short(text):
    return _parse(text)


def _parse(text):
    m = _GAUSS.match(text)
    if not m:
        raise NumberError(f"{text[:40]!r} is not a canonical Gaussian rational")
    re_both, im_both, im_only, re_only = m.groups()
    if re_only is not None:
        return G(canonical_rational(re_only))
    if im_only is not None:
        value = G(Fraction(0), canonical_rational(im_only))
    else:
        imag = im_both.lstrip("+")
        value = G(canonical_rational(re_both), canonical_rational(imag))
        if value.a == 0:
            raise NumberError(f"{text[:40]!r} is not canonical: a zero real part is omitted")
    if value.b == 0:
        raise NumberError(f"{text[:40]!r} is not canonical: a zero imaginary part is omitted")
    return value


def _number(ledger, value, where):
    try:
        return parse(value)
    except NumberError as exc:
        raise Malformed(where, str(exc)) from None


def _matrix(ledger, value, where, rows, cols, tables=None):
    return matrix(ledger, value, where, rows, cols, number=_number, parse=parse, tables=tables)


def read_gaussian_system(ledger, obj):
    """The system of a Q(i) certificate (entries canonical Gaussian rationals), with its hash."""
    keys(ledger, obj, "system", ("name", "N", "m", "p", "A", "B", "C", "D"))
    ledger.require(is_text(obj["name"], 200), "system.name", "must be a string of at most 200 characters")
    N = integer(ledger, obj["N"], "system.N", 1, MAX_N)
    m = integer(ledger, obj["m"], "system.m", 1, 4096)
    p = integer(ledger, obj["p"], "system.p", 1, 4096)
    ledger.require(N * N + N * m + p * N + 2 * p * m <= MAX_ENTRIES, "system", f"has more than {MAX_ENTRIES} entries")
    tables = {}
    A = _matrix(ledger, obj["A"], "system.A", N, N, tables)
    B = _matrix(ledger, obj["B"], "system.B", N, m, tables)
    C = _matrix(ledger, obj["C"], "system.C", p, N, tables)
    D = None
    if obj["D"] is not None:
        D = _matrix(ledger, obj["D"], "system.D", p, m, tables)
        ledger.require(any(x.nonzero() for row in D for x in row), "system.D", "an all-zero D must be written as null")
    return system_record(obj, N, m, p, {"A": A, "B": B, "C": C, "D": D}, tables)


def _lags(system, count):
    """Exact lags L_0..L_(count-1) over Q(i); python-flint when present (same numbers), else pure Python."""
    if linalg._flint is not None and count:
        return _lags_flint(system, count)
    return _lags_pure(system, count)


def _split(M):
    """Integer matrices of the real and imaginary parts over one common denominator (python-flint)."""
    den = 1
    for row in M:
        for z in row:
            den = lcm(den, z.a.denominator, z.b.denominator)
    fm = linalg._flint.fmpz_mat
    return (fm([[int(z.a * den) for z in row] for row in M]), fm([[int(z.b * den) for z in row] for row in M]),
            den)


def _lags_flint(system, count):
    Ar, Ai, a = _split(system["A"])
    Xr, Xi, scale = _split(system["B"])
    Cr, Ci, c = _split(system["C"])
    out = []
    for d in range(count):
        Lr, Li, s = Cr * Xr - Ci * Xi, Cr * Xi + Ci * Xr, c * scale
        L = [[G(Fraction(int(Lr[i, j]), s), Fraction(int(Li[i, j]), s)) for j in range(Lr.ncols())]
             for i in range(Lr.nrows())]
        if d == 0 and system["D"] is not None:
            L = [[x + y for x, y in zip(r1, r2)] for r1, r2 in zip(L, system["D"])]
        out.append(L)
        if d + 1 < count:
            Xr, Xi, scale = Ar * Xr - Ai * Xi, Ar * Xi + Ai * Xr, scale * a
    return out


def _split_ints(M):
    """The real and imaginary parts of ``M`` as integer matrices over one common denominator (lists of ints)."""
    den = 1
    for row in M:
        for z in row:
            den = lcm(den, z.a.denominator, z.b.denominator)
    return ([[z.a.numerator * (den // z.a.denominator) for z in row] for row in M],
            [[z.b.numerator * (den // z.b.denominator) for z in row] for row in M], den)


def _int_mul(Pr, Pi, Qr, Qi):
    """``(Pr + i Pi)(Qr + i Qi)`` for integer matrices: its real and imaginary parts."""
    cols_r, cols_i = list(zip(*Qr)), list(zip(*Qi))
    Zr, Zi = [], []
    for ar, ai in zip(Pr, Pi):
        Zr.append([sum(map(_times, ar, br)) - sum(map(_times, ai, bi)) for br, bi in zip(cols_r, cols_i)])
        Zi.append([sum(map(_times, ar, bi)) + sum(map(_times, ai, br)) for br, bi in zip(cols_r, cols_i)])
    return Zr, Zi


def _lags_pure(system, count):
    """The lags as :func:`_lags_flint` forms them (integer products over the common denominators), in the
    standard library: the same numbers."""
    Ar, Ai, a = _split_ints(system["A"])
    Xr, Xi, scale = _split_ints(system["B"])
    Cr, Ci, c = _split_ints(system["C"])
    out = []
    for d in range(count):
        Lr, Li = _int_mul(Cr, Ci, Xr, Xi)
        s = c * scale
        L = [[G(Fraction(x, s), Fraction(y, s)) for x, y in zip(rr, ri)] for rr, ri in zip(Lr, Li)]
        if d == 0 and system["D"] is not None:
            L = [[x + y for x, y in zip(r1, r2)] for r1, r2 in zip(L, system["D"])]
        out.append(L)
        if d + 1 < count:
            Xr, Xi = _int_mul(Ar, Ai, Xr, Xi)
            scale *= a
    return out


def _leading_pivots(M):
    """Pivots of elimination without pivoting; stops at the first zero (that leading minor is zero)."""
    W = [list(r) for r in M]
    pivots = []
    for j in range(len(W)):
        piv = W[j][j]
        pivots.append(piv)
        if not piv.nonzero():
            return pivots
        for i in range(j + 1, len(W)):
            f = W[i][j].div(piv)
            W[i] = [a - f * b for a, b in zip(W[i], W[j])]
    return pivots


def check_gaussian_head_count(ledger, cert, system):
    """Verify a head-count certificate over Q(i); returns the summary line."""
    keys(ledger, cert, "certificate", ("format", "version", "kind", "field", "generator", "system", "input_sha256",
                                       "n", "head_count", "truncation", "lower_bound", "upper_bound", "heads",
                                       "profile", "holds_for", "interaction_rank_gap"))
    m, p, T = system["m"], system["p"], system["T"]
    ledger.require(strict_equal(cert["truncation"], T), "truncation", f"must be {T}")
    n = integer(ledger, cert["n"], "n", 0)
    k = integer(ledger, cert["head_count"], "head_count", 0)
    lb = cert["lower_bound"]
    ledger.require(isinstance(lb, dict) and lb.get("method") in ("exact", "modular"), "lower_bound.method",
                   "must be 'exact' or 'modular'")
    modular = lb["method"] == "modular"
    if modular:
        keys(ledger, lb, "lower_bound", ("method", "lags", "positions", "prime", "i_mod_p", "determinant_mod_p"))
    else:
        keys(ledger, lb, "lower_bound", ("method", "lags", "positions", "prime", "minor", "determinant"))
    lags = witness_lags(ledger, lb["lags"], T, min(T, p * m))
    K = len(lags)
    cells = positions(ledger, lb["positions"], K, p, m)
    ub = cert["upper_bound"]
    keys(ledger, ub, "upper_bound", ("coefficients", "dimension_from_lag"))
    ledger.require(isinstance(ub["coefficients"], list), "upper_bound.coefficients", "must be a list")
    if modular:
        _check_modular_lower_bound(ledger, system, lb, lags, cells)
        ledger.require(ub["coefficients"] == [], "upper_bound.coefficients",
                       "must be empty with a modular witness (the dimension argument covers every other lag)")
        ledger.require(K == p * m and K > 0 and lags == list(range(K)) and strict_equal(ub["dimension_from_lag"], K),
                       "upper_bound.dimension_from_lag", "the dimension argument needs the witness lags 0..pm-1 and "
                                                         "starts after the last one")
        exact = None
    else:
        exact = _check_exact_lower_bound(ledger, system, lb, lags, cells, T)
        ledger.require(ub["dimension_from_lag"] is None, "upper_bound.dimension_from_lag",
                       "must be null with an exact witness over Q(i)")
        listed = {}
        for i, row in enumerate(ub["coefficients"]):
            keys(ledger, row, f"upper_bound.coefficients[{i}]", ("lag", "c"))
            d = integer(ledger, row["lag"], f"upper_bound.coefficients[{i}].lag", 0, T - 1)
            ledger.require(d not in listed and d not in lags, f"upper_bound.coefficients[{i}].lag",
                           "is a witness lag or listed twice")
            below = bisect_left(lags, d)
            ledger.require(isinstance(row["c"], list) and len(row["c"]) == below, f"upper_bound.coefficients[{i}].c",
                           f"must have one coefficient per witness lag below {d}")
            c = [_number(ledger, x, f"upper_bound.coefficients[{i}].c[{h}]") for h, x in enumerate(row["c"])]
            combo = []
            for r in range(p):
                out_row = []
                for col in range(m):
                    acc = ZERO
                    for h in range(below):
                        acc = acc + c[h] * exact[lags[h]][r][col]
                    out_row.append(acc)
                combo.append(out_row)
            ledger.require(combo == exact[d], f"upper_bound.coefficients lag {d}",
                           f"L_{d} is not the stated combination of the witness lags")
            listed[d] = c
        for d in range(T):
            ledger.require(d in lags or d in listed, "upper_bound",
                           f"lag {d} is neither a witness lag nor given coefficients")
    want = bisect_left(lags, n)
    ledger.require(k == want, "head_count", f"the witnesses prove k({int_text(n)}) = {want}, not {k}")
    start = lags[-1] + 1 if lags else 1
    prof = cert["profile"]
    keys(ledger, prof, "profile", ("values", "constant_from", "eventual"))
    ledger.require(strict_equal(prof["values"], [bisect_left(lags, j) for j in range(1, start + 1)])
                   and strict_equal(prof["constant_from"], start) and strict_equal(prof["eventual"], K),
                   "profile", "does not follow from the witness lags")
    n0 = lags[k - 1] + 1 if k > 0 else 0
    n1 = lags[k] if k < K else None
    ledger.require(strict_equal(cert["holds_for"], {"from": n0, "to": n1}), "holds_for",
                   f"must be from {n0} to {n1}")
    heads = cert["heads"]
    if modular:  # value maps would need the exact lags: the rule and the lags define them
        keys(ledger, heads, "heads", ("H", "value_map_lags", "rule"))
    else:
        keys(ledger, heads, "heads", ("H", "value_map_lags", "rule", "value_maps"))
    ledger.require(strict_equal(heads["H"], k), "heads.H", f"must be {k}")
    ledger.require(strict_equal(heads["value_map_lags"], lags[:k]), "heads.value_map_lags", f"must be {lags[:k]}")
    ledger.require(heads["rule"] == HEADS_RULE, "heads.rule", "is not the construction rule of format version 1")
    ledger.require(modular or (isinstance(heads["value_maps"], list) and len(heads["value_maps"]) == k),
                   "heads.value_maps", f"must list {k} value maps")
    for h, V in enumerate([] if modular else heads["value_maps"]):
        ledger.require(_matrix(ledger, V, f"heads.value_maps[{h}]", p, m) == exact[lags[h]],
                       f"heads.value_maps[{h}]", f"is not L_{lags[h]}")
    ledger.require(strict_equal(cert["interaction_rank_gap"], [{"H": H, "minor_order": H + 1} for H in range(k)]),
                   "interaction_rank_gap", f"must list H = 0..{k - 1}")
    name = system["name"] or "the system"
    return f"head-count over Q(i) k({int_text(n)}) = {k} for {name!r}"


def _check_exact_lower_bound(ledger, system, lb, lags, cells, T):
    """The exact minor over Q(i); returns the exact lags L_0..L_(T-1)."""
    K = len(lags)
    integer(ledger, lb["prime"], "lower_bound.prime", 3, 2**31 - 1)  # not used by the exact method: kept for the format
    ledger.afford(system["N"] <= MAX_EXACT_N, "lower_bound.method",
                   f"exact elimination over Q(i) is checked up to N = {MAX_EXACT_N}; a larger system needs a modular "
                   "witness")
    bound, work = lag_cost(system, T)
    if bound > MAX_GAUSSIAN_LAG_BITS or work > MAX_GAUSSIAN_WORK:
        raise Unreadable(f"undecided: over the cost limit of Q(i) lags: forming L_0..L_{T - 1} may need entries of "
                         f"{bound} bits (limit {MAX_GAUSSIAN_LAG_BITS}) and {work} word-weighted products (limit "
                         f"{MAX_GAUSSIAN_WORK}; docs/robustness.md)")
    charge(work)
    exact = _lags(system, T)
    minor = _matrix(ledger, lb["minor"], "lower_bound.minor", K, K)
    for s, d in enumerate(lags):
        for t, (r, c) in enumerate(cells):
            ledger.require(minor[s][t] == exact[d][r][c], f"lower_bound.minor[{s}][{t}]", f"is not L_{d}[{r},{c}]")
    pivots = _leading_pivots(minor)
    for j, piv in enumerate(pivots):
        ledger.require(piv.nonzero(), "lower_bound.minor", f"leading {j + 1}x{j + 1} minor is singular")
    det = G(Fraction(1))
    for piv in pivots:
        det = det * piv
    ledger.require(_number(ledger, lb["determinant"], "lower_bound.determinant") == det, "lower_bound.determinant",
                   "is not the determinant of the minor")
    return exact


def _check_modular_lower_bound(ledger, system, lb, lags, cells):
    """The minor mod P under a + b i -> a + b j (j^2 = -1 mod P): every leading minor nonzero, the determinant stated."""
    prime = integer(ledger, lb["prime"], "lower_bound.prime", 5, MAX_PRIME - 1)
    ledger.require(is_prime(prime), "lower_bound.prime", f"{prime} is not prime")
    ledger.require(prime % 4 == 1, "lower_bound.prime", f"{prime} is not 1 mod 4, so -1 has no square root mod P")
    j = integer(ledger, lb["i_mod_p"], "lower_bound.i_mod_p", 1, prime - 1)
    ledger.require(j * j % prime == prime - 1, "lower_bound.i_mod_p", f"{j}^2 is not -1 mod {prime}")
    ledger.require(all(x.denominator % prime for z in system["distinct"] for x in (z.a, z.b)),
                   "lower_bound.prime", f"{prime} divides a denominator of the system, so reduction mod {prime} is not "
                                        "defined")

    def residue(x):
        return (x.a.numerator * pow(x.a.denominator, -1, prime) + j * x.b.numerator * pow(x.b.denominator, -1, prime)) \
            % prime

    def red(key):
        if key in system["texts"] and linalg.float_residues(prime):  # each distinct text once, into an array
            texts, table = system["texts"][key]
            return linalg.residue_array({t: residue(x) for t, x in table.items()}, texts)
        return [[residue(x) for x in row] for row in system[key]]

    D = red("D") if system["D"] is not None else None
    M = linalg.minor_mod_residues(red("A"), red("B"), red("C"), D, lags, cells, prime)
    nonsingular_minor_mod(ledger, M, prime, lb["determinant_mod_p"])


def _spec_gaussian(value):
    """A spec entry with an imaginary part, by the spec grammar (split at the last sign not after an e)."""
    from .spec import spec_rational

    if not isinstance(value, str) or not value.endswith("i"):
        return G(spec_rational(value))
    body = value[:-1]
    split = next((k for k in range(len(body) - 1, 0, -1) if body[k] in "+-" and body[k - 1] not in "eE"), None)
    real, imag = (body[:split], body[split:]) if split is not None else ("0", body)
    imag = {"": "1", "+": "1", "-": "-1"}.get(imag, imag)
    if imag.startswith("+"):
        imag = imag[1:]
    if not imag or imag.startswith("+") or "i" in imag or "i" in real:
        raise NumberError(f"{value[:40]!r} is not a Gaussian rational")
    return G(spec_rational(real), spec_rational(imag))


def _text(z):
    from .numbers import rat_text

    if z.b == 0:
        return rat_text(z.a)
    imag = rat_text(z.b) + "i"
    if z.a == 0:
        return imag
    return rat_text(z.a) + ("" if imag.startswith("-") else "+") + imag


def gaussian_spec_hash(spec):
    """The canonical hash of a complex spec, read by this checker's own grammar."""
    from .spec import SPEC_KEYS

    if not isinstance(spec, dict) or any(k not in SPEC_KEYS for k in spec):
        raise Unreadable("spec must be a JSON object with keys among A, B, C, D, n, name")
    mats = {}
    try:
        for key in ("A", "B", "C", "D"):
            M = spec.get(key)
            if M is None:
                if key != "D":
                    raise Unreadable(f"spec has no matrix {key}")
                continue
            if not isinstance(M, list) or not M or not all(isinstance(r, list) and len(r) == len(M[0]) for r in M):
                raise Unreadable(f"spec {key} is not a rectangular matrix")
            mats[key] = [[_spec_gaussian(x) for x in row] for row in M]
    except NumberError as exc:
        raise Unreadable(f"spec: {exc}") from None
    D = mats.get("D")
    if D is not None and not any(x.nonzero() for row in D for x in row):
        D = None
    text = json.dumps({k: [[_text(x) for x in row] for row in mats[k]] for k in ("A", "B", "C")}
                      | {"D": [[_text(x) for x in row] for row in D] if D is not None else None},
                      sort_keys=True, ensure_ascii=True, separators=(",", ":"), allow_nan=False) + "\n"
    return hashlib.sha256(text.encode("ascii")).hexdigest()
