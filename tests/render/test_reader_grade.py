"""LaTeX a referee accepts: one regression test per defect a referee found, rendered, compiled and read back.

Each test renders certificates, checks the source for what a careful author would (and would not)
write, and compiles them in a two-column and a one-column article: no overfull box over 1 pt, and
(on the catalogue) no word of one line overlapping a word of another in the PDF.
"""

import glob
import json
import os
import re

import pytest

from symssm import certify, gradient_certificate, ssm
from symssm.cli import main
from symssm.render.latex import render
from symssm.render.tex import tex_count, tex_decimal, tex_matrix, tex_number
from symssm.sources.families import family_system
from symssm.sources.parametric import parametric_family

from latex_tools import AMSART, NARROW_SINGLE, ONE_COLUMN, TWO_COLUMN, colliding_words, compile_all, require_tools
from paths import ROOT

CATALOGUE = os.path.join(ROOT, "certificates")


def _compiles_in_both(tmp_path, fragments, *, more=False):
    """Compile in a two-column and a one-column host (``more``: amsart and a 5.5in column too); return the
    two-column PDF text."""
    texts = []
    hosts = [("two", TWO_COLUMN), ("one", ONE_COLUMN)] + ([("amsart", AMSART), ("narrow", NARROW_SINGLE)]
                                                          if more else [])
    for name, host in hosts:
        folder = tmp_path / name
        folder.mkdir()
        boxes, text = compile_all(folder, fragments, host)
        assert not [b for b in boxes if b > 1.0], (name, boxes)
        texts.append(" ".join(text.split()))
    return texts[0]


def _theorem(text):
    """The statement part of a fragment (between the theorem's begin and end)."""
    return text[text.index("\\begin{symssmtheorem}"):text.index("\\end{symssmtheorem}")]


# ---------------------------------------------------------------- numbers


def test_numbers_have_room_and_the_imaginary_unit_is_upright():
    assert tex_number("-3/4") == "-3/4"
    assert tex_number("3/4", display=True) == "\\frac{3}{4}"
    assert tex_number("1/2+1/3i") == "(3 + 2\\,\\mathrm{i})/6"
    assert tex_number("-1i") == "-\\mathrm{i}" and tex_number("2-3i") == "2 - 3\\,\\mathrm{i}"
    assert tex_number("217974932271/4294967296") == "217974932271 \\cdot 2^{-32}"
    assert tex_matrix([["1/2", "0"], ["0", "3/4"]]) == "\\frac{1}{4}\\begin{pmatrix}2 & 0 \\\\ 0 & 3\\end{pmatrix}"
    assert tex_matrix([["1/128", "3/256"]]).startswith("2^{-8}\\begin{pmatrix}2 & 3")


def test_counts_read_as_powers_and_groups():
    assert tex_count(10**18) == "10^{18}"
    assert tex_count(3 * 10**9) == "3 \\cdot 10^{9}"
    assert tex_count(2**40) == "2^{40}"
    assert tex_count(1234567) == "1\\,234\\,567"
    assert tex_count(1024) == "1024"


def test_decimal_bounds_are_rounded_outward():
    from fractions import Fraction

    for text in ("2/3", "-2/3", "123456789/7", "1/3000", "99999", "1065965975813226496/232177533392060025"):
        q = Fraction(text)
        up, down = (tex_decimal(text, up=u) for u in (True, False))

        def value(s):
            s = s.replace(" \\cdot 10^{", "e").rstrip("}")
            return Fraction(s)

        assert value(up) >= q >= value(down), (text, up, down)


# ---------------------------------------------------------------- head counts


def test_gaussian_certificate_with_fractional_parts_renders_and_compiles(tmp_path):
    spec = tmp_path / "qi.json"
    spec.write_text(json.dumps({"name": "qi", "A": [["1/2+1/3i", "0"], ["1", "-1/5i"]], "B": [["1"], ["1/2-2/3i"]],
                                "C": [["1", "1/7+1i"]]}))
    assert main(["certify", str(spec), "-n", "4", "-o", str(tmp_path / "qi.cert.json")]) == 0
    assert main(["latex", str(tmp_path / "qi.cert.json"), "-o", str(tmp_path / "qi.tex")]) == 0
    text = (tmp_path / "qi.tex").read_text()
    assert "\\mathrm{i}" in text and "\\,i" not in text and "\\mathbb{Q}(\\mathrm{i})" in text
    require_tools()
    pdf = _compiles_in_both(tmp_path, [text])
    assert "Q(i)" in pdf


