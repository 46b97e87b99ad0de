"""Specs as .npz archives: exact integer (or numerator/denominator) arrays, and float arrays for the numeric path."""

import json

import numpy as np
import pytest

from symssm.cli import main
from symssm.errors import InputError
from symssm.sources.arrays import read_npz_spec


def test_integer_and_fraction_arrays_give_the_same_system_as_json(tmp_path):
    A = np.array([[0, -1], [1, 0]])
    np.savez(tmp_path / "rot.npz", A=A, B=np.eye(2, dtype=int), C=np.eye(2, dtype=int), n=np.array(8))
    spec = read_npz_spec(tmp_path / "rot.npz")
    assert spec.n == 8 and spec.system.A[0][1] == -1
    np.savez(tmp_path / "frac.npz", A_num=np.array([[1, 0], [0, 1]]), A_den=np.array([[2, 1], [1, 3]]),
             B=np.eye(2, dtype=int), C=np.eye(2, dtype=int))
    assert str(read_npz_spec(tmp_path / "frac.npz").system.A[1][1]) == "1/3"
    (tmp_path / "rot.json").write_text(json.dumps({"A": A.tolist(), "B": [[1, 0], [0, 1]], "C": [[1, 0], [0, 1]]}))
    assert main(["certify", str(tmp_path / "rot.npz"), "-o", str(tmp_path / "a.json")]) == 0
    assert main(["certify", str(tmp_path / "rot.json"), "-n", "8", "-o", str(tmp_path / "b.json")]) == 0
    a, b = json.loads((tmp_path / "a.json").read_text()), json.loads((tmp_path / "b.json").read_text())
    assert a["input_sha256"] == b["input_sha256"] and a["head_count"] == b["head_count"] == 2


@pytest.mark.parametrize("arrays, match", [
    ({"A": np.eye(2), "B": np.eye(2), "C": np.eye(2)}, "float array"),
    ({"A": np.eye(2, dtype=int), "B": np.eye(2, dtype=int)}, "no matrix C"),
    ({"A": np.eye(2, dtype=int), "B": np.eye(2, dtype=int), "C": np.eye(2, dtype=int), "x": np.eye(2)}, "unknown"),
    ({"A_num": np.eye(2, dtype=int), "A_den": np.zeros((2, 2), dtype=int), "B": np.eye(2, dtype=int),
      "C": np.eye(2, dtype=int)}, "positive"),
    ({"A": np.ones((2, 2, 2), dtype=int), "B": np.eye(2, dtype=int), "C": np.eye(2, dtype=int)}, "2-D"),
])
def test_bad_archives_are_refused(tmp_path, arrays, match):
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(InputError, match=match):
        read_npz_spec(tmp_path / "bad.npz")


def test_object_arrays_are_never_unpickled(tmp_path, capsys):
    np.savez(tmp_path / "obj.npz", A=np.array([[object()]], dtype=object), B=np.eye(1, dtype=int),
             C=np.eye(1, dtype=int))
    assert main(["certify", str(tmp_path / "obj.npz"), "-o", str(tmp_path / "c.json")]) == 2
    assert "npz" in capsys.readouterr().err


def test_numeric_path_reads_float_archives(tmp_path, capsys):
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "f.npz", A=rng.standard_normal((30, 30)) / 10, B=rng.standard_normal((30, 2)),
             C=rng.standard_normal((2, 30)), n=np.array(1000))
    assert main(["numeric", str(tmp_path / "f.npz"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["numerical_head_count"] == 4
