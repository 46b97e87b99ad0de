"""Every certificate kind's oracle fuzzer (fuzz/fuzz_oracle.py, fuzz/fuzz_covering.py, fuzz/fuzz_parametric.py), runs
bounded to seconds; the long checks run a few thousand mutants of each on two workers.

fuzz/fuzz_oracle.py mutates valid certificates of one kind (numbers, signs, dimensions, witnesses, claimed counts,
ranks and tolerances, the system's hash recomputed), checks each in process and re-judges every accepted one by an
oracle from the generator's side (exact ranks of the lags or blocks, mpmath Gram eigenvalues at 100 digits).
docs/robustness.md records the runs of 10^5 mutants per kind (fuzz/long_run.sh).
"""

import copy
import importlib.util
import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from symssm.checker import check_data

_FUZZ = Path(__file__).resolve().parents[2] / "fuzz"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, _FUZZ / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # the workers unpickle the module's functions by its name
    spec.loader.exec_module(module)
    return module


F = _load("fuzz_oracle")

#: Mutants per kind in the default suite (each kind about a second or two on a quiet 2-core machine).
BOUNDED = {"head-count": 200, "gradient": 200, "gaussian": 200, "approximate": 150, "trained": 80, "interaction": 200}


@pytest.mark.parametrize("kind", F.KINDS)
def test_a_bounded_run_finds_no_false_acceptance(kind):
    counts, findings = F.run(kind, 20261127, BOUNDED[kind])
    assert counts["mutants"] == BOUNDED[kind]
    assert counts["false_acceptances"] == 0 and counts["tracebacks"] == 0, findings[:2]
    # the mutants reach both fates: most are rejected, some are true claims the checker accepts
    assert counts["rejected"] > BOUNDED[kind] // 3 and counts["confirmed"] > 0, counts
    assert sum(counts[k] for k in ("rejected", "unreadable", "undecided", "confirmed", "oracle_undecided")) \
        == counts["mutants"]


@pytest.mark.parametrize("kind", F.KINDS)
def test_the_oracle_confirms_every_base_and_refuses_a_false_count(kind):
    """Each base certificate verifies and its oracle says true; with its count or rank one too high, false."""
    for base in F.load_bases(kind):
        assert check_data(base).verified
        assert F.truth(kind, base) is True
        forged = copy.deepcopy(base)
        if kind == "gradient":  # the decay constant a hundred times too small: ||L_1||^2 exceeds it
            forged["decay_constant_squared"] = F._rational_text(Fraction(forged["decay_constant_squared"]) / 10 ** 6)
        elif kind == "interaction":
            forged["interaction_rank"] += 1
        elif forged.get("head_count") is not None:
            forged["head_count"] += 1
        else:
            continue
        assert F.truth(kind, forged) is False


def test_the_eps_oracles_see_a_bracket_that_misses_the_error():
    """An upper bound one part in 10^6 below the true e_1 (approximate) is false; so is a lower bound above it."""
    base = F.load_bases("approximate")[0]
    forged = copy.deepcopy(base)
    forged["errors"][1]["upper"] = F._rational_text(Fraction(forged["errors"][1]["upper"]) * (1 - Fraction(1, 10 ** 6)))
    assert F.truth("approximate", forged) is False
    forged = copy.deepcopy(base)
    forged["errors"][1]["lower"] = F._rational_text(Fraction(forged["errors"][1]["upper"]) * (1 + Fraction(1, 10 ** 6)))
    assert F.truth("approximate", forged) is False
    trained = F.load_bases("trained")[1]  # two channels: e_1 > 0
    forged = copy.deepcopy(trained)
    forged["errors"][1]["upper"] = F._rational_text(Fraction(forged["errors"][1]["upper"]) / 2)
    assert F.truth("trained", forged) is False


@pytest.mark.long
def test_the_stored_bases_are_what_the_generator_builds():
    """fuzz/oracle_bases.json (the fuzzer runs without python-flint) is the generator's output today."""
    for kind, build in F.BUILDERS.items():
        assert json.loads(json.dumps(build())) == F.load_bases(kind), kind


