"""The linear-recurrence layer kinds (symssm/sources/recurrent.py): known blocks, the token-by-token references,
the head-count laws, certificates the checker verifies and rejects when corrupted, and the readers' refusals."""

import copy
import json
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings, HealthCheck
from hypothesis import strategies as st

from symssm import certify
from symssm.checker.core import check_data
from symssm.checker.interaction import layer_spec_hash
from symssm.errors import InputError
from symssm.exact.interaction import interaction_rank, operator_blocks
from symssm.numeric.interaction import float_blocks, numeric_interaction_rank
from symssm.sources import layer_kinds
from symssm.sources.layers import layer_from_data, layer_json

from recurrent_references import run

KINDS = [row.name for row in layer_kinds.RECURRENT]
F = Fraction


def blocks(spec):
    return dict(operator_blocks(layer_from_data(spec)))


def scalar_blocks(spec):
    return {ij: W[0][0] for ij, W in blocks(spec).items()}


# ---------------------------------------------------------------- known answers, by hand

def test_retnet_one_head_by_hand():
    spec = {"kind": "retnet", "V": [[1]], "heads": [{"q": [[1], [1], [2]], "k": [[1], [2], [1]], "gamma": "1/2"}]}
    # c_ij = gamma^(i-j) q_i k_j
    assert scalar_blocks(spec) == {(1, 1): 1, (2, 1): F(1, 2), (2, 2): 2, (3, 1): F(1, 2), (3, 2): 2, (3, 3): 2}
    assert interaction_rank(layer_from_data(spec)) == 1


def test_gla_head_certifies_one_and_two_with_its_output_gate():
    head = {"q": [[1], [1], [2]], "k": [[1], [2], [1]], "alpha": [["1/2"], ["1/2"], ["1/3"]]}
    plain = {"kind": "gla", "V": [[1, 0], [0, 1]], "heads": [head]}
    gated = dict(plain, gate=[[1, 2], [3, 1], [1, 1]])
    W = blocks(plain)
    # c_31 = q_3 alpha_3 alpha_2 k_1 = 2 (1/3)(1/2) 1 = 1/3, on both channels (V = I)
    assert W[(3, 1)] == ((F(1, 3), 0), (0, F(1, 3)))
    assert W[(2, 2)] == ((2, 0), (0, 2))
    assert certify(layer_from_data(plain))["interaction_rank"] == 1
    cert = certify(layer_from_data(gated))
    assert cert["interaction_rank"] == 2 and cert.check().verified
    assert blocks(gated)[(2, 1)] == ((F(3, 2), 0), (0, F(1, 2)))  # diag(g_2) (q_2 alpha_2 k_1) I


def test_mamba2_ssd_head_is_rank_one_with_dt_and_skip():
    spec = {"kind": "mamba2-ssd", "V": [[1, 0], [0, 1]], "heads": [
        {"a": ["1/2", "1/3", "1/4"], "dt": [1, 2, "1/2"], "B": [[1, 0], [0, 1], [1, 1]], "C": [[1, 1], [2, 0], [0, 1]],
         "D": 3}]}
    W = blocks(spec)
    # c_ij = (a_i ... a_{j+1}) dt_j (C_i . B_j); c_ii adds D
    assert W[(3, 1)] == ((0, 0), (0, 0))  # a_3 a_2 dt_1 (C_3 . B_1) = 0
    assert W[(3, 2)] == ((F(1, 2), 0), (0, F(1, 2)))  # a_3 dt_2 (C_3 . B_2) = 1/4 * 2 * 1
    assert W[(1, 1)] == ((4, 0), (0, 4))  # dt_1 (C_1 . B_1) + D = 1 + 3
    assert interaction_rank(layer_from_data(spec)) == 1


def test_delta_rule_by_hand():
    head = {"q": [[1], [1], [1]], "k": [[1], [1], [2]], "beta": ["1/2", "1/2", "1/4"]}
    # M_t = alpha_t (1 - beta_t k_t^2); c_ij = q_i M_i ... M_{j+1} beta_j k_j; beta_3 k_3^2 = 1 erases the memory
    assert scalar_blocks({"kind": "deltanet", "V": [[1]], "heads": [head]}) == {
        (1, 1): F(1, 2), (2, 1): F(1, 4), (2, 2): F(1, 2), (3, 1): 0, (3, 2): 0, (3, 3): F(1, 2)}
    gated = dict(head, k=[[1], [1], [1]], alpha=[1, "1/3", 2])
    # c_31 = q_3 alpha_3 (1 - beta_3) alpha_2 (1 - beta_2) beta_1 k_1 = 2 (3/4) (1/3) (1/2) (1/2)
    assert scalar_blocks({"kind": "gated-deltanet", "V": [[1]], "heads": [gated]})[(3, 1)] == F(1, 8)


