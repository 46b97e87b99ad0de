"""The oracle fuzzer of the kinds with parameters (fuzz/fuzz_parametric.py), a bounded run.

Random families and layers for every input are certified, and what each verified certificate
says at random points and at points on every factor is compared with an independent rank
(SymPy's reduced entries, exact elimination written in the fuzzer). Forged certificates, the
unreduced-pair forgery included, must be rejected or, when accepted, be true everywhere probed.
SYMSSM_FUZZ_PARAMETRIC=SYSTEMS,MUTANTS runs longer (docs/robustness.md records a run).
"""

import importlib.util
import os
import random
from pathlib import Path

import pytest

from symssm.checker import check_data
from symssm.checker import polynomials as P

_PATH = Path(__file__).resolve().parents[1] / "fuzz" / "fuzz_parametric.py"
_spec = importlib.util.spec_from_file_location("fuzz_parametric", _PATH)
F = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(F)

SYSTEMS, MUTANTS = (int(x) for x in os.environ.get("SYMSSM_FUZZ_PARAMETRIC", "30,150").split(","))


def test_no_false_claim_and_no_false_acceptance():
    counts, bad = F.run(20261126, SYSTEMS, MUTANTS, log=lambda *a: None)
    assert not bad, bad[:3]
    # the run covered both kinds, both outcomes of the case analysis, and forgeries of both fates
    assert counts["family: certified"] >= SYSTEMS // 4 and counts["layer: certified"] >= SYSTEMS // 8, counts
    assert counts["mutant rejected"] > 0 and counts["true acceptance"] > 0, counts
    # and the covering rules: rational solutions, forms without rational zeros, polynomials without roots
    rules = {key.split(" by ")[1] for key in counts if key.startswith("factor ") and " by " in key}
    assert {"solve", "univariate"} <= rules and rules & {"binary-form", "definite-form", "definite"}, counts


def _shear():
    t = F.var("t")
    return {"name": "shear", "parameters": ["t"], "A": [[F.num(0), F.num(0)], [("sub", t, F.num(5)), F.num(0)]],
            "B": [[F.num(1)], [F.num(0)]], "C": [[F.num(1), F.num(0)], [F.num(0), F.num(1)]], "n": 4}


def test_the_unreduced_forgery_is_rejected_and_the_fuzzer_would_catch_it(monkeypatch):
    """The forger of fuzz/ rebuilds a whole proof around an unreduced entry; the checker refuses it by the
    reduced-pair rule, and without that rule the oracle reports the false answers it would give."""
    rng = random.Random(5)
    forged = [F.forge_unreduced(rng, _shear()) for _ in range(6)]
    forged = [d for d in forged if d is not None]
    assert forged
    for data in forged:
        res = check_data(data)
        assert res.code == 1 and "lowest terms" in res.message, res.message
    monkeypatch.setattr(P, "reduced_pair", lambda num, den: None)
    outcomes = {F.judge(d, F.Oracle(_shear()), random.Random(1), honest=False).status for d in forged
                if check_data(d).code == 0}
    assert "wrong-domain" in outcomes or "false-claim" in outcomes, outcomes


@pytest.mark.parametrize("coeffs, roots", [({2: 1, 0: -4}, {2, -2}), ({2: 1, 0: -2}, set()),
                                           ({3: 2, 2: -1, 0: 0}, {0, 1 / 2})])
def test_the_fuzzers_rational_roots(coeffs, roots):
    from fractions import Fraction

    found = set(F._rational_roots({d: Fraction(c) for d, c in coeffs.items()}))
    assert found == {Fraction(r) for r in roots}
