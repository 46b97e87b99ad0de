"""Interaction ranks for every input: layers with parameters, their certificates, the checker and ``--at``."""

import copy
import json
import random
import subprocess
import sys
from fractions import Fraction

import pytest
from hypothesis import given, settings, HealthCheck
from hypothesis import strategies as st

from symssm import certify
from symssm.checker import polynomials as P
from symssm.checker.core import check_data
from symssm.errors import InputError
from symssm.exact.interaction import interaction_rank
from symssm.sources.parametric_layers import parametric_layer_from_data

from latex_tools import ONE_COLUMN, TWO_COLUMN, colliding_words, compile_all, require_tools
from parametric_tools import factor_points


def layer(data):
    return parametric_layer_from_data(data)


def _gate(a, N):
    return [[a if r == c else "0" for c in range(N)] for r in range(N)]


MAMBA2 = {"kind": "selective-ssm", "name": "Mamba-2 scalar gate", "parameters": ["a1", "a2", "a3", "a4"],
          "A": [_gate(f"a{i}", 2) for i in range(1, 5)], "B": [[["1"], ["2"]]] * 4, "C": [[["1", "-1"]]] * 4}
SCALAR_TOKENS = {"kind": "linear-attention", "name": "scalar tokens", "parameters": ["x1", "x2", "x3"],
                 "X": [["x1"], ["x2"], ["x3"]], "heads": [{"Q": [[2]], "K": [[1]], "V": [[3]]}]}
CONV = {"kind": "convolution", "name": "a tap in t", "n": 3, "parameters": ["t"],
        "kernel": [[["1", "1"]], [["t", "1"]]]}
SELECTIVE_B = {"kind": "selective-ssm", "name": "token-dependent B", "parameters": ["b1", "b2", "b3"],
               "A": [[["1/2", "0"], ["0", "1/3"]]] * 3, "B": [[["b1"], ["1"]], [["b2"], ["1"]], [["b3"], ["1"]]],
               "C": [[["1", "0"], ["0", "1"]]] * 3}


# ---------------------------------------------------------------- known answers

def test_mamba2_scalar_gate_has_rank_one_for_every_gate():
    cert = certify(layer(MAMBA2))
    assert cert["interaction_rank"] == 1 and cert["complete"] and len(cert["bodies"]) == 1
    assert cert["bodies"][0]["factors"]["list"] == []  # no exceptional gate at all
    assert cert.at(a1=0, a2=0, a3=0, a4=0)["interaction_rank"] == 1  # W_ii = CB = -1 for every gate
    assert cert.at(a1="1/2", a2=7, a3=-3, a4=0)["interaction_rank"] == 1


def test_linear_attention_on_symbolic_tokens_finds_the_zero_input():
    cert = certify(layer(SCALAR_TOKENS))
    assert cert["interaction_rank"] == 1 and cert["complete"]  # r <= H = 1 everywhere
    assert cert.at(x1=0, x2=0, x3=0)["interaction_rank"] == 0
    assert cert.at(x1=0, x2=0, x3="1/5")["interaction_rank"] == 1
    assert cert.at(x1=2, x2=0, x3=0)["interaction_rank"] == 1
    root = cert["bodies"][0]["factors"]["list"]
    assert [(f["polynomial"], f["status"]) for f in root] == [("x1", "case")]


def test_linear_attention_with_two_heads_is_bounded_by_the_heads():
    tokens = [["x1", "y1"], ["x2", "y2"], ["x3", "y3"]]
    data = {"kind": "linear-attention", "parameters": ["x1", "y1", "x2", "y2", "x3", "y3"], "X": tokens,
            "heads": [{"Q": [[1, 0]], "K": [[1, 0]], "V": [[1, 0], [0, 0]]},
                      {"Q": [[0, 1]], "K": [[1, 1]], "V": [[0, 0], [0, 1]]}]}
    cert = certify(layer(data))
    assert cert["interaction_rank"] == 2
    for b in cert["bodies"]:
        assert b["interaction_rank"] <= 2
    at = cert.at(x1=0, y1=0, x2=0, y2=0, x3=0, y3=0)
    assert at["interaction_rank"] in (0, None)  # zero tokens: rank 0 where the certificate reaches it
    if at["interaction_rank"] is None:
        assert "does not cover" in at["reason"]


def test_convolution_drops_rank_exactly_where_the_taps_coincide():
    cert = certify(layer(CONV))
    assert cert["interaction_rank"] == 2 and cert["complete"]
    assert [(f["polynomial"], f["status"]) for f in cert["bodies"][0]["factors"]["list"]] == [("t - 1", "case")]
    assert cert.at(t=1)["interaction_rank"] == 1 and cert.at(t=1)["case"] == ["t - 1 = 0"]
    assert cert.at(t="1/2")["interaction_rank"] == 2 and cert.at(t=-1)["interaction_rank"] == 2