def test_kda_decays_each_key_channel_before_its_delta_rule():
    head = {"q": [[1, 0], [1, 1]], "k": [[1, 0], [1, 1]], "beta": ["1/2", "1/2"], "alpha": [[1, 1], ["1/2", "1/3"]]}
    # c_21 = q_2^T (I - beta_2 k_2 k_2^T) diag(alpha_2) beta_1 k_1: diag(alpha_2) (1/2, 0) = (1/4, 0), less
    # beta_2 k_2 (k_2 . (1/4, 0)) = (1/8, 1/8), is (1/8, -1/8), and q_2 = (1, 1) reads 0; c_22 = beta_2 q_2 . k_2 = 1
    assert scalar_blocks({"kind": "kda", "V": [[1]], "heads": [head]}) == {(1, 1): F(1, 2), (2, 1): 0, (2, 2): 1}


def test_rwkv6_reads_the_previous_state_and_its_bonus():
    head = {"r": [[1], [2], [3]], "k": [[1], [1], [1]], "w": [["1/2"], ["1/3"], ["1/5"]], "u": ["7"]}
    # c_ij = r_i w_{i-1} ... w_{j+1} k_j (no decay of token i), c_ii = r_i u k_i
    assert scalar_blocks({"kind": "rwkv6", "V": [[1]], "heads": [head]}) == {
        (1, 1): 7, (2, 1): 2, (2, 2): 14, (3, 1): 1, (3, 2): 3, (3, 3): 21}


def test_rwkv7_generalised_delta_rule_and_bonus_by_hand():
    head = {"r": [[1], [1]], "k": [[2], [1]], "w": [["1/2"], ["1/2"]], "a": [[1], [-1]], "b": [[0], ["1/4"]],
            "rk": ["3"]}
    # T_t = w_t + a_t b_t; c_21 = k_1 T_2 r_2 = 2 (1/2 - 1/4); bonus r_i rk k_i after the (absent) norm
    assert scalar_blocks({"kind": "rwkv7", "V": [[1]], "heads": [head]}) == {
        (1, 1): 2 + 6, (2, 1): F(1, 2), (2, 2): 1 + 3}


def test_mlstm_gates_and_divisor_by_hand():
    head = {"q": [[1], [2]], "k": [[1], [1]], "i": [2, 3], "f": ["1/2", "1/3"], "den": [1, 4]}
    # c_ij = (f_i ... f_{j+1}) i_j (q_i k_j) / den_i
    assert scalar_blocks({"kind": "mlstm", "V": [[1]], "heads": [head]}) == {
        (1, 1): 2, (2, 1): F(1, 3) * 2 * 2 / 4, (2, 2): F(3 * 2, 4)}


def test_norm_after_the_gate_and_centring():
    head = {"q": [[1], [1]], "k": [[1], [1]], "gamma": "1/2"}
    spec = {"kind": "retnet", "V": [[1, 0], [0, 1]], "heads": [head], "gate": [[1, 3], [1, 3]],
            "norm": {"scale": [[2], [2]], "center": True, "after_gate": True}}
    # y = N (G o): centring removes the mean of (o_1, 3 o_2): W_11 = 2 * [[1/2, -3/2], [-1/2, 3/2]]
    assert blocks(spec)[(1, 1)] == ((1, -3), (-1, 3))
    assert interaction_rank(layer_from_data(spec)) == 1


# ---------------------------------------------------------------- the references, token by token

def _rat(rng, lo=-3, hi=3, den=(1, 2, 3)):
    return str(F(rng.randint(lo, hi), rng.choice(den)))


def _pos(rng):
    return str(F(rng.randint(1, 4), rng.choice((2, 3, 5))))


