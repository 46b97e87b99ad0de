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
