"""Safe output files: atomic, regular files only, never over an input, following the umask.

Every file symssm writes goes through :func:`atomic_write`: the bytes go to a temporary
file in the target folder, which is then renamed over the target, so a reader sees either
the old file or the complete new one.  On any exception, ``KeyboardInterrupt`` and the
command line's SIGTERM handler included, the temporary file is removed.

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
import stat
import tempfile

from ..errors import OutputError

__all__ = ["atomic_write", "check_output_path", "current_umask"]


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
    file or the whole new one, never an empty file behind the new name.

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
    try:
        fd, tmp = tempfile.mkstemp(prefix=".symssm-", suffix=".tmp", dir=folder)
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
