"""The Python facade: every certificate is handed out once the checker has verified it, and verified once.

Every command counts as one user of :mod:`symssm.api`: the checker's calls are counted while it runs.
"""

import json
import os

import pytest

import symssm.checker
from symssm import certify, check, ssm
from symssm.api import Certificate, gradient_certificate, load_certificate, verified
from symssm.cli import main
from symssm.errors import CertificateError, LimitError

from .paths import ROOT

EXAMPLE = os.path.join(ROOT, "docs", "example")


@pytest.fixture
def calls(monkeypatch):
    """The certificates the independent checker was asked about (one entry per run)."""
    seen = []
    real = symssm.checker.check_data

    def counted(data, **kwargs):
        seen.append(data.get("kind"))
        return real(data, **kwargs)

    monkeypatch.setattr(symssm.checker, "check_data", counted)
    return seen


@pytest.mark.parametrize("argv, kind", [
    (["certify", "--family", "rotation-symbolic", "-n", "8"], "parametric-head-count"),
    (["certify", os.path.join(EXAMPLE, "rotation.json")], "head-count"),
    (["certify", os.path.join(EXAMPLE, "tap-in-t.json")], "parametric-interaction-rank"),
    (["certify", os.path.join(EXAMPLE, "attention.json")], "interaction-rank"),
    (["certify", os.path.join(EXAMPLE, "decay.json"), "-n", "40", "--tolerance", "1/100"], "approximate-head-count"),
    (["gradient", os.path.join(EXAMPLE, "decay.json"), "-n", "50"], "gradient-highway"),
])
def test_each_command_runs_the_checker_once_per_certificate(argv, kind, calls, tmp_path, capsys):
    assert main(argv + ["-o", str(tmp_path / "c.json")]) == 0
    assert calls == [kind]
    assert "(verified by the independent checker)" in capsys.readouterr().out
    calls.clear()
    assert main(["latex", str(tmp_path / "c.json"), "-o", str(tmp_path / "c.tex")]) == 0
    assert calls == [kind]  # loaded, verified once, rendered from the kept verdict


def test_no_verify_skips_the_checker(calls, tmp_path, capsys):
    assert main(["certify", os.path.join(EXAMPLE, "rotation.json"), "--no-verify", "-o", str(tmp_path / "c.json")]) == 0
    assert calls == []
    assert capsys.readouterr().out.splitlines()[-1] == f"certificate: {tmp_path / 'c.json'}"


def test_a_batch_runs_the_checker_once_per_line(calls, tmp_path):
    lines = tmp_path / "in.jsonl"
    lines.write_text(open(os.path.join(EXAMPLE, "systems.jsonl")).read())
    assert main(["batch", str(lines), "-o", str(tmp_path / "out.jsonl"), "--workers", "1"]) == 0
    rows = [json.loads(t) for t in open(tmp_path / "out.jsonl")]
    assert len(calls) == sum(1 for r in rows if r["verified"]) == sum(1 for r in rows if not r["error"])


def test_the_verdict_is_kept_on_the_certificate(calls):
    cert = certify(ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]]), 8)
    assert calls == ["head-count"]
    assert cert.check().verified and check(cert).verified and "k = 2" in cert.to_latex()
    assert calls == ["head-count"]
    assert check(cert.data).verified  # plain data has no kept verdict
    assert calls == ["head-count"] * 2


def test_a_changed_certificate_is_checked_again(calls):
    cert = certify(ssm([[1]], [[1]], [[1]]), 4)
    cert.data["head_count"] = 2
    assert not cert.check().verified and len(calls) == 2
    with pytest.raises(CertificateError, match="does not verify"):
        cert.to_latex()


def test_handed_out_only_when_verified(monkeypatch):
    from symssm.checker.reading import CheckResult

    data = certify(ssm([[1]], [[1]], [[1]]), 4).data
    data["head_count"] = 2
    with pytest.raises(CertificateError, match="internal error: the checker rejected the new certificate: head_count"):
        verified(data)
    monkeypatch.setattr(symssm.checker, "check_data", lambda data, **kw: CheckResult(2, "undecided: too large"))
    with pytest.raises(LimitError, match="beyond the checker's limits: undecided: too large"):
        certify(ssm([[1]], [[1]], [[1]]), 4)


def test_gradient_and_loaded_certificates(calls, tmp_path):
    cert = gradient_certificate(ssm([["1/2"]], [[1]], [[1]]), 20)
    assert calls == ["gradient-highway"]
    cert.save(tmp_path / "g.json")
    loaded = load_certificate(tmp_path / "g.json")
    assert isinstance(loaded, Certificate) and calls == ["gradient-highway"]  # loading is not checking
    assert loaded.check().verified and loaded.check().verified and len(calls) == 2


def test_at_reads_each_value_once_and_exactly():
    from fractions import Fraction

    from symssm.errors import FloatInExactPathError, ParseError
    from symssm.sources.parametric import parametric_family

    cert = certify(parametric_family("rotation-symbolic"), 4)
    assert cert.at(t="1/2") == cert.at(t=Fraction(1, 2)) == cert.at(t="0.5")
    with pytest.raises(FloatInExactPathError, match=r"t is a float \(0.5\)"):
        cert.at(t=0.5)
    with pytest.raises(ParseError, match="t 'x' is not an integer, p/q or exact decimal"):
        cert.at(t="x")
