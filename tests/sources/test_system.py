from fractions import Fraction

import numpy as np
import pytest
import sympy

from symssm.errors import FloatInExactPathError, InputError, LimitError, ShapeError
from symssm.sources.system import canonical_system, ssm, system_sha256


def test_dimensions_and_truncation():
    s = ssm([[1, 0], [0, 1]], [[1], [2]], [[1, 1]], [[3]])
    assert (s.N, s.m, s.p, s.has_D, s.truncation) == (2, 1, 1, True, 3)


def test_zero_D_is_no_D():
    s = ssm([[1]], [[1]], [[1]], [[0]])
    assert not s.has_D and s.truncation == 1


@pytest.mark.parametrize("A, B, C, D, match", [
    ([[1, 0], [0, 1]], [[1], [0]], [[1, 0, 0]], None, "C is 1x3 but A is 2x2"),
    ([[1, 0], [0, 1]], [[1]], [[1, 0]], None, "B is 1x1 but A is 2x2"),
    ([[1, 0]], [[1]], [[1, 0]], None, "A is 1x2 but must be square"),
    ([[1, 0], [0]], [[1], [0]], [[1, 0]], None, "A is ragged"),
    ([[1]], [[1]], [[1]], [[1, 2]], "D is 1x2 but must be p x m = 1x1"),
    ([], [[1]], [[1]], None, "A is empty"),
    ([[1]], [[]], [[1]], None, "m must be at least 1"),
])
def test_shape_errors_name_the_matrices(A, B, C, D, match):
    with pytest.raises(ShapeError, match=match):
        ssm(A, B, C, D)


def test_numpy_and_sympy_inputs():
    s = ssm(np.array([[1, 2], [3, 4]]), sympy.Matrix([[1], [0]]), [[sympy.Rational(1, 2), Fraction(1, 3)]])
    assert s.C[0] == (Fraction(1, 2), Fraction(1, 3))
    assert s.A[1][0] == 3


def test_numpy_float_array_points_to_numeric_path():
    with pytest.raises(FloatInExactPathError, match="symssm.numeric"):
        ssm(np.eye(2), [[1], [0]], [[1, 0]])


def test_not_a_matrix():
    with pytest.raises(InputError, match="A must be a matrix"):
        ssm(5, [[1]], [[1]])


def test_name_limits():
    with pytest.raises(LimitError):
        ssm([[1]], [[1]], [[1]], name="x" * 201)


def test_immutable_and_hashable():
    s = ssm([[1]], [[1]], [[1]])
    with pytest.raises(AttributeError):
        s.A = ()
    assert hash(s) == hash(ssm([[1]], [[1]], [["2/2"]]))


def test_canonical_form_and_hash_ignore_name_and_spelling():
    a = ssm([["0.5"]], [[1]], [[1]], name="a")
    b = ssm([["1/2"]], [[1]], [[1]], name="b")
    assert canonical_system(a) == '{"A":[["1/2"]],"B":[["1"]],"C":[["1"]],"D":null}\n'
    assert system_sha256(a) == system_sha256(b)


# ---------------------------------------------------------------- large matrices: texts and residues by entry codes

def _large(N=70, name=""):
    """A system whose A has more than 4,096 entries (the numpy indexing), with fractions and repeats."""
    vals = ["1/3", "-2", "0", "5/7", "-11/13", "4"]
    A = [[vals[(i * 7 + j * 3) % len(vals)] for j in range(N)] for i in range(N)]
    A[5][9] = "123456789012345678901234567891/7"
    return ssm(A, [[(i % 3) - 1] for i in range(N)], [[Fraction(1, (j % 4) + 1) for j in range(N)]], name=name)


@pytest.fixture(params=["numpy", "standard library"])
def indexing(request, monkeypatch):
    """Both ways of reading and formatting a large matrix: indexed with numpy, or object by object."""
    import symssm.sources.system as system_module

    monkeypatch.setattr(system_module, "_use_numpy", lambda entries: request.param == "numpy")
    return request.param


def test_large_entry_text_is_each_entry_formatted(indexing):
    from symssm.formats.jsonio import dumps_canonical
    from symssm.formats.rationals import format_rational

    s = _large()
    assert ("A" in s._codes) == (indexing == "numpy")  # found while reading, or not at all
    for key in ("A", "B", "C"):
        assert s.entry_text[key] == [[format_rational(x) for x in row] for row in getattr(s, key)]
    assert s.entry_text["A"][5][9] == "123456789012345678901234567891/7"
    assert s.canonical_text == dumps_canonical(s.entry_text)
    assert s.denominators == frozenset({3, 7, 13, 2, 4})


def test_entry_codes_gather_the_matrix(indexing):
    s = _large()
    values, codes = s.entry_codes("A")
    assert codes.shape == (70, 70)
    assert len(values) == 7  # six repeated texts and one long entry
    assert [[values[c] for c in row] for row in codes.tolist()] == [list(row) for row in s.A]


def test_residues_by_codes_equal_entry_by_entry(indexing):
    from symssm.exact.modfloat import residue_codes

    def residue_array(mat, prime):  # entry by entry
        return np.array([[x.numerator * pow(x.denominator, -1, prime) % prime for x in row] for row in mat])

    s = _large()
    for prime in (5, 2097143):
        if any(d % prime == 0 for d in s.denominators):
            continue
        for key in ("A", "B", "C"):
            assert (residue_codes(*s.entry_codes(key), prime) == residue_array(getattr(s, key), prime)).all()
        assert residue_codes(*s.entry_codes("A"), prime)[5][9] == \
            123456789012345678901234567891 * pow(7, -1, prime) % prime


def test_large_complex_entry_text(indexing):
    from symssm.formats.gaussian import format_gaussian
    from symssm.sources.complex_system import complex_ssm

    N = 70
    s = complex_ssm([[["1/2i", "3", "-1+i"][(i + j) % 3] for j in range(N)] for i in range(N)], [[1]] * N, [[1] * N])
    assert s.entry_text["A"] == [[format_gaussian(x) for x in row] for row in s.A]


def test_same_certificate_bytes_both_ways(monkeypatch):
    """A system read and formatted with numpy, or without, gives the same certificate."""
    import symssm.sources.system as system_module
    from symssm.api import certify

    texts = []
    for use in (True, False):
        monkeypatch.setattr(system_module, "_use_numpy", lambda entries, use=use: use)
        texts.append(certify(_large(name="large"), 100).to_json())
    assert texts[0] == texts[1]


def test_a_mid_size_gradient_imports_no_numpy(tmp_path):
    """numpy is loaded for a matrix's index only where its import pays (or it is already loaded)."""
    import json
    import subprocess
    import sys

    N = 80
    spec = {"A": [["1/3" if i == j else ("1/97" if j == i + 1 else "0") for j in range(N)] for i in range(N)],
            "B": [[1]] * N, "C": [[1] * N]}
    (tmp_path / "s.json").write_text(json.dumps(spec))
    code = ("import sys, runpy; sys.argv = ['symssm', 'gradient', 's.json', '-o', 'g.json']\n"
            "try:\n    runpy.run_module('symssm', run_name='__main__')\nexcept SystemExit as e:\n    assert not e.code\n"
            "print('numpy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "False"
