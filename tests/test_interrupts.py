"""Ctrl-C at random moments of ``check``, ``certify`` and ``batch``: an interrupt is never a verdict.

Each try starts the command in its own process group and sends SIGINT to the whole group (what a terminal
does on Ctrl-C: the batch's workers and the checker's isolated child get it too) after a random delay; one
try in three sends a second SIGINT 5 ms later (a double press).  Every try must end with exit 130 (or 2,
undecided) and at most one line on standard error, never exit 1 (the code for "the claim is false") and never
a traceback; nothing half-written may be left (no ``.symssm-*.tmp``, every file written parses whole), and a
resumed batch ends with every line done.

The signals must land: each workload runs for seconds (a 200-state certificate to check and to write, a batch
of 40-state systems on two workers), its uninterrupted wall time ``T`` is measured first in the same run, and
the delays are fractions of ``T`` (between 0.15 and a half), so a try whose command had already
finished is a failure of the test, not a pass.  A signal that arrives before symssm's entry point has run its
first statement (while the interpreter starts and runs the site's ``.pth`` files) is Python's to handle: it is
recognised by its traceback (no symssm frame but module-level code of the entry point's own imports) and counted
as not delivered.  At least three tries in four must be delivered and end with 130.  The default suite runs 4
tries of each command; ``-m long`` runs 30 of each.
"""

