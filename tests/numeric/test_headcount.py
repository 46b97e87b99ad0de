"""The numeric float path: agreement with exact head counts, array API portability, backends."""

import random
import sys

import array_api_strict
import numpy as np
import pytest

from symssm import head_count, ssm
from symssm.numeric.backend import get_namespace
from symssm.cli import main
from symssm.errors import BackendError, InputError
from symssm.sources.examples import EXAMPLES
from symssm.sources.families import diagonal, hippo_legs, jordan, s4d_real
from symssm.numeric.headcount import as_float_system, numeric_head_count


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda ex: ex.name)
def test_examples_table_agrees_with_exact(ex):
    for n in (1, 2, 3, 5, 50):
        assert numeric_head_count(ex.system, n).numerical_head_count == ex.k(n)


def _random_integer(seed, N, p, m):
    rng = random.Random(seed)
    mat = lambda r, c: [[rng.randint(-3, 3) for _ in range(c)] for _ in range(r)]
    return ssm(mat(N, N), mat(N, m), mat(p, N))


@pytest.mark.parametrize("seed, N, p, m", [(1, 40, 7, 7), (2, 36, 6, 7), (3, 40, 2, 3), (4, 25, 5, 5), (5, 12, 1, 1)])
def test_random_integer_systems_up_to_N40_agree(seed, N, p, m):
    """The normalised-lag rank (the diagnostic) finds the exact span of lags that grow by dozens of orders of
    magnitude; the head count at a tolerance is smaller where the late lags dominate the operator."""
    s = _random_integer(seed, N, p, m)
    res = numeric_head_count(s, 10**6)
    assert res.lag_rank == head_count(s, 10**6)
    assert res.numerical_head_count <= res.lag_rank and res.approximation_error[-1] <= res.tolerance


@pytest.mark.parametrize("system", [s4d_real(16, 3, 3, step="1"), hippo_legs(12, 3, 2), diagonal(10, 3, 3),
                                    jordan(10, 2, 2, eigenvalue="1/100"),
                                    ssm([["1/1000", 0, 0], [0, "1/100000", 0], [0, 0, "1/10000000"]],
                                        [[1, 0], [1, 1], [0, 1]], [[1, 1, 1], [1, 2, 3]])],
                         ids=lambda s: s.name or "fast-decay")
def test_fast_decaying_systems_agree(system):
    assert numeric_head_count(system, 10**5).lag_rank == head_count(system, 10**5)


def test_result_fields_and_labels():
    res = numeric_head_count(EXAMPLES[1].system, 8)
    data = res.to_json_data()
    for key in ("numerical_head_count", "singular_values", "tolerance", "gap", "approximation_error"):
        assert key in data
    assert data["numerical"] is True and "not a certificate" in data["note"]
    errs = res.approximation_error
    assert len(errs) == res.numerical_head_count + 1
    assert errs[0] == pytest.approx(1.0) and errs[-1] < 1e-7 and errs[-2] > 1e-3


def test_gap_is_reported_for_a_nearly_dependent_system():
    A = np.diag([0.5, 0.5 + 1e-6])  # two lags that are independent only at the 1e-6 level
    loose = numeric_head_count((A, np.ones((2, 1)), np.eye(2)), 2, tol=1e-3)
    assert loose.numerical_head_count == 1
    assert loose.gap is not None and loose.gap > 1e5
    strict = numeric_head_count((A, np.ones((2, 1)), np.eye(2)), 2, tol=1e-10)
    assert strict.numerical_head_count == 2 and strict.gap is None  # no s_3: nothing was neglected


@pytest.mark.parametrize("system, n", [(diagonal(6, 2, 2), 3000), (s4d_real(6, 2, 1), 5000),
                                       (_random_integer(9, 5, 2, 2), 60)])
def test_fast_forms_agree_with_the_direct_sum(system, n):
    direct = numeric_head_count(system, n, method="direct").approximation_error
    for method in ("horizon", "closed-form"):
        if method == "horizon" and float(max(abs(np.linalg.eigvals(np.array(system.A, dtype=float))))) >= 1:
            continue
        fast = numeric_head_count(system, n, method=method).approximation_error
        # The closed form takes eigenvalues of a Gram matrix: its absolute error is about
        # sqrt(eps * cond) relative to the largest term (about 1e-8 here), so compare at 1e-7.
        atol = 1e-7 if method == "closed-form" else 1e-12
        assert np.allclose(fast[:-1], direct[:-1], rtol=1e-6, atol=atol), (method, fast, direct)


