"""Reading for the checker: strict JSON, the verdict types, typed field access, the system.

Standard library only; it never imports the generator.
"""

import hashlib
import json
import time

from .numbers import NumberError, big_int, canonical_rational, rat_text, spec_rational

FORMAT = "symssm-certificate"
VERSIONS = (1,)
MAX_BYTES = 64 * 1024 * 1024
MAX_DEPTH = 32
MAX_DIM = 4096


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
