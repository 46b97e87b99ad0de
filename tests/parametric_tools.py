"""Points on the cases of parametric certificates (both kinds), for oracle tests: lift a body's point to the root.

A body is reached from its parent by a link: the parent's factor (or a solved coefficient's factor) and
its cover, ``x = value / denominator`` or ``x = y = 0``; a certificate of the first format has the link
in the case's ``substitution`` (``parameter``, ``value``).  Lifting solves the links up the first path.
"""

from fractions import Fraction

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
