"""One table of examples, every path: exact, modular, numeric, and the independent checker.

Each row of :data:`symssm.sources.examples.EXAMPLES` states a system and its known profile
``k(1), k(2), ...``; every method must give exactly those values, and every certificate must
verify with the claimed head count.
"""

import pytest

from symssm import certify, check, head_count, numeric_head_count
from symssm.exact.headcount import find_witness
from symssm.sources.examples import EXAMPLES

LENGTHS = (1, 2, 3, 4, 5, 8, 10**18)


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda ex: ex.name)
@pytest.mark.parametrize("method", ["exact", "modular"])
def test_exact_paths_give_the_known_profile(ex, method):
    system = ex.system
    witness = find_witness(system, method=method)
    assert witness.method == method
    for n in LENGTHS:
        assert head_count(system, n, method=method) == ex.k(n), (ex.name, method, n)


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda ex: ex.name)
def test_numeric_path_agrees(ex):
    for n in (1, 2, 3, 5, 40):
        res = numeric_head_count(ex.system, n)
        assert res.numerical_head_count == ex.k(n), (ex.name, n)


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda ex: ex.name)
@pytest.mark.parametrize("method", ["exact", "modular"])
def test_checker_verifies_the_claim(ex, method):
    for n in (1, 3, 10**18):
        cert = certify(ex.system, n, method=method)
        result = check(cert)
        assert result.verified, result.message
        assert cert["head_count"] == ex.k(n)
