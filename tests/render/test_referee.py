"""Statements a referee signs without edits: one scan of the LaTeX per defect.

The fast tests read the LaTeX source of every catalogue fragment (``certificates/*.tex``) and of fresh
certificates of every kind (``shared.fresh_certificates``: real and complex head counts, families, gradient
highways, layers, layers for every input, eps-head counts of systems and trained layers) and fail on a form a
referee would correct: a break point inside a token, a system's name in typewriter type, the identity introduced
as a triangular matrix or written out, a ``\\dots`` that hides nothing, a sum opening with a minus sign, a symbol
set upright in running text, a weight vector whose magnitudes cannot be seen, a diagonal matrix given row by row,
matrices out of order, a decimal shown as a fraction, a row's continuation left of its start, a Gaussian rational
broken at its sign, a family's fraction in two orders or unfactored, ``none`` in math, one letter with two
meanings, "decreases" for a non-increasing error, a list of alternatives joined by commas.  One compile of all
of them in a two-column article fails on an overfull box or a line of badness 10000; every macro is compiled in
text and in math mode.  The long test compiles the catalogue in a two-column and a one-column article.
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
from shared import fresh_certificates

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


# ---------------------------------------------------------------- fresh certificates of every kind


def _fresh():
    return {f"fresh {name}": cert.to_latex() for name, cert in fresh_certificates()}


@pytest.fixture(scope="module")
def every():
    """Every fragment: the catalogue's and fresh ones of every kind."""
    fresh = _fresh()
    kinds = {cert["kind"] + ("/" + cert.data["field"] if cert.data.get("field") else "")
             for _, cert in fresh_certificates()}
    assert len(kinds) >= 8, kinds  # every kind, the complex head count too
    return {**FRAGMENTS, **fresh}


def _scan(fragments, pattern, *, flags=0):
    found = []
    for name, text in fragments.items():
        body = "\n".join(line for line in text.splitlines() if not line.startswith("%"))
        found += [(name, m.group(0)[:160]) for m in re.finditer(pattern, body, flags)]
    return found


# ---------------------------------------------------------------- names


def test_no_break_point_inside_a_token(every):
    # m\allowbreak{}1, ar\allowbreak{}ctan: a break a reader never accepts (a hash is exempt: no column holds it)
    assert _scan({n: _HASH.sub("HASH", t) for n, t in every.items()},
                 r"[A-Za-z0-9]\\allowbreak(?:\{\}| )[A-Za-z0-9]") == []


def test_system_names_are_roman_not_typewriter(every):
    headings = _scan(every, r"\\begin\{symssmtheorem\}\[\{[^\n]*")
    assert len(headings) >= 80
    assert [h for h in headings if "\\texttt" in h[1]] == []
    # typewriter only for what is typed: a command, a file name, a hash
    tt = [(n, t) for n, t in _defects(r"\\texttt\{[^}]*\}") if not re.fullmatch(r"\\texttt\{symssm [^}]*\}", t)]
    assert tt == []


def test_a_name_breaks_only_after_its_hyphens_and_holds_its_mathematics():
    assert system_name("hippo-legs-N4-p2-m1") == "-\\allowbreak{}".join(f"\\mbox{{{t}}}" for t in ("hippo", "legs", "N4", "p2",
                                                                                            "m1"))
    assert system_name("rotation by 2 arctan t", parameters=["t"]) == "rotation by $2 \\arctan t$"
    assert system_name("HiPPO-LegS, bilinear step h, N = 3", parameters=["h"]) == \
        "\\mbox{HiPPO}-\\allowbreak{}\\mbox{LegS,} bilinear step $h$, $N = 3$"
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


def test_symbols_in_running_text_are_italic(every):
    upright = []
    for name, text in every.items():
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
    for name, text in {**FRAGMENTS, **_fresh()}.items():
        short += [(name, r[2]) for r in _dots_ranges(text) if r[1] - r[0] < 3]
    assert short == []
    assert index_list(str, 1, 1) == "1" and index_list(str, 1, 2) == "1, 2" and index_list(str, 1, 3) == "1, 2, 3"
    assert index_list(lambda t: f"d_{t}", 1, 4) == "d_1, \\dots, d_{4}"
    assert index_list(lambda t: f"d_{t}", 9, 11) == "d_9, d_{10}, d_{11}"


