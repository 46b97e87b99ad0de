"""Statements that stand on their own: one regression test per defect a referee found, and every kind
of fragment (framework table and layers for every input included) fitted to a two-column, a one-column and a
0.75-inch-margin page without an overfull box."""

import re
import subprocess

import numpy as np
import pytest

from symssm import certify, ssm
from symssm.catalog import build_framework
from shared import framework_certificates, framework_rows
from symssm.sources.families import family_system
from symssm.sources.parametric import PARAMETRIC_FAMILIES, parametric_family

from latex_tools import ONE_COLUMN, TWO_COLUMN, colliding_words, compile_all, require_tools

#: Letter paper with 0.75-inch margins (7-inch text), set by hand so that no extra package is needed.
MARGIN_075 = ("\\documentclass{article}\n\\usepackage{amsmath,amssymb,amsthm}\n"
              "\\setlength{\\textwidth}{7in}\\setlength{\\oddsidemargin}{-0.25in}\\setlength{\\evensidemargin}{-0.25in}\n"
              "\\setlength{\\textheight}{9.5in}\\setlength{\\topmargin}{-0.75in}\n\\begin{document}\n%s\\end{document}\n")


def _theorem(text):
    start = text.index("\\begin{symssmtheorem}")
    return text[start:text.index("\\end{symssmtheorem}", start)]


def _s4d(channels=6, modes=2):
    """A small S4D layer (S4D-Lin initialisation), float32 tensors as a checkpoint stores them."""
    from symssm.sources.checkpoints import CheckpointLayer
    from symssm.sources.trained import trained_layer

    rng = np.random.default_rng(3)
    t = {"kernel.log_dt": np.full(channels, np.log(0.01)).astype(np.float32),
         "kernel.log_A_real": np.log(np.full((channels, modes), 0.5)).astype(np.float32),
         "kernel.A_imag": np.tile(np.pi * np.arange(modes), (channels, 1)).astype(np.float32),
         "kernel.C": (rng.standard_normal((channels, modes, 2)) * 0.5 ** 0.5).astype(np.float32),
         "D": rng.standard_normal(channels).astype(np.float32)}
    return trained_layer(CheckpointLayer("layer0", "s4d", t), "model.safetensors")


# ---------------------------------------------------------------- the class each theorem uses


def test_every_theorem_defines_the_class_it_uses():
    fragments = [certify(ssm([[0, -1], [1, 0]], [[1], [0]], [[1, 0]]), 8).to_latex(),
                 certify(parametric_family("rotation-symbolic"), 8).to_latex(),
                 certify(family_system("diagonal", N=4, p=2, m=1), 64, tolerance="1e-3").to_latex()]
    fragments += [cert.to_latex() for _, _, cert in framework_certificates()]
    for text in fragments:
        theorem = _theorem(text)
        assert "multi-head factorized class" in theorem and "value maps" in theorem, theorem[:200]
        assert "shared by all positions" in theorem and "\\alpha^\\ell_{ij}" in theorem
        # the class allows coefficients that depend on the input; the proof says so where it uses that
        assert "as the factorized class allows" not in text
    head = _theorem(fragments[0])
    assert "allowed to depend on the input" in head and "with coefficients that do not depend on the input" in head


def test_a_time_invariant_ssm_in_the_framework_is_stated_as_one():
    for label, layer, cert in framework_certificates():
        if layer.name != "ti-ssm-N4":
            continue
        text = cert.to_latex()
        theorem = _theorem(text)
        assert "time-invariant SSM $h_i = A h_{i-1} + B x_i$" in theorem
        assert "per-token matrices" not in theorem and "on this input" not in text
        assert "for every input" in theorem and "A = \\begin{pmatrix}" in theorem and "B^{\\top} = " in theorem
        assert "r = k(6)" in theorem and "These coefficients do not depend on the input." in text
        assert "sha256" not in theorem  # the system is stated by its matrices
        break
    else:  # pragma: no cover
        raise AssertionError("no time-invariant row")


@pytest.mark.long  # about 26 s (every framework layer certified and typeset): with the long checks
def test_layers_are_stated_by_their_matrices_compressed():
    texts = {layer.name: _theorem(cert.to_latex()) for _, layer, cert in framework_certificates()}
    mamba = texts["mamba2-head"]
    assert "A_i = a_i I_{8}$ with $(a_1, \\dots, a_{6}) = (1/2," in mamba
    assert "B_i = b_i \\otimes I_{2}$" in mamba and "C_i = c_i^{\\top} \\otimes I_{2}$" in mamba
    assert "sha256" not in mamba and "sha256" not in texts["selective-ssm-N4"]
    assert "$C_i = C$" in texts["selective-ssm-N4"]
    rows = framework_rows()
    every = {r[3][1]["system"]["name"]: r[3][1] for r in rows if r[3] is not None and r[3][1] is not None}
    gate = _theorem(every["mamba2-head-every-gate"].to_latex())
    assert "$A_i = a_i I_{8}$" in gate and "b_i \\otimes I_{2}" in gate and "sha256" not in gate
    attention = every["linear-attention-H2-every-input"].to_latex()
    assert "Q_{1} = \\begin{pmatrix}" in _theorem(attention) and "sha256" not in _theorem(attention)
    # its polynomial minors are listed entry by entry (each breakable), not as a 110 pt wide smallmatrix
    assert "minor $M$ with $M_{11} = " in attention and "- 12\\,x_{11}^{2}" in attention


