"""Oracle fuzzing of the certificate kinds with parameters: families and layers for every input.

A theorem "k = K for every parameter value where the system is defined" is only as good as the
checker that accepts it.  This fuzzer builds random families and layers with parameters (1 to 4
parameters, rational-function entries, exceptional sets made on purpose: factors such as ``t - 3``,
``a - b``, ``a*b - 1`` in entries, denominators, unreduced fractions like ``(t^2 - 1)/(t - 1)``),
certifies each, and then asks the verified certificate (``check --at``) what it proves

* at random rational points, and
* at points on every factor of every body (rational zeros found by solving a factor for a
  parameter of degree 1, or from its rational roots),

and compares every answer with an independent oracle written here: SymPy reduces each entry
(``cancel``) to decide where the system is defined, and the rank of the lags (or of the layer's
blocks, recomputed here from the layer's definition) at the point is taken by exact Gaussian
elimination over Fractions.  A head count or rank that differs from the oracle's is a *false
claim*; saying "not defined here" where the system is defined, or nothing where a complete
certificate must answer, is a *wrong answer*.

The mutation half takes honest certificates, changes them the way a forger would (unreduced pairs
with a factor called outside the domain, other statuses, values, ranks, witnesses, dropped bodies,
a formula of the system replaced, with every hash the checker reads recomputed) and re-judges
every mutant the checker accepts with the same oracle: an accepted mutant whose answers are all
true is a *true acceptance*, one with a false answer is a *false acceptance*.

    python fuzz/fuzz_parametric.py --seed 1 --systems 2000 --mutants 10000
    python fuzz/fuzz_parametric.py --seed 1 --systems 4000 --mutants 100000 --shards 64 --workers 16

``--shards S`` splits the run into S independent runs (seeds ``"SEED:i"``, each with its share of systems and
mutants) and ``--workers`` runs them in parallel: the counts depend on the shards, not on the workers. A mutant
decided by the checker's "malformed certificate" fall-through, or that raises, is a failure like a false one.

Prints a summary; exits 1 on any false claim, wrong answer or false acceptance.  The test suite
runs a bounded version (``tests/test_oracle_parametric.py``); docs/robustness.md records long runs.
"""

import argparse
import collections
import copy
import hashlib
import json
import multiprocessing
import random
import sys
import time
from fractions import Fraction

import sympy

from symssm import certify
from symssm.checker import polynomials as CP
from symssm.checker.core import check_data
from symssm.checker.kernel import Unreadable
from symssm.errors import SymssmError
from symssm.sources.parametric import parametric_from_data
from symssm.sources.parametric_layers import parametric_layer_from_data

# ---------------------------------------------------------------- formulas as trees

NAMES = ("t", "s", "u", "v")


def num(c):
    return ("num", Fraction(c))


def var(x):
    return ("var", x)


def text(e):
    """The formula's text in symssm's grammar (fully parenthesised where it matters)."""
    op = e[0]
    if op == "num":
        c = e[1]
        body = str(c.numerator) if c.denominator == 1 else f"{c.numerator}/{c.denominator}"
        return f"({body})" if c < 0 or c.denominator != 1 else body
    if op == "var":
        return e[1]
    if op == "pow":
        return f"({text(e[1])})^{e[2]}"
    sym = {"add": "+", "sub": "-", "mul": "*", "div": "/"}[op]
    return f"({text(e[1])} {sym} {text(e[2])})"


def sym(e, symbols):
    """The same formula as a SymPy expression (built from the tree: nothing is parsed)."""
    op = e[0]
    if op == "num":
        return sympy.Rational(e[1].numerator, e[1].denominator)
    if op == "var":
        return symbols[e[1]]
    if op == "pow":
        return sym(e[1], symbols) ** e[2]
    a, b = sym(e[1], symbols), sym(e[2], symbols)
    return {"add": a + b, "sub": a - b, "mul": a * b, "div": a / b}[op]


def _linear(rng, names):
    """A random polynomial of degree 1: ``t - 3``, ``a - b``, ``2*a + b - 1``."""
    xs = rng.sample(names, rng.randint(1, min(2, len(names))))
    out = None
    for x in xs:
        term = var(x) if rng.random() < 0.7 else ("mul", num(rng.choice([2, 3, -1, Fraction(1, 2)])), var(x))
        out = term if out is None else ("add", out, term)
    return ("sub", out, num(rng.randint(-3, 3)))


