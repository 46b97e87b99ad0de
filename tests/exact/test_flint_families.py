"""Families on FLINT: the same bodies and bytes as the SymPy reference; the checker's accelerator gives the same verdicts."""

import json
from fractions import Fraction
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symssm import certify
from symssm.checker import check_data
from symssm.checker import polynomials as P
from symssm.exact.parametric import family_head_count
from symssm.errors import InputError
from symssm.sources.parametric import PARAMETRIC_FAMILIES, parametric_family, parametric_ssm


def _fields(bodies):
    return [(b.substitution, b.entries, b.denominator, b.head_count, b.lags, b.positions, b.determinant, b.dimension,
             b.coefficients, b.constant, b.factors, b.complete, b.holds_for, tuple(b.system.parameters))
            for b in bodies]


def _builtins():
    for name, (_, default, largest) in sorted(PARAMETRIC_FAMILIES.items()):
        for N in range(1 if largest > 2 else 2, largest + 1):
            if name in ("rotation-symbolic", "jordan-symbolic") and N != 2:
                continue
            yield f"{name}-N{N}", parametric_family(name, N=N)
    yield "generic-p2-m2", parametric_family("generic-symbolic", N=2, p=2, m=2)


def _rank_one_inputs(N, seed):
    """A random family whose two input columns are equal: generically k = 2 < pm, so coefficient identities."""
    rng = random.Random(seed)
    params = ("a", "b", "c")
    A = [[f"{rng.randint(-2, 2)}*{rng.choice(params)} + {rng.randint(-3, 3)}" if rng.random() < 0.4
          else str(rng.randint(-2, 2)) for _ in range(N)] for _ in range(N)]
    B = [[x, x] for x in (rng.randint(-2, 2) for _ in range(N))]
    C = [[rng.randint(-2, 2) for _ in range(N)] for _ in range(2)]
    return parametric_ssm(A, B, C, parameters=list(params), name=f"rank-one-{N}-{seed}")


def _rational_entries(seed):
    rng = random.Random(seed)
    A = [["a", f"1/(a + {rng.randint(1, 3)})"], [f"{rng.randint(-2, 2)}", "b/(a - b)"]]
    return parametric_ssm(A, [["1"], ["1"]], [["1", "0"], ["0", "1"]], parameters=["a", "b"], name=f"rat-{seed}")


# n = 2, 3 and 8 take 17 s, 18 s and 36 s (SymPy's engine); they run with the long checks, n = 1 in every run
@pytest.mark.parametrize("n", [1] + [pytest.param(n, marks=pytest.mark.long) for n in (2, 3, 8)])
def test_flint_and_sympy_engines_give_the_same_bodies(n):
    systems = list(_builtins()) + [(f"rank-one-{N}", _rank_one_inputs(N, N)) for N in (3, 4, 5)]
    systems += [(f"rat-{s}", _rational_entries(s)) for s in range(3)]
    for label, system in systems:
        ref = family_head_count(system, n, engine="sympy")
        fast = family_head_count(system, n, engine="flint")
        assert _fields(fast) == _fields(ref), (label, n)


def test_certificate_bytes_do_not_depend_on_the_engine(monkeypatch):
    from symssm.exact import parametric

    for system in (parametric_family("diagonal-symbolic", N=3), _rank_one_inputs(4, 1), _rational_entries(0)):
        fast = json.dumps(certify(system, 8).data, sort_keys=True)
        original = parametric.family_head_count
        monkeypatch.setattr("symssm.certificate.parametric.family_head_count",
                            lambda s, n, **kw: original(s, n, engine="sympy", **kw))
        ref = json.dumps(certify(system, 8).data, sort_keys=True)
        monkeypatch.undo()
        assert fast == ref


def test_unknown_engine_is_refused():
    with pytest.raises(InputError, match="engine"):
        family_head_count(parametric_family("jordan-symbolic"), 4, engine="maple")


def _verdicts(data):
    return check_data(data).code, check_data(data).message


def test_checker_accelerator_gives_the_same_verdicts(monkeypatch):
    assert P._flint is not None  # python-flint is installed where the suite runs
    datas = [certify(s, 8).data for s in (parametric_family("diagonal-symbolic", N=4), _rank_one_inputs(6, 2),
                                          parametric_family("hippo-legt-step", N=4))]
    tampered = []
    for d in datas:
        t = json.loads(json.dumps(d))
        t["bodies"][0]["lower_bound"]["determinant"] += " + 1"
        tampered.append(t)
        t = json.loads(json.dumps(d))
        if not t["bodies"][0]["upper_bound"]["dimension"]:
            t["bodies"][0]["upper_bound"]["coefficients"][0]["q"] = "2*" + t["bodies"][0]["upper_bound"]["coefficients"][0]["q"]
            tampered.append(t)
    fast = [_verdicts(d) for d in datas + tampered]
    monkeypatch.setattr(P, "_flint", None)
    pure = [_verdicts(d) for d in datas + tampered]
    assert fast == pure
    assert [code for code, _ in fast[:len(datas)]] == [0] * len(datas)
    assert all(code == 1 for code, _ in fast[len(datas):])


def test_accelerated_products_count_the_same_work(monkeypatch):
    x = P.parse_polynomial("a^3 + 2*a*b - 7/3*b^2 + c + 1", ["a", "b", "c"])
    y = P.parse_polynomial("a^2 - b*c + 5*c^4 - 2 + a*b*c", ["a", "b", "c"])
    results = []
    for flint in (P._flint, None):
        monkeypatch.setattr(P, "_flint", flint)
        P.reset_work()
        prod = P.mul(P.mul(x, y), P.mul(y, x))
        quo = P.divide_exact(prod, P.mul(x, x))
        results.append((prod, quo, P._WORK.used))
    assert results[0] == results[1] and results[0][1] == P.mul(y, y)


