"""Gradient-highway certificates: bounds against exact lags, refusals, tampering."""

import copy
from fractions import Fraction

import pytest

from symssm import check, lags, ssm
from symssm.cli import main
from symssm.errors import InputError, NotStableError
from symssm.sources.families import jordan
from symssm.api import gradient_certificate
from symssm.gradient.attention import attention_highway, exp_lower
from symssm.gradient.crossover import crossover_distance
from symssm.gradient.decay import positive_definite
from symssm.gradient.graph import attention_path_lengths, ssm_path_lengths

STABLE = {
    "diagonal": ssm([["1/2", 0, 0], [0, "-1/3", 0], [0, 0, "1/5"]], [[1, 0], [1, 1], [0, 1]], [[1, 1, 1]]),
    "non-normal": ssm([["1/2", 50], [0, "1/3"]], [[1], [1]], [[1, 1]]),
    "defective": jordan(3, eigenvalue="1/2", block=3),
}


@pytest.mark.parametrize("name", sorted(STABLE))
def test_bound_holds_against_exact_lags_up_to_200(name):
    system = STABLE[name]
    cert = gradient_certificate(system, 1000)
    assert check(cert).verified
    r = Fraction(cert["decay_rate"])
    K2 = Fraction(cert["decay_constant_squared"])
    assert 0 < r < 1
    for d, L in enumerate(lags(system, 201)):
        if d >= 1:
            assert sum(x * x for row in L for x in row) <= K2 * r ** (2 * d), d


def test_r_is_close_to_the_spectral_radius_when_not_defective():
    cert = gradient_certificate(STABLE["diagonal"], 100)
    assert float(Fraction(cert["decay_rate"])) <= 1.05 * float(cert["spectral_radius_estimate"])


@pytest.mark.parametrize("rho", ["997/1000", "9995/10000", "99999/100000"])
def test_slow_modes_within_a_hundredth_of_one_are_certified(rho):
    """Rates were tried on the 1/1000 grid only: a stable system with spectral radius 0.995 or more got "no decay
    certificate found" (slow modes of trained layers live there)."""
    system = ssm([[rho, 0], [1, rho]], [[1], [0]], [[0, 1]])
    cert = gradient_certificate(system, 50)
    assert check(cert).verified
    assert Fraction(rho) < Fraction(cert["decay_rate"]) <= Fraction(rho) + (1 - Fraction(rho)) / 2


@pytest.mark.parametrize("system, reason", [
    (ssm([["3/5", "-4/5"], ["4/5", "3/5"]], [[1], [0]], [[1, 0]]), "det A"),  # marginal rotation
    (ssm([[2, 0], [0, "1/2"]], [[1], [1]], [[1, 1]]), "exact eigenvalue 2"),  # unstable
    (ssm([[1]], [[1]], [[1]]), "exact eigenvalue 1"),
])
def test_unstable_and_marginal_systems_are_refused(system, reason):
    with pytest.raises(NotStableError, match=reason):
        gradient_certificate(system, 100)