def _factor(rng, names):
    """A factor an exceptional set is made of: linear mostly; else a product minus a constant (solved with a
    rational value), a square minus a constant, two parallel tokens (``a d - b c``), a cone (``x z - y^2``),
    a definite form (``x^2 + y^2``, with lower terms), a binary form without rational roots (``x^2 - 2 y^2``)."""
    r = rng.random()
    if r < 0.5 or len(names) < 2:
        if r > 0.4 and names:
            x = rng.choice(names)
            return ("sub", ("pow", var(x), 2), num(rng.choice([1, 4, 9, 2])))
        return _linear(rng, names)
    a, b = rng.sample(names, 2)
    if r < 0.6:
        return ("sub", ("mul", var(a), var(b)), num(rng.choice([1, 2, -1])))
    if r < 0.68 and len(names) >= 4:
        c, d = [x for x in names if x not in (a, b)][:2]
        return ("sub", ("mul", var(a), var(d)), ("mul", var(b), var(c)))
    if r < 0.76 and len(names) >= 3:
        c = next(x for x in names if x not in (a, b))
        return ("sub", ("mul", var(a), var(c)), ("pow", var(b), 2))
    if r < 0.86:
        form = ("add", ("pow", var(a), 2), ("mul", num(rng.choice([1, 2, 3])), ("pow", var(b), 2)))
        return ("add", form, num(1)) if rng.random() < 0.3 else form
    return ("sub", ("pow", var(a), 2), ("mul", num(rng.choice([2, 3, 5])), ("pow", var(b), 2)))


def entry(rng, names, zero=0.35):
    """A random entry: often 0 or a small number, else built from parameters and factors."""
    r = rng.random()
    if r < zero:
        return num(0)
    if r < zero + 0.15:
        return num(rng.choice([1, -1, 2, Fraction(1, 2), 3]))
    if r < zero + 0.3:
        return var(rng.choice(names))
    if r < zero + 0.45:
        return _factor(rng, names)
    if r < zero + 0.55:
        return ("mul", var(rng.choice(names)), _factor(rng, names))
    if r < zero + 0.62:  # a denominator: the family is undefined on its zeros
        return ("div", num(rng.choice([1, 2, -1])), _factor(rng, names))
    if r < zero + 0.68:  # an unreduced fraction: defined where the written denominator vanishes
        f = _factor(rng, names)
        return ("div", ("mul", f, var(rng.choice(names))), f)
    return ("add", var(rng.choice(names)), num(rng.randint(-2, 2)))


def _matrix(rng, names, rows, cols, zero=0.35):
    return [[entry(rng, names, zero) for _ in range(cols)] for _ in range(rows)]


def _render(obj):
    """A spec with trees rendered as formula texts (integers stay integers)."""
    if isinstance(obj, tuple) and obj and obj[0] in ("num", "var", "add", "sub", "mul", "div", "pow"):
        if obj[0] == "num" and obj[1].denominator == 1:
            return int(obj[1])
        return text(obj)
    if isinstance(obj, list):
        return [_render(x) for x in obj]
    if isinstance(obj, dict):
        return {k: _render(v) for k, v in obj.items()}
    return obj


def random_family(rng):
    """``(spec with trees, parameters)``: a family of 1 to 4 parameters, N <= 3, p, m <= 2, D sometimes."""
    names = list(NAMES[:rng.choice([1, 1, 2, 2, 3, 4])])
    N, p, m = rng.randint(1, 3), rng.randint(1, 2), rng.randint(1, 2)
    spec = {"name": "fuzz", "parameters": names, "A": _matrix(rng, names, N, N, 0.45),
            "B": _matrix(rng, names, N, m, 0.3), "C": _matrix(rng, names, p, N, 0.3)}
    if rng.random() < 0.3:
        spec["D"] = _matrix(rng, names, p, m, 0.5)
    spec["n"] = rng.randint(1, N + 2)
    return spec


def random_layer(rng):
    """A layer with parameters of one of the four kinds, as users write them (small sizes)."""
    names = list(NAMES[:rng.choice([1, 2, 2, 3, 4])])
    kind = rng.choice(["convolution", "operator", "linear-attention", "selective-ssm"])
    if kind == "convolution":
        p, m = rng.randint(1, 2), rng.randint(1, 2)
        return {"kind": kind, "parameters": names, "n": rng.randint(2, 4),
                "kernel": [_matrix(rng, names, p, m, 0.3) for _ in range(rng.randint(1, 3))]}
    if kind == "operator":
        n, p, m = rng.randint(1, 3), rng.randint(1, 2), rng.randint(1, 2)
        pairs = [(i, j) for i in range(1, n + 1) for j in range(1, n + 1)]
        chosen = sorted(rng.sample(pairs, rng.randint(1, min(4, len(pairs)))))
        return {"kind": kind, "parameters": names, "n": n, "p": p, "m": m,
                "blocks": [{"i": i, "j": j, "W": _matrix(rng, names, p, m, 0.3)} for i, j in chosen]}
    if kind == "linear-attention":
        n, m, d = rng.randint(1, 3), rng.randint(1, 2), rng.randint(1, 2)
        p = m
        heads = [{"Q": _matrix(rng, names, d, m, 0.4), "K": _matrix(rng, names, d, m, 0.4),
                  "V": _matrix(rng, names, p, m, 0.4)} for _ in range(rng.randint(1, 2))]
        return {"kind": kind, "parameters": names, "X": _matrix(rng, names, n, m, 0.2), "heads": heads}
    n, N, p, m = rng.randint(1, 3), rng.randint(1, 2), rng.randint(1, 2), rng.randint(1, 2)
    out = {"kind": kind, "parameters": names, "A": [_matrix(rng, names, N, N, 0.4) for _ in range(n)],
           "B": [_matrix(rng, names, N, m, 0.3) for _ in range(n)],
           "C": [_matrix(rng, names, p, N, 0.3) for _ in range(n)]}
    if rng.random() < 0.3:
        out["D"] = [_matrix(rng, names, p, m, 0.5) for _ in range(n)]
    return out