def test_sums_open_with_a_positive_term(every):
    assert tex_polynomial("-t^2 + 1") == "1 - t^{2}"
    assert tex_polynomial("-h + 2") == "2 - h"
    assert tex_polynomial("-h - 1") == "- h - 1"  # no positive term: as it is
    assert tex_polynomial("t^2 - 1") == "t^{2} - 1"
    leading = _scan(every, r"(?:\(|= |\$)- ?[^\s$(),=]+(?:\\,[^\s$(),=]+)* \+ ")
    assert leading == []


# ---------------------------------------------------------------- gradient proofs


def test_the_identity_is_named_the_identity():
    triangular = _defects(r"unit upper triangular matrix[^$]*\$?U = (?:\\operatorname\{diag\}\((?:1, )*1\)|"
                          r"\\begin\{pmatrix\}1 & 0 \\\\ 0 & 1\\end\{pmatrix\})")
    assert triangular == []
    assert any("The identity matrix $U = I_{" in t for t in FRAGMENTS.values())


def test_long_weight_vectors_show_their_magnitudes():
    lines = _defects(r"\$[qw] = \([^$]*\$")
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


# ---------------------------------------------------------------- matrices, families, symbols of every kind


def _rows_after(text, start):
    """The entries of the rows listed from ``start`` (a "has the rows" block), one list per row."""
    rows = []
    for line in text[start:].splitlines()[1:]:
        m = re.match(r"\\par\\noindent\\hangindent=[0-9.]+em\\hangafter=1\\hspace\*\{[0-9.]+em\}\$\((.*)\)\$[,.]?$",
                     line)
        if not m:
            break
        rows.append([x.strip() for x in m.group(1).split(",\\allowbreak ")])
    return rows


def test_a_diagonal_matrix_is_stated_as_diag_never_row_by_row(every):
    listed = 0
    for name, text in every.items():
        for m in re.finditer(r"\$([A-Z])(?:\^\{\\top\})?\$ has the rows", text):
            rows = _rows_after(text, m.start())
            listed += 1
            n = len(rows)
            diagonal = n >= 2 and all(len(r) == n for r in rows) and all(
                rows[i][j] == "0" for i in range(n) for j in range(n) if i != j)
            assert not diagonal, (name, m.group(1), rows)
    assert listed  # the scan sees the row lists
    complex_lin = every["fresh s4d-lin-N3"]
    assert "A = \\operatorname{diag}\\biggl(\\frac{39}{41}, \\frac{19913531 + 6418400\\,\\mathrm{i}}{21968789}," \
        in complex_lin and "has the rows\n\\par\\noindent\\hangindent=1.5em\\hangafter=1\\hspace*{1em}$(39/41" \
        not in complex_lin


def test_a_system_states_its_matrices_in_order(every):
    stated = re.compile(r"(?<![A-Za-z_\\{^])([ABCD])(?:\^\{\\top\})?(?: = |\$ has the rows| \\in \\mathbb)")
    checked = 0
    for name, text in every.items():
        theorem = text[text.index("\\begin{"):text.index("\\end{symssmtheorem}") if "\\end{symssmtheorem}" in text
                       else len(text)]
        first = {}
        for m in stated.finditer(theorem):
            first.setdefault(m.group(1), m.start())
        order = [x for x in sorted(first, key=first.get) if x in "ABCD"]
        if len(order) >= 3:
            checked += 1
            assert order == sorted(order), (name, order)
    assert checked >= 20


