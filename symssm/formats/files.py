"""Safe output files: atomic, regular files only, never over an input, following the umask.

Every file symssm writes goes through :func:`atomic_write`: the bytes go to a temporary
file in the target folder, which is then renamed over the target, so a reader sees either
the old file or the complete new one.  SIGINT and SIGTERM are held back while the temporary
file exists (:func:`signals_held`): a signal ends the process after the rename, never between
the temporary file's creation and its rename or removal, even in a batch worker whose SIGTERM
kills at once.  On any exception the temporary file is removed.  Its name
(``.symssm-<pid>-XXXXXXXX.tmp``) says which process wrote it: :func:`remove_stale_temporaries`
clears those whose process is gone (one killed with SIGKILL, which nothing can hold back).

Examples
--------
>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "out.txt")
>>> atomic_write(path, "hello\\n")
>>> open(path).read()
'hello\\n'
>>> atomic_write(folder, "x")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
symssm.errors.OutputError: cannot write ...: it is a directory
"""

import os
import re
import signal
import stat
import tempfile
from contextlib import contextmanager

from ..errors import OutputError

__all__ = ["atomic_write", "check_output_path", "current_umask", "signals_held", "remove_stale_temporaries",
           "TEMPORARY_PREFIX"]

#: The start of every temporary file's name (then the writer's process id, a dash, random letters, ``.tmp``).
TEMPORARY_PREFIX = ".symssm-"
_TEMPORARY = re.compile(r"\.symssm-(?:([0-9]+)-)?[A-Za-z0-9_]+\.tmp\Z")
_HELD = {signal.SIGINT, signal.SIGTERM}


@contextmanager
def signals_held(held=_HELD):
    """Hold SIGINT and SIGTERM (or the signals ``held``) back inside the block; they are delivered when it ends.

    A signal that arrives inside the block takes effect (raises, or ends a process whose SIGTERM is the
    default) as the block ends, so what the block writes is whole.  Where signal masks do not exist
    (Windows) the block runs as is.

    >>> with signals_held():
    ...     pass
    """
    if not hasattr(signal, "pthread_sigmask"):  # pragma: no cover - Windows
        yield
        return
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, held)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def remove_stale_temporaries(folder):
    """Remove the temporary files of symssm writers in ``folder`` whose process no longer runs; returns them.

    A file named ``.symssm-<pid>-*.tmp`` is stale when process ``pid`` is gone; one without a process id
    (an older symssm's) is stale always.  Files of running writers are kept.

    Parameters
    ----------
    folder : str or os.PathLike

    Returns
    -------
    list of str
        The paths removed.

    Examples
    --------
    >>> import tempfile
    >>> folder = tempfile.mkdtemp()
    >>> _ = open(os.path.join(folder, ".symssm-abc123.tmp"), "w").close()
    >>> _ = open(os.path.join(folder, f".symssm-{os.getpid()}-abc123.tmp"), "w").close()
    >>> [os.path.basename(p) for p in remove_stale_temporaries(folder)]
    ['.symssm-abc123.tmp']
    """
    removed = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in sorted(names):
        match = _TEMPORARY.match(name)
        if not match or (match.group(1) is not None and _alive(int(match.group(1)))):
            continue
        path = os.path.join(folder, name)
        try:
            if stat.S_ISREG(os.lstat(path).st_mode):
                os.unlink(path)
                removed.append(path)
        except OSError:
            pass
    return removed


def current_umask():
    """The process umask (read without changing it for longer than a moment)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _same_file(a, b):
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def check_output_path(path, *, inputs=()):
    """Refuse an output path that is not (or would not be) a regular file, or that is an input.

    Parameters
    ----------
    path : str or os.PathLike
        The output path as the user gave it (it is named as given in every message).
    inputs : iterable of paths
        Files this command reads; writing over one of them is refused.

    Returns
    -------
    str
        The path, as a string.

    Raises
    ------
    OutputError
        If the folder does not exist, or the path is a directory, a FIFO, a device or a
        socket, or the same file as one of ``inputs``.
    """
    path = os.fspath(path)
    shown = path if len(path) <= 200 else path[:197] + "..."
    if path == "":
        raise OutputError("cannot write to an empty path")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise OutputError(f"cannot write {shown}: the folder {os.path.dirname(path) or '.'} does not exist")
    try:
        st = os.stat(path)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputError(f"cannot write {shown}: {exc.strerror}") from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise OutputError(f"cannot write {shown}: it is a directory")
        if not stat.S_ISREG(st.st_mode):
            raise OutputError(f"cannot write {shown}: it is not a regular file (a FIFO, device or socket); "
                              "symssm writes regular files only (use '-o -' for standard output)")
        for source in inputs:
            if source is not None and _same_file(path, source):
                raise OutputError(f"cannot write {shown}: it is an input of this command; choose another output")
    return path


def _fsync_folder(folder):
    """Make a rename in ``folder`` durable (POSIX); a no-op where folders cannot be opened (Windows)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def atomic_write(path, data, *, inputs=()):
    """Write ``data`` (str or bytes) to ``path`` through a temporary file and rename.

    The file is fsync'ed before the rename and its folder after, so a power cut leaves either the old
    file or the whole new one, never an empty file behind the new name.  SIGINT and SIGTERM are held back
    from the temporary file's creation to its rename (:func:`signals_held`).

    Parameters
    ----------
    path : str or os.PathLike
    data : str or bytes
        Text is encoded as UTF-8.
    inputs : iterable of paths
        Files the command read: never written over.

    Raises
    ------
    OutputError
        See :func:`check_output_path`; also when the folder is not writable.
    """
    path = check_output_path(path, inputs=inputs)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    folder = os.path.dirname(os.path.abspath(path))
    with signals_held():
        _write_through_temporary(path, folder, raw)


def _write_through_temporary(path, folder, raw):
    try:
        fd, tmp = tempfile.mkstemp(prefix=f"{TEMPORARY_PREFIX}{os.getpid()}-", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror}") from None
    try:
        os.fchmod(fd, 0o666 & ~current_umask())
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fsync(fh.fileno())  # the bytes are on disk before the name points at them (a power cut)
        os.replace(tmp, path)
        _fsync_folder(folder)  # and the rename itself is durable
    except BaseException as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(exc, OSError) and not isinstance(exc, OutputError):
            raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise
