"""Regression certificates for the checker's limits on hostile input (no certificate can stall the checker)."""

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


def test_the_lag_bound_counts_denominators_on_both_sides():
    """A = (cyclic permutation) / q with a 7,000-digit q: 1-bit numerators, q^d denominators (exhausted 6 GB)."""
    import sys
    from fractions import Fraction

    import pytest

    from symssm.checker.linalg import MAX_LAG_BITS, lag_bit_bound
    from symssm.errors import LimitError
    from symssm.exact.lags import lag_bit_bound as generator_bound

    q = 10 ** 7000 + 7
    N = 6
    A = [[Fraction(1 if i == (j + 1) % N else 0, q) for j in range(N)] for i in range(N)]
    system = symssm.ssm(A, [[1]] + [[0]] * (N - 1), [[1] * N])
    checker_view = {"A": [list(r) for r in system.A], "B": [list(r) for r in system.B], "C": [list(r) for r in system.C]}
    assert generator_bound(system, N - 1) == lag_bit_bound(checker_view, N - 1) > MAX_LAG_BITS
    with pytest.raises(LimitError, match="33220"):
        symssm.certify(system, 10, method="exact")
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        cert = json.loads(symssm.certify(system, 10).to_json())  # auto: the modular method
    finally:
        sys.set_int_max_str_digits(old)
    assert cert["lower_bound"]["method"] == "modular" and check_data(cert).verified


def _with_P(cert, P):
    from symssm.formats.rationals import format_rational

    out = json.loads(json.dumps(cert))
    out["lyapunov"]["P"] = [[format_rational(x) for x in row] for row in P]
    return out


def test_a_lyapunov_matrix_over_the_size_limit_is_refused_before_any_charpoly(monkeypatch):
    """A P of 1,000-digit entries with distinct denominators (1.3 million bits over their common denominator)
    kept python-flint's charpoly busy past 30 s (and past --max-seconds)."""
    import os
    from fractions import Fraction

    import symssm.checker.gradient as gradient_checker
    from paths import ROOT

    calls = []
    real = gradient_checker.definite_between
    monkeypatch.setattr(gradient_checker, "definite_between", lambda *a: calls.append(a) or real(*a))
    cert = json.load(open(os.path.join(ROOT, "tests", "fixtures", "gradient", "catalogue-v1",
                                       "hippo-legs-N8-p3-m2.gradient.json")))  # version 1: its P
    N = cert["system"]["N"]
    # distinct 310-digit denominators: each entry is small, their common denominator is not (> 33,220 bits)
    dens = {(i, j): 10 ** 310 + 2 * (min(i, j) * N + max(i, j)) + 1 for i in range(N) for j in range(N)}
    over = [[Fraction(int(i == j) * 10 ** 6 + 1, dens[i, j]) for j in range(N)] for i in range(N)]
    result = check_data(_with_P(cert, over))
    assert result.code == 2 and "lyapunov.P: over the cost limit" in result.message and "33220 bits" in result.message
    assert calls == []  # refused before the definiteness tests
    # just under the limit, it is decided (here rejected: this P proves nothing), not refused
    under = [[Fraction(int(i == j) * 10 ** 6 + 1, 3 ** 600) for j in range(N)] for i in range(N)]  # 951 bits
    result = check_data(_with_P(cert, under))
    assert result.code in (0, 1) and "cost limit" not in result.message
    assert len(calls) == 1  # the tests ran


def test_honest_gradient_certificates_are_far_below_the_limits():
    import glob
    import os
    from fractions import Fraction

    from paths import ROOT
    from symssm.checker.gradient import MAX_DECAY_WORK, decay_work
    from symssm.checker.linalg import MAX_A_BITS, MAX_P_BITS, integer_bits

    paths = glob.glob(os.path.join(ROOT, "certificates", "*.gradient.json"))
    assert len(paths) >= 20
    for path in paths:
        cert = json.load(open(path))
        assert cert["version"] == 2
        ly = cert["lyapunov"]
        U = [[Fraction(x) for x in row] for row in ly["U"]]
        A = [[Fraction(x) for x in row] for row in cert["system"]["A"]]
        sizes = [integer_bits(X, MAX_P_BITS) for X in (U, [[Fraction(x) for x in ly["D"]]], [[Fraction(ly["mu"])]])]
        assert max(sizes) <= MAX_P_BITS // 20
        assert integer_bits(A, MAX_A_BITS) <= MAX_A_BITS // 100
        assert decay_work(len(A), *sizes, integer_bits(A, MAX_A_BITS)) <= MAX_DECAY_WORK // 1000


def test_a_version_2_witness_over_the_cost_limit_is_refused_before_any_product(monkeypatch):
    """Factors of 1,000-digit entries with distinct denominators, or N^3 (words)^2 over the limit: refused (exit 2,
    undecided) before the products; the generator and the checker share the limits."""
    import os
    from fractions import Fraction

    import symssm.certificate.gradient as generator
    import symssm.checker.gradient as gradient_checker
    from paths import ROOT
    from symssm.formats.rationals import format_rational

    assert generator.MAX_DECAY_WORK == gradient_checker.MAX_DECAY_WORK
    assert generator.decay_work(96, 130, 200, 20, 330) == gradient_checker.decay_work(96, 130, 200, 20, 330)
    calls = []
    real = gradient_checker.factored_decay
    monkeypatch.setattr(gradient_checker, "factored_decay", lambda *a: calls.append(a) or real(*a))
    cert = json.load(open(os.path.join(ROOT, "certificates", "hippo-legs-N8-p3-m2.gradient.json")))
    N = cert["system"]["N"]
    over = json.loads(json.dumps(cert))
    over["lyapunov"]["U"] = [[format_rational(Fraction(int(i == j) if j <= i else 1, 1 if j <= i else
                                                       10 ** 310 + 2 * (i * N + j) + 1)) for j in range(N)]
                             for i in range(N)]
    result = check_data(over)
    assert result.code == 2 and "lyapunov: over the cost limit" in result.message
    monkeypatch.setattr(gradient_checker, "MAX_DECAY_WORK", 1000)
    result = check_data(cert)
    assert result.code == 2 and "word operations" in result.message
    assert calls == []  # refused before the products
    monkeypatch.undo()
    assert check_data(cert).verified