def test_selective_ssm_with_token_dependent_b_and_its_coincidences():
    cert = certify(layer(SELECTIVE_B))
    assert cert["interaction_rank"] == 2 and cert["complete"]
    assert cert.at(b1=0, b2=0, b3=0)["interaction_rank"] == 1  # every block a multiple of e_2
    assert cert.at(b1=1, b2=0, b3=0)["interaction_rank"] == 2
    assert cert.at(b1=0, b2=0, b3=5)["interaction_rank"] == 2


def test_undefined_points_and_bad_points():
    cert = certify(layer({"kind": "operator", "n": 2, "p": 1, "m": 1, "parameters": ["s"],
                          "blocks": [{"i": 1, "j": 1, "W": [["1/(s-2)"]]}, {"i": 2, "j": 1, "W": [["s"]]}]}))
    at = cert.at(s=2)
    assert at["interaction_rank"] is None and "not defined" in at["reason"]
    assert cert.at(s=0)["interaction_rank"] == 1
    with pytest.raises(InputError, match="missing s"):
        cert.at(t=1)
    with pytest.raises(InputError, match="s 'x' is not an integer, p/q or exact decimal"):
        cert.at(s="x")


# ---------------------------------------------------------------- --at equals an independent rank

_FORMULAS = ["0", "1", "-2", "1/2", "t", "u", "t + 1", "t - u", "2*t*u", "t^2", "1/(t + 2)", "u/(1 - t)",
             "t*u - 1", "(t + u)/3"]


@st.composite
def parametric_layers(draw, kind):
    names = ["t", "u"]
    pool = [f for f in _FORMULAS]
    entry = st.sampled_from(pool)
    mat = lambda r, c: [[draw(entry) for _ in range(c)] for _ in range(r)]
    p, m = draw(st.integers(1, 2)), draw(st.integers(1, 2))
    if kind == "selective-ssm":
        n, N = draw(st.integers(1, 3)), draw(st.integers(1, 2))
        data = {"A": [mat(N, N) for _ in range(n)], "B": [mat(N, m) for _ in range(n)],
                "C": [mat(p, N) for _ in range(n)]}
        if draw(st.booleans()):
            data["D"] = [mat(p, m) for _ in range(n)]
    elif kind == "convolution":
        data = {"n": draw(st.integers(1, 4)), "kernel": [mat(p, m) for _ in range(draw(st.integers(1, 3)))]}
    elif kind == "linear-attention":
        n, d = draw(st.integers(1, 3)), draw(st.integers(1, 2))
        data = {"X": mat(n, m), "heads": [{"Q": mat(d, m), "K": mat(d, m), "V": mat(p, m)}
                                          for _ in range(draw(st.integers(1, 2)))]}
    else:
        n = draw(st.integers(1, 3))
        pairs = draw(st.lists(st.tuples(st.integers(1, n), st.integers(1, n)), min_size=1, max_size=4, unique=True))
        data = {"n": n, "p": p, "m": m, "blocks": [{"i": i, "j": j, "W": mat(p, m)} for i, j in pairs]}
    return {"kind": kind, "parameters": names, **data}


def _points(cert, rng):
    """Random points; a point on every case; a point on every factor of degree 1 in a parameter (outside-domain,
    case or uncovered, and the factors of solved coefficients), in every body, the other parameters drawn and that
    one solved, lifted to the root along the first path."""
    draw = lambda names: {x: Fraction(rng.randint(-4, 4), rng.randint(1, 3)) for x in names}
    return [draw(cert["system"]["parameters"]) for _ in range(3)] + factor_points(cert, draw)


def _independent_rank(spec, point):
    try:
        concrete = layer(spec).at(point)
    except InputError:
        return None  # undefined there
    return interaction_rank(concrete)


@pytest.mark.parametrize("kind", ["selective-ssm", "convolution", "linear-attention", "operator"])
@settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_at_equals_an_independent_rank(kind, data):
    """40 layers of each kind (deterministic): ``at`` on random points and on the special points of every factor
    equals the rank of the concrete layer there, computed by the exact one-input code."""
    spec = data.draw(parametric_layers(kind))
    try:
        cert = certify(layer(spec))
    except InputError as exc:  # a layer undefined everywhere (a denominator vanishing identically) is refused
        assert "denominator" in str(exc) or "zero" in str(exc), exc
        return
    rng = random.Random(json.dumps(spec, sort_keys=True))
    for point in _points(cert, rng):
        answer = cert.at(**point)
        expected = _independent_rank(spec, point)
        if expected is None:
            assert answer["interaction_rank"] is None and "not defined" in answer["reason"], (spec, point)
        elif answer["interaction_rank"] is not None:
            assert answer["interaction_rank"] == expected, (spec, point, answer)
        else:
            assert "does not cover" in answer["reason"], (spec, point, answer)


