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


def test_the_pure_gcd_spends_no_more_of_the_budget_than_flint(monkeypatch):
    """The lowest-terms test charges a gcd once, before it runs; the standard library's remainder sequences then
    count their own products apart (issue 46: with python-flint not yet loaded, a fresh check spent the whole
    budget on them and ended undecided, where a process with python-flint loaded verified)."""
    from symssm.checker import polynomials as P

    t, one = P.var(0, 2), P.const(1, 2)
    s = P.var(1, 2)
    a = P.power(P.add(P.add(t, s), one), 6, 2)
    b = P.add(P.mul(t, t), P.add(s, P.const(3, 2)))
    cost = P.gcd_cost(a, b)
    for flint in (P._flint, None):
        monkeypatch.setattr(P, "_flint", flint)
        P.reset_work()
        P._WORK.used = P.MAX_POLY_WORK - cost  # the charge just fits what the certificate has left
        assert P.coprime(a, b)
        assert P._WORK.used == P.MAX_POLY_WORK  # charged exactly the gcd's cost, with or without FLINT
