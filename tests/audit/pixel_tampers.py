"""Tampers at the PDF level, made with pikepdf on an honest compiled paper: each changes what a reader sees in a
certified statement with an operator the text reading does not model (tests/audit/test_pixels.py).

``make(name, src, dst)`` writes ``dst``, a copy of ``src`` with the tamper ``name`` (one of :data:`TAMPERS`) on
the first page, which must show the rotation's fragment of tests/fixtures/audit ("exactly k = 2 attention heads",
the matrix with "3 -4").
"""

import pikepdf

from symssm.audit.pages import read_pdf

#: name -> what a reader sees.
TAMPERS = {
    "fill-white-stroke-black": "a bar filled white and stroked black (B) turns the -4 into +4",
    "three-into-eight": "a closed shape filled white and stroked black turns a 3 into an 8",
    "equals-into-not-equals": "a slash filled white and stroked black turns = into a not-equal sign",
    "crossed-out": "two strokes cross the theorem out",
    "clip-top-of-two": "a clipping path cuts the top off the 2 of k = 2",
    "clip-underline-of-geq": "a clipping path cuts the bar off the first >=",
    "white-six-percent": "a white rectangle covers 6% of the 2's box",
    "stroke-alpha": "a rectangle with /ca 0 /CA 1: its outline turns the -4 into +4",
    "difference-blend": "a white rectangle in blend mode Difference turns the 2 white on black",
    "calrgb": "a bar in a CalRGB colour space turns the -4 into +4",
    "optional-content-print": "optional content shown only when printed covers the 2 and draws a bar",
    "optional-content-other-configuration": "a bar through the minus in a layer the default configuration hides and "
                                            "another one (a viewer's layer menu, a script) shows",
    "annotation-print-only": "a NoView|Print link annotation covers the 2 when printed",
    "incremental-update": "an incremental update appends a white rectangle over the 2",
    "image-over-digit": "an image (a small white bitmap) over the top of the 2",
    "shading": "an axial shading from white to white over the 2",
    "form-xobject": "a form XObject paints a white rectangle over the 2",
    "pattern-fill": "a tiling pattern of white fills the top of the 2",
    "type3-glyph": "a Type 3 glyph (a bar) drawn through the -4",
    "rule-under-equals": "a thin black rule under the = of k = 2 (a reader sees k = 2 with a third bar)",
    "rule-over-minus": "a thin black rule over the minus of -4 (a reader sees = 4)",
    "widget-annotation": "a form field's widget annotation whose appearance covers the 2",
    "white-glyph-cover": "a white glyph painted over the top of the 2",
    "glyph-over-minus": "a 1 of the page's own CMR10 drawn upright through the minus of -4 (a + to a reader)",
    "light-green-one": "a bright green bar (contrast 1.6 with white: not ink, yet plain to see) before the 2: k = 12",
    "orange-bar-behind-minus": "an orange bar drawn before the text through the minus of -4: a reader sees +4",
    "fraction-bar-between-entries": "a thin rule between the 3 and the 4 of the matrix's first column: a reader sees "
                                    "the fraction 3/4",
    "paren-over-minus": "a ( of the page's own CMR10, narrowed, drawn through the minus of -4 (a + to a reader)",
}


def _targets(src):
    page = read_pdf(src, ink=False)[0]
    glyphs = [g for g in page.glyphs if g.char.strip()]
    owner = [k for k, g in enumerate(glyphs) for _ in g.char]       # the glyph of each character
    at = owner["".join(g.char for g in glyphs).index("exactlyk=2")]
    two, eq = glyphs[at + len("exactlyk=")], glyphs[at + len("exactlyk")]
    minus = next(g for g in glyphs if g.char == "\u2212" and g.font == "CMSY10")
    three = next(g for g in glyphs if g.char == "3" and g.font == "CMR10" and abs(g.origin[1] - minus.origin[1]) < 9)
    geq = next(g for g in glyphs[at - 60:at] if g.char == "\u2265")
    line = [g for g in glyphs if abs(g.origin[1] - two.origin[1]) < 1]
    four = min((g for g in glyphs if g.char == "4" and g.bbox[3] < three.bbox[1]
                and abs(g.bbox[0] - three.bbox[0]) < 3),
               key=lambda g: three.bbox[1] - g.bbox[3])
    return dict(two=two.bbox, eq=eq.bbox, minus=minus.bbox, three=three.bbox, geq=geq.bbox, four=four.bbox,
                line=(min(g.bbox[0] for g in line), min(g.bbox[1] for g in line), max(g.bbox[2] for g in line),
                      max(g.bbox[3] for g in line)))


