"""Terminal answers that cannot be misquoted.

An unresolved numeric count prints the range of H it cannot tell apart (and ``--json`` gives both ends),
an error below the curve's precision reads ``below precision``, a certificate given where a spec is
expected points to ``symssm check``, and a command that runs on shows that it is working.
"""

import contextlib
import io
import os
import json

import pytest

from symssm.cli import main
from symssm.formats import progress
from symssm.numeric.headcount import NumericResult
from symssm.render.summary import count_text, error_text, numeric_summary

#: A Jordan block at n = 10^12: the doubling form's curve is resolved to about 1e-7 only, and e_1 is below it.
JORDAN = {"name": "jordan-long", "A": [[1, 1, 0], [0, 1, 1], [0, 0, 1]], "B": [[0], [0], [1]],
          "C": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "n": 10 ** 12}


def _result(errors, k, *, tolerance=1e-10, precision=1e-8, exact_heads=None):
    return NumericResult("x", 8, k, (), tolerance, None, tuple(errors), "doubling", "numpy", "cpu",
                         precision=precision, exact_heads=exact_heads)


def test_the_range_of_an_unresolved_count():
    r = _result([1.0, 1e-9, 1e-11, 0.0], 3, exact_heads=3)
    assert r.head_count_range == (1, 3) and not r.resolved
    assert count_text(r).startswith("between 1 and 3 (unresolved")
    # resolved: tau above the precision and no e_H within it of tau
    r = _result([1.0, 0.5, 1e-6], 2, tolerance=1e-3, precision=1e-12, exact_heads=5)
    assert r.head_count_range == (2, 2) and r.resolved and count_text(r) == "k = 2"
    # e_1 within the precision above tau: 1 or 2
    r = _result([1.0, 1.0005e-3, 1e-6], 2, tolerance=1e-3, precision=1e-6, exact_heads=5)
    assert r.head_count_range == (1, 2) and not r.resolved
    # tau below the precision, e_k computed nonzero: the count may be as high as the exact heads
    r = _result([1.0, 0.5, 1e-11], 2, exact_heads=4)
    assert r.head_count_range == (2, 4)
    # tau below the precision, but H = k heads are exact and e_(k-1) is far above tau: one number
    r = _result([1.0, 0.5, 0.0], 2, exact_heads=2)
    assert r.head_count_range == (2, 2) and count_text(r).startswith("k = 2 (tau = 1e-10 is below")


def test_errors_below_precision_are_not_printed_as_measured():
    r = _result([1.0, 0.25, 3e-9, 0.0], 3, tolerance=1e-1, precision=1e-8, exact_heads=3)
    assert error_text(r, 1) == "2.500e-01"
    assert error_text(r, 2).startswith("below precision") and error_text(r, 3).startswith("below precision")
    text = "\n".join(numeric_summary(r, 8))
    assert "0.000e+00" not in text and "3.000e-09" not in text and "below precision" in text


def test_numeric_prints_the_range_and_json_gives_both_ends(tmp_path, capsys):
    spec = tmp_path / "jordan.json"
    spec.write_text(json.dumps(JORDAN))
    assert main(["numeric", str(spec)]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.startswith("numerical head count"))
    assert "between 1 and 3" in line and "unresolved" in line and "k =" not in line
    assert "0.000e+00" not in out and "H =   1: below precision" in out
    assert main(["numeric", str(spec), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["numerical_head_count_low"], data["numerical_head_count_high"]) == (1, 3)
    assert data["resolved"] is False


def test_a_certificate_given_as_a_spec_points_to_check(tmp_path, capsys):
    spec = tmp_path / "rot.json"
    spec.write_text(json.dumps({"A": [[0, -1], [1, 0]], "B": [[1], [0]], "C": [[1, 0]], "n": 4}))
    assert main(["certify", str(spec), "-o", str(tmp_path / "rot.cert.json")]) == 0
    capsys.readouterr()
    for command in (["certify"], ["numeric"], ["gradient"]):
        assert main(command + [str(tmp_path / "rot.cert.json")]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "is a certificate, not a spec" in err, err
        assert f"symssm check {tmp_path / 'rot.cert.json'}" in err


@pytest.fixture
def terminal(monkeypatch):
    """A pseudo-terminal's stream (one that is a terminal: ``isatty()`` is the kernel's answer) and a function that
    returns what the terminal has received so far.  The test puts the stream in ``sys.stderr`` itself (pytest's
    capture sets the standard streams between a fixture and its test)."""
    pty = pytest.importorskip("pty")
    import select

    import fcntl
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))  # 80 columns, as a window has
    err = os.fdopen(slave, "w", buffering=1, encoding="utf-8")
    monkeypatch.delenv("SYMSSM_NO_PROGRESS", raising=False)
    received = []

    def screen():
        err.flush()
        while select.select([master], [], [], 0.05)[0]:
            received.append(os.read(master, 65536))
        return b"".join(received).decode("utf-8", "replace")

    yield err, screen
    err.close()
    os.close(master)


