"""The certificate checker: reads a certificate and verifies every obligation.

Standard library only (numpy optional, for products mod P); it never imports
the generator.  It fails closed: anything unexpected is a rejection.
"""

import hashlib
import json
import time
from bisect import bisect_left
from fractions import Fraction

from . import linalg
from .numbers import NumberError, big_int, canonical_rational, int_text, is_prime, rat_text, spec_rational

FORMAT = "symssm-certificate"
VERSIONS = (1,)
MAX_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 32
MAX_DIM = 4096
MAX_PRIME = 2**31
HEADS_RULE = "alpha^h_ij = c_(i-j),h for j <= i and 0 for j > i, with V_h = L_(d_h)"


class Rejected(Exception):
    """An obligation failed: ``obligation`` names it."""

    def __init__(self, obligation, message):
        super().__init__(f"{obligation}: {message}")
        self.obligation = obligation


class Unreadable(Exception):
    """The input is not a readable symssm certificate."""


class CheckResult:
    """Outcome of a check: ``code`` 0 verified, 1 rejected, 2 unreadable."""

    def __init__(self, code, message, obligations=()):
        self.code = code
        self.message = message
        self.obligations = tuple(obligations)

    @property
    def verified(self):
        return self.code == 0

    def __bool__(self):
        return self.verified

    def __repr__(self):
        return f"<CheckResult {['VERIFIED', 'REJECTED', 'UNREADABLE'][self.code]}: {self.message}>"


class Ledger:
    """Collects discharged obligations; ``require`` raises on the first failure."""

    def __init__(self, deadline=None):
        self.done = []
        self.deadline = deadline

    def require(self, condition, obligation, message):
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise Unreadable("the checking budget (--max-seconds) ran out before all obligations were checked")
        if not condition:
            raise Rejected(obligation, message)
        if obligation not in self.done:
            self.done.append(obligation)


# ---------------------------------------------------------------- reading

def _no_const(name):
    raise ValueError(f"JSON constant {name} is not allowed")


def _pairs(pairs):
    out = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


def _too_deep(text):
    depth, in_str, esc = 0, False, False
    for ch in text:
        if in_str:
            if esc:
                esc = False
            elif ch == "\\":
                esc = True
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif ch in "]}":
            depth -= 1
    return False


def parse_json(raw, what):
    if len(raw) > MAX_BYTES:
        raise Unreadable(f"{what} is larger than {MAX_BYTES} bytes")
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
    except UnicodeDecodeError:
        raise Unreadable(f"{what} is not UTF-8 text") from None
    if _too_deep(text):
        raise Unreadable(f"{what} nests deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(text, parse_constant=_no_const, object_pairs_hook=_pairs,
                          parse_int=_json_int, parse_float=str)
    except (ValueError, RecursionError) as exc:
        raise Unreadable(f"{what} is not valid JSON ({str(exc)[:120]})") from None


def _json_int(text):
    try:
        return big_int(text)
    except NumberError as exc:
        raise ValueError(str(exc)) from None


def read_file(path, what):
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
    except FileNotFoundError:
        raise Unreadable(f"{what} {path}: no such file") from None
    except IsADirectoryError:
        raise Unreadable(f"{what} {path} is a directory") from None
    except OSError as exc:
        raise Unreadable(f"{what} {path}: cannot read ({exc.strerror})") from None
    return parse_json(raw, f"{what} {path}")


# ---------------------------------------------------------------- typed access

def keys(ledger, obj, where, required, optional=()):
    ledger.require(isinstance(obj, dict), where, "must be a JSON object")
    missing = [k for k in required if k not in obj]
    ledger.require(not missing, where, f"missing field {missing[0]!r}" if missing else "")
    extra = sorted(k for k in obj if k not in required and k not in optional)
    ledger.require(not extra, where, f"unknown field {extra[0]!r}" if extra else "")
    return obj


def integer(ledger, value, where, lo=None, hi=None):
    ledger.require(isinstance(value, int) and not isinstance(value, bool), where, "must be an integer")
    ledger.require(lo is None or value >= lo, where, f"must be at least {lo}")
    ledger.require(hi is None or value <= hi, where, f"must be at most {hi}")
    return value


def rational(ledger, value, where):
    try:
        return canonical_rational(value)
    except NumberError as exc:
        raise Rejected(where, str(exc)) from None


def matrix(ledger, value, where, rows, cols):
    ledger.require(isinstance(value, list) and len(value) == rows, where, f"must be a list of {rows} rows")
    out = []
    for i, row in enumerate(value):
        ledger.require(isinstance(row, list) and len(row) == cols, f"{where}[{i}]", f"must be a row of {cols} entries")
        out.append([rational(ledger, x, f"{where}[{i}][{j}]") for j, x in enumerate(row)])
    return out


