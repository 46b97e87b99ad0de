"""The pixels decide: each certified statement's lines as PDFium shows them, compared with its glyphs alone.

A reader sees what a PDF viewer draws, whatever content-stream operator drew it.  So every region that holds a
certified statement (each of its lines on the page, grown by :data:`MARGIN` points, kept within its column) is
rendered by PDFium at :data:`SCALE` pixels per point twice, as the page is **viewed** (annotations drawn, optional
content as viewed) and as it is **printed** (PDFium's printing flag: print-only annotations and optional content
as printed), and a third time with **every layer** of optional content shown when the file has some (another
configuration, a viewer's layer menu or a script can show a layer the default one hides), and compared with a **reference** rendering of the same region from a copy of the document that
keeps only the text-showing operators (every glyph of a font program, drawn in black, unclipped, without
transparency, blend modes, soft masks or optional content; Type 3 glyphs are left out) and the thin straight rules
that run through no glyph (fraction bars, table and algorithm rules, a QED box), drawn in black on white.  The
glyphs' outlines are those :mod:`symssm.audit.pages` checked against TeX Live's font files.

Both renderings become ink masks (a pixel is ink where its contrast with white is at least 2, the
:data:`symssm.audit.pages.MIN_CONTRAST` of a glyph).  They agree when every ink pixel of one lies within
:data:`TOLERANCE` pixel of an ink pixel of the other (anti-aliasing moves an edge by one pixel); a region fails with
more than :data:`MAX_DIFFERING` differing pixels, whatever put them there.

The audit reads one final document: the file as PDFium opens it (incremental updates applied), written out once
by PDFium (:func:`final_document`), so that every reader (pdfminer, qpdf, PDFium) reads the same objects.

>>> ink(np.array([[[0, 0, 0], [255, 255, 255], [0, 0, 255], [255, 255, 0]]], dtype=np.uint8)).tolist()
[[True, False, True, False]]
"""

import io
import math
import re

import numpy as np
import pikepdf
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from ..errors import InputError, LimitError
from .pages import PdfReadError, _extent, _grow, _gutter, _rows, line_text

__all__ = ["SCALE", "MARGIN", "TOLERANCE", "MAX_DIFFERING", "TRACE", "SOLID", "VISIBLE", "BACKDROP", "RULE", "HUG",
           "FRACTION", "final_document", "revisions", "ink", "luminance", "paint", "line_rects", "overlays",
           "fraction_bars",
           "reference_document", "Pixels"]

#: Pixels per point of the renderings compared (288 dpi).
SCALE = 4.0
#: Points around each line of a statement that belong to its region (within its column).
MARGIN = 3.0
#: Pixels an ink edge may move between the page and the reference (anti-aliasing).
TOLERANCE = 1
#: Differing pixels a region may hold and still agree: two, for a glyph's corner that the reference (drawn apart
#: from its neighbours) and the page round apart, as in a display's fractions; the smallest tamper measured, a
#: white box over 6 % of a glyph, differs by 6 or more at 288 dpi.
MAX_DIFFERING = 2
#: Relative luminance of the reference's faintest trace of ink (an anti-aliased edge: a page's ink pixel must lie
#: within :data:`TOLERANCE` of one) and of its solid ink (which the page must show within :data:`TOLERANCE`): a
#: light background under the text (a tinted box) darkens the page's edges, never its glyphs' solid strokes.
TRACE, SOLID = 0.9, 0.2
#: Contrast with the paint around it from which a pixel of the page is visible paint: the backdrop of a pixel is the
#: page with every stroke narrower than ``2 * BACKDROP + 1`` pixels lifted off (a tinted box under the text stays),
#: so a light stroke (an orange or bright green bar, a light grey digit) is paint there, a tint is not.
VISIBLE, BACKDROP = 1.3, 6
#: Thickest rule (points) the reference draws: thin straight rules that run through no glyph.
RULE = 1.2
#: A rule closer than this (points) to a glyph along a third of its length touches it; a fraction bar has its
#: numerator and denominator within :data:`FRACTION` points.
HUG, FRACTION = 2.0, 5.0
#: ... or closer than this share of the glyph's size (a third bar 2 pt under a 10 pt "=" still reads as "≡").
HUG_EM = 0.3
#: Largest region rendered at once (pixels); a larger one is refused.
MAX_REGION_PIXELS = 40_000_000
#: Words of a prose line compared pixel by pixel (with the lines before and after it): a number of heads, k(n),
#: an interaction rank, a decay, "suffices".
PROSE_WORDS = re.compile(r"\bheads?\b|\bk\s*[(_=]|\brank\b|\bdecay|\bsuffic|\bsingle\b|\bstates?\b", re.I)

