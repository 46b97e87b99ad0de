"""Every statement exactly as strong as its certificate: claim objects, the head-count theorem as the paper
means it (the interaction operator; the map only where necessity holds), and the two-head counterexample.

The counterexample (docs/theory.md, "Operator and map"): with input-dependent coefficients, the value maps
``V_1 = I`` and ``V_2 = [[0, -1], [1, 0]]`` compute every causal linear map on ``Q^2`` tokens, in particular the
map of a certified ``k = 3`` system; over ``Q(i)``, ``V_2 = [[0, -3], [1, 0]]`` does the same for a complex one.
"""

import glob
import json
import os
import random
import re
from fractions import Fraction

import pytest

from symssm import certify as _certify
from symssm.formats.gaussian import Gaussian
from symssm.render.claims import claim, every_input_tex, every_input_text, map_necessity
from symssm.render.latex import render, sentence_macros
from symssm.render.summary import head_count_summary
from symssm.sources.complex_system import complex_ssm
from symssm.sources.reader import source_from_data

from paths import ROOT

CATALOGUE = os.path.join(ROOT, "certificates")


def certify(source, *args, **kwargs):
    """``symssm.certify`` of a system, or of spec data (read by the one spec reader)."""
    if isinstance(source, dict):
        source = source_from_data(source).system
    return _certify(source, *args, **kwargs)


def fragment(data):
    """The LaTeX of verified certificate data (checked by the independent checker first)."""
    return render(data)


def _catalogue():
    out = []
    for path in sorted(glob.glob(os.path.join(CATALOGUE, "*.json"))):
        with open(path) as f:
            out.append((os.path.basename(path), json.load(f)))
    return out


# ----------------------------------------------------------------------------- exact arithmetic of the example


def _mat_vec(M, x):
    return [sum((a * b for a, b in zip(row, x)), type(x[0])(0)) for row in M]


def _mat_mul(P, Q):
    return [[sum((P[i][t] * Q[t][j] for t in range(len(Q))), type(P[0][0])(0)) for j in range(len(Q[0]))]
            for i in range(len(P))]


def _lags(A, B, C, n):
    out, AkB = [], B
    for _ in range(n):
        out.append(_mat_mul(C, AkB))
        AkB = _mat_mul(A, AkB)
    return out


def _two_heads(X, Y, V2, zero):
    """The coefficients alpha[i][j] = (a_1, a_2) of the two-head model (V_1 = I, V_2) reproducing outputs Y on
    input X: all weight on the first nonzero token, ``[x, V_2 x] c = y_i`` solved exactly."""
    n = len(X)
    alpha = [[(zero, zero)] * n for _ in range(n)]
    for i in range(n):
        j = next((j for j in range(i + 1) if any(x != zero for x in X[j])), None)
        if j is None:
            assert all(y == zero for y in Y[i])  # a causal linear map sends zero tokens to zero
            continue
        x, v = X[j], _mat_vec(V2, X[j])
        det = x[0] * v[1] - v[0] * x[1]
        assert det != zero
        c1 = (Y[i][0] * v[1] - v[0] * Y[i][1]) / det
        c2 = (x[0] * Y[i][1] - Y[i][0] * x[1]) / det
        alpha[i][j] = (c1, c2)
    return alpha


def _model_outputs(X, alpha, V2, zero):
    n, one = len(X), type(zero)(1)
    I = [[one, zero], [zero, one]]
    out = []
    for i in range(n):
        y = [zero, zero]
        for j in range(n):  # every j: the model is not told to be causal, its coefficients are zero for j > i
            a1, a2 = alpha[i][j]
            W = [[a1 * I[r][c] + a2 * V2[r][c] for c in range(2)] for r in range(2)]
            y = [a + b for a, b in zip(y, _mat_vec(W, X[j]))]
        out.append(y)
    return out


def _ssm_outputs(L, X, zero):
    return [[sum((_mat_vec(L[i - j], X[j])[r] for j in range(i + 1)), zero) for r in range(2)]
            for i in range(len(X))]


