"""The pixels decide: tampers drawn with any PDF operator fail with a named reason; honest papers differ by 0 pixels.

The tampers (tests/audit/pixel_tampers.py) edit an honest compiled paper with pikepdf; the LaTeX ones are folders
of tests/fixtures/audit.  Each audit of a tampered PDF reads a two-page paper (about 1.5 s); the default suite
keeps three (a clip, a print-only annotation, a path filled white and stroked black), the others are long.
"""

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from paths import FIXTURES, ROOT
from symssm.audit import audit, exit_code
from symssm.audit.pixels import Pixels, final_document, ink, revisions
from symssm.cli import main

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(FIXTURES, "audit"))
from build import build  # noqa: E402
from pixel_tampers import TAMPERS, make  # noqa: E402

DEFAULT = ("clip-top-of-two", "annotation-print-only", "fill-white-stroke-black", "light-green-one",
           "fraction-bar-between-entries")


def _tools():
    if shutil.which("pdflatex") is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install TeX Live (.ci/run does)")
        pytest.skip("pdflatex not installed")


@pytest.fixture(scope="module")
def honest(tmp_path_factory):
    """The honest small paper (tests/fixtures/audit/honest/plain) compiled: (pdf, certificates folder)."""
    _tools()
    main_file = build(os.path.join(FIXTURES, "audit", "honest", "plain"), str(tmp_path_factory.mktemp("px") / "p"))
    folder = os.path.dirname(main_file)
    for _ in range(2):
        res = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"], cwd=folder,
                             capture_output=True, text=True, timeout=120, check=False)
        assert res.returncode == 0, res.stdout[-2000:]
    return os.path.join(folder, "paper.pdf"), os.path.join(folder, "certs")


def _failing(report):
    return [c for c in report.claims if c.status in ("hidden", "not-shown", "contradicts", "changed")]


def test_the_honest_paper_differs_by_no_pixel(honest):
    pdf, certs = honest
    report = audit(pdf, certs)
    assert exit_code(report) == 0, [(c.status, c.reason) for c in report.claims]
    assert sum(c.status == "verified" for c in report.claims) == 3 and report.notes == []


def _tampered(honest, tmp_path, name):
    pdf, certs = honest
    out = str(tmp_path / f"{name}.pdf")
    make(name, pdf, out)
    report = audit(out, certs)
    assert exit_code(report) == 1
    (bad,) = _failing(report)
    return bad, report


@pytest.mark.parametrize("name", [pytest.param(n, marks=() if n in DEFAULT else pytest.mark.long) for n in TAMPERS])
def test_a_tamper_of_any_operator_fails_with_where_the_pixels_differ(honest, tmp_path, name):
    bad, report = _tampered(honest, tmp_path, name)
    if name in ("white-glyph-cover", "glyph-over-minus"):   # a glyph inserted: the reading of the glyphs sees it
        assert bad.status == "not-shown" and "the theorem on the page is not the certified one" in bad.reason
        return
    if name == "fraction-bar-between-entries":     # a rule of the typesetting, drawn by the reference too
        assert bad.status == "hidden" and bad.reason == ('a fraction bar under the "3" that the certified statement '
                                                         'does not draw (1 in its lines, its TeX draws none) (page 1)')
        return
    if name == "paren-over-minus":          # an unread glyph (a delimiter) through the minus: in the reference too
        assert bad.status == "hidden" and bad.reason == 'a glyph "(" drawn over the "−" (page 1)', bad.reason
        return
    assert bad.status == "hidden" and bad.what == "head-count fragment", (bad.status, bad.reason)
    assert "differs from its glyphs:" in bad.reason and "(page 1)" in bad.reason, bad.reason
    when = " when printed" if name in ("annotation-print-only", "optional-content-print") else \
        " with every layer of optional content shown" if name == "optional-content-other-configuration" else ""
    assert f"the page{when} differs from its glyphs" in bad.reason, bad.reason
    target = {"clip-top-of-two": '"2"', "clip-underline-of-geq": '"≥"', "fill-white-stroke-black": '"−"',
              "three-into-eight": '"3"', "equals-into-not-equals": '"="', "incremental-update": '"2"',
              "rule-under-equals": '"="', "rule-over-minus": '"−"', "widget-annotation": '"2"',
              "light-green-one": '"2"', "optional-content-other-configuration": '"−"',
              "orange-bar-behind-minus": '"−"'}.get(name)
    if target:
        assert f"at {target}" in bad.reason, bad.reason
    if name == "incremental-update":
        assert any("holds 2 revisions (incremental updates)" in n for n in report.notes), report.notes


def test_the_final_document_is_what_pdfium_opens(honest, tmp_path):
    pdf, _ = honest
    updated = str(tmp_path / "updated.pdf")
    make("incremental-update", pdf, updated)
    with open(pdf, "rb") as fh:
        assert revisions(fh.read()) == 1
    assert final_document(updated, str(tmp_path / "final.pdf")) == 2
    with open(tmp_path / "final.pdf", "rb") as fh:
        assert revisions(fh.read()) == 1              # one revision, the update applied
    import pikepdf
    with pikepdf.open(str(tmp_path / "final.pdf")) as final:
        assert b"1 g" in final.pages[0].Contents[-1].read_bytes()        # the update's white rectangle


