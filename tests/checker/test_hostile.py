"""Regression certificates for the checker's limits on hostile input (issue: a checker no certificate can stall)."""

import json

import symssm
from symssm.checker.core import check_data
from symssm.checker.reading import Ledger
from symssm.sources.complex_system import complex_ssm


def test_a_valid_gaussian_certificate_with_a_huge_n_is_not_falsely_rejected():
    """str(n) of a 5,000-digit n raised inside the checker and surfaced as a 'malformed' rejection."""
    cert = json.loads(symssm.certify(complex_ssm([["i", 0], [0, 1]], [[1], [1]], [[1, 1]], name="c"), 10**6).to_json())
    cert["n"] = 10 ** 5000
    result = check_data(cert)
    assert result.verified, result.message
    assert result.message.startswith("head-count over Q(i) k(1000")


def test_the_ledger_deduplicates_in_constant_time():
    """400,000 row obligations: a list membership test made this quadratic (a 467 KB certificate took 45 s)."""
    ledger = Ledger()
    for i in range(400_000):
        ledger.require(True, f"system.A[{i}]", "")
        ledger.require(True, "system", "")
    assert len(ledger.done) == 400_001
    assert ledger.done[0] == "system.A[0]" and ledger.done[1] == "system"
    assert len(ledger._seen) == len(ledger.done)
