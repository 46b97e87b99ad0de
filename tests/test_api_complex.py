"""Complex systems through the Python API: symssm.ssm, head_count, profile and certify answer as the command line."""

import json
import random

import pytest

import symssm
from symssm.cli import main
from symssm.errors import FloatInExactPathError, InputError, ParseError
from symssm.sources.complex_system import ComplexSSM
from symssm.sources.system import SSM


def _random_gaussian(seed, N, p, m, with_D=False):
    rng = random.Random(seed)

    def z():
        re, im = rng.randint(-3, 3), rng.randint(-3, 3)
        den = rng.randint(1, 4)
        if im == 0:
            return f"{re}/{den}" if re else "1i"
        return f"{re}/{den}{'+' if im > 0 else '-'}{abs(im)}/{den}i" if re else f"{im}/{den}i"

    mat = lambda r, c: [[z() for _ in range(c)] for _ in range(r)]  # noqa: E731
    return {"name": f"gaussian-{seed}", "A": mat(N, N), "B": mat(N, m), "C": mat(p, N),
            **({"D": mat(p, m)} if with_D else {})}


SPECS = {
    "rotation-in-C": ({"name": "rot", "A": [["i", 0], [0, "-i"]], "B": [[1], [1]], "C": [[1, 0], [0, 1]]}, 5),
    "shift-with-i": ({"name": "shift", "A": [[0, 0, 0], [1, 0, 0], [0, "1/2i", 0]], "B": [[1], [0], [0]],
                      "C": [[0, 0, 1], ["i", 0, 0]]}, 2),
    "random-N4-p2-m2": (_random_gaussian(1, 4, 2, 2), 7),
    "random-N3-p2-m3-with-D": (_random_gaussian(2, 3, 2, 3, with_D=True), 3),
    "rank-deficient": ({"name": "twice", "A": [["i", 0], [0, "i"]], "B": [[1], [1]], "C": [[1, 1], [2, 2]]}, 9),
}


@pytest.mark.parametrize("label", sorted(SPECS))
def test_the_api_gives_the_command_lines_answers_on_complex_systems(label, tmp_path):
    spec, n = SPECS[label]
    path = tmp_path / "spec.json"
    path.write_text(json.dumps(spec))
    out = tmp_path / "cert.json"
    assert main(["certify", str(path), "-n", str(n), "-o", str(out)]) == 0
    cli = json.loads(out.read_text())
    assert cli["field"] == "Q(i)"

    system = symssm.ssm(spec["A"], spec["B"], spec["C"], spec.get("D"), name=spec["name"])
    assert isinstance(system, ComplexSSM)
    assert symssm.head_count(system, n) == cli["head_count"]
    prof = symssm.profile(system)
    assert list(prof.values) == cli["profile"]["values"]
    assert prof.constant_from == cli["profile"]["constant_from"] and prof.eventual == cli["profile"]["eventual"]
    assert prof.holds_for(n) == (cli["holds_for"]["from"], cli["holds_for"]["to"])
    cert = symssm.certify(system, n)
    assert cert.check().verified
    assert cert.data == cli  # the same bytes: the same system, claim and witness
    for big in (10**6, 10**18):
        assert symssm.head_count(system, big) == prof.eventual


def test_known_values_and_the_real_case_unchanged():
    rot = symssm.ssm([["i", 0], [0, "-i"]], [[1], [1]], [[1, 0], [0, 1]])
    assert symssm.head_count(rot, 1) == 1 and symssm.head_count(rot, 2) == 2
    assert symssm.profile(rot).values == (1, 2)
    gaussian = symssm.ssm([[symssm.ssm([["1/2i"]], [[1]], [[1]]).A[0][0]]], [[1]], [[1]])
    assert isinstance(gaussian, ComplexSSM) and gaussian.entry_text["A"] == [["1/2i"]]
    real = symssm.ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]])
    assert type(real) is SSM and symssm.head_count(real, 10**18) == 2


def test_refusals_stay_one_line_errors():
    with pytest.raises(FloatInExactPathError):
        symssm.ssm([[0.5]], [[1]], [[1]])
    with pytest.raises(ParseError):
        symssm.ssm([["1j"]], [[1]], [[1]])  # Python's j is not the grammar's i
    with pytest.raises(InputError, match="find_witness takes a system over Q"):
        symssm.find_witness(symssm.ssm([["i"]], [[1]], [[1]]))
    with pytest.raises(InputError, match="unknown method|method"):
        symssm.head_count(symssm.ssm([["i"]], [[1]], [[1]]), 3, method="magic")