# ---------------------------------------------------------------- the oracle

class Oracle:
    """The independent truth about a spec with trees: where it is defined, and its rank at a point."""

    def __init__(self, spec):
        self.spec = spec
        self.names = list(spec["parameters"])
        self.symbols = {x: sympy.Symbol(x) for x in self.names}
        self._reduced = {}

    def value(self, e, point):
        """``None`` where the entry's reduced denominator vanishes, else its value (a Fraction)."""
        key = id(e)
        if key not in self._reduced:
            expr = sympy.cancel(sym(e, self.symbols))
            self._reduced[key] = (e, sympy.fraction(expr))
        _, (n, d) = self._reduced[key]
        subs = {self.symbols[x]: sympy.Rational(v.numerator, v.denominator) for x, v in point.items()}
        den = d.subs(subs)
        if den == 0:
            return None
        v = n.subs(subs) / den
        return Fraction(int(v.p), int(v.q))

    def matrix(self, rows, point):
        out = []
        for row in rows:
            vals = [self.value(x, point) for x in row]
            if any(v is None for v in vals):
                return None
            out.append(vals)
        return out

    def truth(self, point):
        """The rank the certificate must state at ``point``, or None where the system is undefined."""
        spec = self.spec
        if "kind" not in spec:
            mats = {k: self.matrix(spec[k], point) for k in ("A", "B", "C")}
            D = self.matrix(spec["D"], point) if "D" in spec else None
            if any(v is None for v in mats.values()) or ("D" in spec and D is None):
                return None
            return rank(family_lags(mats["A"], mats["B"], mats["C"], D, spec["n"]))
        blocks = layer_blocks(self, spec, point)
        return None if blocks is None else rank(blocks)


def _mul(X, Y):
    return [[sum((X[i][k] * Y[k][j] for k in range(len(Y))), Fraction(0)) for j in range(len(Y[0]))]
            for i in range(len(X))]


def _add(X, Y):
    return [[a + b for a, b in zip(r, s)] for r, s in zip(X, Y)]


def family_lags(A, B, C, D, n):
    """``L_0 = CB + D, L_d = C A^d B`` for ``d < min(n, N + 1)``: past T the span does not grow (F1)."""
    out, X = [], B
    for d in range(min(n, len(A) + 1)):
        L = _mul(C, X)
        if d == 0 and D is not None:
            L = _add(L, D)
        out.append(L)
        X = _mul(A, X)
    return out


def layer_blocks(oracle, spec, point):
    """The blocks ``W_ij`` of a layer at a point, from the layer's definition (docs/framework.md)."""
    kind = spec["kind"]
    M = lambda rows: oracle.matrix(rows, point)  # noqa: E731
    if kind == "convolution":
        taps = [M(k) for k in spec["kernel"]]
        if any(t is None for t in taps):
            return None
        n = spec["n"]
        return [taps[i - j] for i in range(n) for j in range(n) if 0 <= i - j < len(taps)]
    if kind == "operator":
        blocks = [M(b["W"]) for b in spec["blocks"]]
        return None if any(b is None for b in blocks) else blocks
    if kind == "linear-attention":
        X = M(spec["X"])
        heads = [(M(h["Q"]), M(h["K"]), M(h["V"])) for h in spec["heads"]]
        if X is None or any(x is None for h in heads for x in h):
            return None
        n, out = len(X), []
        col = lambda x: [[v] for v in x]  # noqa: E731
        for i in range(n):
            for j in range(i + 1):
                W = None
                for Q, K, V in heads:
                    q, k = _mul(Q, col(X[i])), _mul(K, col(X[j]))
                    s = sum((a[0] * b[0] for a, b in zip(q, k)), Fraction(0))
                    term = [[s * v for v in row] for row in V]
                    W = term if W is None else _add(W, term)
                out.append(W)
        return out
    A, B, C = ([M(x) for x in spec[k]] for k in ("A", "B", "C"))
    D = [M(x) for x in spec["D"]] if "D" in spec else None
    if any(x is None for x in A + B + C + (D or [])):
        return None
    n, out = len(A), []
    for i in range(n):
        for j in range(i + 1):
            if i == j:
                W = _mul(C[i], B[i])
                if D is not None:
                    W = _add(W, D[i])
            else:
                X = B[j]
                for t in range(j + 1, i + 1):
                    X = _mul(A[t], X)
                W = _mul(C[i], X)
            out.append(W)
    return out