def test_ink_is_contrast_two_with_white():
    grey = np.array([[[v, v, v] for v in (0, 150, 180, 184, 255)]], dtype=np.uint8)
    assert ink(grey).tolist() == [[True, True, True, False, False]]
    colours = np.array([[[255, 0, 0], [0, 0, 255], [0, 255, 0], [255, 255, 0]]], dtype=np.uint8)
    assert ink(colours).tolist() == [[True, True, False, False]]   # green and yellow text is too light


def test_light_paint_on_its_backdrop_is_paint_a_tint_is_not():
    """Orange, bright green and light grey strokes are not ink (contrast under 2) but a reader sees them; a
    tinted area and its edge are the page's backdrop."""
    from symssm.audit.pixels import paint

    img = np.full((30, 60, 3), 255, dtype=np.uint8)
    img[:, 40:] = (204, 204, 204)                     # gray!20 under the text, its edge at column 40
    img[5:25, 10:12] = (255, 166, 0)                  # an orange bar, 2 pixels wide
    img[5:25, 20:22] = (0, 230, 0)                    # a bright green one
    img[5:25, 30:32] = (191, 191, 191)                # a light grey one
    img[5:25, 50:52] = (150, 150, 150)                # a grey bar on the tint
    found = paint(img)
    assert not ink(img[:, :40]).any()                  # none of the light strokes is ink
    assert sorted(set(np.nonzero(found)[1].tolist())) == [10, 11, 20, 21, 30, 31, 50, 51]


def test_a_region_is_its_lines_grown_by_three_points(honest, tmp_path):
    """A black box 2 pt above the page's first line is in its region; one 4 pt above is not."""
    import pikepdf
    from symssm.audit.pages import read_pdf

    pdf, _ = honest
    page = read_pdf(pdf, ink=False)[0]
    top = max(g.origin[1] for g in page.glyphs if g.char.strip())
    line = [g for g in page.glyphs if abs(g.origin[1] - top) < 1 and g.char.strip()]
    x0, y1 = min(g.bbox[0] for g in line), max(g.bbox[3] for g in line)
    found = {}
    for gap in (2.0, 4.0):
        out = str(tmp_path / f"rule{gap}.pdf")
        with pikepdf.open(pdf) as doc:
            doc.pages[0].contents_add(doc.make_stream(b"q 0 g %.3f %.3f 4 1.5 re f Q" % (x0 + 5, y1 + gap)))
            doc.save(out)
        pages = read_pdf(out, ink=False)
        pixels = Pixels(out, pages)
        try:
            mine = [g for g in pages[0].glyphs if abs(g.origin[1] - top) < 1 and g.char.strip()]
            found[gap] = pixels.differences(1, mine)
        finally:
            pixels.close()
    assert found[4.0] == ()
    (reason,) = found[2.0]
    assert reason.startswith("the page differs from its glyphs: ") and "ink the glyphs do not have" in reason


def _audit_fixture(tmp_path, capsys, paper):
    _tools()
    main_file = build(os.path.join(FIXTURES, "audit", paper), str(tmp_path / "paper"))
    capsys.readouterr()
    code = main(["audit", main_file, "--json"])
    return code, json.loads(capsys.readouterr().out)["claims"]


def test_a_number_drawn_as_a_path_in_prose_fails(tmp_path, capsys):
    code, claims = _audit_fixture(tmp_path, capsys, "tamper/prose-pathdigit")
    assert code == 1
    (line,) = [c for c in claims if c["status"] == "hidden"]
    assert line["what"] == "prose line" and "needs only heads" in line["text"], line
    assert line["reason"].startswith("the page differs from its glyphs: ") and "ink the glyphs do not have" in \
        line["reason"], line
    assert sum(c["status"] == "verified" for c in claims) == 2


@pytest.mark.long
def test_a_slash_filled_white_and_stroked_black_fails(tmp_path, capsys):
    code, claims = _audit_fixture(tmp_path, capsys, "tamper/filldraw")
    assert code == 1
    hidden = {c["label"]: c["reason"] for c in claims if c["status"] == "hidden" and c["what"] != "prose line"}
    assert set(hidden) == {"thm:rotation"} and 'at "="' in hidden["thm:rotation"], claims
    # the proof's lines, prose after the statement, show the slashes too
    assert all('at "="' in c["reason"] for c in claims if c["what"] == "prose line")


@pytest.mark.long
def test_an_honest_paper_with_frames_rules_links_and_figures_passes(tmp_path, capsys):
    code, claims = _audit_fixture(tmp_path, capsys, "honest/beside")
    assert code == 0 and sum(c["status"] == "verified" for c in claims) == 3, claims


def _glyph(char, box, order=0, size=10.0):
    from symssm.audit.pages import Glyph
    return Glyph(char, "CMR10", size, box, order, (), (box[0], box[1]), box[2] - box[0])