def _random_inputs(rng, n, make):
    X = [[make(rng), make(rng)] for _ in range(n)]
    if n > 2:
        X[0] = [make(rng) * 0, make(rng) * 0]  # a zero first token: the weight moves to the next one
        X[1][1] = X[1][1] * 0                   # a token with a zero entry
    return X


def _rational(rng):
    return Fraction(rng.randint(-9, 9), rng.randint(1, 7))


def _gaussian(rng):
    return Gaussian(_rational(rng), _rational(rng))


def test_two_heads_with_input_dependent_coefficients_compute_the_map_of_a_k3_system():
    with open(os.path.join(CATALOGUE, "diagonal-N6-p2-m2.json")) as f:
        data = json.load(f)
    s = data["system"]
    assert data["head_count"] == 3 and (s["p"], s["m"]) == (2, 2)
    A, B, C = ([[Fraction(x) for x in row] for row in s[key]] for key in ("A", "B", "C"))
    V2 = [[Fraction(0), Fraction(-1)], [Fraction(1), Fraction(0)]]
    rng = random.Random(5)
    L = _lags(A, B, C, 9)
    for n in (1, 2, 3, 5, 9):
        for _ in range(3):
            X = _random_inputs(rng, n, _rational)
            Y = _ssm_outputs(L, X, Fraction(0))
            alpha = _two_heads(X, Y, V2, Fraction(0))
            assert _model_outputs(X, alpha, V2, Fraction(0)) == Y
    # so the certificate's fragment must not claim necessity for the map with input-dependent coefficients
    theorem = fragment(data).split("\\end{symssmtheorem}")[0]
    assert "is a map of the class with $H$ heads if and only if" not in theorem
    assert "represents the SSM on sequences of length $n$ if and only if $H \\ge 3$" in theorem
    assert "$W_{ij}(X) = L_{i-j}$ for every input $X$" in theorem
    assert "among models whose coefficients do not depend on the input" in theorem
    assert claim(data).map_necessity == "input-independent"


def test_over_gaussian_rationals_two_heads_compute_the_map_of_a_complex_system():
    half, third = Fraction(1, 2), Fraction(1, 3)
    A = [[Gaussian(-half, 1), 0, 0, 0], [0, Gaussian(-half, 2), 0, 0], [0, 0, Gaussian(-third, 3), 0],
         [0, 0, 0, Gaussian(-third, -1)]]
    B = [[1, 0], [0, 1], [1, 1], [1, 2]]
    C = [[1, 1, 1, 1], [1, Gaussian(0, 1), 2, -1]]
    cert = certify(complex_ssm(A, B, C, name="s4d-lin-like"))
    assert cert.data["head_count"] >= 3 and cert.data.get("field") == "Q(i)"
    g = lambda M: [[x if isinstance(x, Gaussian) else Gaussian(x) for x in row] for row in M]  # noqa: E731
    zero = Gaussian(0)
    V2 = g([[0, -3], [1, 0]])
    L = _lags(g(A), g(B), g(C), 6)
    rng = random.Random(7)
    for n in (1, 2, 4, 6):
        for _ in range(2):
            X = _random_inputs(rng, n, _gaussian)
            Y = _ssm_outputs(L, X, zero)
            alpha = _two_heads(X, Y, V2, zero)
            assert _model_outputs(X, alpha, V2, zero) == Y
    theorem = fragment(cert.data).split("\\end{symssmtheorem}")[0]
    assert "\\mathbb{Q}(\\mathrm{i})" in theorem and "a map can need fewer heads than its operator" in theorem


