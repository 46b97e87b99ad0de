"""The command line: summaries, exit codes, one-line errors, no partial files."""

import json
import os
import subprocess
import sys

import pytest

from symssm.cli import main

from paths import TESTS as HERE  # noqa: E402
ROT = os.path.join(HERE, "fixtures", "specs", "rotation.json")


def run(argv, capsys):
    code = main(argv)
    out = capsys.readouterr()
    return code, out.out, out.err


def test_certify_writes_and_summarises(tmp_path, capsys):
    out = tmp_path / "rot.cert.json"
    code, stdout, _ = run(["certify", ROT, "-o", str(out)], capsys)
    assert code == 0
    assert "k(8) = 2" in stdout and "single-head attention fails" in stdout and "verified" in stdout
    assert json.loads(out.read_text())["head_count"] == 2


def test_certify_n_override_and_method(tmp_path, capsys):
    out = tmp_path / "c.json"
    code, stdout, _ = run(["certify", ROT, "-n", "1", "--method", "modular", "-o", str(out)], capsys)
    assert code == 0 and "k(1) = 1" in stdout
    assert json.loads(out.read_text())["lower_bound"]["method"] == "modular"


def test_check_command(tmp_path, capsys):
    out = tmp_path / "c.json"
    run(["certify", ROT, "-o", str(out)], capsys)
    code, stdout, _ = run(["check", str(out), "--spec", ROT], capsys)
    assert code == 0 and stdout.startswith("VERIFIED")
    data = json.loads(out.read_text())
    data["head_count"] = 1
    out.write_text(json.dumps(data))
    code, stdout, _ = run(["check", str(out)], capsys)
    assert code == 1 and stdout.startswith("REJECTED: head_count")


def test_demo(tmp_path, capsys):
    code, stdout, _ = run(["demo", "--out", str(tmp_path / "d")], capsys)
    assert code == 0
    assert stdout.count("VERIFIED") == 4
    assert sorted(os.listdir(tmp_path / "d")) == sorted(
        f"{n}.cert.json" for n in ("rotation", "shift5-two-outputs", "two-rotations", "shift-with-feedthrough"))


@pytest.mark.parametrize("spec, message", [
    ('{"A": [[1, 0], [0, 1]], "B": [[1], [0]], "C": [[1, 0, 0]]}', "C is 1x3 but A is 2x2"),
    ('{"A": [[1]], "B": [[1]]}', "has no matrix C"),
    ('{"A": [[1]], "B": [[1]], "C": [["x"]]}', "C[0][0] 'x' is not an integer"),
    ('{"A": [[1]], "B": [[1]], "C": [[1]], "n": -3}', "n must be an integer >= 1"),
    ('{"A": [[1]], "B": [[1]], "C": [[1]], "n": 0}', "n must be an integer >= 1, got 0"),
    ('{"A": [[1]], "B": [[1]], "C": [[1]], "extra": 1}', "unknown key 'extra'"),
    ('{"A": [[NaN]], "B": [[1]], "C": [[1]]}', "NaN"),
    ('{"A": [[1]], "A": [[2]], "B": [[1]], "C": [[1]]}', "duplicate key"),
    ('[1, 2', "not valid JSON"),
])
def test_bad_specs_give_one_line_and_exit_2(tmp_path, capsys, spec, message):
    path = tmp_path / "s.json"
    path.write_text(spec)
    out = tmp_path / "out.json"
    code, stdout, stderr = run(["certify", str(path), "-o", str(out)], capsys)
    assert code == 2
    assert stderr.count("\n") == 1 and stderr.startswith("symssm: error: ") and message in stderr
    assert not out.exists()
    assert os.listdir(tmp_path) == ["s.json"]


@pytest.mark.parametrize("argv, message", [
    (["certify"], "give exactly one of a SPEC file or --family"),
    (["certify", "nope.json"], "no such file"),
    (["certify", ROT, "-n", "-4"], "argument -n"),
    (["certify", ROT, "--method", "fast"], "invalid choice"),
    (["frobnicate"], "invalid choice"),
    (["check"], "the following arguments are required"),
])
def test_usage_errors_are_one_line(capsys, argv, message):
    code, _, stderr = run(argv, capsys)
    assert code == 2 and message in stderr and stderr.count("\n") == 1


def test_python_dash_m_works_from_a_checkout(tmp_path):
    root = os.path.dirname(HERE)
    result = subprocess.run([sys.executable, "-m", "symssm", "certify", ROT, "-o", str(tmp_path / "x.json")],
                            cwd=root, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    result = subprocess.run([sys.executable, "-m", "symssm.checker", str(tmp_path / "x.json")],
                            cwd=root, capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.startswith("VERIFIED")


@pytest.mark.parametrize("argv", [
    ["certify", "--family", "diagonal", "-N", "2", "-p", "1", "-m", "1", "-n", "0"],
    ["certify", "--family", "diagonal", "-N", "2", "-p", "1", "-m", "1", "--tolerance", "1e-3", "-n", "0"],
    ["gradient", "--family", "diagonal", "-N", "2", "-p", "1", "-m", "1", "-n", "0"],
    ["numeric", "--family", "diagonal", "-N", "2", "-p", "1", "-m", "1", "--length", "0"],
    ["framework", "-n", "0"],
])
def test_a_length_of_zero_is_refused_in_one_line(tmp_path, capsys, argv):
    code, stdout, stderr = run(argv + ["-o", str(tmp_path / "out")], capsys)
    assert code == 2 and stdout == ""
    assert stderr.count("\n") == 1 and "the sequence length must be an integer >= 1, got 0" in stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("text", ["-3", "1.5", "eight"])
def test_a_length_that_is_no_count_names_the_range_a_length_takes(tmp_path, capsys, text):
    code, stdout, stderr = run(["certify", "--family", "diagonal", "-N", "2", "-p", "1", "-m", "1", "-n", text,
                                "-o", str(tmp_path / "out")], capsys)
    assert code == 2 and stdout == "" and stderr.count("\n") == 1
    assert f"the sequence length must be an integer >= 1 (at most 40 digits), got {text!r}" in stderr


def test_a_length_of_zero_is_refused_by_every_builder():
    from symssm import certify, ssm
    from symssm.errors import InputError

    rot = ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]], name="rot")
    for kwargs in ({}, {"tolerance": "1/10"}):
        with pytest.raises(InputError, match="n must be an integer >= 1, got 0"):
            certify(rot, 0, **kwargs)