def test_matrices_show_exact_decimals_as_decimals():
    text = dict(_fresh())["fresh trained-diagonal-N6"]
    assert "A = \\operatorname{diag}(0.8812, -0.78, 0.5, 0.6, -0.35, 0.9)" in text
    assert "2203/2500" not in text and "\\frac{1}{2500}" not in text
    from symssm.render.tex import exact_decimal, tex_matrix

    assert exact_decimal(Fraction(2203, 2500)) == "0.8812" and exact_decimal(Fraction(1, 3)) is None
    assert exact_decimal(Fraction(3, 4)) is None and exact_decimal(Fraction(-7, 10 ** 9)) is None  # 9 places
    assert tex_matrix([["1/2", "0"], ["0", "3/4"]]) == "\\frac{1}{4}\\begin{pmatrix}2 & 0 \\\\ 0 & 3\\end{pmatrix}"
    assert tex_matrix([["2203/2500", "1/2"]]) == "\\begin{pmatrix}0.8812 & 0.5\\end{pmatrix}"


def test_no_matrix_entry_is_a_decimal_written_as_a_fraction(every):
    def decimal_looking(den):
        den = int(den)
        d = den
        for p in (2, 5):
            while d % p == 0:
                d //= p
        return d == 1 and den % 5 == 0 and den >= 100

    found = []
    for name, text in every.items():
        blocks = re.findall(r"\\begin\{pmatrix\}.*?\\end\{pmatrix\}|\\operatorname\{diag\}.*?\)(?:[,.]|$)|"
                            r"\\hspace\*\{1em\}\$\(.*?\)\$", text)
        for block in blocks:
            found += [(name, m.group(0)) for m in re.finditer(r"(?<![0-9^{])-?[0-9]+/([0-9]+)", block)
                      if decimal_looking(m.group(1)) and len(m.group(0)) < 16]
        found += [(name, m.group(0)) for m in re.finditer(r"\\frac\{1\}\{([0-9]+)\}\\begin\{pmatrix\}", text)
                  if decimal_looking(m.group(1))]
    assert found == []


def test_a_row_continues_right_of_its_start(every):
    from symssm.render.tex import row_line

    assert row_line(["1", "2"], ",") == "\\par\\noindent\\hangindent=1.5em\\hangafter=1\\hspace*{1em}$(1,\\allowbreak 2)$,"
    rows = _scan(every, r"\\par\\noindent\\(?:hangindent=([0-9.]+)em\\hangafter=1\\)?hspace\*\{([0-9.]+)em\}")
    assert rows
    assert [r for r in rows if "hangindent" not in r[1]] == []
    starts = {re.search(r"hangindent=([0-9.]+)em.*hspace\*\{([0-9.]+)em", r[1]).groups() for r in rows}
    assert all(float(hang) > float(start) for hang, start in starts)


def test_a_gaussian_rational_is_not_broken_at_its_sign(every):
    from symssm.render.tex import list_entry

    assert list_entry("1/2+1/3i") == "{(3 + 2\\,\\mathrm{i})/6}"
    assert list_entry("-5/6") == "-5/6"
    # wider than a line: it may break before its denominator, never at its sign unless its numerator is too wide
    wide = list_entry("123456789012341/987654321098767+123456789012343/987654321098767i")
    assert wide == "{(123456789012341 + 123456789012343\\,\\mathrm{i})}/\\allowbreak{987654321098767}"
    found = []
    for name, text in every.items():
        body = re.sub(r"\\begin\{(gather\*|align\*|equation\*)\}.*?\\end\{\1\}|\\\[.*?\\\]", " ", text, flags=re.S)
        for math in re.findall(r"\$[^$]*\$", body):
            depth, i = 0, 0
            for i, ch in enumerate(math):
                depth += {"{": 1, "}": -1}.get(ch, 0)
                m = re.match(r"([0-9]+) [+-] ([0-9]*)(?:\\,)?\\mathrm\{i\}", math[i:])
                if m and depth == 0 and (i == 0 or not math[i - 1].isdigit()) and \
                        len(m.group(1)) + len(m.group(2)) <= 36:  # a longer one fills a line: it breaks at its sign
                    found.append((name, math[:120]))
    assert found == []


