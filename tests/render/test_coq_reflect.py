"""symssm coq, reflective route: head counts up to N = 64, p m = 256 re-proved with primitive integers.

The default tests check the generated text and the witnesses (no coqc).  The builds are long
(``@pytest.mark.long``): random integer systems N = 16, 32, 64 and a rank-deficient one (two copies
of a 16-state block), each against one compiled library, their ``Print Assumptions`` output, and
that a changed k or a changed entry of A no longer builds (docs/formal.md).
"""

import random
import re
import shutil
import subprocess

import pytest

import symssm
from symssm.cli import main
from symssm.errors import LimitError
from symssm.render import coqreflect
from symssm.render.coq import LIBRARY, REFLECT_LIBRARY, _Data, coq_project

#: What ``Print Assumptions symssm_head_count`` may list: Coq's primitive 63-bit integers
#: (PrimInt63: the type and its operations) and their specifications (Uint63).
PRIMITIVE_INTEGERS = {"int", "add", "sub", "mul", "mod", "eqb", "ltb", "leb", "land", "lor", "lsl", "lsr",
                      "add_spec", "sub_spec", "mul_spec", "mod_spec", "ltb_spec", "leb_spec", "lor_spec",
                      "lsl_spec", "lsr_spec", "eqb_correct", "eqb_refl", "of_to_Z"}
#: The acceptance also tolerates these two (not used today).
TOLERATED = PRIMITIVE_INTEGERS | {"proof_irrelevance", "functional_extensionality_dep"}


def _integer_system(seed, N, p, m, with_D=False, name=None):
    rng = random.Random(seed)

    def mat(r, c):
        return [[rng.randint(-3, 3) for _ in range(c)] for _ in range(r)]

    A, B, C = mat(N, N), mat(N, m), mat(p, N)
    D = mat(p, m) if with_D else None
    return symssm.ssm(A, B, C, D, name=name or f"int-{seed}-N{N}")


def _two_copies(seed, n, p, m):
    """A = diag(A1, A1), B = [B1; B1], C = [C1, C1]: lags 2 C1 A1^d B1, so k = 16 < min(N, p m)."""
    rng = random.Random(seed)
    A1 = [[rng.randint(-3, 3) for _ in range(n)] for _ in range(n)]
    B1 = [[rng.randint(-3, 3) for _ in range(m)] for _ in range(n)]
    C1 = [[rng.randint(-3, 3) for _ in range(n)] for _ in range(p)]
    N = 2 * n
    A = [[A1[i % n][j % n] if (i < n) == (j < n) else 0 for j in range(N)] for i in range(N)]
    return symssm.ssm(A, [B1[i % n] for i in range(N)], [row + row for row in C1], name=f"two-copies-{n}")


def _hidden_block(seed, n, p, m):
    """A = diag(A1, A2), B = [B1; B2], C = [C1, 0]: reachable everywhere, the second block unobservable."""
    rng = random.Random(seed)

    def mat(r, c):
        return [[rng.randint(-3, 3) for _ in range(c)] for _ in range(r)]

    A1, A2, B1, B2, C1 = mat(n, n), mat(n, n), mat(n, m), mat(n, m), mat(p, n)
    N = 2 * n
    A = [[(A1[i][j] if i < n else A2[i - n][j - n]) if (i < n) == (j < n) else 0 for j in range(N)] for i in range(N)]
    return symssm.ssm(A, B1 + B2, [row + [0] * n for row in C1], name=f"hidden-{n}")


# ---------------------------------------------------------------- the generated text and witnesses

def test_the_reflective_project_states_the_exact_system_and_the_claim():
    cert = symssm.certify(_integer_system(1, 5, 2, 2), 12)
    files = coq_project(cert, route="reflect")
    assert sorted(files) == ["HeadCount.v", "README.md", "SymssmLib.v", "SymssmReflect.v", "_CoqProject"]
    assert files["_CoqProject"] == "-R . Symssm\nSymssmLib.v\nSymssmReflect.v\nHeadCount.v\n"
    text = files["HeadCount.v"]
    k, lo = cert["head_count"], cert["holds_for"]["from"]
    assert (k, lo) == (4, 4)
    assert f"Theorem symssm_head_count : forall n, ({lo} <= n)%nat -> \\rank (lags A B C D n) = {k}%nat." in text
    az = "[:: " + "; ".join("[:: " + "; ".join(f"({x})" if x < 0 else str(x) for x in row) + "]"
                            for row in _Data(cert.data).Az) + "]%Z"
    assert f"Definition A : 'M[rat]_(5, 5) := qmx 5 5 1%Z {az}." in text  # as on the exact route
    assert "Definition P : Uint63.int := 1073741789%uint63." in text
    assert "apply: rank_upper_generic." in text  # k = p m: the bound by the number of columns
    assert cert["profile"]["values"] == [1, 2, 3, 4]
    assert "Theorem symssm_profile : forall i, (i <= 4)%nat -> \\rank (lags A B C D i) = i." in text
    assert text.rstrip().endswith("Print Assumptions symssm_head_count.")
    lib = open(REFLECT_LIBRARY).read()
    for word in ("Admitted", "admit", "Axiom", "Parameter", "Conjecture"):
        assert not re.search(rf"\b{word}\b", lib), word
    assert files["SymssmLib.v"] == open(LIBRARY).read()


