"""Cost before work: hostile certificates (many distinct big denominators, long sums of lags) are decided at once, undecided with the
limit named (exit 2), never after the work and never REJECTED; the charges of checker/costs.py bound the work.

No timed assertion on speed: each check runs under a generous bound that only tells "refused up front" from
"did the work" (the work itself takes minutes or a gigabyte).
"""

import copy
import json
import os
import time

from paths import ROOT
from symssm.checker import costs
from symssm.checker.core import KINDS, check_data
from symssm.checker.reading import Ledger

HERE = os.path.dirname(os.path.abspath(__file__))
V1 = os.path.join(os.path.dirname(HERE), "fixtures", "gradient", "catalogue-v1", "diagonal-N2-p1-m1.gradient.json")


def _rehash(cert):
    reader = KINDS[(cert["kind"], cert.get("field"))][0]
    cert["input_sha256"] = reader(Ledger(), cert["system"])["sha256"]
    return cert


def _undecided_at_once(cert, limit_words):
    start = time.monotonic()
    result = check_data(cert)
    took = time.monotonic() - start
    assert result.code == 2 and result.message.startswith("undecided: "), result.message
    assert limit_words in result.message, result.message
    assert took < 60, took  # refused up front (the work would take minutes)
    return result


def test_a_version_1_gradient_witness_of_n_80_with_33000_bit_p_is_undecided_up_front():
    cert = json.load(open(V1))
    N = 80
    big = "1" + "0" * 9900  # about 33,000 bits
    cert["system"].update(N=N, A=[["0"] * N for _ in range(N)], B=[["1"] for _ in range(N)], C=[["1"] * N])
    cert["lyapunov"]["P"] = [[big if i == j else "0" for j in range(N)] for i in range(N)]
    _undecided_at_once(_rehash(cert), f"the limit is {costs.MAX_DECAY_V1_WORK}")


def test_an_eps_head_count_whose_exact_lags_are_many_dense_products_is_undecided_up_front():
    from symssm.api import certify
    from symssm.sources.system import ssm

    cert = copy.deepcopy(certify(ssm([["1/2"]], [[1]], [[1]], name="s"), 4, tolerance="1/100").data)
    N = 400
    cert["system"].update(N=N, A=[["1" if i == j + 1 else "0" for j in range(N)] for i in range(N)],
                          B=[["1"] if i == 0 else ["0"] for i in range(N)], C=[["0"] * (N - 1) + ["1"]])
    cert["n"] = 2800
    _undecided_at_once(_rehash(cert), f"the limit is {costs.MAX_LAG_WORK}")


def test_the_lag_charge_bounds_the_products_counted():
    """The charge counts every multiply-add the lag products do (dense), so it bounds what they cost."""
    from symssm.checker import linalg

    N, m, p, n0 = 6, 2, 3, 5
    A = [[(i * 7 + j * 3) % 5 - 2 for j in range(N)] for i in range(N)]
    B = [[(i + j) % 3 - 1 for j in range(m)] for i in range(N)]
    C = [[(i * j) % 4 - 1 for j in range(N)] for i in range(p)]
    counted = 0
    X = B
    for d in range(n0):
        counted += p * N * m  # C X
        linalg._matmul_int(C, X)
        if d + 1 < n0:
            counted += N * N * m  # A X
            X = linalg._matmul_int(A, X)
    assert counted <= costs.lag_product_work(n0, N, p, m, 1)
