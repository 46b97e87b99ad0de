"""Adversarial cost search: per certificate kind, the certificate of at most a given size that the checker
takes longest on.

Starting from a valid certificate of each kind, the search grows what the limits allow: the digits of
entries (the system hash recomputed, so the checker reaches its expensive obligations), exponents and
sums in formulas, Taylor terms and precision, coefficient rows. It keeps a mutant when its check takes
longer and it is at most ``--max-bytes`` long. Each check runs as ``symssm check`` does (no clock), in a child
process the harness stops at three times the calibrated bound (checker/costs.py ``CALIBRATED_SECONDS``), so a
stall shows up as a failure of the cost model, never as a hang of the search.

    python fuzz/fuzz_cost.py --seed 1 --rounds 40 --max-bytes 200000

Prints, per kind, the slowest certificate found: its size, the units checker/costs.py's meter charged for it,
the check time, the seconds per charged unit (meter, plus 10 per byte read, plus 10^6 for the start: see
tests/checker/test_cost_model.py) and the worst such ratio over the kind's mutants, the verdict, and the
calibrated bound. Exits 1 if any check took more than a second over the calibrated bound, was stopped by the
harness rather than decided by its charges, passed ``--ceiling`` seconds per charged unit, or raised.
"""

import argparse
import copy
import json
import os
import random
import sys
import time

from symssm.checker import costs
from symssm.checker.core import KINDS as CHECKER_KINDS, check_data
from symssm.checker.isolate import Undecided, run_isolated
from symssm.checker.reading import Ledger

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _load(name):
    with open(os.path.join(ROOT, "certificates", name)) as fh:
        return json.load(fh)


def _rehash(cert):
    """Recompute input_sha256 with the checker's own reader of the kind, so the mutant is not stopped at the hash."""
    row = CHECKER_KINDS.get((cert.get("kind"), cert.get("field")))
    if row is None:
        return cert
    try:
        cert["input_sha256"] = row[0](Ledger(), cert["system"])["sha256"]
    except Exception:  # noqa: BLE001 - a mutant the reader refuses keeps its old hash
        pass
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


def _big_fraction(rng, digits):
    return str(rng.randint(1, 9) * 10 ** digits + rng.randint(0, 10 ** 6)) + "/" + str(
        10 ** digits + 2 * rng.randint(0, 10 ** 6) + 1)


def _grow_P(rng, cert):
    """The decay witness's numbers: P (version 1) or U, D and the weights (version 2), with many digits."""
    ly = cert["lyapunov"]
    digits = rng.choice([100, 1000, 5000])
    if "P" in ly:
        P = ly["P"]
        for i in range(len(P)):
            for j in range(i, len(P)):
                P[i][j] = P[j][i] = _big_fraction(rng, digits)
        return cert
    U = ly["U"]
    for i in range(len(U)):
        for j in range(i + 1, len(U)):
            if rng.random() < 0.5:
                U[i][j] = _big_fraction(rng, digits)
    for key in ("D", "weights"):
        ly[key] = [_big_fraction(rng, digits) for _ in ly[key]]
    return cert


