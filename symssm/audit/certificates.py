"""The certificates an audit uses: found under a folder by SHA-256, re-checked by the independent checker (in a
separate process, with its default limits), re-proved in Coq with ``--coq``.

Examples
--------
>>> parse_marker("% symssm fragment: head-count certificate " + "a" * 64 + "; file rot.json; options --label x")
('fragment', 'head-count', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', 'rot.json', '--label x')
>>> parse_marker("% a comment") is None
True
"""

import hashlib
import os
import re

from ..errors import InputError, SymssmError

__all__ = ["MAX_JSON_FILES", "MAX_JSON_BYTES", "index", "check", "parse_marker", "kernel_check"]

MAX_JSON_FILES, MAX_JSON_BYTES = 20000, 256 * 2**20  # most .json files indexed; larger ones are skipped

_MARKER = re.compile(r"% symssm (fragment|macros): ([a-z-]+) certificate ([0-9a-f]{64}); file (\S+); options (.*)")


def parse_marker(line):
    """``(what, kind, sha256, file, options)`` of a fragment's or macro file's first comment, else None."""
    m = _MARKER.match(line.strip())
    return m.groups() if m else None


def index(folder):
    """``({sha256: (path, data)}, {file name: [paths]})`` of the symssm certificates under ``folder`` (one whose
    envelope does not check by name only: a fragment naming it is "changed")."""
    from ..certificate.envelope import check_envelope
    from ..formats.jsonio import loads_strict
    from ..render.style import certificate_sha256

    by_sha, by_name, count = {}, {}, 0
    for top, dirs, files in os.walk(folder):
        dirs.sort()
        for name in sorted(f for f in files if f.endswith(".json")):
            count += 1
            if count > MAX_JSON_FILES:
                return by_sha, by_name
            path = os.path.join(top, name)
            try:
                if not os.path.isfile(path) or os.path.getsize(path) > MAX_JSON_BYTES:
                    continue
                with open(path, "rb") as fh:
                    data = loads_strict(fh.read().decode("utf-8"), what=path)
                if not isinstance(data, dict) or data.get("format") != "symssm-certificate":
                    continue
                by_name.setdefault(name, []).append(path)
                check_envelope(data)
                by_sha.setdefault(certificate_sha256(data), (path, data))
            except (SymssmError, OSError, UnicodeDecodeError, ValueError, TypeError, KeyError, RecursionError):
                continue
    return by_sha, by_name


#: Verdicts of the checker by the SHA-256 of a certificate file's bytes (the checker is deterministic).
_VERDICTS: dict = {}


def check(path):
    """(code, message) of the independent checker on ``path``, isolated with its default limits; remembered for
    the same bytes within this process (not when the file changes while it is checked)."""
    from ..checker.core import check_file
    from ..checker.isolate import Undecided, default_seconds, run_isolated

    def digest():
        try:
            with open(path, "rb") as fh:
                return hashlib.sha256(fh.read()).hexdigest()
        except OSError:
            return None

    def task():
        try:
            res = check_file(path, max_seconds=seconds)
        except Exception as exc:  # noqa: BLE001 - fail closed
            return {"code": 2, "message": f"undecided ({type(exc).__name__})"}
        return {"code": res.code, "message": res.message}

    before = digest()
    if before is not None and before in _VERDICTS:
        return _VERDICTS[before]
    seconds = default_seconds(os.path.getsize(path))
    try:
        out = run_isolated(task, seconds=seconds + 0.4, limit_text=f"the checker's limit of {seconds:.3g} s")
        verdict = out["code"], out["message"]
    except Undecided as exc:
        verdict = 2, str(exc)
    if before is not None and digest() == before:
        if len(_VERDICTS) > 4096:
            _VERDICTS.clear()
        _VERDICTS[before] = verdict
    return verdict


def kernel_check(data, seconds=600):
    """True when Coq accepts the re-proof of a verified head count of a real system (``coqc`` with mathcomp), None
    when its kind has no Coq export or it has a field, else why not.

    Raises
    ------
    InputError
        If ``coqc`` or ``coq_makefile`` is not installed.
    """
    import shutil
    import subprocess
    import tempfile
    from types import SimpleNamespace

    from ..certificate import kinds
    from ..certificate.envelope import verify
    from ..render.coq import coq_project

    try:
        if kinds.of({"kind": data["kind"]}).coq is None or data.get("field"):
            return None
    except InputError:
        return None
    if shutil.which("coqc") is None or shutil.which("coq_makefile") is None:
        raise InputError("--coq: coqc is not installed")
    try:
        files = coq_project(SimpleNamespace(data=data, check=lambda: verify(data)))
    except SymssmError as exc:
        return f"not kernel-checked: {str(exc)[:100]}"
    with tempfile.TemporaryDirectory(prefix="symssm-coq-") as tmp:
        for name, text in files.items():
            with open(os.path.join(tmp, name), "w", encoding="utf-8") as fh:
                fh.write(text)
        try:
            res = subprocess.run(["sh", "-c", "coq_makefile -f _CoqProject -o Makefile && make"], cwd=tmp,
                                 capture_output=True, text=True, timeout=seconds)
        except subprocess.TimeoutExpired:
            return f"Coq did not finish in {seconds} s"
    return True if res.returncode == 0 else "Coq did not accept the proof"
