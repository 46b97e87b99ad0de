"""The integer-matrix fast path of the readers: it gives what json.loads gives, or declines (never a different answer).

The generator's reader (formats/intmatrix.py) and the checker's (checker/bulk.py) are written separately; both are
held to the same oracle here: the ordinary JSON reader and the canonical number grammar.
"""

import json
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from symssm.checker import bulk
from symssm.formats import intmatrix
from symssm.formats.intmatrix import parse_matrix

CANONICAL = re.compile(r"-?(0|[1-9][0-9]*)\Z")


def _oracle(region, quoted):
    """What the ordinary readers make of a matrix text: its values, or None when it is not a canonical integer
    matrix of the fast path's kind."""
    try:
        value = json.loads(region)
    except ValueError:
        return None
    if not isinstance(value, list) or not value or not all(isinstance(r, list) and r for r in value):
        return None
    if len({len(r) for r in value}) != 1:
        return None
    flat = [x for r in value for x in r]
    if quoted:
        if not all(type(x) is str and CANONICAL.match(x) and x != "-0" and len(x.lstrip("-")) <= 18 for x in flat):
            return None
        return [[int(x) for x in r] for r in value]
    if not all(type(x) is int and not isinstance(x, bool) and abs(x) < 10**18 for x in flat):
        return None
    return value


def _both(region):
    """The generator's and the checker's readings, as (values or None, canonical text or None)."""
    g, c = parse_matrix(region), bulk.read_matrix(region)
    return ((g.array.tolist(), g.canonical) if g is not None else None,
            (c.values.tolist(), c.text) if c is not None else None)


values = st.integers(min_value=-10**18 + 1, max_value=10**18 - 1) | st.integers(min_value=-99, max_value=99)
shapes = st.tuples(st.integers(1, 5), st.integers(1, 5))


@settings(max_examples=300, deadline=None, derandomize=True)
@given(shapes.flatmap(lambda rc: st.lists(st.lists(values, min_size=rc[1], max_size=rc[1]), min_size=rc[0],
                                          max_size=rc[0])),
       st.booleans(), st.sampled_from([(",", ":"), (", ", ": "), (",", ": ")]), st.sampled_from([None, 0, 2]))
def test_valid_matrices_in_any_layout_are_read_exactly(matrix, quoted, separators, indent):
    data = [[str(x) for x in row] for row in matrix] if quoted else matrix
    region = json.dumps(data, separators=separators, indent=indent).encode()
    generator, checker = _both(region)
    canonical = json.dumps([[str(x) for x in row] for row in matrix], separators=(",", ":")).encode()
    for got in (generator, checker):
        if got is not None:  # a layout the fast path declines goes to the ordinary reader
            assert got == (matrix, canonical)
    if indent is None:  # the layouts symssm and json.dump write are always taken
        assert generator == (matrix, canonical)
        if quoted:
            assert checker == (matrix, canonical)


TOKENS = ["0", "1", "-1", "12", "-0", "01", "-01", "00", "-", "", " 1", "1 ", "1 2", "+1", "1e3", "1.0", "--1", "1-",
          "9" * 18, "9" * 19, "-" + "9" * 18, "-" + "9" * 19, "1" + "0" * 18, '"1"', "[1]", "null", "true"]


@settings(max_examples=400, deadline=None, derandomize=True)
@given(st.lists(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=3), min_size=1, max_size=3), st.booleans(),
       st.sampled_from([",", ", ", " ,", ",\n  "]))
def test_hostile_tokens_are_never_read_differently_from_json(rows, quoted, sep):
    """Leading zeros, -0, a lone '-', blanks in strings, 19 digits, mixed kinds: the fast path either reads what
    json.loads reads (and only canonical integers) or declines."""
    cells = [[f'"{t}"' if quoted else t for t in row] for row in rows]
    region = ("[" + sep.join("[" + sep.join(row) + "]" for row in cells) + "]").encode()
    want = _oracle(region, quoted)
    generator, checker = _both(region)
    assert generator is None or generator[0] == want
    if not quoted:
        assert generator is None or all(type(json.loads(t)) is int for row in rows for t in row)
    assert checker is None or checker[0] == want


def test_the_pretty_certificate_layout_and_the_spec_layout_are_taken():
    pretty = b'[\n      ["1", "-20"],\n      ["300", "0"]\n    ]'
    assert parse_matrix(pretty).canonical == b'[["1","-20"],["300","0"]]'
    assert bulk.read_matrix(pretty).text == b'[["1","-20"],["300","0"]]'
    assert parse_matrix(b"[[1, -20], [300, 0]]").canonical == b'[["1","-20"],["300","0"]]'
    assert not bulk.read_matrix(b"[[1, -20], [300, 0]]").quoted  # JSON integers: a spec, never a certificate


