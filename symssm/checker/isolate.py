"""Run a check in a child process that a budget, a memory limit and a signal can always end.

A hostile certificate can make one exact operation (a product in python-flint, a characteristic
polynomial) run long inside native code, where neither a Python alarm nor a signal handler gets
control back.  The command-line checker therefore runs the whole check in a forked child and
waits for it.  The parent stays in Python, where it can act on its own:

- **time**: only when a wall-clock limit is asked for (``--max-seconds``): at expiry the child is killed and
  the verdict is *undecided* (exit 2, the message saying it was the clock), within 0.1 s.  Without one the
  verdict depends on the certificate alone: every operation is charged before it runs (:mod:`.costs`), and the
  charges are calibrated so that the most any certificate within its limits costs is a few seconds;
- **memory**: the child's new allocations are capped (``RLIMIT_AS``, relative to what it inherits)
  and its resident memory is polled (Linux ``/proc``): above 2 GB it stops, with the verdict undecided
  (exit 2);
- **signals**: SIGTERM or SIGINT kills the child, and the command exits 143 or 130 at once (the first signal
  raises, later ones are ignored: :mod:`.interrupts`).

The child only reads and checks. It writes nothing, so killing it loses nothing. Where ``fork``
is not available (Windows), the check runs in-process, with the Python-level budget only.
Standard library only.
"""

import json
import os
import select
import signal
import time

from .interrupts import stop_on_signals

__all__ = ["MEMORY_LIMIT", "run_isolated", "Undecided"]

#: The resident memory a check may use (bytes).
MEMORY_LIMIT = 2 * 1024 ** 3
_POLL = 0.05


class Undecided(Exception):
    """The check was stopped by a limit: neither verified nor rejected (exit 2)."""


def _rss(pid):
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _cap_address_space(memory):
    """In the child: new allocations beyond ``memory`` bytes fail with MemoryError (a hard stop between polls).

    The cap is set relative to the address space the child inherits, so libraries already mapped by the
    parent do not count against it.
    """
    try:
        import resource

        with open("/proc/self/statm") as fh:
            size, rss = (int(x) * os.sysconf("SC_PAGE_SIZE") for x in fh.read().split()[:2])
        cap = size + max(memory - rss, 0)
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            cap = min(cap, hard)
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    except (ImportError, OSError, ValueError):  # pragma: no cover - not Linux: the polling still applies
        pass


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def run_isolated(task, *, seconds=None, limit_text=None, memory=MEMORY_LIMIT):
    """Run ``task()`` (returning a JSON-ready dict) in a child process; return its dict.

    ``seconds`` is a wall-clock limit (None: none; ``limit_text`` names it in the message).  Raises
    :class:`Undecided` when that clock or the memory limit ends the child; SIGINT raises KeyboardInterrupt and
    SIGTERM :class:`.interrupts.Terminated` (once: later signals are ignored).  In every case the child is killed
    first.
    """
    if not hasattr(os, "fork"):  # pragma: no cover - Windows
        return task()
    with stop_on_signals():
        return _fork_and_wait(task, seconds, limit_text, memory)


_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def _fork_and_wait(task, seconds, limit_text, memory):
    """Fork with SIGINT and SIGTERM held back, so that no signal falls between the fork and the parent's wait
    (which kills the child on any exit) or before the child has set its own handlers."""
    read_end, write_end = os.pipe()
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS)
    try:
        pid = os.fork()
    except BaseException:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        os.close(read_end)
        os.close(write_end)
        raise
    if pid == 0:  # the child: check, send the verdict, exit without running any parent cleanup
        code = 0
        try:
            os.close(read_end)
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)
            _cap_address_space(memory)
            try:
                payload = task()
            except MemoryError:
                payload = {"code": 2, "message": "the certificate is too large to check (MemoryError)"}
            except RecursionError:
                payload = {"code": 2, "message": "the certificate nests too deeply to check (RecursionError)"}
            data = json.dumps(payload, default=str).encode("utf-8")
            view = memoryview(data)
            while view:
                view = view[os.write(write_end, view):]
        except BaseException:  # noqa: BLE001 - the parent reports a child that ends without a verdict
            code = 3
        finally:
            os._exit(code)
    os.close(write_end)
    return _wait(pid, read_end, seconds, limit_text, memory, mask)


def _wait(pid, read_end, seconds, limit_text, memory, mask):
    """The parent's side of :func:`run_isolated`: read the child's verdict within the limits; kill it on any exit
    (a signal held back since the fork is let through here, where its exception kills the child)."""
    chunks, done = [], False
    deadline = None if seconds is None else time.monotonic() + seconds
    try:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        while not done:
            remaining = _POLL if deadline is None else deadline - time.monotonic()
            if remaining <= 0:
                _kill(pid)
                pid = None
                raise Undecided(f"undecided: stopped by the clock: the check did not finish within {limit_text}; "
                                "neither verified nor rejected")
            ready, _, _ = select.select([read_end], [], [], min(remaining, _POLL))
            if ready:
                data = os.read(read_end, 1 << 20)
                if data:
                    chunks.append(data)
                else:
                    done = True
            if not done and memory and _rss(pid) > memory:
                _kill(pid)
                pid = None
                raise Undecided(f"undecided: the check needed more than {memory / 1024 ** 3:g} GB of memory (the "
                                "checker's limit); neither verified nor rejected")
    finally:  # a verdict, a limit, or a signal's exception: the child never outlives the wait
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        os.close(read_end)
        if pid is not None:
            if not done:
                _kill(pid)
            else:
                try:
                    os.waitpid(pid, 0)
                except ChildProcessError:
                    pass
    if not chunks:
        raise Undecided("undecided: the checking process ended without a verdict (it was killed or ran out of "
                        "memory); neither verified nor rejected")
    return json.loads(b"".join(chunks).decode("utf-8"))