def _bar(box):
    """A vertical bar through the middle of a minus sign's box (x, y, width, height)."""
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return cx - 0.3, cy - 2.6, 0.6, 5.2


def _top(box, share=0.5):
    x0, y0, x1, y1 = box
    return x0 - 0.3, y1 - share * (y1 - y0), x1 - x0 + 0.6, share * (y1 - y0) + 0.3


def _rect(r):
    return b"%.3f %.3f %.3f %.3f re" % r


def _append(pdf, page, data, resources=None):
    page.contents_add(pdf.make_stream(data), prepend=False)
    for kind, entries in (resources or {}).items():
        res = page.obj.Resources
        if kind not in res:
            res[kind] = pikepdf.Dictionary()
        for key, value in entries.items():
            res[kind][key] = value


def make(name, src, dst):
    """Write ``dst``: ``src`` with the tamper ``name``."""
    t = _targets(src)
    two, minus, eq, three, geq, line = t["two"], t["minus"], t["eq"], t["three"], t["geq"], t["line"]
    if name == "incremental-update":
        return _incremental(src, dst, b"q 1 g " + _rect(_top(two)) + b" f Q\n")
    pdf = pikepdf.open(src)
    page = pdf.pages[0]
    if name == "fill-white-stroke-black":
        _append(pdf, page, b"q 1 g 0 G 0.3 w " + _rect(_bar(minus)) + b" B Q\n")
    elif name == "three-into-eight":
        x0, y0, x1, y1 = three
        my = (y0 + y1) / 2
        _append(pdf, page, b"q 1 g 0 G 0.45 w %.3f %.3f m %.3f %.3f %.3f %.3f %.3f %.3f c %.3f %.3f %.3f %.3f "
                b"%.3f %.3f c h B Q\n" % (x0 + 1.8, y1 - 1.0, x0 + 0.1, y1 - 1.0, x0 + 0.1, my + 0.3, x0 + 1.8, my,
                                         x0 + 0.1, my - 0.3, x0 + 0.1, y0 + 1.0, x0 + 1.8, y0 + 1.0))
    elif name == "equals-into-not-equals":
        x0, y0, x1, y1 = eq
        _append(pdf, page, b"q 1 g 0 G 0.3 w %.3f %.3f m %.3f %.3f l %.3f %.3f l %.3f %.3f l h B Q\n"
                % (x0 + 1.5, y0 - 2.2, x1 - 1.8, y1 + 2.2, x1 - 1.2, y1 + 2.2, x0 + 2.1, y0 - 2.2))
    elif name == "crossed-out":
        x0, y0, x1, y1 = line
        _append(pdf, page, b"q 1 g 0 G 0.3 w %.3f %.3f m %.3f %.3f l %.3f %.3f l h B "
                b"%.3f %.3f m %.3f %.3f l %.3f %.3f l h B Q\n"
                % (x0, y0, x1, y1, x1 - 0.5, y1, x0, y1, x1, y0, x1 - 0.5, y0))
    elif name in ("clip-top-of-two", "clip-underline-of-geq"):
        cut = _top(two, 0.35) if name == "clip-top-of-two" else (geq[0] - 0.3, geq[1] - 0.3, geq[2] - geq[0] + 0.6,
                                                                  1.6)
        page.contents_add(pdf.make_stream(b"q -10000 -10000 30000 30000 re " + _rect(cut) + b" W* n\n"), prepend=True)
        _append(pdf, page, b"Q\n")
    elif name == "white-six-percent":
        x0, y0, x1, y1 = two
        side = (0.06 * (x1 - x0) * (y1 - y0)) ** 0.5
        _append(pdf, page, b"q 1 g " + _rect((x0 + 0.35 * (x1 - x0), y1 - side, side, side)) + b" f Q\n")
    elif name == "stroke-alpha":
        _append(pdf, page, b"q /SyGS gs 0 g 0 G 0.3 w " + _rect(_bar(minus)) + b" B Q\n",
                {"/ExtGState": {"/SyGS": pikepdf.Dictionary(Type=pikepdf.Name.ExtGState, ca=0, CA=1)}})
    elif name == "difference-blend":
        _append(pdf, page, b"q /SyGS gs 1 g " + _rect(_top(two)) + b" f Q\n",
                {"/ExtGState": {"/SyGS": pikepdf.Dictionary(Type=pikepdf.Name.ExtGState,
                                                             BM=pikepdf.Name.Difference)}})
    elif name == "calrgb":
        cal = pikepdf.Array([pikepdf.Name.CalRGB, pikepdf.Dictionary(WhitePoint=[0.9505, 1, 1.089])])
        _append(pdf, page, b"q /SyCS cs 0 0 0 sc " + _rect(_bar(minus)) + b" f Q\n", {"/ColorSpace": {"/SyCS": cal}})
    elif name == "optional-content-print":
        ocg = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.OCG, Name="print", Usage=pikepdf.Dictionary(
            Print=pikepdf.Dictionary(PrintState=pikepdf.Name.ON), View=pikepdf.Dictionary(ViewState=pikepdf.Name.OFF))))
        pdf.Root.OCProperties = pikepdf.Dictionary(OCGs=[ocg], D=pikepdf.Dictionary(OFF=[ocg], AS=[
            pikepdf.Dictionary(Event=pikepdf.Name.View, OCGs=[ocg], Category=[pikepdf.Name.View]),
            pikepdf.Dictionary(Event=pikepdf.Name.Print, OCGs=[ocg], Category=[pikepdf.Name.Print])]))
        _append(pdf, page, b"/OC /SyOC BDC q 1 g " + _rect(_top(two)) + b" f Q EMC\n",
                {"/Properties": {"/SyOC": ocg}})
    elif name == "optional-content-other-configuration":
        ocg = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.OCG, Name="other"))
        pdf.Root.OCProperties = pikepdf.Dictionary(OCGs=[ocg], D=pikepdf.Dictionary(OFF=[ocg]), Configs=[
            pikepdf.Dictionary(Name=pikepdf.String("All"), ON=[ocg])])
        _append(pdf, page, b"/OC /SyOC BDC q 0 g " + _rect(_bar(minus)) + b" f Q EMC\n",
                {"/Properties": {"/SyOC": ocg}})
    elif name == "annotation-print-only":
        x, y, w, h = _top(two)
        ap = pdf.make_stream(b"1 g 0 0 %.3f %.3f re f\n" % (w, h), Type=pikepdf.Name.XObject,
                             Subtype=pikepdf.Name.Form, BBox=[0, 0, w, h])
        annot = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.Link,
                                                     Rect=[x, y, x + w, y + h], F=4 | 32, Border=[0, 0, 0],
                                                     AP=pikepdf.Dictionary(N=ap)))
        page.obj.Annots = pdf.make_indirect(pikepdf.Array(list(page.obj.get("/Annots", [])) + [annot]))
    elif name == "image-over-digit":
        x, y, w, h = _top(two)
        image = pdf.make_stream(b"\xff" * 4, Type=pikepdf.Name.XObject, Subtype=pikepdf.Name.Image, Width=2,
                                Height=2, ColorSpace=pikepdf.Name.DeviceGray, BitsPerComponent=8)
        _append(pdf, page, b"q %.3f 0 0 %.3f %.3f %.3f cm /SyIm Do Q\n" % (w, h, x, y), {"/XObject": {"/SyIm": image}})
    elif name == "shading":
        x, y, w, h = _top(two)
        shading = pikepdf.Dictionary(ShadingType=2, ColorSpace=pikepdf.Name.DeviceGray, Coords=[x, y, x + w, y],
                                     Function=pikepdf.Dictionary(FunctionType=2, Domain=[0, 1], C0=[1], C1=[1], N=1))
        _append(pdf, page, b"q " + _rect((x, y, w, h)) + b" W n /SySh sh Q\n", {"/Shading": {"/SySh": shading}})
    elif name == "form-xobject":
        x, y, w, h = _top(two)
        form = pdf.make_stream(b"1 g 0 0 %.3f %.3f re f\n" % (w, h), Type=pikepdf.Name.XObject,
                               Subtype=pikepdf.Name.Form, BBox=[0, 0, w, h])
        _append(pdf, page, b"q 1 0 0 1 %.3f %.3f cm /SyFm Do Q\n" % (x, y), {"/XObject": {"/SyFm": form}})
    elif name == "pattern-fill":
        cell = pdf.make_stream(b"1 g 0 0 4 4 re f\n", Type=pikepdf.Name.Pattern, PatternType=1, PaintType=1,
                               TilingType=1, BBox=[0, 0, 4, 4], XStep=4, YStep=4, Resources=pikepdf.Dictionary())
        _append(pdf, page, b"q /Pattern cs /SyPt scn " + _rect(_top(two)) + b" f Q\n", {"/Pattern": {"/SyPt": cell}})
    elif name == "type3-glyph":
        x, y, w, h = _bar(minus)
        proc = pdf.make_stream(b"600 0 0 0 600 1000 d1 0 0 600 1000 re f\n")
        font = pdf.make_indirect(pikepdf.Dictionary(
            Type=pikepdf.Name.Font, Subtype=pikepdf.Name.Type3, FontBBox=[0, 0, 600, 1000],
            FontMatrix=[0.001, 0, 0, 0.001, 0, 0], CharProcs=pikepdf.Dictionary(bar=proc),
            Encoding=pikepdf.Dictionary(Type=pikepdf.Name.Encoding, Differences=[65, pikepdf.Name.bar]),
            FirstChar=65, LastChar=65, Widths=[600], Resources=pikepdf.Dictionary()))
        _append(pdf, page, b"q 0 g BT /SyT3 1 Tf %.3f 0 0 %.3f %.3f %.3f Tm (A) Tj ET Q\n" % (w / 0.6, h, x, y),
                {"/Font": {"/SyT3": font}})
    elif name == "light-green-one":
        x0, y0, x1, y1 = two
        _append(pdf, page, b"q 0 0.9 0 rg " + _rect((x0 - 1.4, y0, 0.7, y1 - y0)) + b" f Q\n")
    elif name == "orange-bar-behind-minus":
        page.contents_add(pdf.make_stream(b"q 1 0.65 0 rg " + _rect(_bar(minus)) + b" f Q\n"), prepend=True)
    elif name == "fraction-bar-between-entries":
        four = t["four"]
        x0, x1, mid = min(three[0], four[0]) - 0.3, max(three[2], four[2]) + 0.3, (three[1] + four[3]) / 2
        _append(pdf, page, b"q 0 g " + _rect((x0, mid - 0.2, x1 - x0, 0.4)) + b" f Q\n")
    elif name == "rule-under-equals":
        x0, y0, x1, y1 = eq
        _append(pdf, page, b"q 0 g " + _rect((x0, y0 - 1.3, x1 - x0, 0.4)) + b" f Q\n")
    elif name == "rule-over-minus":
        x0, y0, x1, y1 = minus
        _append(pdf, page, b"q 0 g " + _rect((x0, y1 + 1.3, x1 - x0, 0.4)) + b" f Q\n")
    elif name == "widget-annotation":
        x, y, w, h = _top(two)
        ap = pdf.make_stream(b"1 g 0 0 %.3f %.3f re f\n" % (w, h), Type=pikepdf.Name.XObject,
                             Subtype=pikepdf.Name.Form, BBox=[0, 0, w, h])
        field = pdf.make_indirect(pikepdf.Dictionary(Type=pikepdf.Name.Annot, Subtype=pikepdf.Name.Widget,
                                                     FT=pikepdf.Name.Tx, T=pikepdf.String("f"), F=4,
                                                     Rect=[x, y, x + w, y + h], AP=pikepdf.Dictionary(N=ap)))
        page.obj.Annots = pdf.make_indirect(pikepdf.Array(list(page.obj.get("/Annots", [])) + [field]))
        pdf.Root.AcroForm = pikepdf.Dictionary(Fields=[field])
    elif name == "white-glyph-cover":
        x, y, w, h = _top(two)
        fonts = page.obj.Resources.Font
        key = next(iter(fonts.keys()))
        _append(pdf, page, b"q 1 g BT %s 1 Tf %.3f 0 0 %.3f %.3f %.3f Tm (x) Tj ET Q\n"
                % (str(key).encode(), w * 2, h * 2, x, y))
    elif name == "glyph-over-minus":
        fonts = page.obj.Resources.Font
        key = next(k for k in fonts.keys() if str(fonts[k].get("/BaseFont", "")).endswith("+CMR10"))
        cx, cy = (minus[0] + minus[2]) / 2, (minus[1] + minus[3]) / 2
        _append(pdf, page, b"q 0 g BT %s 8 Tf 1 0 0 1 %.3f %.3f Tm (1) Tj ET Q\n"
                % (str(key).encode(), cx - 2.0, cy - 2.6))
    elif name == "paren-over-minus":
        fonts = page.obj.Resources.Font
        key = next(k for k in fonts.keys() if str(fonts[k].get("/BaseFont", "")).endswith("+CMR10"))
        cx, cy = (minus[0] + minus[2]) / 2, (minus[1] + minus[3]) / 2
        _append(pdf, page, b"q 0 g BT %s 1 Tf 3 0 0 6 %.3f %.3f Tm (\\() Tj ET Q\n"
                % (str(key).encode(), cx - 0.35, cy - 1.5))
    else:
        raise ValueError(name)
    pdf.save(dst)