def test_polynomial_work_is_weighted_by_coefficient_size_and_counted_before_the_product(monkeypatch):
    """A power of a sum with 1,000-digit constants: few terms, huge coefficients (kept the checker busy > 30 s)."""
    from fractions import Fraction

    import pytest

    import symssm.checker.polynomials as P
    from symssm.checker.reading import Unreadable

    small = {(i, 0): Fraction(i + 1) for i in range(100)}
    big = {(i, 0): Fraction(10 ** 1000 + i) for i in range(100)}
    P.reset_work()
    P.mul(small, small)
    terms = 199  # the most terms a product of two polynomials of degree 99 in one variable has
    making = terms * P.costs.OUTPUT_TERM_WORK  # each result term made (checker/costs.py)
    assert P._WORK.used == 100 * 100 + making  # honest coefficients: weight 1
    P.reset_work()
    P.mul(big, small)
    words = 1 + (10 ** 1000).bit_length() // 64
    assert P._WORK.used == 100 * 100 * words + terms * (P.costs.OUTPUT_TERM_WORK + P.costs.lowest_terms_work(words + 1))
    monkeypatch.setattr(P, "MAX_POLY_WORK", P._WORK.used - 1)
    P.reset_work()
    calls = []
    monkeypatch.setattr(P, "_size", lambda p: calls.append(1) or p)
    with pytest.raises(Unreadable, match="weighted by coefficient size"):
        P.mul(big, small)
    assert calls == []  # refused before the product was formed


def test_gaussian_lags_with_and_without_flint_agree():
    import random

    from symssm.checker import gaussian, linalg
    from symssm.checker.reading import Ledger

    rng = random.Random(3)

    def g():
        b = rng.randint(-9, 9)
        return f"{rng.randint(-9, 9)}/{rng.randint(1, 9)}{'+' if b >= 0 else '-'}{abs(b)}/{rng.randint(1, 9)}i"

    for N, p, m, with_D in ((3, 2, 1, True), (5, 1, 3, False)):
        D = [[g() for _ in range(m)] for _ in range(p)] if with_D else None
        s = complex_ssm([[g() for _ in range(N)] for _ in range(N)], [[g() for _ in range(m)] for _ in range(N)],
                        [[g() for _ in range(N)] for _ in range(p)], D)
        system = gaussian.read_gaussian_system(Ledger(), symssm.certify(s, 4).data["system"])
        pure = gaussian._lags_pure(system, N + 2)
        if linalg._flint is not None:
            assert gaussian._lags_flint(system, N + 2) == pure
        assert gaussian._lags(system, N + 2) == pure


def test_softmax_value_map_rank_stops_past_the_rank_limit():
    """The value maps' elimination ran on every head and entry, uncounted; past rank 6 it is refused anyway."""
    from fractions import Fraction

    from symssm.checker.softmax import MAX_RANK, _rank

    rows = [[Fraction(int(i == j)) for j in range(40)] for i in range(40)]  # rank 40
    assert _rank(rows) == 40
    assert _rank(rows, stop=MAX_RANK + 1) == MAX_RANK + 1


def test_gaussian_lag_cost_is_refused_before_the_lags(monkeypatch):
    from symssm.checker import gaussian
    from symssm.errors import LimitError

    import pytest

    s = complex_ssm([["1/2+" + "7" * 200 + "i", 0], [0, "1/3"]], [[1], [1]], [[1, 1]], name="g")
    data = json.loads(symssm.certify(s, 4).to_json())
    assert check_data(data).verified
    called = []
    monkeypatch.setattr(gaussian, "_lags", lambda *a: called.append(1) or [])
    monkeypatch.setattr(gaussian, "MAX_GAUSSIAN_WORK", 1)
    result = check_data(data)
    assert result.code == 2 and "over the cost limit of Q(i) lags" in result.message and called == []
    import symssm.certificate.gaussian as generator

    monkeypatch.setattr(generator, "MAX_GAUSSIAN_WORK", 1)
    with pytest.raises(LimitError, match="cost limit"):
        symssm.certify(s, 4)


def test_layer_identity_work_is_refused_before_the_identities(monkeypatch):
    import symssm.checker.interaction as checker_interaction
    from symssm.sources.layers import layer_from_data

    spec = {"kind": "linear-attention", "name": "w", "X": [[1, 0], [0, 1], [1, 1], [2, -1]],
            "heads": [{"Q": [[1, 0]], "K": [[1, 0]], "V": [[1, 0]]}, {"Q": [[0, 1]], "K": [[0, 1]], "V": [[0, 1]]}]}
    data = json.loads(symssm.certify(layer_from_data(spec)).to_json())
    assert check_data(data).verified
    called = []
    monkeypatch.setattr(checker_interaction, "combinations", lambda *a: called.append(1) or [])
    monkeypatch.setattr(checker_interaction, "MAX_LAYER_WORK", 3)
    result = check_data(data)  # the blocks alone are over this limit: refused, named, exit 2
    assert result.code == 2 and "forming this layer's blocks" in result.message and called == []
    monkeypatch.setattr(checker_interaction, "layer_work", lambda *a: 0)
    result = check_data(data)  # the blocks pass, the identities are over: refused before any is checked
    assert result.code == 2 and "checking the identities" in result.message and called == []