# relative luminance of an sRGB byte, and the largest luminance of ink (contrast 2 with white: (1.05 / 2) - 0.05)
_LINEAR = np.array([c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
                    for c in (i / 255.0 for i in range(256))], dtype=np.float32)
_INK = 1.05 / 2.0 - 0.05
_LUT = [np.round(k * 65535 * _LINEAR).astype(np.uint32) for k in (0.2126, 0.7152, 0.0722)]


def luminance(rgb):
    """The relative luminance (WCAG's) of each pixel of an RGB image (``uint8``, height x width x 3), in
    1/65535ths (``uint32``)."""
    return _LUT[0][rgb[..., 0]] + _LUT[1][rgb[..., 1]] + _LUT[2][rgb[..., 2]]


def ink(rgb, limit=None):
    """Where an RGB image (``uint8``, height x width x 3) has ink: contrast with white of 2 or more (``limit``:
    at most this relative luminance instead)."""
    return luminance(rgb) <= round(65535 * (_INK if limit is None else limit))


def _spread(lum, r, pick, axis):
    """``pick`` (``np.maximum`` or ``np.minimum``) of each pixel's 2r + 1 neighbours along ``axis``, edges
    repeated (windows doubled: 1, 2, 4, ... then the rest)."""
    n = lum.shape[axis]
    out = np.pad(lum, [(r, r) if a == axis else (0, 0) for a in range(lum.ndim)], mode="edge")
    width = 1
    while 2 * width <= 2 * r + 1:
        m = out.shape[axis] - width
        out = pick(out.take(range(m), axis), out.take(range(width, width + m), axis))
        width *= 2
    rest = 2 * r + 1 - width
    if rest:
        out = pick(out.take(range(n), axis), out.take(range(rest, rest + n), axis))
    return out.take(range(n), axis)


def paint(rgb, r=BACKDROP, contrast=VISIBLE):
    """Where an RGB image (``uint8``, height x width x 3) shows visible paint on its backdrop: a contrast of at
    least ``contrast`` with the image closed by a square of ``2r + 1`` pixels (the lightest paint around each
    pixel, then the darkest of those: strokes narrower than the square lifted off, wide areas and their edges
    kept).

    >>> img = np.full((1, 40, 3), 255, dtype=np.uint8); img[0, 5] = (255, 166, 0); img[0, 20:] = (200, 200, 200)
    >>> [int(i) for i in np.nonzero(paint(img)[0])[0]], bool(ink(img[:, 5:6])[0, 0])
    ([5], False)
    """
    lum = np.minimum(luminance(rgb), 65535).astype(np.uint16)
    backdrop = lum
    for pick in (np.maximum, np.minimum):
        backdrop = _spread(_spread(backdrop, r, pick, 0), r, pick, 1)
    return (backdrop.astype(np.uint32) + 3277) * 100 >= (lum.astype(np.uint32) + 3277) * round(100 * contrast)


def revisions(data):
    """How many revisions a PDF file's bytes hold: one per ``startxref ... %%EOF`` section (the first save and
    each incremental update), a linearized file's first-page section not counted.

    >>> revisions(b"%PDF-1.5 ... startxref 120 %%EOF"), revisions(b"startxref\\n9\\n%%EOF\\n... startxref\\n99\\n%%EOF")
    (1, 2)
    >>> revisions(b"%PDF-1.5 1 0 obj << /Linearized 1 >> ... startxref 0 %%EOF ... startxref 99 %%EOF")
    1
    """
    count = len(re.findall(rb"startxref\s+\d+\s+%%EOF", data))
    return max(1, count - (b"/Linearized" in data[:2048]))


