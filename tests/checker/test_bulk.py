"""The checker's bulk reader of large integer certificates: the same verdicts, messages and hashes as reading every
entry, on honest and on corrupted certificates, in files and in memory, with and without numpy."""

import json

import numpy as np
import pytest

from symssm import certify, ssm
from symssm.checker import bulk, check_data, check_file
from symssm.checker import kernel as reading  # the strict JSON reader, where the bulk path starts


@pytest.fixture(scope="module")
def honest(tmp_path_factory):
    rng = np.random.default_rng(11)
    system = ssm(rng.integers(-9, 10, (24, 24)), rng.integers(-3, 4, (24, 3)), rng.integers(-3, 4, (2, 24)),
                 name="bulk")
    cert = certify(system, 1000, method="modular")
    path = tmp_path_factory.mktemp("bulk") / "c.json"
    cert.save(str(path))
    return path


def _verdicts(path, monkeypatch, spec=None):
    """(code, message) read entry by entry, then by the bulk reader (forced below its size threshold)."""
    out = []
    for threshold in (10**12, 1):
        monkeypatch.setattr(reading, "SPLIT_BYTES", threshold)
        result = check_file(str(path), spec_path=spec)
        out.append((result.code, result.message))
    return out


def test_an_honest_certificate_gets_the_same_verdict(honest, monkeypatch):
    plain, fast = _verdicts(honest, monkeypatch)
    assert plain == fast and plain[0] == 0


def _corrupt(path, tmp_path, old, new, count=1):
    text = path.read_text()
    assert old in text
    out = tmp_path / "bad.json"
    out.write_text(text.replace(old, new, count))
    return out


@pytest.mark.parametrize("old, new", [
    ('"A": [\n      ["', '"A": [\n      ["0'),  # a leading zero ("05"), or a changed entry ("0-3"): not canonical
    ('"A": [\n      ["', '"A": [\n      ["-0", "'),  # a row one entry too long, starting with "-0"
    ('"A": [\n      ["', '"A": [\n      [" '),  # a blank inside a string
    ('"B": [\n      ["', '"B": [\n      [1, "'),  # a JSON integer in a certificate
    ('"C": [\n      ["', '"C": [\n      ["1'),  # another value: the hash no longer matches
    ('],\n      ["', '], ["'),  # another layout, same values
])
def test_corrupted_certificates_get_the_same_verdict_and_message(honest, tmp_path, monkeypatch, old, new):
    bad = _corrupt(honest, tmp_path, old, new)
    plain, fast = _verdicts(bad, monkeypatch)
    assert plain == fast


def test_a_spec_of_json_integers_hashes_the_same(honest, tmp_path, monkeypatch):
    data = json.loads(honest.read_text())["system"]
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({k: [[int(x) for x in row] for row in data[k]] for k in "ABC"} | {"n": 7}))
    plain, fast = _verdicts(honest, monkeypatch, spec=str(spec))
    assert plain == fast and plain[0] == 0
    other = tmp_path / "other.json"
    changed = json.loads(spec.read_text())
    changed["A"][0][0] += 1
    other.write_text(json.dumps(changed))
    plain, fast = _verdicts(honest, monkeypatch, spec=str(other))
    assert plain == fast and plain[0] == 1 and "different system" in plain[1]


def test_in_memory_integer_matrices_are_read_by_the_checker_itself(monkeypatch):
    """The generator hands a large system's matrices over as objects with json_bytes(); the checker reads those
    bytes with its own reader (or, without numpy, as JSON text), and a forged object is judged like a forged file."""
    from symssm.formats.intmatrix import from_array, parse_matrix

    rng = np.random.default_rng(5)
    A = rng.integers(-9, 10, (20, 20))
    system = ssm(A, rng.integers(-3, 4, (20, 2)), rng.integers(-3, 4, (2, 20)))
    data = certify(system, 100, method="modular").data
    big = dict(data, system=dict(data["system"], A=from_array(A)))
    expected = check_data(data)
    assert check_data(big).message == expected.message and expected.code == 0
    monkeypatch.setattr(bulk, "_np", None)  # as without numpy: the same verdict
    assert check_data(big).message == expected.message
    monkeypatch.undo()
    ones = b"[" + b",".join([b"[" + b",".join([b"1"] * 20) + b"]"] * 20) + b"]"
    result = check_data(dict(big, system=dict(big["system"], A=parse_matrix(ones))))
    assert result.code == 1 and result.message.startswith("input_sha256")


def test_a_large_certificate_over_q_i_is_read_by_its_own_reader(tmp_path, monkeypatch):
    """A Q(i) certificate whose A happens to be an integer matrix: never handed to the real reader's bulk path."""
    from symssm.sources.complex_system import complex_ssm

    system = complex_ssm([[0, 1], [-1, 0]], [["1i"], [1]], [[1, "2i"]])
    cert = certify(system, 5)
    path = tmp_path / "g.json"
    cert.save(str(path))
    plain, fast = _verdicts(path, monkeypatch)
    assert plain == fast and plain[0] == 0


@pytest.mark.parametrize("kind", ["parametric-head-count", "parametric-interaction-rank", "interaction-rank"])
def test_a_large_certificate_of_formulas_is_read_as_written(monkeypatch, kind):
    """The bulk reader takes the integer matrices of head counts, gradients and eps-head counts only: a family's
    or a layer's system of integer-looking formula texts (``"1"``) stays lists of texts, as the pure path reads it
    (a large family was otherwise refused on the accelerated path, its ``system.B`` not a list)."""
    monkeypatch.setattr(reading, "SPLIT_BYTES", 1)
    doc = {"format": "symssm-certificate", "kind": kind,
           "system": {"A": [["1", "0"], ["0", "1"]], "B": [["1"], ["1"]], "C": [["1", "1"]], "D": None}}
    data = reading.parse_json(json.dumps(doc).encode("ascii"), "certificate")
    assert data["system"]["B"] == [["1"], ["1"]] and data["system"]["A"] == [["1", "0"], ["0", "1"]]
    doc["kind"] = "head-count"  # a head count's integer matrices do come from the bulk reader
    data = reading.parse_json(json.dumps(doc).encode("ascii"), "certificate")
    assert not isinstance(data["system"]["B"], list)