def _number_leaves(obj, path=()):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _number_leaves(v, path + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _number_leaves(v, path + (i,))
    elif isinstance(obj, str) and obj[:1] in "-0123456789" and obj.lstrip("-").replace("/", "").isdecimal():
        yield path


def _grow_any_number(rng, cert):
    """Any number text of the certificate (system or proof) made long: what every kind's reader must price."""
    leaves = list(_number_leaves(cert))
    if not leaves:
        return cert
    for path in rng.sample(leaves, min(len(leaves), rng.choice([1, 4, 16]))):
        parent = cert
        for key in path[:-1]:
            parent = parent[key]
        parent[path[-1]] = _big_fraction(rng, rng.choice([50, 500, 5000])).split("/")[rng.randint(0, 1)]
    return _rehash(cert)


def _grow_rows(rng, cert):
    ub = cert.get("upper_bound", {})
    rows = ub.get("coefficients")
    if isinstance(rows, list) and rows:
        ub["coefficients"] = rows + [copy.deepcopy(rng.choice(rows)) for _ in range(rng.randint(1, 200))]
    return cert


def _built(make):
    """A starting certificate made by the generator (for the kinds the catalogue has no file of)."""
    def load():
        return copy.deepcopy(make().data)
    return load


def _approximate():
    from symssm.api import certify
    from symssm.sources.system import ssm

    return certify(ssm([["1/2", 0], [0, "-1/3"]], [[1], [1]], [[1, 0], [0, 1]], name="a"), 8, tolerance="1/100")


def _gaussian():
    from symssm.api import certify
    from symssm.sources.complex_system import complex_ssm

    return certify(complex_ssm([["1/2+1/3i", 0], [0, "-i"]], [[1, "2i"], [0, 1]], [[1, 0], [0, 1]], name="c"), 6)


def _interaction():
    from symssm.catalog import build_framework

    return next(cert for label, _, cert, *_ in build_framework(None, seed=0, n=3, m=1, every_input=False))


def _parametric_layer():
    from symssm.api import certify
    from symssm.sources.parametric_layers import parametric_layer_from_data

    return certify(parametric_layer_from_data({"kind": "convolution", "n": 2, "parameters": ["t"],
                                               "kernel": [[["1", "0"], ["0", "t"]], [["t", "0"], ["0", "(1+t)/(2-t)"]]]}))


def _trained():
    import numpy as np

    from symssm.api import certify
    from symssm.sources.checkpoints import CheckpointLayer
    from symssm.sources.trained import trained_layer

    f = lambda *v: np.array(v, np.float32)  # noqa: E731
    tensors = {"kernel.log_dt": f(-1.0), "kernel.log_A_real": f([-0.5]), "kernel.A_imag": f([1.0]),
               "kernel.C": f([[0.5, -1.0]]), "D": f(0.25)}
    return certify(trained_layer(CheckpointLayer("l", "s4d", tensors), "m.npz"), 4, tolerance="1/100")


#: Every certificate kind: where its starting certificate comes from, and how its mutants grow.
KINDS = {
    "head-count": (lambda: _load("hippo-legs-N8-p3-m2.json"), [_grow_digits, _grow_rows, _grow_any_number]),
    "head-count Q(i)": (_built(_gaussian), [_grow_any_number]),
    "gradient-highway": (lambda: _load("hippo-legs-N8-p3-m2.gradient.json"), [_grow_digits, _grow_P,
                                                                                _grow_any_number]),
    "parametric-head-count": (lambda: _load("diagonal-symbolic-N3-p3-m1.json"), [_grow_formula, _grow_rows,
                                                                                   _grow_any_number]),
    "approximate-head-count": (_built(_approximate), [_grow_digits, _grow_any_number]),
    "interaction-rank": (_built(_interaction), [_grow_any_number]),
    "parametric-interaction-rank": (_built(_parametric_layer), [_grow_any_number]),
    "trained-head-count": (_built(_trained), [_grow_any_number]),
}


#: Units standing for a check's fixed start, and per byte read (tests/checker/test_cost_model.py states why).
START_UNITS = 1_000_000
BYTE_UNITS = 10


def _timed(cert, budget):
    """``(seconds, {"code", "message", "charged", "check_seconds"})``: the check in a child process, as a fresh
    ``symssm check`` runs it (no clock); the harness stops it at ``budget`` seconds (a failure of the cost model, not
    a verdict).  ``charged`` is what checker/costs.py's meter recorded there (every charge made before its work)."""
    def task():
        costs.reset_meter()
        start = time.perf_counter()
        res = check_data(cert)
        return {"code": res.code, "message": res.message, "charged": costs.charged(),
                "check_seconds": time.perf_counter() - start}

    start = time.monotonic()
    try:
        out = run_isolated(task, seconds=budget + 0.4, limit_text=f"{budget:.3g} s")
    except Undecided as exc:
        out = {"code": 2, "message": str(exc), "charged": None, "check_seconds": None}
    return time.monotonic() - start, out


def units(out, size):
    """The charged units of a check: the meter, the bytes read and the fixed start (None if it was stopped)."""
    return None if out.get("charged") is None else out["charged"] + BYTE_UNITS * size + START_UNITS


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=30, help="mutants per kind")
    ap.add_argument("--max-bytes", type=int, default=200_000)
    ap.add_argument("--ceiling", type=float, default=None,
                    help="fail when a check's seconds per charged unit pass this (tests/checker/test_cost_model.py)")
    ap.add_argument("--kind", action="append", choices=list(KINDS), help="only this kind (repeatable)")
    ap.add_argument("--save", default=None, help="write each kind's slowest certificate into this folder")
    args = ap.parse_args(argv)
    sys.set_int_max_str_digits(0)  # the mutants' long numbers (in this process only, never in an importer)
    rng = random.Random(args.seed)
    failed = False
    print("| kind | bytes | charged | check (s) | s per unit | worst s per unit | bound (s) | exit | verdict |")
    print("|---|---|---|---|---|---|---|---|---|")
    for kind, (start, growers) in KINDS.items():
        if args.kind and kind not in args.kind:
            continue
        best = start()
        best_time, best_out = _timed(best, costs.CALIBRATED_SECONDS)
        worst = 0.0
        for _ in range(args.rounds):
            mutant = rng.choice(growers)(rng, copy.deepcopy(best))
            size = len(json.dumps(mutant))
            if size > args.max_bytes:
                continue
            budget = costs.CALIBRATED_SECONDS
            took, out = _timed(mutant, 3 * budget)
            if took > budget + 1.0:
                failed = True
                print(f"{kind}: a check took {took:.1f} s, over the calibrated {budget:.1f} s", file=sys.stderr)
            charged = units(out, size)
            if charged is None or "stopped by the clock" in out["message"]:
                failed = True  # stopped by the harness's clock, not decided by its charges
                print(f"{kind}: a check was stopped by the clock: {out['message'][:120]}", file=sys.stderr)
            else:
                ratio = out["check_seconds"] / charged
                worst = max(worst, ratio)
                if args.ceiling is not None and ratio > args.ceiling:
                    failed = True
                    print(f"{kind}: {ratio:.3g} s per charged unit, over the ceiling {args.ceiling:.3g}: "
                          f"{out['message'][:120]}", file=sys.stderr)
            if took > best_time:
                best, best_time, best_out = mutant, took, out
        size = len(json.dumps(best))
        if args.save:
            os.makedirs(args.save, exist_ok=True)
            with open(os.path.join(args.save, kind.replace(" ", "-").replace("(", "").replace(")", "") + ".json"),
                      "w") as fh:
                json.dump(best, fh)
        charged = units(best_out, size)
        per = "-" if charged is None else f"{best_out['check_seconds'] / charged:.2g}"
        print(f"| {kind} | {size} | {best_out.get('charged')} | {best_time:.2f} | {per} | {worst:.2g} | "
              f"{costs.CALIBRATED_SECONDS:.1f} | {best_out['code']} | {best_out['message'][:70]} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