def test_the_heartbeat_shows_work_on_a_terminal_and_clears_its_line(terminal, monkeypatch):
    import time

    stream, screen = terminal
    out = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    monkeypatch.setattr("sys.stdout", out)
    assert progress.on_terminal() is True  # the kernel says so: no isatty is replaced
    with progress.heartbeat("symssm slow", delay=0.05, interval=0.01):
        time.sleep(0.3)
        print("result")
    shown = screen()
    assert "symssm slow: working (0 s)" in shown
    assert shown.endswith("\r\x1b[K")  # cleared
    assert out.getvalue() == "result\n"  # standard output carries nothing of it


def test_a_batch_draws_its_bar_on_a_terminal_and_leaves_none(terminal, tmp_path, monkeypatch):
    from symssm.batch import run_batch

    stream, screen = terminal
    monkeypatch.setattr("sys.stderr", stream)
    spec = tmp_path / "in.jsonl"
    spec.write_text(json.dumps({"A": [[0, -1], [1, 0]], "B": [[1], [0]], "C": [[1, 0]], "n": 4}) + "\n")
    assert run_batch(str(spec), str(tmp_path / "out.jsonl"), workers=1) == (1, 0)
    shown = screen()
    assert "symssm batch:" in shown and "0/1 [" in shown, shown  # tqdm's bar, drawn on the terminal
    assert shown.endswith("\r") and not shown.rstrip("\r").rsplit("\r", 1)[-1].strip(), repr(shown)  # and cleared


def test_no_heartbeat_off_a_terminal_or_when_turned_off(monkeypatch, capsys):
    import time

    monkeypatch.setenv("SYMSSM_NO_PROGRESS", "1")
    with progress.heartbeat("symssm slow", delay=0.0, interval=0.01):
        time.sleep(0.05)
    assert capsys.readouterr() == ("", "")


def test_every_command_runs_under_a_heartbeat(monkeypatch, tmp_path, capsys):
    seen = []

    @contextlib.contextmanager
    def recording(desc, **_):
        seen.append(desc)
        yield

    monkeypatch.setattr(progress, "heartbeat", recording)
    spec = tmp_path / "rot.json"
    spec.write_text(json.dumps({"A": [[0, -1], [1, 0]], "B": [[1], [0]], "C": [[1, 0]], "n": 4}))
    assert main(["numeric", str(spec)]) == 0
    assert seen == ["symssm numeric"]


@pytest.mark.parametrize("bad", ["", "0"])
def test_progress_env_values_that_leave_bars_on(monkeypatch, bad):
    monkeypatch.setenv("SYMSSM_NO_PROGRESS", bad)
    assert progress.on_terminal(io.StringIO()) is False  # not a terminal either way


def test_a_bar_keeps_its_clock_running_during_a_long_step(terminal, monkeypatch):
    """A step of many seconds (a framework layer's theorem for every input) still shows the command at work."""
    import time

    stream, screen = terminal
    monkeypatch.setattr("sys.stderr", stream)
    with progress.reporting("symssm framework", "layer"):
        progress.report(0, 2, "linear attention")
        time.sleep(1.4)
        assert "00:01" in screen()  # redrawn with its clock past one second, no report in between
    assert screen().endswith("\r")  # closed: the line is cleared