def test_a_witness_beyond_n_is_shown_and_the_range_is_what_is_proven(tmp_path):
    # A 4-state shift read at positions 2 and 4: witness lags 1 and 3, certified at n = 2.
    shift = ssm([[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]], [[1], [0], [0], [0]],
                [[0, 1, 0, 0], [0, 0, 0, 1]], name="shift13")
    text = certify(shift, 2).to_latex()
    assert "2 \\le n \\le 3$, exactly $k = 1$ attention head is" in text
    assert "L_{1} = " in text and "L_{3} = " in text  # every witness lag the minor uses
    assert "for n \\ge 4" not in _theorem(text)
    assert "k(n) = 2$ for $n \\ge 4$" in text  # the other lengths, in the proof
    assert "The 1 independent" not in text and "(h = 1, \\dots, 1)" not in text
    require_tools()
    _compiles_in_both(tmp_path, [text])


def test_no_coefficient_row_that_the_dimension_argument_covers():
    # HiPPO-LegT N = 32 (p = m = 1): 31 coefficient rows in the certificate, all covered by dimension.
    big = certify(family_system("hippo-legt", N=32), 64, method="exact")
    assert len(big["upper_bound"]["coefficients"]) == 31 and big["upper_bound"]["dimension_from_lag"] == 1
    text = big.to_latex()
    assert "\\begin{tabular}" not in text and "$d = " not in text and "other lags below" not in text
    assert "covers" in text or "contains every lag" in text
    assert len(text) < 6000
    rand = certify(family_system("random", N=32, p=2, m=2, seed=0), 64, method="exact")
    text = rand.to_latex()
    assert len(text) < 12000
    from symssm.render.tex import tex_hash

    assert text.count(tex_hash(rand["input_sha256"])) == 1  # printed once, in the statement
    assert "in the certificate" in text


def test_hand_checkable_proof_of_a_small_system():
    text = certify(ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]], name="rot"), 8).to_latex()
    assert "L_{0} = I_{2}" in text and "L_{1} = \\begin{pmatrix}0 & -1 \\\\ 1 & 0\\end{pmatrix}" in text
    assert "leading principal minors are $1,\\allowbreak -1$" in text
    assert "\\chi_A(x) = \\det(xI - A) = x^{2} + 1" in text
    assert "c_{d,\\ell} = -\\sum_{j=0}^{N-1} a_j c_{d-N+j,\\ell}" in text  # explicit for every d
    for jargon in ("Bareiss", "[h = h']", "(r,c) = (0,0)", "\\tfrac", "L_0, \\dots, L_{1}"):
        assert jargon not in text
    assert "A = \\begin{pmatrix}" in text and "B = I_{2}" in text
    assert text.count("\\[") + text.count("\\begin{gather*}") >= 1
    assert "(rows and columns numbered from 1)" in text


def test_a_diagonal_matrix_is_written_diag():
    text = certify(ssm([["1/2", 0, 0], [0, "-1/3", 0], [0, 0, "1/4"]], [[1], [1], [1]], [[1, 0, 0], [0, 1, 1]]),
                   8).to_latex()
    assert "A = \\operatorname{diag}(1/2, -1/3, 1/4)" in text


def test_large_n_is_a_power_of_ten(tmp_path):
    text = certify(ssm([[0, -1], [1, 0]], [[1], [0]], [[1, 0]]), 10**18).to_latex()
    assert "10^{18}" in text and str(10**18) not in text.split("\n", 2)[2]
    require_tools()
    _compiles_in_both(tmp_path, [text])


# ---------------------------------------------------------------- families


def test_multiplicities_are_on_parenthesised_factors_and_delta_is_factored():
    text = certify(parametric_family("rotation-symbolic"), 8).to_latex()
    assert "(t^{2} + 1)^{5}" in text
    assert "\\Delta = 2\\, t (t^{2} + 1)^{4}" in text or "\\Delta = 2 t (t^{2} + 1)^{4}" in text
    assert "$^{" not in text
    assert "for every $n \\ge 2$" in text  # the range of n (holds_for)
    for path in glob.glob(os.path.join(CATALOGUE, "*symbolic*.tex")):
        assert "$^{" not in open(path).read(), path


