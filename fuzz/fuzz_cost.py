"""Adversarial cost search: per certificate kind, the certificate of at most a given size that the checker
takes longest on.

Starting from a valid certificate of each kind, the search grows what the limits allow: the digits of
entries (the system hash recomputed, so the checker reaches its expensive obligations), exponents and
sums in formulas, Taylor terms and precision, coefficient rows. It keeps a mutant when its check takes
longer and it is at most ``--max-bytes`` long. Each check runs as ``symssm check`` does, in a child
process with the default budget, so a stall shows up as an undecided verdict at the budget, never as a
hang of the search.

    python fuzz/fuzz_cost.py --seed 1 --rounds 40 --max-bytes 200000

Prints, per kind, the slowest certificate found: its size, the check time, the verdict, and whether it
stayed within the default budget (10 s + 2 s per MB). Exits 1 if any check outlived its budget by more
than a second (the isolation failed) or raised.
"""

import argparse
import copy
import json
import os
import random
import sys
import time

from symssm.checker.core import check_data
from symssm.checker.isolate import Undecided, default_seconds, run_isolated
from symssm.checker.parametric import read_parametric_system
from symssm.checker.reading import Ledger, canonical_hash, read_system

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.set_int_max_str_digits(0)


def _load(name):
    with open(os.path.join(ROOT, "certificates", name)) as fh:
        return json.load(fh)


def _rehash(cert):
    """Recompute input_sha256 with the checker's own readers, so the mutant is not stopped at the hash."""
    if cert.get("kind") == "parametric-head-count":
        try:
            cert["input_sha256"] = read_parametric_system(Ledger(), cert["system"])["sha256"]
        except Exception:  # noqa: BLE001 - a mutant the reader refuses keeps its old hash
            pass
        return cert
    if cert.get("kind") in ("head-count", "gradient-highway") and "field" not in cert:
        try:
            system = read_system(Ledger(), cert["system"])
        except Exception:  # noqa: BLE001 - a mutant the reader refuses keeps its old hash
            return cert
        cert["input_sha256"] = canonical_hash(system["A"], system["B"], system["C"], system["D"])
    return cert


def _grow_digits(rng, cert):
    path = rng.choice(["A", "B", "C"])
    M = cert["system"][path]
    i, j = rng.randrange(len(M)), rng.randrange(len(M[0]))
    digits = rng.choice([50, 500, 2000, 5000, 9900])
    M[i][j] = str(rng.randint(1, 9)) + "".join(rng.choice("0123456789") for _ in range(digits - 1))
    if rng.random() < 0.5:
        M[i][j] += "/" + str(rng.randint(1, 9)) + "".join(rng.choice("0123456789") for _ in range(digits - 1))
    return _rehash(cert)


def _grow_formula(rng, cert):
    system = cert["system"]
    names = system["parameters"]
    if not names:
        return cert
    key = rng.choice(["A", "B", "C"])
    M = system[key]
    i, j = rng.randrange(len(M)), rng.randrange(len(M[0]))
    big = "".join(rng.choice("123456789") for _ in range(rng.choice([5, 50, 200])))
    terms = " + ".join(f"{big}*{rng.choice(names)}" for _ in range(rng.randint(1, 4)))
    M[i][j] = f"({terms} + 1)^{rng.randint(2, 64)}"
    return _rehash(cert)


def _grow_P(rng, cert):
    P = cert["lyapunov"]["P"]
    N = len(P)
    digits = rng.choice([100, 1000, 5000])
    for i in range(N):
        for j in range(i, N):
            x = str(rng.randint(1, 9) * 10 ** digits + rng.randint(0, 10 ** 6)) + "/" + str(10 ** digits + 2 * rng.randint(0, 10 ** 6) + 1)
            P[i][j] = P[j][i] = x
    return cert


def _grow_rows(rng, cert):
    ub = cert.get("upper_bound", {})
    rows = ub.get("coefficients")
    if isinstance(rows, list) and rows:
        ub["coefficients"] = rows + [copy.deepcopy(rng.choice(rows)) for _ in range(rng.randint(1, 200))]
    return cert


KINDS = {
    "head-count": ("hippo-legs-N8-p3-m2.json", [_grow_digits, _grow_rows]),
    "gradient-highway": ("hippo-legs-N8-p3-m2.gradient.json", [_grow_digits, _grow_P]),
    "parametric-head-count": ("diagonal-symbolic-N3-p3-m1.json", [_grow_formula, _grow_rows]),
}


def _timed(cert, budget):
    def task():
        res = check_data(cert, max_seconds=budget)
        return {"code": res.code, "message": res.message}

    start = time.monotonic()
    try:
        out = run_isolated(task, seconds=budget + 0.4, limit_text=f"{budget:.3g} s")
    except Undecided as exc:
        out = {"code": 2, "message": str(exc)}
    return time.monotonic() - start, out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=30, help="mutants per kind")
    ap.add_argument("--max-bytes", type=int, default=200_000)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    failed = False
    print("| kind | bytes | check (s) | budget (s) | exit | verdict |")
    print("|---|---|---|---|---|---|")
    for kind, (name, growers) in KINDS.items():
        best = _load(name)
        best_time, best_out = _timed(best, default_seconds(len(json.dumps(best))))
        for _ in range(args.rounds):
            mutant = rng.choice(growers)(rng, copy.deepcopy(best))
            size = len(json.dumps(mutant))
            if size > args.max_bytes:
                continue
            budget = default_seconds(size)
            took, out = _timed(mutant, budget)
            if took > budget + 1.0:
                failed = True
            if took > best_time:
                best, best_time, best_out = mutant, took, out
        size = len(json.dumps(best))
        print(f"| {kind} | {size} | {best_time:.2f} | {default_seconds(size):.1f} | {best_out['code']} | "
              f"{best_out['message'][:70]} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
