"""Mutation fuzzing of the checker: it may accept a mutant only if the mutant's claims are still true.

Every mutant the checker accepts is re-judged here by an independent oracle (the generator's exact
engine, or exact arithmetic written in this test), so a false acceptance fails the test.
SYMSSM_FUZZ_EXAMPLES sets the number of mutants (default 2000; docs/robustness.md records a longer run).
"""

import copy
import os
from fractions import Fraction

import mpmath
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from symssm import certify, lags, ssm
from symssm.checker import check_data
from symssm.sources.examples import example
from symssm.api import gradient_certificate
from symssm.exact.headcount import find_witness
from symssm.sources.system import system_sha256

EXAMPLES = int(os.environ.get("SYMSSM_FUZZ_EXAMPLES", "2000"))

BASES = [
    certify(example("two-rotations").system, 8, method="exact").data,
    certify(example("two-rotations").system, 8, method="modular").data,
    certify(example("shift5-two-outputs").system, 3, method="exact").data,
    certify(example("shift-with-feedthrough").system, 5, method="modular").data,
    certify(example("zero-output").system, 4).data,
    gradient_certificate(ssm([["1/2", 3], [0, "1/3"]], [[1, 0], [0, 1]], [[1, 1]]), 200).data,
]


def paths(obj, prefix=()):
    out = [prefix]
    if isinstance(obj, dict):
        for k in sorted(obj):
            out += paths(obj[k], prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += paths(v, prefix + (i,))
    return out


def get(obj, path):
    for p in path:
        obj = obj[p]
    return obj


values = st.one_of(
    st.integers(-5, 10**6), st.integers(-(10**30), 10**30), st.none(), st.booleans(), st.text(max_size=6),
    st.fractions(min_value=-20, max_value=20, max_denominator=12).map(
        lambda f: str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"),
    st.lists(st.integers(0, 4), max_size=4), st.builds(dict), st.builds(lambda: [[]]), st.just("0"), st.just(1.5),
)


def perturb(v, draw):
    if isinstance(v, bool):
        return not v
    if isinstance(v, int):
        return v + draw(st.sampled_from([-1, 1, 2, -v - 1 if v else 3, v * 2 + 1]))
    if isinstance(v, str):
        try:
            f = Fraction(v)
        except (ValueError, ZeroDivisionError):
            return v + "x"
        g = f + draw(st.sampled_from([Fraction(1), Fraction(-1), Fraction(1, 2), f, -2 * f]))
        return str(g.numerator) if g.denominator == 1 else f"{g.numerator}/{g.denominator}"
    if isinstance(v, list) and len(v) > 1:
        return list(reversed(v))
    return draw(values)


@st.composite
def mutants(draw):
    data = copy.deepcopy(draw(st.sampled_from(BASES)))
    count = draw(st.integers(1, 3))
    for _ in range(count):
        path = draw(st.sampled_from(paths(data)))
        if not path:
            continue
        parent, key = get(data, path[:-1]), path[-1]
        op = draw(st.sampled_from(["replace", "drop", "duplicate", "retype", "perturb", "perturb"]))
        if op == "replace":
            parent[key] = draw(values)
        elif op == "drop":
            del parent[key]
        elif op == "duplicate":
            if isinstance(parent, list):
                parent.insert(key, copy.deepcopy(parent[key]))
            else:
                parent[key + "_copy"] = copy.deepcopy(parent[key])
        elif op == "retype":
            v = parent[key]
            parent[key] = str(v) if isinstance(v, int) else ([v] if not isinstance(v, list) else {"0": v})
        else:
            parent[key] = perturb(parent[key], draw)
    return data


def claims_are_true(d):
    """Independent oracle for an accepted certificate."""
    s = d["system"]
    system = ssm(s["A"], s["B"], s["C"], s["D"], name=s["name"])
    assert system_sha256(system) == d["input_sha256"]
    if d["kind"] == "head-count":
        truth = find_witness(system, method="exact")
        pr = truth.profile()
        n = d["n"]
        return (d["head_count"] == truth.head_count(n) and d["profile"]["values"] == list(pr.values)
                and d["profile"]["eventual"] == pr.eventual and [d["holds_for"]["from"], d["holds_for"]["to"]]
                == list(pr.holds_for(n)) and d["heads"]["H"] == truth.head_count(n))
    r, K2, c = Fraction(d["decay_rate"]), Fraction(d["decay_constant_squared"]), Fraction(d["attention_lower_bound"])
    ok = all(sum(x * x for row in L for x in row) <= K2 * r ** (2 * k) for k, L in enumerate(lags(system, 60)) if k)
    mpmath.mp.dps = 50
    e = mpmath.exp(mpmath.mpf(Fraction(d["attention"]["beta"]).numerator) / Fraction(d["attention"]["beta"]).denominator)
    n = d["n"]
    bound = e / (e + n - 1) if s["m"] >= 2 else e / (2 * e + n - 2)
    ok = ok and mpmath.mpf(c.numerator) / c.denominator <= bound
    delta = d["crossover_distance"]
    if delta is not None:
        ok = ok and K2 * r ** (2 * delta) < c * c
    return ok


def test_bases_verify():
    for base in BASES:
        assert check_data(base).verified


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutants())
def test_no_false_acceptance(mutant):
    result = check_data(mutant)
    assert result.code in (0, 1, 2)
    assert not result.message.startswith("structure:"), f"an input shape no obligation anticipated: {result.message}"
    event(["accepted", "rejected", "unreadable"][result.code])
    if result.verified:
        assert claims_are_true(mutant), f"FALSE ACCEPTANCE: {result.message}"