def test_symmetric_cases_are_one_statement():
    text = certify(parametric_family("diagonal-symbolic"), 8).to_latex()
    theorem = _theorem(text)
    assert theorem.count("l_{1} = l_{2} = l_{3}") == 1
    assert "$k(n)$ is the number of distinct values among $l_{1}, l_{2}, l_{3}$" in theorem
    assert theorem.count("\\item If") == 5  # distinct, three pairs, all equal


# ---------------------------------------------------------------- gradient and framework


def test_gradient_theorem_states_the_inputs_of_the_attention_bound():
    from symssm.sources.families import hippo_legs

    text = gradient_certificate(hippo_legs(4, 2, 1), 1024).to_latex()
    theorem = _theorem(text)
    assert "admits inputs" in theorem and "the tokens $x_i = x_j = 1$" in theorem
    assert "K^2 \\le " in theorem  # a 34-digit K^2 as an outward-rounded decimal
    assert "1065965975813226496" not in text
    assert "2^{-" in text  # the dyadic P and mu


def test_framework_layers_say_what_the_rank_depends_on():
    from shared import framework_certificates

    for label, layer, cert in framework_certificates():
        text = cert.to_latex()
        theorem = _theorem(text)
        kind = layer.kind if hasattr(layer, "kind") else cert["system"]["kind"]
        assert "tokens given in the certificate" not in theorem
        if kind == "convolution":
            assert "K_{0} = " in theorem and "for every input" in theorem and "on this input" not in theorem
        if kind == "operator":
            assert "W_{1,1} = " in theorem and "on this input" not in theorem
        if kind in ("linear-attention", "softmax-attention"):
            assert "X^{\\top} = " in theorem and "on this input" in theorem
        if kind == "selective-ssm":
            assert ("per-token matrices" in theorem) != ("time-invariant SSM" in theorem)
        if kind == "softmax-attention":
            assert "irrational" not in text and "exponentials of the scores" in text


# ---------------------------------------------------------------- author controls


def test_macros_work_in_running_text_and_two_files_share_a_preamble(tmp_path):
    require_tools()
    for name, family in (("a", "shift"), ("b", "rotation")):
        assert main(["certify", "--family", family, "--N", "4", "--p", "2", "-n", "8",
                     "-o", str(tmp_path / f"{name}-N4.cert.json")]) == 0
        assert main(["latex", str(tmp_path / f"{name}-N4.cert.json"), "--macros",
                     "-o", str(tmp_path / f"{name}-macros.tex")]) == 0
    gc = gradient_certificate(family_system("diagonal", N=2, p=1, m=1), 16)  # crossover may be \infty
    (tmp_path / "g-macros.tex").write_text(render(gc, macros=True, prefix="Grad"))
    # from Python, without files: two unnamed systems' default macro files share the preamble too
    (tmp_path / "u1-macros.tex").write_text(render(certify(ssm([[1]], [[1]], [[1]]), 8), macros=True))
    (tmp_path / "u2-macros.tex").write_text(render(certify(ssm([[2]], [[1]], [[1]]), 8), macros=True))
    doc = ("\\documentclass{article}\n\\usepackage{amsmath,amssymb,amsthm}\n"
           "\\input{a-macros}\\input{b-macros}\\input{g-macros}\\input{u1-macros}\\input{u2-macros}\n"
           "\\begin{document}\n"
           "A: \\SymssmANFourHeadCount{} heads for \\SymssmANFourLengths, up to \\SymssmANFourHoldsTo; "
           "$N = \\SymssmANFourN$, $n = \\SymssmANFourLength$. B: \\SymssmBNFourHeadCount, det \\SymssmBNFourWitnessDet. "
           "Crossover \\GradCrossoverDistance, rate \\GradDecayRate.\n\\end{document}\n")
    (tmp_path / "doc.tex").write_text(doc)
    from latex_tools import compile_tex

    text = " ".join(compile_tex(tmp_path).split())
    assert "A: 2 heads for n ≥ 4, up to ∞; N = 4, n = 8." in text


