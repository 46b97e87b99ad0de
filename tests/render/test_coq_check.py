"""symssm coq: the route chooser, numbers of any size, zero-state systems, and --check (project vs certificate).

The generated text and ``--check`` are tested by default (no coqc); the builds that show Coq
refusing an edited project or accepting the new cases are long (docs/formal.md).
"""

import json
import os
import random
import re
import shutil
import subprocess
import sys
from fractions import Fraction

import pytest

import symssm
from symssm.cli import main
from symssm.render.coq import LIBRARY, REFLECT_LIBRARY, _Data, choose_route, coq_project
from symssm.render.coqcheck import check_files, check_project, statement


def _big(seed, N, p, m, num, den):
    r = random.Random(seed)
    q = lambda: Fraction(r.randint(-num, num), r.randint(1, den))  # noqa: E731
    mat = lambda a, b: [[q() for _ in range(b)] for _ in range(a)]  # noqa: E731
    return symssm.ssm(mat(N, N), mat(N, m), mat(p, N), name=f"big-{seed}")


def _small(seed, N, p, m):
    r = random.Random(seed)
    mat = lambda a, b: [[r.randint(-3, 3) for _ in range(b)] for _ in range(a)]  # noqa: E731
    return symssm.ssm(mat(N, N), mat(N, m), mat(p, N), name=f"small-{seed}")


def _shift13():
    A = [[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]
    return symssm.ssm(A, [[1], [0], [0], [0]], [[0, 1, 0, 0], [0, 0, 0, 1]], name="shift-L1-L3")


ZERO_STATE = {
    "B=0": symssm.ssm([[1, 2], [3, 4]], [[0], [0]], [[1, 1]], name="B=0"),
    "C=0": symssm.ssm([[1, 2], [3, 4]], [[1], [2]], [[0, 0]], name="C=0"),
    "CV=0": symssm.ssm([[1, 0], [0, 2]], [[1], [0]], [[0, 1]], name="unobserved"),
    "B=0-with-D": symssm.ssm([[1, 2], [3, 4]], [[0, 0], [0, 0]], [[1, 1], [0, 1]], [[5, 0], [0, 1]], name="B=0,D"),
    "CV=0-with-D": symssm.ssm([[1, 0], [0, 2]], [[1, 0], [0, 0]], [[0, 1], [0, 1]], [[0, 7], [0, 1]], name="CV=0,D"),
}


# ---------------------------------------------------------------- the route chooser

def test_auto_takes_the_reflective_route_for_large_entries_and_the_exact_one_for_small_systems():
    cases = [(_big(7, 8, 4, 4, 10**6, 100), 20, "reflect"),  # N = 8, entries up to 10^6/100
             (_big(6, 6, 1, 1, 10**30, 1), 20, "reflect"),  # N = 6, 30-digit entries
             (_big(13, 8, 4, 4, 99, 1), 20, "reflect"),  # p m = 16, k = 8, two-digit entries
             (_small(2, 3, 2, 2), 20, "exact"),
             (symssm.ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]]), 8, "exact")]
    for system, n, want in cases:
        cert = symssm.certify(system, n)
        route, exact_s, reflect_s = choose_route(cert.data, _Data(cert.data))
        assert route == want, (system.name, exact_s, reflect_s)
        files = coq_project(cert)
        assert ("SymssmReflect.v" in files) == (want == "reflect")
    cert = symssm.certify(_big(7, 8, 4, 4, 10**6, 100), 20)
    _route, exact_s, reflect_s = choose_route(cert.data, _Data(cert.data))
    assert exact_s > 100 * reflect_s  # the exact route did not finish in 900 s; the reflective one took 11 s


def test_auto_falls_back_to_the_exact_route_where_the_reflective_bound_does_not_reach():
    r = random.Random(3)  # A = 7 I: L_d = 7^d C B, k = 1 below the 4 states seen; 400-digit B and C
    B = [[r.randint(-10**400, 10**400) for _ in range(4)] for _ in range(8)]
    C = [[r.randint(-10**400, 10**400) for _ in range(8)] for _ in range(4)]
    cert = symssm.certify(symssm.ssm([[7 * (i == j) for j in range(8)] for i in range(8)], B, C, name="7I"), 6)
    assert choose_route(cert.data, _Data(cert.data))[0] == "reflect"  # by cost; its upper bound needs k >= 2
    files = coq_project(cert)
    assert "SymssmReflect.v" not in files and check_files(files, cert.data)[0] == 0


