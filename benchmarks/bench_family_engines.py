"""Families on FLINT against the code before it (a git revision), whole processes, in the same run.

For each family spec, ``symssm certify SPEC -n 16`` (generator and its independent check) and
``symssm check CERT`` are timed with this checkout and with the baseline revision (checked out into
a temporary git worktree), and the check once more with ``SYMSSM_CHECKER_PURE=1`` (the checker
without its optional python-flint accelerator). The head counts and the verdicts must agree.

    python benchmarks/bench_family_engines.py [--baseline 73d4289] [--repeat 3]

Prints a Markdown table (docs/performance.md records a run).
"""

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
#: The last commit before the FLINT engine.
BASELINE = "73d4289"


def _diagonal(N):
    names = [f"l{i + 1}" for i in range(N)]
    return {"name": f"diagonal-{N}", "parameters": names,
            "A": [[names[i] if i == j else 0 for j in range(N)] for i in range(N)], "B": [[1]] * N,
            "C": [[1 if i == j else 0 for j in range(N)] for i in range(N)]}


def _rank_one_inputs(N, seed=1):
    """Random entries linear in a, b, c, d; two equal input columns, so k = 2 < pm: coefficient identities."""
    rng = random.Random(seed)
    params = ["a", "b", "c", "d"]
    A = [[f"{rng.randint(-2, 2)}*{rng.choice(params)} + {rng.randint(-3, 3)}" if rng.random() < 0.4
          else rng.randint(-2, 2) for _ in range(N)] for _ in range(N)]
    b = [rng.randint(-2, 2) for _ in range(N)]
    return {"name": f"rank-one-{N}", "parameters": params, "A": A, "B": [[x, x] for x in b],
            "C": [[rng.randint(-2, 2) for _ in range(N)] for _ in range(2)]}


def _rational(N, seed=2):
    """A tridiagonal A whose entries are rational functions of a and b."""
    A = [[0] * N for _ in range(N)]
    for i in range(N):
        A[i][i] = f"a/(b + {i + 1})"
        if i + 1 < N:
            A[i][i + 1] = "b"
            A[i + 1][i] = f"1/(a - {i + 1})"
    return {"name": f"rational-{N}", "parameters": ["a", "b"], "A": A, "B": [[1]] + [[0]] * (N - 1),
            "C": [[1 if j == i else 0 for j in range(N)] for i in range(2)]}


SPECS = [_diagonal(4), _diagonal(5), _rank_one_inputs(6), _rank_one_inputs(8), _rational(6), _rational(8)]


IN_PROCESS = r"""
import json, sys, time
from symssm.sources.parametric import parametric_from_data
from symssm.certificate.parametric import parametric_data
from symssm.checker import check_data
spec = json.load(open(sys.argv[1]))
system, n = parametric_from_data(spec)
t = time.perf_counter(); data = parametric_data(system, n); t_gen = time.perf_counter() - t
t = time.perf_counter(); res = check_data(json.load(open(sys.argv[2]))); t_check = time.perf_counter() - t
print(json.dumps([t_gen, t_check, res.code]))
"""


def _in_process(tree, spec, cert, repeat):
    """Median (generator, checker) seconds inside one process, imports excluded."""
    runs = []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", IN_PROCESS, spec, cert], capture_output=True, text=True,
                             env=dict(os.environ, PYTHONPATH=tree), cwd=tree)
        runs.append(json.loads(out.stdout) if out.returncode == 0 else [float("nan"), float("nan"), out.returncode])
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs), runs[-1][2]


def _run(tree, args, env=None):
    full = dict(os.environ, PYTHONPATH=tree, **(env or {}))
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-m", "symssm", *args], capture_output=True, text=True, env=full,
                         cwd=tree)  # python -m puts the working folder first on sys.path
    elapsed = time.perf_counter() - start
    return elapsed, out.returncode


def _median(tree, args, repeat, env=None):
    runs = [_run(tree, args, env) for _ in range(repeat)]
    codes = {code for _, code in runs}
    return statistics.median(t for t, _ in runs), max(codes)


def _cell(value, code):
    return f"{value:.2f} s" if code == 0 else f"{value:.2f} s (exit {code}: undecided)" if code == 2 else \
        f"{value:.2f} s (exit {code})"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default=BASELINE, help=f"git revision to compare with (default {BASELINE})")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    work = tempfile.mkdtemp(prefix="symssm-bench-")
    base = os.path.join(work, "baseline")
    subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", base, args.baseline], check=True,
                   capture_output=True)
    try:
        print(f"baseline {args.baseline} against this checkout; medians of {args.repeat} whole processes, n = 16\n")
        print("| family | bodies | certify before | certify now | ratio | check before | check now | ratio "
              "| check now, pure |")
        print("|---|---|---|---|---|---|---|---|---|")
        inproc = []
        for spec in SPECS:
            path = os.path.join(work, spec["name"] + ".json")
            with open(path, "w") as fh:
                json.dump(dict(spec, n=16), fh)
            certs = {}
            times = {}
            for label, tree in (("before", base), ("now", ROOT)):
                cert = os.path.join(work, f"{spec['name']}.{label}.cert.json")
                times[f"certify {label}"] = _median(tree, ["certify", path, "-o", cert], args.repeat)
                certs[label] = json.load(open(cert)) if os.path.exists(cert) else None
                # both checkers read the same certificate: this checkout's
                now_cert = os.path.join(work, f"{spec['name']}.now.cert.json")
            for label, tree in (("before", base), ("now", ROOT)):
                times[f"check {label}"] = _median(tree, ["check", now_cert, "-q"], args.repeat)
            times["pure"] = _median(ROOT, ["check", now_cert, "-q"], args.repeat, {"SYMSSM_CHECKER_PURE": "1"})
            same = certs["before"] == certs["now"]
            bodies = len(certs["now"]["bodies"])
            (cb, cbc), (cn, cnc), (kb, kbc), (kn, knc), (kp, kpc) = (times[k] for k in (
                "certify before", "certify now", "check before", "check now", "pure"))
            note = "" if same else " (before: the 256-case limit, incomplete)" if \
                len((certs["before"] or {}).get("bodies", [])) == 256 else " (differs!)"
            print(f"| {spec['name']} | {bodies}{note} | {_cell(cb, cbc)} | {_cell(cn, cnc)} | {cn / cb:.2f}x "
                  f"| {_cell(kb, kbc)} | {_cell(kn, knc)} | {kn / kb:.2f}x | {_cell(kp, kpc)} |", flush=True)
            inproc.append((spec["name"], _in_process(base, path, now_cert, args.repeat),
                           _in_process(ROOT, path, now_cert, args.repeat)))
        print("\nInside one process (imports excluded): the generator (the family's analysis, no check) and the "
              "checker on this checkout's certificate.\n")
        print("| family | generator before | generator now | ratio | checker before | checker now | ratio |")
        print("|---|---|---|---|---|---|---|")
        for name, (gb, kb, kbc), (gn, kn, knc) in inproc:
            print(f"| {name} | {gb:.3f} s | {gn:.3f} s | {gn / gb:.2f}x | {kb:.3f} s{'' if kbc == 0 else f' (exit {kbc})'} "
                  f"| {kn:.3f} s | {kn / kb:.2f}x |")
    finally:
        subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", base], capture_output=True)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
