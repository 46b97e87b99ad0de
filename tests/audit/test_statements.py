"""The audit's pure parts, without TeX: statements derived from certificates, prose numbers, reading order."""

import pytest

from symssm import certify, gradient_certificate, ssm
from symssm.audit.claims import Stream, find_whole, page_order, negated_before, numbers, prose_claims
from symssm.audit.compile import first_error, recorded_inputs
from symssm.audit.pages import Glyph, Page
from symssm.audit.statements import Statement, display_order, glyph_text, normalize, significant, squeeze, statements
from symssm.render.style import certificate_sha256

ROT = ssm([[3, -4], [4, 3]], [[1, 0], [0, 1]], [[1, 0], [0, 1]], name="rotation-N2")


def test_a_head_count_states_its_system_count_and_lengths():
    data = certify(ROT, 16).data
    sts = statements(data, certificate_sha256(data))
    fragment, sentence = sts
    assert fragment.what == "fragment"
    assert fragment.parts[0] == "Head count of the SSM rotation-N2"
    assert fragment.parts[1].startswith("For every sequence length n ≥ 2, exactly k = 2 attention heads are "
                                        "necessary and sufficient in this class")
    assert fragment.tail.startswith("Other lengths.") or fragment.tail
    # the whole theorem: title, hypotheses, the display of A, B, C (as a multiset), the claim, then the proof
    kinds = [k for k, *_ in fragment.segments]
    assert fragment.segments[0] == ("seq", "Head count of the SSM rotation-N2") and kinds[-1] == "seq"
    assert fragment.segments[-1] == ("seq", "Proof.") and "bag" in kinds
    display = next(seg for seg in fragment.segments if seg[0] == "bag")
    assert display[1] == "A=34-43B=I2C=I2" and display[2] == ("A=34-43B=I2C=I2",)  # the matrix column by column
    assert fragment.segments[1][1].startswith("Let hi = A hi-1 + B xi")
    assert sentence.what == "sentence macro HeadCountSentence"
    assert sentence.parts == ("the SSM rotation-N2 needs exactly 2 attention heads to represent its interaction operator, "
                              "for every sequence length n ≥ 2",)


def test_a_gradient_certificate_has_its_rate_in_the_statement():
    data = gradient_certificate(ssm([["1/2", 0], [0, "1/3"]], [[1], [1]], [[1, 1]], name="decay"), 64).data
    sts = statements(data, certificate_sha256(data))
    assert sts[0].parts[0] == "Gradient highway for the SSM decay"
    rate = data["decay_rate"]
    assert any(f"r = {rate}" in p for p in sts[0].parts)
    assert sts[1].what == "sentence macro DecaySentence" and f"r = {rate}" in sts[1].parts[0]


def test_glyph_text_knows_only_symssms_own_tex():
    assert glyph_text("$n \\ge 2$, $k = 3$ and \\texttt{a\\char95{}b}") == "n ≥ 2, k = 3 and a_b"
    with pytest.raises(ValueError):
        glyph_text("\\frac{1}{2}")
    assert squeeze(normalize("ﬁnd – k − 1 ’")) == "find--k-1'"


def _glyphs(text, y, x0=72.0, size=10.0, problems=()):
    out, x = [], x0
    for ch in text:
        if ch != " ":
            out.append(Glyph(ch, "CMR10", size, (x, y, x + 5, y + 7), 0, problems, (x, y), 5.0))
        x += 5
    return out


def _page(rows, number=1):
    glyphs = tuple(g for row in rows for g in row)
    return Page(number, (0, 0, 612, 792), glyphs, (), ())


def test_a_statement_is_found_across_lines_and_a_hyphen_at_a_line_end():
    page = _page([_glyphs("We show that the SSM rota-", 700), _glyphs("tion needs exactly 2 heads.", 688)])
    stream = Stream([page])
    st = Statement("x", "head-count", "sentence macro S", ("the SSM rotation needs exactly 2 heads",),
                   segments=(("seq", "the SSM rotation needs exactly 2 heads"),))
    runs, _, _ = find_whole(stream, st)
    assert runs is not None and runs[0].problems == ()
    white = _page([_glyphs("the SSM rotation needs exactly 2 heads", 700, problems=("drawn in white",))])
    runs, _, _ = find_whole(Stream([white]), st)
    assert runs[0].problems == ("drawn in white on page 1",)