def rank(mats):
    """The dimension of the span of the matrices (flattened), by exact elimination."""
    rows = [[x for row in Mx for x in row] for Mx in mats]
    r = 0
    cols = len(rows[0]) if rows else 0
    for c in range(cols):
        piv = next((i for i in range(r, len(rows)) if rows[i][c] != 0), None)
        if piv is None:
            continue
        rows[r], rows[piv] = rows[piv], rows[r]
        for i in range(len(rows)):
            if i != r and rows[i][c] != 0:
                f = rows[i][c] / rows[r][c]
                rows[i] = [a - f * b for a, b in zip(rows[i], rows[r])]
        r += 1
    return r


# ---------------------------------------------------------------- points to probe

class Answers:
    """What a certificate proves at points, as ``check --at`` answers: the certificate is checked once (the
    checker's own obligations, keeping its parsed bodies), then each point is walked through them with the
    checker's own functions (``symssm/checker/core.py`` does the same for one point)."""

    def __init__(self, data):
        from symssm.checker.core import KINDS
        from symssm.checker.reading import Ledger

        res = check_data(data)
        self.code, self.message = res.code, res.message
        if res.code != 0:
            return
        reader, _, obligations = KINDS[(data["kind"], None)][:3]
        ledger = Ledger(None)
        self.system = reader(ledger, data["system"])
        self.parsed = []
        obligations(ledger, data, self.system, keep=self.parsed)
        self.data = data

    def at(self, point):
        """``(verdict code, rank or None, reason)``."""
        from symssm.checker.parametric import head_count_at
        from symssm.checker.parametric_interaction import interaction_rank_at

        if self.code != 0:
            return self.code, None, self.message
        CP.reset_work()  # each point is its own `symssm check --at` run: its own work budget
        try:
            if self.data["kind"] == "parametric-head-count":
                at = head_count_at(self.parsed, point, self.data["n"])
                return 0, at["head_count"], at["reason"]
            at = interaction_rank_at(self.parsed, point, self.system)
        except Unreadable as exc:  # over a work limit at this point: undecided, as the command says (exit 2)
            return 2, None, str(exc)
        return 0, at["interaction_rank"], at["reason"]


def _poly(textual, names):
    try:
        return CP.parse_polynomial(textual, names)
    except Exception:  # noqa: BLE001 - a mutant's text: no point from it
        return None


def _zeros_of(rng, poly, names):
    """Rational points (dicts over ``names``) where ``poly`` vanishes: solve for a parameter of degree 1,
    or take rational roots of a polynomial in one parameter; a few tries with random other values."""
    out = []
    nv = len(names)
    for _ in range(3):
        base = [Fraction(rng.randint(-4, 4), rng.choice([1, 1, 2, 3])) for _ in range(nv)]
        for v in range(nv):
            degs = {mon[v] for mon in poly}
            if max(degs, default=0) == 1:
                a = sum((c * _mono(mon, base, skip=v) for mon, c in poly.items() if mon[v] == 1), Fraction(0))
                b = sum((c * _mono(mon, base, skip=v) for mon, c in poly.items() if mon[v] == 0), Fraction(0))
                if a != 0:
                    pt = list(base)
                    pt[v] = -b / a
                    out.append(dict(zip(names, pt)))
                    break
            elif degs and all(all(e == 0 for i, e in enumerate(mon) if i != v) for mon in poly):
                for root in _rational_roots({mon[v]: c for mon, c in poly.items()}):
                    pt = list(base)
                    pt[v] = root
                    out.append(dict(zip(names, pt)))
                break
    return out


def _mono(mon, point, skip):
    out = Fraction(1)
    for i, e in enumerate(mon):
        if i != skip and e:
            out *= point[i] ** e
    return out