def final_document(path, out):
    """Write to ``out`` the document PDFium opens from ``path`` (incremental updates applied), as one revision;
    return how many revisions ``path`` holds.

    Raises
    ------
    InputError
        If the file cannot be read or PDFium cannot open it.
    """
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise PdfReadError(f"cannot open {path}: {exc.strerror or exc}") from None
    if b"%PDF-" not in data[:1024]:
        raise PdfReadError(f"{path} is not a PDF file (no %PDF- header)")
    try:
        doc = pdfium.PdfDocument(data)
    except Exception as exc:  # pdfium.PdfiumError and others on a damaged file
        raise PdfReadError(f"PDFium cannot open {path}: {type(exc).__name__}") from None
    try:
        buf = io.BytesIO()
        doc.save(buf, flags=pdfium_c.FPDF_NO_INCREMENTAL)
    except Exception as exc:
        raise PdfReadError(f"PDFium cannot write the final document of {path}: {type(exc).__name__}") from None
    finally:
        doc.close()
    with open(out, "wb") as fh:
        fh.write(buf.getvalue())
    return revisions(data)


# ---------------------------------------------------------------------------------------------- regions


def _column(page, cache):
    if page.number not in cache:
        cache[page.number] = _gutter([g for g in page.glyphs if g.upright and g.char.strip()], page.cropbox)
    return cache[page.number]


def line_rects(page, glyphs, gutter=None, margin=MARGIN):
    """The region of some glyphs of ``page``: one box per line (glyphs on one baseline), grown by ``margin``
    points and kept within the column of its glyphs (``gutter``: :func:`symssm.audit.pages._gutter`'s band).

    >>> from symssm.audit.pages import Glyph, Page
    >>> a = Glyph("a", "CMR10", 10.0, (10.0, 0.0, 15.0, 5.0), 0, (), (10.0, 0.0), 5.0)
    >>> line_rects(Page(1, (0.0, 0.0, 100.0, 100.0), (a,), (), ()), [a])
    [(7.0, 0.0, 18.0, 8.0)]
    """
    out = []
    upright = [g for g in glyphs if g.upright]
    groups = _rows(upright) + [[g] for g in glyphs if not g.upright]
    for row in groups:
        parts = [row] if gutter is None else [p for p in (
            [g for g in row if g.bbox[2] <= gutter[0]], [g for g in row if g.bbox[0] >= gutter[1]],
            [g for g in row if g.bbox[2] > gutter[0] and g.bbox[0] < gutter[1]]) if p]
        for part in parts:
            x0, y0, x1, y1 = _extent(part)
            x0, y0, x1, y1 = x0 - margin, y0 - margin, x1 + margin, y1 + margin
            if gutter is not None and x1 <= gutter[0] + margin:       # left column: not across the gutter
                x1 = min(x1, gutter[0])
            elif gutter is not None and x0 >= gutter[1] - margin:
                x0 = max(x0, gutter[1])
            c = page.cropbox
            box = (max(x0, c[0]), max(y0, c[1]), min(x1, c[2]), min(y1, c[3]))
            if box[2] > box[0] and box[3] > box[1]:
                out.append(box)
    return out


# ---------------------------------------------------------------------------------------------- reference

#: Operators the reference keeps: the graphics state's nesting and matrix, and text.
_KEEP = {"q", "Q", "cm", "BT", "ET", "Tc", "Tw", "Tz", "TL", "Tf", "Ts", "Td", "TD", "Tm", "T*", "Tj", "TJ", "'", '"'}
_HUGE = [-1e5, -1e5, 1e5, 1e5]


def _name(obj):
    try:
        return str(obj)
    except Exception:
        return ""