def _terms_degrees(poly):
    """The degree of each top-level term of a polynomial in TeX (``2\\,h^{2} - 4\\,h`` -> [2, 1])."""
    out, depth, term = [], 0, ""
    for ch in poly + " + ":
        depth += {"(": 1, ")": -1}.get(ch, 0)
        term += ch
        if depth == 0 and term.endswith((" + ", " - ")):
            t = term[:-3]
            if t.strip():
                out.append(sum(int(e or 1) for e in re.findall(r"[a-z](?:_\{[0-9]+\})?(?:\^\{([0-9]+)\})?", t)))
            term = ""
    return out


def test_a_family_entry_has_numerator_and_denominator_in_one_order(every):
    from symssm.render.polytex import tex_fraction

    assert tex_fraction("-h + 2", "h + 2") == "-(h - 2)/(h + 2)"
    assert tex_fraction("2*h^2 - 4*h", "h + 1") == "(2\\,h^{2} - 4\\,h)/(h + 1)"
    assert tex_fraction("-2*h^2 + 4*h", "h + 1") == "-(2\\,h^{2} - 4\\,h)/(h + 1)"  # the same polynomial, written once
    assert tex_fraction("h", "h + 1") == "h/(h + 1)" and tex_fraction("-2*h", "h + 2") == "-2\\,h/(h + 2)"
    fractions = _scan(every, r"\(([^()$]*(?:\([^()$]*\)[^()$]*)*)\)/\(([^()$]*(?:\([^()$]*\)[^()$]*)*)\)")
    assert fractions
    bad = []
    for name, text in fractions:
        m = re.fullmatch(r"\(([^$]*)\)/\((.*)\)", text)
        for part in m.groups():
            if "\\mathrm" in part or "\\frac" in part:
                continue
            degrees = _terms_degrees(part)
            if part.lstrip().startswith("-") or degrees != sorted(degrees, reverse=True):
                bad.append((name, text))
    assert bad == []
    # no parentheses around a monomial numerator: (h)/(...), (- 2\,h)/(...)
    assert _scan(every, r"\((?:- ?)?[0-9]*(?:\\,)?[a-z](?:_\{[0-9]+\})?(?:\^\{[0-9]+\})?\)/") == []


def test_a_family_denominator_is_the_product_of_the_stated_factors(every):
    sympy = pytest.importorskip("sympy")
    text = every["fresh hippo-legs-step"]
    assert "-2\\,h/((h + 1)\\,(h + 2))" in text and "h^{2} + 3\\,h + 2" not in text
    bad = []
    for name, frag in every.items():
        if "rational functions of the parameter" not in frag:
            continue
        for den in re.findall(r"\)?/\(([^()$]*)\)", frag):
            if "\\mathrm" in den or not re.search(r"\^\{", den) or not re.search(r" [+-] ", den):
                continue
            expr = re.sub(r"([0-9])\\,", r"\1*", den).replace("\\,", "*").replace("^{", "**(").replace("}", ")")
            expr = re.sub(r"([a-z])_\(?([0-9]+)\)?", r"\1\2", expr.replace("_{", "_("))
            try:
                poly = sympy.sympify(expr)
            except sympy.SympifyError:  # pragma: no cover - not a polynomial text
                continue
            factors = sympy.factor_list(poly)[1]
            if sum(e for _, e in factors) >= 2:
                bad.append((name, den))
    assert bad == []


def test_no_none_and_no_list_of_alternatives_joined_by_commas(every):
    assert _scan(every, r"\$[^$]*\bnone\b[^$]*\$") == []
    assert _scan(every, r"factors none|witness (?:lags|blocks) \$?none") == []
    undefined = _scan(every, r"undefined exactly where [^)]*\)")
    assert undefined
    assert [u for u in undefined if u[1].count("= 0$") > 1 and " or " not in u[1]] == []
    assert "where $3\\,h + 2 = 0$, $h + 1 = 0$ or $h + 2 = 0$" in every["fresh hippo-legs-step"]