def _incremental(src, dst, data):
    """Append to ``src`` an incremental update adding a content stream to page 1, as an editor saves one."""
    pdf = pikepdf.open(src)
    page = pdf.pages[0].obj
    number = len(pdf.objects) + 1
    contents = page.Contents
    old = [c.objgen for c in (contents if isinstance(contents, pikepdf.Array) else [contents])]
    page_ref = page.objgen
    resources = page.Resources.unparse()
    parent = page.Parent.objgen
    media = page.MediaBox.unparse()
    pdf.close()
    with open(src, "rb") as fh:
        body = fh.read()
    offsets, out = {}, bytearray(body if body.endswith(b"\n") else body + b"\n")
    offsets[number] = len(out)
    out += b"%d 0 obj\n<< /Length %d >>\nstream\n" % (number, len(data)) + data + b"\nendstream\nendobj\n"
    offsets[page_ref[0]] = len(out)
    refs = b" ".join(b"%d %d R" % o for o in old)
    out += (b"%d %d obj\n<< /Type /Page /Parent %d %d R /MediaBox %s /Resources %s /Contents [%s %d 0 R] >>\nendobj\n"
            % (page_ref[0], page_ref[1], parent[0], parent[1], media, resources, refs, number))
    start = len(out)
    out += b"xref\n0 1\n0000000000 65535 f \n"
    for obj in sorted(offsets):
        out += b"%d 1\n%010d %05d n \n" % (obj, offsets[obj], page_ref[1] if obj == page_ref[0] else 0)
    prev = int(body[body.rindex(b"startxref") + 9:].split()[0])
    with pikepdf.open(src) as pdf:
        root, size = pdf.Root.objgen, max(len(pdf.objects) + 2, number + 1)
    out += b"trailer\n<< /Size %d /Root %d %d R /Prev %d >>\nstartxref\n%d\n%%%%EOF\n" % (size, root[0], root[1],
                                                                                          prev, start)
    with open(dst, "wb") as fh:
        fh.write(bytes(out))
