"""Docs that run as written: every shell and Python example in README.md and docs/ is executed.

Each page runs in order, in a fresh temporary folder, which holds a copy of ``docs/example/`` and of
``certificates/`` (the files the examples use ship there, or an earlier example on the same page
makes them).

- A `` ```console `` block is a sequence of ``$ command`` lines. Each runs in bash and must exit 0.
  The lines under a command are its expected output; where they are shown, they are compared line
  by line. ``...`` inside an expected line matches any text (timings and other machine-dependent
  numbers are written that way), and a line that is just ``...`` matches any number of lines.
- A `` ```python `` block runs in the page's namespace: as a doctest when it starts with ``>>>``
  (output compared, ``...`` as ellipsis), else as a script that must not raise.
- ``<!-- docs-test: skip REASON -->`` on the line before a fence skips that block (the README's
  install commands, a Dask cluster); ``<!-- docs-test: needs TOOL -->`` runs it only where TOOL is
  installed (coqc).
"""

import doctest
import os
import re
import shutil
import subprocess
import sys

import pytest

from paths import ROOT

PAGES = ["README.md"] + sorted(os.path.join("docs", f) for f in os.listdir(os.path.join(ROOT, "docs"))
                               if f.endswith(".md"))
FENCE = re.compile(r"^(?:<!-- docs-test: (?P<mode>skip|needs) (?P<why>[^>]*)-->\n)?```(?P<lang>[a-z]*)\n"
                   r"(?P<body>.*?)^```", re.S | re.M)


def blocks(page):
    text = open(os.path.join(ROOT, page), encoding="utf-8").read()
    for m in FENCE.finditer(text):
        skip = None
        if m.group("mode") == "skip":
            skip = m.group("why").strip()
        elif m.group("mode") == "needs" and shutil.which(m.group("why").strip()) is None:
            skip = f"{m.group('why').strip()} is not installed"
        yield m.group("lang"), m.group("body"), skip, text.count("\n", 0, m.start()) + 1


def _line_matches(pattern, line):
    parts = [re.escape(p) for p in pattern.split("...")]
    return re.fullmatch(".*".join(parts), line) is not None


def output_matches(expected, actual):
    """Line-by-line comparison; ``...`` matches text in a line, a lone ``...`` any number of lines."""
    exp = [line.rstrip() for line in expected]
    act = [line.rstrip() for line in actual]
    while exp and not exp[-1]:
        exp.pop()
    while act and not act[-1]:
        act.pop()

    def match(i, j):
        if i == len(exp):
            return j == len(act)
        if exp[i] == "...":
            return any(match(i + 1, k) for k in range(j, len(act) + 1))
        return j < len(act) and _line_matches(exp[i], act[j]) and match(i + 1, j + 1)

    return match(0, 0)


def console_commands(body):
    """``(command, expected output lines)`` pairs of a console block."""
    out = []
    for line in body.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line)
    return out


def _env():
    env = dict(os.environ)
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    env.setdefault("MPLBACKEND", "Agg")
    env["COLUMNS"] = "100"
    return env


def run_console(body, cwd, where):
    for command, expected in console_commands(body):
        result = subprocess.run(["bash", "-c", command], cwd=cwd, capture_output=True, text=True, env=_env(),
                                timeout=600)
        shown = result.stdout + result.stderr
        assert result.returncode == 0, f"{where}: `{command}` exited {result.returncode}:\n{shown[-2000:]}"
        if any(line.strip() for line in expected):
            assert output_matches(expected, shown.splitlines()), (
                f"{where}: `{command}` printed\n{shown}\nbut the page shows\n" + "\n".join(expected))


def run_python(body, cwd, namespace, where):
    old = os.getcwd()
    os.chdir(cwd)
    try:
        if body.lstrip().startswith(">>>"):
            test = doctest.DocTestParser().get_doctest(body, namespace, where, where, 0)
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
            report = []
            runner.run(test, out=report.append, clear_globs=False)
            assert runner.failures == 0, "".join(report)
        else:
            exec(compile(body, where, "exec"), namespace)
    finally:
        os.chdir(old)


COMMAND_LIKE = re.compile(r"^    (\$ |symssm |python3? |pip |mkdir |cp |apt-get |SYMSSM_)")


@pytest.mark.parametrize("page", PAGES)
def test_commands_are_in_fenced_blocks(page):
    """An indented command would escape the runner: every command a page shows is in a fenced block."""
    text = open(os.path.join(ROOT, page), encoding="utf-8").read()
    outside = FENCE.sub("", text)
    bad = [line for line in outside.splitlines() if COMMAND_LIKE.match(line)]
    assert not bad, f"{page}: put these commands in a ```console block: {bad}"


def test_the_runner_compares_output():
    assert output_matches(["a ... c", "..."], ["a b c", "x", "y"])
    assert not output_matches(["a ... c"], ["a b d"])
    assert output_matches(["x = ..."], ["x = 1.5 s", ""])
    assert console_commands("$ echo 1\n1\n$ true\n") == [("echo 1", ["1"]), ("true", [])]


@pytest.mark.parametrize("page", PAGES)
def test_the_examples_of_the_page_run_as_written(page, tmp_path):
    shutil.copytree(os.path.join(ROOT, "docs", "example"), tmp_path / "docs" / "example")
    shutil.copytree(os.path.join(ROOT, "certificates"), tmp_path / "certificates")
    shutil.copytree(os.path.join(ROOT, "symssm"), tmp_path / "symssm",
                    ignore=shutil.ignore_patterns("__pycache__"))  # pages that show the source (grep)
    namespace = {"__name__": "__docs__"}
    ran = 0
    for lang, body, skip, line in blocks(page):
        where = f"{page}:{line}"
        if skip is not None:
            assert skip, f"{where}: a skipped block must say why"
            continue
        if lang == "console":
            run_console(body, tmp_path, where)
            ran += 1
        elif lang == "python":
            run_python(body, tmp_path, namespace, where)
            ran += 1
        elif lang in ("bash", "sh", "shell"):
            raise AssertionError(f"{where}: use a console block ($ lines) or mark the bash block skipped")
    if page == "README.md":
        assert ran >= 2