@pytest.mark.parametrize("name", ["rotation", "two-rotations", "shift5-two-outputs", "diagonal-decay",
                                  "shift-with-feedthrough"])
@pytest.mark.parametrize("method", ["direct", "horizon"])
def test_error_curve_reaches_zero_at_the_head_count(name, method):
    from symssm.sources.examples import example

    res = numeric_head_count(example(name).system, 40, method=method)
    assert res.numerical_head_count == example(name).k(40)
    assert res.approximation_error[-1] < 1e-13, res.approximation_error


def test_closed_form_handles_huge_n_for_unstable_systems():
    res = numeric_head_count(_random_integer(9, 5, 2, 2), 10**9)
    assert res.approximation_method == "closed-form"
    assert all(np.isfinite(res.approximation_error)) and res.approximation_error[0] == pytest.approx(1.0)


def test_array_api_strict_namespace_runs_the_core():
    for ex in EXAMPLES[:4]:
        strict = numeric_head_count(ex.system, 40, xp=array_api_strict)
        plain = numeric_head_count(ex.system, 40)
        assert strict.numerical_head_count == plain.numerical_head_count
        assert np.allclose(strict.singular_values, plain.singular_values)
        assert np.allclose(strict.approximation_error, plain.approximation_error, atol=1e-12)
    s = diagonal(6, 2, 2)
    assert numeric_head_count(s, 5000, xp=array_api_strict).approximation_method == "horizon"