def _filtered(pdf, ops, resources, seen):
    """A content stream's text-showing operators (in black, render mode 0), its forms filtered in place."""
    out = [([0], pikepdf.Operator("g")), ([0], pikepdf.Operator("G")), ([0], pikepdf.Operator("Tr"))]
    depth = 0
    xobjects = resources.get("/XObject") if resources is not None else None
    fonts = resources.get("/Font") if resources is not None else None
    if fonts is not None:
        for key in list(fonts.keys()):
            font = fonts[key]
            if isinstance(font, pikepdf.Dictionary) and _name(font.get("/Subtype")) == "/Type3":
                for proc in list(font.CharProcs.keys()) if "/CharProcs" in font else ():
                    font.CharProcs[proc] = pdf.make_stream(b"0 0 0 0 0 0 d1")
    for instruction in ops:
        if isinstance(instruction, pikepdf.ContentStreamInlineImage):
            continue
        operands, op = instruction.operands, _name(instruction.operator)
        if op == "q":
            depth += 1
        elif op == "Q":
            if depth == 0:
                continue
            depth -= 1
        elif op == "Do":
            try:
                xobj = xobjects[operands[0]] if xobjects is not None else None
            except (KeyError, IndexError, TypeError):
                xobj = None
            if xobj is None or _name(xobj.get("/Subtype")) != "/Form":
                continue
            _filter_form(pdf, xobj, resources, seen)
        elif op not in _KEEP:
            continue
        out.append((list(operands), instruction.operator))
    out += [([], pikepdf.Operator("Q"))] * depth
    return out


def _filter_form(pdf, form, inherited, seen):
    key = form.objgen
    if key in seen:
        return
    seen.add(key)
    resources = form.get("/Resources", inherited)
    try:
        ops = pikepdf.parse_content_stream(form)
    except Exception:
        ops = []
    form.write(pikepdf.unparse_content_stream(_filtered(pdf, ops, resources, seen)))
    form.BBox = pikepdf.Array(_HUGE)
    for name in ("/OC", "/Group", "/SMask"):
        if name in form:
            del form[name]


def _is_rule(page, drawing):
    """Whether a drawing is a rule of the typesetting: thin and straight (axis-aligned, at most :data:`RULE`
    thick), through no glyph's ink (a strike-out is not), and, when at most 1.2 em long, touching no glyph
    along its length (closer than :data:`HUG` points or :data:`HUG_EM` of its size, over a third of the rule:
    a bar added under "=" or over "-") unless it is a fraction bar (glyphs within :data:`FRACTION` points above and below it, all inside its
    span).  Longer rules (a table's, an underlined phrase's) are the typesetting's."""
    kind, box, _, parts = drawing
    if kind != "drawing":
        return False
    w, h = box[2] - box[0], box[3] - box[1]
    if min(w, h) > RULE or max(w, h) <= 0:
        return False
    flat = w >= h
    if parts and not all((p[1] >= box[1] - 0.01 and p[3] <= box[3] + 0.01) if flat else
                         (p[0] >= box[0] - 0.01 and p[2] <= box[2] + 0.01) for p in parts):
        return False
    a0, a1 = (0, 2) if flat else (1, 3)           # along the rule; across it: the other two
    c0, c1 = (1, 3) if flat else (0, 2)
    length = box[a1] - box[a0]
    hugging, above, below = False, [], []
    for g in page.glyphs:
        b = g.bbox
        gx, gy = 0.15 * (b[2] - b[0]), 0.15 * (b[3] - b[1])
        if box[0] < b[2] - gx and b[0] + gx < box[2] and box[1] < b[3] - gy and b[1] + gy < box[3]:
            return False                                        # through a glyph
        along = min(box[a1], b[a1]) - max(box[a0], b[a0])
        if along <= 0:
            continue
        gap_after, gap_before = b[c0] - box[c1], box[c0] - b[c1]
        near = max(HUG, HUG_EM * g.size)
        if -0.01 < gap_after < near or -0.01 < gap_before < near:
            hugging = hugging or along > length / 3 and length <= 1.2 * g.size
        if flat and -0.01 < gap_after < FRACTION:
            above.append(b)
        if flat and -0.01 < gap_before < FRACTION:
            below.append(b)
    if not hugging:
        return True
    return _fraction(box, above, below)


def _fraction(box, above, below):
    """Whether a flat rule with glyph boxes ``above`` and ``below`` it (within :data:`FRACTION` points) is a
    fraction bar: glyphs on both sides, all within its span."""
    return bool(above and below) and all(box[0] - 1.0 <= b[0] and b[2] <= box[2] + 1.0 for b in above + below)


