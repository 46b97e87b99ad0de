"""The head-count verdict's path: the modules it enters (traced), and the accelerator interface beside it.

docs/checker.md walks a reader through these modules in order; a change that drags another module onto the
path (a spec reader, another kind's helpers, the generator) fails here, and the walk-through must follow.
"""

import json
import os
import random
import subprocess
import sys
from fractions import Fraction

import pytest

from symssm.checker import accel, lags

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(ROOT, "benchmarks", "checker_path.py")
FIX = os.path.join(ROOT, "tests", "fixtures", "head_count")

#: The modules a reader reads, in the order docs/checker.md walks them (sorted here, as the script lists them).
READING_PATH = ["__init__.py", "cli.py", "core.py", "headcount.py", "kernel.py", "lags.py", "limits.py", "numbers.py",
                "reading.py"]
#: The modules a reader may skip: the accelerator interface, the bulk reader, the process harness.
SKIPPABLE = {"accel.py", "bulk.py", "isolate.py", "interrupts.py"}


def _trace(*certs):
    out = subprocess.run([sys.executable, SCRIPT, "--json", *certs], capture_output=True, text=True, check=True,
                         env=dict(os.environ, SYMSSM_CHECKER_PURE="1"), timeout=120).stdout
    return [json.loads(line) for line in out.splitlines()]


def test_the_head_count_path_enters_exactly_these_modules():
    """The rotation (exact witness), a larger catalogue certificate (exact witness, rational combinations), a
    modular witness and a rejected one: the same nine modules on the reading path, the others skippable."""
    certs = [os.path.join(ROOT, "certificates", "rotation-N2-p1-m1.json"),
             os.path.join(ROOT, "certificates", "hippo-legs-N8-p3-m2.json"),
             os.path.join(FIX, "two-rotations.modular.cert.json"), os.path.join(FIX, "bad-modular-det.cert.json")]
    runs = _trace(*certs)
    assert [r["exit"] for r in runs] == [0, 0, 0, 1]
    for run in runs:
        assert run["path_modules"] == READING_PATH, run["certificate"]
        assert {m["module"] for m in run["modules"] if m["skippable"]} <= SKIPPABLE, run["certificate"]
        assert run["path_executed"] > 400  # the trace saw the check itself (the forked child), not only the parent
    assert runs[0]["path_lines"] == runs[1]["path_lines"] == sum(
        open(os.path.join(ROOT, "symssm", "checker", name)).read().count("\n") for name in READING_PATH)


def test_pure_lags_module_imports_no_accelerator_in_pure_mode():
    """With SYMSSM_CHECKER_PURE=1 a head-count check imports neither numpy nor python-flint, nor fast.py."""
    code = ("import sys, symssm.checker.core as c; r = c.check_file(sys.argv[1]); "
            "print(r.code, sorted(m for m in ('numpy', 'flint', 'symssm.checker.fast', 'symssm.checker.linalg', "
            "'symssm.checker.spec') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code, os.path.join(FIX, "two-rotations.modular.cert.json")],
                         capture_output=True, text=True, check=True, env=dict(os.environ, SYMSSM_CHECKER_PURE="1"))
    assert out.stdout.split() == ["0", "[]"]


def _random_system(rng, N, p, m, with_D, dens=(1, 2, 3, 7)):
    def q():
        return Fraction(rng.randint(-9, 9), rng.choice(dens))

    mat = lambda r, c: [[q() for _ in range(c)] for _ in range(r)]  # noqa: E731
    D = mat(p, m) if with_D else None
    return {"A": mat(N, N), "B": mat(N, m), "C": mat(p, N), "D": D}