def _rational_roots(coeffs):
    """The rational roots of a univariate polynomial ``{degree: coefficient}`` (rational root theorem)."""
    from math import lcm

    coeffs = {d: c for d, c in coeffs.items() if c}
    if not coeffs:
        return []
    den = lcm(*(c.denominator for c in coeffs.values()))
    ints = {d: int(c * den) for d, c in coeffs.items()}
    low = min(ints)
    ints = {d - low: c for d, c in ints.items()}
    roots = [Fraction(0)] if low > 0 else []
    top, const = ints[max(ints)], ints.get(0, 0)
    if const == 0 or abs(const) > 10**6 or abs(top) > 10**6:
        return roots

    def divisors(k):
        k = abs(k)
        return [d for d in range(1, min(k, 2000) + 1) if k % d == 0]

    for pn in divisors(const):
        for qd in divisors(top):
            for sign in (1, -1):
                x = Fraction(sign * pn, qd)
                if sum(c * x ** d for d, c in ints.items()) == 0 and x not in roots:
                    roots.append(x)
    return roots


def probe_points(rng, data, count=4):
    """Random points, and points on the factors of every body (lifted to the root's parameters)."""
    names = list(data["system"]["parameters"])
    points = [{x: Fraction(rng.randint(-5, 5), rng.choice([1, 1, 2, 3])) for x in names} for _ in range(count)]
    bodies = data.get("bodies")
    if not isinstance(bodies, list):
        return points
    for i, body in enumerate(bodies[:64]):
        try:
            bnames = list(body["parameters"])
            flist = body["factors"]["list"]
        except (TypeError, KeyError):
            continue
        flist = list(flist) + list(body["factors"].get("coefficient_factors") or [])
        for f in flist[:16]:
            poly = _poly(f.get("polynomial") if isinstance(f, dict) else None, bnames)
            if not poly:
                continue
            for pt in _zeros_of(rng, poly, bnames)[:2]:
                lifted = _lift(bodies, i, pt)
                if lifted is not None and set(lifted) == set(names):
                    points.append(lifted)
    return points


def _link_item(bodies, sub):
    """The factor item a body's ``substitution`` points to (covers), or None for the first format."""
    parent = bodies[sub["parent"]]["factors"]
    if "factor" in sub and "parameter" not in sub:
        return parent["list"][sub["factor"]]
    if "coefficient_factor" in sub:
        return parent["coefficient_factors"][sub["coefficient_factor"]]
    return None


def _lift(bodies, i, point):
    """A point of body ``i``'s parameters as a point of the root's: the substitutions applied upward (a solved
    parameter ``x = value / denominator``, or the variables of a form set to 0)."""
    point = dict(point)
    seen = 0
    while i != 0 and seen < 64:
        seen += 1
        try:
            sub = bodies[i]["substitution"]
            parent = bodies[sub["parent"]]
            pnames = list(parent["parameters"])
            cnames = list(bodies[i]["parameters"])
            coords = [point[x] for x in cnames]
            item = _link_item(bodies, sub)
            if item is None:  # the first format: {parent, factor, parameter, value}
                value = _poly(sub["value"], cnames)
                if value is None:
                    return None
                point[sub["parameter"]] = CP.evaluate(value, coords)
            else:
                cover = item["cover"]
                if cover["rule"] == "solve":
                    value = _poly(cover["value"], cnames)
                    den = _poly(cover.get("denominator", "1"), cnames)
                    if value is None or den is None or CP.evaluate(den, coords) == 0:
                        return None
                    point[cover["parameter"]] = CP.evaluate(value, coords) / CP.evaluate(den, coords)
                else:
                    for x in cover["variables"]:
                        point[x] = Fraction(0)
            point = {x: point[x] for x in pnames}
            i = sub["parent"]
        except (TypeError, KeyError, IndexError, ValueError, ZeroDivisionError, AttributeError):
            return None
    return point if i == 0 else None


# ---------------------------------------------------------------- one system

Outcome = collections.namedtuple("Outcome", "status detail")
#: Most points probed per certificate.
MAX_PROBES = 48


def judge(data, oracle, rng, *, honest):
    """Probe a verified certificate against the oracle; ``Outcome(status, detail)`` with status one of
    ``ok``, ``false-claim`` (a stated rank differs from the truth), ``wrong-domain`` (undefined said of a
    point where the system is defined, or a rank of a point where it is not), ``silent`` (a complete
    certificate says nothing at a defined point)."""
    complete = data.get("complete") is True
    answers = Answers(data)
    points = probe_points(rng, data)
    if len(points) > MAX_PROBES:  # the random points, and a sample of the points on factors
        points = points[:4] + rng.sample(points[4:], MAX_PROBES - 4)
    for point in points:
        truth = oracle.truth(point)
        code, stated, reason = answers.at(point)
        if code != 0:
            return Outcome("unverified", f"{point}: {reason[:120]}")
        shown = {k: str(v) for k, v in point.items()}
        if stated is not None and truth is None:
            return Outcome("wrong-domain", f"rank {stated} stated at {shown}, where the system is undefined")
        if stated is not None and stated != truth:
            return Outcome("false-claim", f"rank {stated} stated at {shown}, the truth is {truth}")
        if stated is None and truth is not None and "not defined" in reason:
            return Outcome("wrong-domain", f"'{reason}' at {shown}, where the system is defined (rank {truth})")
        if stated is None and truth is not None and complete:
            return Outcome("silent", f"a complete certificate says nothing at {shown} ({reason})")
    return Outcome("ok", "")


