"""The command-line checker cannot be stalled: budgets, memory and signals end it even in native code.

A C-level loop (``sum(range(...))``) stands for a long python-flint or numpy call: Python's own
alarm never gets control back inside it, so only the isolation in a child process can end it.
"""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from symssm.checker.isolate import Undecided, default_seconds, run_isolated

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="isolation needs fork (POSIX)")


def _native_loop():
    return {"code": 0, "message": str(sum(range(10 ** 13)))}


def test_a_verdict_comes_back():
    assert run_isolated(lambda: {"code": 1, "message": "x: no"}, seconds=30, limit_text="t") == \
        {"code": 1, "message": "x: no"}


def test_time_runs_out_inside_native_code():
    start = time.monotonic()
    with pytest.raises(Undecided, match="did not finish within the limit"):
        run_isolated(_native_loop, seconds=0.5, limit_text="the limit")
    assert time.monotonic() - start < 1.5


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


def test_default_budget():
    assert default_seconds(0) == 10.0 and default_seconds(2_000_000) == 14.0


SCRIPT = textwrap.dedent("""
    import sys, time
    import symssm.checker.cli as cli
    import symssm.checker.isolate as iso
    iso.DEFAULT_SECONDS, iso.SECONDS_PER_MB = {default}, 0.0
    def slow(*args, **kwargs):
        sum(range(10 ** 13))
    cli.check_file = slow
    sys.exit(cli.main({argv}))
""")


def _run(tmp_path, argv, default=60.0, term_after=None):
    cert = tmp_path / "c.json"
    cert.write_text("{}")
    code = SCRIPT.format(default=default, argv=repr([str(cert)] + argv))
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if term_after is not None:
        time.sleep(term_after)
        proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=60)
    return proc.returncode, out + err, time.monotonic() - start


def test_max_seconds_holds_in_native_code(tmp_path):
    code, text, took = _run(tmp_path, ["--max-seconds", "1"])
    assert code == 2 and "--max-seconds 1" in text and "neither verified nor rejected" in text, text
    assert took < 4  # 1 s budget, interpreter start-up included
    assert "Traceback" not in text


def test_the_default_budget_is_named(tmp_path):
    code, text, took = _run(tmp_path, [], default=1.0)
    assert code == 2 and "default limit" in text and "--max-seconds allows more" in text, text
    assert took < 4


@pytest.mark.parametrize("sig", [signal.SIGTERM])
def test_sigterm_ends_the_check_at_once(tmp_path, sig):
    code, text, took = _run(tmp_path, [], term_after=1.5)
    assert code == 2 and "neither verified nor rejected" in text, text
    assert took < 1.5 + 1.5
    assert "Traceback" not in text
