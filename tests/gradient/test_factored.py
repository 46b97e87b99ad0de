"""Gradient certificates of format version 2 (``P - mu I = U^T diag(D) U``): a certificate wherever one exists, the
bound against exact lags, the witness against an independent oracle, both checker modes, start-up."""

import json
import os
import random
import subprocess
import sys
from fractions import Fraction

import pytest

from symssm import check, lags, ssm
from symssm.api import gradient_certificate
from symssm.gradient.factored import decay_witness, witness_margin
from symssm.sources.families import jordan, shift

F = Fraction


def _frob2(L):
    return sum((x * x for row in L for x in row), F(0))


def _P(cert):
    """``P = U^T diag(D) U + mu I`` from the certificate, in Fractions (the oracle's own arithmetic)."""
    ly = cert["lyapunov"]
    U = [[F(x) for x in row] for row in ly["U"]]
    D = [F(x) for x in ly["D"]]
    mu = F(ly["mu"])
    N = len(U)
    return [[sum((U[k][i] * D[k] * U[k][j] for k in range(N)), F(0)) + (mu if i == j else 0) for j in range(N)]
            for i in range(N)]


def _bound_holds(system, cert, count=60):
    r, K2 = F(cert["decay_rate"]), F(cert["decay_constant_squared"])
    return all(_frob2(L) <= K2 * r ** (2 * d) for d, L in enumerate(lags(system, count)) if d >= 1)


@pytest.mark.parametrize("N", [1, 2, 3, 4, 5])
def test_zero_A_gets_a_certificate(N):
    """Spectral radius 0 (all lags from d = 1 on vanish): P = I works, and symssm finds a certificate."""
    system = ssm([[0] * N for _ in range(N)], [[k + 1] for k in range(N)], [[1] * N], name=f"zero-{N}")
    cert = gradient_certificate(system, 100)
    assert check(cert).verified and cert["version"] == 2
    ly = cert["lyapunov"]
    assert ly["U"] == [["1" if i == j else "0" for j in range(N)] for i in range(N)]  # P is a multiple of I
    assert F(cert["decay_rate"]) == F(1, 20)
    assert F(ly["mu"]) < 1 <= F(ly["M"]) and len(set(ly["D"])) == 1
    assert cert["crossover_distance"] == 1 or _bound_holds(system, cert)


@pytest.mark.parametrize("system", [
    ssm([[0, 1000], [0, 0]], [[1], [1]], [[1, 0]], name="nilpotent-1000"),
    shift(2), shift(5, p=2), shift(9, p=3, m=2),
    ssm([[0, 3, -2, 7], [0, 0, 5, 1], [0, 0, 0, -4], [0, 0, 0, 0]], [[1, 0], [0, 1], [1, 1], [2, 0]],
        [[1, 2, 0, 1]], name="strictly-upper"),
    ssm([[0, 0, 0], [5, 0, 0], [1, -7, 0]], [[1], [0], [0]], [[0, 0, 1]], name="strictly-lower"),
])
def test_nilpotent_A_gets_a_certificate_and_its_bound_holds(system):
    cert = gradient_certificate(system, 1000)
    assert check(cert).verified
    assert _bound_holds(system, cert)


def _random_stable(rng, N):
    """A random rational A with spectral radius below 1: integer entries scaled by (row sum bound + slack)."""
    A = [[rng.randint(-9, 9) for _ in range(N)] for _ in range(N)]
    scale = max(sum(abs(x) for x in row) for row in A) + rng.randint(1, 5)
    return [[F(x, scale) for x in row] for row in A]


@pytest.mark.parametrize("seed", range(8))
def test_random_stable_systems_get_verified_certificates_whose_bound_holds(seed):
    rng = random.Random(seed)
    N = rng.randint(1, 7)
    p, m = rng.randint(1, 3), rng.randint(1, 3)
    system = ssm(_random_stable(rng, N), [[rng.randint(-3, 3) for _ in range(m)] for _ in range(N)],
                 [[rng.randint(-3, 3) for _ in range(N)] for _ in range(p)], name=f"random-{seed}")
    cert = gradient_certificate(system, 500)
    assert check(cert).verified
    assert _bound_holds(system, cert, 40)


