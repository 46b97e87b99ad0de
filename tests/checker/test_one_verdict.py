"""One verdict per certificate: a fresh ``symssm-check`` decides every catalogue certificate the same way with and
without its accelerators (numpy, python-flint; ``SYMSSM_CHECKER_PURE=1`` turns them off), and decides it.

Each check runs in a fresh interpreter, so nothing imported before (python-flint loaded by the generator, say)
can change how the checker works.  The default suite checks a sample spread over the kinds; ``-m long`` checks
every certificate in ``certificates/``.
"""

import glob
import os
import subprocess
import sys

import pytest

from paths import ROOT

CATALOGUE = sorted(glob.glob(os.path.join(ROOT, "certificates", "*.json")))
ENV = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _fresh(path, pure):
    env = {**ENV, "SYMSSM_CHECKER_PURE": "1"} if pure else {k: v for k, v in ENV.items()
                                                             if k != "SYMSSM_CHECKER_PURE"}
    done = subprocess.run([sys.executable, "-m", "symssm.checker", "--json", path], env=env, capture_output=True,
                          text=True, timeout=600)
    return done.returncode, done.stdout


def _same_verdict(path):
    accelerated, pure = _fresh(path, False), _fresh(path, True)
    assert accelerated[0] == 0, (path, accelerated)
    assert pure == accelerated, (path, pure, accelerated)


#: One certificate of each kind and shape in the catalogue (head counts plain and with feedthrough, gradients,
#: families with parameters).
SAMPLE = [p for p in CATALOGUE if os.path.basename(p) in (
    "rotation-N2-p1-m1.json", "hippo-legs-N8-p3-m2.json", "jordan-N8-p3-m2.gradient.json",
    "s4d-real-N8-p3-m2.gradient.json", "generic-symbolic-N2-p2-m2.json", "companion-symbolic-N3-p3-m1.json",
    "hippo-legt-step-N3-p3-m1.json", "shift-N8-p3-m2.json")]


def test_the_sample_is_there():
    assert len(SAMPLE) == 8 and len(CATALOGUE) >= 60


@pytest.mark.parametrize("path", SAMPLE, ids=os.path.basename)
def test_a_sample_of_the_catalogue_has_one_verdict(path):
    _same_verdict(path)


@pytest.mark.long
@pytest.mark.parametrize("path", CATALOGUE, ids=os.path.basename)
def test_every_catalogue_certificate_has_one_verdict(path):
    _same_verdict(path)


def test_coprimality_is_charged_and_decided_alike_whatever_is_loaded(monkeypatch):
    """The lowest-terms test of a family's entry: the same charge and the same answer with python-flint loaded or
    not (no accelerator decides it: a modular witness, else the exact gcd within the certificate's work limit)."""
    from symssm.checker import polynomials as P

    t, one = P.var(0, 2), P.const(1, 2)
    s = P.var(1, 2)
    a = P.power(P.add(P.add(t, s), one), 6, 2)
    b = P.add(P.mul(t, t), P.add(s, P.const(3, 2)))
    shared = P.mul(a, b), P.mul(b, P.add(t, P.const(5, 2)))  # a common factor b: the exact gcd decides
    outcomes = []
    for flint in (P._flint, None):
        monkeypatch.setattr(P, "_flint", flint)
        for pair in ((a, b), shared):
            P.reset_work()
            outcomes.append((P.coprime(*pair), P._WORK.used))
    assert outcomes[:2] == outcomes[2:], outcomes
    assert outcomes[0][0] is True and outcomes[1][0] is False


def test_the_modular_witness_never_hides_a_common_factor():
    """Against the exact gcd (remainder sequences) on random pairs, half of them with a common factor: the witness
    answers coprime only when the gcd is a constant."""
    import random
    from fractions import Fraction

    from symssm.checker import polynomials as P

    rng = random.Random(11)

    def poly(nv):
        return {tuple(rng.randint(0, 2) for _ in range(nv)): Fraction(rng.randint(-4, 4) or 1, rng.randint(1, 3))
                for _ in range(rng.randint(1, 4))}

    coprime_pairs = 0
    for _ in range(150):
        nv = rng.randint(1, 3)
        f, g, h = poly(nv), poly(nv), poly(nv)
        for x, y in ((P.mul(f, h), P.mul(g, h)), (f, g)):
            if P.is_const(x) or P.is_const(y):
                continue
            P.reset_work()
            exact = P.is_const(P._gcd(x, y))
            P.reset_work()
            assert P.coprime(x, y) == exact, (x, y)
            coprime_pairs += exact
    assert coprime_pairs > 20


GENERATE = """
import sys
if sys.argv[2] == "flint":
    import flint  # loaded before the generator runs its checker
from symssm.api import certify
from symssm.sources.parametric import parametric_ssm
e = "((s + 2*t + 1)^12 + 3)/((s - t + 2)^12 + 5)"
family = parametric_ssm([[e, "(s + t + u)^8/(s + t + u)^8"], ["t", e]], [["1"], ["u"]], [["1", "1"]],
                        parameters=["s", "t", "u"], name="written")
certify(family).save(sys.argv[1])
print("flint" in sys.modules)
"""

CHECK_IN_ONE_PROCESS = """
import sys
from symssm.api import load_certificate
before = load_certificate(sys.argv[1]).check()
import flint
after = load_certificate(sys.argv[1]).check()
print(before.code, after.code, before.message == after.message)
"""


@pytest.mark.parametrize("loaded", ["flint", "none"])
def test_what_the_generator_writes_a_fresh_check_verifies(tmp_path, loaded):
    """The generator hands out a certificate only once the checker has verified it in its process (python-flint
    loaded there or not); a fresh ``symssm check`` verifies it on both paths, and in one process the verdict is the
    same before and after python-flint is imported."""
    pytest.importorskip("flint")
    path = str(tmp_path / "family.json")
    made = subprocess.run([sys.executable, "-c", GENERATE, path, loaded], env=ENV, capture_output=True, text=True,
                          timeout=600)
    assert made.returncode == 0, made.stderr[-2000:]
    assert made.stdout.strip() == "True" or loaded == "none"
    _same_verdict(path)
    both = subprocess.run([sys.executable, "-c", CHECK_IN_ONE_PROCESS, path], env=ENV, capture_output=True,
                          text=True, timeout=600)
    assert both.stdout.split() == ["0", "0", "True"], both.stdout + both.stderr[-2000:]