def build(rng, layer):
    """A random spec (with trees), its certificate data, or None when symssm refuses it (a limit)."""
    spec = random_layer(rng) if layer else random_family(rng)
    rendered = _render(spec)
    try:
        system = parametric_layer_from_data(rendered) if layer else parametric_from_data(rendered)[0]
        cert = certify(system, None if layer else rendered["n"])
    except SymssmError:
        return spec, None
    return spec, json.loads(cert.to_json())


# ---------------------------------------------------------------- mutations

def _hash_family(system):
    data = {k: system.get(k) for k in ("A", "B", "C", "D")}
    data["parameters"] = system.get("parameters")
    text_ = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True) + "\n"
    return hashlib.sha256(text_.encode("ascii")).hexdigest()


def _hash_layer(system):
    from symssm.sources.parametric_layers import layer_spec_fields, parametric_layer_hash

    kind = system.get("kind")
    try:
        required, optional = layer_spec_fields(kind)
    except KeyError:
        return None
    spec = {k: v for k, v in system.items() if k in required | optional and k != "name"}
    return parametric_layer_hash(spec)


def rehash(data):
    """Recompute the certificate's ``input_sha256`` from its (possibly changed) system, as a forger would."""
    system = data.get("system")
    if not isinstance(system, dict):
        return
    try:
        data["input_sha256"] = _hash_layer(system) if "kind" in system else _hash_family(system)
    except Exception:  # noqa: BLE001 - a system no hash reads: the checker will say so
        pass


def _formula_leaves(spec, path=()):
    """Paths to the formula trees of a spec."""
    if isinstance(spec, tuple) and spec and spec[0] in ("num", "var", "add", "sub", "mul", "div", "pow"):
        return [path]
    out = []
    if isinstance(spec, list):
        for i, x in enumerate(spec):
            out += _formula_leaves(x, path + (i,))
    elif isinstance(spec, dict):
        for k, x in spec.items():
            if k not in ("parameters", "name", "kind", "n", "p", "m", "i", "j"):
                out += _formula_leaves(x, path + (k,))
    return out


def _set(obj, path, value):
    for key in path[:-1]:
        obj = obj[key]
    obj[path[-1]] = value


def _get(obj, path):
    for key in path:
        obj = obj[key]
    return obj


def _flint_of(tree, ctx, names):
    """A factor tree (no division) as a FLINT polynomial of the engine's context."""
    import flint

    gens = dict(zip(names, ctx.gens())) if names else {}
    op = tree[0]
    if op == "num":
        return ctx.from_dict({(0,) * ctx.nvars(): flint.fmpq(tree[1].numerator, tree[1].denominator)})
    if op == "var":
        return gens[tree[1]]
    if op == "pow":
        return _flint_of(tree[1], ctx, names) ** tree[2]
    a, b = _flint_of(tree[1], ctx, names), _flint_of(tree[2], ctx, names)
    return {"add": a + b, "sub": a - b, "mul": a * b}[op]


def forge_unreduced(rng, spec):
    """The forgery of the issue that made this fuzzer: one entry written ``(num f)/(den f)`` and the whole proof
    redone on it by the generator's own engine (so ``g``, the determinant, the relations and the factor list are
    consistent, ``f`` is called outside the domain and its case disappears).  None if symssm refuses."""
    from symssm.certificate.parametric import parametric_data
    from symssm.certificate.parametric_interaction import parametric_interaction_data
    from symssm.exact import flintfamily as FF
    from symssm.exact import layerfamily as LF

    names = list(spec["parameters"])
    f_tree = _factor(rng, names)
    layer = "kind" in spec
    rendered = _render(spec)

    def unreduced(fam):
        keys_ = [k for k in sorted(fam.pairs) if fam.pairs[k]]
        key = rng.choice(keys_)
        rows = [list(row) for row in fam.pairs[key]]
        r, c = rng.randrange(len(rows)), rng.randrange(len(rows[0]))
        f = _flint_of(f_tree, fam.ctx, list(fam.parameters))
        num, den = rows[r][c]
        rows[r][c] = (num * f, den * f)
        pairs = dict(fam.pairs)
        pairs[key] = rows
        return FF._Family(fam.parameters, fam.ctx, pairs, fam.name)

    orig_sys, orig_mat = FF._from_system, LF.family_from_matrices
    FF._from_system = lambda system: unreduced(orig_sys(system))
    LF.family_from_matrices = lambda *a, **k: unreduced(orig_mat(*a, **k))
    try:
        if layer:
            return parametric_interaction_data(parametric_layer_from_data(rendered))
        return parametric_data(parametric_from_data(rendered)[0], rendered["n"])
    except (SymssmError, ZeroDivisionError):
        return None
    finally:
        FF._from_system, LF.family_from_matrices = orig_sys, orig_mat