def test_extract_keeps_everything_else_for_json_and_puts_the_matrices_back():
    from symssm.formats.jsonio import _put_back

    doc = (b'{"name": "A: [[1]] in a name", "A": [[1, 2], [3, 4]], "B": [[5], [6]], "C": [["7", "8"]], '
           b'"D": [[1.5]], "n": 3}')
    rest, found = intmatrix.extract_matrices(doc)
    assert len(found) == 3 and b"[[1.5]]" in rest  # D is not an integer matrix: left to json
    data = _put_back(json.loads(rest), found)
    assert data["name"] == "A: [[1]] in a name" and data["D"] == [[1.5]]
    assert data["A"].array.tolist() == [[1, 2], [3, 4]] and data["C"].canonical == b'[["7","8"]]'
    certificate = b'{"system": {"A": [["1"]], "B": [["2"]]}, "lyapunov": {"A": [[9]]}}'
    rest, found = intmatrix.extract_matrices(certificate)
    assert len(found) == 3 and _put_back(json.loads(rest), found) is None  # a matrix elsewhere: read the usual way
    assert intmatrix.extract_matrices(doc.replace(b"name", b"na\\u006de")) is None  # a backslash: the usual way


def test_from_array_writes_the_canonical_text():
    m = intmatrix.from_array(np.array([[0, -5], [10**17, 3]]))
    assert m.canonical == b'[["0","-5"],["100000000000000000","3"]]'
    assert intmatrix.from_array(np.array([[10**18]])) is None
    assert parse_matrix(m.canonical).array.tolist() == m.array.tolist()


def test_large_specs_read_by_the_fast_path_give_the_same_system_and_certificate(tmp_path, monkeypatch):
    """A spec over the size threshold: the same system (hash, entries) and byte-identical certificates as the
    ordinary reading; also from an .npz archive."""
    import symssm.formats.jsonio as jsonio
    from symssm import certify
    from symssm.sources.arrays import read_npz_spec
    from symssm.sources.spec import read_spec
    from symssm.sources.system import IntRows

    rng = np.random.default_rng(3)
    A, B, C = rng.integers(-50, 51, (40, 40)), rng.integers(-5, 6, (40, 3)), rng.integers(-5, 6, (2, 40))
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"name": "big", "A": A.tolist(), "B": B.tolist(), "C": C.tolist(), "n": 100}))
    plain = read_spec(str(path)).system
    monkeypatch.setattr(jsonio, "BULK_BYTES", 1)
    fast = read_spec(str(path)).system
    assert isinstance(fast.A, IntRows) and not isinstance(plain.A, IntRows)
    assert fast == plain and fast.sha256 == plain.sha256 and fast.A[3] == plain.A[3]
    assert certify(fast, 100).to_json() == certify(plain, 100).to_json()
    np.savez(tmp_path / "s.npz", A=A, B=B, C=C)
    assert read_npz_spec(str(tmp_path / "s.npz")).system.sha256 == plain.sha256


def test_limits_of_integer_systems_are_shared_and_fit_the_checkers_memory():
    from symssm.checker import reading
    from symssm.checker.isolate import MEMORY_LIMIT
    from symssm.formats import limits

    from symssm.checker import limits as C

    assert C.MAX_INTEGER_ENTRIES == limits.MAX_INTEGER_ENTRIES
    assert C.MAX_INTEGER_BYTES == limits.MAX_INTEGER_FILE_BYTES
    assert reading.MAX_ENTRIES == limits.MAX_ENTRIES and reading.MAX_BYTES == limits.MAX_FILE_BYTES
    assert limits.MAX_INTEGER_ENTRIES >= 4096 ** 2 + 2 * 4096 * 64 + 64 ** 2  # N = 4096, p = m = 64
    assert limits.integer_system_memory(4096, 64, 64) < MEMORY_LIMIT
    assert bulk.DIGITS == intmatrix.MAX_INT_DIGITS


def test_too_many_entries_are_refused_from_the_shapes(monkeypatch):
    from symssm import ssm
    from symssm.errors import LimitError
    from symssm.formats import limits
    import symssm.sources.system as system

    monkeypatch.setattr(system, "MAX_INTEGER_ENTRIES", 100)
    monkeypatch.setattr(system, "MAX_ENTRIES", 50)
    with pytest.raises(LimitError, match="the limit is 100"):
        ssm(intmatrix.from_array(np.ones((10, 10), dtype=int)), np.ones((10, 1), dtype=int), np.ones((1, 10), int))
    with pytest.raises(LimitError, match=r"the limit is 50 \(100 for integer matrices"):
        ssm([["1/2"] * 7] * 7, [[1]] * 7, [[1] * 7])
    assert limits.MAX_ENTRIES < limits.MAX_INTEGER_ENTRIES


def test_a_certificate_over_q_i_keeps_its_lists(tmp_path, monkeypatch):
    import symssm.formats.jsonio as jsonio
    from symssm import certify, load_certificate
    from symssm.sources.complex_system import complex_ssm

    cert = certify(complex_ssm([[0, 1], [-1, 0]], [["1i"], [1]], [[1, "2i"]]), 5)
    cert.save(str(tmp_path / "g.json"))
    monkeypatch.setattr(jsonio, "BULK_BYTES", 1)
    again = load_certificate(str(tmp_path / "g.json"))
    assert again["system"]["A"] == [["0", "1"], ["-1", "0"]] and again.check().verified