def canonical_hash(A, B, C, D):
    def txt(M):
        return [[rat_text(x) for x in row] for row in M]

    obj = {"A": txt(A), "B": txt(B), "C": txt(C), "D": txt(D) if D is not None else None}
    text = json.dumps(obj, sort_keys=True, ensure_ascii=True, separators=(",", ":"), allow_nan=False) + "\n"
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def read_system(ledger, obj):
    keys(ledger, obj, "system", ("name", "N", "m", "p", "A", "B", "C", "D"))
    ledger.require(isinstance(obj["name"], str) and len(obj["name"]) <= 200, "system.name", "must be a string of at most 200 characters")
    N = integer(ledger, obj["N"], "system.N", 1, MAX_DIM)
    m = integer(ledger, obj["m"], "system.m", 1, MAX_DIM)
    p = integer(ledger, obj["p"], "system.p", 1, MAX_DIM)
    A = matrix(ledger, obj["A"], "system.A", N, N)
    B = matrix(ledger, obj["B"], "system.B", N, m)
    C = matrix(ledger, obj["C"], "system.C", p, N)
    D = None
    if obj["D"] is not None:
        D = matrix(ledger, obj["D"], "system.D", p, m)
        ledger.require(any(x != 0 for row in D for x in row), "system.D", "an all-zero D must be written as null")
    return {"name": obj["name"], "N": N, "m": m, "p": p, "A": A, "B": B, "C": C, "D": D,
            "T": N + (1 if D is not None else 0), "sha256": canonical_hash(A, B, C, D)}


def spec_hash(spec):
    """Canonical hash of a spec document (the system only), by the checker's own reader."""
    if not isinstance(spec, dict):
        raise Unreadable("spec must be a JSON object")
    out = {}
    for name in ("A", "B", "C", "D"):
        M = spec.get(name)
        if M is None:
            if name == "D":
                out["D"] = None
                continue
            raise Unreadable(f"spec has no matrix {name}")
        if not isinstance(M, list) or not all(isinstance(r, list) for r in M):
            raise Unreadable(f"spec {name} is not a list of rows")
        try:
            out[name] = [[spec_rational(x) for x in row] for row in M]
        except NumberError as exc:
            raise Unreadable(f"spec {name}: {exc}") from None
    if out["D"] is not None and all(x == 0 for row in out["D"] for x in row):
        out["D"] = None
    return canonical_hash(out["A"], out["B"], out["C"], out["D"])


# ---------------------------------------------------------------- head count

