"""symssm coq: head-count certificates re-proved in Coq/mathcomp (docs/formal.md).

The projects are built where coqc (with mathcomp and CoqEAL) is installed, as in CI; elsewhere
the build tests skip and the generator tests still run.
"""

import json
import os
import random
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

import pytest

import symssm
from paths import ROOT
from symssm.cli import main
from symssm.errors import CertificateError, LimitError
from symssm.render.coq import LIBRARY, coq_project

CATALOGUE = os.path.join(ROOT, "certificates")


def _have_coq():
    if shutil.which("coqc") is None:
        return False
    probe = subprocess.run(["coqc", "-where"], capture_output=True, text=True)
    where = probe.stdout.strip()
    return all(os.path.isdir(os.path.join(where, "user-contrib", lib)) for lib in ("mathcomp", "CoqEAL"))


HAVE_COQ = _have_coq()
needs_coq = pytest.mark.skipif(not HAVE_COQ, reason="coqc with mathcomp and CoqEAL is not installed")


def _rotation():
    return symssm.ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]], name="rotation")


def _shift13():
    """A shift whose output sees states 2 and 4: L_1 and L_3 are the independent lags."""
    A = [[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]
    return symssm.ssm(A, [[1], [0], [0], [0]], [[0, 1, 0, 0], [0, 0, 0, 1]], name="shift-L1-L3")


def _shift_with_D():
    return symssm.ssm([[0, 0], [1, 0]], [[1], [0]], [[0, 1]], [[3]], name="shift-with-feedthrough")


def _random(seed, N, p, m, with_D=False):
    rng = random.Random(seed)

    def rq():
        return Fraction(rng.randint(-9, 9), rng.randint(1, 9))

    mat = lambda r, c: [[rq() for _ in range(c)] for _ in range(r)]  # noqa: E731
    return symssm.ssm(mat(N, N), mat(N, m), mat(p, N), mat(p, m) if with_D else None, name=f"random-{seed}")


ACCEPTANCE = {
    "rotation": (_rotation, 8),
    "shift-L1-L3-at-2": (_shift13, 2),
    "shift-with-D-at-1e6": (_shift_with_D, 10**6),
    "random-N4-p2-m2": (lambda: _random(4, 4, 2, 2), 16),
}


def _write(files, folder):
    os.makedirs(folder, exist_ok=True)
    for name, text in files.items():
        with open(os.path.join(folder, name), "w", encoding="utf-8") as fh:
            fh.write(text)


def _make(folder):
    return subprocess.run("coq_makefile -f _CoqProject -o Makefile && make", shell=True, cwd=folder,
                          capture_output=True, text=True, timeout=600)


# ---------------------------------------------------------------- the generated text

def test_the_theorem_states_the_certified_head_count_with_k_written_in():
    files = coq_project(symssm.certify(_rotation(), 8))
    assert sorted(files) == ["HeadCount.v", "README.md", "SymssmLib.v", "_CoqProject"]
    assert files["_CoqProject"].splitlines()[0] == "-R . Symssm"
    text = files["HeadCount.v"]
    assert "Theorem symssm_head_count : forall n, (2 <= n)%nat -> \\rank (lags A B C D n) = 2%nat." in text
    assert "Theorem symssm_profile_1 : \\rank (lags A B C D 1) = 1%nat." in text
    assert "Definition A : 'M[rat]_(2, 2) := qmx 2 2 1%Z [:: [:: 0; (-1)]; [:: 1; 0]]%Z." in text
    assert "Print Assumptions symssm_head_count." in text
    for word in ("Admitted", "admit", "Axiom", "Parameter", "Hypothesis"):
        assert word not in text
        assert not re.search(rf"\b{word}\b", open(LIBRARY).read()), word


def test_a_range_claim_and_the_eventual_value():
    text = coq_project(symssm.certify(_shift13(), 2))["HeadCount.v"]
    assert "forall n, (2 <= n <= 3)%nat -> \\rank (lags A B C D n) = 1%nat." in text
    assert "Theorem symssm_eventual_head_count : forall n, (4 <= n)%nat -> \\rank (lags A B C D n) = 2%nat." in text


def test_rational_entries_are_an_integer_matrix_over_a_denominator():
    sys_ = symssm.ssm([["1/2", "-1/3"], [0, "2/3"]], [[1], ["1/4"]], [["3/5", 1]], name="q")
    text = coq_project(symssm.certify(sys_, 4))["HeadCount.v"]
    assert "Definition A : 'M[rat]_(2, 2) := qmx 2 2 6%Z [:: [:: 3; (-2)]; [:: 0; 4]]%Z." in text
    assert "Definition B : 'M[rat]_(2, 1) := qmx 2 1 4%Z [:: [:: 4]; [:: 1]]%Z." in text


def test_user_text_cannot_close_the_comment():
    sys_ = symssm.ssm([[1]], [[1]], [[1]], name="evil *) Axiom x : False. (*")
    text = coq_project(symssm.certify(sys_, 2))["HeadCount.v"]
    header = text.split("*)")[0]
    assert "Axiom x" in header and "Definition A" not in header  # the name stays inside the comment


def test_refusals(tmp_path, capsys):
    rot = symssm.certify(_rotation(), 8)
    forged = dict(rot.data, head_count=3)
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged))
    assert main(["coq", str(path), "--out", str(tmp_path / "p")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not verify" in err
    assert not (tmp_path / "p").exists()
    fam = os.path.join(CATALOGUE, "rotation-symbolic-N2-p2-m1.json")
    assert main(["coq", fam, "-o", str(tmp_path / "q")]) == 2
    assert "real systems" in capsys.readouterr().err
    big = symssm.certify(_random(1, 9, 1, 1), 4)
    with pytest.raises(LimitError, match="N <= 8"):
        coq_project(big, route="exact")
    wide = symssm.certify(_random(2, 2, 4, 5), 4)
    with pytest.raises(LimitError, match="p m <= 16"):
        coq_project(wide, route="exact")
    from symssm.sources.complex_system import complex_ssm

    with pytest.raises(CertificateError, match="over Q"):
        coq_project(symssm.certify(complex_ssm([["i", 0], [0, 1]], [[1], [1]], [[1, 1]]), 3))


def test_cli_writes_the_project(tmp_path, capsys):
    cert = tmp_path / "rot.json"
    symssm.certify(_rotation(), 8).save(str(cert))
    assert main(["coq", str(cert), "--out", str(tmp_path / "proj")]) == 0
    assert "symssm_head_count" in capsys.readouterr().out
    assert sorted(os.listdir(tmp_path / "proj")) == ["HeadCount.v", "README.md", "SymssmLib.v", "_CoqProject"]


# ---------------------------------------------------------------- building with Coq

@needs_coq
@pytest.mark.parametrize("label", [pytest.param(x, marks=() if x == "rotation" else pytest.mark.long)
                                   for x in sorted(ACCEPTANCE)])  # one small build by default, the rest long
def test_the_proof_assistant_accepts_the_theorem(label, tmp_path):
    build, n = ACCEPTANCE[label]
    folder = tmp_path / "proj"
    _write(coq_project(symssm.certify(build(), n)), folder)
    result = _make(folder)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert "Closed under the global context" in result.stdout + result.stderr


@needs_coq
def test_a_changed_head_count_does_not_build(tmp_path):
    files = coq_project(symssm.certify(_rotation(), 8))
    files["HeadCount.v"] = files["HeadCount.v"].replace("\\rank (lags A B C D n) = 2%nat.",
                                                        "\\rank (lags A B C D n) = 1%nat.")
    _write(files, tmp_path / "proj")
    assert _make(tmp_path / "proj").returncode != 0


@needs_coq
@pytest.mark.long  # 32+ Coq builds
def test_the_catalogue_small_head_counts_build(tmp_path):
    """Every head-count certificate of the catalogue (N <= 8) against one compiled library."""
    lib = tmp_path / "lib"
    lib.mkdir()
    shutil.copy(LIBRARY, lib / "SymssmLib.v")
    done = subprocess.run(["coqc", "-q", "-R", str(lib), "Symssm", str(lib / "SymssmLib.v")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    names = sorted(f for f in os.listdir(CATALOGUE)
                   if f.endswith(".json") and not f.endswith(".gradient.json") and "symbolic" not in f
                   and "-step-" not in f)
    jobs = []
    for name in names:
        cert = symssm.load_certificate(os.path.join(CATALOGUE, name))
        if cert.kind != "head-count":
            continue
        folder = tmp_path / name[:-5]
        folder.mkdir()
        (folder / "HeadCount.v").write_text(coq_project(cert, route="exact")["HeadCount.v"])
        jobs.append(folder)
    assert len(jobs) >= 32

    def run(folder):
        return folder, subprocess.run(["coqc", "-q", "-R", str(lib), "Symssm", "HeadCount.v"], cwd=folder,
                                      capture_output=True, text=True, timeout=600)

    with ThreadPoolExecutor(max_workers=2) as pool:
        for folder, res in pool.map(run, jobs):
            assert res.returncode == 0, (folder.name, res.stderr[-2000:])
            assert "Closed under the global context" in res.stdout, folder.name