def test_a_range_takes_the_route_that_can_state_it():
    shift = symssm.certify(_shift13(), 2)  # k = 1 for 2 <= n <= 3: above k, only the exact route
    assert choose_route(shift.data, _Data(shift.data))[0] == "exact"
    big = symssm.certify(_big(5, 8, 4, 4, 10**6, 100), 3)  # k = 3 for n = 3: the rows bound it
    assert big["holds_for"] == {"from": 3, "to": 3}
    files = coq_project(big)
    assert "SymssmReflect.v" in files
    assert "forall n, (3 <= n <= 3)%nat -> \\rank (lags A B C D n) = 3%nat." in files["HeadCount.v"]
    assert check_files(files, big.data)[0] == 0


# ---------------------------------------------------------------- numbers of any size

def test_integers_past_the_interpreters_string_limit_are_written(monkeypatch):
    if not hasattr(sys, "set_int_max_str_digits"):
        pytest.skip("this Python has no integer string limit")
    cert = symssm.certify(_big(11, 4, 2, 2, 10**300, 10**20), 8)
    wide = symssm.certify(_big(12, 2, 1, 1, 10**700, 1), 4)  # entries of 700 digits, past the 640 set below
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(640)
    try:
        exact = coq_project(cert, route="exact")["HeadCount.v"]
        reflect = coq_project(cert, route="reflect")["HeadCount.v"]
        for route in ("exact", "reflect"):
            files = coq_project(wide, route=route)
            assert check_files(files, wide.data)[0] == 0
    finally:
        sys.set_int_max_str_digits(old)
    d = _Data(cert.data)
    adj_bits = max(len(x) for x in re.findall(r"0x[0-9a-f]+", exact)) * 4
    assert adj_bits > 4300 * 3.32  # the adjugate's entries: more than 4,300 decimal digits
    assert f"qmx 4 4 {hex(d.a)}%Z" in exact and f"qmx 4 4 {hex(d.a)}%Z" in reflect  # past 200 bits: hexadecimal
    sys.set_int_max_str_digits(0)
    try:  # the comments show the decimal digits
        assert f"(** A = (1/{d.a}) [" in exact
    finally:
        sys.set_int_max_str_digits(old)
    assert check_files(coq_project(cert, route="exact"), cert.data)[0] == 0
    small = coq_project(symssm.certify(_small(2, 3, 2, 2), 8), route="exact")["HeadCount.v"]
    assert "0x" not in small  # short integers stay decimal


# ---------------------------------------------------------------- zero-state systems

@pytest.mark.parametrize("label", sorted(ZERO_STATE))
def test_zero_state_systems_are_written_on_both_routes(label):
    cert = symssm.certify(ZERO_STATE[label], 5)
    k = cert["head_count"]
    assert k == (1 if label.endswith("with-D") else 0)
    for route in ("exact", "reflect"):
        files = coq_project(cert, route=route)
        text = files["HeadCount.v"]
        assert f"\\rank (lags A B C D n) = {k}%nat." in text
        assert check_files(files, cert.data)[0] == 0
    reflect = coq_project(cert, route="reflect")["HeadCount.v"]
    if k == 0:
        assert "rank_upper_null" in reflect


# ---------------------------------------------------------------- shapes checked by the kernel

def test_every_theorem_the_files_apply_asks_the_shapes():
    lib = open(LIBRARY).read()
    assert "Definition zshape (m n : nat) (s : zseq) : bool := (size s == m) && all (fun r => size r == n) s." in lib
    for name in ("rank_lags", "rank_lags_from", "rank_lags_between"):
        assert re.search(rf"Theorem {name} [^:]*:\n  shapes_ok ->", lib), name
    reflect = open(REFLECT_LIBRARY).read()
    for name in ("head_count_from", "head_count_at", "head_count_between"):
        assert re.search(rf"Theorem {name} [^:]*:\n  shapes_ok N' p' m' Az Bz Cz Dz ->", reflect), name