import json
import os
import random
import re
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(not hasattr(os, "killpg"), reason="process groups (POSIX)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ENV = {**os.environ, "PYTHONPATH": ROOT + os.pathsep + os.environ.get("PYTHONPATH", "")}


def _interrupt(argv, delay, double, cwd):
    """Run ``python -m symssm ARGV``, SIGINT its process group after ``delay`` s; (code, stdout, stderr, sent)."""
    proc = subprocess.Popen([sys.executable, "-m", "symssm", *argv], cwd=cwd, env=ENV, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(delay)
    sent = proc.poll() is None
    if sent:
        try:
            os.killpg(proc.pid, signal.SIGINT)
            if double:
                time.sleep(0.005)
                os.killpg(proc.pid, signal.SIGINT)
        except ProcessLookupError:
            sent = False
    out, err = proc.communicate(timeout=120)
    return proc.returncode, out, err, sent


#: The module-level code that runs before an entry point's guard is set (``symssm/__main__.py``'s imports).
_BEFORE_GUARD = {"__main__.py", "__init__.py", "checker/__init__.py", "checker/interrupts.py", "_version.py"}
_FRAME = re.compile(r'File "[^"]*/symssm/([^"]+)", line [0-9]+, in (\S+)')


def _before_start(err):
    """Whether a traceback is Python's own, from before symssm's first statement ran."""
    if "Traceback" not in err or not err.rstrip().endswith("KeyboardInterrupt"):
        return False
    return all(name in _BEFORE_GUARD and where == "<module>" for name, where in _FRAME.findall(err))


def _assert_interrupted(code, out, err, sent):
    """Check one try's ending; returns its outcome ("signalled", "before start" or "finished")."""
    if _before_start(err):
        return "before start"
    assert "Traceback" not in err, err
    assert len(err.splitlines()) <= 1, err
    assert code != 1, (code, out, err)
    if code == 0:  # the command had finished when the signal came: a complete result
        return "finished"
    assert sent and code in (130, 2), (code, err)
    return "signalled" if code == 130 else "finished"


def _no_temporaries(folder):
    left = [name for name in os.listdir(folder) if name.startswith(".symssm-")]
    assert not left, left


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    """The workloads and their uninterrupted wall times (measured here, on this machine, under its load)."""
    folder = tmp_path_factory.mktemp("interrupts")
    cert = folder / "r.json"
    certify = ["certify", "--family", "random", "-N", "200", "-p", "6", "-m", "6", "--method", "exact"]
    times = {"certify": _timed([*certify, "-o", str(cert)], folder), "check": _timed(["check", str(cert)], folder)}
    specs = folder / "in.jsonl"
    lines = []
    for seed in range(8):
        rng = random.Random(seed)
        N = 40
        A = [[rng.randint(-3, 3) for _ in range(N)] for _ in range(N)]
        B = [[rng.randint(-2, 2) for _ in range(3)] for _ in range(N)]
        C = [[rng.randint(-2, 2) for _ in range(N)] for _ in range(3)]
        lines.append(json.dumps({"name": f"s{seed}", "A": A, "B": B, "C": C, "n": 60}))
    specs.write_text("\n".join(lines) + "\n")
    (folder / "timed").mkdir()
    times["batch"] = _timed(_batch_argv(folder, folder / "timed"), folder)
    return folder, certify, times


def _timed(argv, cwd):
    start = time.monotonic()
    subprocess.run([sys.executable, "-m", "symssm", *argv], cwd=cwd, env=ENV, check=True, capture_output=True)
    return time.monotonic() - start


def _batch_argv(work, folder):
    return ["batch", str(work / "in.jsonl"), "-o", str(folder / "out.jsonl"), "--workers", "2",
            "--certificates", str(folder / "certs"), "--no-progress"]


def _tries(count, seed, seconds):
    rng = random.Random(seed)
    return [(rng.uniform(0.15, 0.5) * seconds, rng.random() < 1 / 3) for _ in range(count)]


def _delivered(outcomes):
    """Each try's outcome is "signalled" (exit 130 after a delivered signal), "before start" or "finished"."""
    landed = outcomes.count("signalled")
    assert 4 * landed >= 3 * len(outcomes), f"only {landed} of {len(outcomes)} signals landed: {outcomes}"


def _check_tries(work, count):
    folder, _, times = work
    outcomes = []
    for delay, double in _tries(count, 1, times["check"]):
        code, out, err, sent = _interrupt(["check", str(folder / "r.json")], delay, double, folder)
        outcomes.append(_assert_interrupted(code, out, err, sent))
        if code == 0:
            assert out.startswith("VERIFIED"), out
    _delivered(outcomes)


def _certify_tries(work, count):
    folder, certify, times = work
    out_dir = folder / "certify"
    out_dir.mkdir(exist_ok=True)
    outcomes = []
    for i, (delay, double) in enumerate(_tries(count, 2, times["certify"])):
        target = out_dir / f"c{i}.json"
        code, out, err, sent = _interrupt([*certify, "-o", str(target)], delay, double, folder)
        outcomes.append(_assert_interrupted(code, out, err, sent))
        _no_temporaries(out_dir)
        if target.exists():  # whole: it parses and the independent checker verifies it
            json.loads(target.read_text())
            check = subprocess.run([sys.executable, "-m", "symssm", "check", "-q", str(target)], env=ENV)
            assert check.returncode == 0
    _delivered(outcomes)


def _batch_tries(work, count):
    folder, _, times = work
    outcomes = []
    for i, (delay, double) in enumerate(_tries(count, 3, times["batch"])):
        where = folder / f"batch{i}"
        where.mkdir()
        argv = _batch_argv(folder, where)
        code, out, err, sent = _interrupt(argv, delay, double, folder)
        outcomes.append(_assert_interrupted(code, out, err, sent))
        _no_temporaries(where)
        if (where / "certs").exists():
            _no_temporaries(where / "certs")
            for name in os.listdir(where / "certs"):
                json.loads((where / "certs" / name).read_text())
        # the same command resumes and completes
        done = subprocess.run([sys.executable, "-m", "symssm", *argv], env=ENV, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, done.stderr
        rows = [json.loads(line) for line in (where / "out.jsonl").read_text().splitlines()]
        assert [row["line"] for row in rows] == list(range(1, 9)) and all(row["verified"] for row in rows)
        _no_temporaries(where / "certs")
    _delivered(outcomes)


def test_ctrl_c_during_check(work):
    _check_tries(work, 4)


def test_ctrl_c_during_certify(work):
    _certify_tries(work, 4)


def test_ctrl_c_during_batch(work):
    _batch_tries(work, 4)  # each try also resumes the batch: 4 keep the default suite fast


@pytest.mark.long
def test_ctrl_c_thirty_times_each(work):
    _check_tries(work, 30)
    _certify_tries(work, 30)
    _batch_tries(work, 30)


def test_stale_temporaries_are_removed_on_resume(tmp_path):
    """A temporary file left by a killed run (SIGKILL cannot be held back) is removed by the next run."""
    certs = tmp_path / "certs"
    certs.mkdir()
    stale = certs / ".symssm-Ab3xYz9q.tmp"  # an older symssm's name: no process id
    stale.write_text("{half")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    gone = certs / f".symssm-{dead.stdout.strip()}-Zx81kLmn.tmp"
    gone.write_text("{half")
    mine = certs / f".symssm-{os.getpid()}-Qw12erTy.tmp"  # a running writer's: kept
    mine.write_text("{")
    spec = tmp_path / "one.jsonl"
    spec.write_text(json.dumps({"A": [[0, -1], [1, 0]], "B": [[1], [0]], "C": [[1, 0]]}) + "\n")
    done = subprocess.run([sys.executable, "-m", "symssm", "batch", str(spec), "-o", str(tmp_path / "o.jsonl"),
                           "--certificates", str(certs), "--no-progress"], env=ENV, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert not stale.exists() and not gone.exists() and mine.exists()