def test_cli_refusal_is_exit_1_and_writes_nothing(tmp_path, capsys):
    spec = tmp_path / "rot.json"
    spec.write_text('{"A": [["3/5", "-4/5"], ["4/5", "3/5"]], "B": [[1], [0]], "C": [[1, 0]]}')
    out = tmp_path / "g.json"
    assert main(["gradient", str(spec), "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("symssm: error:") and err.count("\n") == 1
    assert not out.exists()


def test_cli_gradient_and_plot(tmp_path, capsys):
    spec = tmp_path / "s.json"
    spec.write_text('{"name": "nn", "A": [["1/2", 10], [0, "1/3"]], "B": [[1], [1]], "C": [[1, 1]]}')
    assert main(["gradient", str(spec), "-n", "500", "-o", str(tmp_path / "g.json")]) == 0
    out = capsys.readouterr().out
    assert "crossover" in out and "i - j + 2 edges" in out
    assert main(["check", str(tmp_path / "g.json")]) == 0
    assert main(["plot", "gradient", str(spec), "-o", str(tmp_path / "g.png")]) == 0
    assert (tmp_path / "g.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _tampered(mutate):
    data = copy.deepcopy(gradient_certificate(STABLE["non-normal"], 1000).data)
    mutate(data)
    return check(data)


def test_smaller_r_is_rejected():
    res = _tampered(lambda d: d.update(decay_rate="1/4"))  # below the spectral radius 1/2: no P works
    assert res.code == 1 and "r^2 P - A^T P A" in res.message


def test_changed_factor_entry_is_rejected():
    def mutate(d):  # P = U^T D U + mu I loses the coupling that makes it decrease along A
        d["lyapunov"]["U"][0][1] = "0"
    res = _tampered(mutate)
    assert res.code == 1 and res.message.startswith("lyapunov.P")


def test_larger_c_is_rejected():
    res = _tampered(lambda d: d.update(attention_lower_bound="9/10"))
    assert res.code == 1 and res.message.startswith("attention_lower_bound")


def test_wrong_crossover_is_rejected():
    cert = gradient_certificate(STABLE["non-normal"], 1000)
    delta = cert["crossover_distance"]
    for wrong in (delta - 1, delta + 1):
        res = _tampered(lambda d: d.update(crossover_distance=wrong))
        assert res.code == 1 and res.message.startswith("crossover_distance")


def test_smaller_K_and_a_U_that_is_not_triangular_are_rejected():
    assert _tampered(lambda d: d.update(decay_constant_squared="1")).message.startswith("decay_constant_squared")
    assert _tampered(lambda d: d["lyapunov"]["U"][1].__setitem__(0, "7")).message.startswith("lyapunov.U")
    assert _tampered(lambda d: d["attention"]["W_V"][0].__setitem__(0, "2")).message.startswith("attention")
    assert _tampered(lambda d: d["computation_graph"]["ssm_path_edges"].__setitem__(3, 2)).code == 1


def test_attention_bound_pieces():
    assert exp_lower(Fraction(1), 10) < Fraction(27183, 10000)
    h = attention_highway(2, 3, 10**6)
    assert h.beta == 14 and Fraction(1, 2) < h.c
    h1 = attention_highway(1, 1, 100)
    assert h1.W_Q == ((h1.beta,),) and 0 < h1.c < Fraction(1, 2)


def test_crossover_is_least():
    K2, r, c = Fraction(100), Fraction(1, 2), Fraction(1, 10)
    delta = crossover_distance(K2, r, c, 1000)
    assert K2 * r ** (2 * delta) < c * c <= K2 * r ** (2 * (delta - 1))
    assert crossover_distance(K2, r, c, 3) is None


def test_graph_path_lengths():
    assert ssm_path_lengths(5)[1:] == [3, 4, 5, 6]
    assert attention_path_lengths(5)[1:] == [2, 2, 2, 2]


def test_positive_definite_exact():
    assert positive_definite([[Fraction(1), Fraction(0)], [Fraction(0), Fraction(1, 10**30)]])
    assert not positive_definite([[Fraction(1), Fraction(1)], [Fraction(1), Fraction(1)]])


def test_bad_n():
    with pytest.raises(InputError, match="n must be an integer >= 2"):
        gradient_certificate(STABLE["diagonal"], 1)


@pytest.mark.parametrize("n", [1, 2, 7, 12])
@pytest.mark.parametrize("feedthrough", [True, False])
def test_closed_form_path_lengths_match_networkx(n, feedthrough):
    from symssm.gradient.graph import attention_graph, graph_path_lengths, ssm_graph

    assert graph_path_lengths(ssm_graph(n, feedthrough=feedthrough)) == ssm_path_lengths(n, feedthrough=feedthrough)
    assert graph_path_lengths(attention_graph(n)) == attention_path_lengths(n)


@pytest.mark.parametrize("with_D", [False, True])
def test_the_computation_graph_agrees_with_the_certificate_at_every_distance(with_D):
    """The graph's BFS lengths x_j -> y_i are the certificate's ssm_path_edges (i - j + 2; 1 at i = j with D)."""
    from symssm.gradient.graph import graph_path_lengths, ssm_graph

    D = [["1/3"]] if with_D else None
    system = ssm([["1/2", 0], [0, "-1/3"]], [[1], [1]], [[1, 0]], D, name="g")
    cert = gradient_certificate(system, 64)
    recorded = cert["computation_graph"]["ssm_path_edges"]
    graph = graph_path_lengths(ssm_graph(len(recorded), feedthrough=system.has_D))
    assert graph == recorded
    assert recorded[1:] == [d + 2 for d in range(1, len(recorded))]
    assert recorded[0] == (1 if with_D else 2)


# ---------------------------------------------------------------- the exact rounding of the Smith iteration

def _dyadic_reference(mat, bits):
    """The rounding as first written, in Fractions: the largest entry's leading bit at bit ``bits - 1``,
    then each entry to the nearest multiple of 2^-e, ties to even."""
    from math import floor

    top = max((abs(x) for row in mat for x in row), default=Fraction(0))
    if top == 0:
        return [0] * sum(map(len, mat)), 0
    k = 0
    if top < 1:
        x = top
        while x < 1:
            x *= 2
            k += 1
    e = bits - (floor(top).bit_length() if top >= 1 else -(k - 1))
    out = []
    for row in mat:
        for x in row:
            num, den = (x.numerator << e, x.denominator) if e >= 0 else (x.numerator, x.denominator << -e)
            q, rem = divmod(num, den)
            if 2 * rem > den or (2 * rem == den and q % 2):
                q += 1
            out.append(q)
    return out, e


def test_dyadic_rounding_is_the_reference():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from symssm.gradient.decay import _dyadic_of

    frac = st.builds(Fraction, st.integers(-10**30, 10**30), st.integers(1, 10**25))
    scale = st.builds(Fraction, st.integers(1, 10**6), st.integers(1, 10**6))

    @settings(max_examples=300)
    @given(st.integers(1, 4).flatmap(lambda n: st.lists(st.lists(frac, min_size=n, max_size=n), min_size=1, max_size=4)),
           scale, st.sampled_from([8, 64, 100]))
    def same(mat, s, bits):
        Z, e = _dyadic_of(mat, bits, scale=s)
        want, e_want = _dyadic_reference([[x * s for x in row] for row in mat], bits)
        assert (list(map(int, Z.entries())), e) == (want, e_want)

    same()
    # ties: 3/2 and 5/2 at one bit below the point go to the even neighbour
    Z, e = _dyadic_of([[Fraction(3, 4), Fraction(5, 4)]], 2)
    assert (list(map(int, Z.entries())), e) == ([2, 2], 1)
    Z, e = _dyadic_of([[Fraction(0), Fraction(0)]], 64)
    assert (list(map(int, Z.entries())), e) == ([0, 0], 0)


def test_a_crossover_beyond_the_search_limit_is_not_reported_as_none_within_n(capsys, tmp_path):
    """A slow Jordan block crosses over near distance 25,000: the certificate claims nothing past 10,000, and the
    summary, the LaTeX and the macros said "none within n = 1000000" and "infinity" (a new user's review)."""
    from symssm.render.gradient import gradient_macros

    system = ssm([["9995/10000", 1], [0, "9995/10000"]], [[1], [1]], [[1, 0]])
    cert = gradient_certificate(system, 10 ** 6)
    assert cert["crossover_distance"] is None
    assert "CrossoverDistance" not in [name for name, _ in gradient_macros(cert.data)]
    assert "No crossover distance up to $10000$ is certified (the certified search ends there)." in cert.to_latex()
    spec = tmp_path / "j.json"
    spec.write_text('{"A": [["9995/10000", 1], [0, "9995/10000"]], "B": [[1], [1]], "C": [[1, 0]]}')
    assert main(["gradient", str(spec), "-n", "1000000", "-o", str(tmp_path / "g.json")]) == 0
    assert "crossover: none certified up to distance 10000 (the limit of the search" in capsys.readouterr().out