# ---------------------------------------------------------------- --check

def _rotation():
    return symssm.ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]], name="rotation")


def _edits(text):
    """Edited HeadCount.v texts: each must be told apart from the certificate."""
    a_line = next(line for line in text.splitlines() if line.startswith("Definition A "))
    m = re.search(r"\[:: \[:: ([^;\]]+)", a_line)
    first = m.group(1)
    other = "7" if first != "7" else "8"
    extra = a_line.replace("]; [::", "; 0]; [::").replace("]]%Z", "; 0]; [:: 0; 0; 0]]%Z")
    return {
        "other entry": text.replace(a_line, a_line[:m.start(1)] + other + a_line[m.end(1):]),
        "extra row and column": text.replace(a_line, extra),
        "changed k": re.sub(r"(Theorem symssm_head_count : .*= )(\d+)(%nat\.)",
                            lambda g: g.group(1) + str(int(g.group(2)) + 1) + g.group(3), text),
        "notation": text.replace("Local Open Scope ring_scope.",
                                 "Local Open Scope ring_scope.\nNotation \"'\\rank' x\" := (0%nat) (at level 10)."),
        "axiom": text.replace("Local Open Scope ring_scope.", "Local Open Scope ring_scope.\nAxiom cheat : False."),
        "admitted": re.sub(r"Qed\.", "Admitted.", text, count=1),
        "A redefined": text.replace("Print Assumptions", "Definition A := 0.\nPrint Assumptions"),
    }


@pytest.mark.parametrize("route", ["exact", "reflect"])
def test_check_tells_a_project_from_an_edited_one(route, tmp_path):
    cert = symssm.certify(_rotation(), 8)
    files = coq_project(cert, route=route)
    assert check_files(files, cert.data) == (0, "the project states the certificate: rotation k(n) = 2 for every "
                                                "n >= 2")
    for what, text in _edits(files["HeadCount.v"]).items():
        assert text != files["HeadCount.v"], what
        code, message = check_files(dict(files, **{"HeadCount.v": text}), cert.data)
        assert code == 1, (what, message)
    lib = "SymssmLib.v"
    assert check_files(dict(files, **{lib: files[lib].replace("Qed.", "Admitted.", 1)}), cert.data) == \
        (1, "SymssmLib.v is not the library symssm ships")
    other = symssm.certify(symssm.ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 2]]), 8)
    code, message = check_files(files, other.data)
    assert code == 1 and "C[1][1]" in message


def _hiding_edits(text):
    """Edits that build while Coq reads another statement than a naive reader: each must be a mismatch."""
    a_line = next(line for line in text.splitlines() if line.startswith("Definition A "))
    other_a = a_line.replace("[:: [:: 0; (-1)]; [:: 1; 0]]", "[:: [:: 2; 0]; [:: 0; 3]]")
    proof = "Qed."
    return {
        # Coq reads a string inside a comment, so '*)' in it closes nothing: the axiom is code for Coq
        "axiom behind a quote in a comment": text.replace(
            "Local Open Scope ring_scope.", 'Local Open Scope ring_scope.\n(* " (* " *) Axiom cheat : False. (* " *) " *)'),
        # the first A is a comment for Coq, the second is the one it reads
        "two As, one per reading": text.replace(
            a_line, f'(* " *) {a_line} (* " *)\n(* " (* " *) {other_a} (* " *) " *)'),
        "an attribute-led axiom inside a proof": text.replace(proof, "\n#[local] Axiom cheat : False.\n" + proof, 1),
        "a notation inside a proof": text.replace(
            proof, "\n#[global] Notation \"'\\rank' x\" := (2%nat) (at level 10, x at next level).\n" + proof, 1),
        "an option behind a bullet": text.replace(proof, "\n- Unset Printing All.\n" + proof, 1),
        "an admit after try": text.replace(proof, "\ntry admit.\n" + proof, 1),
        "a no-break space, a blank to Python and not to Coq": text.replace("lags A B C D n", "lags\u00a0A B C D n", 1),
        "an import after the system": text.replace("Theorem symssm_head_count",
                                                   "From Coq Require Import ZArith.\nTheorem symssm_head_count", 1),
    }