def test_broken_cupy_import_gives_a_clean_error(monkeypatch, capsys, tmp_path):
    monkeypatch.setitem(sys.modules, "cupy", None)  # makes 'import cupy' raise ImportError
    with pytest.raises(BackendError, match="CuPy"):
        get_namespace("cuda")
    spec = tmp_path / "s.json"
    spec.write_text('{"A": [[0.5]], "B": [[1]], "C": [[1]]}')
    assert main(["numeric", str(spec), "--device", "cuda"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("symssm: error: --device cuda needs CuPy") and err.count("\n") == 1


def test_float_inputs_and_errors(tmp_path, capsys):
    spec = tmp_path / "f.json"
    spec.write_text('{"name": "f", "A": [[0.5, 0.1], [0, -0.25]], "B": [[1], [0.3]], "C": [[1, 1]], "n": 100}')
    assert main(["numeric", str(spec), "--json"]) == 0
    assert '"numerical_head_count": 1' in capsys.readouterr().out
    spec.write_text('{"A": [["1e400"]], "B": [[1]], "C": [[1]]}')
    assert main(["numeric", str(spec)]) == 2
    assert "overflows float64" in capsys.readouterr().err
    with pytest.raises(InputError, match="not finite"):
        as_float_system([[np.nan]], [[1.0]], [[1.0]])
    with pytest.raises(InputError, match="C is 1x3 but A is 2x2"):
        as_float_system(np.eye(2), np.ones((2, 1)), np.ones((1, 3)))
    with pytest.raises(InputError, match="n must be an integer >= 1"):
        numeric_head_count(EXAMPLES[0].system, 0)


def test_plot_heads(tmp_path, capsys):
    spec = tmp_path / "f.json"
    spec.write_text('{"name": "f", "A": [[0.5, 0.1], [0, -0.25]], "B": [[1], [0.3]], "C": [[1, 1], [1, -1]]}')
    assert main(["plot", "heads", str(spec), "-o", str(tmp_path / "h.png")]) == 0
    assert (tmp_path / "h.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.parametrize("N", [64, 128])
def test_the_count_is_read_from_the_curve_for_a_fast_decaying_system(N):
    """A fast-decaying system: the horizon factor keeps ~18 directions while the lags span 64 (was an
    IndexError); the count is where the curve first drops below the tolerance."""
    import numpy as np

    from symssm.numeric.headcount import _errors_from_squares, numeric_head_count

    rng = np.random.default_rng(0)
    A = rng.standard_normal((N, N))
    A *= 0.1 / max(abs(np.linalg.eigvals(A)))
    res = numeric_head_count((A, rng.standard_normal((N, 8)), rng.standard_normal((8, N))), 10 ** 6)
    k = res.numerical_head_count
    errors = res.approximation_error
    assert len(errors) == k + 1 and errors[0] == 1.0
    assert all(a >= b for a, b in zip(errors, errors[1:]))  # non-increasing
    assert errors[-1] <= 1e-10 < errors[-2]
    assert res.lag_rank > 20 >= k  # the diagnostic counts directions the operator barely uses
    assert _errors_from_squares([4.0, 1.0], 4) == [1.0, (1 / 5) ** 0.5, 0.0, 0.0, 0.0]


@pytest.mark.parametrize("n", [10 ** 6, 10 ** 9, 10 ** 30])
def test_a_jordan_block_costs_log_n(n):
    """A defective A fell back to the direct sum: 14.5 s at n = 10^6, never ending at 10^30 (issue)."""
    import numpy as np

    from symssm.numeric.headcount import numeric_head_count

    A = np.array([[1.0, 1.0], [0.0, 1.0]])
    res = numeric_head_count((A, np.eye(2), np.eye(2)), n, tolerance=1e-7)
    assert res.approximation_method == "doubling" and res.lag_rank == 2
    e = res.approximation_error
    assert e[0] == 1.0 and abs(e[1] * n / 2 - 1) < 1e-5  # e_1 = (2/n)(1 + O(1/n)) here
    # the count is the least H with e_H <= tau: 2 while 2/n is above the tolerance, 1 once it is below
    assert res.numerical_head_count == (2 if n == 10 ** 6 else 1)


def test_the_doubling_gram_equals_the_direct_sum():
    import numpy as np

    from symssm.numeric.headcount import _weighted_gram_doubling

    rng = np.random.default_rng(7)
    for N, p, m, with_D in ((1, 1, 1, False), (2, 1, 3, True), (3, 2, 2, True), (4, 3, 2, False)):
        A = rng.standard_normal((N, N)) * 0.7
        B, C = rng.standard_normal((N, m)), rng.standard_normal((p, N))
        D = rng.standard_normal((p, m)) if with_D else None
        n = 9
        G = np.zeros((p * m, p * m))
        X = np.eye(N)
        for d in range(n):
            L = C @ X @ B + (D if (d == 0 and D is not None) else 0)
            G += (n - d) * np.outer(L.reshape(-1), L.reshape(-1))
            X = A @ X
        assert np.allclose(_weighted_gram_doubling(A, B, C, D, n), G, rtol=1e-12, atol=1e-12)


def test_overflow_is_refused_in_one_line(capsys):
    import numpy as np

    from symssm.errors import InputError
    from symssm.numeric.headcount import numeric_head_count

    with pytest.raises(InputError, match="overflow float64"):
        numeric_head_count((np.array([[2.0, 1.0], [0.0, 2.0]]), np.eye(2), np.eye(2)), 10 ** 8)


def test_doubling_is_logarithmic_beyond_16_states():
    """Defective A with N > 16 used the direct sum, linear in n."""
    import numpy as np

    from symssm.numeric.headcount import _weighted_gram_doubling, numeric_head_count

    def system(N):
        A = np.zeros((N, N))
        for i in range(0, N - 2, 2):
            th = 0.1 * (i + 1)
            A[i:i + 2, i:i + 2] = [[np.cos(th), -np.sin(th)], [np.sin(th), np.cos(th)]]
        A[N - 2:, N - 2:] = [[1, 1], [0, 1]]  # a Jordan block: no eigendecomposition
        return A

    rng = np.random.default_rng(3)
    A = system(40)
    B, C = rng.standard_normal((40, 3)), rng.standard_normal((2, 40))
    n = 300
    G = np.zeros((6, 6))
    X = np.eye(40)
    for d in range(n):
        L = C @ X @ B
        G += (n - d) * np.outer(L.reshape(-1), L.reshape(-1))
        X = A @ X
    assert np.allclose(_weighted_gram_doubling(A, B, C, None, n), G, rtol=1e-10, atol=1e-8 * np.abs(G).max())
    res = numeric_head_count((A, B, C), 10**12)  # float rotations drift (radius 1 + 2e-16) past ~10^15
    assert res.approximation_method == "doubling" and res.lag_rank == 6
    assert all(np.isfinite(res.approximation_error))
    # a Gram form: its curve is resolved to about 1e-8, and the result says that 1e-10 is below it
    assert 1e-9 < res.precision < 1e-6 and not res.resolved and not res.to_json_data()["resolved"]


def test_plot_heads_with_a_tolerance_on_every_example_spec(tmp_path, capsys):
    """'NamedFloatSystem' object has no attribute 'p' on every spec file: a figure or one line."""
    import glob
    import os

    from paths import ROOT

    pytest.importorskip("matplotlib")
    specs = sorted(glob.glob(os.path.join(ROOT, "docs", "example", "*.json")))
    assert len(specs) >= 8
    drawn = 0
    for spec in specs:
        code = main(["plot", "heads", spec, "--tolerance", "1e-3", "-o", str(tmp_path / "h.png")])
        out, err = capsys.readouterr()
        assert code in (0, 2) and "internal error" not in err and "Traceback" not in err, (spec, err)
        if code == 0:
            drawn += 1
            assert "numerical head count" in out and (tmp_path / "h.png").read_bytes()[:4] == b"\x89PNG"
        else:
            assert err.count("\n") == 1, err
    assert drawn >= 3
    # a float spec draws the numeric curve and its certified brackets (floats are exact dyadic rationals)
    spec = tmp_path / "f.json"
    spec.write_text('{"name": "f", "A": [[0.5, 0.1], [0, -0.25]], "B": [[1], [0.3]], "C": [[1, 1], [1, -1]]}')
    assert main(["plot", "heads", str(spec), "--tol", "1e-3", "-o", str(tmp_path / "f.svg")]) == 0
    assert "certified brackets drawn" in capsys.readouterr().out
    assert "certified bracket" in (tmp_path / "f.svg").read_text()


def test_plots_draw_on_a_given_axes_and_leave_the_backend_alone():
    matplotlib = pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    from symssm.render.plot import plot_heads

    backend = matplotlib.get_backend()
    res = numeric_head_count((np.diag([0.9, 0.5]), np.eye(2), np.eye(2)), 100, tolerance=1e-3)
    fig = plot_heads(res)
    assert isinstance(fig, Figure) and matplotlib.get_backend() == backend
    own = Figure()
    ax = own.add_subplot()
    assert plot_heads([res], ax=ax, tolerance=1e-3) is own and ax.get_xlabel() == "number of heads H"
    import symssm.render.plot as plot_module

    assert "matplotlib.use" not in open(plot_module.__file__).read()


def test_the_count_is_the_least_H_of_a_dense_oracle_on_random_systems():
    """Property: numeric_head_count's count and curve equal a dense float64 SVD of the weighted stack."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from layer_references import dense_curve, least_H, system_lags

    @settings(max_examples=25, deadline=None, derandomize=True)
    @given(st.integers(0, 10 ** 6), st.integers(1, 6), st.integers(1, 3), st.integers(1, 3), st.booleans(),
           st.sampled_from([0.3, 0.9, 0.999, 1.0]), st.sampled_from([16, 300, 5000]))
    def run(seed, N, p, m, with_D, radius, n):
        rng = np.random.default_rng(seed)
        A = rng.standard_normal((N, N))
        A *= radius / max(abs(np.linalg.eigvals(A)))
        B, C = rng.standard_normal((N, m)), rng.standard_normal((p, N))
        D = rng.standard_normal((p, m)) if with_D else None
        ref = dense_curve(system_lags(A, B, C, D, n).real)
        for tau in (1e-3, 1e-6):
            res = numeric_head_count((A, B, C, D), n, tolerance=tau)
            for H, e in enumerate(res.approximation_error):
                if ref[H] > 1e-7:
                    assert abs(e - ref[H]) <= 1e-6 * ref[H], (H, e, ref[H])
            k = res.numerical_head_count
            if all(abs(ref[h] - tau) > 1e-7 for h in (k - 1, k) if 0 <= h < len(ref)):
                assert k == least_H(ref, tau)

    run()


# ---------------------------------------------------------------- slow non-normal systems

def _slow_non_normal():
    """A slow mode (0.999999) behind a faster one (0.99): a power-iteration estimate finds about 0.994."""
    A = np.array([[0.999999, 0.002], [0.0, 0.99]])
    return A, np.array([[1.0, 0.0], [0.5, 1.0]]), np.array([[1.0, -1.0], [0.25, 1.0]])


def test_the_method_is_chosen_from_a_bound_that_holds_for_non_normal_matrices():
    from symssm.numeric.headcount import CLOSED_FORM_MIN_N, choose_method, decay_horizon_bound

    A = _slow_non_normal()[0]
    assert decay_horizon_bound(A, CLOSED_FORM_MIN_N) > CLOSED_FORM_MIN_N  # 0.999999^d decays over ~10^7 lags
    assert choose_method(A, 10**9) == "closed-form"
    # a transient: ||A^d|| grows to about 10^3 before decaying; the bound covers it and stays finite
    T = np.array([[0.5, 1000.0], [0.0, 0.5]])
    bound = decay_horizon_bound(T, CLOSED_FORM_MIN_N)
    norms = [np.linalg.norm(np.linalg.matrix_power(T, d), 2) for d in range(0, 400)]
    assert max(norms) > 100 and bound < 10**4
    assert np.linalg.norm(np.linalg.matrix_power(T, bound), 2) <= 2.0 ** -64 * 2
    assert choose_method(T, 10**9) == "horizon"
    assert decay_horizon_bound(np.zeros((3, 3)), 10) == 1 and decay_horizon_bound(np.eye(2), 10**6) == float("inf")


@pytest.mark.parametrize("A", [np.array([[0.999999, 0.002], [0.0, 0.99]]),  # slow, non-normal
                               np.array([[0.999999, 1.0], [0.0, 0.999999]]),  # defective: the doubling form
                               np.array([[0.2, 50.0, 0.0], [0.0, 0.9999999, 3.0], [0.0, 0.0, 0.5]])])
def test_slow_non_normal_systems_answer_at_1e9_and_1e12_and_agree_with_the_direct_sum_where_it_runs(A):
    N = A.shape[0]
    B = np.arange(1.0, 2 * N + 1).reshape(N, 2) / N
    C = np.array([[1.0] * N, [(-1.0) ** i for i in range(N)]])
    for n in (10**9, 10**12):  # the forms whose cost does not grow with n
        res = numeric_head_count((A, B, C), n, tolerance=1e-3)
        assert res.approximation_method in ("closed-form", "doubling")
        assert np.all(np.isfinite(res.approximation_error)) and res.numerical is True
    n = 3000  # where the direct sum runs: the same curve from every form
    direct = numeric_head_count((A, B, C), n, method="direct", tolerance=1e-12).approximation_error
    for method in ("closed-form", "doubling"):
        fast = numeric_head_count((A, B, C), n, method=method, tolerance=1e-12)
        assert np.allclose(fast.approximation_error[:len(direct) - 1], direct[:-1], rtol=1e-5, atol=1e-7), method


def test_an_error_equal_to_the_tolerance_is_named_in_the_note(tmp_path, capsys):
    """e_1 = 1/2 exactly (weights 4 and 3 on orthogonal lags of squared norms 9 and 4): tau = 0.5 sits on it."""
    spec = tmp_path / "edge.json"
    spec.write_text('{"name": "edge", "A": [[0, 0], [1, 0]], "B": [[0, 2], [3, -2]], "C": [[1, 1]]}')
    assert main(["numeric", str(spec), "-n", "4", "--tolerance", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "between 1 and 2" in out and "gap s_k/s_(k+1) = 1.732e+00" in out
    note = next(line for line in out.splitlines() if line.startswith("note:"))
    assert "e_1 = 5.000e-01 is within the precision" in note and "tau = 0.5" in note
    assert "a tolerance above it" not in note
    assert main(["numeric", str(spec), "-n", "4", "--tolerance", "1e-20"]) == 0
    note = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("note:"))
    assert "is not above the precision" in note
