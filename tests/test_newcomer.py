"""A newcomer's path: one CLI vocabulary, help on every option, the names the docs use, the wording."""

import argparse
import glob
import importlib
import json
import os
import re


from paths import ROOT
from symssm.cli import DEFAULT_N, build_parser, main

ROT = os.path.join(ROOT, "docs", "example", "rotation.json")


def _subparsers():
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices


def _options(p):
    return {s: a for a in p._actions for s in a.option_strings}


def test_every_option_of_every_command_has_help_and_a_readable_metavar():
    for name, p in _subparsers().items():
        for action in p._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert action.help, (name, action.option_strings or action.dest)
            metavar = action.metavar
            if isinstance(metavar, str):
                assert "_" not in metavar or metavar == "NAME=VALUE,...", (name, metavar)
        assert "FAMILY_" not in p.format_help(), name


WRITES = {"certify", "latex", "coq", "gradient", "plot", "catalog", "framework", "batch", "demo"}
LENGTH = {"certify", "gradient", "numeric", "plot", "framework", "model"}
SIZES = {"certify", "gradient", "numeric", "plot"}


def test_one_vocabulary():
    subs = _subparsers()
    for name in WRITES:
        opts = _options(subs[name])
        assert {"-o", "--out", "--output"} <= set(opts), name
        assert opts["-o"] is opts["--out"] is opts["--output"]
    for name in LENGTH:
        opts = _options(subs[name])
        assert {"-n", "--length", "--n"} <= set(opts), name
        assert opts["-n"] is opts["--length"] is opts["--n"]
    for name in SIZES:
        opts = _options(subs[name])
        for short, long_, old in (("-N", "--states", "--N"), ("-p", "--outputs", "--p"), ("-m", "--inputs", "--m")):
            assert opts[short] is opts[long_] is opts[old], (name, short)


def test_length_defaults_are_stated_as_they_are():
    subs = _subparsers()
    assert "else T" in _options(subs["certify"])["-n"].help
    for name in ("gradient", "numeric", "plot"):
        assert f"else {DEFAULT_N}" in _options(subs[name])["-n"].help
    assert "1024" in _options(subs["model"])["-n"].help


def test_usage_errors_point_at_the_command_help(capsys):
    assert main(["certify", ROT, "--bogus"]) == 2
    assert "(see 'symssm certify --help')" in capsys.readouterr().err
    assert main(["gradient", "-N", "x"]) == 2
    assert "(see 'symssm gradient --help')" in capsys.readouterr().err


def test_the_unknown_family_error_lists_every_family(capsys):
    from symssm.sources.families import FAMILIES
    from symssm.sources.parametric import PARAMETRIC_FAMILIES

    assert main(["certify", "--family", "nope", "-N", "2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    for name in [*FAMILIES, *PARAMETRIC_FAMILIES]:
        assert name in err


def test_new_spellings_work(tmp_path, capsys):
    out = tmp_path / "r.json"
    assert main(["certify", "--family", "rotation", "-N", "2", "--length", "5", "--out", str(out)]) == 0
    assert json.loads(out.read_text())["n"] == 5
    assert main(["certify", "--family", "rotation", "--states", "2", "--n", "5", "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["check", "-q", str(out)]) == 0
    assert capsys.readouterr().out == ""
    assert main(["framework", "--length", "3", "--inputs", "1"]) == 0
    assert "n = 3 tokens" in capsys.readouterr().out


def test_the_names_the_docs_use_import_as_written():
    from symssm.families import rotation  # noqa: F401
    from symssm.layers import mamba2_scalar_gate  # noqa: F401

    text = "\n".join(open(os.path.join(ROOT, p)).read()
                     for p in ["README.md"] + [os.path.join("docs", f) for f in os.listdir(os.path.join(ROOT, "docs"))
                                               if f.endswith(".md")])
    names = set(re.findall(r"\bsymssm(?:\.[a-z_][a-z_0-9]*)+", text))
    assert len(names) > 10
    for dotted in sorted(names):
        parts = dotted.split(".")
        obj = None
        for k in range(len(parts), 0, -1):  # the longest importable module, then attributes
            try:
                obj = importlib.import_module(".".join(parts[:k]))
            except ImportError:
                continue
            for attr in parts[k:]:
                obj = getattr(obj, attr)
            break
        assert obj is not None, dotted


def test_sufficiency_is_stated_in_the_factorized_class(capsys):
    assert main(["certify", ROT, "-o", "-"]) == 0
    captured = capsys.readouterr()
    assert "necessary and sufficient in the multi-head factorized class" in captured.err + captured.out
    for page in ["README.md"] + [os.path.join("docs", f) for f in os.listdir(os.path.join(ROOT, "docs"))
                                 if f.endswith(".md")]:
        paragraphs = open(os.path.join(ROOT, page)).read().split("\n\n")
        for para in paragraphs:
            said = re.sub(r'"[^"]*"', "", para)  # quoted prose (what the audit reads in a paper) states nothing
            if re.search(r"necessary and sufficient|heads? suffices?\b", said):
                assert "factorized" in para, (page, para[:200])


def test_batch_lines_keep_the_spec_name_and_draw_no_bar_off_a_terminal(tmp_path, capsys):
    from symssm.batch import run_batch

    src = tmp_path / "in.jsonl"
    src.write_text('{"name": "bad", "A": [[1, 2]], "B": [[1]], "C": [[1]]}\n')
    out = tmp_path / "out.jsonl"
    run_batch(str(src), str(out), workers=1, progress=True)
    row = json.loads(out.read_text())
    assert row["name"] == "bad" and row["error"]
    assert capsys.readouterr().err == ""  # stderr is not a terminal under pytest


def test_every_file_the_docs_name_exists():
    """Paths such as tests/checker/test_fuzz_checker.py or docs/example/decay.json name real files."""
    pages = ["README.md", os.path.join("certificates", "README.md")] + [
        os.path.join("docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md")]
    pattern = re.compile(r"(?<![\w/.-])((?:tests|benchmarks|fuzz|docs|symssm|certificates)/[\w./-]*\w)")
    missing = []
    for page in pages:
        for path in pattern.findall(open(os.path.join(ROOT, page)).read()):
            path = path.rstrip(".")
            if any(ch in path for ch in "*{}") or path.startswith("fuzz/corpus_"):
                continue
            if not os.path.exists(os.path.join(ROOT, path)) and not glob.glob(os.path.join(ROOT, path) + "-*"):
                missing.append((page, path))  # (a glob such as spec-* names the files it starts)
    assert not missing, missing


def test_help_family_names_match_the_registries():
    from symssm.cli import FAMILY_NAMES, PARAMETRIC_FAMILY_NAMES
    from symssm.sources.families import FAMILIES
    from symssm.sources.parametric import PARAMETRIC_FAMILIES

    assert FAMILY_NAMES == tuple(FAMILIES) and PARAMETRIC_FAMILY_NAMES == tuple(PARAMETRIC_FAMILIES)