def test_the_lags_are_computed_from_the_narrower_side():
    wide = coq_project(symssm.certify(_integer_system(5, 10, 3, 1, with_D=True), 20), route="reflect")
    assert "(route := false)" in wide["HeadCount.v"]  # p > m: (A^d B)^T, m rows per step
    tall = coq_project(symssm.certify(_integer_system(5, 10, 1, 3), 20), route="reflect")
    assert "(route := true)" in tall["HeadCount.v"]  # p <= m: C A^d, p rows per step


def test_the_inverse_witness_inverts_the_minor_modulo_the_prime():
    cert = symssm.certify(_integer_system(7, 9, 2, 3, with_D=True), 20)
    data = _Data(cert.data)
    P = coqreflect.PRIMES[0]
    M = coqreflect._minor_mod(data, P, data.DS, data.RS, data.CS)
    X = coqreflect._inverse_mod(M, P)
    k = len(M)
    assert k == cert["head_count"] == 6  # p m = 6 < N + 1
    assert coqreflect._mulmod(X, M, P) == [[int(i == j) for j in range(k)] for i in range(k)]
    # an integer system: the scaled lags are the lags, so M is the certificate's exact minor reduced
    assert M == [[int(x) % P for x in row] for row in cert["lower_bound"]["minor"]]


def test_a_rank_deficient_system_gets_an_invariant_subspace():
    cert = symssm.certify(_two_copies(3, 4, 2, 3), 20)
    assert cert["head_count"] == 4 and cert["system"]["N"] == 8
    data = _Data(cert.data)
    Vz, Tz, t, Wz, w = coqreflect._reachable(data.Az, data.a, data.Bz, data.b)
    assert len(Tz) == 4 and len(Vz) == 8
    assert all(Vz[i] == Vz[i + 4] for i in range(4))  # the diagonal copy {(x, x)}
    text = coq_project(cert, route="reflect")["HeadCount.v"]
    assert "apply: (rank_upper_reduced _ _ _ n (r' := 3)" in text


def test_an_unobservable_part_gets_a_second_reduction():
    cert = symssm.certify(_hidden_block(1, 6, 2, 4), 30)
    assert cert["head_count"] == 6 and cert["system"]["N"] == 12  # k < min(N, p m) = 8
    data = _Data(cert.data)
    Vz, Tz, t, Wz, w = coqreflect._reachable(data.Az, data.a, data.Bz, data.b)
    assert len(Tz) == 12  # everything is reachable
    Uz, T1z, t1, Hz, h = coqreflect._observable(Tz, t, Vz, data.Cz, data.c)
    assert len(Uz) == 6 and len(Uz[0]) == 12
    text = coq_project(cert, route="reflect")["HeadCount.v"]
    assert "apply: (rank_upper_observed _ n (r' := 11) (r1' := 5)" in text