def test_with_p_1_the_lags_leave_the_span_of_fewer_value_maps_on_their_common_kernel():
    """The p = 1 argument on a certified k = 2 system: for any one row V, some lag is nonzero on ker V, so the
    input x_1 = x in ker V separates the SSM's map from every one-head model's."""
    cert = certify({"A": [["1/2", 0], [0, "-1/3"]], "B": [[1, 0], [0, 1]], "C": [[1, 2]], "name": "p1"}, 4)
    assert cert.data["head_count"] == 2 and claim(cert.data).map_necessity == "any"
    s = cert.data["system"]
    L = _lags(*([[Fraction(x) for x in row] for row in s[k]] for k in ("A", "B", "C")), 4)
    rng = random.Random(3)
    for _ in range(10):
        V = [_rational(rng), _rational(rng)]
        if V == [0, 0]:
            continue
        kernel = [-V[1], V[0]]  # V x = 0
        assert any(_mat_vec(Ld, kernel) != [0] for Ld in L)
    theorem = fragment(cert.data)
    assert "As $p = 1$, the same holds for the map itself" in theorem and "\\emph{The map.} As $p = 1$" in theorem


def test_map_necessity_only_where_it_holds():
    assert map_necessity(1, 1) == map_necessity(1, 4) == map_necessity(3, 1) == "any"
    assert map_necessity(2, 2) == map_necessity(3, 2) == "input-independent"


# ----------------------------------------------------------------------------- claims against their certificates


def _check_claim(data):
    c = claim(data)
    key = {"k(n)": "head_count", "r": "interaction_rank", "k_eps": "head_count"}.get(c.symbol)
    if key is not None:
        assert c.value == data[key]
    if "bodies" in data:
        values = {b[key] for b in data["bodies"]}
        assert set(c.cases) == values and c.at_most == max(values)
        # stated for every point only when every case has the value and nothing is left open
        assert c.everywhere == (values == {c.value} and bool(data["complete"]))
        assert (every_input_tex(c) == f"${c.value}$") == c.everywhere
        if not c.everywhere:
            assert "generically" in every_input_text(c) and "generically" in c.line()
    if c.map_necessity is not None:
        p, m = data["system"]["p"], data["system"]["m"]
        assert (c.map_necessity == "any") == (p == 1 or m == 1)
    assert c.to_json()["statement"] == c.line()
    return c


def test_every_catalogue_claim_is_as_strong_as_its_certificate():
    seen = set()
    for name, data in _catalogue():
        c = _check_claim(data)
        seen.add(c.kind)
        if c.symbol == "k(n)" and "bodies" not in data:
            text = fragment(data)
            theorem = text.split("\\end{symssmtheorem}")[0]
            p, m = data["system"]["p"], data["system"]["m"]
            assert "is a map of the class with $H$ heads if and only if" not in text, name
            assert "allowed to depend on the input" in theorem and "for every input $X$" in theorem, name
            if c.value:
                if p >= 2 and m >= 2:
                    assert "among models whose coefficients do not depend on the input" in theorem, name
                    assert "whatever its coefficients" not in text, name
                else:
                    assert f"As ${'m' if m == 1 else 'p'} = 1$, the same holds for the map itself" in theorem, name
            lines = head_count_summary(data)
            assert "interaction operator" in lines[0], name
            assert ("as well" in lines[1]) == (p == 1 or m == 1) or not c.value, name
            macro = dict(sentence_macros(data))["HeadCountSentence"]
            assert "interaction operator" in macro and (("and its map" in macro) == (p == 1 or m == 1)), name
    assert {"head-count", "gradient-highway", "parametric-head-count"} <= seen


@pytest.fixture(scope="module")
def framework_rows():
    from shared import framework_rows as rows

    return rows()


def test_a_table_cell_for_every_input_gives_the_generic_value_with_its_bound():
    from symssm.render.framework import framework_table
    from symssm.sources.parametric_layers import parametric_layer_from_data

    every = _certify(parametric_layer_from_data({
        "kind": "linear-attention", "name": "scalar tokens", "parameters": ["x1", "x2"], "X": [["x1"], ["x2"]],
        "heads": [{"Q": [[1]], "K": [[1]], "V": [[1]]}]})).data
    single = certify({"kind": "linear-attention", "name": "scalar tokens", "X": [[1], [2]],
                      "heads": [{"Q": [[1]], "K": [[1]], "V": [[1]]}]}).data
    c = _check_claim(every)
    assert (c.value, c.cases, c.everywhere) == (1, (0, 1), False)  # r = 0 at x1 = x2 = 0
    table = framework_table([(single, every)], seed=0, n=2, m=1)
    row = next(line for line in table.splitlines() if line.startswith("\\texttt") or " & $1$ & " in line)
    assert row.endswith("$\\le 1$, generically $1$ \\\\") and "$1$ \\\\" not in row.replace("generically $1$ \\\\", "")
    assert "at most $r$ at every input, and exactly $r$ off an exceptional set" in table
    assert every_input_text(c) == "at most 1 for every X, 1 generically"
    assert claim(every).line() == "r = 1 generically, 0 in special cases"


