"""The independent checker: fixtures, exit codes, and its independence from the generator."""

import ast
import json
import os
import subprocess
import sys

import pytest

import symssm.checker
from symssm.checker import check_file
from symssm.checker import linalg
from symssm.checker.cli import main as check_main

from paths import TESTS as HERE  # noqa: E402
FIX = os.path.join(HERE, "fixtures", "head_count")
EXPECTED = json.load(open(os.path.join(FIX, "EXPECTED.json")))


def test_valid_fixtures_verify():
    for name in ("two-rotations.cert.json", "two-rotations.modular.cert.json"):
        assert check_main([os.path.join(FIX, name), "--quiet"]) == 0


def test_fixture_matches_what_certify_emits_today():
    from symssm import certify
    from symssm.sources.spec import read_spec

    spec = read_spec(os.path.join(FIX, "two-rotations.spec.json"))
    with open(os.path.join(FIX, "two-rotations.cert.json")) as fh:
        assert certify(spec.system, 8, method="exact").to_json() == fh.read()


#: Fixtures whose corruption is a number written against the format: unreadable (exit 2), the field named.
MALFORMED = {"bad-float-entry.cert.json", "bad-not-canonical.cert.json"}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corrupted_fixtures_are_rejected_naming_the_obligation(name, capsys):
    assert len(EXPECTED) >= 20
    _named(check_main([os.path.join(FIX, name)]), capsys.readouterr(), EXPECTED[name], name in MALFORMED)


def _named(code, captured, field, malformed):
    """A rejection (exit 1, ``REJECTED: field: ...``) or, for a field written against the format, exit 2 with
    ``malformed certificate: field: ...`` on standard error."""
    if malformed:
        assert code == 2 and not captured.out
        assert captured.err.startswith(f"symssm-check: error: malformed certificate: {field}:"), captured.err
        return
    assert code == 1
    assert captured.out.startswith(f"REJECTED: {field}:"), captured.out


def test_spec_binding():
    cert = os.path.join(FIX, "two-rotations.cert.json")
    assert check_main([cert, "--spec", os.path.join(FIX, "two-rotations.spec.json"), "-q"]) == 0
    other = os.path.join(HERE, "fixtures", "specs", "rotation.json")
    assert check_main([cert, "--spec", other, "-q"]) == 1


@pytest.mark.parametrize("content, code", [
    (b"", 2), (b"not json", 2), (b"[1, 2]", 2), (b'{"format": "other"}', 2), (b"\xff\xfe", 2),
    (b'{"format": "symssm-certificate", "version": 1, "x": NaN}', 2),
    (b'{"format": "symssm-certificate"}', 1),
    (b'{"format": "symssm-certificate", "version": 1, "kind": "head-count"}', 1),
])
def test_unreadable_and_skeletal_inputs(tmp_path, content, code):
    path = tmp_path / "c.json"
    path.write_bytes(content)
    assert check_file(str(path)).code == code


def test_missing_file_is_exit_2(tmp_path):
    assert check_main([str(tmp_path / "none.json"), "-q"]) == 2


def _imports(path):
    tree = ast.parse(open(path).read())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, 0
        elif isinstance(node, ast.ImportFrom):
            yield node.module or "", node.level
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "__import__":
            yield "__import__", 0


def test_checker_imports_only_the_standard_library():
    folder = os.path.dirname(symssm.checker.__file__)
    for fname in os.listdir(folder):
        if not fname.endswith(".py"):
            continue
        for module, level in _imports(os.path.join(folder, fname)):
            if level:  # relative: must stay inside the checker package
                assert level == 1, f"{fname} imports from outside symssm.checker"
                continue
            top = module.split(".")[0]
            assert top != "__import__", fname
            assert top in sys.stdlib_module_names or top in ("numpy", "flint"), f"{fname} imports {module}"


def test_checker_runs_without_sympy_or_generator_modules():
    code = ("import sys, symssm.checker as c; r = c.check_file(sys.argv[1]); "
            "bad = [m for m in sys.modules if m.startswith('sympy') or "
            "(m.startswith('symssm.') and not m.startswith('symssm.checker') and m != 'symssm._version')]; "
            "print(r.code, bad)")
    out = subprocess.run([sys.executable, "-c", code, os.path.join(FIX, "two-rotations.cert.json")],
                         capture_output=True, text=True, check=True).stdout
    assert out.strip() == "0 []"


def test_int64_overflow_guard():
    P = 2**31 - 1  # largest prime the checker accepts: a single product is below 2**62
    assert linalg.safe_chunk(P) >= 2
    assert linalg.safe_chunk(P) * (P - 1) ** 2 <= 2**63 - 1
    n = 64
    A = [[P - 1] * n for _ in range(3)]
    X = [[P - 1] * 2 for _ in range(n)]
    expected = [[(n * (P - 1) ** 2) % P] * 2 for _ in range(3)]
    assert linalg.matmul_mod(A, X, P) == expected
    import numpy as np

    assert linalg.matmul_mod_np(np.array(A, dtype=np.int64), np.array(X, dtype=np.int64), P).tolist() == expected


