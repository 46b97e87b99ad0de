"""Points on the cases of parametric certificates (both kinds), for oracle tests: lift a body's point to the root.

A body is reached from its parent by a link: the parent's factor (or a solved coefficient's factor) and
its cover, ``x = value / denominator`` or ``x = y = 0``; a certificate of the first format has the link
in the case's ``substitution`` (``parameter``, ``value``).  Lifting solves the links up the first path.
"""

from fractions import Fraction

import sympy

from symssm.checker import polynomials as P


def primary_link(bodies, i):
    """``(parent index, rule, data)`` of body ``i``'s first link: ``("solve", x, value, den)`` or ``("zero", vars)``."""
    sub = bodies[i]["substitution"]
    if "parameter" in sub:
        return sub["parent"], ("solve", sub["parameter"], sub["value"], None)
    parent = bodies[sub["parent"]]
    if "factor" in sub:
        item = parent["factors"]["list"][sub["factor"]]
    else:
        item = parent["factors"]["coefficient_factors"][sub["coefficient_factor"]]
    cover = item["cover"]
    if cover["rule"] == "solve":
        return sub["parent"], ("solve", cover["parameter"], cover["value"], cover.get("denominator"))
    return sub["parent"], ("zero", list(cover["variables"]))


def _value(text, names, point):
    return P.evaluate(P.parse_polynomial(text, names), [point[x] for x in names])


def lift(bodies, i, point):
    """A point of body ``i``'s parameters extended to the root's along the first path, or None where a solution's
    denominator vanishes on the way."""
    point = dict(point)
    while bodies[i]["substitution"] is not None:
        names = bodies[i]["parameters"]
        parent, link = primary_link(bodies, i)
        if link[0] == "zero":
            for x in link[1]:
                point[x] = Fraction(0)
        else:
            _, x, value, den = link
            d = Fraction(1) if den is None else _value(den, names, point)
            if d == 0:
                return None
            point[x] = _value(value, names, point) / d
        i = parent
    return point


def factor_points(cert, draw):
    """Points on every factor of every body that is of degree 1 in some parameter, and on every case (lifted)."""
    bodies = cert["bodies"]
    out = []
    for i, b in enumerate(bodies):
        names = b["parameters"]
        if i:
            out.append(lift(bodies, i, draw(names)))
        items = b["factors"]["list"] + (b["factors"].get("coefficient_factors") or [])
        for f in items:
            poly = P.parse_polynomial(f["polynomial"], names)
            for index, x in enumerate(names):
                if max((mon[index] for mon in poly), default=0) != 1:
                    continue
                a = {mon[:index] + (0,) + mon[index + 1:]: c for mon, c in poly.items() if mon[index] == 1}
                rest = [y for y in names if y != x]
                point = draw(rest)
                coords = [point.get(y, Fraction(0)) for y in names]
                av = P.evaluate(a, coords)
                if av == 0:
                    continue
                b_ = {mon: c for mon, c in poly.items() if mon[index] == 0}
                point[x] = -P.evaluate(b_, coords) / av
                out.append(lift(bodies, i, point))
                break
    return [p for p in out if p is not None]


# ---------------------------------------------------------------- the covering layers and their oracle
# (tests/test_covering.py and fuzz/fuzz_covering.py; nothing here needs python-flint)

TOKENS = ["u1", "v1", "u2", "v2", "u3", "v3"]
I2 = [[1, 0], [0, 1]]
LINEAR_ATTENTION = {"kind": "linear-attention", "name": "two heads on three 2-d tokens", "parameters": TOKENS,
                    "X": [["u1", "v1"], ["u2", "v2"], ["u3", "v3"]],
                    "heads": [{"Q": I2, "K": I2, "V": I2}, {"Q": [[0, 1], [-1, 0]], "K": I2, "V": [[1, 0], [0, -1]]}]}
SWAPPED = {**LINEAR_ATTENTION, "name": "a swapping second head",
           "heads": [{"Q": I2, "K": I2, "V": I2}, {"Q": [[0, 1], [1, 0]], "K": I2, "V": [[0, 1], [1, 0]]}]}


def operator_layer(name, params, w11, w21):
    return {"kind": "operator", "name": name, "n": 2, "p": 1, "m": 2, "parameters": params,
            "blocks": [{"i": 1, "j": 1, "W": [w11]}, {"i": 2, "j": 1, "W": [w21]}]}


CONE = operator_layer("cone", ["x", "y", "z"], ["x", "y"], ["y", "z"])
SQUARES = operator_layer("sum of squares", ["x", "y"], ["x", "-y"], ["y", "x"])
NO_ROOT = operator_layer("no rational zero", ["x", "y"], ["x", "2*y"], ["y", "x"])
LAYERS = {"linear-attention": LINEAR_ATTENTION, "swapped": SWAPPED, "cone": CONE, "squares": SQUARES,
          "no-root": NO_ROOT}


def layer_oracle(name, point):
    """The interaction rank at a rational point, from the layer's definition with SymPy (no symssm code)."""
    v = {x: sympy.Rational(q.numerator, q.denominator) for x, q in point.items()}
    if name in ("linear-attention", "swapped"):
        spec = LAYERS[name]
        X = [sympy.Matrix([v[f"u{t}"], v[f"v{t}"]]) for t in (1, 2, 3)]
        heads = [(sympy.Matrix(h["Q"]), sympy.Matrix(h["K"]), sympy.Matrix(h["V"])) for h in spec["heads"]]
        blocks = [sum(((Q * X[i]).dot(K * X[j]) * V for Q, K, V in heads), sympy.zeros(2, 2))
                  for i in range(3) for j in range(i + 1)]
    else:
        x, y = v["x"], v["y"]
        blocks = {"cone": [[x, y], [y, v.get("z")]], "squares": [[x, -y], [y, x]],
                  "no-root": [[x, 2 * y], [y, x]]}[name]
        blocks = [sympy.Matrix([row]) for row in blocks]
    return sympy.Matrix([list(b) for b in blocks]).rank()
