"""Shared test configuration.

Hypothesis runs derandomized with no example database by default, so the README's test command
gives the same verdict on every run and machine (a flaky property test could reject any good
submission). ``SYMSSM_HYPOTHESIS_PROFILE=fuzz`` restores random exploration for long fuzzing runs
(see docs/robustness.md); ``SYMSSM_FUZZ_EXAMPLES`` raises the example counts of the fuzz tests.
"""

import os
import sys

import pytest
from hypothesis import HealthCheck, settings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")

settings.register_profile("ci", derandomize=True, database=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("fuzz", derandomize=False, database=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("SYMSSM_HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def fixtures():
    return FIXTURES


@pytest.fixture(autouse=True)
def _fresh_global_state():
    """Each test starts and ends with the process-wide state a fresh interpreter has: the checker's polynomial
    work budget and its caches unspent (per thread), its cost meter at zero, and the interpreter's limit on
    int/str conversions as it was (a test or a fuzzer's main may change it).  A test that spends the budget or
    raises the limit cannot change the verdicts of the tests after it, in any order."""
    from symssm.checker import costs
    from symssm.checker import polynomials

    digits = sys.get_int_max_str_digits()
    polynomials.reset_work()
    costs.reset_meter()
    try:
        yield
    finally:
        sys.set_int_max_str_digits(digits)
        polynomials.reset_work()
        costs.reset_meter()
