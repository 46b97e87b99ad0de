"""A paper audited claim by claim (issue #39): a realistic two-column paper built from fresh certificates
(tests/fixtures/paper), its clean audit, a harmless reflow, and every tamper that changes what a reader is
told, each of which must fail the audit with the right status."""

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from symssm.cli import main
from symssm.render.audit import audit, exit_code

from paths import ROOT

sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures", "paper"))
from build import build  # noqa: E402


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    folder = tmp_path_factory.mktemp("paper")
    build(str(folder))
    return folder


@pytest.fixture
def paper(built, tmp_path):
    """A fresh copy of the built paper, to tamper with."""
    shutil.copytree(built, tmp_path / "p")
    return tmp_path / "p"


def _audit(folder, **kw):
    report = audit(str(folder / "paper.tex"), **kw)
    return exit_code(report), report


def _status(report, what):
    return [c.status for c in report.claims if what in (c.file, c.what, c.label)]


def _edit(path, old, new, count=1):
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, count))


# ---------------------------------------------------------------- the clean paper


def test_clean_paper_verifies_and_lists_its_hand_written_numbers(paper, capsys):
    code, report = _audit(paper)
    assert code == 0, [c.text() for c in report.claims if c.status != "verified"]
    whats = [c.what for c in report.claims]
    assert whats.count("head-count fragment") == 2 and "framework table" in whats
    assert "parametric-head-count fragment" in whats and "gradient-highway fragment" in whats
    assert sum(1 for w in whats if w.endswith("macros")) == 4
    assert sum(1 for w in whats if w.startswith("macro \\")) >= 8
    # the paper's order: the macro files (preamble), the introduction's macros, then the results
    files = [c.file for c in report.claims]
    assert files.index("macros/jordan-chain-macros.tex") < files.index("sections/introduction.tex") \
        < files.index("results/jordan-chain.tex") < files.index("framework/framework.tex")
    # the introduction's hand-written head count: unchecked, and compared with the Jordan chain's certificate
    hand = [u for u in report.unchecked if u.file == "sections/introduction.tex"]
    assert [(u.quantity, u.value, u.status) for u in hand][:1] == [("heads", "three", "unchecked")]
    assert hand[0].certificate.endswith("jordan-chain.json") and hand[0].detail.startswith("agrees")
    assert report.unused == [] and report.problems == [] and report.warnings == []
    assert main(["audit", str(paper / "paper.tex")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("audit of ") and out[-1].startswith("audit: all 19 claims verified")


def test_json_lists_each_labelled_claim_and_the_unchecked_number(paper, capsys):
    capsys.readouterr()
    assert main(["audit", str(paper / "paper.tex"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["format"] == "symssm-audit" and doc["version"] == 1 and doc["exit_code"] == 0
    labelled = {c["label"]: c for c in doc["claims"] if c["label"] and not c["label"].startswith("symssm:")}
    assert set(labelled) == {"thm:jordan", "thm:rotation", "thm:family", "thm:decay"}
    for claim in labelled.values():
        assert claim["status"] == "verified" and claim["certificate"].endswith(".json") and claim["file"]
        assert claim["line"] == 1 and len(claim["sha256"]) == 64 and claim["statement"]
    assert doc["unchecked"][0]["status"] == "unchecked" and doc["unchecked"][0]["file"] == "sections/introduction.tex"
    assert "three attention heads" in doc["unchecked"][0]["sentence"]
    assert doc["summary"]["claims"] == len(doc["claims"]) == 19 and doc["summary"]["by_status"] == {"verified": 19}
    for key in ("index", "status", "what", "kind", "label", "number", "page", "file", "line", "certificate", "sha256",
                "statement", "detail", "obligation", "diff", "certificates"):
        assert key in doc["claims"][0], key


def test_a_harmless_reflow_still_verifies(paper):
    for path in list((paper / "results").glob("*.tex")) + list((paper / "macros").glob("*.tex")) + \
            [paper / "framework" / "framework.tex"]:
        lines = []
        for line in path.read_text().split("\n"):
            if line.startswith("%") or len(line) < 50 or line.startswith("\\["):
                lines.append(line)
                continue
            lines += ["  " + x for x in textwrap.wrap(line, 45, break_long_words=False, break_on_hyphens=False)]
        path.write_text("\n".join(lines) + "\n")
    # an editor that fills comment paragraphs too: the marker wrapped, the next comment joined to it
    path = paper / "results" / "rotation.tex"
    lines = path.read_text().split("\n")
    marker = lines[0]
    head, _, tail = marker.partition("; file ")
    lines[0:2] = [head + ";", "% file " + tail + " " + lines[1]]
    path.write_text("\n".join(lines))
    code, report = _audit(paper)
    assert code == 0, [c.text() for c in report.claims if c.status != "verified"]


def test_the_paper_compiles_and_the_audit_reads_its_numbers_and_pages(paper):
    from latex_tools import require_tools

    require_tools()
    for _ in range(2):
        result = subprocess.run(["pdflatex", "-halt-on-error", "-interaction=nonstopmode", "paper.tex"], cwd=paper,
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stdout[-2000:]
    log = (paper / "paper.log").read_text(errors="replace")
    assert not [b for b in re.findall(r"Overfull \\hbox \(([0-9.]+)pt", log) if float(b) > 1.0]
    code, report = _audit(paper)
    assert code == 0 and report.aux == os.path.relpath(paper / "paper.aux")
    numbers = {c.label: (c.number, c.page) for c in report.claims if c.label}
    assert numbers["thm:jordan"] == ("Theorem 2", "1")  # the paper's own theorem is Theorem 1
    assert numbers["thm:rotation"][0] == "Certified result 1" and numbers["thm:family"][0] == "Certified result 2"
    assert numbers["thm:decay"][0] == "Certified result 3" and numbers["thm:decay"][1].isdigit()
    text = subprocess.run(["pdftotext", "paper.pdf", "-"], cwd=paper, capture_output=True, text=True).stdout
    assert "needs exactly 3 heads" in " ".join(text.split())


# ---------------------------------------------------------------- tampers


def test_an_edited_fragment_fails_with_its_token_difference(paper):
    _edit(paper / "results" / "jordan-chain.tex", "exactly $k = 3$", "exactly $k = 2$")
    code, report = _audit(paper)
    assert code == 1
    claim = next(c for c in report.claims if c.label == "thm:jordan")
    assert claim.status == "edited" and claim.diff[0]["expected"].count("[3]") == 1
    assert "[2]" in claim.diff[0]["found"] and claim.diff[0]["line"] > 1


def test_a_redefined_macro_fails_the_claims_that_use_it(paper):
    _edit(paper / "paper.tex", "\\title{", "\\renewcommand{\\SymssmJordanChainHeadCount}{2}\n\\title{")
    code, report = _audit(paper)
    assert code == 1
    bad = [c for c in report.claims if c.status != "verified"]
    assert [(c.what, c.status) for c in bad] == [("macro \\SymssmJordanChainHeadCount", "redefined")]
    assert "paper.tex:" in bad[0].detail
    # \def and \let too, and a redefinition made in a package file beside the paper
    for how in ("\\def\\SymssmJordanChainHeadCount{2}", "\\let\\SymssmJordanChainHeadCount\\relax",
                "\\expandafter\\def\\csname SymssmJordanChainHeadCount\\endcsname{2}"):
        (paper / "paper.tex").write_text((paper / "paper.tex").read_text().replace(
            "\\renewcommand{\\SymssmJordanChainHeadCount}{2}", how))
        code, report = _audit(paper)
        assert code == 1, how
        _edit(paper / "paper.tex", how, "\\renewcommand{\\SymssmJordanChainHeadCount}{2}")


def test_a_redefined_command_in_a_macros_body_fails_the_macros_claims(paper):
    """\\renewcommand{\\ensuremath}[1]{2} makes every \\Symssm... number print 2: those uses cannot pass."""
    _edit(paper / "paper.tex", "\\title{", "\\renewcommand{\\ensuremath}[1]{2}\n\\title{")
    code, report = _audit(paper)
    assert code == 1
    bad = [c for c in report.claims if c.what.startswith("macro \\") and c.status != "verified"]
    assert bad and all(c.status == "redefined" and "\\ensuremath, which the macro uses" in c.detail for c in bad)


@pytest.mark.parametrize("wrap", ["\\resizebox{\\columnwidth}{!}{%s}", "\\resizebox{!}{0.8\\textheight}{%s}",
                                  "\\scalebox{0.9}{%s}", "\\fbox{%s}", "\\setbox0\\hbox{x}\\mbox{%s}"])
def test_a_fragment_in_a_legible_box_is_typeset(paper, wrap):
    _edit(paper / "sections" / "results.tex", "\\input{results/rotation}", wrap % "\\input{results/rotation}")
    code, report = _audit(paper)
    claim = next(c for c in report.claims if c.file == "results/rotation.tex")
    assert claim.status == "verified", claim.detail


def test_a_redefined_command_of_a_fragment_fails_that_fragment(paper):
    (paper / "local.sty").write_text("\\renewcommand{\\symssmspan}{\\operatorname{rank}}\n")
    _edit(paper / "paper.tex", "\\newtheorem{theorem}", "\\usepackage{local}\n\\newtheorem{theorem}")
    code, report = _audit(paper)
    assert code == 1
    redefined = {c.label for c in report.claims if c.status == "redefined"}
    assert {"thm:jordan", "thm:rotation"} <= redefined and "local.sty" in report.claims[-2].detail + " ".join(
        c.detail for c in report.claims)
    (paper / "local.sty").write_text("\\renewenvironment{proof}{\\iffalse}{\\fi}\n")
    code, report = _audit(paper)
    assert code == 1 and {"thm:jordan", "thm:decay"} <= {c.label for c in report.claims if c.status == "redefined"}


def test_a_fragment_in_iffalse_with_a_hand_written_replacement_fails(paper):
    _edit(paper / "sections" / "results.tex", "\\input{results/jordan-chain}",
          "\\iffalse\\input{results/jordan-chain}\\fi\n"
          "\\begin{theorem}The Jordan chain needs exactly 2 attention heads.\\end{theorem}")
    code, report = _audit(paper)
    assert code == 1
    claim = next(c for c in report.claims if c.file == "results/jordan-chain.tex")
    assert claim.status == "not-typeset" and claim.detail.startswith("inside \\iffalse (sections/results.tex:")
    hand = [u for u in report.unchecked if u.file == "sections/results.tex"]
    assert [(u.value, u.status) for u in hand] == [("2", "contradicts")]
    assert hand[0].certificate.endswith("jordan-chain.json")


@pytest.mark.parametrize("wrap,why", [
    ("\\begin{comment}\n%s\n\\end{comment}", "inside the comment environment"),
    ("\\ifdim\\columnwidth>1pt %s\\fi", "a condition the audit does not evaluate"),
    ("\\newif\\ifshow\\showfalse\\ifshow %s\\fi", "inside \\ifshow"),
    ("\\hide{%s}", "inside the argument of \\hide"),
    ("\\end{document}\n%s", "after \\end{document}"),
    ("\\endinput\n%s", "after \\endinput"),
    ("\\begin{verbatim}\n%s\n\\end{verbatim}", "printed as code"),
    # stored in a box register or a box environment, never shown (a new user's tampers, issue 39's review)
    ("\\setbox0\\vbox{%s}", "inside the argument of \\setbox"),
    ("\\global\\setbox0=\\hbox to 1pt{%s}", "inside the argument of \\setbox"),
    ("\\newsavebox{\\keep}\\begin{lrbox}{\\keep}%s\\end{lrbox}", "inside the environment lrbox"),
    ("\\scalebox{0.01}{%s}", "to a size the audit cannot read as legible"),
    ("\\resizebox{1pt}{!}{%s}", "to a size the audit cannot read as legible"),
    ("\\resizebox{!}{0.1\\textheight}{%s}", "to a size the audit cannot read as legible"),
])
def test_a_fragment_the_page_does_not_show_is_not_typeset(paper, wrap, why):
    _edit(paper / "sections" / "results.tex", "\\input{results/rotation}", wrap % "\\input{results/rotation}")
    code, report = _audit(paper)
    assert code == 1
    claim = next(c for c in report.claims if c.file == "results/rotation.tex")
    assert claim.status == "not-typeset" and why in claim.detail, claim.detail


def test_a_shown_switch_and_includeonly_are_followed(paper):
    _edit(paper / "sections" / "results.tex", "\\input{results/rotation}",
          "\\newif\\ifshow\\showtrue\\ifshow\\input{results/rotation}\\else hidden\\fi")
    assert _audit(paper)[0] == 0
    _edit(paper / "paper.tex", "\\input{sections/results}", "\\include{sections/results}")
    _edit(paper / "paper.tex", "\\title{", "\\includeonly{sections/other}\n\\title{")
    code, report = _audit(paper)
    assert code == 1 and set(_status(report, "results/rotation.tex")) == {"not-typeset"}


def test_macros_that_hide_text_or_rebuild_the_reading_stop_the_audit(paper):
    for trick in ("\\newcommand{\\skipit}{\\iffalse}", "\\let\\myinput\\input", "\\catcode`\\@=11",
                  "\\renewcommand{\\input}[1]{}", "^^5crenewcommand{\\SymssmJordanChainHeadCount}{2}"):
        shutil.copy(paper / "paper.tex", paper / "orig.tex")
        _edit(paper / "paper.tex", "\\title{", trick + "\n\\title{")
        code, report = _audit(paper)
        assert code == 1, trick
        assert report.problems or any(c.status != "verified" for c in report.claims), trick
        if not any(c.status != "verified" for c in report.claims):
            from symssm.render.report import terminal_lines
            assert terminal_lines(report)[-1].startswith("audit FAILED, the paper uses a construct the audit "
                                                         "cannot read (NOT AUDITED above); all "), trick
        shutil.copy(paper / "orig.tex", paper / "paper.tex")


@pytest.mark.parametrize("where, old, new, expect", [
    # an adversarial reviewer's edits (issue 39's review): each compiled to a PDF that showed a false number or
    # hid a certified theorem, and each passed the audit
    ("paper.tex", "\\title{", "\\mathcode`\\2=\"7033\n\\title{", "\\mathcode changes how characters"),
    ("sections/introduction.tex", "The Jordan chain", "{\\everymath{\\mathcode`\\2=\"7033}The Jordan chain",
     "\\everymath changes how characters"),
    ("sections/introduction.tex", "The Jordan chain", "\\csdef{SymssmRotationHeadCount}{\\ensuremath{3}}The Jordan "
     "chain", "redefines it"),
    ("sections/introduction.tex", "The Jordan chain",
     "\\edef\\x{\\noexpand\\def\\noexpand\\SymssmRotationHeadCount{3}}\\x The Jordan chain", "redefines it"),
    ("sections/introduction.tex", "The Jordan chain", "\\ExplSyntaxOn\\cs_set:Npn\\SymssmRotationHeadCount{3}"
     "\\ExplSyntaxOff The Jordan chain", "\\ExplSyntaxOn changes commands"),
    ("sections/results.tex", "\\input{results/rotation}", "{\\color{white}\\input{results/rotation}}",
     "\\color changes where"),
    ("paper.tex", "\\title{", "\\AtBeginEnvironment{symssmtheorem}{\\color{white}}\n\\title{",
     "\\AtBeginEnvironment changes commands"),
    ("paper.tex", "\\title{", "\\newtheorem{symssmtheorem}{Certified result}\n\\title{",
     "redefines environment symssmtheorem"),
    ("sections/results.tex", "\\input{results/rotation}",
     "{\\fontsize{0.01pt}{0.01pt}\\selectfont\\input{results/rotation}}", "\\fontsize changes where"),
    ("sections/results.tex", "\\input{results/rotation}", "\\moveleft100cm\\vbox{\\input{results/rotation}}",
     "\\moveleft changes where"),
    ("sections/results.tex", "\\input{results/rotation}",
     "\\hbox to 0pt{\\hskip-100cm\\vbox{\\input{results/rotation}}\\hss}", "\\hskip moves by 1 cm or more backwards"),
    ("paper.tex", "\\title{", "\\DeclareUnicodeCharacter{0663}{3}\n\\title{", "\\DeclareUnicodeCharacter"),
    ("sections/introduction.tex", "needs two heads", "needs \\char`\\3{} heads", "\\char changes"),
    ("sections/results.tex", "\\input{results/rotation}", "\\let\\hue\\color{\\hue{white}\\input{results/rotation}}",
     "\\hue uses \\color"),
    ("sections/results.tex", "\\input{results/rotation}", "\\newcommand{\\a}{\\color{white}}\\newcommand{\\b}{\\a}"
     "{\\b\\input{results/rotation}}", "\\b uses \\color"),
    # a second round: a white box over the digit, colour stacks, page origins, skips far forwards or unmeasured,
    # fonts scaled to specks, shipout pictures, overlays, black redefined, digits joined through groups
    ("sections/introduction.tex", "needs \\SymssmRotationHeadCount{}", "needs \\SymssmRotationHeadCount{}"
     "{\\fboxsep=0pt\\llap{\\colorbox{white}{\\strut 3}}}", "\\llap changes"),
    ("sections/results.tex", "\\input{results/rotation}", "\\pdfcolorstack0 push{1 1 1 rg 1 1 1 RG}"
     "\\input{results/rotation}\\pdfcolorstack0 pop", "\\pdfcolorstack changes"),
    ("sections/results.tex", "\\input{results/rotation}", "\\colorbox{black}{\\parbox{\\columnwidth}"
     "{\\input{results/rotation}}}", "\\colorbox changes"),
    ("sections/results.tex", "\\input{results/rotation}", "\\clearpage\\pdfhorigin=60cm \\input{results/rotation}"
     "\\clearpage\\pdfhorigin=1in", "\\pdfhorigin changes"),
    ("sections/results.tex", "\\input{results/rotation}", "\\noindent\\hskip\\dimexpr-30cm\\relax\\parbox"
     "{\\columnwidth}{\\input{results/rotation}}", "an amount the audit cannot measure"),
    ("sections/results.tex", "\\input{results/rotation}", "\\noindent\\mbox{\\hspace{40cm}\\parbox{\\columnwidth}"
     "{\\input{results/rotation}}}", "10 cm or more forwards"),
    ("sections/results.tex", "\\input{results/rotation}", "\\vspace{-9mm}\\vspace{-9mm}\\vspace{-9mm}\\vspace{-9mm}"
     "\\input{results/rotation}", "1 cm or more backwards"),
    ("paper.tex", "\\title{", "\\DeclareFontShape{OT1}{tinyr}{m}{n}{<-> s*[0.02] cmr10}{}\n\\title{",
     "\\DeclareFontShape changes"),
    ("sections/results.tex", "\\input{results/rotation}", "\\AddToShipoutPictureFG*{\\put(0,0){\\rule{\\paperwidth}"
     "{\\paperheight}}}\\input{results/rotation}", "\\AddToShipoutPictureFG changes"),
    ("sections/introduction.tex", "needs \\SymssmRotationHeadCount{}", "needs \\SymssmRotationHeadCount{}"
     "\\tikz[overlay]\\node[fill=white]{3};", "\\tikz with an overlay"),
    ("paper.tex", "\\title{", "\\definecolor{black}{gray}{1}\n\\title{", "redefines the colour black"),
    ("sections/introduction.tex", "needs \\SymssmRotationHeadCount{}", "needs 1{}\\SymssmRotationHeadCount{}",
     "a digit is joined"),
    ("sections/introduction.tex", "needs \\SymssmRotationHeadCount{}", "needs \\SymssmRotationHeadCount{}{}0",
     "a digit is joined"),
    # a third round and a new user: names reached through \\csname, LaTeX internals, the run ended early,
    # margins by assignment, a package file TeX loads by itself, a certified macro in white
    ("paper.tex", "\\title{", "\\csname mathcode\\endcsname`3=\"7034\n\\title{", "names \\mathcode indirectly"),
    ("paper.tex", "\\title{", "\\makeatletter\\@nameuse{mathcode}`3=\"7034 \\makeatother\n\\title{",
     "names \\mathcode indirectly"),
    ("paper.tex", "\\title{", "\\makeatletter\\def\\@ensuredmath#1{$\\relax 4$}\\makeatother\n\\title{",
     "redefines \\@ensuredmath"),
    ("sections/results.tex", "\\input{results/rotation}", "\\enddocument\n\\input{results/rotation}",
     "\\enddocument ends the run"),
    ("sections/results.tex", "\\input{results/rotation}", "\\stop\n\\input{results/rotation}", "\\stop ends the run"),
    ("paper.tex", "\\title{", "\\renewcommand{\\clearpage}{}\n\\title{", "redefines \\clearpage"),
    ("sections/introduction.tex", "The Jordan chain", "\\leftskip=-100cm \\rightskip=100cm The Jordan chain",
     "\\leftskip is set to a value"),
    ("sections/introduction.tex", "The Jordan chain", "\\setlength{\\leftskip}{-100cm}The Jordan chain",
     "sets \\leftskip to a value"),
    ("sections/introduction.tex", "needs \\SymssmRotationHeadCount{}",
     "needs \\textcolor{white}{\\SymssmRotationHeadCount{}}\\textcolor{black}{3}",
     "is inside the argument of \\textcolor (in a colour the audit cannot read as dark enough on white"),
    ("sections/introduction.tex", "needs \\SymssmRotationHeadCount{}", "needs \\phantom{\\SymssmRotationHeadCount{}}",
     "is inside the argument of \\phantom"),
    ("sections/results.tex", "\\input{results/rotation}", "\\definecolor{bg}{gray}{1}\\textcolor{bg}"
     "{\\input{results/rotation}}", "in a colour the audit cannot read as dark enough"),
    ("sections/results.tex", "\\input{results/rotation}", "\\newcommand{\\rev}[1]{\\textcolor{white}{#1}}"
     "\\rev{\\input{results/rotation}}", "\\rev uses \\textcolor"),
    # a fourth round: colours the paper defines (TeX's order and groups decide what they are), values xcolor
    # clamps, wrappers around a tiny box, a name through \\csname, digits through $ or \\relax or a macro,
    # a package that inputs a file, \\@input, geometry's offsets
    ("sections/introduction.tex", "needs \\SymssmRotationHeadCount{}", "needs 3 {\\color{dk}\\SymssmRotationHeadCount{}}",
     "\\color changes"),
    ("sections/introduction.tex", "needs \\SymssmRotationHeadCount{}",
     "needs 3 \\textcolor[rgb]{1,1,-10}{\\SymssmRotationHeadCount{}}", "cannot read as dark enough"),
    ("paper.tex", "\\title{", "\\definecolor{blue}{rgb}{1,1,1}\n\\title{", "redefines the colour blue"),
    ("sections/introduction.tex", "needs \\SymssmRotationHeadCount{}", "\\newcommand{\\x}[1]{\\scalebox{0.01}{#1}}"
     "needs 3 \\x{\\SymssmRotationHeadCount{}}", "inside the argument of \\x"),
    ("sections/introduction.tex", "needs \\SymssmRotationHeadCount{}",
     "needs 3 \\csname textcolor\\endcsname{white}{\\SymssmRotationHeadCount{}}", "names \\textcolor indirectly"),
    ("sections/introduction.tex", "needs \\SymssmRotationHeadCount{}", "needs 1$\\SymssmRotationHeadCount$",
     "a digit is joined"),
    ("sections/introduction.tex", "needs \\SymssmRotationHeadCount{}", "needs 1\\relax\\SymssmRotationHeadCount{}",
     "a digit is joined"),
    ("sections/introduction.tex", "needs \\SymssmRotationHeadCount{}",
     "\\newcommand{\\one}{1}needs \\one\\SymssmRotationHeadCount{}", "a digit is joined"),
    ("paper.tex", "\\title{", "\\usepackage[hoffset=30cm]{geometry}\n\\title{", "geometry package's options"),
    # overprinting: a negative kern next to a macro, a box of zero width, \\ooalign
    ("sections/introduction.tex", "needs \\SymssmRotationHeadCount{}", "needs \\SymssmRotationHeadCount{}\\kern-5pt 3",
     "a negative space next to \\SymssmRotationHeadCount"),
    ("sections/introduction.tex", "needs \\SymssmRotationHeadCount{}",
     "needs \\makebox[0pt][l]{3}\\SymssmRotationHeadCount{}", "\\makebox of zero width"),
    ("sections/introduction.tex", "needs \\SymssmRotationHeadCount{}",
     "needs \\ooalign{3\\cr\\SymssmRotationHeadCount{}}", "\\ooalign changes"),
    # a sixth round: images drawn outside their box, a lifted box, box sizes by assignment, a space before a kern
    ("sections/results.tex", "\\input{results/rotation}", "\\noindent\\includegraphics[trim=0 351.24bp 0 0]{patch}"
     "\\par\\input{results/rotation}", "\\includegraphics with trim"),
    ("sections/results.tex", "\\input{results/rotation}", "\\raisebox{-351bp}[0pt][0pt]{x}\\input{results/rotation}",
     "\\raisebox by 1 cm or more"),
    ("sections/introduction.tex", "needs \\SymssmRotationHeadCount{}", "needs \\setbox0\\hbox{3}\\wd0=0pt \\box0"
     "\\SymssmRotationHeadCount{}", "\\wd changes"),
    ("sections/introduction.tex", "needs \\SymssmRotationHeadCount{}",
     "needs \\SymssmRotationHeadCount{} \\hspace{-10.6pt}x", "a negative space next to"),
    # a fifth round: fonts
    ("paper.tex", "\\title{", "\\DeclareTextFontCommand{\\texttt}{\\nullfont}\n\\title{", "redefines"),
    ("paper.tex", "\\title{", "\\DeclareSymbolFont{operators}{U}{msa}{m}{n}\n\\title{", "\\DeclareSymbolFont"),
    ("paper.tex", "\\title{", "\\linespread{0}\n\\title{", "\\linespread below 0.8"),
    ("paper.tex", "\\title{", "\\renewcommand{\\baselinestretch}{0.1}\n\\title{", "\\baselinestretch below 0.8"),
    ("sections/introduction.tex", "framework side by side.", "framework side by side. The rotation needs "
     "1\\SymssmRotationHeadCount{} heads.", "a digit is joined to \\SymssmRotationHeadCount"),
])
def test_what_changes_how_the_page_prints_fails_the_audit(paper, where, old, new, expect):
    _edit(paper / where, old, new)
    code, report = _audit(paper)
    assert code == 1
    messages = [m for _, _, m in report.problems] + [c.detail or "" for c in report.claims]
    assert any(expect in m for m in messages), messages


def test_an_environment_of_a_local_package_that_recolours_stops_the_audit(paper):
    (paper / "ghost.sty").write_text("\\newenvironment{ghost}{\\color{white}}{}\n")
    _edit(paper / "paper.tex", "\\title{", "\\usepackage{ghost}\n\\title{")
    _edit(paper / "sections" / "results.tex", "\\input{results/rotation}",
          "\\begin{ghost}\\input{results/rotation}\\end{ghost}")
    code, report = _audit(paper)
    assert code == 1 and any("the environment ghost uses \\color" in m for _, _, m in report.problems)


def test_a_class_option_file_beside_the_paper_stops_the_audit(paper):
    """article.cls inputs size10.clo, which TeX finds beside the paper first: the audit never read it."""
    (paper / "size10.clo").write_text("\\AtBeginDocument{\\global\\mathcode`3=\"7034 }\n\\endinput\n")
    code, report = _audit(paper)
    assert code == 1 and any(f == "size10.clo" and "not read by the audit" in m for f, _, m in report.problems)


def test_a_local_package_that_inputs_a_file_stops_the_audit(paper):
    (paper / "mine.sty").write_text("\\input{evil}\n")
    (paper / "evil.tex").write_text("\\AtBeginDocument{\\renewcommand{\\SymssmRotationHeadCount}{\\ensuremath{3}}}\n")
    _edit(paper / "paper.tex", "\\title{", "\\usepackage{mine}\n\\title{")
    code, report = _audit(paper)
    assert code == 1 and any(f == "mine.sty" and "brings in a file" in m for f, _, m in report.problems)


def test_the_aux_file_is_read_where_latex_inputs_it(paper):
    """LaTeX reads the last run's .aux at \\begin{document}: a definition put there redefines the macro."""
    (paper / "paper.aux").write_text("\\relax\n\\gdef\\SymssmRotationHeadCount{\\ensuremath{3}}\n")
    code, report = _audit(paper)
    assert code == 1
    assert any(c.status == "redefined" and "paper.aux" in (c.detail or "") for c in report.claims)
    (paper / "paper.aux").write_text("\\relax\n\\newlabel{thm:rotation}{{1}{2}}\n")
    _edit(paper / "paper.tex", "\\title{", "\\immediate\\write\\mainaux{\\gdef\\noexpand\\x{3}}\n\\title{")
    code, report = _audit(paper)
    assert code == 1 and any("writes a file that TeX may read back" in m for _, _, m in report.problems)


def test_a_font_file_beside_the_paper_stops_the_audit(paper):
    """pdfTeX finds cmr10.vf beside the paper before its own: a virtual font can draw every 2 as a 3."""
    (paper / "cmr10.vf").write_bytes(b"\xf7\xca")
    code, report = _audit(paper)
    assert code == 1 and any(f == "cmr10.vf" and "virtual font" in m for f, _, m in report.problems)


def test_the_bibliography_file_is_read_where_it_is_input(paper):
    (paper / "paper.bbl").write_text("\\begin{thebibliography}{1}\\mathcode`3=\"7034\n\\end{thebibliography}\n")
    _edit(paper / "paper.tex", "\\end{document}", "\\bibliography{refs}\n\\end{document}")
    code, report = _audit(paper)
    assert code == 1 and any(f == "paper.bbl" and "\\mathcode" in m for f, _, m in report.problems)


def test_revision_colours_and_wrappers_are_read(paper):
    """Dark base colours, their mixes and a \\rev wrapper of text styles are ordinary LaTeX."""
    _edit(paper / "sections" / "introduction.tex", "needs \\SymssmRotationHeadCount{}",
          "needs \\textcolor{blue!50}{\\SymssmRotationHeadCount{}} {\\color{red} (new)}")
    _edit(paper / "sections" / "results.tex", "\\input{results/rotation}",
          "\\newcommand{\\rev}[1]{\\textcolor{blue!70!black}{#1}}"
          "\\rev{\\input{results/rotation}}\\rev{\\emph{The rotation needs \\SymssmRotationHeadCount{} heads.}}")
    code, report = _audit(paper)
    assert code == 0, report.problems + [c.text() for c in report.claims if c.status != "verified"]


def test_a_conference_style_beside_the_paper_is_read_without_alarm(paper):
    """What conference styles do (NeurIPS 2024's, 2026-11-26, passes the audit as it is): sizes redefined with
    \\@setfontsize, lengths in \\z@ and \\p@, a footnote rule with a small negative kern, geometry at
    \\begin{document}, sections through \\@startsection."""
    (paper / "confstyle.sty").write_text(
        "\\renewcommand{\\rmdefault}{ptm}\n"
        "\\usepackage[verbose=true,letterpaper]{geometry}\n"
        "\\AtBeginDocument{\\newgeometry{textheight=9in,textwidth=5.5in,top=0.9in,left=0.9in,headsep=25pt}}\n"
        "\\renewcommand{\\normalsize}{\\@setfontsize\\normalsize\\@xpt\\@xipt\n"
        "  \\abovedisplayskip 7\\p@ \\@plus 2\\p@ \\@minus 5\\p@}\n"
        "\\renewcommand{\\footnotesize}{\\@setfontsize\\footnotesize\\@ixpt\\@xpt}\n"
        "\\renewcommand{\\section}{\\@startsection{section}{1}{\\z@}{-2.0ex \\@plus -0.5ex}{1.5ex}{\\large\\bf}}\n"
        "\\renewcommand{\\footnoterule}{\\kern-3\\p@ \\hrule width 12pc \\kern 2.6\\p@}\n"
        "\\setlength{\\parindent}{\\z@}\n\\setlength{\\parskip}{5.5\\p@}\n"
        "\\newcommand{\\answerYes}[1][]{\\textcolor{blue}{[Yes] #1}}\n")
    _edit(paper / "paper.tex", "\\title{", "\\usepackage{confstyle}\n\\title{")
    code, report = _audit(paper)
    assert code == 0, report.problems + [c.text() for c in report.claims if c.status != "verified"]


def test_ordinary_spacing_and_styles_are_read(paper):
    """The checks above are not a ban on ordinary LaTeX: small negative spaces, theorem styles of fonts."""
    _edit(paper / "sections" / "results.tex", "\\input{results/rotation}",
          "\\vspace{-2mm}\\vspace{-\\baselineskip}\\input{results/rotation}\\hspace{-1em}\\vspace{2cm}"
          "\\hspace*{\\fill}\\definecolor{myblue}{RGB}{0,0,200}\\vspace{1em}\\hbox to \\hsize{\\hfil}"
          "\\makebox[\\columnwidth][l]{\\SymssmRotationHeadCount{} heads}\\raisebox{-0.5ex}{x}"
          "\\includegraphics[width=\\columnwidth,trim=1 2 3 4,clip]{f}")
    _edit(paper / "paper.tex", "\\newtheorem{theorem}", "\\newtheoremstyle{mine}{3pt}{3pt}{\\itshape}{}{\\bfseries}"
          "{.}{.5em}{}\\theoremstyle{mine}\n\\newtheorem{theorem}")
    code, report = _audit(paper)
    assert code == 0, report.problems + [c.text() for c in report.claims if c.status != "verified"]


def test_a_stripped_and_edited_fragment_fails(paper):
    path = paper / "results" / "jordan-chain.tex"
    text = "\n".join(line for line in path.read_text().split("\n")
                     if not line.startswith("%") and "providecommand" not in line)
    text = text.replace("\\symssmspan", "\\operatorname{span}").replace("exactly $k = 3$", "exactly $k = 2$")
    path.write_text(text)
    code, report = _audit(paper)
    assert code == 1
    assert any(c.status == "unmarked" and c.file == "results/jordan-chain.tex" for c in report.claims)
    assert sum(1 for c in report.claims if c.what.endswith("fragment")) == 3  # one result fewer, and said so


def test_an_edited_framework_table_fails(paper):
    _edit(paper / "framework" / "framework.tex", "time-invariant SSM, $N = 4$ & $4$ & $4$",
          "time-invariant SSM, $N = 4$ & $3$ & $3$")
    code, report = _audit(paper)
    assert code == 1
    claim = next(c for c in report.claims if c.what == "framework table")
    assert claim.status == "edited" and "[4]" in claim.diff[0]["expected"] and "[3]" in claim.diff[0]["found"]


def test_a_changed_certificate_is_reported_as_changed_not_missing(paper):
    assert main(["certify", str(paper / "specs" / "jordan-chain.json"), "-n", "128",
                 "-o", str(paper / "certs" / "jordan-chain.json")]) == 0
    code, report = _audit(paper)
    assert code == 1
    statuses = set(_status(report, "results/jordan-chain.tex")) | set(_status(report, "macros/jordan-chain-macros.tex"))
    assert statuses == {"changed-certificate"}
    claim = next(c for c in report.claims if c.label == "thm:jordan")
    assert "another SHA-256" in claim.detail and "it verifies" in claim.detail
    # a changed certificate that no longer verifies: the checker's obligation
    data = json.loads((paper / "certs" / "jordan-chain.json").read_text())
    data["head_count"] = 2
    (paper / "certs" / "jordan-chain.json").write_text(json.dumps(data, indent=2))
    code, report = _audit(paper)
    claim = next(c for c in report.claims if c.label == "thm:jordan")
    assert claim.status == "changed-certificate" and claim.obligation and "rejects" in claim.detail


def test_prose_that_contradicts_a_certificate_fails(paper):
    _edit(paper / "sections" / "introduction.tex", "framework side by side.",
          "framework side by side. The Jordan chain needs exactly 2 heads, and $k(2) = 2$ for it.")
    code, report = _audit(paper)
    assert code == 1
    hand = {(u.quantity, u.value): u for u in report.unchecked}
    assert hand[("heads", "2")].status == "contradicts" and "k(n) = 3" in hand[("heads", "2")].detail
    assert hand[("k(n)", "2")].status == "unchecked"  # k(2) = 2 is what the profile says


def test_a_generic_family_count_said_of_every_parameter_is_a_warning(paper, capsys):
    _edit(paper / "sections" / "introduction.tex", "framework side by side.",
          "framework side by side. For every $t$ the rotation family needs \\SymssmRotationFamilyHeadCount{} heads.")
    code, report = _audit(paper)
    assert code == 0 and len(report.warnings) == 1 and "k = 1 where t = 0" in report.warnings[0][2]
    capsys.readouterr()
    assert main(["audit", str(paper / "paper.tex"), "--strict"]) == 1
    out = capsys.readouterr().out
    assert "WARNING: sections/introduction.tex" in out
    # the last line says the audit failed and why, not only that every claim verified
    assert out.splitlines()[-1].startswith("audit FAILED, with --strict, unchecked numbers, warnings and unused "
                                           "certificates fail it; all 20 claims verified"), out.splitlines()[-1]


def test_an_unused_certificate_is_listed(paper):
    shutil.copy(paper / "certs" / "rotation.json", paper / "certs" / "spare.json")
    data = json.loads((paper / "certs" / "spare.json").read_text())
    data["n"] = 65  # a different (unverifiable) certificate that no claim uses
    (paper / "certs" / "spare.json").write_text(json.dumps(data))
    code, report = _audit(paper)
    assert code == 0 and report.unused == [os.path.relpath(paper / "certs" / "spare.json")]
    assert _audit(paper, strict=True)[0] == 1


# ---------------------------------------------------------------- the report page


def test_the_html_page_names_each_claim(paper, capsys):
    _edit(paper / "results" / "jordan-chain.tex", "exactly $k = 3$", "exactly $k = 2$")
    page = paper / "report.html"
    assert main(["audit", str(paper / "paper.tex"), "--html", str(page)]) == 1
    html = page.read_text()
    assert "<script" not in html and "http" not in html.replace("http-equiv", "")
    for label in ("thm:jordan", "thm:rotation", "thm:family", "thm:decay"):
        assert f"<code>{label}</code>" in html
    assert html.count('<tr class="claim') == 19 and "status-edited" in html and 'href="certs/jordan-chain.json"' in html
    assert "diff-expected" in html and "[3]" in html


def test_the_html_page_in_a_real_browser(paper, tmp_path):
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        if os.environ.get("CI"):
            pytest.fail("CI must install chromium (.ci/run does)")
        pytest.skip("chromium is not installed")
    _edit(paper / "results" / "jordan-chain.tex", "exactly $k = 3$", "exactly $k = 2$")
    page = paper / "report.html"
    assert main(["audit", str(paper / "paper.tex"), "--html", str(page)]) == 1
    flags = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
             "--disable-background-networking", "--disable-component-update", "--disable-sync",
             f"--user-data-dir={tmp_path / 'profile'}"]
    dom = subprocess.run(flags + ["--dump-dom", page.as_uri()], capture_output=True, text=True, timeout=120).stdout
    rows = re.findall(r'<tr class="claim status-([a-z-]+)">(.*?)</tr>', dom, re.S)
    assert len(rows) == 19 and [s for s, _ in rows].count("edited") == 1
    assert any("thm:jordan" in body and "EDITED" in body for _, body in rows)
    shot = tmp_path / "report.png"
    subprocess.run(flags + [f"--screenshot={shot}", "--window-size=1200,900", page.as_uri()], capture_output=True,
                   timeout=120)
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20000


def test_coq_kernel_checks_a_verified_head_count(tmp_path, capsys):
    if shutil.which("coqc") is None or subprocess.run(["coqc", "-where"], capture_output=True).returncode != 0:
        if os.environ.get("CI"):
            pytest.fail("CI must install coq (.ci/run does)")
        pytest.skip("coqc is not installed")
    assert main(["certify", "--family", "rotation", "--N", "2", "-n", "8", "-o", str(tmp_path / "rot.json")]) == 0
    assert main(["latex", str(tmp_path / "rot.json"), "--label", "thm:rot", "-o", str(tmp_path / "rot.tex")]) == 0
    (tmp_path / "paper.tex").write_text("\\documentclass{article}\n\\usepackage{amsmath,amssymb,amsthm}\n"
                                        "\\begin{document}\n\\input{rot}\n\\end{document}\n")
    capsys.readouterr()
    assert main(["audit", str(tmp_path / "paper.tex"), "--coq", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [c["status"] for c in doc["claims"]] == ["kernel-checked"]


def test_the_report_page_is_never_written_over_the_paper(paper, capsys):
    capsys.readouterr()
    assert main(["audit", str(paper / "paper.tex"), "--html", str(paper / "paper.tex")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert (paper / "paper.tex").read_text().startswith("% A realistic test paper")
