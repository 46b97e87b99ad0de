"""Statements a referee signs without edits: one scan of the catalogue's LaTeX per defect.

The fast tests read the LaTeX source of every catalogue fragment (``certificates/*.tex``) and fail on a
form a referee would correct: a break point inside a token, a system's name in typewriter type, the
identity introduced as a triangular matrix, a ``\\dots`` that hides nothing, a sum opening with a minus
sign, a symbol set upright in running text, a weight vector whose magnitudes cannot be seen.  The long
test compiles every fragment in a two-column and a one-column article and reads the log: no line of
badness 10000 and no overfull box.
"""

import glob
import os
import re
from decimal import ROUND_HALF_UP, Decimal, localcontext
from fractions import Fraction

import pytest

from symssm.render.framework import framework_table
from symssm.render.polytex import tex_polynomial
from symssm.render.tex import index_list, system_name, tex_approx

from latex_tools import ONE_COLUMN, TWO_COLUMN, require_tools
from paths import ROOT

CATALOGUE = os.path.join(ROOT, "certificates")


def _fragments():
    paths = sorted(glob.glob(os.path.join(CATALOGUE, "*.tex")))
    assert len(paths) >= 60
    return {os.path.basename(p): open(p).read() for p in paths}


FRAGMENTS = _fragments()

_HASH = re.compile(r"\\texttt\{[0-9a-f]{16}(?:\\allowbreak [0-9a-f]{16})*\}")


def _defects(pattern, *, strip_hashes=True):
    found = []
    for name, text in FRAGMENTS.items():
        body = "\n".join(line for line in text.splitlines() if not line.startswith("%"))
        if strip_hashes:
            body = _HASH.sub("HASH", body)
        found += [(name, m.group(0)) for m in re.finditer(pattern, body)]
    return found


def _text_mode(text):
    """The running text of a fragment: comments, inline math and displays removed."""
    text = "\n".join(line for line in text.splitlines() if not line.startswith("%"))
    text = re.sub(r"\\begin\{(gather\*|align\*|equation\*|multline\*)\}.*?\\end\{\1\}", " ", text, flags=re.S)
    text = re.sub(r"\\\[.*?\\\]", " ", text, flags=re.S)
    return re.sub(r"\$[^$]*\$", " ", text)


# ---------------------------------------------------------------- names


def test_no_break_point_inside_a_token():
    # m\allowbreak{}1, ar\allowbreak{}ctan: a break a reader never accepts (a hash is exempt: no column holds it)
    assert _defects(r"[A-Za-z0-9]\\allowbreak(?:\{\}| )[A-Za-z0-9]") == []


def test_system_names_are_roman_not_typewriter():
    headings = _defects(r"\\begin\{symssmtheorem\}\[\{[^\n]*")
    assert len(headings) >= 60
    assert [h for h in headings if "\\texttt" in h[1]] == []
    # typewriter only for what is typed: a command, a file name, a hash
    tt = [(n, t) for n, t in _defects(r"\\texttt\{[^}]*\}") if not re.fullmatch(r"\\texttt\{symssm [^}]*\}", t)]
    assert tt == []


def test_a_name_breaks_only_after_its_hyphens_and_holds_its_mathematics():
    assert system_name("hippo-legs-N4-p2-m1") == "\\mbox{hippo}-\\mbox{legs}-\\mbox{N4}-\\mbox{p2}-\\mbox{m1}"
    assert system_name("rotation by 2 arctan t", parameters=["t"]) == "rotation by $2 \\arctan t$"
    assert system_name("HiPPO-LegS, bilinear step h, N = 3", parameters=["h"]) == \
        "\\mbox{HiPPO}-\\mbox{LegS,} bilinear step $h$, $N = 3$"
    # a character roman type has no glyph for: that token in typewriter type, as the character itself
    assert system_name("a_b $x$ 50% ok") == "\\texttt{a\\char95{}b} \\texttt{\\char36{}x\\char36{}} " \
        "\\texttt{50\\char37{}} ok"
    assert "\\texttt" not in system_name("x" * 40) and "\\allowbreak" in system_name("x" * 40)  # no column holds it


