import os

import pytest

from symssm.errors import LimitError, OutputError, ParseError
from symssm.formats.files import atomic_write
from symssm.formats.jsonio import dumps_canonical, loads_strict


def test_decimals_stay_exact_text():
    assert loads_strict('[0.1, 1e-3, 7]') == ["0.1", "1e-3", 7]


@pytest.mark.parametrize("text, match", [
    ('[NaN]', "NaN"), ('[Infinity]', "Infinity"), ('{"a": 1, "a": 2}', "duplicate key"),
    ('{"a": ', "not valid JSON"), ("[" * 40 + "]" * 40, "nests deeper"),
])
def test_strict_refusals(text, match):
    with pytest.raises((ParseError, LimitError), match=match):
        loads_strict(text)


def test_huge_integer_is_a_clean_error():
    with pytest.raises(LimitError, match="digits"):
        loads_strict("[" + "9" * 20000 + "]")


def test_non_utf8():
    with pytest.raises(ParseError, match="UTF-8"):
        loads_strict(b"\xff\xfe[1]")


def test_canonical_dumps_is_deterministic_and_sorted():
    a = dumps_canonical({"b": [1, 2], "a": {"y": 1, "x": [[1], [2]]}}, indent=2)
    b = dumps_canonical({"a": {"x": [[1], [2]], "y": 1}, "b": [1, 2]}, indent=2)
    assert a == b
    assert a.index('"a"') < a.index('"b"')
    assert a.endswith("\n")


def test_atomic_write_leaves_no_temporary(tmp_path):
    target = tmp_path / "out.json"
    atomic_write(target, "hello\n")
    assert target.read_text() == "hello\n"
    assert os.listdir(tmp_path) == ["out.json"]


def test_atomic_write_to_missing_folder(tmp_path):
    with pytest.raises(OutputError, match="does not exist"):
        atomic_write(tmp_path / "nope" / "x.json", "x")


def test_atomic_write_fsyncs_the_file_and_its_folder(tmp_path, monkeypatch):
    import os

    from symssm.formats import files

    synced = []
    real = os.fsync
    monkeypatch.setattr(files.os, "fsync", lambda fd: synced.append(fd) or real(fd))
    files.atomic_write(str(tmp_path / "a.json"), "{}\n")
    assert len(synced) == 2 and (tmp_path / "a.json").read_text() == "{}\n"