def test_an_error_that_cannot_grow_is_non_increasing(every):
    assert _scan(every, r"e_H\$ decreases") == []
    approximate = [t for n, t in every.items() if "$e_H$" in t]
    assert len(approximate) >= 3 and all("$e_H$ is non-increasing in $H$" in t for t in approximate)


def test_one_symbol_one_meaning_in_a_theorem(every):
    heads_h = r"\\alpha\^h_|V_h\b|\\sum_h\b|_\{h=1\}|c_\{d,h\}|Q_h|K_h|a\^h_"
    assert _scan(every, heads_h) == []
    for name, text in every.items():
        if re.search(r"(?:parameters?|step) \$h\$|\$h \\in \\mathbb|\$h_\{?[0-9]", text):  # h is a parameter
            assert "h_i = " not in text and "h_{i-1}" not in text, name
        if re.search(r"\$l_\{?[0-9]", text):  # a parameter l_1: the heads are not indexed by ell
            assert "\\ell" not in text, name
    # the factored decay witness: d is a lag and an exponent, so the diagonal is q
    gradients = [t for t in every.values() if "U^{\\top} \\operatorname{diag}" in t]
    assert gradients and all("\\operatorname{diag}(q)" in t and "$d = (" not in t for t in gradients)
    legs = every["fresh hippo-legs-step"]
    assert "$s_i = A s_{i-1} + B x_i$" in legs and "\\alpha^\\ell_{ij}" in legs


def test_the_identity_is_i_p_everywhere(every):
    from symssm.render.tex import display

    assert "W_{1,1} = I_{2}" in display([("W_{1,1}", [["1", "0"], ["0", "1"]])])
    written = []
    for name, text in every.items():
        for m in re.finditer(r"\\begin\{(p|small)matrix\}(.*?)\\end\{\1matrix\}", text, re.S):
            rows = [[c.strip() for c in r.split("&")] for r in re.split(r"\\\\", m.group(2))]
            n = len(rows)
            if n >= 2 and all(len(r) == n for r in rows) and all(
                    rows[i][j] == ("1" if i == j else "0") for i in range(n) for j in range(n)):
                written.append((name, text[max(0, m.start() - 40):m.start()]))
    assert written == []


def test_long_names_and_titles_break_after_their_hyphens(every):
    heads = _scan(every, r"\\begin\{symssmtheorem\}\[\{[^\n]*")
    assert heads
    assert _scan(every, r"\\mbox\{[^}]*\}-\\mbox") == []  # TeX breaks after no hyphen followed by a box


# ---------------------------------------------------------------- compiled