def test_family_names_in_the_catalogue_set_their_mathematics_in_math_mode():
    headings = dict(_defects(r"Head count of the family [^\n]*"))
    text = " ".join(t for _, t in _defects(r"Head count of the family [^\n]*"))
    assert "$N = 3$" in text and "$h$" in text and "arctan" not in text.replace("\\arctan", "")
    assert headings


# ---------------------------------------------------------------- symbols and ranges


def test_symbols_in_running_text_are_italic():
    upright = []
    for name, text in FRAGMENTS.items():
        upright += [(name, m.group(0)) for m in re.finditer(r"(?<![\\A-Za-z])[A-Za-z] = [0-9]", _text_mode(text))]
    assert upright == []


def _dots_ranges(text):
    """(left index, right index) of every ``a, \\dots, b`` whose ends are numbered."""
    out = []
    for m in re.finditer(r"([^$]{0,40}?), \\dots, ([^$]{0,40})", text):
        left = re.search(r"(?:_\{?(?:[a-z]_\{?)?)?([0-9]+)\}*\)?$", m.group(1))
        right = re.match(r"\(?\\?[A-Za-z]*_?\{?(?:[a-z]_\{?)?([0-9]+)\}*", m.group(2))
        if left and right:
            out.append((int(left.group(1)), int(right.group(1)), m.group(0)))
    return out


def test_no_dots_that_hide_nothing():
    assert _dots_ranges("$t = 1, \\dots, 2$") and _dots_ranges("$d_1, \\dots, d_{3}$")  # the scan sees them
    assert not [r for r in _dots_ranges("$L_0, \\dots, L_{n-1}$") if r[1] - r[0] < 3]
    short = []
    for name, text in FRAGMENTS.items():
        short += [(name, r[2]) for r in _dots_ranges(text) if r[1] - r[0] < 3]
    assert short == []
    assert index_list(str, 1, 1) == "1" and index_list(str, 1, 2) == "1, 2" and index_list(str, 1, 3) == "1, 2, 3"
    assert index_list(lambda t: f"d_{t}", 1, 4) == "d_1, \\dots, d_{4}"
    assert index_list(lambda t: f"d_{t}", 9, 11) == "d_9, d_{10}, d_{11}"


def test_sums_open_with_a_positive_term():
    assert tex_polynomial("-t^2 + 1") == "1 - t^{2}"
    assert tex_polynomial("(-h + 2)/(h + 2)") == "(2 - h)/(h + 2)"
    assert tex_polynomial("-h - 1") == "- h - 1"  # no positive term: as it is
    assert tex_polynomial("t^2 - 1") == "t^{2} - 1"
    leading = _defects(r"(?:\(|= |\$)- ?[^\s$(),=]+(?:\\,[^\s$(),=]+)* \+ ")
    assert leading == []


# ---------------------------------------------------------------- gradient proofs


def test_the_identity_is_named_the_identity():
    triangular = _defects(r"unit upper triangular matrix[^$]*\$?U = (?:\\operatorname\{diag\}\((?:1, )*1\)|"
                          r"\\begin\{pmatrix\}1 & 0 \\\\ 0 & 1\\end\{pmatrix\})")
    assert triangular == []
    assert any("The identity matrix $U = I_{" in t for t in FRAGMENTS.values())


def test_long_weight_vectors_show_their_magnitudes():
    lines = _defects(r"\$[dw] = \([^$]*\$")
    assert lines
    assert [x for x in lines if "\\cdot 2^" in x[1] and "\\approx" not in x[1]] == []


