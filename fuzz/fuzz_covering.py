"""An adversary with an oracle against the covering rules of parametric certificates, outside pytest.

Mutants (one to three edits of the bodies, biased to the factor items, their covers, coefficient factors
and substitutions: polynomials, indices, statuses, rules, deleted or copied fields) of certificates that
use every rule (the cone, a sum of squares, a form with no rational zero, linear attention on 2-d tokens,
families with definite and binary forms, a one-parameter polynomial with no rational root, a generic
2-state system) are checked; every mutant that verifies must answer ``--at`` as an independent SymPy
rank does at seeded random points and at a point on every factor.  Exits 1 on a false acceptance (the
mutant is written next to the working folder) or on the checker's "malformed" fall-through.

    python fuzz/fuzz_covering.py SEED SECONDS                      # as many mutants as SECONDS allow
    python fuzz/fuzz_covering.py --seed 1 --count 100000 --workers 16    # a fixed number, in parallel

With ``--count``, mutant ``i`` depends on ``(seed, i)`` only (the same counts whatever ``--workers``); a mutant
the checker decides through its "malformed certificate, read by no obligation" fall-through, or that raises,
counts as a traceback (exit 1, like a false acceptance). The last line is a summary.

The certificates mutated are stored in fuzz/covering_bases.json (`--write-bases` rebuilds them with the
generator, which needs python-flint; the fuzzer itself runs without it).

Run on 2026-11-26 (seeds 1 to 4, 120 to 150 s each): 69,513 mutants, 0 false acceptances.
"""

import argparse
import collections
import copy
import json
import multiprocessing
import os
import random
import sys
import time
from fractions import Fraction
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
import sympy  # noqa: E402
from symssm.checker.core import check_data  # noqa: E402
from symssm.checker.reading import Ledger  # noqa: E402
from symssm.checker import parametric_interaction as PI, parametric as PF, polynomials as PP  # noqa: E402
# The covering layers and their SymPy oracle, shared with tests/test_covering.py (no python-flint: the generator
# needs it, so the certificates are stored in fuzz/covering_bases.json, --write-bases)
from parametric_tools import I2, LAYERS, factor_points, layer_oracle as _oracle  # noqa: E402

BASES_FILE = os.path.join(ROOT, "fuzz", "covering_bases.json")


def fam_oracle(A, B, C, names, n):
    def f(point):
        v = {x: sympy.Rational(q.numerator, q.denominator) for x, q in point.items()}
        sym = {x: sympy.Symbol(x) for x in names}
        def M(rows):
            return sympy.Matrix([[sympy.sympify(str(e).replace("^", "**"), locals=sym).subs(v) for e in r] for r in rows])
        a, b, c = M(A), M(B), M(C)
        N = a.shape[0]
        lags = [c * a ** d * b for d in range(min(n, N))]
        return sympy.Matrix([list(L) for L in lags]).rank()
    return f

FAMS = {
    "rs": ([["a", "-b"], ["b", "a"]], I2, [["a", "b"]], ["a", "b"]),
    "bf": ([["x", "2*y"], ["y", "x"]], I2, [["x", "y"]], ["x", "y"]),
    "uni": ([["1"]], [["t^2 - 2", "s"]], [[1]], ["s", "t"]),
    "gen": ([["a11", "a12"], ["a21", "a22"]], [["b11"], ["b21"]], [["c11", "c12"]], ["a11", "a12", "a21", "a22", "b11", "b21", "c11", "c12"]),
}
_BASES = []


def write_bases(path=BASES_FILE):
    """Certify every layer and family above with the generator (python-flint) and store the certificates."""
    from symssm import certify
    from symssm.sources.parametric import parametric_ssm
    from symssm.sources.parametric_layers import parametric_layer_from_data

    data = {name: certify(parametric_layer_from_data(spec)).data for name, spec in LAYERS.items()}
    data.update({name: certify(parametric_ssm(A, B, C, parameters=ps), 4).data for name, (A, B, C, ps) in FAMS.items()})
    text = "{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v, sort_keys=True, default=str)}" for k, v in data.items())
    with open(path + ".tmp", "w") as fh:
        fh.write(text + "\n}\n")
    os.replace(path + ".tmp", path)


