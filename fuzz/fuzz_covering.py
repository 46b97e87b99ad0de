"""An adversary with an oracle against the covering rules of parametric certificates (issue #41), outside pytest.

Mutants (one to three edits of the bodies, biased to the factor items, their covers, coefficient factors
and substitutions: polynomials, indices, statuses, rules, deleted or copied fields) of certificates that
use every rule (the cone, a sum of squares, a form with no rational zero, linear attention on 2-d tokens,
families with definite and binary forms, a one-parameter polynomial with no rational root, a generic
2-state system) are checked; every mutant that verifies must answer ``--at`` as an independent SymPy
rank does at seeded random points and at a point on every factor.  Exits 1 on a false acceptance (the
mutant is written next to the working folder) or on the checker's "malformed" fall-through.

    python fuzz/fuzz_covering.py SEED SECONDS

Run on 2026-11-26 (seeds 1 to 4, 120 to 150 s each): 69,513 mutants, 0 false acceptances.
"""

import copy
import json
import os
import random
import sys
import time
from fractions import Fraction
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))
import sympy
from symssm import certify
from symssm.checker.core import check_data
from symssm.checker.reading import Ledger
from symssm.checker import parametric_interaction as PI, parametric as PF
from symssm.sources.parametric_layers import parametric_layer_from_data
from symssm.sources.parametric import parametric_ssm
from test_covering import LAYERS, _oracle, I2

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
bases = []
for name, spec in LAYERS.items():
    bases.append((name, certify(parametric_layer_from_data(spec)).data, (lambda pt, name=name: _oracle(name, pt)), spec["parameters"], "layer"))
for name, (A, B, C, ps) in FAMS.items():
    d = certify(parametric_ssm(A, B, C, parameters=ps), 4).data
    bases.append((name, d, fam_oracle(A, B, C, ps, 4), ps, "family"))

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
    ledger, parsed = Ledger(), []
    if kind == "layer":
        system = PI.read_parametric_layer(ledger, data["system"])
        PI.check_parametric_interaction(ledger, data, system, keep=parsed)
        return [PI.interaction_rank_at(parsed, p, system)["interaction_rank"] for p in points]
    system = PF.read_parametric_system(ledger, data["system"])
    PF.check_parametric(ledger, data, system, keep=parsed)
    return [PF.head_count_at(parsed, p, data["n"])["head_count"] for p in points]

from parametric_tools import factor_points
seed = int(sys.argv[1]) if len(sys.argv) > 1 else 0
budget = float(sys.argv[2]) if len(sys.argv) > 2 else 60
rng = random.Random(seed)
pts_cache, truth_cache = {}, {}
for name, data, oracle, params, kind in bases:
    draw = lambda names: {x: Fraction(rng.randint(-3, 3), rng.choice((1, 1, 2))) for x in names}
    pts = [draw(params) for _ in range(25)] + [p for p in factor_points(data, draw)]
    pts = [{x: p[x] for x in params} for p in pts]
    pts_cache[name] = pts
    truth_cache[name] = [oracle(p) for p in pts]
    assert answers(data, kind, pts) == truth_cache[name], name
stats = {"tried": 0, "verified": 0, "same": 0, "rejected": 0, "unreadable": 0, "false": 0}
end = time.time() + budget
while time.time() < end:
    name, data, oracle, params, kind = rng.choice(bases)
    m = mutate(rng, copy.deepcopy(data))
    res = check_data(m)
    stats["tried"] += 1
    if res.code == 1:
        stats["rejected"] += 1
        assert not res.message.startswith("undecided: malformed certificate, read by no obligation"), (name, res.message)
        continue
    if res.code == 2:
        stats["unreadable"] += 1
        continue
    stats["verified"] += 1
    if m == data:
        stats["same"] += 1
        continue
    got = answers(m, kind, pts_cache[name])
    for p, g, t in zip(pts_cache[name], got, truth_cache[name]):
        if g is not None and g != t:
            stats["false"] += 1
            print("FALSE ACCEPTANCE", name, {k: str(v) for k, v in p.items()}, g, t)
            json.dump(m, open(f"false-{name}-{stats['false']}.json", "w"))
            break
print(stats)
sys.exit(1 if stats["false"] else 0)