def test_limits_say_which(tmp_path, capsys):
    with pytest.raises(LimitError, match="N <= 64"):
        coq_project(symssm.certify(_integer_system(2, 65, 1, 1), 4))
    shift = symssm.ssm([[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]], [[1], [0], [0], [0]],
                       [[0, 1, 0, 0], [0, 0, 0, 1]], name="shift")
    with pytest.raises(LimitError, match="2 <= n <= 3"):
        coq_project(symssm.certify(shift, 2), route="reflect")
    scaling = symssm.ssm([[2, 0], [0, 2]], [[1, 0], [0, 1]], [[1, 0], [0, 1]], name="2I")  # L_d = 2^d I: k = 1
    with pytest.raises(LimitError, match="minimal realisation has 2 states"):
        coq_project(symssm.certify(scaling, 6), route="reflect")
    path = tmp_path / "c.json"
    symssm.certify(_integer_system(4, 9, 1, 1), 20).save(str(path))
    assert main(["coq", str(path), "-o", str(tmp_path / "p"), "--route", "exact"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "N <= 8" in err
    assert main(["coq", str(path), "-o", str(tmp_path / "q")]) == 0
    assert (tmp_path / "q" / "SymssmReflect.v").exists()


# ---------------------------------------------------------------- building with Coq (long)

def _have_coq():
    if shutil.which("coqc") is None:
        return False
    where = subprocess.run(["coqc", "-where"], capture_output=True, text=True).stdout.strip()
    import os

    return all(os.path.isdir(os.path.join(where, "user-contrib", lib)) for lib in ("mathcomp", "CoqEAL"))


needs_coq = pytest.mark.skipif(not _have_coq(), reason="coqc with mathcomp and CoqEAL is not installed")


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    """SymssmLib.v and SymssmReflect.v compiled once."""
    lib = tmp_path_factory.mktemp("lib")
    for src, name in ((LIBRARY, "SymssmLib.v"), (REFLECT_LIBRARY, "SymssmReflect.v")):
        shutil.copy(src, lib / name)
        done = subprocess.run(["coqc", "-q", "-R", str(lib), "Symssm", name], cwd=lib, capture_output=True,
                              text=True, timeout=600)  # in lib: lia writes its cache beside it
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return lib


def _build(lib, folder, text):
    folder.mkdir(exist_ok=True)
    (folder / "HeadCount.v").write_text(text)
    return subprocess.run(["coqc", "-q", "-R", str(lib), "Symssm", "HeadCount.v"], cwd=folder, capture_output=True,
                          text=True, timeout=600)


def _assumptions(output):
    """The names ``Print Assumptions`` lists (unindented lines ``name : type`` or ``name``)."""
    tail = output.split("Axioms:", 1)[1]
    return {m.group(1) for m in re.finditer(r"^([A-Za-z_][A-Za-z_0-9']*)\s*(?::|$)", tail, re.M)}


LONG_SYSTEMS = {
    "int-N16-p4-m4": (lambda: _integer_system(16, 16, 4, 4), 40),
    "int-N32-p8-m8": (lambda: _integer_system(32, 32, 8, 8), 70),
    "int-N64-p8-m8": (lambda: _integer_system(64, 64, 8, 8), 140),
    "int-N64-p16-m16-with-D": (lambda: _integer_system(65, 64, 16, 16, with_D=True), 140),
    "two-copies-16-p8-m8": (lambda: _two_copies(17, 16, 8, 8), 70),
    "int-N32-p16-m2-with-D": (lambda: _integer_system(33, 32, 16, 2, with_D=True), 70),  # (A^d B)^T route
    "hidden-16-p4-m8": (lambda: _hidden_block(18, 16, 4, 8), 70),  # k = 16, both reductions
}


@pytest.mark.long
@needs_coq
@pytest.mark.parametrize("label", sorted(LONG_SYSTEMS))
def test_reflective_projects_build_with_only_primitive_integer_assumptions(label, compiled, tmp_path):
    build, n = LONG_SYSTEMS[label]
    cert = symssm.certify(build(), n)
    if label.startswith("two-copies"):
        assert cert["head_count"] == 16 and cert["system"]["N"] == 32  # k < min(N, p m) = 32
    files = coq_project(cert, route="reflect")
    result = _build(compiled, tmp_path / "proj", files["HeadCount.v"])
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    names = _assumptions(result.stdout + result.stderr)
    assert names and names <= TOLERATED, names - TOLERATED


@pytest.mark.long
@needs_coq
def test_a_changed_k_or_entry_of_A_does_not_build(compiled, tmp_path):
    cert = symssm.certify(_integer_system(16, 16, 4, 4), 40)
    text = coq_project(cert, route="reflect")["HeadCount.v"]
    k = cert["head_count"]
    wrong_k = text.replace(f"\\rank (lags A B C D n) = {k}%nat.", f"\\rank (lags A B C D n) = {k - 1}%nat.")
    assert wrong_k != text
    assert _build(compiled, tmp_path / "k", wrong_k).returncode != 0
    head = "Definition A : 'M[rat]_(16, 16) := qmx 16 16 1%Z [:: [:: "
    i = text.index(head) + len(head)
    j = text.index(";", i)
    wrong_a = text[:i] + ("7" if text[i:j] != "7" else "8") + text[j:]
    assert _build(compiled, tmp_path / "a", wrong_a).returncode != 0
