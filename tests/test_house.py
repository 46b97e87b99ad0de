"""The product speaks of itself only: no notes between contributors, issue numbers or work logs in the tree.

Docs describe what symssm does now; a reader of the code, the docs or a test meets no reference to how the
work was organised.  This test reads every text file of the repository the package ships or documents.
"""

import os
import re

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
#: Folders and top-level files the test reads (the package, its docs, tests, benchmarks, fuzzers, the catalogue).
TREES = ["symssm", "docs", "tests", "benchmarks", "fuzz", "certificates", ".ci"]
TOP = ["README.md", "pyproject.toml", ".gitignore"]
TEXT = (".py", ".md", ".toml", ".tex", ".txt", ".v", ".json", ".cfg", ".yml", ".yaml", "")
#: What a note between contributors looks like.
SCAFFOLDING = re.compile(
    r"\bissues? #?[0-9]+\b|#\s*issue\b|\bfor lack of time\b|kept for the history|\bwork log\b|\bTODO\(|\bNOTES-",
    re.IGNORECASE)
#: The words above used by this file itself.
SELF = os.path.abspath(__file__)


def _files():
    for name in TOP:
        yield os.path.join(ROOT, name)
    for tree in TREES:
        for folder, dirs, names in os.walk(os.path.join(ROOT, tree)):
            dirs[:] = [d for d in dirs if d not in ("__pycache__", ".hypothesis") and not d.startswith("corpus_")]
            for name in names:
                if os.path.splitext(name)[1] in TEXT:
                    yield os.path.join(folder, name)


def test_no_notes_between_contributors_at_the_top():
    top = os.listdir(ROOT)
    notes = [name for name in top if re.match(r"(NOTES|TODO|HANDOFF|SCRATCH)", name, re.IGNORECASE)]
    assert not notes, notes


def test_no_issue_numbers_or_work_logs_in_the_tree():
    found = []
    for path in _files():
        if os.path.abspath(path) == SELF or not os.path.isfile(path) or os.path.getsize(path) > 4_000_000:
            continue
        try:
            text = open(path, encoding="utf-8").read()
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if SCAFFOLDING.search(line):
                found.append(f"{os.path.relpath(path, ROOT)}:{number}: {line.strip()[:100]}")
    assert not found, "\n".join(found[:40])


@pytest.mark.parametrize("line, note", [("see issue 46", True), ("# issue: the limit", True),
                                        ("kept for the history of the code", True),
                                        ("an issue of the journal", False), ("issues a certificate", False)])
def test_the_pattern_tells_a_note_from_prose(line, note):
    assert bool(SCAFFOLDING.search(line)) is note
