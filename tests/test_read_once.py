"""Every user value is read once, at the boundary, and travels as its typed value.

A command-line ``--tolerance`` is read by the parser into a :class:`~symssm.formats.rationals.Tolerance`;
api, certificate/approximate, exact/approximate and numeric/headcount take it as it is.  A certificate's
canonical JSON is written once per ``to_latex``.
"""

import json
import os

import pytest

from paths import ROOT
from symssm.cli import main
from symssm.formats import rationals

ROTATION = os.path.join(ROOT, "docs", "example", "rotation.json")


class _Counting:
    """Stands for the tolerance grammar (a compiled pattern): counts the texts it reads."""

    def __init__(self, pattern):
        self.pattern, self.texts = pattern, []

    def fullmatch(self, text):
        self.texts.append(text)
        return self.pattern.fullmatch(text)


@pytest.fixture
def reads(monkeypatch):
    counter = _Counting(rationals._TOLERANCE)
    monkeypatch.setattr(rationals, "_TOLERANCE", counter)
    return counter.texts


def test_certify_tolerance_is_read_once(reads, tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["certify", ROTATION, "--tolerance", "1e-3", "-n", "8", "-o", str(out)]) == 0
    assert reads == ["1e-3"]  # cli -> api -> certificate/approximate -> exact/approximate: one reading
    assert json.loads(out.read_text())["tolerance"] == "1/1000"


def test_numeric_reads_each_tolerance_once(reads, capsys):
    assert main(["numeric", ROTATION, "--tolerance", "1/1000", "--json", "-n", "16"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sorted(reads) == ["1/1000", "1e-10"]  # --tolerance and --lag-rank-tol's default, once each
    assert data["numerical_head_count"] == 2


def test_a_tolerance_travels_as_itself():
    from symssm.numeric.headcount import check_tolerance

    tol = rationals.parse_tolerance("1/8")
    assert rationals.parse_tolerance(tol) is tol
    assert check_tolerance(tol) == 0.125


def test_to_latex_writes_the_canonical_json_once(monkeypatch):
    import symssm.api as api
    import symssm.render.style as style
    from symssm import certify, ssm

    cert = certify(ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]], name="rotation"), 8)
    calls = []
    original = api.dumps_canonical

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(api, "dumps_canonical", counting)
    monkeypatch.setattr(style, "dumps_canonical", counting)
    text = cert.to_latex()
    assert len(calls) == 1 and "% symssm fragment: head-count certificate " in text
    digest = __import__("hashlib").sha256(cert.to_json().encode("ascii")).hexdigest()
    assert f"certificate {digest};" in text and text.rstrip().endswith(digest)