@pytest.mark.parametrize("q", [Fraction(13267859923, 2 ** 28), Fraction(-1, 3), Fraction(2, 3), Fraction(5, 10 ** 7),
                               Fraction(9995, 1000), Fraction(99951, 10 ** 9), Fraction(123456789), Fraction(1, 8),
                               Fraction(-29545, 2 ** 30), Fraction(1005, 100)])
def test_approximations_are_rounded_exactly(q):
    with localcontext() as ctx:
        ctx.prec = 60
        exact = Decimal(q.numerator) / Decimal(q.denominator)
        e = exact.copy_abs().adjusted()
        rounded = exact.quantize(Decimal(1).scaleb(e - 2), rounding=ROUND_HALF_UP)
    shown = tex_approx(f"{q.numerator}/{q.denominator}" if q.denominator != 1 else str(q.numerator))
    m = re.fullmatch(r"(-?[0-9.]+)(?: \\cdot 10\^\{(-?[0-9]+)\})?", shown)
    value = Decimal(m.group(1)).scaleb(int(m.group(2) or 0))
    assert value == rounded.normalize() or value == rounded, (q, shown, rounded)


# ---------------------------------------------------------------- the framework table


def _row(name, kind, rank, complete=None, cases=None):
    data = {"kind": "interaction-rank", "system": {"name": name, "kind": kind}, "interaction_rank": rank}
    every = None if complete is None else {"kind": "parametric-interaction-rank", "interaction_rank": rank,
                                           "complete": complete, "system": {"name": name, "kind": kind},
                                           "bodies": [{"interaction_rank": r} for r in (cases or [rank])]}
    return data, every


def test_framework_legend_explains_only_what_its_entries_carry():
    rows = [_row("feedforward", "operator", 1), _row("mamba2-head", "selective-ssm", 1, True)]
    table = framework_table(rows, seed=0, n=6, m=2)
    assert "$^{*}$" not in table and "not certified" not in table and "generically" not in table
    assert "Mamba-2 head (scalar gate) & $1$ & $1$ \\\\" in table
    rows.append(_row("linear-attention-H2", "linear-attention", 2, True, [2, 1, 0]))
    table = framework_table(rows, seed=0, n=6, m=2)
    assert "linear attention, $H = 2$ & $2$ & $\\le 2$, generically $2$ \\\\" in table
    assert "at most $r$ at every input, and exactly $r$ off an exceptional set" in table
    assert "$^{*}$" not in table
    rows.append(_row("softmax-attention-H2", "softmax-attention", 2))
    rows.append(_row("selective-ssm-N4", "selective-ssm", 4, False))
    table = framework_table(rows, seed=0, n=6, m=2)
    assert "$^{*}$ not complete" in table and "-- not certified" in table
    assert not re.search(r"(?<![\\$A-Za-z])[NH] = [0-9]", _text_mode(table))


# ---------------------------------------------------------------- compiled


def _log(folder, fragments, host):
    import subprocess

    for i, frag in enumerate(fragments):
        (folder / f"f{i}.tex").write_text(frag)
    (folder / "doc.tex").write_text(host % "".join(f"\\input{{f{i}}}\n" for i in range(len(fragments))))
    for _ in range(2):
        result = subprocess.run(["pdflatex", "-halt-on-error", "-interaction=nonstopmode", "doc.tex"], cwd=folder,
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stdout[-2000:]
    return open(folder / "doc.log", errors="replace").read()


@pytest.mark.long
@pytest.mark.parametrize("host", ["two", "one"])
def test_catalogue_compiles_without_a_stretched_or_overfull_line(tmp_path, host):
    require_tools()
    log = _log(tmp_path, list(FRAGMENTS.values()), TWO_COLUMN if host == "two" else ONE_COLUMN)
    bad = re.findall(r"(?:Underfull|Overfull) \\hbox \(badness 10000\)[^\n]*\n[^\n]*", log)
    assert bad == []
    assert re.findall(r"Overfull \\hbox \(([0-9.]+)pt too wide\)", log) == []
