"""Progress bars for long work: tqdm on standard error, drawn only when standard error is a terminal.

Off a terminal (a pipe, a log file, a test, a notebook's captured stream) nothing is drawn and nothing
is imported, so output that is read by programs stays clean.  ``SYMSSM_NO_PROGRESS=1`` turns the bars
off everywhere.

Examples
--------
>>> with progress_bar(10, "demo") as bar:   # not a terminal here: a silent bar
...     bar.update_to(5)
...     bar.advance(5)
>>> bar.done
10
"""

import contextvars
import os
import sys
import threading
import time
from contextlib import contextmanager

__all__ = ["progress_bar", "Progress", "on_terminal", "reporting", "report", "heartbeat"]

#: The bar of the command now running (set by :func:`reporting`); deep code reports to it with :func:`report`.
_CURRENT = contextvars.ContextVar("symssm_progress", default=None)
#: How many bars are drawn now (a heartbeat keeps quiet while one is).
_DRAWN = [0]


def on_terminal(stream=None):
    """Whether ``stream`` (standard error by default) is a terminal and bars are not turned off."""
    if os.environ.get("SYMSSM_NO_PROGRESS", "") not in ("", "0"):
        return False
    stream = sys.stderr if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


class Progress:
    """A bar that counts work done (``update_to``, ``advance``) and closes itself in a ``with`` block."""

    def __init__(self, total, desc, unit="it", *, enabled=None, leave=False):
        self.total = total
        self.done = 0
        self.bar = None
        if enabled is None:
            enabled = on_terminal()
        if enabled:
            try:
                from tqdm import tqdm
            except ImportError:  # pragma: no cover - tqdm is a dependency
                return
            _clear_heartbeat()
            self.bar = tqdm(total=total, desc=desc, unit=unit, leave=leave, file=sys.stderr, dynamic_ncols=True)
            _DRAWN[0] += 1
            self._stop = threading.Event()
            self._ticker = threading.Thread(target=self._tick, name="symssm-progress", daemon=True)
            self._ticker.start()

    def _tick(self, interval=1.0):
        """Redraw the bar every ``interval`` seconds, so that its clock runs during a long step."""
        while not self._stop.wait(interval):
            bar = self.bar
            if bar is not None:
                try:
                    bar.refresh()
                except (OSError, ValueError, AttributeError):  # the stream or the bar closed meanwhile
                    return

    def update_to(self, done, total=None):
        """Set the work done (and, when it changed, the total)."""
        if self.bar is not None and total is not None and total != self.bar.total:
            self.bar.total = total
            self.bar.refresh()
        if done > self.done:
            if self.bar is not None:
                self.bar.update(done - self.done)
            self.done = done

    def advance(self, k=1):
        """Count ``k`` more units of work."""
        self.update_to(self.done + k)

    def describe(self, text):
        """Change the label (the item being worked on)."""
        if self.bar is not None:
            self.bar.set_description_str(text[:60])

    def close(self):
        if self.bar is not None:
            self._stop.set()
            self._ticker.join()
            self.bar.close()
            self.bar = None
            _DRAWN[0] -= 1

    def __call__(self, done, total=None):
        self.update_to(done, total)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def progress_bar(total, desc, unit="it", *, enabled=None):
    """A :class:`Progress` bar (drawn only on a terminal)."""
    return Progress(total, desc, unit, enabled=enabled)


@contextmanager
def reporting(desc, unit="step"):
    """A bar that the work inside the block reports to with :func:`report` (drawn only on a terminal).

    Examples
    --------
    >>> with reporting("demo") as bar:
    ...     report(1, 4, "first")
    >>> bar.done
    1
    """
    bar = Progress(0, desc, unit)
    token = _CURRENT.set(bar)
    try:
        yield bar
    finally:
        _CURRENT.reset(token)
        bar.close()


def report(done, total=None, what=None):
    """Tell the current bar (if any) that ``done`` of ``total`` steps are done; ``what``: the step's name."""
    bar = _CURRENT.get()
    if bar is None:
        return
    if what is not None:
        bar.describe(what)
    bar.update_to(done, total)


#: The heartbeat line now drawn, if any (guarded by its lock): cleared before anything else is written.
_LINE = {"lock": threading.Lock(), "drawn": False, "stream": None}


def _clear_heartbeat():
    with _LINE["lock"]:
        if _LINE["drawn"]:
            _LINE["stream"].write("\r\x1b[K")
            _LINE["stream"].flush()
            _LINE["drawn"] = False


class _ClearingStream:
    """Standard output while a heartbeat runs: the heartbeat's line is cleared before each write."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text):
        _clear_heartbeat()
        return self._stream.write(text)

    def __getattr__(self, name):
        return getattr(self._stream, name)


@contextmanager
def heartbeat(desc, *, delay=2.0, interval=0.5):
    """A line on standard error that shows a command is working, once it has run ``delay`` seconds.

    Drawn only on a terminal (and not under ``SYMSSM_NO_PROGRESS``); it keeps quiet while a progress
    bar is drawn, and is cleared before the command writes to standard output and when it ends, so no
    output that is read carries it.

    Examples
    --------
    >>> with heartbeat("symssm demo"):   # not a terminal here: nothing is drawn
    ...     pass
    """
    if not on_terminal():
        yield
        return
    stop = threading.Event()
    err, out = sys.stderr, sys.stdout
    start = time.monotonic()

    def beat():
        if stop.wait(delay):
            return
        while not stop.is_set():
            with _LINE["lock"]:
                if _DRAWN[0] == 0 and not stop.is_set():
                    err.write(f"\r\x1b[K{desc}: working ({time.monotonic() - start:.0f} s)")
                    err.flush()
                    _LINE["drawn"], _LINE["stream"] = True, err
            stop.wait(interval)

    thread = threading.Thread(target=beat, name="symssm-heartbeat", daemon=True)
    sys.stdout, sys.stderr = _ClearingStream(out), _ClearingStream(err)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        _clear_heartbeat()
        if isinstance(sys.stdout, _ClearingStream):
            sys.stdout = out
        if isinstance(sys.stderr, _ClearingStream):
            sys.stderr = err