def fraction_bars(page, rects):
    """The rules of the typesetting on ``page`` (:func:`_is_rule`) that meet ``rects`` and read as fraction bars
    (glyphs within :data:`FRACTION` points above and below, all within the rule's span), each as its box."""
    out = []
    for drawing in page.drawings:
        box = drawing[1]
        if box[2] - box[0] < box[3] - box[1] or not any(_meets(box, r) for r in rects) or not _is_rule(page, drawing):
            continue
        above, below = [], []
        for g in page.glyphs:
            b = g.bbox
            if min(box[2], b[2]) - max(box[0], b[0]) <= 0:
                continue
            if -0.01 < b[1] - box[3] < FRACTION:
                above.append(b)
            if -0.01 < box[1] - b[3] < FRACTION:
                below.append(b)
        if _fraction(box, above, below):
            out.append(box)
    return out


def reference_document(path, pages):
    """The reference: ``path``'s pages with only their text-showing operators (in black), their thin straight
    rules and no annotations, as PDF bytes.

    Raises
    ------
    InputError
        If qpdf cannot open the file.
    """
    try:
        pdf = pikepdf.open(path)
    except Exception as exc:
        raise PdfReadError(f"qpdf cannot open {path}: {type(exc).__name__}") from None
    with pdf:
        seen = set()
        for number, page in enumerate(pdf.pages, start=1):
            try:
                ops = pikepdf.parse_content_stream(page)
            except Exception:
                ops = []
            try:
                body = pikepdf.unparse_content_stream(_filtered(pdf, ops, page.get("/Resources"), seen))
            except Exception:
                body = b""
            info = pages[number - 1] if number <= len(pages) else None
            rules = [d[1] for d in (info.drawings if info is not None else ()) if _is_rule(info, d)]
            tail = b"".join(b"%.3f %.3f %.3f %.3f re f\n" % (b[0], b[1], b[2] - b[0], b[3] - b[1]) for b in rules)
            page.obj.Contents = pdf.make_stream(b"q\n" + body + b"\nQ\n0 g\n" + tail)
            for name in ("/Annots", "/Group"):
                if name in page.obj:
                    del page.obj[name]
        if "/OCProperties" in pdf.Root:
            del pdf.Root["/OCProperties"]
        buf = io.BytesIO()
        pdf.save(buf)
    return buf.getvalue()


def every_layer(path):
    """``path`` with its optional content's configurations removed, so that every layer shows (as a viewer
    shows it when a layer menu, another configuration or a script turns the layers on), as PDF bytes; ``None``
    when the file has no optional content.

    Raises
    ------
    InputError
        If qpdf cannot open the file.
    """
    try:
        pdf = pikepdf.open(path)
    except Exception as exc:
        raise PdfReadError(f"qpdf cannot open {path}: {type(exc).__name__}") from None
    with pdf:
        if "/OCProperties" not in pdf.Root:
            return None
        del pdf.Root["/OCProperties"]
        buf = io.BytesIO()
        pdf.save(buf)
    return buf.getvalue()


# ---------------------------------------------------------------------------------------------- comparison