def test_label_is_referenceable_and_environment_configurable(tmp_path):
    require_tools()
    cert = certify(ssm([[0, -1], [1, 0]], [[1], [0]], [[1, 0]], name="rot"), 8)
    a = cert.to_latex(label="thm:rot")
    b = cert.to_latex(label="thm:own", environment="theorem")
    c = cert.to_latex(theorem_name="Proposition")
    assert "\\begin{symssmtheorem}[{Head count of the SSM rot}]\\label{thm:rot}" in a
    doc = ("\\documentclass[twocolumn]{article}\n\\usepackage{amsmath,amssymb,amsthm}\n\\newtheorem{theorem}{Theorem}\n"
           "\\begin{document}\n\\input{a}\n\\input{b}\nSee Result~\\ref{thm:rot} and Theorem~\\ref{thm:own}.\n"
           "\\end{document}\n")
    for name, frag in (("a", a), ("b", b)):
        (tmp_path / f"{name}.tex").write_text(frag)
    (tmp_path / "doc.tex").write_text(doc)
    from latex_tools import compile_tex

    compile_tex(tmp_path)
    text = " ".join(compile_tex(tmp_path).split())
    assert "See Result 1 and Theorem 1." in text and "Theorem 1 (Head count" in text
    (tmp_path / "c.tex").write_text(c)
    (tmp_path / "doc.tex").write_text(TWO_COLUMN % "\\input{c}\n")
    assert "Proposition 1" in " ".join(compile_tex(tmp_path).split())
    from symssm.errors import InputError

    for bad in ({"label": "a b"}, {"label": "x}\\input{y"}, {"environment": "th{m}"}, {"theorem_name": "$x$"},
                {"prefix": "Bad1"}):
        with pytest.raises(InputError):
            cert.to_latex(**bad)


def test_cli_refuses_bad_author_options_in_one_line(tmp_path, capsys):
    cert = tmp_path / "c.json"
    certify(ssm([[1]], [[1]], [[1]]), 4).save(cert)
    for argv in (["--label", "a b"], ["--environment", "x1"], ["--theorem-name", "\\evil"], ["--prefix", "9"]):
        capsys.readouterr()
        assert main(["latex", str(cert), *argv, "-o", str(tmp_path / "o.tex")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert not (tmp_path / "o.tex").exists()


# ---------------------------------------------------------------- the catalogue


@pytest.mark.long  # the whole catalogue in four hosts
def test_catalogue_fits_both_layouts_without_colliding_lines(tmp_path):
    require_tools()
    fragments = [open(p).read() for p in sorted(glob.glob(os.path.join(CATALOGUE, "*.tex")))]
    assert len(fragments) >= 60
    _compiles_in_both(tmp_path, fragments, more=True)
    assert colliding_words(tmp_path / "two" / "doc.pdf") == []
    assert colliding_words(tmp_path / "one" / "doc.pdf") == []


def test_the_collision_check_sees_colliding_fractions(tmp_path):
    require_tools()
    bad = ("\\[\\begin{array}{c}\\tfrac{123456789012345}{987654321098765} \\\\[-9pt] "
           "\\tfrac{123456789012345}{987654321098765}\\end{array}\\]\n")
    compile_all(tmp_path, [bad], TWO_COLUMN)
    assert colliding_words(tmp_path / "doc.pdf")


def test_random_n8_fits_one_two_column_page(tmp_path):
    require_tools()
    text = open(os.path.join(CATALOGUE, "random-N8-p3-m2-seed0.tex")).read()
    compile_all(tmp_path, ["\\clearpage\n" + text], TWO_COLUMN)
    import subprocess

    pages = subprocess.run(["pdfinfo", str(tmp_path / "doc.pdf")], capture_output=True, text=True).stdout
    assert re.search(r"Pages:\s+[12]\n", pages)  # the \clearpage's empty first page, then one page
    assert int(re.search(r"Pages:\s+(\d+)", pages).group(1)) <= 2


@pytest.mark.long  # every family and framework layer certified, then four hosts
def test_families_framework_and_gaussian_fragments_fit_every_host(tmp_path):
    from symssm.sources.parametric import PARAMETRIC_FAMILIES

    require_tools()
    from shared import framework_certificates

    fragments = [cert.to_latex() for _, _, cert in framework_certificates()]
    fragments += [certify(parametric_family(name), 8).to_latex() for name in sorted(PARAMETRIC_FAMILIES)]
    fragments.append(certify(ssm([[0, -1], [1, 0]], [[1], [0]], [[1, 0]]), 10**18).to_latex(label="thm:big"))
    fragments.append(certify(family_system("diagonal", N=6, p=2, m=2), 128, tolerance="1e-3").to_latex())
    _compiles_in_both(tmp_path, fragments, more=True)
    assert colliding_words(tmp_path / "two" / "doc.pdf") == []