# ---------------------------------------------------------------- tampering

def _corrupt(data, change):
    bad = copy.deepcopy(data)
    change(bad)
    return check_data(bad)


@pytest.fixture(scope="module")
def conv_cert():
    return certify(layer(CONV)).data


@pytest.mark.parametrize("change, obligation", [
    (lambda d: d.update(interaction_rank=3), "interaction_rank"),
    (lambda d: d.update(interaction_rank=1), "interaction_rank"),
    (lambda d: d["bodies"][0].update(interaction_rank=3), "bodies[0].interaction_rank"),
    (lambda d: d["bodies"][0].update(interaction_rank=1), "bodies[0].lower_bound"),
    (lambda d: d["bodies"][0]["factors"]["list"].pop(), "bodies[0].factors"),
    (lambda d: d["bodies"][1].update(complete=False), "bodies[1].complete"),
    (lambda d: d.update(complete=False), "complete"),
    (lambda d: d["bodies"][0]["entries"]["kernel[1]"][0].__setitem__(0, ["t + 1", "1"]),
     "bodies[0].entries.kernel[1][0][0]"),
    (lambda d: d["system"]["kernel"][1][0].__setitem__(0, "t + 1"), "input_sha256"),
    (lambda d: d["bodies"][0]["lower_bound"].update(determinant="t - 1"), "bodies[0].lower_bound.determinant"),
    (lambda d: d["bodies"][1]["upper_bound"]["coefficients"][0].update(q="2"), "bodies[1].upper_bound.coefficients"),
    (lambda d: d["bodies"][0]["upper_bound"].update(dimension=False), "bodies[0].upper_bound"),
    (lambda d: d["bodies"][0]["factors"]["list"][0]["cover"].update(value="2"), "bodies[0].factors.list[0].cover.value"),
    (lambda d: d["bodies"][1]["substitution"].update(factor=1), "bodies[1].substitution"),
    (lambda d: d["bodies"][0]["lower_bound"]["minor"][0].__setitem__(0, "2"), "bodies[0].lower_bound.minor[0][0]"),
])
def test_tampered_certificates_are_rejected_naming_the_obligation(conv_cert, change, obligation):
    assert check_data(conv_cert).verified
    result = _corrupt(conv_cert, change)
    assert result.code == 1 and result.message.startswith(obligation), result.message


def test_a_false_complete_on_an_incomplete_certificate_is_rejected():
    data = certify(layer({"kind": "linear-attention", "parameters": ["x", "y"], "X": [["x", "y"], ["y", "x"]],
                          "heads": [{"Q": [[1, 1]], "K": [[1, -1]], "V": [[1, 0]]}]})).data
    uncovered = [f for f in data["bodies"][0]["factors"]["list"] if f["status"] == "uncovered"]
    if not data["complete"]:
        assert uncovered or any(not b["complete"] for b in data["bodies"])
        result = _corrupt(data, lambda d: d.update(complete=True))
        assert result.code == 1 and result.message.startswith("complete")
    result = _corrupt(data, lambda d: d["bodies"][0].update(complete=not d["bodies"][0]["complete"]))
    assert result.code == 1 and result.message.startswith("bodies[0].complete")


def test_pure_checker_gives_the_same_verdicts(monkeypatch, conv_cert):
    sel = certify(layer(SELECTIVE_B)).data
    verdicts = []
    for flint in (P._flint, None):
        monkeypatch.setattr(P, "_flint", flint)
        verdicts.append([check_data(conv_cert).code, check_data(sel).code,
                         _corrupt(sel, lambda d: d.update(interaction_rank=1)).message])
    assert verdicts[0] == verdicts[1] and verdicts[0][:2] == [0, 0]


def test_same_bytes_twice():
    assert certify(layer(SELECTIVE_B)).to_json() == certify(layer(SELECTIVE_B)).to_json()


# ---------------------------------------------------------------- input validation