def random_spec(kind, rng, *, n=4, H=2, dk=2, dv=2, m=2, wrappers=True):
    rows = lambda f=_rat: [[f(rng) for _ in range(dk)] for _ in range(n)]  # noqa: E731
    toks = lambda f=_pos: [f(rng) for _ in range(n)]  # noqa: E731
    vec = lambda: [_rat(rng) for _ in range(dk)]  # noqa: E731
    make = {
        "mamba2-ssd": lambda: {"a": toks(), "dt": toks(), "B": rows(), "C": rows(), "D": _rat(rng)},
        "retnet": lambda: {"q": rows(), "k": rows(), "gamma": _pos(rng)},
        "gla": lambda: {"q": rows(), "k": rows(), "alpha": rows(_pos)},
        "deltanet": lambda: {"q": rows(), "k": rows(), "beta": toks()},
        "gated-deltanet": lambda: {"q": rows(), "k": rows(), "beta": toks(), "alpha": toks()},
        "kda": lambda: {"q": rows(), "k": rows(), "beta": toks(), "alpha": rows(_pos)},
        "rwkv6": lambda: {"r": rows(), "k": rows(), "w": rows(_pos), "u": vec()},
        "rwkv7": lambda: {"r": rows(), "k": rows(), "w": rows(_pos), "a": rows(), "b": rows(), "rk": vec()},
        "mlstm": lambda: {"q": rows(), "k": rows(), "i": toks(), "f": toks(), "den": toks()},
    }[kind]
    Dv = H * dv
    spec = {"kind": kind, "V": [[_rat(rng) for _ in range(m)] for _ in range(Dv)], "heads": [make() for _ in range(H)]}
    if wrappers:
        spec["out"] = [[_rat(rng) for _ in range(Dv)] for _ in range(3)]
        spec["gate"] = [[_pos(rng) for _ in range(Dv)] for _ in range(n)]
        spec["norm"] = {"scale": [[_pos(rng), _pos(rng)] for _ in range(n)], "weight": [[_rat(rng) for _ in range(Dv)]],
                        "center": rng.random() < 0.5, "after_gate": rng.random() < 0.5}
        spec["shift"] = [[_pos(rng) for _ in range(m)] for _ in range(n)]
        spec["conv"] = [[_rat(rng) for _ in range(Dv)] for _ in range(3)]
        spec["value_gate"] = [[_pos(rng) for _ in range(Dv)] for _ in range(n)]
    return spec


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("wrappers", [False, True])
def test_blocks_reproduce_the_recurrence_token_by_token(kind, wrappers):
    rng = random.Random(hash((kind, wrappers)) % 1000)
    spec = random_spec(kind, rng, wrappers=wrappers)
    layer = layer_from_data(spec)
    W = dict(operator_blocks(layer))
    R = float_blocks(layer)
    for trial in range(2):
        X = [[F(rng.randint(-4, 4), rng.choice((1, 2))) for _ in range(layer.m)] for _ in range(layer.n)]
        y = run(spec, X)
        for i in range(1, layer.n + 1):
            mine = [sum((W[(i, j)][r][c] * X[j - 1][c] for j in range(1, i + 1) for c in range(layer.m)), F(0))
                    for r in range(layer.p)]
            assert mine == y[i - 1], (kind, i)
    exact = np.array([[float(x) for row in W_ for x in row] for _, W_ in sorted(W.items())])
    assert np.allclose(R, exact, rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------- laws

@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(KINDS), st.integers(1, 3), st.integers(0, 10**6))
def test_without_wrappers_the_rank_is_at_most_the_heads(kind, H, seed):
    """W_ij = sum_h c^h_ij E_h V (E_h: head h's channels): every block lies in span{E_h V}, so r <= H."""
    rng = random.Random(seed)
    layer = layer_from_data(random_spec(kind, rng, n=3, H=H, dk=2, dv=2, m=3, wrappers=False))
    assert interaction_rank(layer) <= H


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(KINDS), st.integers(1, 2), st.integers(0, 10**6))
def test_an_output_gate_keeps_the_rank_within_the_value_channels(kind, H, seed):
    """With a gate (diagonal per token), W_ij = sum_h c^h_ij G_i E_h V lies in span{e_c e_c^T V}: r <= H d_v."""
    rng = random.Random(seed)
    spec = random_spec(kind, rng, n=3, H=H, dk=2, dv=2, m=3, wrappers=False)
    spec["gate"] = [[_pos(rng) for _ in range(2 * H)] for _ in range(3)]
    assert interaction_rank(layer_from_data(spec)) <= 2 * H


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 5), st.integers(0, 10**6))
def test_retnet_single_head_has_rank_at_most_one(n, seed):
    rng = random.Random(seed)
    spec = random_spec("retnet", rng, n=n, H=1, dk=3, dv=3, m=2, wrappers=False)
    assert interaction_rank(layer_from_data(spec)) <= 1


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(KINDS), st.integers(1, 3), st.integers(0, 10**6))
def test_a_short_convolution_multiplies_the_bound_by_its_taps(kind, L, seed):
    """With L taps, W_ij = sum_h sum_t c^h_(i,j+t) E_h diag(c_t) V: r <= H L."""
    rng = random.Random(seed)
    spec = random_spec(kind, rng, n=4, H=1, dk=2, dv=2, m=3, wrappers=False)
    spec["conv"] = [[_rat(rng) for _ in range(2)] for _ in range(L)]
    assert interaction_rank(layer_from_data(spec)) <= L