def test_a_display_is_read_by_position_matrices_column_by_column():
    def g(ch, x, y, w=5.0, h=7.0):
        return Glyph(ch, "CMR10", 10.0, (x, y, x + w, y + h), 0, (), (x, y), w)

    def page(cells):  # A = (4x2 matrix): cells[row][column], each centred in its column as TeX sets them
        glyphs = [g("A", 0, 0), g("=", 10, 2, 6.0, 2.0)]
        for r, row in enumerate(cells):
            for c, text in enumerate(row):
                x, y = 33 + 15 * c - 3 * (len(text) - 1), 24 - 12 * r
                glyphs += [g(text[-1], x + 6 * (len(text) - 1), y)] + [g("\u2212", x, y + 3, 4, 0.5)] * (len(text) - 1)
        # the parentheses as TeX draws tall ones: top and bottom pieces, the extension between them a rule
        return glyphs + [g(c, x, y, 4.0, 22.0) for c, x, y in [("\uf8eb", 21, 10), ("\uf8ed", 21, -20),
                                                               ("\uf8f6", 58, 10), ("\uf8f8", 58, -20)]]

    tex = r"A = \begin{pmatrix}1 & 2 \\ 3 & -4 \\ 5 & 6 \\ 7 & 8\end{pmatrix}"
    assert display_order(tex) == "A=13572-468"
    assert page_order(page([["1", "2"], ["3", "-4"], ["5", "6"], ["7", "8"]])) == "A=13572-468"
    moved = ([["2", "1"], ["3", "-4"], ["5", "6"], ["7", "8"]], [["3", "-4"], ["1", "2"], ["5", "6"], ["7", "8"]],
             [["1", "2"], ["-3", "4"], ["5", "6"], ["7", "8"]])  # entries swapped, rows swapped, a minus moved
    for cells in moved:
        assert page_order(page(cells)) != display_order(tex)


def test_two_columns_are_read_column_by_column():
    rows = [_glyphs(f"left line {k:02d} aa", 700 - 12 * k) + _glyphs(f"right line {k:02d} bb", 700 - 12 * k, x0=330)
            for k in range(30)]
    text = Stream([_page(rows)]).text
    assert text.index("leftline29") < text.index("rightline00") < text.index("rightline29")


def test_prose_numbers_compared_with_the_named_system():
    page = _page([_glyphs("The rotation rotation-N2 needs 3 heads. The other needs 5 heads.", 700)])
    stream = Stream([page])
    got = prose_claims(stream, set(), [("rotation-N2", "rot.json", {1, 2}, "head-count")])
    assert [(c.status, c.value) for c in got] == [("contradicts", "3"), ("unchecked", "5")]
    assert [(q, v, qual) for q, v, _, qual in numbers("no model with H < 2 heads; k(n) = 3")] == \
        [("heads", "2", True), ("k(n)", "3", False)]


def test_compile_helpers():
    from symssm.audit.core import parse_marker

    marker = "% symssm fragment: head-count certificate " + "a" * 64 + "; file rot.json; options --label x"
    assert parse_marker(marker) == ("fragment", "head-count", "a" * 64, "rot.json", "--label x")
    assert parse_marker("% a comment") is None
    assert first_error("./a.tex:3: Missing $ inserted.\n") == "a.tex:3: Missing $ inserted."
    assert first_error("./sections/a.tex:12: Undefined control sequence.\nl.12 \\foo") == \
        "sections/a.tex:12: Undefined control sequence."
    assert first_error("! Emergency stop.\n<*> paper.tex") == "! Emergency stop."
    assert recorded_inputs("PWD /x\nINPUT ./a.tex\nINPUT /usr/b.sty\nOUTPUT a.log\nINPUT a.tex", "/x") == ("a.tex",)
    fls = "PWD /w\nINPUT /w/paper.tex\nINPUT ./results/rot.tex\nINPUT /usr/share/x.sty\nOUTPUT paper.log\n"
    assert recorded_inputs(fls, "/w") == ("paper.tex", "results/rot.tex")


def test_a_range_of_lengths_the_certificate_does_not_prove_contradicts_it():
    data = certify(ROT, 16).data
    from symssm.render.claims import values

    system = ("rotation-N2", "rot.json", values(data), "head-count", lambda n: values(data, n))
    page = _page([_glyphs("The SSM rotation-N2 needs exactly 2 attention heads for every sequence length n ≥ 1.", 700),
                  _glyphs("The SSM rotation-N2 needs exactly 2 attention heads for every sequence length n ≥ 5.", 688)])
    got = prose_claims(Stream([page]), set(), [system])
    assert [(c.status, c.value) for c in got] == [("contradicts", "2"), ("consistent", "2")]
    assert "k(1) = 1, so not 2 for every n ≥ 1" in got[0].detail