class Pixels:
    """The pixel comparison of one final document (:func:`final_document`) read as ``pages``
    (:func:`symssm.audit.pages.read_pdf`).  :meth:`close` when done."""

    def __init__(self, path, pages):
        self.path, self.pages, self.gutters = path, {p.number: p for p in pages}, {}
        self.page_list = pages
        self.doc = self.reference = self.layers = None
        self.opened = {}

    def _open(self):
        if self.doc is None:
            try:
                self.doc = pdfium.PdfDocument(self.path)
                self.doc.init_forms()       # form fields drawn as a viewer draws them
                self.reference = pdfium.PdfDocument(reference_document(self.path, self.page_list))
                layers = every_layer(self.path)
                self.layers = pdfium.PdfDocument(layers) if layers is not None else None
            except InputError:
                raise
            except Exception as exc:
                raise PdfReadError(f"PDFium cannot open {self.path}: {type(exc).__name__}") from None

    def close(self):
        for page in self.opened.values():
            page.close()
        self.opened.clear()
        for doc in (self.doc, self.reference, self.layers):
            if doc is not None:
                doc.close()
        self.doc = self.reference = self.layers = None

    def _page(self, doc, number):
        key = (id(doc), number)
        if key not in self.opened:
            page = self.opened[key] = doc[number - 1]
            page.set_rotation(0)
        return self.opened[key]

    def _render(self, doc, number, box, printing, annots):
        try:
            page = self._page(doc, number)
            cx0, cy0, cx1, cy1 = page.get_bbox()
            s = SCALE
            left = max(0.0, math.floor((box[0] - cx0) * s) / s)
            top = max(0.0, math.floor((cy1 - box[3]) * s) / s)
            right = max(0.0, math.floor((cx1 - box[2]) * s) / s)
            bottom = max(0.0, math.floor((box[1] - cy0) * s) / s)
            if (cx1 - cx0 - left - right) * (cy1 - cy0 - top - bottom) * s * s > MAX_REGION_PIXELS:
                raise LimitError(f"a region of page {number} is too large to compare pixel by pixel")
            bitmap = page.render(scale=s, crop=(left, bottom, right, top), may_draw_forms=annots,
                                 draw_annots=annots, optimize_mode="print" if printing else None,
                                 rev_byteorder=True, prefer_bgrx=False)
            image = np.array(bitmap.to_numpy()[:, :, :3])
        except (LimitError, InputError):
            raise
        except Exception as exc:
            raise PdfReadError(f"PDFium cannot render page {number} of {self.path}: {type(exc).__name__}") from None
        return image, (cx0 + left, cy1 - top)

    def compare(self, number, rects):
        """``{'view': (extra, missing), 'print': ..., 'every layer': ...}``: boolean masks of ink the page shows
        that the reference has not, and of reference ink the page does not show, over the union of ``rects``
        (user space) on page ``number``, as viewed, as printed and (for a file with optional content) with every
        layer shown; with the region's top-left corner in user space."""
        self._open()
        box = (min(r[0] for r in rects), min(r[1] for r in rects), max(r[2] for r in rects), max(r[3] for r in rects))
        out = {}
        modes = [("view", False, self.doc), ("print", True, self.doc)]
        modes += [("every layer", False, self.layers)] if self.layers is not None else []
        for mode, printing, doc in modes:
            shown, origin = self._render(doc, number, box, printing, True)
            want, _ = self._render(self.reference, number, box, printing, False)
            h, w = min(shown.shape[0], want.shape[0]), min(shown.shape[1], want.shape[1])
            mask = np.zeros((h, w), dtype=bool)
            for x0, y0, x1, y1 in rects:
                c0, c1 = int(math.floor((x0 - origin[0]) * SCALE)), int(math.ceil((x1 - origin[0]) * SCALE))
                r0, r1 = int(math.floor((origin[1] - y1) * SCALE)), int(math.ceil((origin[1] - y0) * SCALE))
                mask[max(0, r0):max(0, r1), max(0, c0):max(0, c1)] = True
            lum = luminance(want[:h, :w])
            a = ink(shown[:h, :w])
            trace, solid = lum <= round(65535 * TRACE), lum <= round(65535 * SOLID)
            away = ~_grow(trace, TOLERANCE) & mask
            extra = a & away
            # light paint (no ink) away from the glyphs: on its backdrop, where some pixel is light enough to be
            # visible on white at all (the backdrop is computed only then)
            light = ~a & away
            light &= luminance(shown[:h, :w]) <= round(65535 * (1.05 / VISIBLE - 0.05))
            if light.any():
                extra |= light & paint(shown[:h, :w])
            out[mode] = (extra, solid & ~_grow(a, TOLERANCE) & mask)
        return out, origin

    def differences(self, number, glyphs):
        """Why the region of ``glyphs`` (all on page ``number``) does not show them as they are: one reason
        naming where the pixels differ (``'the page shows 57 pixels of ink the certified glyphs do not have,
        at "3" (page 1)'``), or ``()``."""
        page = self.pages[number]
        rects = line_rects(page, glyphs, _column(page, self.gutters))
        if not rects:
            return ()
        masks, origin = self.compare(number, rects)
        counts = {k: sum(int(m.sum()) for m in v) for k, v in masks.items()}
        if max(counts.values()) <= MAX_DIFFERING:
            return ()
        mode = next(k for k, n in counts.items() if n > MAX_DIFFERING)
        extra, missing = masks[mode]
        when = {"print": " when printed", "every layer": " with every layer of optional content shown"}.get(mode, "")
        parts = []
        for what, mask in (("ink the certified glyphs do not have", extra), ("none of the ink of", missing)):
            n = int(mask.sum())
            if n:
                at = _where(mask, origin, page.glyphs)
                parts.append(f"{n} pixel{'s' * (n != 1)} of ink the glyphs do not have{at}" if mask is extra
                             else f"{n} pixel{'s' * (n != 1)} of the glyphs' ink missing{at}")
        return (f"the page{when} differs from its glyphs: {' and '.join(parts)} (page {number})",)

    def statement(self, glyphs, bars=None):
        """:meth:`differences` of a statement's glyphs (``(page number, Glyph)`` pairs), page by page, and the
        glyphs drawn over one another in its lines (:func:`overlays`): a text glyph over a glyph of the
        statement is in the reference too, so the pixels alone would not see it.  With ``bars`` (the most
        fraction bars the statement's TeX draws), more rules in its lines that read as fraction bars (a bar
        between two entries of a matrix makes a fraction of them) are named too: the reference draws them."""
        by_page = {}
        for number, g in glyphs:
            by_page.setdefault(number, []).append(g)
        out, found = [], []
        for number, gl in sorted(by_page.items()):
            out += self.differences(number, gl)
            page = self.pages[number]
            if bars is not None:
                found += [(number, b) for b in fraction_bars(page, line_rects(page, gl, _column(page, self.gutters)))]
            rects = line_rects(page, gl, _column(page, self.gutters), margin=0.0)
            near = [g for g in page.glyphs if g.char.strip() and any(_meets(g.bbox, r) for r in rects)]
            out += [f"{what} (page {number})" for what in overlays(near)]
        if bars is not None and len(found) > bars:
            number, box = found[bars]
            over = min((g for g in self.pages[number].glyphs if g.char.strip() and g.bbox[1] >= box[3] - 0.01
                        and min(box[2], g.bbox[2]) > max(box[0], g.bbox[0])), key=lambda g: g.bbox[1], default=None)
            at = f' under the "{over.char}"' if over is not None else ""
            out.append(f"a fraction bar{at} that the certified statement does not draw ({len(found)} in its lines, "
                       f"its TeX draws {'at most ' * bool(bars)}{bars or 'none'}) (page {number})")
        return tuple(dict.fromkeys(out))

    def prose(self, stream, covered=(), also=()):
        """``[(page number, line glyphs, reasons)]`` of the prose lines whose pixels differ: lines that name a
        number of heads, ``k(n)``, a rank or a decay (:data:`PROSE_WORDS`), the lines of text (8 glyphs or
        more) next to them, and the lines
        holding the glyph indices ``also``; lines of certified statements (glyph indices ``covered``) and lines
        inside a picture are left to their own comparison."""
        chosen = set()
        lines = [(first, end) for first, end in stream.lines if first not in stream.furniture]
        for k, (first, end) in enumerate(lines):
            text = line_text([g for _, g in stream.glyphs[first:end]])
            if PROSE_WORDS.search(text) or any(first <= i < end for i in also):
                chosen.add(k)
                # the lines before and after it, when they are lines of text (a page number is not)
                chosen.update(j for j in (k - 1, k + 1) if 0 <= j < len(lines) and lines[j][1] - lines[j][0] >= 8
                              and stream.glyphs[lines[j][0]][0] == stream.glyphs[first][0])
        out = []
        for k in sorted(chosen):
            first, end = lines[k]
            if all(i in covered for i in range(first, end)):
                continue
            number = stream.glyphs[first][0]
            glyphs = [g for _, g in stream.glyphs[first:end]]
            # a line inside a picture, or one drawn in light letters (on a dark title bar): not ink on white
            if any(_inside(g.bbox, box) for g in glyphs for box in self.pages[number].images) \
                    or any(g.color is not None and _light(g.color) for g in glyphs):
                continue
            for part in _words(glyphs):   # a line's parts apart from each other (a label beside a theorem)
                reasons = self.differences(number, part)
                if reasons:
                    out.append((number, tuple(part), reasons))
                    break
        return out


