"""Compile a paper the way its author does, in a throw-away copy: the PDF the audit reads.

The paper's folder (regular files, no links) is copied and compiled as latexmk would (``biber`` or ``bibtex``
when asked, reruns up to :data:`MAX_RUNS`), with shell escape off, kpathsea's paranoid file access, SyncTeX and
the recorder; each program in its own process group, killed with its children at the time limit or on an
interrupt.  A failed compile is an :class:`~symssm.errors.InputError` naming the first LaTeX error.
"""

import contextlib
import gzip
import itertools
import os
import re
import shutil
import signal
import subprocess
import time
from collections import namedtuple

from ..errors import InputError, LimitError

__all__ = ["ENGINES", "UNCONFINED", "MAX_RUNS", "MAX_COPY_BYTES", "MAX_COPY_FILES", "Compiled", "compile_paper",
           "first_error", "recorded_inputs", "synctex", "address", "read_text"]

ENGINES = ("pdflatex", "lualatex", "xelatex")
#: Engines the audit refuses to run, with the reason: LuaTeX's Lua ``io`` ignores kpathsea's ``openin_any``, and
#: ``--safer`` leaves ``io.lines`` (measured on LuaHBTeX 1.15: a file outside the copy is still read).
UNCONFINED = {"lualatex": "lualatex cannot be confined (the paper's Lua code can read any file, even with --safer); "
                          "compile the paper yourself and audit the PDF: symssm audit PAPER.pdf --certificates DIR"}
MAX_RUNS = 4  # most engine runs of one compile (latexmk's default is 5)
MAX_COPY_BYTES, MAX_COPY_FILES = 512 * 2**20, 20000  # limits on the folder copied for the compile
_FILE_LINE = re.compile(r"^(\.?/?[^:\n]{1,200}\.(?:tex|sty|cls|bbl|aux|ltx|def|cfg|fd|toc|lof|lot|out)):(\d+): (.+)$")
_SKIP_DIRS = {".git", ".hg", ".svn", "__pycache__", ".venv", "node_modules"}


#: A compiled paper: its PDF, the copy, the main file and the files the engine read (relative to the copy).
Compiled = namedtuple("Compiled", "pdf folder main inputs")


def _copy(src, dst):
    """Copy the paper's folder (regular files only) within the size limits."""
    total = count = 0
    for top, dirs, files in os.walk(src):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not os.path.islink(os.path.join(top, d)))
        rel = os.path.relpath(top, src)
        os.makedirs(os.path.join(dst, rel), exist_ok=True)
        for name in files:
            path = os.path.join(top, name)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            count += 1
            total += os.path.getsize(path)
            if count > MAX_COPY_FILES or total > MAX_COPY_BYTES:
                raise LimitError(f"{src}: the paper's folder has more than {MAX_COPY_FILES} files or "
                                 f"{MAX_COPY_BYTES >> 20} MB; audit a smaller folder")
            shutil.copyfile(path, os.path.join(dst, rel, name))


