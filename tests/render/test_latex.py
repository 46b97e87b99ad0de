"""LaTeX output: compiles standalone and inside a host article, escapes names, macros."""

import os
import re
import shutil

import pytest

from symssm import certify, ssm
from symssm.api import Certificate
from symssm.cli import main
from symssm.sources.examples import EXAMPLES, example
from symssm.errors import InputError
from symssm.render.latex import render, render_markdown
from symssm.render.tex import escape_text, tex_matrix, tex_number

from latex_tools import HOST, compile_tex, require_tools

from paths import ROOT  # noqa: E402
NASTY = "we\\ird {name} $x$ 100% #1 a_b & c~d ^e"


def test_numbers_and_matrices():
    assert tex_number("7") == "7" and tex_number("-2/3") == "-2/3"
    assert tex_matrix([["1", "0"], ["0", "1"]]).startswith("\\begin{pmatrix}")
    wide = tex_matrix([[str(i) for i in range(11)]])
    assert wide.startswith("\\left(\\begin{array}{ccccccccccc}")
    assert "digits" in tex_number("1" * 60)


def test_escaping_every_special_character():
    out = escape_text(NASTY)
    for escaped in ("\\textbackslash{}", "\\{name\\}", "\\$x\\$", "100\\%", "\\#1", "a\\_b", "\\&",
                    "c\\textasciitilde{}d", "\\textasciicircum{}e"):
        assert escaped in out
    assert escape_text("é") == "[U+00E9]"


def test_output_is_deterministic():
    a = render(certify(example("two-rotations").system, 8), standalone=True)
    b = render(certify(example("two-rotations").build(), 8), standalone=True)
    assert a == b


def test_macros_and_prefix():
    from symssm.render.style import derived_prefix

    cert = certify(example("rotation").system, 8)
    text = render(cert, macros=True)
    pre = derived_prefix(cert.data)
    assert pre.startswith("SymssmRotation") and len(pre) == len("SymssmRotation") + 4  # + 4 letters of the hash
    assert f"\\newcommand{{\\{pre}HeadCount}}{{\\ensuremath{{2}}}}" in text
    assert f"\\newcommand{{\\{pre}WitnessDet}}{{\\ensuremath{{-1}}}}" in text
    assert f"\\newcommand{{\\{pre}HoldsFrom}}{{\\ensuremath{{2}}}}" in text
    assert f"\\newcommand{{\\{pre}Length}}{{\\ensuremath{{8}}}}" in text
    assert f"\\newcommand{{\\{pre}N}}{{\\ensuremath{{2}}}}" in text  # N, the state dimension
    other = certify(example("rotation").system, 16)  # the same system, another n: other macro names
    assert derived_prefix(other.data) != pre
    text = render(certify(example("rotation").system, 8), macros=True, prefix="Rot")
    assert "\\newcommand{\\RotHeadCount}{\\ensuremath{2}}" in text
    with pytest.raises(InputError, match="letters"):
        render(certify(example("rotation").system, 8), macros=True, prefix="Bad1")


def test_markdown_repr_for_jupyter():
    cert = certify(example("rotation").system, 8)
    md = cert._repr_markdown_()
    assert "$k(8) = 2$" in md and "\\det M" in md
    assert render_markdown(cert) == md


def test_standalone_pdf_states_the_result_and_escapes_the_name(tmp_path):
    require_tools()
    s = ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]], name=NASTY)
    (tmp_path / "doc.tex").write_text(render(certify(s, 8), standalone=True))
    text = compile_tex(tmp_path)
    flat = " ".join(text.split())
    assert "exactly k = 2 attention heads are necessary and sufficient" in flat
    assert "Proof." in flat and "Necessity (Interaction Rank Gap)" in flat and "Sufficiency" in flat
    assert "leading principal minors are 1, −1, all nonzero" in flat
    assert "we\\ird {name} $x$ 100% #1 a_b & c~d ^e" in flat


def test_fragments_of_every_example_compile_in_one_host_article(tmp_path):
    require_tools()
    inputs = []
    for i, ex in enumerate(EXAMPLES):
        for method in ("exact", "modular"):
            name = f"f{i}{method}.tex"
            (tmp_path / name).write_text(render(certify(ex.system, 8, method=method)))
            inputs.append(f"\\input{{{name[:-4]}}}\n")
    (tmp_path / "doc.tex").write_text(HOST % "".join(inputs))
    text = compile_tex(tmp_path)
    assert text.count("Certified result") == 2 * len(EXAMPLES)


def test_wide_and_truncated_cases_compile(tmp_path):
    require_tools()
    N = 12  # 12 x 12 shift with m = 11 inputs: array instead of pmatrix
    s = ssm([[1 if i == j + 1 else 0 for j in range(N)] for i in range(N)],
            [[1 if i == j else 0 for j in range(11)] for i in range(N)], [[1] * N])
    (tmp_path / "doc.tex").write_text(render(certify(s, 30), standalone=True))
    assert "k = 11" in " ".join(compile_tex(tmp_path).split())


def test_cli_latex_and_refusal_of_bad_certificates(tmp_path, capsys):
    cert = tmp_path / "c.json"
    certify(example("rotation").system, 8).save(cert)
    assert main(["latex", str(cert), "--standalone", "-o", str(tmp_path / "c.tex")]) == 0
    assert (tmp_path / "c.tex").read_text().startswith("\\documentclass{article}")
    shutil.copy(os.path.join(ROOT, "tests", "fixtures", "head_count", "bad-head-count-plus-one.cert.json"),
                tmp_path / "bad.json")
    capsys.readouterr()
    assert main(["latex", str(tmp_path / "bad.json"), "-o", str(tmp_path / "bad.tex")]) == 1
    assert "does not verify" in capsys.readouterr().err
    assert not (tmp_path / "bad.tex").exists()