def test_a_family_is_stated_by_its_matrices_not_its_hash():
    theorem = _theorem(certify(parametric_family("rotation-symbolic"), 8).to_latex())
    assert "A = \\frac{1}{t^{2} + 1}\\begin{pmatrix}" in theorem and "C = I_{2}" in theorem
    assert "sha256" not in theorem and "\\mathbb{C}^{2\\times 1}" in theorem


# ---------------------------------------------------------------- the defects of the referee's list


def test_s4d_uses_m_for_channels_and_an_upright_imaginary_unit():
    text = certify(_s4d(), 64, tolerance="1/100").to_latex()
    theorem = _theorem(text)
    assert "$m = 6$ channels" in theorem and "$H = 6$" not in text
    assert "\\mathrm{i}\\, b_{cq} - e^{a_{cq}}" in theorem and " + i\\," not in text and "K_m[d]" in theorem
    assert "\\mathbb{R}^{6\\times 6}" in theorem  # the heads' value maps, H stays the number of heads


def test_a_single_length_reads_for_sequences_of_length():
    # the 5-state down-shift read at positions 2 and 4: k(1..5) = 0, 1, 1, 2, 2
    shift = ssm([[1 if i == j + 1 else 0 for j in range(5)] for i in range(5)], [[1], [0], [0], [0], [0]],
                [[0, 1, 0, 0, 0], [0, 0, 0, 1, 0]], name="shift5")
    text = certify(shift, 1).to_latex()
    assert "For every sequence length $n = " not in text
    assert "For sequences of length $n = 1$" in _theorem(text)


def test_no_sequence_of_length_zero():
    zero = certify(ssm([[0]], [[1]], [[0]]), 3)
    assert zero["holds_for"]["from"] == 0
    text = zero.to_latex()
    assert "0 \\le n" not in text and "n \\ge 0" not in text and "For every sequence length $n \\ge 1$" in text
    assert "in particular for $n = 3$" in text


def test_one_dimensional_tokens_are_in_q_not_q1():
    text = certify(ssm([[0, -1], [1, 0]], [[1], [0]], [[1, 0]]), 8).to_latex()
    assert "\\mathbb{Q}^{1}" not in text and "x_i \\in \\mathbb{Q}$" in text and "y_i \\in \\mathbb{Q}$" in text
    approx = certify(family_system("diagonal", N=3, p=1, m=1), 64, tolerance="1e-3").to_latex()
    assert "\\mathbb{Q}^{1}" not in approx


def test_the_summary_says_one_head_represents_exactly():
    from symssm.render.summary import approximate_summary

    cert = certify(ssm([["1/2"]], [[1]], [[1]]), 16, tolerance="1e-3")
    lines = approximate_summary(cert.data)
    assert lines[0].startswith("k_eps = 1: 1 head represents the SSM on length-16 sequences exactly")
    assert "<= 0 <=" not in " ".join(lines) and "head approximate " not in " ".join(lines)


def test_a_tall_input_matrix_is_stated_by_its_transpose_and_an_identity_by_its_name():
    text = certify(family_system("random", N=8, p=3, m=2, seed=11), 1024).to_latex()
    assert "B^{\\top} = \\begin{pmatrix}" in _theorem(text)
    rot = certify(ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]]), 8).to_latex()
    assert "B = I_{2}" in rot and "C = I_{2}" in rot and "L_{0} = I_{2}" in rot


# ---------------------------------------------------------------- fitting the page


def test_a_random_n8_p3_m2_head_count_fits_one_two_column_page_for_every_seed(tmp_path):
    require_tools()
    for seed in (0, 3, 7, 11, 19):
        folder = tmp_path / f"s{seed}"
        folder.mkdir()
        text = certify(family_system("random", N=8, p=3, m=2, seed=seed), 1024).to_latex()
        boxes, _ = compile_all(folder, ["\\clearpage\n" + text], TWO_COLUMN)
        assert not [b for b in boxes if b > 1.0], (seed, boxes)
        pages = subprocess.run(["pdfinfo", str(folder / "doc.pdf")], capture_output=True, text=True).stdout
        assert int(re.search(r"Pages:\s+(\d+)", pages).group(1)) <= 2, seed  # the empty first page, then one


@pytest.mark.long  # every kind compiled in three hosts (28 s); the referee scan checks the fragments in every run
def test_every_kind_fits_two_column_one_column_and_narrow_margins(tmp_path):
    require_tools()
    rows = build_framework(str(tmp_path / "fw"))
    fragments = [(tmp_path / "fw" / "framework.tex").read_text()]
    fragments += [p.read_text() for p in sorted((tmp_path / "fw").glob("framework-*.tex"))]
    fragments += [certify(parametric_family(name), 8).to_latex() for name in sorted(PARAMETRIC_FAMILIES)]
    fragments.append(certify(family_system("hippo-legs", N=4, p=2, m=1), 1024).to_latex())
    from symssm import gradient_certificate

    fragments.append(gradient_certificate(family_system("hippo-legs", N=4, p=2, m=1), 1024).to_latex())
    fragments.append(certify(family_system("diagonal", N=6, p=2, m=2), 128, tolerance="1e-3").to_latex())
    fragments.append(certify(_s4d(), 64, tolerance="1/100").to_latex())
    fragments.append(certify(family_system("random", N=8, p=3, m=2, seed=11), 1024).to_latex())
    assert len(rows) == 12 and len(fragments) >= 25
    for name, host in (("two", TWO_COLUMN), ("one", ONE_COLUMN), ("margin", MARGIN_075)):
        folder = tmp_path / name
        folder.mkdir()
        boxes, _ = compile_all(folder, fragments, host)
        assert not [b for b in boxes if b > 1.0], (name, boxes)
    assert colliding_words(tmp_path / "two" / "doc.pdf") == []