def mutate(rng, data, spec):
    """One forged certificate (data, spec with trees): a forger's edit, hashes recomputed."""
    if rng.random() < 0.25:
        forged = forge_unreduced(rng, spec)
        if forged is not None:
            return json.loads(json.dumps(forged, default=str)), copy.deepcopy(spec)
    d = copy.deepcopy(data)
    spec = copy.deepcopy(spec)
    names = list(d["system"]["parameters"])
    bodies = d["bodies"]
    r = rng.random()
    b = rng.choice(bodies)
    bn = list(b["parameters"])
    if r < 0.2:  # an unreduced pair: numerator and denominator times a factor, called outside the domain
        f = text(_factor(rng, bn)) if bn else "2"
        keys_ = [k for k, v in b["entries"].items() if v]
        if keys_:
            key = rng.choice(keys_)
            M = b["entries"][key]
            rr, cc = rng.randrange(len(M)), rng.randrange(len(M[0]))
            n_, d_ = M[rr][cc]
            M[rr][cc] = [f"({n_})*({f})", f"({d_})*({f})"]
            if rng.random() < 0.7:
                b["factors"]["list"].append({"polynomial": f, "multiplicity": 1, "status": "outside-domain"})
    elif r < 0.35:  # a factor's status changed
        if b["factors"]["list"]:
            f = rng.choice(b["factors"]["list"])
            new = rng.choice(["outside-domain", "uncovered", "case"])
            f.pop("case", None)
            f["status"] = new
            if new == "case":
                f["case"] = rng.randrange(len(bodies))
    elif r < 0.45:  # a rank changed
        field = "head_count" if "head_count" in b else "interaction_rank"
        b[field] = max(0, b[field] + rng.choice([-1, 1]))
        if rng.random() < 0.5:
            top = "head_count" if "head_count" in d else "interaction_rank"
            d[top] = bodies[0][field]
    elif r < 0.55 and len(bodies) > 1:  # a body dropped (its factor now points past the end or elsewhere)
        del bodies[rng.randrange(1, len(bodies))]
    elif r < 0.65:  # a cover changed: a solution's value, its rule, a status
        items = [f for x in bodies for f in x["factors"]["list"] + (x["factors"].get("coefficient_factors") or [])
                 if isinstance(f.get("cover"), dict)]
        if items:
            item = rng.choice(items)
            cover = item["cover"]
            q = rng.random()
            if q < 0.5 and cover.get("rule") == "solve":
                cover["value"] = rng.choice(["0", "1", "-1", "2", "1/2"] + [x for x in names
                                                                          if x != cover["parameter"]][:1])
            elif q < 0.7:
                cover["rule"] = rng.choice(["solve", "definite-form", "definite", "binary-form", "univariate"])
            elif q < 0.85:
                item.pop("case", None)
                item.pop("cover", None)
                item["status"] = rng.choice(["no-zero", "outside-domain"])
            else:
                item["status"] = "no-zero"
                item.pop("case", None)
    elif r < 0.78:  # the system changed: one formula replaced, the hash recomputed
        leaves = _formula_leaves(spec)
        if leaves:
            path = rng.choice(leaves)
            _set(spec, path, entry(rng, names))
            d["system"] = dict(d["system"], **{k: _render(v) for k, v in spec.items()
                                              if k in d["system"] and k not in ("name", "n", "p", "m")})
    elif r < 0.88:  # an entry pair changed
        keys_ = [k for k, v in b["entries"].items() if v]
        if keys_:
            key = rng.choice(keys_)
            M = b["entries"][key]
            rr, cc = rng.randrange(len(M)), rng.randrange(len(M[0]))
            M[rr][cc] = [rng.choice(["0", "1", "-1"] + bn[:1]), M[rr][cc][1]]
    else:  # a witness changed
        lb = b["lower_bound"]
        lb["determinant"] = rng.choice(["1", "-1", "2"] + bn[:1])
    if rng.random() < 0.3:
        d["complete"] = bodies[0]["complete"] if rng.random() < 0.5 else not d["complete"]
    rehash(d)
    return d, spec


# ---------------------------------------------------------------- the run