@pytest.mark.parametrize("route", ["exact", "reflect"])
def test_check_reads_the_file_as_coq_does(route):
    cert = symssm.certify(_rotation(), 8)
    files = coq_project(cert, route=route)
    for what, text in _hiding_edits(files["HeadCount.v"]).items():
        assert text != files["HeadCount.v"], what
        code, message = check_files(dict(files, **{"HeadCount.v": text}), cert.data)
        assert code == 1, (what, message)
    quoted = symssm.certify(symssm.ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]],
                                       name='a "quoted" name (* with *) delimiters'), 8)
    files = coq_project(quoted, route=route)
    assert check_files(files, quoted.data)[0] == 0
    assert "a 'quoted' name" in files["HeadCount.v"]


def test_check_refuses_a_folder_holding_more_than_the_sources(tmp_path):
    cert = symssm.certify(_rotation(), 8)
    files = coq_project(cert, route="exact")
    for extra in ("HeadCount.vo", "CoqMakefile.local", "sub/SymssmLib.v", "Makefile"):
        proj = tmp_path / extra.replace("/", "_")
        proj.mkdir()
        for name, text in files.items():
            (proj / name).write_text(text)
        assert check_project(str(proj), cert.data)[0] == 0
        (proj / extra).parent.mkdir(exist_ok=True)
        (proj / extra).write_text("Definition lags := 0.\n")
        code, message = check_project(str(proj), cert.data)
        assert code == 1 and repr(extra.split("/")[0]) in message, (extra, message)