def test_numpy_and_python_leading_minors_agree(monkeypatch):
    import random

    rng = random.Random(3)
    P = 2**31 - 1
    M = [[rng.randrange(P) for _ in range(12)] for _ in range(12)]
    from symssm.checker import accel, lags

    fast = lags.leading_minors_mod(M, P)
    assert accel.np is None or accel.leading_minors_mod(M, P) == fast  # the accelerator answered
    monkeypatch.setattr(accel, "np", None)
    assert accel.leading_minors_mod(M, P) is None and lags.leading_minors_mod(M, P) == fast


def test_pure_python_fallback_agrees(monkeypatch):
    P = 67108859
    A = [[P - 1, 5], [3, P - 2]]
    X = [[P - 7], [11]]
    import numpy as np

    from symssm.checker import fast, lags

    pure = lags.matmul_mod(A, X, P)
    assert fast.matmul_mod_np(np.array(A, dtype=np.int64), np.array(X, dtype=np.int64), P).tolist() == pure


def test_prime_dividing_a_denominator_is_refused():
    from symssm import certify, ssm

    d = certify(ssm([["1/3", 0], [0, 1]], [[1], [1]], [[1, 1]]), 4, method="modular").data
    d["lower_bound"]["prime"] = 3
    result = symssm.checker.check_data(d)
    assert result.code == 1 and "divides a denominator" in result.message


def test_a_different_prime_where_the_minor_is_singular_is_rejected():
    from symssm import certify, ssm

    q = 1_000_003  # prime; L_0 = q, so the 1x1 minor vanishes modulo q
    d = certify(ssm([["1/2"]], [[1]], [[q]]), 4, method="modular").data
    assert symssm.checker.check_data(d).verified
    d["lower_bound"]["prime"] = q
    d["lower_bound"]["determinant_mod_p"] = 0
    result = symssm.checker.check_data(d)
    assert result.code == 1 and result.message.startswith("lower_bound.minor mod P")


def test_modular_and_exact_agree_on_a_large_generic_system():
    import random

    from symssm import ssm
    from symssm.exact.headcount import find_witness

    rng = random.Random(5)
    N, p, m = 40, 3, 3
    s = ssm([[rng.randint(-3, 3) for _ in range(N)] for _ in range(N)],
            [[rng.randint(-3, 3) for _ in range(m)] for _ in range(N)], [[rng.randint(-3, 3) for _ in range(N)] for _ in range(p)])
    assert find_witness(s, method="modular").lags == find_witness(s, method="exact").lags


GRADIENT = os.path.join(HERE, "fixtures", "gradient")
GRADIENT_EXPECTED = json.load(open(os.path.join(GRADIENT, "EXPECTED.json")))


def test_gradient_fixture_verifies_and_is_bound_to_its_spec():
    cert = os.path.join(GRADIENT, "non-normal-decay.gradient.json")
    assert check_main([cert, "--quiet"]) == 0
    assert check_main([cert, "--spec", os.path.join(GRADIENT, "non-normal-decay.spec.json"), "-q"]) == 0
    assert check_main([cert, "--spec", os.path.join(HERE, "fixtures", "specs", "rotation.json"), "-q"]) == 1


@pytest.mark.parametrize("name", sorted(GRADIENT_EXPECTED))
def test_corrupted_gradient_fixtures_are_rejected_naming_the_obligation(name, capsys):
    assert len(GRADIENT_EXPECTED) >= 15
    _named(check_main([os.path.join(GRADIENT, name)]), capsys.readouterr(), GRADIENT_EXPECTED[name],
           name == "bad-boolean-n.gradient.json")


GRADIENT2 = os.path.join(HERE, "fixtures", "gradient2")
GRADIENT2_EXPECTED = json.load(open(os.path.join(GRADIENT2, "EXPECTED.json")))


def test_version_2_gradient_fixture_verifies_and_is_bound_to_its_spec():
    cert = os.path.join(GRADIENT2, "non-normal-decay.gradient.json")
    assert json.load(open(cert))["version"] == 2
    assert check_main([cert, "--quiet"]) == 0
    assert check_main([cert, "--spec", os.path.join(GRADIENT2, "non-normal-decay.spec.json"), "-q"]) == 0
    assert check_main([cert, "--spec", os.path.join(HERE, "fixtures", "specs", "rotation.json"), "-q"]) == 1


@pytest.mark.parametrize("name", sorted(GRADIENT2_EXPECTED))
def test_forged_version_2_gradient_certificates_are_rejected_naming_the_obligation(name, capsys):
    """An adversary's edits of a version-2 certificate (tests/fixtures/make_fixtures.py says what each one does):
    a P that no longer decreases, factors of the wrong shape or sign, a wrong r, mu, M or weights, another system
    with its hash recomputed."""
    assert len(GRADIENT2_EXPECTED) >= 30
    _named(check_main([os.path.join(GRADIENT2, name)]), capsys.readouterr(), GRADIENT2_EXPECTED[name],
           name == "bad-boolean-n.gradient.json")


def test_every_version_1_gradient_certificate_of_the_catalogue_still_verifies():
    folder = os.path.join(GRADIENT, "catalogue-v1")
    names = sorted(os.listdir(folder))
    assert len(names) == 24
    for name in names:
        assert check_main([os.path.join(folder, name), "--quiet"]) == 0, name


