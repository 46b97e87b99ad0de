"""A fast start: the command line imports its heavy libraries only where a command uses them.

Timings are measured by benchmarks/bench_startup.py (docs/performance.md); these tests check the cause,
what a fresh interpreter has imported, not the clock.
"""

import json
import os
import subprocess
import sys

from paths import ROOT

HEAVY = ("sympy", "numpy", "mpmath", "networkx", "tqdm", "scipy", "matplotlib")


def _imported_after(code):
    """The heavy libraries a fresh interpreter has imported after running ``code``."""
    probe = code + "\nimport json, sys\nprint(json.dumps(sorted(m for m in %r if m in sys.modules)))" % (HEAVY,)
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT,
                         env=dict(os.environ, PYTHONPATH=ROOT))
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_the_parser_and_help_import_nothing_heavy():
    code = ("import contextlib, io\nfrom symssm.cli import build_parser, main\nbuild_parser()\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    try:\n        main(['--help'])\n    except SystemExit:\n        pass\n")
    assert _imported_after(code) == []


def test_a_small_certify_imports_no_sympy_and_no_numpy(tmp_path):
    out = tmp_path / "r.json"
    spec = os.path.join(ROOT, "docs", "example", "rotation.json")
    code = ("import contextlib, io\nfrom symssm.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    assert main(['certify', {spec!r}, '-o', {str(out)!r}]) == 0\n")
    assert _imported_after(code) == []
    assert json.loads(out.read_text())["head_count"] == 2
    # the same bytes as the certificate kept in the docs (the exact core now forms lags on python-flint directly)
    assert out.read_bytes() == open(os.path.join(ROOT, "docs", "example", "rotation.cert.json"), "rb").read()