def test_the_witness_against_an_independent_fraction_oracle():
    """Every obligation recomputed here in Fractions, with the textbook tests (Sylvester's criterion on T)."""
    system = jordan(4, eigenvalue="1/2", block=2)
    cert = gradient_certificate(system, 200)
    P = _P(cert)
    A = [list(row) for row in system.A]
    r, mu, M = F(cert["decay_rate"]), F(cert["lyapunov"]["mu"]), F(cert["lyapunov"]["M"])
    N = len(A)
    AtPA = [[sum(A[k][i] * P[k][l] * A[l][j] for k in range(N) for l in range(N)) for j in range(N)] for i in range(N)]
    T = [[r * r * P[i][j] - AtPA[i][j] for j in range(N)] for i in range(N)]

    def minors(S):  # leading principal minors by Gaussian elimination in Fractions
        S = [row[:] for row in S]
        out, det = [], F(1)
        for k in range(len(S)):
            det *= S[k][k]
            out.append(det)
            for i in range(k + 1, len(S)):
                f = S[i][k] / S[k][k]
                S[i] = [a - f * b for a, b in zip(S[i], S[k])]
        return out

    assert all(x > 0 for x in minors(T))  # r^2 P - A^T P A > 0
    assert all(x > 0 for x in minors([[P[i][j] - (mu if i == j else 0) for j in range(N)] for i in range(N)]))
    assert all(x > 0 for x in minors([[(M if i == j else 0) - P[i][j] for j in range(N)] for i in range(N)])) or \
        max(sum(abs(x) for x in row) for row in P) <= M
    w = witness_margin(cert["lyapunov"]["U"] and [[F(x) for x in row] for row in cert["lyapunov"]["U"]],
                       [F(x) for x in cert["lyapunov"]["D"]], mu, r, A)
    assert w > 0 and w == min(T[i][i] - sum(abs(T[i][j]) for j in range(N) if j != i) for i in range(N))


def test_mu_and_M_are_close_to_the_extreme_eigenvalues():
    """The LDL^T of P - mu I with mu just below lambda_min, and Collatz-Wielandt weights: K^2 stays as tight as
    version 1's (which bisected characteristic polynomials)."""
    w = decay_witness(jordan(3, eigenvalue="1/2", block=3))
    assert F(17) < w.mu < F(1727, 100)  # lambda_min(P) = 17.2557...
    assert w.M < F(30454) * 10**6  # lambda_max(P) = 3.0452...e10


def test_both_checker_modes_agree_on_version_2(tmp_path):
    paths = []
    for k, system in enumerate((jordan(3, eigenvalue="1/2", block=3), shift(4),
                                ssm([["1/2", 10], [0, "-1/3"]], [[1], [1]], [[1, 0]]))):
        cert = gradient_certificate(system, 300)
        data = json.loads(cert.to_json())
        good = tmp_path / f"g{k}.json"
        good.write_text(json.dumps(data))
        data["lyapunov"]["M"] = str(F(data["lyapunov"]["M"]) * F(99, 100))
        bad = tmp_path / f"b{k}.json"
        bad.write_text(json.dumps(data))
        paths += [str(good), str(bad)]
    code = ("import sys, json, symssm.checker as c; "
            "print(json.dumps([[c.check_file(p).code, c.check_file(p).message] for p in sys.argv[1:]]))")
    runs = [subprocess.run([sys.executable, "-c", code, *paths], capture_output=True, text=True, check=True,
                           env=dict(os.environ, SYMSSM_CHECKER_PURE=pure)).stdout for pure in ("", "1")]
    assert runs[0] == runs[1]
    codes = [c for c, _ in json.loads(runs[0])]
    assert codes == [0, 1] * 3


def test_the_gradient_path_loads_neither_sympy_nor_mpmath(tmp_path):
    code = ("import sys; from symssm.cli import main; "
            "rc = main(['gradient', '--family', 'hippo-legs', '-N', '6', '-o', sys.argv[1]]); "
            "print(rc, sorted(m for m in ('sympy', 'mpmath') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "g.json")], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip().splitlines()[-1] == "0 []"


def test_version_2_is_what_symssm_writes_and_version_1_still_verifies():
    from paths import ROOT

    folder = os.path.join(ROOT, "tests", "fixtures", "gradient", "catalogue-v1")
    names = sorted(os.listdir(folder))
    assert len(names) >= 20
    for name in names:
        data = json.load(open(os.path.join(folder, name)))
        assert data["version"] == 1 and "P" in data["lyapunov"]
        assert check(data).verified, name
    assert gradient_certificate(shift(2), 10)["version"] == 2