def check_head_count(ledger, cert, system):
    keys(ledger, cert, "certificate", ("format", "version", "kind", "generator", "system", "input_sha256", "n",
                                       "head_count", "truncation", "lower_bound", "upper_bound", "heads",
                                       "profile", "holds_for", "interaction_rank_gap"))
    m, p, T = system["m"], system["p"], system["T"]
    ledger.require(cert["truncation"] == T and isinstance(cert["truncation"], int) and not isinstance(cert["truncation"], bool),
                   "truncation", f"must be {T} (N{' + 1, D is present' if system['D'] is not None else ''})")
    n = integer(ledger, cert["n"], "n", 0)
    k = integer(ledger, cert["head_count"], "head_count", 0)

    lb = cert["lower_bound"]
    ledger.require(isinstance(lb, dict) and isinstance(lb.get("method"), str) and lb["method"] in ("exact", "modular"),
                   "lower_bound.method",
                   "must be 'exact' or 'modular'")
    if lb["method"] == "exact":
        keys(ledger, lb, "lower_bound", ("method", "lags", "positions", "prime", "minor", "determinant"))
    else:
        keys(ledger, lb, "lower_bound", ("method", "lags", "positions", "prime", "determinant_mod_p"))
    lags = lb["lags"]
    ledger.require(isinstance(lags, list) and len(lags) <= min(T, p * m), "lower_bound.lags",
                   f"must be a list of at most min(T, pm) = {min(T, p * m)} lags")
    for s, d in enumerate(lags):
        integer(ledger, d, f"lower_bound.lags[{s}]", 0, T - 1)
    ledger.require(all(a < b for a, b in zip(lags, lags[1:])), "lower_bound.lags", "must be strictly increasing")
    K = len(lags)
    pos = lb["positions"]
    ledger.require(isinstance(pos, list) and len(pos) == K, "lower_bound.positions", f"must list {K} positions")
    for t, rc in enumerate(pos):
        ledger.require(isinstance(rc, list) and len(rc) == 2, f"lower_bound.positions[{t}]", "must be [row, column]")
        integer(ledger, rc[0], f"lower_bound.positions[{t}][0]", 0, p - 1)
        integer(ledger, rc[1], f"lower_bound.positions[{t}][1]", 0, m - 1)
    prime = integer(ledger, lb["prime"], "lower_bound.prime", 3, MAX_PRIME - 1)
    ledger.require(is_prime(prime), "lower_bound.prime", f"{prime} is not prime")
    dens = [x.denominator for M in (system["A"], system["B"], system["C"], system["D"] or []) for row in M for x in row]
    ledger.require(all(q % prime for q in dens), "lower_bound.prime",
                   f"{prime} divides a denominator of the system, so reduction mod {prime} is not defined")

    coeffs = cert["upper_bound"]
    keys(ledger, coeffs, "upper_bound", ("coefficients", "dimension_from_lag"))
    table = coeffs["coefficients"]
    ledger.require(isinstance(table, list), "upper_bound.coefficients", "must be a list")
    listed = {}
    for i, row in enumerate(table):
        keys(ledger, row, f"upper_bound.coefficients[{i}]", ("lag", "c"))
        d = integer(ledger, row["lag"], f"upper_bound.coefficients[{i}].lag", 0, T - 1)
        ledger.require(d not in listed and d not in lags, f"upper_bound.coefficients[{i}].lag",
                       f"lag {d} is a witness lag or listed twice")
        ledger.require(isinstance(row["c"], list) and len(row["c"]) == bisect_left(lags, d),
                       f"upper_bound.coefficients[{i}].c", f"must have one coefficient per witness lag below {d}")
        listed[d] = [rational(ledger, x, f"upper_bound.coefficients[{i}].c[{h}]") for h, x in enumerate(row["c"])]
    dim_from = coeffs["dimension_from_lag"]
    if dim_from is not None:
        integer(ledger, dim_from, "upper_bound.dimension_from_lag", 0)
        ledger.require(K == p * m and K > 0 and dim_from == lags[-1] + 1, "upper_bound.dimension_from_lag",
                       "the dimension argument needs K = p*m witness lags and starts after the last one")
    for d in range(T):
        if d in lags or d in listed:
            continue
        ledger.require(dim_from is not None and d >= dim_from, "upper_bound",
                       f"lag {d} is neither a witness lag, nor given coefficients, nor covered by dimension")

    heads = cert["heads"]
    keys(ledger, heads, "heads", ("H", "value_map_lags", "rule"), ("value_maps",))
    vm = heads.get("value_maps")
    ledger.require(vm is None or isinstance(vm, list), "heads.value_maps", "must be a list")
    # The claim must be the one the witness structure states: k(n) = #{s : d_s < n}.
    want = bisect_left(lags, n)
    ledger.require(k == want, "head_count", f"the witnesses prove k({int_text(n)}) = {want}, not {k}")
    ledger.require(vm is None or len(vm) == k, "heads.value_maps", f"must list {k} value maps")
    # Exact lags, only where an obligation needs them.
    need_exact = set(listed) | (set(lags) if lb["method"] == "exact" else set()) | (set(lags[:k]) if vm else set())
    exact = linalg.exact_lags(system, max(need_exact) + 1) if need_exact else []

    if lb["method"] == "exact":
        minor = matrix(ledger, lb["minor"], "lower_bound.minor", K, K)
        for s, d in enumerate(lags):
            for t, (r, c) in enumerate(pos):
                ledger.require(minor[s][t] == exact[d][r][c], f"lower_bound.minor[{s}][{t}]",
                               f"is {rat_text(minor[s][t])} but L_{d}[{r},{c}] = {rat_text(exact[d][r][c])}")
        minors = linalg.leading_minors_exact(minor)
        for j, value in enumerate(minors):
            ledger.require(value != 0, "lower_bound.minor",
                           f"leading {j + 1}x{j + 1} minor is singular, so it does not prove {j + 1} heads are needed")
        det = minors[-1] if minors else Fraction(1)
        ledger.require(rational(ledger, lb["determinant"], "lower_bound.determinant") == det,
                       "lower_bound.determinant", f"is not the determinant of the minor ({rat_text(det)})")
    else:
        modl = linalg.lags_mod(system, lags, prime)
        M = [[modl[d][r][c] for (r, c) in pos] for d in lags]
        minors = linalg.leading_minors_mod(M, prime)
        for j, value in enumerate(minors):
            ledger.require(value != 0, "lower_bound.minor mod P",
                           f"leading {j + 1}x{j + 1} minor is zero mod {prime}, so it proves nothing")
        det = minors[-1] if minors else 1
        integer(ledger, lb["determinant_mod_p"], "lower_bound.determinant_mod_p", 0, prime - 1)
        ledger.require(lb["determinant_mod_p"] == det, "lower_bound.determinant_mod_p",
                       f"is not the determinant of the minor mod {prime} ({det})")

    for d, c in sorted(listed.items()):
        combo = [[sum((c[h] * exact[lags[h]][r][col] for h in range(len(c))), Fraction(0)) for col in range(m)]
                 for r in range(p)]
        ledger.require(combo == exact[d], f"upper_bound.coefficients lag {d}",
                       f"L_{d} is not the stated combination of the witness lags")

    # The remaining claims, derived from the proven profile k(n') = #{s : d_s < n'}.
    prof = cert["profile"]
    keys(ledger, prof, "profile", ("values", "constant_from", "eventual"))
    start = lags[-1] + 1 if lags else 1
    ledger.require(prof["constant_from"] == start and not isinstance(prof["constant_from"], bool), "profile.constant_from", f"must be {start}")
    ledger.require(prof["eventual"] == K and not isinstance(prof["eventual"], bool), "profile.eventual", f"must be {K}")
    values = [bisect_left(lags, j) for j in range(1, start + 1)]
    ledger.require(prof["values"] == values and all(not isinstance(v, bool) for v in prof["values"]),
                   "profile.values", f"must be {values}")
    hf = cert["holds_for"]
    keys(ledger, hf, "holds_for", ("from", "to"))
    n0 = lags[k - 1] + 1 if k > 0 else 0
    n1 = lags[k] if k < K else None
    ledger.require(hf["from"] == n0 and hf["to"] == n1 and not isinstance(hf["from"], bool) and not isinstance(hf["to"], bool),
                   "holds_for", f"must be from {n0} to {n1 if n1 is not None else 'null (unbounded)'}")
    ledger.require(heads["H"] == k and not isinstance(heads["H"], bool), "heads.H", f"must be the head count {k}")
    ledger.require(heads["value_map_lags"] == lags[:k], "heads.value_map_lags", f"must be {lags[:k]}")
    ledger.require(heads["rule"] == HEADS_RULE, "heads.rule", "is not the construction rule of format version 1")
    if vm is not None:
        for h, V in enumerate(vm):
            ledger.require(matrix(ledger, V, f"heads.value_maps[{h}]", p, m) == exact[lags[h]],
                           f"heads.value_maps[{h}]", f"is not L_{lags[h]}")
    gap = cert["interaction_rank_gap"]
    ledger.require(gap == [{"H": H, "minor_order": H + 1} for H in range(k)]
                   and all(not isinstance(g.get("H"), bool) for g in gap),
                   "interaction_rank_gap", f"must list H = 0..{k - 1}, each refuted by the leading (H+1)-minor")
    name = system["name"] or "the system"
    return f"head-count k({int_text(n)}) = {k} for {name!r} (for every n from {n0}" + \
        (f" to {n1})" if n1 is not None else " on)")


