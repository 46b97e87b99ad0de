"""The command-line checker cannot be stalled: budgets, memory and signals end it even in native code.

A C-level loop (``sum(range(...))``) stands for a long python-flint or numpy call: Python's own
alarm never gets control back inside it, so only the isolation in a child process can end it.
The loop would run for hours; the time bounds below only tell "ended" from "hung" (they are far
above the budgets), so a slow machine cannot fail them. Speed is measured in benchmarks/, not here.
"""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from symssm.checker.isolate import Undecided, run_isolated

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="isolation needs fork (POSIX)")


def _native_loop():
    return {"code": 0, "message": str(sum(range(10 ** 13)))}


def test_a_verdict_comes_back():
    assert run_isolated(lambda: {"code": 1, "message": "x: no"}, seconds=30, limit_text="t") == \
        {"code": 1, "message": "x: no"}


def test_time_runs_out_inside_native_code():
    start = time.monotonic()
    with pytest.raises(Undecided, match="stopped by the clock: the check did not finish within the limit"):
        run_isolated(_native_loop, seconds=0.5, limit_text="the limit")
    assert time.monotonic() - start < 60  # the loop alone would take hours


def test_memory_runs_out():
    def hog():
        block = bytearray(b"\x01") * (800 << 20)
        time.sleep(5)
        return {"code": 0, "message": str(len(block))}

    try:  # the address-space cap stops the allocation (MemoryError), or the poll kills the child
        out = run_isolated(hog, seconds=30, limit_text="t", memory=200 << 20)
    except Undecided as exc:
        assert "memory" in str(exc)
    else:
        assert out["code"] == 2 and "too large" in out["message"]


SCRIPT = textwrap.dedent("""
    import sys, time
    import symssm.checker.cli as cli
    def slow(*args, **kwargs):
        open({started!r}, "w").close()  # the check has begun (inside the isolated child)
        sum(range(10 ** 13))
    cli.check_file = slow
    sys.exit(cli.main({argv}))
""")


def _run(tmp_path, argv, terminate=False):
    cert = tmp_path / "c.json"
    cert.write_text("{}")
    started = tmp_path / "started"
    code = SCRIPT.format(argv=repr([str(cert)] + argv), started=str(started))
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if terminate:
        while not started.exists() and proc.poll() is None and time.monotonic() - start < 120:
            time.sleep(0.05)
        assert started.exists(), "the check never started"
        proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=300)
    return proc.returncode, out + err, time.monotonic() - start


def test_max_seconds_holds_in_native_code(tmp_path):
    code, text, took = _run(tmp_path, ["--max-seconds", "1"])
    assert code == 2 and "--max-seconds 1" in text and "neither verified nor rejected" in text, text
    assert "stopped by the clock" in text
    assert took < 120  # ended, not hung (the loop alone would take hours)
    assert "Traceback" not in text


def test_no_clock_without_max_seconds(tmp_path):
    """Without --max-seconds the check has no wall-clock limit: a check that takes 2 s of wall time is decided by
    what it computes, not cut short (the stand-in check sleeps, then answers)."""
    cert = tmp_path / "c.json"
    cert.write_text("{}")
    code = textwrap.dedent(f"""
        import sys, time
        import symssm.checker.cli as cli
        from symssm.checker.kernel import CheckResult
        def slow(*args, **kwargs):
            assert kwargs.get("max_seconds") is None
            time.sleep(2)
            return CheckResult(0, "slow but decided")
        cli.check_file = slow
        sys.exit(cli.main([{str(cert)!r}]))
    """)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and "VERIFIED: slow but decided" in proc.stdout, proc.stdout + proc.stderr


def test_sigterm_ends_the_check_at_once(tmp_path):
    code, text, took = _run(tmp_path, [], terminate=True)  # no clock: only the signal can end it
    assert code == 143 and "terminated" in text and "neither verified nor rejected" in text, text
    assert took < 120  # ended by the signal
    assert "Traceback" not in text