def run(seed, systems, mutants, *, log=print, layers=0.4):
    """Fuzz; returns the counters (a dict).  ``systems`` random specs certified and probed; ``mutants`` forged
    certificates derived from them, each accepted one judged by the oracle."""
    rng = random.Random(seed)
    counts = collections.Counter()
    pool = []
    bad = []
    start = time.time()
    for _ in range(systems):
        layer = rng.random() < layers
        spec, data = build(rng, layer)
        kind = "layer" if layer else "family"
        if data is None:
            counts[f"{kind}: refused by a limit"] += 1
            continue
        counts[f"{kind}: certified"] += 1
        counts["complete" if data["complete"] else "incomplete"] += 1
        for body in data["bodies"]:
            for item in body["factors"]["list"] + (body["factors"].get("coefficient_factors") or []):
                rule = (item.get("cover") or {}).get("rule")
                counts[f"factor {item['status']}" + (f" by {rule}" if rule else "")] += 1
        out = judge(data, Oracle(spec), rng, honest=True)
        counts[f"honest {out.status}"] += 1
        if out.status != "ok":
            bad.append((out.status, kind, json.dumps(_render(spec)), out.detail))
        pool.append((spec, data))
    for _ in range(mutants if pool else 0):
        spec, data = rng.choice(pool)
        forged, fspec = mutate(rng, data, spec)
        counts["mutants"] += 1
        try:
            res = check_data(forged)
        except BaseException as exc:  # noqa: BLE001 - a raise out of the checker is what this harness looks for
            counts["TRACEBACK"] += 1
            bad.append(("traceback", "mutant", json.dumps(forged)[:2000], f"{type(exc).__name__}: {exc}"[:200]))
            continue
        if res.message.startswith("undecided: malformed certificate, read by no obligation"):
            counts["TRACEBACK"] += 1
            bad.append(("traceback", "mutant", json.dumps(forged)[:2000], res.message[:200]))
            continue
        counts[{0: "mutant verified", 1: "mutant rejected", 2: "mutant undecided"}[res.code]] += 1
        if res.code != 0:
            continue
        out = judge(forged, Oracle(fspec), rng, honest=False)
        counts["true acceptance" if out.status == "ok" else f"FALSE ACCEPTANCE ({out.status})"] += 1
        if out.status != "ok":
            bad.append((out.status, "mutant", json.dumps(forged)[:2000], out.detail))
    counts["seconds"] = round(time.time() - start, 1)
    for status, kind, what, detail in bad[:10]:
        log(f"{status} ({kind}): {detail}\n  {what[:600]}")
    return counts, bad


def _shard(job):
    seed, shard, systems, mutants = job
    return run(seed if shard is None else f"{seed}:{shard}", systems, mutants, log=lambda *a: None)


def run_sharded(seed, systems, mutants, shards, workers=1):
    """``shards`` independent runs (shard ``i`` seeded by ``"seed:i"``; one shard is :func:`run` with ``seed``), each
    with its share of the systems and mutants, on ``workers`` processes: the counts depend on the shards only."""
    share = lambda total, i: total // shards + (i < total % shards)  # noqa: E731
    jobs = [(seed, None if shards == 1 else i, share(systems, i), share(mutants, i)) for i in range(shards)]
    if workers > 1:
        pool = multiprocessing.get_context("fork").Pool(min(workers, shards), maxtasksperchild=1)
        results = pool.map(_shard, jobs, chunksize=1)
        pool.close()
        pool.join()
    else:
        results = [_shard(job) for job in jobs]
    counts, bad = collections.Counter(), []
    for part, more in results:
        counts.update({k: v for k, v in part.items() if k != "seconds"})
        bad += more
    return counts, bad


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--systems", type=int, default=200, help="random families and layers to certify and probe")
    ap.add_argument("--mutants", type=int, default=1000, help="forged certificates to check and judge")
    ap.add_argument("--shards", type=int, default=1, help="independent runs the work is split into (seeds 'SEED:i')")
    ap.add_argument("--workers", type=int, default=1, help="processes running the shards")
    args = ap.parse_args(argv)
    start = time.time()
    if args.shards == 1 and args.workers == 1:
        counts, bad = run(args.seed, args.systems, args.mutants)
        counts.pop("seconds", None)
    else:
        counts, bad = run_sharded(args.seed, args.systems, args.mutants, args.shards, args.workers)
        for status, kind, what, detail in bad[:10]:
            print(f"{status} ({kind}): {detail}\n  {what[:600]}")
    took = time.time() - start
    for key in sorted(counts):
        print(f"{key:40s} {counts[key]}")
    print("failures:", len(bad))
    false = sum(v for k, v in counts.items() if k.startswith("FALSE ACCEPTANCE"))
    print(f"parametric: {counts['mutants']} mutants (seed {args.seed}, {args.shards} shards, {args.workers} workers; "
          f"{counts['family: certified'] + counts['layer: certified']} certificates probed): "
          f"{counts['mutant rejected']} rejected, {counts['mutant undecided']} undecided, "
          f"{counts['true acceptance']} accepted and confirmed; FALSE ACCEPTANCES {false}, "
          f"tracebacks {counts['TRACEBACK']}; {took:.0f} s")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