def test_example_paper_inputs_are_current_compile_and_audit(tmp_path):
    example_dir = os.path.join(ROOT, "docs", "example")
    rot = tmp_path / "rotation.cert.json"
    sh = tmp_path / "shift.cert.json"
    assert main(["certify", os.path.join(example_dir, "rotation.json"), "-o", str(rot)]) == 0
    assert main(["certify", "--family", "shift", "-N", "5", "-p", "2", "-n", "8", "-o", str(sh)]) == 0
    for name in ("rotation.cert.json", "shift.cert.json"):
        assert (tmp_path / name).read_bytes() == open(os.path.join(example_dir, name), "rb").read(), name
    for argv, name in (([str(rot), "--label", "thm:rotation"], "rotation.tex"),
                       ([str(rot), "--macros"], "rotation-macros.tex"),
                       ([str(sh), "--label", "thm:shift", "--environment", "theorem"], "shift.tex"),
                       ([str(sh), "--macros"], "shift-macros.tex")):
        assert main(["latex", *argv, "-o", str(tmp_path / name)]) == 0
        assert (tmp_path / name).read_text() == open(os.path.join(example_dir, name)).read(), name
    shutil.copy(os.path.join(example_dir, "paper.tex"), tmp_path / "paper.tex")
    assert main(["audit", str(tmp_path / "paper.tex")]) == 0
    require_tools()
    compile_tex(tmp_path, "paper.tex")
    text = " ".join(compile_tex(tmp_path, "paper.tex").split())  # twice: the \ref numbers
    import subprocess  # the first page's left column alone: pdftotext interleaves lines of two columns

    left = subprocess.run(["pdftotext", "-f", "1", "-l", "1", "-x", "0", "-y", "0", "-W", "300", "-H", "842",
                           str(tmp_path / "paper.pdf"), "-"], capture_output=True, text=True, check=True).stdout
    left = re.sub(r"(?<=[a-z])- (?=[a-z])", "", " ".join(left.split()))  # words hyphenated at a line's end
    assert "The planar rotation rotation needs exactly 2 attention heads to represent its interaction operator" in left
    assert "n ≥ 2 (Result 1)" in left
    assert "determinant −1" in text and "(Theorem 2)" in text and "??" not in text


def test_certificate_object_latex():
    cert = Certificate(certify(example("rotation").system, 8).data)
    assert cert.to_latex() == render(cert)


def test_independence_sentence_lists_the_witness_lags_as_they_are():
    # The 5-state shift's witness lags are 1 and 3; L_2 = 0, so "L_1, ..., L_3" would be false.
    text = certify(example("shift5-two-outputs").system, 8).to_latex()
    assert "d_1, d_2 = 1,\\allowbreak 3$" in text
    assert "L_{1} = " in text and "L_{3} = " in text and "L_{2} = " not in text
    assert "\\dots, L_{3}" not in text


def test_no_table_above_when_there_is_no_table():
    text = certify(example("rotation").system, 8).to_latex()
    assert "table" not in text


def _two_column(tmp_path, fragments):
    from latex_tools import TWO_COLUMN, overfull_boxes

    for i, frag in enumerate(fragments):
        (tmp_path / f"f{i}.tex").write_text(frag)
    (tmp_path / "doc.tex").write_text(TWO_COLUMN % "".join(f"\\input{{f{i}}}\n\\clearpage\n" for i in range(len(fragments))))
    return overfull_boxes(tmp_path)


def test_sizes_up_to_16_fit_a_two_column_article(tmp_path):
    from symssm import gradient_certificate
    from symssm.sources.families import hippo_legs, hippo_legt, random_system

    require_tools()
    fragments = []
    for system in (hippo_legt(16, 4, 4), hippo_legs(16, 4, 4), random_system(16, 4, 4, seed=1),
                   hippo_legt(12, 3, 3)):
        fragments.append(certify(system, 1024).to_latex())
        if system.name.startswith("hippo"):
            fragments.append(gradient_certificate(system, 1024).to_latex())
    long_name = ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]], name="n" * 150 + "_%$")
    fragments.append(certify(long_name, 8).to_latex())
    boxes = _two_column(tmp_path, fragments)
    assert not [b for b in boxes if b > 1.0], boxes


def test_informative_fields_never_reach_the_pdf():
    from symssm import gradient_certificate
    from symssm.sources.families import diagonal

    cert = gradient_certificate(diagonal(3), 100)
    text = cert.to_latex()
    assert cert["spectral_radius_estimate"] not in text
    assert cert["attention"]["bound_interval"][0] not in text
    assert "spectral radius" not in text


def test_unverified_data_is_never_rendered():
    from symssm.errors import CertificateError
    from symssm.api import to_latex

    data = certify(example("rotation").system, 8).data
    lying = dict(data, n="\\input{/etc/passwd}")
    for call in (lambda: render(lying), lambda: to_latex(lying), lambda: Certificate(lying).to_latex()):
        with pytest.raises(CertificateError, match="does not verify"):
            call()
    assert "does not verify" in Certificate(lying)._repr_markdown_()
    lying = dict(data, spectral_radius_estimate="0.0001")
    with pytest.raises(CertificateError):
        render(lying)


def test_a_certificate_changed_after_its_check_is_checked_again():
    from symssm.errors import CertificateError

    cert = certify(example("rotation").system, 8)
    assert cert.check().verified
    cert.data["head_count"] = 3  # a user edits the data after the verdict
    assert not cert.check().verified
    with pytest.raises(CertificateError, match="does not verify"):
        cert.to_latex()