def test_a_negated_certified_sentence_is_not_verified():
    st = Statement("x", "head-count", "sentence macro S", ("the SSM rotation needs exactly 2 heads",),
                   segments=(("seq", "the SSM rotation needs exactly 2 heads"),))
    for text, negated in [("It is not true that the SSM rotation needs exactly 2 heads.", True),
                          ("It is false that the SSM rotation needs exactly 2 heads.", True),
                          ("Thus it is no longer true that the SSM rotation needs exactly 2 heads.", True),
                          ("The proof fails to show that the SSM rotation needs exactly 2 heads.", True),
                          ("Not so. In fact the SSM rotation needs exactly 2 heads.", False),
                          ("We note that the SSM rotation needs exactly 2 heads.", False),
                          ("In this notation the SSM rotation needs exactly 2 heads.", False),
                          ("It is not only true that the SSM rotation needs exactly 2 heads.", False),
                          ("It is noteworthy that the SSM rotation needs exactly 2 heads.", False)]:
        stream = Stream([_page([_glyphs(text, 700)])])
        runs, _, _ = find_whole(stream, st)
        assert bool(negated_before(stream, runs[0])) == negated, text


@pytest.mark.parametrize("text, quantity, value", [
    ("In fact the rotation needs 3heads.", "heads", "3"),  # 3\,heads: a thin space reads as none
    ("In fact the rotation needs 3 parallel heads.", "heads", "3"),
    ("For the rotation, krot(n) = 3 for all n ≥ 2.", "k(n)", "3"),  # k_{\mathrm{rot}}(n)
    ("The rotation needs twenty heads.", "heads", "twenty"),
    ("The rotation's minimal number of heads: H⋆ = 3.", "heads", "3"),
    ("The rotation needs three attention-heads.", "heads", "three"),
])
def test_prose_number_variants_are_read(text, quantity, value):
    assert [(q, v) for q, v, _, _ in numbers(text)] == [(quantity, value)]
    page = _page([_glyphs(text, 700)])
    got = prose_claims(Stream([page]), set(), [("rotation", "rot.json", {1, 2}, "head-count")])
    assert [c.status for c in got] == ["contradicts"]


def test_an_abbreviation_does_not_end_the_sentence():
    page = _page([_glyphs("In fact the rotation (cf. Fig. 1) needs 3 heads.", 700)])
    got = prose_claims(Stream([page]), set(), [("rotation", "rot.json", {1, 2}, "head-count")])
    assert [(c.status, c.value) for c in got] == [("contradicts", "3")]
    assert numbers("in 3 of the heads") == []


def test_a_drawing_beside_a_statement_is_a_problem_of_its_run():
    from symssm.audit.claims import Run
    from symssm.audit.core import _beside

    two = Glyph("2", "CMR10", 10.0, (0.0, 0.0, 5.0, 6.5), 1, (), (0.0, 0.0), 5.0)
    page = Page(1, (0, 0, 100, 100), (two,), (), (), drawings=(("drawing", (6.0, 0.0, 10.0, 6.5), 2, ()),))
    assert _beside([Run(((1, two),), 0, 1)], [page]) == ("a drawing beside the statement (page 1)",)
    assert _beside([Run(((1, two),), 0, 1, True)], [page]) == ()  # a display's rules
    assert _beside([Run(((1, two),), 0, 1)], [Page(1, (0, 0, 100, 100), (two,), (), ())]) == ()


def test_a_sentence_about_a_system_with_paint_beside_it_is_listed():
    page = _page([_glyphs("In fact the rotation needs heads.", 700)])
    systems = [("rotation", "rot.json", {1, 2}, "head-count")]
    drawing = ("a drawing beside the statement (page 1)",)
    got = prose_claims(Stream([page]), set(), systems, beside=lambda glyphs: drawing)
    assert [(c.status, c.quantity) for c in got] == [("unchecked", "unreadable")]
    assert prose_claims(Stream([page]), set(), systems, beside=lambda glyphs: ()) == []


def _rotation_system(data):
    from symssm.audit.core import _system

    return _system(data, "rot.json")


@pytest.mark.parametrize("text, status, detail", [
    # no length named: compared with the count for every length from the certified one on (k(1) = 1 aside)
    ("It needs only one head.", "contradicts", "proves 2 for every length n ≥ 2, so not 1"),
    ("One head suffices for the SSM rotation-N2.", "contradicts", "so not 1 (the sentence names no length)"),
    ("A single head suffices for the SSM rotation-N2.", "contradicts", "so not 1"),
    ("For the SSM rotation-N2 only one attention head is needed.", "contradicts", "so not 1"),
    ("The SSM rotation-N2 needs 2 heads.", "consistent", "proves heads 2"),
    # the lengths the sentence names
    ("At length 1 the SSM rotation-N2 needs one head.", "consistent", "proves heads 1"),
    ("For the SSM rotation-N2, k(1) = 1.", "consistent", "proves k(n) 1"),
    ("For the SSM rotation-N2, k(5) = 1.", "contradicts", "proves k(5) = 2, not 1"),
    # denied or qualified: listed, not compared
    ("A single attention head is not enough for the SSM rotation-N2.", "unchecked", "qualified"),
])
def test_a_count_without_lengths_is_compared_with_every_certified_length(text, status, detail):
    data = certify(ROT, 16).data
    got = prose_claims(Stream([_page([_glyphs(text, 700)])]), set(), [_rotation_system(data)],
                       [(-10, 0, _rotation_system(data))] if text.startswith("It") else ())
    assert [c.status for c in got] == [status], got
    assert detail in got[0].detail