@pytest.mark.parametrize("kind", KINDS)
def test_the_numeric_rank_matches_the_exact_one(kind):
    spec = random_spec(kind, random.Random(7), n=4, H=2, dk=2, dv=1, m=3, wrappers=False)
    layer = layer_from_data(spec)
    assert numeric_interaction_rank(layer).numerical_rank == interaction_rank(layer)


# ---------------------------------------------------------------- certificates and the checker

@pytest.mark.parametrize("kind", KINDS)
def test_certificates_verify_and_the_spec_hash_matches(kind):
    spec = random_spec(kind, random.Random(11), n=3, H=2, dk=2, dv=1, m=2, wrappers=kind in ("gla", "rwkv7"))
    layer = layer_from_data(spec)
    cert = certify(layer)
    assert cert.check().verified and cert["interaction_rank"] == interaction_rank(layer)
    assert layer_spec_hash(json.loads(json.dumps(spec))) == cert["input_sha256"] == layer.sha256
    system = {k: v for k, v in layer_json(layer).items() if k not in ("n", "p", "m")}
    assert layer_from_data(system) == layer  # the certificate's system reads back as the same layer


def test_a_corrupted_layer_is_rejected():
    spec = random_spec("gated-deltanet", random.Random(3), n=3, H=1, dk=2, dv=2, m=2, wrappers=True)
    data = dict(certify(layer_from_data(spec)).data)
    assert check_data(data).verified
    bad = copy.deepcopy(data)
    bad["system"]["heads"][0]["beta"][1] = "7"  # the blocks change: the minor or an identity fails
    bad["input_sha256"] = None
    assert not check_data(bad).verified
    bad = copy.deepcopy(data)
    bad["system"]["norm"]["center"] = "yes"
    assert not check_data(bad).verified
    bad = copy.deepcopy(data)
    del bad["system"]["heads"][0]["alpha"]
    assert not check_data(bad).verified
    mlstm = random_spec("mlstm", random.Random(3), n=3, H=1, dk=2, dv=1, m=1, wrappers=False)
    data = dict(certify(layer_from_data(mlstm)).data)
    bad = copy.deepcopy(data)
    bad["system"]["heads"][0]["den"][1] = "0"
    result = check_data(bad)
    assert not result.verified and "den" in result.message


# ---------------------------------------------------------------- refusals

@pytest.mark.parametrize("spec, message", [
    ({"kind": "gla", "V": [[1]], "heads": [{"q": [[1]], "k": [[1]]}]}, "needs the field 'alpha'"),
    ({"kind": "gla", "V": [[1]], "heads": [{"q": [[1]], "k": [[1]], "alpha": [[1]], "beta": [1]}]}, "unknown field"),
    ({"kind": "retnet", "V": [[1], [1], [1]], "heads": [{"q": [[1]], "k": [[1]], "gamma": 1}] * 2}, "equally"),
    ({"kind": "retnet", "V": [[1]], "heads": [{"q": [[1], [2]], "k": [[1]], "gamma": 1}]}, "must be 2x1"),
    ({"kind": "mlstm", "V": [[1]], "heads": [{"q": [[1]], "k": [[1]], "i": [1, 2], "f": [1]}]}, "tokens"),
    ({"kind": "retnet", "V": [[1]], "heads": [{"q": [[1]], "k": [[1]], "gamma": 0.5}]}, "float"),
    ({"kind": "retnet", "V": [[1]], "gate": [[1, 2]], "heads": [{"q": [[1]], "k": [[1]], "gamma": 1}]}, "gate"),
    ({"kind": "mlstm", "V": [[1]], "heads": [{"q": [[1]], "k": [[1]], "i": [1], "f": [1], "den": [0]}]}, "nonzero"),
])
def test_bad_specs_are_refused_in_one_sentence(spec, message):
    with pytest.raises(InputError, match=message):
        layer_from_data(spec)


# ---------------------------------------------------------------- the selective-SSM form and theorems for every input

@pytest.mark.parametrize("kind", KINDS)
def test_the_selective_form_has_the_same_blocks(kind):
    from symssm.sources.recurrent_family import selective_family_spec

    spec = random_spec(kind, random.Random(5), n=3, H=2, dk=2, dv=1, m=2, wrappers=True)
    spec["conv"] = spec["conv"][:2]
    form = layer_from_data(selective_family_spec(spec))
    assert form.kind == "selective-ssm" and dict(operator_blocks(form)) == blocks(spec)