def test_gaussian_text_round_trip_and_the_realified_rank():
    assert [F._gaussian_parse(t) for t in ("1/2+1/3i", "-1i", "3", "-2/3-5i")] == [
        (Fraction(1, 2), Fraction(1, 3)), (0, -1), (3, 0), (Fraction(-2, 3), -5)]
    assert [F._gaussian_text(*F._gaussian_parse(t)) for t in ("1/2+1/3i", "-1i", "3", "-2/3-5i")] == [
        "1/2+1/3i", "-1i", "3", "-2/3-5i"]
    g = lambda re, im: (Fraction(re), Fraction(im))  # noqa: E731
    # (1, i) and (i, -1) are dependent over Q(i) (the second is i times the first), not over Q
    assert F._span_rank([[[g(1, 0), g(0, 1)]], [[g(0, 1), g(-1, 0)]]], True) == 1
    assert F._span_rank([[[g(1, 0), g(0, 1)]], [[g(1, 0), g(1, 0)]]], True) == 2


def test_the_counts_do_not_depend_on_the_workers():
    one, _ = F.run("gaussian", 5, 60, workers=1, chunk=20)
    two, _ = F.run("gaussian", 5, 60, workers=2, chunk=20)
    assert one == two and one["mutants"] == 60


def test_the_command_prints_a_summary_and_exits_0(capsys, tmp_path):
    assert F.main(["--kind", "interaction", "--count", "30", "--findings", str(tmp_path)]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert line.startswith("interaction: 30 mutants") and "FALSE ACCEPTANCES 0, tracebacks 0" in line
    assert not list(tmp_path.iterdir())


@pytest.mark.long
@pytest.mark.parametrize("kind", F.KINDS)
def test_a_few_thousand_mutants_of_each_kind_on_two_workers(kind):
    counts, findings = F.run(kind, 1, 3000, workers=2)
    assert counts["mutants"] == 3000
    assert counts["false_acceptances"] == 0 and counts["tracebacks"] == 0, findings[:2]
    assert counts["confirmed"] > 0


def test_the_covering_fuzzer_counts_mutants(monkeypatch):
    monkeypatch.syspath_prepend(str(_FUZZ.parent / "tests"))
    C = _load("fuzz_covering")
    stats, found = C.run_chunk((1, 0, 40))
    assert stats["tried"] == 40 and not found, found[:1]
    assert stats["rejected"] > 20 and stats["false"] == 0 and stats["tracebacks"] == 0, stats


@pytest.mark.long
def test_the_covering_fuzzer_counts_mutants_on_two_workers(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(_FUZZ.parent / "tests"))
    C = _load("fuzz_covering")
    assert C.main(["--seed", "1", "--count", "3000", "--workers", "2"]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert line.startswith("covering: 3000 mutants") and "FALSE ACCEPTANCES 0, tracebacks 0" in line


@pytest.mark.long
def test_the_parametric_fuzzer_in_shards_on_two_workers():
    P = _load("fuzz_parametric")
    counts, bad = P.run_sharded(3, 40, 2000, shards=4, workers=2)
    assert not bad, bad[:2]
    assert counts["mutants"] == 2000 and counts["true acceptance"] > 0 and counts["mutant rejected"] > 1000


def test_long_run_sh_runs_every_kind():
    """fuzz/long_run.sh names every kind of fuzz_oracle.py and the two fuzzers of the kinds with parameters."""
    text = (_FUZZ / "long_run.sh").read_text()
    kinds = text.split("for kind in ")[1].split(";")[0].split()
    assert kinds == list(F.KINDS)
    assert 'fuzz_covering.py" --seed 1 --count "$COUNT" --workers "$WORKERS"' in text
    assert 'fuzz_parametric.py" --seed 11' in text and '--mutants "$COUNT"' in text


@pytest.mark.long
def test_long_run_sh_prints_one_line_per_fuzzer(tmp_path):
    env = {**os.environ, "COUNT": "30", "WORKERS": "2", "LOGS": str(tmp_path),
           "PYTHONPATH": str(_FUZZ.parent)}
    out = subprocess.run(["sh", str(_FUZZ / "long_run.sh")], env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    lines = out.stdout.strip().splitlines()[1:]
    assert [line.split()[0] for line in lines] == list(F.KINDS) + ["covering", "parametric"]
    for line in lines:
        assert " 0 false acceptances" in line and " 0 tracebacks" in line, line
    assert all(line.split()[1] == "30" for line in lines[:-1]), lines
