"""Signals end a command once and cleanly: the first SIGINT or SIGTERM is an exception, later ones are ignored.

Python's own SIGINT handler raises ``KeyboardInterrupt`` at *every* Ctrl-C: a second one (two presses, or a
terminal that sends SIGINT to the whole process group 5 ms apart) lands inside the ``except`` or ``finally``
that is handling the first, and the command ends with a traceback and exit code 1, the code for "the claim is
false".  Under :func:`stop_on_signals` the first signal raises (``KeyboardInterrupt`` for SIGINT,
:class:`Terminated` for SIGTERM) and every later one, in any nested guard, is ignored, so the command's one
handler prints one line and exits 130 (SIGINT) or 143 (SIGTERM).

Every entry point (``symssm``, ``symssm-check``, ``python -m symssm.checker``) opens the guard as its first
statement and holds it to its last: a signal that arrives after the command is done (while Python exits) is
ignored too.  A signal that arrives while the interpreter itself starts (before the entry point runs) is
Python's to handle.  Standard library only: the checker's entry points and the generator's share it (the
checker imports nothing of the generator; the generator may import the checker).

Examples
--------
>>> with stop_on_signals():
...     pass
>>> EXIT_CODES[2], EXIT_CODES[15]
(130, 143)
"""

import os
import signal
import sys
import threading
from contextlib import contextmanager

__all__ = ["Terminated", "stop_on_signals", "run_guarded", "fired", "raise_if_fired", "EXIT_CODES", "exit_code",
           "interrupted_line"]

#: The exit code of a command stopped by each signal (128 + the signal's number, as a shell reports it).
EXIT_CODES = {int(signal.SIGINT): 130, int(signal.SIGTERM): 143}


class Terminated(BaseException):
    """SIGTERM, raised like KeyboardInterrupt (a BaseException, so no ``except Exception`` mistakes it for a fault
    of the data) so that cleanup handlers run."""


class _State:
    depth = 0  # guards open in this process
    fired = None  # the signal that was raised, once per outermost guard


def _handler(signum, frame):
    if _State.fired is not None or _State.depth == 0:
        return  # a second signal, or one after the command finished: the first one's handling goes on
    _State.fired = signum
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated


def fired():
    """The exception a guard's signal raised in this command (KeyboardInterrupt or :class:`Terminated`), else None.

    A library that catches what a signal raised and raises its own error instead (numpy turns a
    KeyboardInterrupt inside its import into ImportError) leaves the command with that error; the entry
    point asks this to report the stop instead.

    >>> fired() is None
    True
    """
    if _State.fired is None:
        return None
    return KeyboardInterrupt() if _State.fired == signal.SIGINT else Terminated()


def raise_if_fired():
    """Raise again the exception of a signal that fired in this command, if any.

    A signal's exception can be raised inside code that drops it: an ``os.register_at_fork`` hook (logging's,
    while a process pool forks its workers), a ``__del__`` method, a callback whose errors are only printed.
    The command would then go on as if no signal had come.  Long loops call this between their steps, and
    :func:`run_guarded` calls it when the command returns, so the first signal always ends the command.

    Raises
    ------
    KeyboardInterrupt, Terminated
        If a guard's signal fired in this command.

    Examples
    --------
    >>> raise_if_fired()  # no signal: nothing happens
    """
    exc = fired()
    if exc is not None:
        raise exc


def exit_code(exc):
    """The exit code for an exception raised by a guard's signal (130 for KeyboardInterrupt, 143 for Terminated).

    >>> exit_code(KeyboardInterrupt()), exit_code(Terminated())
    (130, 143)
    """
    return EXIT_CODES[int(signal.SIGTERM)] if isinstance(exc, Terminated) else EXIT_CODES[int(signal.SIGINT)]


def interrupted_line(exc):
    """What the command says when stopped: ``"interrupted"`` or ``"terminated"``.

    >>> interrupted_line(Terminated())
    'terminated'
    """
    return "terminated" if isinstance(exc, Terminated) else "interrupted"


@contextmanager
def stop_on_signals(*, restore=True):
    """Inside the block, the first SIGINT or SIGTERM raises and later ones are ignored (see the module docstring).

    Parameters
    ----------
    restore : bool
        Put the previous handlers back when the outermost guard closes.  A command run as a program passes
        False: its process is ending, and a signal between the guard's end and the exit must not raise
        (Python's default handler would print a traceback).  Nested guards always leave the outer one's
        handler in place.

    Yields
    ------
    None

    Notes
    -----
    Outside the main thread signal handlers cannot be set; the block then runs with whatever is in place.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    outermost = _State.depth == 0
    previous = {}
    if outermost:
        _State.fired = None
    _State.depth += 1  # first: a signal right after the handler is set is raised, not lost
    try:
        if outermost:
            for sig in (signal.SIGINT, signal.SIGTERM):
                try:
                    previous[sig] = signal.signal(sig, _handler)
                except (ValueError, OSError):  # pragma: no cover - an embedding that forbids it
                    pass
        yield
    finally:
        _State.depth -= 1
        if outermost and restore:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        elif outermost:
            for sig in previous:  # the process is ending: a late signal changes nothing
                signal.signal(sig, signal.SIG_IGN)


def run_guarded(body, stopped, *, restore=True):
    """``body()`` under :func:`stop_on_signals`; if a signal stops it, ``stopped(exc)`` (after the guard closed).

    The handler of the stop sits outside the guard, so a signal that arrives as the guard opens or closes is
    handled the same way as one in the middle of ``body``.

    Parameters
    ----------
    body : callable
        The command; returns its exit code.
    stopped : callable
        ``stopped(exc)`` prints the command's one line and returns its exit code (see :func:`exit_code`).
    restore : bool
        See :func:`stop_on_signals`.  False (a program's entry point): after a stop the process ends here, with
        ``stopped``'s code, once the standard streams are flushed; the interpreter's own shutdown, which may
        turn a caught KeyboardInterrupt back into death by SIGINT (exit -2 to a parent), is skipped.  Every
        cleanup of the command (temporary files, worker processes) has run while the exception unwound.

    Returns
    -------
    int

    Examples
    --------
    >>> run_guarded(lambda: 0, exit_code)
    0
    """
    try:
        with stop_on_signals(restore=restore):
            code = body()
            if code not in EXIT_CODES.values():  # 130 or 143: the command reported its stop itself
                raise_if_fired()  # a signal whose exception something on the way dropped still ends the command
            return code
    except (KeyboardInterrupt, Terminated) as exc:
        code = stopped(exc)
        if restore:
            return code
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    os._exit(code)