def test_a_gla_head_with_its_gate_for_every_gate_and_decay():
    from symssm.sources.parametric_layers import parametric_layer_from_data

    spec = {"kind": "gla", "name": "GLA head, gated", "parameters": ["a2", "g1", "g2"], "V": [[1, 0], [0, 1]],
            "gate": [[1, "g1"], [1, "g2"]], "heads": [{"q": [[1], [1]], "k": [[1], [1]], "alpha": [["1/2"], ["a2"]]}]}
    layer = parametric_layer_from_data(spec)
    assert layer.kind == "selective-ssm" and layer.name == "GLA head, gated (as a selective SSM)"
    cert = certify(layer)
    assert cert["interaction_rank"] == 2 and cert["complete"] and cert.check().verified
    assert cert.at(a2=3, g1=2, g2=2)["interaction_rank"] == 1  # equal gates: one value map
    assert cert.at(a2=0, g1=2, g2=5)["interaction_rank"] == 2
    plain = dict(spec, parameters=["a2"], gate=None)
    del plain["gate"]
    assert certify(parametric_layer_from_data(plain))["interaction_rank"] == 1


def test_retnet_and_mamba2_heads_are_single_head_for_every_decay():
    from symssm.sources.parametric_layers import parametric_layer_from_data

    retnet = {"kind": "retnet", "parameters": ["gamma", "q2"], "V": [[1]],
              "heads": [{"q": [[1], ["q2"], [1]], "k": [[1], [1], [2]], "gamma": "gamma"}]}
    cert = certify(parametric_layer_from_data(retnet))
    assert cert["interaction_rank"] == 1 and cert.check().verified
    ssd = {"kind": "mamba2-ssd", "parameters": ["a2", "a3"], "V": [[1, 0], [0, 1]],
           "heads": [{"a": [1, "a2", "a3"], "B": [[1], [2], [1]], "C": [[1], [1], [3]]}]}
    cert = certify(parametric_layer_from_data(ssd))
    assert cert["interaction_rank"] == 1 and cert["complete"]


def test_the_framework_rows_of_the_recurrent_layers_are_their_theorems_at_the_seeded_point():
    from symssm.catalog import _framework_layers, _recurrent_rows
    from symssm.sources.parametric_layers import parametric_layer_from_data

    rows = {layer.name: (label, bound, layer, every) for label, bound, layer, every in _framework_layers(0, 4, 2)}
    expected = {"gla-head": 1, "gla-head-gated": 2, "retnet-H2": 2, "gated-deltanet-conv": 2, "rwkv6-shift": 2}
    for name, spec, what, point in _recurrent_rows(random.Random(0), 4, 2):
        label, bound, layer, (words, every) = rows[name]
        assert layer.kind == spec["kind"] and words == what and every["parameters"] == list(point)
        assert interaction_rank(layer) == expected[name], name
        form = parametric_layer_from_data(every)  # the row's layer for every value, as a selective SSM
        at = form.at({x: F(v) for x, v in _seeded(layer, every).items()})
        assert dict(operator_blocks(at)) == dict(operator_blocks(layer)), name
        assert set(_seeded(layer, every)) == set(point)


def _seeded(layer, every):
    """The parameter values of a framework row: read back from the row's layer where the spec names them."""
    found = {}

    def walk(spec, value):
        if isinstance(spec, str) and spec in every["parameters"]:
            found[spec] = value
        elif isinstance(spec, list):
            for s, v in zip(spec, value):
                walk(s, v)
        elif isinstance(spec, dict):
            for key, s in spec.items():
                if key in value:
                    walk(s, value[key])

    system = layer_json(layer)
    walk({k: v for k, v in every.items() if k not in ("kind", "name", "parameters")}, system)
    return found


def test_the_theorems_of_every_kind_compile_without_overfull_boxes(tmp_path):
    from latex_tools import TWO_COLUMN, colliding_words, compile_all, require_tools

    require_tools()
    fragments = []
    for kind in KINDS:
        spec = random_spec(kind, random.Random(1), n=3, H=1, dk=2, dv=2, m=2, wrappers=True)
        spec["conv"] = spec["conv"][:2]
        fragments.append(certify(layer_from_data(spec)).to_latex())
    boxes, text = compile_all(tmp_path, fragments, TWO_COLUMN)
    assert not [b for b in boxes if b > 1.0] and not colliding_words(tmp_path / "doc.pdf")
    assert "linear along the value path" in text and "RWKV-7" in text
