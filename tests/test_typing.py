"""The package is typed (PEP 561) and ``mypy symssm`` is clean; the wheel's metadata is complete."""

import os
import shutil
import subprocess
import sys


import pytest

tomllib = pytest.importorskip("tomllib")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_the_package_ships_py_typed():
    assert os.path.isfile(os.path.join(ROOT, "symssm", "py.typed"))
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        project = tomllib.load(fh)
    assert "py.typed" in project["tool"]["setuptools"]["package-data"]["symssm"]


def test_metadata_has_classifiers_and_urls():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as fh:
        meta = tomllib.load(fh)["project"]
    assert "Typing :: Typed" in meta["classifiers"]
    assert any(c.startswith("Topic :: Scientific/Engineering") for c in meta["classifiers"])
    assert meta["urls"]["Paper"] == "https://arxiv.org/abs/2512.15115"


@pytest.mark.skipif(shutil.which("mypy") is None and subprocess.run(
    [sys.executable, "-c", "import mypy"], capture_output=True).returncode != 0, reason="mypy is not installed")
@pytest.mark.long  # about 20 s: with the long checks (.ci/run runs them after the suite)
def test_mypy_is_clean(tmp_path):
    result = subprocess.run([sys.executable, "-m", "mypy", "--cache-dir", str(tmp_path / "cache"), "symssm"],
                            cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "Success" in result.stdout