def _bases():
    """The certificates mutated: every layer above and the families (fuzz/covering_bases.json, read once)."""
    if not _BASES:
        with open(BASES_FILE) as fh:
            stored = json.load(fh)
        for name, spec in LAYERS.items():
            _BASES.append((name, stored[name], (lambda pt, name=name: _oracle(name, pt)), spec["parameters"], "layer"))
        for name, (A, B, C, ps) in FAMS.items():
            _BASES.append((name, stored[name], fam_oracle(A, B, C, ps, 4), ps, "family"))
    return _BASES

def paths(obj, prefix=()):
    out = [prefix]
    if isinstance(obj, dict):
        for k in obj:
            out += paths(obj[k], prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += paths(v, prefix + (i,))
    return out

POLYS = ["0", "1", "-1", "2", "x", "y", "z", "u1", "v1", "u2", "v2", "a", "b", "t", "s", "x^2", "y^2", "x*z", "x + y",
         "x - y", "y^2 + 1", "a^2 + b^2", "u1*v2", "v1*u2", "b11", "c11", "c12", "b21", "-b11*c11", "-b21*c12"]
TEXTS = ["case", "uncovered", "outside-domain", "no-zero", "solve", "definite-form", "definite", "binary-form",
         "univariate", "factor", "coefficient_factor"]

def mutate(rng, data):
    ps = [p for p in paths(data)[1:] if p[0] == "bodies" or (p[0] in ("complete", "interaction_rank", "head_count"))]
    # bias towards the factors
    fps = [p for p in ps if "factors" in p or "substitution" in p]
    for _ in range(rng.randint(1, 3)):
        path = rng.choice(fps if rng.random() < 0.85 and fps else ps)
        parent = data
        try:
            for p in path[:-1]:
                parent = parent[p]
            key = path[-1]
            value = parent[key]
        except (KeyError, IndexError, TypeError):
            continue
        if not isinstance(parent, (dict, list)):
            continue
        r = rng.random()
        if r < 0.25:
            parent[key] = rng.choice(POLYS)
        elif r < 0.45:
            parent[key] = (value + rng.choice([-1, 1, 2])) if type(value) is int else rng.randint(0, 5)
        elif r < 0.55 and isinstance(parent, dict):
            del parent[key]
        elif r < 0.7:
            parent[key] = rng.choice(TEXTS)
        elif r < 0.8 and isinstance(value, list) and value:
            parent[key] = value[:-1] if rng.random() < 0.5 else list(reversed(value))
        elif r < 0.9:
            # copy another item of the same kind
            other = rng.choice(fps)
            src = data
            try:
                for p in other:
                    src = src[p]
                parent[key] = copy.deepcopy(src)
            except Exception:
                pass
        else:
            parent[key] = not value if isinstance(value, bool) else None
    # keep the top-level claim consistent with body 0 sometimes
    if rng.random() < 0.5:
        b0 = data["bodies"][0] if isinstance(data.get("bodies"), list) and data["bodies"] and isinstance(data["bodies"][0], dict) else {}
        if "complete" in b0:
            data["complete"] = b0["complete"]
    return data

def answers(data, kind, points):
    """The certificate's answer at each point, each with its own work budget (one `symssm check --at` run each)."""
    ledger, parsed = Ledger(), []
    if kind == "layer":
        system = PI.read_parametric_layer(ledger, data["system"])
        PI.check_parametric_interaction(ledger, data, system, keep=parsed)
        at = lambda p: PI.interaction_rank_at(parsed, p, system)["interaction_rank"]  # noqa: E731
    else:
        system = PF.read_parametric_system(ledger, data["system"])
        PF.check_parametric(ledger, data, system, keep=parsed)
        at = lambda p: PF.head_count_at(parsed, p, data["n"])["head_count"]  # noqa: E731
    out = []
    for p in points:
        PP.reset_work()
        out.append(at(p))
    return out


FALLTHROUGH = "undecided: malformed certificate, read by no obligation"
_POINTS = {}


def _points(seed):
    """Per base: seeded random points and points on every factor, with the oracle's answers there."""
    if seed not in _POINTS:
        rng = random.Random(f"covering-points:{seed}")
        out = {}
        for name, data, oracle, params, kind in _bases():
            PP.reset_work()  # the oracle's own parsing of the factors is not the checker's work
            draw = lambda names: {x: Fraction(rng.randint(-3, 3), rng.choice((1, 1, 2))) for x in names}  # noqa: E731
            pts = [draw(params) for _ in range(25)] + [p for p in factor_points(data, draw)]
            pts = [{x: p[x] for x in params} for p in pts]
            truth = [oracle(p) for p in pts]
            assert answers(data, kind, pts) == truth, name
            out[name] = (pts, truth)
        _POINTS[seed] = out
    return _POINTS[seed]


def judge(rng, stats, points, found):
    """One mutant: checked, and judged by the oracle at every point when it verifies."""
    name, data, oracle, params, kind = rng.choice(_bases())
    m = mutate(rng, copy.deepcopy(data))
    stats["tried"] += 1
    try:
        res = check_data(m)
    except BaseException as exc:  # noqa: BLE001 - a raise out of the checker is what this harness looks for
        stats["tracebacks"] += 1
        found.append(("traceback", name, f"{type(exc).__name__}: {exc}"[:200], m))
        return
    if res.message.startswith(FALLTHROUGH):
        stats["tracebacks"] += 1
        found.append(("traceback", name, res.message[:200], m))
        return
    if res.code != 0:
        stats["rejected" if res.code == 1 else "unreadable"] += 1
        return
    stats["verified"] += 1
    if m == data:
        stats["same"] += 1
        return
    pts, truth = points[name]
    got = answers(m, kind, pts)
    for p, g, t in zip(pts, got, truth):
        if g is not None and g != t:
            stats["false"] += 1
            found.append(("false-acceptance", name, f"at {({k: str(v) for k, v in p.items()})}: {g}, truly {t}", m))
            return


def run_chunk(job):
    """Mutants ``start .. start + count - 1`` of ``seed`` (each from its own generator)."""
    seed, start, count = job
    stats, found = collections.Counter(), []
    points = _points(seed)
    for i in range(start, start + count):
        judge(random.Random(f"covering:{seed}:{i}"), stats, points, found)
    return stats, found


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("legacy", nargs="*", help="SEED SECONDS (the first form above)")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--count", type=int, default=None, help="mutants (default: as many as SECONDS allow)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--write-bases", action="store_true", help="rebuild fuzz/covering_bases.json (needs python-flint)")
    args = ap.parse_args(argv)
    if args.write_bases:
        write_bases()
        return 0
    seed = args.seed if args.seed is not None else int(args.legacy[0]) if args.legacy else 0
    budget = float(args.legacy[1]) if len(args.legacy) > 1 else 60.0
    start = time.time()
    stats, found = collections.Counter(), []
    if args.count is None:
        rng, points = random.Random(seed), _points(seed)
        start = time.time()  # SECONDS of mutants, after the bases are built
        while time.time() < start + budget:
            judge(rng, stats, points, found)
    else:
        jobs = [(seed, s, min(250, args.count - s)) for s in range(0, args.count, 250)]
        if args.workers > 1:
            _points(seed)  # built once, before the workers fork
            pool = multiprocessing.get_context("fork").Pool(args.workers, maxtasksperchild=40)
            results = list(pool.imap_unordered(run_chunk, jobs))
            pool.close()
            pool.join()
        else:
            results = map(run_chunk, jobs)
        for part, more in results:
            stats.update(part)
            found += more
    for what, name, detail, m in found[:10]:
        path = f"false-{name}-{len(found)}.json" if what == "false-acceptance" else f"traceback-{name}.json"
        with open(path, "w") as fh:
            json.dump(m, fh)
        print(what.upper(), name, detail, "->", path)
    took = time.time() - start
    print(dict(stats))
    print(f"covering: {stats['tried']} mutants (seed {seed}, {args.workers} workers): {stats['rejected']} rejected, "
          f"{stats['unreadable']} unreadable, {stats['verified']} accepted ({stats['same']} unchanged) and judged at "
          f"every point; FALSE ACCEPTANCES {stats['false']}, tracebacks {stats['tracebacks']}; {took:.0f} s")
    return 1 if stats["false"] or stats["tracebacks"] else 0


if __name__ == "__main__":
    sys.exit(main())