def test_pure_mode_gives_the_same_verdicts_as_the_accelerators():
    """SYMSSM_CHECKER_PURE=1 forces the standard library; every fixture gets the same exit code and line."""
    names = [os.path.join(FIX, n) for n in sorted(os.listdir(FIX)) if n.endswith(".cert.json")]
    names += [os.path.join(GRADIENT, n) for n in sorted(os.listdir(GRADIENT)) if n.endswith(".gradient.json")]
    names += [os.path.join(GRADIENT2, n) for n in sorted(os.listdir(GRADIENT2)) if n.endswith(".gradient.json")]
    code = ("import sys, json, symssm.checker as c, symssm.checker.linalg as l; "
            "print(json.dumps([l.accelerators()] + [[c.check_file(p).code, c.check_file(p).message] "
            "for p in sys.argv[1:]]))")
    runs = []
    for pure in ("", "1"):
        env = dict(os.environ, SYMSSM_CHECKER_PURE=pure)
        out = subprocess.run([sys.executable, "-c", code, *names], capture_output=True, text=True, check=True,
                             env=env).stdout
        runs.append(json.loads(out))
    assert runs[1][0] == [] and runs[0][0]  # pure mode used no accelerator; the default used some
    assert runs[0][1:] == runs[1][1:]


def test_large_modular_certificates_agree_in_both_modes(tmp_path):
    """The float64 fast paths (lags by baby/giant steps, blocked minors) against the pure ones."""
    from symssm import certify
    from symssm.sources.families import random_system

    cert = certify(random_system(80, 9, 9, seed=7), 10**6)  # K = 80 > 64: the blocked minors run
    assert cert["lower_bound"]["method"] == "modular"
    path = tmp_path / "c.json"
    cert.save(path)
    codes = []
    for pure in ("", "1"):
        result = subprocess.run([sys.executable, "-m", "symssm.checker", str(path)], capture_output=True, text=True,
                                env=dict(os.environ, SYMSSM_CHECKER_PURE=pure))
        codes.append((result.returncode, result.stdout))
    assert codes[0] == codes[1] and codes[0][0] == 0


def test_blocked_leading_minors_equal_the_unblocked_ones():
    import random

    P = 2097143
    rng = random.Random(5)
    for n in (65, 130, 200):
        M = [[rng.randrange(P) for _ in range(n)] for _ in range(n)]
        assert linalg._leading_minors_blocked(M, P) == linalg._leading_minors_mod_np(M, P)
        M[99 % n][:100] = M[98 % n][:100]  # a zero leading minor in the middle
        assert linalg._leading_minors_blocked(M, P) == linalg._leading_minors_mod_np(M, P)


# ---------------------------------------------------------------- the system read once: hash text, residues, denominators

def test_checker_hash_text_is_json_dumps():
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from symssm.checker.reading import canonical_json

    text = st.one_of(st.sampled_from(["1", "-2/3", "0"]), st.text(alphabet='"\\\n\x7fé1/', max_size=3))
    matrices = st.one_of(st.none(), st.lists(st.one_of(st.lists(text, max_size=4), text, st.integers()), max_size=3))

    @settings(max_examples=300)
    @given(st.dictionaries(st.sampled_from(["A", "B", "C", "D"]), matrices))
    def same(mats):
        want = json.dumps(mats, sort_keys=True, ensure_ascii=True, separators=(",", ":"), allow_nan=False) + "\n"
        assert canonical_json(mats) == want

    same()


def _read(system_json):
    from symssm.checker.reading import Ledger, read_system

    return read_system(Ledger(), system_json)


def test_minor_mod_from_texts_equals_from_fractions():
    """The reduction by distinct texts (numpy) and the entry-by-entry reduction give the same minor."""
    N, m, p = 70, 2, 3
    vals = ["1/3", "-2", "0", "5/7", "4"]
    system_json = {"name": "", "N": N, "m": m, "p": p, "D": [["1", "0"], ["0", "-1/2"], ["3", "3"]],
                   "A": [[vals[(i * 5 + j) % 5] for j in range(N)] for i in range(N)],
                   "B": [[vals[(i + j) % 5] for j in range(m)] for i in range(N)],
                   "C": [[vals[(i * j) % 5] for j in range(N)] for i in range(p)]}
    system = _read(system_json)
    assert set(system["texts"]) == {"A", "B", "C", "D"}
    assert {x.denominator for x in system["distinct"]} == {1, 2, 3, 7}
    lags, cells = [0, 1, 2, 5], [(0, 0), (1, 1), (2, 0), (2, 1)]
    fast = linalg.minor_mod(system, lags, cells, 2097143)
    slow = linalg.minor_mod({k: v for k, v in system.items() if k != "texts"}, lags, cells, 2097143)
    assert fast == slow
    exact = linalg.exact_lags(system, 6)
    assert fast == [[int(exact[d][r][c].numerator * pow(exact[d][r][c].denominator, -1, 2097143) % 2097143)
                     for r, c in cells] for d in lags]