def test_rules_of_the_typesetting_and_rules_added_to_a_glyph():
    """The reference draws a fraction bar, a table's rule and a QED box's sides; not a bar touching one
    glyph (under "=", over "-") nor a strike-out through glyphs."""
    from symssm.audit.pages import Page
    from symssm.audit.pixels import _is_rule

    one, two = _glyph("1", (10.0, 104.0, 14.0, 110.0)), _glyph("2", (10.0, 94.0, 14.0, 100.0))
    eq, word = _glyph("=", (40.0, 101.0, 47.0, 103.3)), _glyph("w", (60.0, 100.0, 66.0, 104.5))
    page = Page(1, (0.0, 0.0, 200.0, 200.0), (one, two, eq, word), (), ())

    def rule(box):
        return _is_rule(page, ("drawing", box, 9, ()))

    assert rule((8.8, 101.8, 15.2, 102.2))                  # the bar of 1/2
    assert rule((0.0, 111.0, 150.0, 111.4))                 # a table's rule over a whole row
    assert rule((120.0, 100.0, 120.4, 107.0))               # a side of a QED box
    assert not rule((40.0, 99.5, 47.0, 99.9))               # a third bar under "=": a reader sees ≡
    assert not rule((40.0, 98.6, 47.0, 99.0))               # 2.3 pt under it (0.23 em): still ≡ to a reader
    assert rule((40.0, 97.6, 47.0, 98.0))                   # 3.3 pt under it: a rule apart
    assert not rule((55.0, 102.0, 70.0, 102.4))             # through the "w": a strike-out
    assert not rule((40.0, 99.5, 47.0, 101.5))              # 2 pt thick: a box, not a rule
    assert not _is_rule(page, ("image", (8.8, 101.8, 15.2, 102.2), 9, ()))


def test_a_glyph_drawn_over_another_is_named():
    from symssm.audit.pixels import overlays

    minus = _glyph("−", (0.0, 2.3, 6.0, 2.7))
    bar = _glyph("|", (2.7, -0.2, 3.3, 5.4), order=1)
    f, i = _glyph("f", (0.0, 0.0, 4.0, 7.0)), _glyph("i", (3.2, 0.0, 5.8, 6.8), order=1)
    assert overlays([minus, bar]) == ['a glyph "|" drawn over the "−"']
    assert overlays([f, i]) == []                           # set one after the other (the advance is the width)
    r = _glyph("r", (291.06, 387.04, 294.71, 391.43), order=7)           # Times italic "r." kerned by TeX
    r = r.__class__(**{**r.__dict__, "advance": 3.875, "origin": (290.61, 387.04)})
    dot = _glyph(".", (293.65, 386.93, 294.75, 388.03), order=8)
    dot = dot.__class__(**{**dot.__dict__, "origin": (293.38, 387.04)})
    assert overlays([r, dot]) == []
    assert overlays([r, dot.__class__(**{**dot.__dict__, "order": 30})]) == ['a glyph "." drawn over the "r"']
    slash = _glyph("\u0338", (1.0, 0.0, 5.0, 5.0), order=1)
    assert overlays([_glyph("=", (0.0, 1.3, 6.0, 3.6)), slash]) == []   # TeX's \neq, read as one sign


@pytest.mark.long
@pytest.mark.parametrize("preamble", ["", r"\usepackage[switch]{lineno}\linenumbers\usepackage{hyperref}"])
def test_every_line_of_every_fragment_kind_differs_by_no_pixel(tmp_path, preamble):
    """The committed fragments of six kinds (a head count, a gradient bound, a HiPPO system, two symbolic
    families, a step-size family) in two columns: each text line compared as a statement's lines would be."""
    import glob

    from symssm.audit.pages import read_pdf, text_lines
    _tools()
    names = ["companion-N4-p2-m1", "diagonal-N4-p2-m1.gradient", "hippo-legs-N4-p2-m1",
             "companion-symbolic-N3-p3-m1", "generic-symbolic-N2-p2-m2", "hippo-legs-step-N3-p3-m1"]
    root = os.path.join(ROOT, "certificates")
    for name in names:
        for path in glob.glob(os.path.join(root, name + ".*")):
            shutil.copy(path, tmp_path)
    body = "".join("\\input{%s}\n" % name for name in names)
    (tmp_path / "paper.tex").write_text("\\documentclass[twocolumn]{article}\n\\usepackage{amsmath,amssymb,amsthm}"
                                        + preamble + "\n\\begin{document}\n" + body + "\\end{document}\n")
    for _ in range(2):
        res = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "paper.tex"], cwd=tmp_path,
                             capture_output=True, text=True, timeout=300, check=False)
        assert res.returncode == 0, res.stdout[-2000:]
    pdf = str(tmp_path / "paper.pdf")
    pages = read_pdf(pdf, ink=False)
    pixels = Pixels(pdf, pages)
    try:
        lines = [(p.number, line) for p in pages for line in text_lines(p)
                 if not all(g.role in ("margin", "line number") for g in line)]
        assert len(lines) > 600 and len(pages) >= 8
        assert [pixels.statement([(n, g) for g in line]) for n, line in lines] == [()] * len(lines)
    finally:
        pixels.close()