@pytest.mark.skipif(accel.np is None or accel.flint is None, reason="the accelerators are not installed")
def test_each_accelerated_call_gives_the_standard_librarys_value(monkeypatch):
    """accel.py's four calls against lags.py's own code, on random rational systems and primes on both sides of
    the float limit (python-flint's exact products; numpy float64 and int64 residues; blocked minors past K = 64)."""
    rng = random.Random(46)
    answers = []
    for N, p, m, with_D, prime in ((6, 2, 3, True, 2097143), (9, 3, 1, False, 2147483647), (5, 1, 1, True, 101)):
        system = _random_system(rng, N, p, m, with_D)
        wanted = sorted(rng.sample(range(N + 1), 4))
        cells = [(rng.randrange(p), rng.randrange(m)) for _ in wanted]
        rows = [[Fraction(rng.randint(-5, 5), rng.randint(1, 4)) for _ in range(h)] for h in (1, 3, 0, 2)]
        answers.append((lags.exact_lags(system, N + 1), lags.minor_mod(system, wanted, cells, prime)))
        exact = answers[-1][0]
        answers[-1] += (lags.combinations(exact, wanted, rows, p, m),)
        assert accel.exact_lags(system, N + 1) is not None and accel.minor_mod(system, wanted, cells, prime) is not None
    big = [[rng.randrange(2097143) for _ in range(70)] for _ in range(70)]
    small = [[rng.randrange(2147483647) for _ in range(12)] for _ in range(12)]
    minors = [lags.leading_minors_mod(big, 2097143), lags.leading_minors_mod(small, 2147483647)]
    assert accel.leading_minors_mod(big, 2097143) == minors[0]
    monkeypatch.setattr(accel, "np", None)
    monkeypatch.setattr(accel, "flint", None)
    rng = random.Random(46)
    for (N, p, m, with_D, prime), (exact, minor, combos) in zip(
            ((6, 2, 3, True, 2097143), (9, 3, 1, False, 2147483647), (5, 1, 1, True, 101)), answers):
        system = _random_system(rng, N, p, m, with_D)
        wanted = sorted(rng.sample(range(N + 1), 4))
        cells = [(rng.randrange(p), rng.randrange(m)) for _ in wanted]
        rows = [[Fraction(rng.randint(-5, 5), rng.randint(1, 4)) for _ in range(h)] for h in (1, 3, 0, 2)]
        assert accel.exact_lags(system, N + 1) is None  # the standard library below
        assert lags.exact_lags(system, N + 1) == exact
        assert lags.minor_mod(system, wanted, cells, prime) == minor
        assert lags.combinations(exact, wanted, rows, p, m) == combos
        # the minor from the lags themselves: u v^-1 mod P of each exact entry
        assert minor == [[exact[d][r][c].numerator * pow(exact[d][r][c].denominator, -1, prime) % prime
                          for r, c in cells] for d in wanted]
    assert [lags.leading_minors_mod(big, 2097143), lags.leading_minors_mod(small, 2147483647)] == minors


def test_known_lags_and_minors():
    """The rotation by a quarter turn: L_d = C A^d B walks the four powers of A; a singular minor stops early."""
    F = Fraction
    A = [[F(0), F(-1)], [F(1), F(0)]]
    system = {"A": A, "B": [[F(1), F(0)], [F(0), F(1)]], "C": [[F(1, 2), F(0)], [F(0), F(1)]], "D": None}
    L = lags.exact_lags(system, 5)
    assert L[1] == [[F(0), F(-1, 2)], [F(1), F(0)]] and L[4] == L[0] == [[F(1, 2), F(0)], [F(0), F(1)]]
    assert lags.leading_minors_exact([[F(1, 2), F(3)], [F(1), F(6)]]) == [F(1, 2), F(0)]
    assert lags.leading_minors_mod([[0, 1], [1, 0]], 7) == [0]
    assert lags.combinations(L, [0, 1], [[F(-1)]], 2, 2) == [[[F(-1, 2), F(0)], [F(0), F(-1)]]]  # -L_0 = L_2
    assert lags.combinations(L, [0, 1], [[F(-1)]], 2, 2)[0] == L[2]
    # the bound: bits(C') + bits(B') + d bits(A') + (d + 1) ceil(log2 N) + the denominators' bits, where
    # C' = 2 C = [[1, 0], [0, 2]] (2 bits, c = 2: 1 bit) and A, B are integers of 1 bit
    assert lags.lag_bit_bound(system, 3) == 2 + 1 + 3 * 1 + 4 * 1 + 1


def test_the_spec_grammar_is_found_in_one_module():
    """The spec grammar's names are :mod:`symssm.checker.spec`'s alone: the number reader and the system reader do
    not lend them (a lazy re-export would be an import circle: numbers -> spec -> kernel -> numbers)."""
    from symssm.checker import numbers, reading, spec

    assert callable(spec.spec_rational) and callable(spec.spec_hash) and spec.SPEC_KEYS
    for module, name in ((numbers, "spec_rational"), (numbers, "MAX_EXPONENT"), (reading, "spec_hash")):
        with pytest.raises(AttributeError):
            getattr(module, name)


def test_the_walk_through_names_each_function_at_its_lines():
    """docs/checker.md points a reader at ``file.py:a-b`` ``name``: each such range is exactly that definition."""
    import ast
    import re

    text = open(os.path.join(ROOT, "docs", "checker.md")).read()
    refs = re.findall(r"`(\w+\.py):(\d+)-(\d+)`\s+`(\w+)`", text)
    assert len(refs) >= 25
    spans = {}
    for name in {ref[0] for ref in refs}:
        tree = ast.parse(open(os.path.join(ROOT, "symssm", "checker", name)).read())
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                spans[name, node.name] = (node.lineno, node.end_lineno)
            elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
                spans[name, node.targets[0].id] = (node.lineno, node.end_lineno)
    wrong = [f"{f}:{a}-{b} {n} is at {spans.get((f, n))}" for f, a, b, n in refs if spans.get((f, n)) != (int(a), int(b))]
    assert not wrong, wrong
    for name in READING_PATH[1:]:
        if name != "limits.py":
            assert f"`{name}" in text, name
