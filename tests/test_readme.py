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


def test_the_demo_folder_is_not_packaged(tmp_path):
    """``symssm demo`` writes ./symssm-demo/ where README's first command runs; packaging picks up symssm alone."""
    import re
    from fnmatch import fnmatchcase

    text = open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8").read()
    include = re.search(r"\[tool\.setuptools\.packages\.find\]\s*include = \[([^\]]*)\]", text)
    patterns = re.findall(r'"([^"]+)"', include.group(1))
    for name in ("symssm-demo", "symssm-demo.sub", "symssm_old", "symssmx"):
        assert not any(fnmatchcase(name, pattern) for pattern in patterns), (name, patterns)
    for name in ("symssm", "symssm.checker", "symssm.render.coq"):
        assert any(fnmatchcase(name, pattern) for pattern in patterns), (name, patterns)
