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


# ---------------------------------------------------------------- rows of plain texts joined (the same bytes)

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from symssm.formats import jsonio  # noqa: E402
from symssm.formats.jsonio import dumps_canonical_matrices  # noqa: E402

# Texts JSON writes as themselves, and the ones it must escape: a quote, a backslash, control
# characters, DEL, non-ASCII; and rows that are not rows of texts at all.
_TEXT = st.one_of(st.sampled_from(["1", "-3/4", "0", "", "12345678901234567890"]),
                  st.text(alphabet=st.sampled_from(['"', "\\", "\n", "\x00", "\x7f", "é", "a", "/", " "]), max_size=4))
_ROW = st.one_of(st.lists(_TEXT, max_size=5), st.lists(st.one_of(_TEXT, st.integers(-5, 5), st.none()), max_size=4))
_MATRIX = st.one_of(st.none(), st.lists(_ROW, max_size=4), st.lists(st.one_of(_ROW, _TEXT), max_size=3))


@settings(max_examples=300)
@given(st.dictionaries(st.sampled_from(["A", "B", "C", "D", "é", 'q"']), _MATRIX, max_size=4))
def test_matrices_text_is_dumps_canonical(mats):
    assert dumps_canonical_matrices(mats) == dumps_canonical(mats)


@settings(max_examples=300)
@given(st.dictionaries(st.sampled_from(["system", "A", "x"]),
                       st.one_of(_MATRIX, st.dictionaries(st.sampled_from(["A", "B"]), _MATRIX, max_size=2)), max_size=3))
def test_pretty_form_is_unchanged_by_joined_rows(mats):
    """The pretty writer joins rows of plain texts; with the joining switched off it writes the same bytes."""
    joined = dumps_canonical(mats, indent=2)
    original = jsonio._plain_row
    jsonio._plain_row = lambda items, sep: None
    try:
        encoded = dumps_canonical(mats, indent=2)
    finally:
        jsonio._plain_row = original
    assert joined == encoded


def test_plain_row_refuses_what_json_escapes():
    assert jsonio._plain_row(["1", "-2/3"], ",") == '["1","-2/3"]'
    for row in (['a"b'], ["a\\b"], ["\n"], ["\x7f"], ["é"], [1, "2"], [], "12"):
        assert jsonio._plain_row(row, ",") is None
    assert dumps_canonical({"A": [["1", "-2"], ["3", "4/5"]], "D": None}, indent=2) == \
        '{\n  "A": [\n    ["1", "-2"],\n    ["3", "4/5"]\n  ],\n  "D": null\n}\n'


def test_the_digit_limit_is_symssm_s_whatever_the_interpreter_allows():
    """A 20,000-digit integer is refused by symssm's own 10,000-digit limit even when the interpreter's limit is off
    (``sys.set_int_max_str_digits(0)``, as a fuzzer's main may set it), by the generator's reader and the checker's;
    10,000 digits are read, whatever the interpreter's limit (here also its lowest, 640)."""
    import sys

    from symssm.checker.kernel import Unreadable, parse_json

    before = sys.get_int_max_str_digits()
    try:
        for limit in (0, 640):
            sys.set_int_max_str_digits(limit)
            with pytest.raises(LimitError, match="10000"):
                loads_strict("[" + "7" * 20_000 + "]")
            with pytest.raises(Unreadable, match="10000"):
                parse_json("[" + "7" * 20_000 + "]", "certificate")
            assert loads_strict("[" + "7" * 10_000 + "]")[0] % 10 == 7
            assert parse_json("[-" + "7" * 10_000 + "]", "certificate")[0] % 10 == 3
    finally:
        sys.set_int_max_str_digits(before)