@pytest.mark.parametrize("spec, message", [
    ({**SCALAR_TOKENS, "kind": "softmax-attention"}, "softmax attention with parameters is not certified"),
    ({**CONV, "kernel": [[["1", "s"]]]}, "kernel[0][0][1]"),
    ({**CONV, "kernel": [[["1", "__import__('os')"]]]}, "kernel[0][0][1]"),
    ({**CONV, "n": 13}, "n"),
    ({**CONV, "extra": 1}, "unknown field 'extra'"),
    ({**SELECTIVE_B, "B": SELECTIVE_B["B"][:2]}, "one matrix per token"),
    ({**SCALAR_TOKENS, "parameters": ["x1", "x1"]}, "distinct"),
])
def test_bad_specs_are_refused_with_one_line(spec, message):
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace("[", r"\[")):
        layer(spec)


def test_cli_certify_check_at_and_latex(tmp_path):
    spec = tmp_path / "conv.json"
    spec.write_text(json.dumps(CONV))
    cli = [sys.executable, "-m", "symssm"]
    out = subprocess.run(cli + ["certify", str(spec)], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "r = 2 for every t where t - 1 is nonzero (the generic case)" in out.stdout
    cert = tmp_path / "conv.cert.json"
    out = subprocess.run(cli + ["check", str(cert), "--at", "t=1", "--json"], capture_output=True, text=True)
    answer = json.loads(out.stdout)
    assert out.returncode == 0 and answer["interaction_rank"] == 1 and answer["verdict"] == "verified"
    out = subprocess.run(cli + ["check", str(cert), "--at", "t=3"], capture_output=True, text=True)
    assert "at t = 3: r = 2 (the generic case; n = 3 tokens)" in out.stdout
    out = subprocess.run(cli + ["check", str(cert), "--spec", str(spec)], capture_output=True, text=True)
    assert out.returncode == 0
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**SCALAR_TOKENS, "kind": "softmax-attention"}))
    out = subprocess.run(cli + ["certify", str(bad)], capture_output=True, text=True, cwd=tmp_path)
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr


def test_latex_theorem_fits_two_columns_and_states_the_cases(tmp_path):
    require_tools()
    fragments = [certify(layer(spec)).to_latex() for spec in (CONV, SELECTIVE_B, SCALAR_TOKENS, MAMBA2)]
    assert "For every $t \\in \\mathbb{C}$ with $t - 1 \\neq 0$: $r = 2$." in fragments[0]
    assert "Where $t = 1$ and the layer is defined: $r = 1$." in fragments[0]
    assert "minor $\\left(\\begin{smallmatrix} 1 & 1 \\\\ t & 1 \\end{smallmatrix}\\right)$" in fragments[0]
    for host in (TWO_COLUMN, ONE_COLUMN):
        folder = tmp_path / ("two" if host is TWO_COLUMN else "one")
        folder.mkdir()
        boxes, text = compile_all(folder, fragments, host)
        assert all(b <= 1.0 for b in boxes), boxes
        assert not colliding_words(folder / "doc.pdf")
        assert "for every input" in text


def test_framework_table_has_a_column_for_all_inputs():
    from symssm.catalog import build_framework
    from symssm.sources.parametric_layers import layer_spec_fields

    rows = {label: (cert, every) for label, _, cert, every in build_framework(None, seed=0, n=4, m=2)}
    assert rows["Mamba-2 head (scalar gate)"][1][0] == "r = 1 for every value of the gates a_i (complete)"
    assert rows["feedforward"][1][0].startswith("same r for every X")
    assert rows["softmax attention, H = 2"][1][1] is None
    assert rows["selective SSM (bilinear, per-token steps)"][1][0].startswith("not certified (with the steps")
    for label, symbol in (("Mamba-2 head (scalar gate)", "a"), ("linear attention, H = 2", "x")):
        cert, (_, every) = rows[label]
        assert every.check().verified and every["interaction_rank"] == cert["interaction_rank"]
        # the theorem is about the row's own layer: at the row's input it is exactly that layer
        required, optional = layer_spec_fields(every["system"]["kind"])
        spec = {k: v for k, v in every["system"].items() if k in required | optional}
        system = cert["system"]
        if symbol == "a":
            point = {f"a{i}": Fraction(A[0][0]) for i, A in enumerate(system["A"], start=1)}
        else:
            point = {f"x{i}{j}": Fraction(v) for i, row in enumerate(system["X"], start=1)
                     for j, v in enumerate(row, start=1)}
        concrete = layer(spec).at(point)
        assert concrete.params == _concrete(cert).params
        assert every.at(**point)["interaction_rank"] in (cert["interaction_rank"], None)


def _concrete(cert):
    from symssm.sources.layers import layer_from_data

    data = {k: v for k, v in cert["system"].items() if k not in ("p", "m") or cert["system"]["kind"] == "operator"}
    if data["kind"] != "convolution" and data["kind"] != "operator":
        data.pop("n")
    if data.get("D", 0) is None:
        data.pop("D")
    return layer_from_data(data)