def test_accelerated_matrix_products_count_the_same_work(monkeypatch):
    """``dot`` and ``matmul`` (operands converted to FLINT once) give the pure loops' values and work."""
    names = ["a", "b", "c"]
    texts = ["a^3 + 2*a*b - 7/3*b^2 + c + 1", "0", "a^2 - b*c + 5*c^4 - 2 + a*b*c", "3", "b - c", "a*b*c + 1/2"]
    polys = [P.parse_polynomial(t, names) for t in texts]
    X = [polys[:3], polys[3:]]
    Y = [[polys[0], polys[5]], [polys[2], polys[1]], [polys[4], polys[3]]]
    results = []
    for flint in (P._flint, None):
        monkeypatch.setattr(P, "_flint", flint)
        P.reset_work()
        M = P.matmul(X, Y)
        d = P.dot(zip(polys, reversed(polys)))
        big = P.dot([(P.mul(polys[0], polys[2]), polys[2]), (polys[0], polys[0])])  # 150 term pairs: FLINT's
        results.append((M, d, big, P._WORK.used))
    assert results[0] == results[1]
    M, d, big, _ = results[1]
    assert big == P.add(P.mul(P.mul(polys[0], polys[2]), polys[2]), P.mul(polys[0], polys[0]))
    assert M[1][0] == P.add(P.add(P.mul(polys[3], polys[0]), P.mul(polys[4], polys[2])), P.mul(polys[5], polys[4]))
    twice = P.add(P.mul(polys[0], polys[5]), P.mul(polys[2], polys[3]))
    assert d == P.add(twice, twice)  # polys[1] is zero: its two products drop out


_names = ["a", "b", "c"]
_monomial = st.tuples(*[st.integers(0, 5)] * 3)
_coeff = st.fractions(min_value=-50, max_value=50, max_denominator=12).filter(lambda q: q != 0)


@settings(max_examples=200)
@given(st.dictionaries(_monomial, _coeff, max_size=8))
def test_canonical_texts_parse_as_the_grammar_reads_them(poly):
    """The one-pass reader of canonical texts agrees with the general formula parser."""
    from sympy import QQ
    from sympy.polys.rings import ring

    R, *_ = ring("a,b,c", QQ)
    text = __import__("symssm.formats.expressions", fromlist=["polynomial_text"]).polynomial_text(
        R.from_dict({m: QQ(c.numerator, c.denominator) for m, c in poly.items()}) if poly else R.zero)
    fast = P.parse_polynomial(text, _names)
    n, d = P.parse_pair(text, _names, limit=P.MAX_POLY_CHARS)
    assert P.is_const(d)
    general = P.scale(n, 1 / P.constant_value(d))
    assert fast == general == {m: c for m, c in poly.items()}


@pytest.mark.parametrize("text", ["a^1", "a^0", "a^10001", "a*a", "0*a", "1/0*a", "a + a", "2*x", " a", "a^02"])
def test_texts_off_the_canonical_form_go_to_the_grammar(text):
    try:
        fast = P._canonical(text, _names)
    except Exception as exc:  # noqa: BLE001
        pytest.fail(f"the canonical reader raised {exc!r}")
    assert fast is None or text == "a^02"
    try:
        expected = P.parse_polynomial(text, _names)
    except P.FormulaError:
        expected = "error"
    assert expected != {} or text == "0*a"


@settings(max_examples=200)
@given(st.dictionaries(_monomial, _coeff, max_size=8))
def test_flint_prints_the_canonical_text(poly):
    """The generator's texts come from FLINT's printer; it must be symssm's canonical form."""
    import flint
    from sympy import QQ
    from sympy.polys.rings import ring

    from symssm.exact.flintfamily import poly_text
    from symssm.formats.expressions import polynomial_text

    R, *_ = ring("a,b,c", QQ)
    ctx = flint.fmpq_mpoly_ctx.get(("a", "b", "c"), "lex")
    ref = polynomial_text(R.from_dict({m: QQ(c.numerator, c.denominator) for m, c in poly.items()}) if poly else R.zero)
    fl = ctx.from_dict({m: flint.fmpq(c.numerator, c.denominator) for m, c in poly.items()})
    assert poly_text(fl, ["a", "b", "c"]) == ref


def _naive_product(a, b):
    out = {}
    for m1, c1 in a.items():
        for m2, c2 in b.items():
            mon = tuple(x + y for x, y in zip(m1, m2))
            out[mon] = out.get(mon, 0) + c1 * c2
    return {mon: c for mon, c in out.items() if c}


@settings(max_examples=200)
@given(st.dictionaries(_monomial, _coeff, min_size=1, max_size=12), st.dictionaries(_monomial, _coeff, min_size=1,
                                                                                     max_size=12))
def test_pure_products_on_packed_integers_are_exact(a, b):
    """The pure checker multiplies on packed monomials and integer coefficients: the schoolbook product, exactly."""
    old = P._flint
    try:
        P._flint = None
        P.reset_work()
        assert P.mul(a, b) == _naive_product(a, b)
        assert P.mul(a, P.scale(a, -1)) == P.scale(_naive_product(a, a), -1)
        high = {(64, 64, 64): Fraction(1, 3), (0, 0, 0): Fraction(-2), (64, 0, 1): Fraction(5), (1, 64, 0): Fraction(7)}
        assert P.mul(high, high) == _naive_product(high, high)  # 16 pairs, exponents to 128: no carry between fields
    finally:
        P._flint = old