def test_check_names_the_difference_and_exits_0_1_2(tmp_path, capsys):
    cert_path = tmp_path / "rot.json"
    symssm.certify(_rotation(), 8).save(str(cert_path))
    proj = tmp_path / "proj"
    assert main(["coq", str(cert_path), "-o", str(proj)]) == 0
    capsys.readouterr()
    assert main(["coq", "--check", str(proj), str(cert_path)]) == 0
    assert "states the certificate" in capsys.readouterr().out
    text = (proj / "HeadCount.v").read_text()
    (proj / "HeadCount.v").write_text(_edits(text)["extra row and column"])
    assert main(["coq", "--check", str(proj), str(cert_path)]) == 1
    out = capsys.readouterr().out
    assert "A's list has 3 rows" in out and "2 x 2" in out
    assert main(["coq", "--check", str(tmp_path / "missing"), str(cert_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot read _CoqProject" in err
    (proj / "HeadCount.v").write_text(text + "\n(* unclosed")
    assert main(["coq", "--check", str(proj), str(cert_path)]) == 2
    capsys.readouterr()
    forged = dict(json.loads(cert_path.read_text()), head_count=3)
    (tmp_path / "forged.json").write_text(json.dumps(forged))
    (proj / "HeadCount.v").write_text(text)
    assert main(["coq", "--check", str(proj), str(tmp_path / "forged.json")]) == 1
    assert "does not verify" in capsys.readouterr().err
    assert main(["coq", str(cert_path)]) == 2  # neither --out nor --check
    assert "--out" in capsys.readouterr().err


def test_statements_follow_the_certificate():
    shift = symssm.certify(_shift13(), 2)
    want = statement(shift.data)
    assert want["symssm_head_count"] == "forall n, (2 <= n <= 3)%nat -> \\rank (lags A B C D n) = 1%nat"
    assert want["symssm_eventual_head_count"] == "forall n, (4 <= n)%nat -> \\rank (lags A B C D n) = 2%nat"
    assert check_files(coq_project(shift), shift.data)[0] == 0


# ---------------------------------------------------------------- building (long)

def _have_coq():
    if shutil.which("coqc") is None:
        return False
    where = subprocess.run(["coqc", "-where"], capture_output=True, text=True).stdout.strip()
    return all(os.path.isdir(os.path.join(where, "user-contrib", lib)) for lib in ("mathcomp", "CoqEAL"))


needs_coq = pytest.mark.skipif(not _have_coq(), reason="coqc with mathcomp and CoqEAL is not installed")


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    lib = tmp_path_factory.mktemp("lib")
    for src, name in ((LIBRARY, "SymssmLib.v"), (REFLECT_LIBRARY, "SymssmReflect.v")):
        shutil.copy(src, lib / name)
        done = subprocess.run(["coqc", "-q", "-R", str(lib), "Symssm", name], cwd=lib, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return lib


def _build(lib, folder, text):
    folder.mkdir(exist_ok=True)
    (folder / "HeadCount.v").write_text(text)
    return subprocess.run(["coqc", "-q", "-R", str(lib), "Symssm", "HeadCount.v"], cwd=folder, capture_output=True,
                          text=True, timeout=600)


#: What ``Print Assumptions`` may list on the reflective route: the primitive 63-bit integers and their specs.
PRIMITIVE_INTEGERS = {"int", "add", "sub", "mul", "mod", "eqb", "ltb", "leb", "land", "lor", "lsl", "lsr",
                      "add_spec", "sub_spec", "mul_spec", "mod_spec", "ltb_spec", "leb_spec", "lor_spec",
                      "lsl_spec", "lsr_spec", "eqb_correct", "eqb_refl", "of_to_Z"}


def _assumptions(output):
    """The names ``Print Assumptions`` lists (empty when closed under the global context)."""
    if "Closed under the global context" in output:
        return set()
    tail = output.split("Axioms:", 1)[1]
    return {m.group(1) for m in re.finditer(r"^([A-Za-z_][A-Za-z_0-9']*)\s*(?::|$)", tail, re.M)}


@pytest.mark.long
@needs_coq
def test_zero_state_large_entries_and_ranges_build(compiled, tmp_path):
    certs = [symssm.certify(s, 5) for s in ZERO_STATE.values()]
    certs.append(symssm.certify(_big(4, 2, 1, 1, 10**80, 1), 5))  # hexadecimal literals on both routes
    both = len(certs)
    certs += [symssm.certify(_big(7, 8, 4, 4, 10**6, 100), 20), symssm.certify(_big(5, 8, 4, 4, 10**6, 100), 3),
              symssm.certify(_big(6, 6, 1, 1, 10**30, 1), 20), symssm.certify(_shift13(), 2)]
    for i, cert in enumerate(certs):
        for route in (("exact", "reflect") if i < both else ("auto",)):
            files = coq_project(cert, route=route)
            res = _build(compiled, tmp_path / f"p{i}-{route}", files["HeadCount.v"])
            assert res.returncode == 0, (i, route, res.stdout[-2000:] + res.stderr[-2000:])
            names = _assumptions(res.stdout + res.stderr)
            if "SymssmReflect.v" in files:
                assert names and names <= PRIMITIVE_INTEGERS, names - PRIMITIVE_INTEGERS
            else:
                assert names == set(), names
            assert check_files(files, cert.data)[0] == 0


@pytest.mark.long
@needs_coq
@pytest.mark.parametrize("route", ["exact", "reflect"])
def test_an_extra_row_and_column_does_not_build(route, compiled, tmp_path):
    cert = symssm.certify(_rotation(), 8)
    text = coq_project(cert, route=route)["HeadCount.v"]
    edited = _edits(text)["extra row and column"]
    if route == "exact":  # the proof names the lists too: edit them alike, so only the shape check stops it
        a_list = re.search(r"qmx 2 2 1%Z (\[:: .*\]%Z)\.", text).group(1)
        b_list = re.search(r"qmx 2 2 1%Z (\[:: .*\]%Z)\.", edited).group(1)
        edited = edited.replace(f"(Az := {a_list})", f"(Az := {b_list})")
    res = _build(compiled, tmp_path / "p", edited)
    assert res.returncode != 0