def _log(folder, fragments, host, runs=2):
    import subprocess

    for i, frag in enumerate(fragments):
        (folder / f"f{i}.tex").write_text(frag)
    (folder / "doc.tex").write_text(host % "".join(f"\\input{{f{i}}}\n" for i in range(len(fragments))))
    for _ in range(runs):
        result = subprocess.run(["pdflatex", "-halt-on-error", "-interaction=nonstopmode", "doc.tex"], cwd=folder,
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stdout[-2000:]
    return open(folder / "doc.log", errors="replace").read()


def _bad_lines(log):
    """The log's overfull lines and lines of badness 10000 (a line TeX could not fill)."""
    stretched = re.findall(r"(?:Underfull|Overfull) \\hbox \(badness 10000\)[^\n]*\n[^\n]*", log)
    return stretched, re.findall(r"Overfull \\hbox \(([0-9.]+)pt too wide\)[^\n]*\n[^\n]*", log)


def test_every_fragment_compiles_in_two_columns_without_a_stretched_or_overfull_line(tmp_path, every):
    require_tools()
    log = _log(tmp_path, list(every.values()), TWO_COLUMN, runs=1)
    stretched, overfull = _bad_lines(log)
    assert stretched == [] and overfull == []
    heads = re.findall(r"Underfull \\hbox \(badness ([0-9]+)\) in paragraph at lines [0-9]+--[0-9]+\n"
                       r"\\OT1/cmr/bx/n/10 Certified", log)
    assert [int(b) for b in heads if int(b) >= 4000] == []  # no theorem head stretched


def _macro_document(files):
    names = []
    for text in files:
        names += re.findall(r"\\newcommand\{\\(\w+)\}", text)
    body = "".join(f"\\par\\noindent TEXT{i} \\{n}{{}} ENDTEXT\\par\\noindent MATH{i} $\\{n}$ ENDMATH\n"
                   for i, n in enumerate(names))
    return names, body


def test_every_macro_works_in_text_and_in_math_mode(tmp_path):
    import subprocess

    from symssm.render.latex import either_mode, render_macros

    assert either_mode("\\ensuremath{2}") == "\\ensuremath{2}"
    files = [render_macros(cert.data, prefix="Symssm" + "".join(c for c in name.title() if c.isalpha()))
             for name, cert in fresh_certificates()]
    for text in files:
        for value in re.findall(r"\\newcommand\{\\\w+\}\{(.*)\}$", text, re.M):
            assert value.startswith(("\\ensuremath{", "\\symssmtext{")), value[:80]
        assert max(len(line) for line in text.splitlines()) < 5000  # a TeX input line holds it
    require_tools()
    for i, text in enumerate(files):
        (tmp_path / f"m{i}.tex").write_text(text)
    names, body = _macro_document(files)
    assert len(names) > 150
    # in a moving argument too: a section title in the table of contents, in text and in math
    titled = [n for n in names if n.endswith(("SystemName", "Exceptions"))]
    titles = "".join(f"\\section{{\\{n}{{}} and $\\{n}$}}\n" for n in titled)
    (tmp_path / "doc.tex").write_text(
        "\\documentclass{article}\n\\usepackage{amsmath,amssymb,amsthm}\n\\pdfpagewidth=80in\\textwidth=78in\n"
        "\\pdfpageheight=200in\\textheight=195in\n" + "".join(f"\\input{{m{i}}}\n" for i in range(len(files)))
        + "\\begin{document}\n\\tableofcontents\n" + body + titles + "\\end{document}\n")
    for _ in range(2):
        result = subprocess.run(["pdflatex", "-halt-on-error", "-interaction=nonstopmode", "doc.tex"], cwd=tmp_path,
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stdout[-2000:]
    pdf = subprocess.run(["pdftotext", "-raw", str(tmp_path / "doc.pdf"), "-"], capture_output=True, text=True,
                         check=True).stdout
    flat = " ".join(pdf.split())
    for i, name in enumerate(names):
        text = re.search(rf"TEXT{i} (.*?) ?ENDTEXT", flat).group(1)
        math = re.search(rf"MATH{i} (.*?) ?ENDMATH", flat).group(1)
        assert text.replace(" ", "") == math.replace(" ", ""), (name, text, math)
    exceptions = [re.search(rf"MATH{i} (.*?) ?ENDMATH", flat).group(1) for i, n in enumerate(names)
                  if n.startswith("SymssmRotationSymbolic") and n.endswith("Exceptions")]
    assert exceptions and " where " in exceptions[0]  # not "k(n) = 1wheret = 0"


@pytest.mark.long
@pytest.mark.parametrize("host", ["two", "one"])
def test_catalogue_compiles_without_a_stretched_or_overfull_line(tmp_path, host):
    require_tools()
    log = _log(tmp_path, list(FRAGMENTS.values()), TWO_COLUMN if host == "two" else ONE_COLUMN)
    assert _bad_lines(log) == ([], [])


@pytest.mark.long  # every framework layer for every input (linear attention: 997 cases, about 30 s)
def test_the_framework_compiles_in_two_columns_without_a_stretched_or_overfull_line(tmp_path):
    from symssm.catalog import build_framework

    require_tools()
    build_framework(str(tmp_path / "fw"))
    fragments = [p.read_text() for p in sorted((tmp_path / "fw").glob("framework*.tex"))]
    assert len(fragments) >= 8
    assert _bad_lines(_log(tmp_path, fragments, TWO_COLUMN, runs=1)) == ([], [])