@pytest.mark.long  # every framework layer certified (about 20 s): with the long checks
def test_the_framework_table_never_prints_a_bare_value_a_case_contradicts(framework_rows):
    from symssm.render.framework import framework_table

    pairs = [(cert.data, every[1].data if every is not None and every[1] is not None else None)
             for _label, _bound, cert, every in framework_rows]
    table = framework_table(pairs, seed=0, n=6, m=2)
    for single, every in pairs:
        if every is None:
            continue
        c = _check_claim(every)
        values = {b["interaction_rank"] for b in every["bodies"]}
        label_row = next(line for line in table.splitlines() if line.endswith("\\\\") and
                         f"${single['interaction_rank']}$ & " in line and every_input_tex(c) in line)
        if len(values) > 1:  # linear attention: rank 0 at X = 0
            assert "generically" in label_row and f"\\le {max(values)}" in label_row
    assert "generically" in table and "a number alone is the rank at every input" in table
    linear = next(every for _s, every in pairs if every is not None and every["system"]["kind"] == "linear-attention")
    assert {b["interaction_rank"] for b in linear["bodies"]} >= {0, 2}
    assert claim(linear).line().startswith("r = 2 generically")


def test_zero_blocks_are_counted_among_all_blocks():
    from symssm.render.interaction import zero_blocks

    cert = certify({"kind": "operator", "name": "sparse", "n": 3, "p": 1, "m": 1,
                    "blocks": [{"i": 1, "j": 1, "W": [[1]]}, {"i": 2, "j": 1, "W": [[0]]},
                               {"i": 2, "j": 2, "W": [[2]]}, {"i": 3, "j": 3, "W": [[0]]}]})
    assert zero_blocks(cert.data) == [(2, 1), (3, 3)]
    assert "(2 zero blocks" in fragment(cert.data) or "2 zero" in fragment(cert.data)
    conv = certify({"kind": "convolution", "name": "taps", "n": 4, "kernel": [[[1]], [[0]], [[3]]]})
    zero = zero_blocks(conv.data)
    assert zero == [(i, j) for i in range(1, 5) for j in range(1, i + 1) if i - j in (1, 3)]
    assert re.search(rf"\({len(zero)} zero", fragment(conv.data))


def test_the_crossover_is_where_the_certified_bounds_cross():
    from symssm.render.summary import gradient_summary

    for name, data in _catalogue():
        if data["kind"] != "gradient-highway" or data["crossover_distance"] is None:
            continue
        text = fragment(data)
        assert "the least one where the certified bounds cross" in text
        assert "not claimed to be the least distance where attention carries more gradient" in text
        assert "is the least distance where the two bounds cross" not in text
        assert any("the certified bounds cross at distance" in line for line in gradient_summary(data))
        sentence = dict(sentence_macros(data))["CrossoverSentence"]
        assert sentence.startswith("the certified bounds cross at distance")
        break
    else:  # pragma: no cover - the catalogue has gradient certificates with a crossover
        pytest.fail("no gradient certificate with a crossover in the catalogue")


def test_the_eps_theorem_names_its_class_and_field():
    cert = certify({"A": [["1/2", 0], [0, "-1/3"]], "B": [[1], [1]], "C": [[1, 0], [0, 1]], "name": "e"}, 8,
                   tolerance="1/100")
    text = fragment(cert.data).split("\\end{symssmtheorem}")[0]
    assert "whose coefficients depend only on $i - j$ (not on the input)" in text
    assert "V_\\ell \\in \\mathbb{R}^{2\\times 1}" in text and "real coefficients" in text
    assert "$e_H$ is a real number, bracketed below by rationals" in text
    assert "relative to the SSM's map" not in text