def _light(color):
    """Whether an RGB colour (0..1) is lighter than ink (contrast with white under 2)."""
    r, g, b = (_LINEAR[min(255, max(0, round(255 * c)))] for c in color)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b > _INK


def _words(glyphs):
    """A line's glyphs cut where the gap between two is wider than 1.5 em: the parts compared apart."""
    out = []
    for g in sorted(glyphs, key=lambda g: g.bbox[0]):
        if out and g.bbox[0] - max(h.bbox[2] for h in out[-1]) <= 1.5 * max(g.size, out[-1][-1].size):
            out[-1].append(g)
        else:
            out.append([g])
    return out


def overlays(glyphs):
    """``['a glyph "|" drawn over the "−"']``: pairs of different glyphs whose ink boxes overlap over at least 0.6
    of the smaller width and of the smaller height (a bar through a minus, a slash through "="), unless set
    one after the other on one baseline (the next one at least 0.8 of the advance further, or 0.5 when it is
    the next glyph painted, in the same font and size: a kern): one drawn over the other.  TeX's negation
    slash over a relation (``\\neq``) is read as one sign by the reading of the glyphs, and lineno's numbers
    of a second column (over the ends of the first column's lines) are read apart, not here.

    >>> from symssm.audit.pages import Glyph
    >>> minus = Glyph("−", "CMSY10", 10.0, (0.0, 2.3, 6.0, 2.7), 0, (), (0.0, 0.0), 7.7)
    >>> bar = Glyph("|", "CMSY10", 10.0, (2.8, 0.0, 3.2, 5.0), 1, (), (2.8, 0.0), 2.8)
    >>> overlays([minus, bar]), overlays([minus])
    (['a glyph "|" drawn over the "−"'], [])
    """
    def crossing(a, b):
        (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = a.bbox, b.bbox
        w, h = min(ax1, bx1) - max(ax0, bx0), min(ay1, by1) - max(ay0, by0)
        return w >= 0.6 * min(ax1 - ax0, bx1 - bx0) and h >= 0.6 * min(ay1 - ay0, by1 - by0)

    def set_after(a, b):     # one after the other on one baseline (an italic f before its neighbour)
        if not (abs(a.origin[1] - b.origin[1]) <= 0.05 * max(a.size, 1.0) and a.direction == b.direction == 0
                and a.advance > 0):
            return False
        # the next glyph of the same font drawn by the same text run may be kerned back (an italic "r." in Times)
        kerned = b.order == a.order + 1 and a.font == b.font and abs(a.size - b.size) <= 0.01 * a.size
        return b.origin[0] - a.origin[0] >= (0.5 if kerned else 0.8) * a.advance

    out, grid = [], {}
    for g in glyphs:
        grid.setdefault((int(g.bbox[0] // 10), int(g.bbox[1] // 10)), []).append(g)
    for g in glyphs:
        cells = [grid.get((int(g.bbox[0] // 10) + i, int(g.bbox[1] // 10) + j), ()) for i in (-1, 0, 1)
                 for j in (-1, 0, 1)]
        for h in (h for cell in cells for h in cell):
            if h.order > g.order and h.char != g.char and "\u0338" not in (g.char, h.char) \
                    and "line number" not in (g.role, h.role) \
                    and crossing(g, h) and not set_after(g, h) and not set_after(h, g):
                out.append(f'a glyph "{h.char}" drawn over the "{g.char}"')
    return list(dict.fromkeys(out))


def _meets(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _inside(a, b):
    return b[0] - 0.5 <= a[0] and b[1] - 0.5 <= a[1] and a[2] <= b[2] + 0.5 and a[3] <= b[3] + 0.5


def _where(mask, origin, glyphs):
    """`` at "3"`` (the glyph nearest most of the differing pixels), or ``''``."""
    rows, cols = np.nonzero(mask)
    xs, ys = origin[0] + (cols + 0.5) / SCALE, origin[1] - (rows + 0.5) / SCALE
    best, count = None, 0
    for g in glyphs:
        x0, y0, x1, y1 = g.bbox
        n = int(((xs >= x0 - 2) & (xs <= x1 + 2) & (ys >= y0 - 2) & (ys <= y1 + 2)).sum())
        if n > count and g.char.strip():
            best, count = g, n
    return f' at "{best.char}"' if best is not None else ""
