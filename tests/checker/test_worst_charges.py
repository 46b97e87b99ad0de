"""The worst accepted case of each polynomial charge, on each path: work that the checker accepts (just under its
work limit, ``MAX_POLY_WORK``) is done in a fresh interpreter with the accelerators (python-flint loaded first,
as a generator that used it would have) and with ``SYMSSM_CHECKER_PURE=1``, and it is decided by its charges: the
same answer and the same charge on both paths, and the CPU seconds per charged unit within what the calibration
promises: ``CALIBRATED_SECONDS`` (10 s) for the whole work limit, so that the largest accepted charge is decided in
10 s of one core (the measured worst is about a third of that, on a loaded machine).

Each workload repeats one kind of operation, sized so that the charges reach ``fraction`` of the limit: products
whose every term pair makes its own result term (the costliest products per unit), powers of a sum (a family's
``(s + t + u + k)^16``), exact divisions whose quotient denominators grow (``x^D + 1`` by ``3 x - 1``, not
exact), divisions by a short divisor with one-word coefficients (the costliest steps per unit), the coprimality
witness of large coprime polynomials, and the exact gcd of polynomials with a common factor.  The default suite
runs each at a twentieth of the limit; ``-m long`` runs each at 97 % of it (seconds each; the figures are in
docs/checker.md).
"""

import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from paths import ROOT  # noqa: E402
from symssm.checker import polynomials as P  # noqa: E402
from symssm.checker.costs import CALIBRATED_SECONDS  # noqa: E402

#: CPU seconds per unit of polynomial work that the calibration promises at most.
PROMISED = CALIBRATED_SECONDS / P.MAX_POLY_WORK

#: Each workload: the Python code of one operation on polynomials built beforehand (``setup``), repeated.
WORKLOADS = {
    "distinct products": (
        "a = {(i, 0): F(i + 1) for i in range(141)}\nb = {(0, j): F(j + 2) for j in range(141)}",
        "P.mul(a, b)"),
    "powers of a sum": (
        "a = P.parse_pair('s + t + u + k', ['s', 't', 'u', 'k'])[0]",
        "P.power(a, 16, 4)"),
    "divisions, growing denominators": (
        "a = {(1500,): F(1), (0,): F(1)}\nb = {(1,): F(3), (0,): F(-1)}",
        "P.divide_exact(a, b)"),
    "divisions, one-word steps": (
        "a = {(60, 60): F(1), (0, 0): F(1)}\nb = {(1, 0): F(1), (0, 1): F(-1), (0, 0): F(1)}",
        "P.divide_exact(a, b)"),
    "coprimality witness": (
        "x, y = P.var(0, 2), P.var(1, 2)\n"
        "a = P.power(P.add(P.add(x, P.scale(y, 3)), P.const(7, 2)), 40, 2)\n"
        "b = P.add(P.power(P.sub(x, y), 40, 2), P.const(5, 2))",
        "P.coprime(a, b)"),
    "exact gcd of a common factor": (
        "x, y = P.var(0, 2), P.var(1, 2)\n"
        "h = P.add(P.mul(x, y), P.const(3, 2))\n"
        "a = P.mul(P.power(P.add(x, P.const(2, 2)), 3, 2), h)\n"
        "b = P.mul(P.power(P.sub(y, P.const(1, 2)), 3, 2), h)",
        "P.coprime(a, b)"),
}

SCRIPT = """
import json, sys, time
if {flint}:
    import flint  # loaded first, as a generator that used it would have
from fractions import Fraction as F
from symssm.checker import costs, polynomials as P
{setup}
P.reset_work()
costs.reset_meter()
once = costs.charged()
{call}
once = costs.charged() - once
budget = int({fraction} * P.MAX_POLY_WORK)
P.reset_work()
costs.reset_meter()
start = time.process_time()
answers = []
while costs.charged() + once <= budget:
    answer = {call}
    answers.append(repr(sorted(answer.items()) if isinstance(answer, dict) else answer))
took = time.process_time() - start
print(json.dumps({{"charged": costs.charged(), "once": once, "seconds": took, "answers": sorted(set(answers)),
                   "count": len(answers)}}))
"""


def run(name, fraction, pure):
    """The workload ``name`` up to ``fraction`` of the work limit in a fresh interpreter: its JSON report."""
    setup, call = WORKLOADS[name]
    env = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}
    env.pop("SYMSSM_CHECKER_PURE", None)
    if pure:
        env["SYMSSM_CHECKER_PURE"] = "1"
    code = SCRIPT.format(flint=not pure and P._flint is not None, setup=setup, call=call, fraction=fraction)
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def _check(name, fraction):
    reports = [run(name, fraction, pure) for pure in (False, True)]
    for report in reports:
        assert report["count"] >= 1 and len(report["answers"]) == 1, (name, report)
        assert report["charged"] >= (fraction - 0.05) * P.MAX_POLY_WORK - report["once"], (name, report)
        assert report["seconds"] / report["charged"] <= PROMISED, (name, report)
    accelerated, pure = reports
    # one answer and one charge on both paths: nothing depends on what is imported
    assert (accelerated["answers"], accelerated["charged"]) == (pure["answers"], pure["charged"]), reports
    return reports


@pytest.mark.parametrize("name", sorted(WORKLOADS))
def test_a_twentieth_of_the_limit_is_decided_alike_on_both_paths(name):
    _check(name, 0.05)


@pytest.mark.long
@pytest.mark.parametrize("name", sorted(WORKLOADS))
def test_the_worst_accepted_case_is_decided_alike_on_both_paths(name):
    _check(name, 0.97)


def test_the_workloads_answer_what_they_say():
    """Each workload's operation gives the answer its name promises (a division that is not exact, a witness that
    proves coprimality, a common factor found by the exact gcd)."""
    from fractions import Fraction as F  # noqa: F401  (the workloads' name for Fraction)

    answers = {}
    for name, (setup, call) in WORKLOADS.items():
        scope = {"P": P, "F": F}
        exec(setup, scope)  # noqa: S102 - the test's own fixed code
        P.reset_work()
        answers[name] = eval(call, scope)  # noqa: S307 - the test's own fixed code
    assert answers["divisions, growing denominators"] is None and answers["divisions, one-word steps"] is None
    assert answers["coprimality witness"] is True and answers["exact gcd of a common factor"] is False
    assert len(answers["distinct products"]) == 141 * 141 and len(answers["powers of a sum"]) == 969
