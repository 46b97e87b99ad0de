"""README.md's two commands and .ci/run stay in sync; the Python example runs."""

import os
import re

from paths import ROOT  # noqa: E402


def readme():
    return open(os.path.join(ROOT, "README.md")).read()


def test_readme_starts_with_the_two_commands():
    block = re.search(r"```bash\n(.*?)```", readme(), re.S).group(1).strip().splitlines()
    assert len(block) == 2
    assert block[0].endswith("symssm demo")
    assert "pytest" in block[1]
    ci = open(os.path.join(ROOT, ".ci", "run")).read()
    assert block[1] in ci


def test_readme_python_example_runs(tmp_path, monkeypatch):
    code = re.search(r"```python\n(.*?)```", readme(), re.S).group(1)
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {})
    assert (tmp_path / "rotation.cert.json").exists()