def test_fresh_certificates_of_every_kind_state_their_claims(tmp_path):
    from symssm import gradient_certificate
    from symssm.certificate import kinds
    from symssm.sources.checkpoints import CheckpointLayer
    from symssm.sources.parametric_layers import parametric_layer_from_data
    from symssm.sources.trained import trained_layer

    from test_trained import s4d_tensors

    system = {"A": [["1/2", 0, 0], [0, "-1/3", 0], [0, 0, "1/4"]], "B": [[1, 0], [0, 1], [1, 1]],
              "C": [[1, 0, 1], [0, 1, 1]], "name": "three"}
    made = {
        "head-count": certify(system, 6).data,
        "Q(i)": certify(complex_ssm([[Gaussian(0, Fraction(1, 2)), 0], [0, Fraction(1, 3)]], [[1, 0], [0, 1]],
                                    [[1, 0], [0, 1]], name="c")).data,
        "gradient-highway": gradient_certificate(source_from_data(system).system, 50).data,
        "interaction-rank": certify({"kind": "convolution", "name": "taps", "n": 4,
                                     "kernel": [[[1, 0]], [[0, 1]], [[1, 1]]]}).data,
        "parametric-head-count": certify({"name": "t", "parameters": ["t"], "A": [["t", 0], [0, "1/2"]],
                                          "B": [[1], [1]], "C": [[1, 0], [0, 1]]}, 4).data,
        "parametric-interaction-rank": _certify(parametric_layer_from_data({
            "kind": "linear-attention", "name": "scalar tokens", "parameters": ["x1", "x2"], "X": [["x1"], ["x2"]],
            "heads": [{"Q": [[1]], "K": [[1]], "V": [[1]]}]})).data,
        "approximate-head-count": certify(system, 8, tolerance="1/100").data,
        "trained-head-count": _certify(trained_layer(CheckpointLayer("l", "s4d", s4d_tensors(6, 2, 2, shared=True)),
                                                     "x.npz"), 16, tolerance="1/10").data,
    }
    rows = {kinds.of(d) for d in made.values()}
    assert rows == set(kinds.KINDS)  # every kind of the table
    for name, data in made.items():
        c = _check_claim(data)
        assert c.line() and fragment(data)
        if c.symbol == "k(n)" and "bodies" not in data:
            assert c.map_necessity == map_necessity(data["system"]["p"], data["system"]["m"])
        else:
            assert c.map_necessity is None  # only the interaction operator is claimed
    family = claim(made["parametric-head-count"])
    assert (family.value, family.parameters) == (2, "generic") and 1 in family.cases
    assert family.line() == "k(n) = 2 generically, 1 in special cases"
    assert claim(made["approximate-head-count"]).field == "R"
    assert claim(made["Q(i)"]).field == "Q(i)"
    assert claim(made["gradient-highway"]).line().startswith("decay rate r = ")


def test_the_catalogue_fragments_say_no_more_than_their_certificates():
    """The committed fragments (certificates/*.tex), as a referee reads them: no map-level "only if" where the
    coefficients may depend on the input and p, m >= 2, the operator reading stated, crossings of bounds as such."""
    for name, data in _catalogue():
        with open(os.path.join(CATALOGUE, name[:-len(".json")] + ".tex")) as f:
            text = f.read()
        theorem = text.split("\\end{symssmtheorem}")[0]
        c = claim(data)
        assert "is a map of the class with $H$ heads if and only if" not in text, name
        assert "is the least distance where the two bounds cross" not in text, name
        if c.symbol == "k(n)":
            assert "$W_{ij}(X) = L_{i-j}$ for every input $X$" in theorem, name
        if c.symbol == "k(n)" and "bodies" not in data and c.value:
            assert ("a map can need fewer heads than its operator" in theorem) == (c.map_necessity != "any"), name
        if data["kind"] == "gradient-highway" and data["crossover_distance"] is not None:
            assert "the least one where the certified bounds cross" in theorem, name