# ---------------------------------------------------------------- entry points

def _kinds():
    from .gradient import check_gradient

    return {"head-count": check_head_count, "gradient-highway": check_gradient}


def check_data(cert, *, spec=None, max_seconds=None):
    """Check certificate data (already parsed JSON). ``spec``: parsed spec JSON or None."""
    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    ledger = Ledger(deadline)
    try:
        if not isinstance(cert, dict) or cert.get("format") != FORMAT:
            raise Unreadable(f"not a symssm certificate (no \"format\": \"{FORMAT}\")")
        ledger.require(cert.get("version") in VERSIONS and not isinstance(cert.get("version"), bool), "version",
                       f"unknown version {cert.get('version')!r} (this checker knows {VERSIONS})")
        kinds = _kinds()
        ledger.require(isinstance(cert.get("kind"), str) and cert["kind"] in kinds, "kind",
                       f"unknown kind {str(cert.get('kind'))[:40]!r}")
        ledger.require(isinstance(cert.get("generator"), str), "generator", "must be a string")
        system = read_system(ledger, cert.get("system"))
        ledger.require(cert.get("input_sha256") == system["sha256"], "input_sha256",
                       "does not match the system (the system or the hash was changed)")
        if spec is not None:
            ledger.require(spec_hash(spec) == system["sha256"], "spec",
                           "the certificate is about a different system than the spec")
        summary = kinds[cert["kind"]](ledger, cert, system)
        return CheckResult(0, summary, ledger.done)
    except Rejected as exc:
        return CheckResult(1, str(exc), ledger.done)
    except Unreadable as exc:
        return CheckResult(2, str(exc), ledger.done)
    except (MemoryError, RecursionError) as exc:
        return CheckResult(2, f"the certificate is too large to check ({type(exc).__name__})", ledger.done)
    except Exception as exc:  # a shape no obligation anticipated: fail closed
        return CheckResult(1, f"structure: malformed certificate ({type(exc).__name__}: {str(exc)[:120]})",
                           ledger.done)


def check_file(path, *, spec_path=None, max_seconds=None):
    """Check a certificate file; returns a :class:`CheckResult`."""
    try:
        cert = read_file(path, "certificate")
        spec = read_file(spec_path, "spec") if spec_path is not None else None
    except Unreadable as exc:
        return CheckResult(2, str(exc))
    return check_data(cert, spec=spec, max_seconds=max_seconds)