def test_the_system_is_found_by_its_states_its_cited_number_or_the_theorem_before():
    from symssm.audit.claims import _nearest_system, _referenced_system, _states_system

    rot, jordan = ("rotation-N2", "r", {2}, "head-count", None, {"N": 2}), ("jordan", "j", {3}, "head-count", None,
                                                                             {"N": 3})
    assert _states_system("With N = 3 states a single head suffices.", [rot, jordan]) is jordan
    assert _states_system("With three states one head suffices.", [rot, jordan]) is jordan
    assert _states_system("A model with 64 states.", [rot, jordan]) is None
    numbered = {"1": [("Certified result", rot), (None, jordan)], "2": [("Certified result", jordan)]}
    assert _referenced_system("By Result 1, one head is needed.", numbered) is rot
    assert _referenced_system("By Theorem 1, one head is needed.", numbered) is jordan
    assert _referenced_system("Result 2 needs one head.", numbered) is jordan
    assert _referenced_system("Section 2 needs one head.", numbered) is None
    fragments = [(0, 100, rot), (200, 300, jordan)]
    assert _nearest_system("It needs one head.", 350, fragments) is jordan
    assert _nearest_system("It needs one head.", 150, fragments) is rot
    assert _nearest_system("A transformer with 8 heads.", 350, fragments) is None  # no anaphor: not guessed
    assert _nearest_system("It needs one head.", 350 + 10**5, fragments) is None  # too far


def test_a_familys_quantifier_is_compared_with_its_cases():
    fam = ("HiPPO-LegS", "f.json", {0, 3}, "parametric-head-count", None, {"family": True, "parameters": ["h"]})
    page = _page([_glyphs("For the HiPPO-LegS, the head count is 3 for every step h.", 700),
                  _glyphs("For the HiPPO-LegS, the head count is 3 for generic h.", 688),
                  _glyphs("For the HiPPO-LegS, the head count is 5.", 676)])
    got = prose_claims(Stream([page]), set(), [fam])
    assert [c.status for c in got] == ["contradicts", "consistent", "contradicts"]
    assert "cases prove 0 or 3 (not 3 for every parameter value)" in got[0].detail


def test_a_single_head_is_a_count_and_a_single_head_layer_is_not():
    assert [(q, v, qual) for q, v, _, qual in numbers("With N = 4 states a single head suffices.")] == \
        [("heads", "single", False)]
    assert numbers("The single-head softmax attention layer with W = 5.") == []
    assert [qual for *_, qual in numbers("One head cannot represent it, but two heads do.")] == [True, False]


def test_every_symbol_of_the_fragments_is_read():
    # the eps-head count's epsilon, a trained layer's ell and Delta, a family's empty item label
    assert glyph_text(r"exactly $k_\varepsilon = 2$ heads, $\ell \ge 1$, $\Delta t$, $\mu \approx \rho$") == \
        "exactly kε = 2 heads, ℓ ≥ 1, Δ t, μ ≈ ρ"
    assert normalize("∆") == normalize("Δ")
    items = r"\begin{enumerate}\item $k = 3$. \item[] In short: $k = 1$.\end{enumerate}"
    assert display_order(items) == "1k=3Inshortk=1"


def test_a_fraction_bar_groups_its_numerator_over_its_denominator():
    # A = 1/(t^2 + 1) (...): the numerator 1 sits above the "+"; without its bar it would be read with the "+"
    glyph = lambda c, x0, y0, x1, y1: Glyph(c, "CMR10", 10.0, (x0, y0, x1, y1), 0, (), (x0, y0), x1 - x0)  # noqa
    from symssm.audit.claims import _Rule

    gl = [glyph("A", 190.3, 580.6, 197.1, 587.7), glyph("=", 200.7, 581.9, 207.4, 584.2),
          glyph("1", 222.9, 587.3, 226.2, 593.9), glyph("t", 212.1, 573.6, 215.2, 580.0),
          glyph("2", 215.9, 576.6, 219.0, 581.2), glyph("+", 222.7, 572.9, 229.3, 579.5),
          glyph("1", 233.0, 573.7, 236.3, 580.4)]
    assert page_order(gl + [_Rule(" ", (211.7, 582.9, 237.3, 583.3))]) == "A=1t2+1"