def _run(argv, cwd, deadline, what, epoch=None):
    """Run ``argv`` in its own process group; (return code, output).  Killed (with its children) at the deadline.
    ``epoch``: the compile's time (seconds since 1970, UTC), the same for every run: ``\\today`` prints its date."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TEXMF", "TEXINPUTS", "BIBINPUTS", "BSTINPUTS"))}
    env.update(openin_any="p", openout_any="p", shell_escape="f", LC_ALL="C.UTF-8",
               SOURCE_DATE_EPOCH=str(int(time.time() if epoch is None else epoch)), FORCE_SOURCE_DATE="1")
    left = deadline - time.monotonic()
    if left <= 0:
        raise InputError(f"{what}: the compile passed its time limit")
    try:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
    except OSError as exc:
        raise InputError(f"cannot run {argv[0]} ({exc.strerror}); is TeX Live installed?") from None
    try:
        out, _ = proc.communicate(timeout=left)
    except BaseException as exc:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        if isinstance(exc, subprocess.TimeoutExpired):
            raise InputError(f"{what}: the compile passed its time limit") from None
        raise
    return proc.returncode, out.decode("utf-8", "replace")


def first_error(log):
    """The first LaTeX error of a log written with ``-file-line-error`` (file:line: message), else its first ``!``."""
    for m in map(_FILE_LINE.match, log.splitlines()):
        if m:
            path = m.group(1)[2:] if m.group(1).startswith("./") else m.group(1)
            return f"{path}:{m.group(2)}: {m.group(3).strip()}"[:300]
    return next((line.strip()[:300] for line in log.splitlines() if line.startswith("!")), "")


def recorded_inputs(fls_text, folder):
    """Paths (relative to ``folder``) of the files in ``folder`` an ``.fls`` recorder list shows the engine read."""
    pwd, out = folder, []
    for line in fls_text.splitlines():
        if line.startswith("PWD "):
            pwd = line[4:]
        elif line.startswith("INPUT "):
            path = os.path.normpath(os.path.join(pwd, line[6:]))
            rel = os.path.relpath(path, os.path.realpath(pwd) if os.path.isabs(pwd) else folder)
            if not rel.startswith("..") and not os.path.isabs(rel) and rel not in out:
                out.append(rel)
    return tuple(out)


_RERUN = re.compile(r"Rerun to get|Rerun LaTeX|Please rerun LaTeX|Label\(s\) may have changed|"
                    r"There were undefined citations|Please \(re\)run Biber|rerunfilecheck")


def compile_paper(paper, workdir, *, engine="pdflatex", seconds=120.0, progress=None):
    """:class:`Compiled`: ``paper`` (the main ``.tex``) compiled in a copy of its folder under ``workdir`` (an empty
    folder the caller removes), all runs within ``seconds``; ``progress(line)`` before each program runs.

    Raises
    ------
    InputError
        If the engine is unknown or refused (:data:`UNCONFINED`), the paper is not a readable ``.tex`` file, the
        compile fails (the first LaTeX error with its file and line) or passes its time limit.
    """
    if engine not in ENGINES:
        raise InputError(f"unknown engine {str(engine)[:40]!r} (one of {', '.join(ENGINES)})")
    if engine in UNCONFINED:
        raise InputError(UNCONFINED[engine])
    if shutil.which(engine) is None:
        raise InputError(f"{engine} is not installed (TeX Live is needed to compile the paper)")
    paper, start = os.path.abspath(os.fspath(paper)), time.monotonic()
    if not os.path.isfile(paper):
        raise InputError(f"{paper}: no such file")
    dst, main = os.path.join(workdir, "paper"), os.path.basename(paper)
    _copy(os.path.dirname(paper), dst)
    stem = main[:-4] if main.endswith(".tex") else main
    argv = [engine, "-no-shell-escape", "-interaction=nonstopmode", "-halt-on-error", "-file-line-error",
            "-recorder", "-synctex=1", main]
    say, epoch = progress or (lambda text: None), int(time.time())  # one date for every run (as the author's)
    for runs in itertools.count(1):
        say(f"{engine} run {runs}")
        code, out = _run(argv, dst, start + seconds, main, epoch)
        log = read_text(os.path.join(dst, stem + ".log")) or out
        if code != 0 or not os.path.isfile(os.path.join(dst, stem + ".pdf")):
            err = first_error(log) or f"{engine} stopped with exit status {code} and no PDF"
            raise InputError(f"the paper does not compile: {err}")
        tool = None if runs > 1 else "biber" if os.path.isfile(os.path.join(dst, stem + ".bcf")) else \
            "bibtex" if "\\bibdata{" in read_text(os.path.join(dst, stem + ".aux")) else None
        if tool:
            if shutil.which(tool) is None:
                raise InputError(f"the paper uses {tool}, which is not installed")
            say(tool)
            bcode, bout = _run([tool, stem], dst, start + seconds, f"{tool} {stem}", epoch)
            if bcode != 0 and tool == "biber" or bcode >= 2:
                line = next((x for x in bout.splitlines() if "ERROR" in x or x.startswith("I ")), "")
                raise InputError(f"the paper does not compile: {tool} failed: {line.strip()[:200]}")
        elif runs >= MAX_RUNS or not _RERUN.search(log):
            break
    inputs = recorded_inputs(read_text(os.path.join(dst, stem + ".fls")), dst)
    return Compiled(os.path.join(dst, stem + ".pdf"), dst, main, inputs)


def read_text(path, size=64 * 2**20):
    """The first ``size`` bytes of a file as text (undecodable bytes replaced), or "" when it cannot be read."""
    try:
        with open(path, "rb") as fh:
            return fh.read(size).decode("utf-8", "replace")
    except OSError:
        return ""


_RECORD = re.compile(r"^[xkg$](\d+),(\d+):(-?\d+),(-?\d+)", re.M)  # glyphs, kerns, glue, math: where they came from
_SP = 72.0 / 72.27 / 65536.0  # scaled points to PDF points


def synctex(compiled, text=None):
    """``({tag: path in the copy or None}, {page: [(x, y from the top, tag, line)]})`` of the compile's SyncTeX
    (or ``text``), PDF points; None when unreadable.

    Examples
    --------
    >>> c = Compiled("p.pdf", "/w", "paper.tex", ())
    >>> s = synctex(c, "SyncTeX Version:1\\nInput:1:/w/./paper.tex\\nContent:\\n{1\\nx1,7:4736286,10962208\\n}1\\n")
    >>> address(s, 1, 72.5, 792 - 166.6, 792.0)
    ('paper.tex', 7)
    """
    try:
        if text is None:
            with gzip.open(os.path.join(compiled.folder, compiled.main[:-4] + ".synctex.gz"), "rt", encoding="utf-8",
                           errors="replace") as fh:
                text = fh.read(64 * 2**20)
    except (OSError, EOFError, ValueError):
        return None
    inputs = {int(tag): os.path.relpath(os.path.normpath(path), os.path.normpath(compiled.folder))
              for tag, path in re.findall(r"^Input:(\d+):(.*)$", text, re.M)}
    pages = {}
    for m in re.finditer(r"^\{(\d+)\n(.*?)^\}\1$", text.partition("\nContent:")[2], re.S | re.M):
        pages.setdefault(int(m.group(1)), []).extend((int(x) * _SP, int(y) * _SP, int(tag), int(line))
                                                     for tag, line, x, y in _RECORD.findall(m.group(2)))
    return {tag: None if rel.startswith("..") else rel for tag, rel in inputs.items()}, pages


def address(sync, page, x, y, top):
    """``(file, line)`` of the nearest record at or before PDF position ``(x, y)`` on its line of ``page``
    (``top``: the page's top edge), or None."""
    inputs, pages = sync or ({}, {})
    near = [(rx, tag, line) for rx, ry, tag, line in pages.get(page, ()) if abs(ry - (top - y)) <= 3.0 and rx <= x + 1]
    best = max(near, default=None)
    return (inputs[best[1]], best[2]) if best and inputs.get(best[1]) is not None else None
