"""Every field of a certificate of every kind, given a JSON value of the wrong type, is refused by an
obligation that names it: never through the checker's generic fall-through ("malformed certificate").

Deterministic and exhaustive over the fields of one small certificate per kind (the suite does not
depend on hypothesis finding the mutant). fuzz/ and tests/checker/test_fuzz_checker.py
explore random multi-field mutations.
"""

import copy
import os

import pytest

from paths import ROOT
from symssm.checker.core import check_data
from symssm.checker.reading import JsonDecimal, read_file

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(os.path.dirname(HERE), "fixtures")
CERTIFICATES = os.path.join(ROOT, "certificates")

#: JSON values of every type, plus a few of the right type but the wrong shape.
WRONG = [None, True, 0, -1, 2**70, "x", "", [], {}, [[]], JsonDecimal("1.5"), "1/2", [0], {"a": 1}]
DELETE = object()


def _paths(obj, prefix=()):
    out = [prefix]
    if isinstance(obj, dict):
        for k in obj:
            out += _paths(obj[k], prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, prefix + (i,))
    return out


def _mutants(data):
    for path in _paths(data)[1:]:
        for value in WRONG + [DELETE]:
            mutant = copy.deepcopy(data)
            parent = mutant
            for key in path[:-1]:
                parent = parent[key]
            if value is DELETE:
                del parent[path[-1]]
            else:
                parent[path[-1]] = copy.deepcopy(value)
            yield path, value, mutant


def _small_certificates():
    from symssm.api import certify
    from symssm.sources.system import ssm
    from symssm.catalog import build_framework
    from symssm.sources.complex_system import complex_ssm

    out = {
        "head-count": read_file(os.path.join(CERTIFICATES, "rotation-N2-p1-m1.json"), "c"),
        "head-count-modular": read_file(os.path.join(FIXTURES, "head_count", "two-rotations.modular.cert.json"), "c"),
        "gradient-highway": read_file(os.path.join(CERTIFICATES, "diagonal-N2-p1-m1.gradient.json"), "c"),
        "parametric-head-count": read_file(os.path.join(CERTIFICATES, "rotation-symbolic-N2-p2-m1.json"), "c"),
    }
    out["head-count-gaussian"] = copy.deepcopy(certify(complex_ssm([["1/2+1/3i", 0], [0, "-i"]], [[1, "2i"], [0, 1]],
                                                     [[1, 0], [0, 1]], name="c"), 6).data)
    out["head-count-feedthrough"] = copy.deepcopy(
        certify(ssm([[0, 0], [1, 0]], [[1], [0]], [[0, 1]], [[3]], name="s"), 5).data)
    out["approximate-head-count"] = copy.deepcopy(
        certify(ssm([["1/2", 0], [0, "-1/3"]], [[1], [1]], [[1, 0], [0, 1]], name="a"), 8, tolerance="1/100").data)
    # beyond the exact sum (a 1,000-digit denominator: 10 lags are summed), the rest bounded by its decay
    out["approximate-head-count tail"] = copy.deepcopy(certify(ssm([["3/1" + "0" * 999 + "7"]], [[1]], [[1]], name="t"),
                                                               10 ** 6, tolerance="1/100").data)
    from symssm.sources.parametric_layers import parametric_layer_from_data

    out["parametric-interaction-rank"] = copy.deepcopy(certify(parametric_layer_from_data({
        "kind": "convolution", "n": 2, "parameters": ["t"],
        "kernel": [[["1", "0"], ["0", "t"]], [["t", "0"], ["0", "(1+t)/(2-t)"]]]})).data)
    out["parametric-interaction-rank selective"] = copy.deepcopy(certify(parametric_layer_from_data({
        "kind": "selective-ssm", "parameters": ["a", "b"], "A": [[["a"]], [["1/2"]]], "B": [[["1"]], [["b"]]],
        "C": [[["1"], ["a"]], [["1"], ["1"]]], "D": [[["0"], ["1"]], [["b"], ["0"]]]})).data)
    out["parametric-interaction-rank attention"] = copy.deepcopy(certify(parametric_layer_from_data({
        "kind": "linear-attention", "parameters": ["x", "y"], "X": [["x", "1"], ["y", "x"]],
        "heads": [{"Q": [[1, 0]], "K": [[0, 1]], "V": [[1, 0]]}]})).data)
    out["parametric-interaction-rank operator"] = copy.deepcopy(certify(parametric_layer_from_data({
        "kind": "operator", "n": 2, "p": 1, "m": 1, "parameters": ["s"],
        "blocks": [{"i": 1, "j": 2, "W": [["s"]]}, {"i": 2, "j": 1, "W": [["1/s"]]}]})).data)
    import numpy as np

    from symssm.sources.checkpoints import CheckpointLayer
    from symssm.sources.trained import trained_layer

    f = lambda *v: np.array(v, np.float32)  # noqa: E731
    trained = {
        "s4d": {"kernel.log_dt": f(-1.0), "kernel.log_A_real": f([-0.5]), "kernel.A_imag": f([1.0]),
                "kernel.C": f([[0.5, -1.0]]), "D": f(0.25)},
        "s5": {"Lambda_re": f(-0.5), "Lambda_im": f(1.0), "log_step": f(-1.0), "B": f([[1.0, 0.5]]),
               "C": f([[0.5, -1.0]]), "D": f(0.25)},
        "lru": {"nu_log": f(-1.0), "theta_log": f(0.0), "gamma_log": f(-0.5), "B_re": f([1.0]), "B_im": f([0.5]),
                "C_re": f([0.5]), "C_im": f([-1.0])},
    }
    for kind, tensors in trained.items():
        out[f"trained-head-count {kind}"] = copy.deepcopy(certify(trained_layer(CheckpointLayer(
            "l", kind, tensors), "m.npz"), 4, tolerance="1/100").data)
    for label, _, cert, _ in build_framework(None, seed=0, n=3, m=1, every_input=False):
        out["interaction " + label] = copy.deepcopy(cert.data)
    return out


CERTS = _small_certificates()


@pytest.mark.parametrize("kind", sorted(CERTS))
def test_every_wrong_type_is_refused_by_a_named_obligation(kind):
    data = CERTS[kind]
    assert check_data(data).verified
    seen = 0
    for path, value, mutant in _mutants(data):
        result = check_data(mutant)
        seen += 1
        # a few replacements state a weaker claim that is still true (a null crossover): those verify
        assert result.code in (0, 1, 2), (path, value)
        assert not result.message.startswith("undecided: malformed certificate, read by no obligation"), (path, value, result.message)
        assert "internal" not in result.message, (path, value, result.message)
    assert seen > 50
