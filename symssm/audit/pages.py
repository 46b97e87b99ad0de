"""The pages of a PDF as a reader sees them: every painted glyph, what it is, and whether it can be seen.

The module of symssm that reads a PDF's content streams (:mod:`symssm.audit.pixels` compares their
renderings).  pdfminer.six runs each page's content stream through a small device recording every glyph
(code, font, size, colour, render mode, paint order), drawing, image and annotation.  A glyph's identity comes from its font program's encoding (never the ``/ToUnicode`` text
layer) and its outline is compared with TeX Live's (:mod:`symssm.audit.fonts`); each glyph carries the
reasons a reader would not see it as itself, and a PDFium rendering must show the ink of its outline.

>>> Glyph("4", "CMR10", 9.96, (0.0, 0.0, 5.0, 6.5), 0, ("drawn in white",)).visible
False
"""

import collections
import copy
import dataclasses
import functools
import io
import itertools
import logging
import math
import os
import re
import zlib
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
from pdfminer import pdfdevice, pdfinterp
from pdfminer.latin_enc import ENCODING
from pdfminer.pdfdocument import PDFDocument
from pdfminer.pdfpage import PDFPage
from pdfminer.pdfparser import PDFParser
from pdfminer.pdftypes import LITERALS_FLATE_DECODE, PDFStream, dict_value, resolve1, stream_value
from pdfminer.psparser import literal_name
import pypdfium2 as pdfium
from PIL import Image, ImageDraw

from symssm.audit import fonts as _fonts
from symssm.errors import InputError, LimitError
from symssm.formats.files import atomic_write

__all__ = ["Glyph", "Page", "read_pdf", "text_lines", "line_text", "render_crop", "run_problems", "PdfReadError"]

#: The error :func:`read_pdf` raises for a PDF it cannot read (one line; the CLI exits 2).
PdfReadError = InputError

#: Smallest legible size in points (TeX's \tiny at 10 pt is 5 pt; script-script style at 9 pt is 5 pt).
MIN_SIZE = 4.0
#: Narrowest legible horizontal scale (width over height scaling of the glyph).
MIN_SCALE = 0.5
#: Smallest contrast ratio (WCAG's formula) between a glyph and what lies under it.
MIN_CONTRAST = 2.0
#: Share of a glyph's ink box that a later drawing, image or glyph may cover before it counts as covered.
COVER_SHARE = 0.10
#: Limits against hostile files: painted objects (glyphs, drawings, images) per page and in all; content stream
#: items (operands and operators) per page and in all, counted before they are read (a form each time it is
#: painted; about 8 s of pdfminer a page at most).
MAX_OBJECTS_PER_PAGE, MAX_OBJECTS, MAX_TOKENS_PER_PAGE, MAX_TOKENS = 300_000, 1_500_000, 400_000, 2_000_000
#: Largest decompressed content stream, form or font program (a zip bomb is refused before it inflates).
MAX_STREAM_BYTES = 64 * 1024 * 1024
#: Resolution of the PDFium rendering (pixels per point).
INK_SCALE = 2.5
#: Pixel budget of one rendered page (int32 sums stay exact): a larger page is rendered at a lower
#: resolution, down to :data:`MIN_RENDER_SCALE` pixels per point, else refused.
MAX_PIXELS, MIN_RENDER_SCALE = 40_000_000, 1.0
#: A glyph counts as not visible when the rendering has less than this share of the ink its outline gives,
#: and as differing when this share of its box, away from any expected ink, is inked.
MIN_INK, MAX_EXTRA = 0.2, 0.08
#: Side of the cells in which :attr:`Page.stray` reports unexplained ink (points), and the inked pixels a
#: cell needs.
STRAY_CELL, STRAY_PIXELS = 2.0, 3

_WHITE = (1.0, 1.0, 1.0)
#: Blend modes that never lighten a glyph (others, Screen say, can turn black on white into white).
_BLENDS = ("Normal", "Compatible", "Multiply", "Darken")
#: The character of a glyph whose font does not say what it is (an unnamed glyph).
UNKNOWN = "\ufffd"
#: The problem of every glyph of a Type 3 font (bitmaps, as pdfTeX makes for T1 text without cm-super).
TYPE3 = "Type 3 font (bitmaps: for T1 text install cm-super or use lmodern)"
#: pdfTeX names the glyphs of its Type 3 bitmap fonts ``a<code>``; they are read as T1 text (so that a
#: statement set in them is found and reported with :data:`TYPE3`, never verified).
_T1 = {27: "ff", 28: "fi", 29: "fl", 30: "ffi", 31: "ffl", 39: "\u2019", 96: "\u2018", 127: "-",
       **{c: chr(c) for c in range(33, 127) if c not in (39, 96)}}


@dataclass(frozen=True)
class Glyph:
    """One painted glyph: ``char`` from its font's encoding ('' unknown, ligatures as letters), ``font``
    without subset prefix, ``size`` in points, ``bbox`` of its ink in user space, paint ``order``,
    ``problems`` (empty when verifiably visible as itself), baseline ``origin``, ``advance``, fill ``color``
    (RGB or ``None``), ``upright``, baseline ``direction`` (0/90/180/270, -1 other or mirrored) and ``role``
    (``'margin'``: a running head or page number; ``'line number'``: lineno's, read apart; else ``''``)."""

    char: str
    font: str
    size: float
    bbox: tuple
    order: int
    problems: tuple
    origin: tuple = (0.0, 0.0)
    advance: float = 0.0
    color: Optional[tuple] = None
    upright: bool = True
    direction: int = 0
    role: str = ""

    @property
    def visible(self):
        return not self.problems


@dataclass(frozen=True)
class Page:
    """One page: crop box, glyphs in paint order, pictures' boxes, annotations ``(subtype, rect)``;
    ``drawings``: ``(kind, bbox, order, parts)`` of every inked drawing or image (``parts``: small boxes along
    a path that is not a rectangle); ``stray``: boxes of rendered ink nothing in the content stream explains."""

    number: int
    cropbox: tuple
    glyphs: tuple
    images: tuple
    annotations: tuple
    mediabox: tuple = (0.0, 0.0, 0.0, 0.0)
    rotate: int = 0
    drawings: tuple = ()
    stray: tuple = ()


def _mult(m, n):
    a0, b0, c0, d0, e0, f0 = m
    a1, b1, c1, d1, e1, f1 = n
    return (a0 * a1 + b0 * c1, a0 * b1 + b0 * d1, c0 * a1 + d0 * c1, c0 * b1 + d0 * d1,
            e0 * a1 + f0 * c1 + e1, e0 * b1 + f0 * d1 + f1)


def _apply(m, x, y):
    return (m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5])


def _box_of(m, box):
    xs, ys = zip(*(_apply(m, x, y) for x in (box[0], box[2]) for y in (box[1], box[3])))
    return (min(xs), min(ys), max(xs), max(ys))


def _area(b):
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def _overlap(a, b):
    return _area((max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])))


def _num(v, default=0.0):
    try:
        f = float(v)
    except (TypeError, ValueError):
        return default
    return f if math.isfinite(f) else default


def _rect(v):
    try:
        x0, y0, x1, y1 = (_num(t) for t in v[:4])
    except (TypeError, ValueError):
        return None
    return (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))


def _rgb(cs_name, color):
    """A colour as RGB, or ``None`` when it is not a plain grey, RGB or CMYK colour."""
    values = (color,) if isinstance(color, (int, float)) else color if isinstance(color, tuple) else ()
    if cs_name in ("Pattern", "Separation", "DeviceN", "Indexed", "Lab") \
            or not all(isinstance(c, (int, float)) for c in values) or len(values) not in (1, 3, 4):
        return None
    v = tuple(min(1.0, max(0.0, float(c))) for c in values)
    return v * 3 if len(v) == 1 else v if len(v) == 3 else tuple((1 - c) * (1 - v[3]) for c in v[:3])


def _luminance(rgb):
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _contrast(a, b):
    la, lb = _luminance(a), _luminance(b)
    return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)


def _direction(m):
    """The baseline's angle of a glyph matrix in degrees (0, 90, 180, 270), or -1 (other or mirrored)."""
    if m[0] * m[3] - m[1] * m[2] <= 0:
        return -1
    angle = math.degrees(math.atan2(m[1], m[0])) % 360
    nearest = int(round(angle / 90.0)) % 4 * 90
    return nearest if abs((angle - nearest + 180) % 360 - 180) < 0.5 else -1


def _bounded(obj):
    """Refuse a Flate stream that inflates beyond :data:`MAX_STREAM_BYTES` (before pdfminer inflates it)."""
    stream = resolve1(obj)
    if not isinstance(stream, PDFStream) or stream.data is not None or stream.rawdata is None \
            or stream.decipher is not None:
        return
    try:
        filters = stream.get_filters()
        if len(filters) != 1 or filters[0][0] not in LITERALS_FLATE_DECODE:
            return
        inflate = zlib.decompressobj()
        inflate.decompress(stream.rawdata, MAX_STREAM_BYTES)
    except Exception:
        return
    if inflate.unconsumed_tail:
        raise LimitError(f"a stream inflates beyond the limit of {MAX_STREAM_BYTES} bytes")


def _tokens(obj):
    """The items (split at white space) of a content stream or form: the interpreter's work, counted first."""
    stream = resolve1(obj)
    if not isinstance(stream, PDFStream):
        return 0
    if getattr(stream, "_symssm_tokens", None) is None:
        try:
            stream._symssm_tokens = len(stream.get_data().split())
        except Exception:
            stream._symssm_tokens = 0
    return stream._symssm_tokens


class _Stop(Exception):
    """Raised inside the interpreter when a page exceeds a limit."""


class _GState(pdfinterp.PDFGraphicState):
    alpha, stroke_alpha, softmask, blend = 1.0, 1.0, False, "Normal"

    def copy(self):
        return copy.copy(self)


class _Resources(pdfinterp.PDFResourceManager):
    def get_font(self, objid, spec):            # pdfminer's font keeps no spec: the first one is kept on it
        font = super().get_font(objid, spec)
        font.__dict__.setdefault("_symssm_spec", spec)
        return font


class _Interpreter(pdfinterp.PDFPageInterpreter):
    inherited = None

    def subinterp(self):
        sub = super().subinterp()
        sub.inherited = self.graphicstate.copy()
        return sub

    def init_state(self, ctm):
        super().init_state(ctm)
        self.graphicstate = _GState() if self.inherited is None else self.inherited.copy()

    def do_gs(self, name):
        try:
            spec = dict_value(dict_value(self.resources.get("ExtGState")).get(literal_name(name)))
        except Exception:
            return
        state = self.graphicstate
        for key, attr in (("ca", "alpha"), ("CA", "stroke_alpha")):
            if key in spec:
                setattr(state, attr, _num(resolve1(spec[key]), 1.0))
        if "SMask" in spec:
            state.softmask = getattr(resolve1(spec["SMask"]), "name", None) != "None"
        if "BM" in spec:
            bm = resolve1(spec["BM"])
            state.blend = getattr(resolve1(bm[0]) if isinstance(bm, list) and bm else bm, "name", "Normal")

    def do_Do(self, xobjid_arg):
        ctm = self.ctm
        try:
            xobj = self.xobjmap.get(literal_name(xobjid_arg))
            _bounded(xobj)
            if _name(resolve1(xobj).get("Subtype")) == "Form":
                self.device.charge(_tokens(xobj))       # each time it is painted
        except (LimitError, _Stop):
            raise
        except Exception:
            pass
        super().do_Do(xobjid_arg)
        self.device.set_ctm(ctm)

    def process_page(self, page):
        # user space as the file states it; the page's /Rotate is applied only when rendering
        self.device.begin_page(page, (1, 0, 0, 1, 0, 0))
        for content in page.contents:                   # pdfminer's list of the page's streams
            _bounded(content)
            self.device.charge(_tokens(content))
        self.render_contents(page.resources, page.contents, ctm=(1, 0, 0, 1, 0, 0))
        self.device.end_page(page)


class _Device(pdfdevice.PDFTextDevice):
    """Records ``('glyph', ...)`` and ``(kind, box, colour, alpha, filled, shape)`` events of drawings and images
    (a figure without an image inside counts as an image)."""

    tokens = page_tokens = total = render_mode = 0

    def charge(self, count):
        """Count the items the interpreter is about to read; past a limit, stop before reading them."""
        self.tokens += count
        self.page_tokens += count
        if self.page_tokens > MAX_TOKENS_PER_PAGE or self.tokens > MAX_TOKENS:
            raise _Stop(f"holds more than {MAX_TOKENS_PER_PAGE} content stream items, or the document more than "
                        f"{MAX_TOKENS} (forms counted each time they are painted)")

    def _add(self, event):
        self.total += 1
        if len(self.events) >= MAX_OBJECTS_PER_PAGE or self.total > MAX_OBJECTS:
            raise _Stop(f"paints more than {MAX_OBJECTS_PER_PAGE} objects, or the document more than {MAX_OBJECTS}")
        self.events.append(event)

    def begin_page(self, page, ctm):
        self.page_tokens, self.events, self.figures, self.ctm = 0, [], [], ctm

    def begin_figure(self, name, bbox, matrix):
        try:
            box = _box_of(_mult(tuple(_num(v) for v in matrix), self.ctm), _rect(bbox) or (0, 0, 0, 0))
        except Exception:
            box = (0.0, 0.0, 0.0, 0.0)
        self.figures.append([box, False, False])        # box, holds a picture, holds an image

    def end_figure(self, name):
        if self.figures:
            box, picture, image = self.figures.pop()
            if picture and not image:   # an image's own figure: the image itself is recorded
                if self.figures:
                    self.figures[-1][1] = True
                self._add(("image", box, None, 1.0, True, None))

    def render_image(self, name, stream):
        if self.figures:
            self.figures[-1][1:] = [True, True]
        if len(self.figures) > 1:
            self.figures[-2][1] = True
        self._add(("image", _box_of(self.ctm, (0, 0, 1, 1)), None, 1.0, True, None))

    def paint_path(self, graphicstate, stroke, fill, evenodd, path):
        subpaths = []
        for seg in path[:100_000]:
            nums = [_num(v) for v in seg[1:]]
            if seg[0] == "m" or not subpaths:
                subpaths.append([])
            subpaths[-1].extend(_apply(self.ctm, nums[i], nums[i + 1]) for i in range(0, len(nums) - 1, 2))
        points = [p for sub in subpaths for p in sub]
        if not points:
            return
        det = abs(self.ctm[0] * self.ctm[3] - self.ctm[1] * self.ctm[2])
        w = max(abs(_num(graphicstate.linewidth)) * math.sqrt(det), 0.1) / 2 if stroke else 0.0
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        box = (min(xs) - w, min(ys) - w, max(xs) + w, max(ys) + w)
        if self.figures:
            self.figures[-1][1] = True
        cs, color = (graphicstate.ncs, graphicstate.ncolor) if fill else (graphicstate.scs, graphicstate.scolor)
        alpha = getattr(graphicstate, "alpha" if fill else "stroke_alpha", 1.0)
        rect = len(subpaths) == 1 and _is_rect(subpaths[0])
        self._add(("drawing", box, _rgb(getattr(cs, "name", ""), color), alpha, fill,
                   (tuple(map(tuple, subpaths)), w, rect)))

    def render_string(self, textstate, seq, ncs, graphicstate):
        self.render_mode = int(_num(textstate.render, 0))
        super().render_string(textstate, seq, ncs, graphicstate)

    def render_char(self, matrix, font, fontsize, scaling, rise, cid, ncs, graphicstate):
        try:
            adv = _num(font.char_width(cid)) * _num(fontsize) * _num(scaling)
        except Exception:
            adv = 0.0
        stroked = self.render_mode in (1, 5)
        cs, color = (graphicstate.scs, graphicstate.scolor) if stroked else (graphicstate.ncs, graphicstate.ncolor)
        alpha = getattr(graphicstate, "stroke_alpha" if stroked else "alpha", 1.0)
        self._add(("glyph", matrix, font, _num(fontsize), _num(scaling), _num(rise), cid, adv, self.render_mode,
                   _rgb(getattr(cs, "name", ""), color), alpha, getattr(graphicstate, "softmask", False),
                   getattr(graphicstate, "blend", "Normal")))
        return adv


@dataclass
class _Font:
    name: str
    kind: str                         # 'simple', 'cid', 'type3'
    problems: tuple
    program: object = None            # fonts.FontProgram of the embedded font
    reference: object = None          # fonts.FontProgram of TeX Live's file
    differences: dict = field(default_factory=dict)
    cid_to_gid: object = None         # None: identity; else bytes of the map
    matrix: tuple = (0.001, 0, 0, 0.001, 0, 0)
    descent: float = -0.25
    ascent: float = 0.75
    cache: dict = field(default_factory=dict)


def _name(obj):
    obj = resolve1(obj)
    return getattr(obj, "name", obj if isinstance(obj, str) else None)


def _encoding_table(name):
    column = {"StandardEncoding": 1, "MacRomanEncoding": 2, "WinAnsiEncoding": 3, "PDFDocEncoding": 4}.get(name)
    return {row[column]: row[0] for row in ENCODING if row[column] is not None} if column else {}


def _font_info(spec):
    """What a PDF font is: its embedded program, TeX Live's program of it, encoding differences."""
    spec = resolve1(spec) or {}
    subtype = _name(spec.get("Subtype"))
    base = _fonts.base_name(_name(spec.get("BaseFont")) or "")
    descriptor = resolve1(spec.get("FontDescriptor"))
    info = _Font(base or "unnamed", "simple", ())
    if subtype == "Type3":
        info.kind = "type3"
        info.name = _fonts.base_name(_name(spec.get("Name")) or "Type3")
        info.problems = (TYPE3,)
        matrix = resolve1(spec.get("FontMatrix"))
        if isinstance(matrix, list) and len(matrix) == 6:
            info.matrix = tuple(_num(resolve1(v)) for v in matrix)
    if subtype in ("Type0", "CIDFontType0", "CIDFontType2"):
        info.kind = "cid"
        child = spec
        if subtype == "Type0":
            descendants = resolve1(spec.get("DescendantFonts")) or []
            child = resolve1(descendants[0]) if descendants else {}
            child = child if isinstance(child, dict) else {}
        descriptor = resolve1(child.get("FontDescriptor"))
        info.name = _fonts.base_name(_name(child.get("BaseFont")) or base).split("-Identity-")[0]
        gidmap = resolve1(child.get("CIDToGIDMap"))
        if gidmap is not None and not isinstance(gidmap, str) and _name(gidmap) != "Identity":
            try:
                info.cid_to_gid = stream_value(gidmap).get_data()
            except Exception:
                info.cid_to_gid = b""
    encoding = resolve1(spec.get("Encoding"))
    if info.kind != "cid" and isinstance(encoding, dict):
        info.differences, code = _encoding_table(_name(encoding.get("BaseEncoding"))), 0
        for item in (resolve1(i) for i in resolve1(encoding.get("Differences")) or []):
            if getattr(item, "name", None) is not None:
                info.differences[code] = item.name
            code = int(item) if isinstance(item, (int, float)) else code + 1
    elif info.kind != "cid":
        info.differences = _encoding_table(_name(encoding))
    if isinstance(descriptor, dict):
        info.ascent = _num(resolve1(descriptor.get("Ascent")), 750) / 1000
        info.descent = _num(resolve1(descriptor.get("Descent")), -250) / 1000
    if info.kind == "type3":
        return info
    key = next((k for k in ("FontFile", "FontFile2", "FontFile3") if k in descriptor), None) \
        if isinstance(descriptor, dict) else None
    problems = ["font not embedded"] if key is None else []
    try:
        if key is not None:
            _bounded(descriptor[key])
            stream = stream_value(descriptor[key])
            data = stream.get_data()
            info.program = _fonts.read_truetype(data) if key == "FontFile2" else _fonts.read_cff(data) \
                if key == "FontFile3" else _fonts.read_type1(data, int(_num(resolve1(stream.get("Length1")))),
                                                             int(_num(resolve1(stream.get("Length2")))))
    except Exception:  # any damage in a font program: the glyphs are unverifiable
        problems.append("font program unreadable")
    if info.program is not None and info.program.slant:
        info.matrix = (0.001, 0, 0.001 * info.program.slant, 0.001, 0, 0)
    info.reference = _fonts.reference_font(info.name, info.kind == "cid")
    info.problems = tuple(problems + ["unknown font"] * (info.reference is None))
    return info


def _glyph_identity(info, cid):
    """``(char, embedded glyph name, reference glyph name, problems)`` for one character code."""
    if cid in info.cache:
        return info.cache[cid]
    program, reference, problems = info.program, info.reference, []
    name = ref_name = None
    if info.kind == "cid":
        gid = cid
        if info.cid_to_gid is not None:
            data = info.cid_to_gid
            gid = data[2 * cid] * 256 + data[2 * cid + 1] if 2 * cid + 1 < len(data) else 0
        if program is not None:      # a TrueType program's glyph by index, a CFF one's by CID
            name = program.name_for_cid(gid if program.kind == "truetype" else cid)
        if name is not None and reference is not None:
            by_index = name.startswith("cid") and name[3:].isdigit() or name.startswith("glyph") \
                or name not in reference.glyphset
            ref_name = (reference.order[gid] if 0 <= gid < len(reference.order) else None) if by_index else name
    else:
        name = ref_name = info.differences.get(cid, (program or reference).encoding.get(cid)
                                               if program or reference else None)
    char = _fonts.glyph_char(ref_name or name or "")
    if not char and reference is not None and ref_name:
        char = reference.cmap.get(ref_name, "")
    if not char and info.kind == "type3" and name:
        char = _fonts.glyph_char(name) or (_T1.get(int(name[1:]), "") if re.fullmatch(r"a\d{1,3}", name) else "")
    outline = None
    if info.kind != "type3":
        if name is None:
            problems.append("glyph not in its font's encoding")
        elif program is not None:
            mine = program.outline(name)
            if mine is None:
                problems.append("glyph missing from its font program")
            elif reference is not None:
                theirs = reference.outline(ref_name) if ref_name else None
                if theirs is None or not _fonts.same_outline(mine, theirs):
                    problems.append(f'outline differs from {info.name} "{ref_name or name}"')
                outline = theirs
            else:
                outline = mine
        elif reference is not None and ref_name:
            outline = reference.outline(ref_name)
    info.cache[cid] = (char, name, ref_name, tuple(problems), outline)
    return info.cache[cid]


def read_pdf(path, *, max_pages=200, ink=True):
    """Read every painted glyph of a PDF, with the reasons a reader would not see it as itself.

    Parameters
    ----------
    path : str or os.PathLike
        The PDF file.
    max_pages : int, optional
        Refuse a PDF with more pages than this.
    ink : bool, optional
        Also render each page with PDFium and compare every glyph box's ink with its trusted outline.

    Returns
    -------
    tuple of Page

    Raises
    ------
    symssm.errors.InputError
        The file cannot be opened or read as a PDF (:data:`PdfReadError`).
    symssm.errors.LimitError
        The PDF has more than ``max_pages`` pages or a page paints too many objects.
    """
    try:
        fh = open(path, "rb")
    except OSError as exc:
        raise PdfReadError(f"cannot open {path}: {exc.strerror or exc}") from None
    logger = logging.getLogger("pdfminer")
    level, renderer, pages = logger.level, None, []
    logger.setLevel(logging.CRITICAL + 1)
    try:
        if b"%PDF-" not in fh.read(1024):
            raise PdfReadError(f"{path} is not a PDF file (no %PDF- header)")
        fh.seek(0)
        try:
            doc = PDFDocument(PDFParser(fh))
        except Exception as exc:  # pdfminer raises many kinds on a damaged file
            raise PdfReadError(f"cannot read {path} as a PDF: {type(exc).__name__}") from None
        try:
            count = _num(resolve1(resolve1(doc.catalog.get("Pages")).get("Count")), 0)
        except Exception:
            count = 0
        if count > max_pages:
            raise LimitError(f"{path} has {int(count)} pages, more than the limit of {max_pages}")
        rsrc, infos = _Resources(), {}
        device = _Device(rsrc)
        interpreter = _Interpreter(rsrc, device)
        try:
            renderer = _Renderer(path) if ink else None
            for number, page in enumerate(PDFPage.create_pages(doc), start=1):
                if number > max_pages:
                    raise LimitError(f"{path} has more than the limit of {max_pages} pages")
                try:
                    interpreter.process_page(page)
                except _Stop as stop:
                    raise LimitError(f"page {number} of {path} {stop}") from None
                pages.append(_page(number, page, device.events, infos, renderer))
        except (LimitError, PdfReadError, RecursionError):
            raise
        except Exception as exc:
            raise PdfReadError(f"cannot read {path} as a PDF: {type(exc).__name__} on page "
                               f"{len(pages) + 1}") from None
        if not pages:
            raise PdfReadError(f"{path} has no pages")
        return tuple(pages)
    except RecursionError:
        raise PdfReadError(f"cannot read {path}: objects nested too deeply") from None
    finally:
        fh.close()
        logger.setLevel(level)
        if renderer is not None:
            renderer.close()


def _annotations(page):
    """``(subtype, rect, shows)`` of each annotation (shown: not Hidden or NoView, drawn or not a link)."""
    result = []
    annots = resolve1(page.annots) or []
    for annot in (resolve1(a) for a in (annots[:10_000] if isinstance(annots, list) else ())):
        rect = _rect(resolve1(annot.get("Rect")) or []) if isinstance(annot, dict) else None
        if rect is not None:
            subtype, flags = _name(annot.get("Subtype")) or "Unknown", int(_num(resolve1(annot.get("F")), 0))
            shows = not flags & 34 and (annot.get("AP") is not None or subtype not in ("Link", "Popup"))
            result.append((subtype, rect, shows))
    return tuple(result)


def _page(number, page, events, infos, renderer=None):
    mbox = _rect(page.mediabox) or (0, 0, 612, 792)
    cbox = _rect(page.cropbox) or mbox
    cbox = (max(cbox[0], mbox[0]), max(cbox[1], mbox[1]), min(cbox[2], mbox[2]), min(cbox[3], mbox[3]))
    annots = _annotations(page)
    raw, drawings, pictures = [], [], []     # glyph records (dicts); (order, box, kind, color, alpha, filled, shape)
    for order, event in enumerate(events):
        if event[0] == "glyph":
            _, matrix, font, fontsize, scaling, rise, cid, adv, mode, color, alpha, softmask, blend = event
            if font not in infos:                # keyed by the font itself (kept alive: no id reused)
                try:
                    infos[font] = _font_info(font._symssm_spec)
                except Exception:
                    infos[font] = _Font("unnamed", "simple", ("font unreadable",))
            info = infos[font]
            char, name, ref_name, gproblems, outline = _glyph_identity(info, cid)
            if not char and not (outline and _fonts.is_piece(ref_name or name or "")):
                # paint the reader cannot name is kept as UNKNOWN, never dropped
                char = UNKNOWN
                if not info.problems and not gproblems:
                    gproblems = ("glyph without a known character",)
            full = _mult((fontsize * scaling, 0, 0, fontsize, 0, rise), matrix)
            glyph_m = _mult(info.matrix, full)
            box = _box_of(glyph_m, _fonts.outline_box(outline)) if outline else \
                _box_of(full, (0, info.descent, adv / (fontsize * scaling or 1), info.ascent))
            vscale = math.hypot(full[2], full[3])
            raw.append(dict(order=order, char=char, font=info.name, size=vscale, box=box,
                            hratio=math.hypot(full[0], full[1]) / vscale if vscale else 0.0,
                            det=full[0] * full[3] - full[1] * full[2],
                            upright=abs(full[1]) < 1e-6 * max(1.0, abs(full[0])) and full[3] > 0,
                            direction=_direction(full), angle=math.atan2(full[1], full[0]),
                            origin=_apply(matrix, 0, rise), adv=adv * math.hypot(matrix[0], matrix[1]),
                            mode=mode, color=color, alpha=alpha, softmask=softmask, blend=blend,
                            font_problems=info.problems, glyph_problems=gproblems, outline=outline,
                            matrix=glyph_m))
        else:
            drawings.append((order, event[1], event[0]) + event[2:])
            pictures += [event[1]] * (event[0] == "image")
    _judge(raw, drawings, annots, cbox)
    _turned(raw)
    stray = _ink(raw, drawings, renderer.page(number), renderer.cache) if renderer is not None else ()
    glyphs = _roles(tuple(Glyph(g["char"], g["font"], round(g["size"], 3), tuple(round(v, 3) for v in g["box"]),
                                g["order"], tuple(dict.fromkeys(g["problems"])),
                                tuple(round(v, 3) for v in g["origin"]), round(g["adv"], 3), g["color"],
                                g["upright"], g["direction"]) for g in raw), cbox)
    return Page(number=number, cropbox=cbox, glyphs=glyphs, images=tuple(pictures),
                annotations=tuple((s, r) for s, r, _ in annots), mediabox=mbox,
                rotate=int(getattr(page, "rotate", 0) or 0), drawings=_inked(drawings, cbox),
                stray=stray)


def _inked(drawings, cbox):
    """The drawings and images that leave ink on the page (not white, not transparent): :attr:`Page.drawings`."""
    out = []
    for order, box, kind, color, alpha, filled, shape in drawings:
        if alpha <= 0.05 or _overlap(box, cbox) <= 0 and box[2] - box[0] > 0 and box[3] - box[1] > 0 \
                or color is not None and _luminance(color) > 0.95:
            continue
        parts = []
        for (x0, y0), (x1, y1) in _segments(shape[0], filled) if shape is not None and not shape[2] else ():
            n, half = max(1, min(50, int(math.hypot(x1 - x0, y1 - y0) / 2.0) + 1)), shape[1]
            pts = [(x0 + (x1 - x0) * i / n, y0 + (y1 - y0) * i / n) for i in range(n + 1)]
            parts += [(round(min(a[0], b[0]) - half, 2), round(min(a[1], b[1]) - half, 2),
                       round(max(a[0], b[0]) + half, 2), round(max(a[1], b[1]) + half, 2))
                      for a, b in zip(pts, pts[1:])]
            if len(parts) > 4000:
                break
        parts = tuple(parts) if len(parts) <= 4000 else ()
        out.append((kind, tuple(round(v, 3) for v in box), order, parts))
    return tuple(out)


def _is_rect(points):
    """Whether a subpath is an axis-aligned rectangle (``re``, a rule)."""
    pts = list(points)[:4] if len(points) == 5 and points[0] == points[-1] else list(points)
    return len(pts) == 4 and len({round(p[0], 3) for p in pts}) <= 2 and len({round(p[1], 3) for p in pts}) <= 2


def _inside_polygons(x, y, subpaths):
    """Even-odd point-in-polygon over the subpaths (curves taken by their control points)."""
    return sum((y0 > y) != (y1 > y) and x < x0 + (y - y0) * (x1 - x0) / (y1 - y0)
               for sub in subpaths for (x0, y0), (x1, y1) in zip(sub[-1:] + sub[:-1], sub)) % 2 == 1


def _segment_meets_box(p, q, box):
    """Liang-Barsky: whether the segment pq passes through the box."""
    t0, t1 = 0.0, 1.0
    for e, f in ((p[0] - q[0], p[0] - box[0]), (q[0] - p[0], box[2] - p[0]), (p[1] - q[1], p[1] - box[1]),
                 (q[1] - p[1], box[3] - p[1])):
        if e == 0 and f < 0:
            return False
        t0, t1 = (max(t0, f / e), t1) if e < 0 else (t0, min(t1, f / e)) if e > 0 else (t0, t1)
    return t0 <= t1


def _shape_meets(shape, filled, box, cx, cy):
    """Whether a drawing that is not a rectangle really reaches into a glyph's ink box (a TikZ arrow
    passing near a formula does not; one drawn across it does)."""
    subpaths, half, _ = shape
    mx, my = 0.15 * (box[2] - box[0]), 0.15 * (box[3] - box[1])
    inner = (box[0] + mx - half, box[1] + my - half, box[2] - mx + half, box[3] - my + half)
    return filled and _inside_polygons(cx, cy, subpaths) \
        or any(_segment_meets_box(p, q, inner) for p, q in _segments(subpaths, filled))


def _segments(subpaths, filled):
    """The straight pieces of a path's subpaths (closed when filled)."""
    for sub in subpaths:
        yield from zip(sub, sub[1:])
        if filled and len(sub) > 2:
            yield sub[-1], sub[0]


class _Grid:
    """Boxes bucketed by a coarse grid, for overlap queries."""

    def __init__(self, entries, cell=10.0):
        self.cell, self.cells = cell, {}
        for box, item in entries:
            self.add(box, item)

    def _keys(self, box):
        c = self.cell
        return [(i, j) for i in range(int(box[0] // c), int(box[2] // c) + 1)
                for j in range(int(box[1] // c), int(box[3] // c) + 1)]

    def add(self, box, item):
        big = box[2] - box[0] > 50 * self.cell or box[3] - box[1] > 50 * self.cell
        for key in ["big"] if big else self._keys(box):
            self.cells.setdefault(key, []).append((box, item))

    def near(self, box):
        return {id(e): e for key in self._keys(box) + ["big"] for e in self.cells.get(key, ())}.values()


def _judge(raw, drawings, annots, cbox):
    """The problems of each glyph, from the content stream alone."""
    draw_grid, glyph_grid = _Grid((d[1], d) for d in drawings), _Grid((g["box"], g) for g in raw)
    for g in raw:
        box, problems = g["box"], list(g["font_problems"]) + list(g["glyph_problems"])
        area = _area(box) or 1e-9
        if g["mode"] in (3, 7):
            problems.append(f"invisible (render mode {g['mode']})")
        # what lies under: the last filled plain-coloured drawing painted before it covering its centre
        cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
        under, covered, later = _WHITE, None, []
        for dbox, d in sorted(draw_grid.near(box), key=lambda e: e[1][0]):
            order, _, kind, color, alpha, filled, shape = d
            if order < g["order"]:
                if filled and color is not None and alpha >= 0.99 and dbox[0] <= cx <= dbox[2] \
                        and dbox[1] <= cy <= dbox[3] and (shape is None or shape[2]
                                                          or _inside_polygons(cx, cy, shape[0])):
                    under = color
            elif alpha > 0.05 and _overlap(box, dbox) > 0:
                later.append(d)
                if covered is None and _overlap(box, dbox) > COVER_SHARE * area \
                        and (shape is None or shape[2] or _shape_meets(shape, filled, box, cx, cy)):
                    covered = f"covered by {'an image' if kind == 'image' else 'a drawing'} painted after it"
        if covered is None and len(later) > 1 and _covered_share(box, later) > COVER_SHARE:
            covered = f"covered by {'an image' if all(d[2] == 'image' for d in later) else 'drawings'} painted after it"
        color = g["color"]
        problems += [p for p in (covered, "colour not plain" if color is None else None) if p]
        if color is not None and g["mode"] not in (3, 7) and _contrast(color, under) < MIN_CONTRAST:
            problems.append("drawn in white" if _luminance(color) > 0.8 and _luminance(under) > 0.8
                            else "low contrast with what lies under it")
        problems += [p for bad, p in (
            (g["alpha"] < 0.5, f"transparent (opacity {round(100 * g['alpha'])}%)"),
            (g["softmask"], "drawn through a soft mask"), (g["size"] < MIN_SIZE, f"too small ({g['size']:.1f} pt)"),
            (g["blend"] not in _BLENDS, f"drawn with blend mode {g['blend']}"),
            (g["hratio"] < MIN_SCALE, f"squeezed (horizontal scale {round(100 * g['hratio'])}%)"),
            (g["det"] < 0, "mirrored"),
            (any((v - c) * k < -0.5 for v, c, k in zip(box, cbox, (1, 1, -1, -1))), "outside the crop box")) if bad]
        problems += [f"covered by a {subtype} annotation" for subtype, rect, shows in annots
                     if shows and _overlap(box, rect) > 0][:1]
        for obox, other in glyph_grid.near(box):
            if other is g or (other["char"] == g["char"] and other["font"] == g["font"]):
                continue
            share = _overlap(box, obox)
            if share > 0.3 * area and share > 0.3 * (_area(obox) or 1e-9) \
                    and not _set_together(g, other, share, area, _area(obox)):
                problems.append(('overprinted by "%s"' if other["order"] > g["order"] else 'overprints "%s"')
                                % other["char"])
                break
        g["problems"], g["under"] = problems, under


def _set_together(g, other, share, area, other_area):
    """Whether two glyphs whose boxes overlap were typeset so: one after the other on one baseline in one font
    (an italic f and the fi ligature after it, overlapping by their side bearings: the later origin at least
    80 % of the earlier advance further, over at most 3/4 of the smaller box), or a small digit over the edge
    of a letter (lineno's number of the right column on the end of a left column line: at most 0.7 times the
    letter's size, over at most half of it)."""
    first, second = sorted((g, other), key=lambda h: h["order"])
    digit, letter, letter_area = (g, other, other_area) if g["char"].isdigit() else (other, g, area)
    return first["font"] == second["font"] and first["direction"] == second["direction"] == 0 \
        and abs(first["origin"][1] - second["origin"][1]) <= 0.05 * max(first["size"], 1.0) \
        and first["adv"] > 0 and second["origin"][0] - first["origin"][0] >= 0.8 * first["adv"] \
        and share <= 0.75 * min(area, other_area or 1e-9) \
        or digit["char"].isdigit() and letter["char"].isalpha() and digit["size"] <= 0.7 * letter["size"] \
        and share <= 0.5 * letter_area


def _turned(raw):
    """Flag a glyph turned against the glyphs around it (a "9" turned by 180 degrees reads "6"): its
    baseline points more than 120 degrees away from the sum of those within 3 em (a page turned as a whole
    is not flagged: its neighbours turn with it)."""
    limit = math.cos(math.radians(120))
    angles = {round(math.degrees(g["angle"])) % 360 for g in raw if g["det"] > 0}
    suspects = [g for g in raw if g["det"] > 0 and g["char"].strip() and any(
        math.cos(math.radians(a) - g["angle"]) < limit for a in angles)]
    if not suspects:                   # no two glyphs of the page point 120 degrees apart
        return
    grid = _Grid((((x, y, x, y), g) for g in raw for x, y in [g["origin"]]), cell=20.0)
    for g in suspects:
        x, y = g["origin"]
        r = 3.0 * max(g["size"], 1.0)
        around = [o["angle"] for _, o in grid.near((x - r, y - r, x + r, y + r)) if o is not g and o["det"] > 0
                  and math.hypot(o["origin"][0] - x, o["origin"][1] - y) <= r]
        sx, sy = sum(math.cos(a) for a in around), sum(math.sin(a) for a in around)
        norm = math.hypot(sx, sy)
        if norm >= 1.0 and (sx * math.cos(g["angle"]) + sy * math.sin(g["angle"])) / norm < limit:
            g["problems"].append("turned upside down")


def _covered_share(box, shapes, n=16):
    """Share of a box that the union of later rectangles, images and filled paths covers (sampled on an
    ``n`` x ``n`` grid): several small shapes, each under the limit, can hide a glyph together."""
    xs = [box[0] + (i + 0.5) * (box[2] - box[0]) / n for i in range(n)]
    ys = [box[1] + (j + 0.5) * (box[3] - box[1]) / n for j in range(n)]
    return sum(any(dbox[0] <= x <= dbox[2] and dbox[1] <= y <= dbox[3] and (
        shape is None or filled and (shape[2] or _inside_polygons(x, y, shape[0])))
        for _, dbox, _, _, _, filled, shape in shapes) for x in xs for y in ys) / (n * n)


def _rows(glyphs):
    """Upright glyphs grouped by baseline (within a third of the smaller size), top row first, each left to right."""
    rows = []
    for g in sorted(glyphs, key=lambda g: (-round(g.origin[1], 1), g.origin[0])):
        for row in rows[-6:]:
            if abs(row[0].origin[1] - g.origin[1]) <= 0.34 * max(min(row[0].size, g.size), 1.0) and row[0].size > 0:
                row.append(g)
                break
        else:
            rows.append([g])
    return [sorted(row, key=lambda g: g.bbox[0]) for row in rows]


def _roles(glyphs, cbox):
    """The page's glyphs with their :attr:`Glyph.role`: ``'margin'`` for the top or bottom row (a running
    head, a page number: in the outer quarter, under 60 glyphs, 2.5 sizes from the next row); ``'line
    number'`` for at most 5 digits ending 2 pt before a column's left edge and 6 pt before its text: leading
    the row at the text block's edge, or (before a second column) in the font and size of those; and for
    those starting 2 pt after the text block's right edge and 6 pt after the row's text (in the leading
    numbers' style, or three or more at one x where no row leads with one)."""
    upright = [g for g in glyphs if g.upright and g.char.strip()]
    rows, margin = _rows(upright), set()
    for row, nxt, edge in ((rows[0], rows[1], cbox[3]), (rows[-1], rows[-2], cbox[1])) if len(rows) >= 2 else ():
        y, size = row[0].origin[1], max(g.size for g in row)
        if abs(edge - y) < 0.25 * (cbox[3] - cbox[1]) and len(row) < 60 \
                and abs(y - nxt[0].origin[1]) > 2.5 * max(size, nxt[0].size):
            margin.update(id(g) for g in row)

    def lead(row, edge, leading):
        """Digits (at most 5, 3 pt apart) ending 6 pt or more before the row's first glyph at or after ``edge``
        and 2 pt or more before ``edge``: leading the row, or else in the font and size of line numbers."""
        first = min((g for g in row if g.bbox[0] >= edge - 1.5), key=lambda g: g.bbox[0], default=None)
        group = []
        for g in reversed([g for g in row if g.char.isdigit() and edge - 30 < g.bbox[2] < edge - 2
                           and (leading or (g.font, round(g.size, 1)) in styles)]):
            if group and group[0].bbox[0] - g.bbox[2] >= 3.0:
                break
            group.insert(0, g)
        if not group or len(group) > 5 or first is not None and first.bbox[0] - group[-1].bbox[2] < 6.0:
            return []
        if leading and first is not None:
            return [] if any(g.bbox[0] < group[0].bbox[0] for g in row if g not in group) else group
        return group if all((g.font, round(g.size, 1)) in styles for g in group) else []

    def edge_of(starts):
        starts = {k: c for k, c in starts.items() if c and k is not None}
        frequent = [k for k, c in starts.items() if c >= 3]
        return min(frequent) if frequent else max(starts, key=lambda k: (starts[k], -k)) if starts else None

    # the text block's left edge: the leftmost start of at least three rows (the left column's edge in two
    # columns, so that a lone superscript inside a column never reads as a line number); a second column's
    # left edge: the start most rows right of the gutter share
    starts, right = collections.Counter(), collections.Counter()
    gutter = _gutter(upright, cbox)
    for row in rows:
        k = 0
        while k < len(row) and k < 5 and row[k].char.isdigit() and (k == 0 or row[k].bbox[0] - row[k - 1].bbox[2] < 3):
            k += 1
        first = row[k] if 0 < k < len(row) and row[k].bbox[0] - row[k - 1].bbox[2] >= 6.0 else row[0]
        starts[round(first.bbox[0])] += len(row) >= 5
        side = [g for g in row if gutter is not None and g.bbox[0] >= gutter[1]]
        right[round(side[0].bbox[0]) if side else None] += len(side) >= 5
    numbers, styles = set(), set()
    for edge, leading in ((edge_of(starts), True), (edge_of(starts), False), (edge_of(right), False)):
        for row in rows if edge is not None else ():
            group = lead(row, edge, leading)
            numbers.update(id(g) for g in group)
            styles.update((g.font, round(g.size, 1)) for g in group)
    for edge, limit in _right_edges(rows, gutter):  # lineno's right, switch and columnwise numbers after a column
        for row in rows:
            group = _trailing_number(row, edge, limit)
            numbers.update(id(g) for g in group)
    # numbers after the text block's right edge (lineno's [switch] in a second column, [right]): at most 5
    # digits, 3 pt apart, starting 2 pt or more after the edge and 6 pt after the row's text, in the style of
    # the leading numbers or, where there are none, three or more starting at one x
    ends, trailing = collections.Counter(), []
    for row in rows:
        k = len(row)
        while k > 0 and len(row) - k < 5 and row[k - 1].char.isdigit() and \
                (k == len(row) or row[k].bbox[0] - row[k - 1].bbox[2] < 3):
            k -= 1
        body = row[:k] if 0 < k < len(row) and row[k].bbox[0] - row[k - 1].bbox[2] >= 6.0 else row
        ends[round(body[-1].bbox[2])] += len(body) >= 5
        if body is not row:
            trailing.append((body[-1].bbox[2], row[k:]))
    frequent = [k for k, c in ends.items() if c >= 3]
    if frequent and trailing:
        end = max(frequent)
        group_x = collections.Counter(round(g[0].bbox[0]) for _, g in trailing)
        for text_end, group in trailing:
            if group[0].bbox[0] >= end + 2 and text_end <= end + 1.5 and group[-1].bbox[2] < end + 30 and (
                    all((g.font, round(g.size, 1)) in styles for g in group) if styles
                    else group_x[round(group[0].bbox[0])] >= 3):
                numbers.update(id(g) for g in group)
    return tuple(dataclasses.replace(g, role="line number") if id(g) in numbers else
                 dataclasses.replace(g, role="margin") if id(g) in margin else g for g in glyphs)


def _digits_at_end(row, before):
    """The row's last glyphs before x = ``before`` when they are at most 5 digits (3 pt apart at most), 6 pt or more
    after the glyph before them (or the whole row), else []."""
    row = [g for g in row if g.bbox[2] <= before]
    k = len(row)
    while k > 0 and len(row) - k < 5 and row[k - 1].char.isdigit() and \
            (k == len(row) or row[k].bbox[0] - row[k - 1].bbox[2] < 3):
        k -= 1
    if k == len(row):
        return []
    return row[k:] if k == 0 or row[k].bbox[0] - row[k - 1].bbox[2] >= 6.0 else []


def _right_edges(rows, gutter):
    """``[(edge, limit)]``: each column's right edge (the rightmost end shared by three rows of 5 glyphs or
    more, line numbers after it left out) and where the next column starts (or infinity)."""
    sides = [(-math.inf, math.inf)] if gutter is None else [(-math.inf, gutter[0]), (gutter[1], math.inf)]
    out = []
    for lo, hi in sides:
        ends = collections.Counter()
        for row in rows:
            side = [g for g in row if g.bbox[0] >= lo and g.bbox[2] <= hi]
            tail = _digits_at_end(side, hi)
            text = [g for g in side if g not in tail]
            if len(text) >= 5:
                ends[round(text[-1].bbox[2])] += 1
        frequent = [k for k, c in ends.items() if c >= 3]
        if frequent:
            out.append((max(frequent), hi))
    return out


def _trailing_number(row, edge, limit):
    """A line number after a column (lineno's ``right`` and ``switch``): at most 5 digits starting 4 pt or more
    after the column's right ``edge``, 6 pt or more after the row's text, nothing else before ``limit``."""
    group = _digits_at_end(row, limit)
    if not group or group[0].bbox[0] < edge + 4.0 or group[-1].bbox[2] > edge + 30.0:
        return []
    return [] if any(edge + 3.0 < g.bbox[2] and g.bbox[0] < limit for g in row if g not in group) else group


class _Renderer:
    """Pages of one PDF rendered by PDFium, as RGB arrays with the crop box's top-left corner."""

    def __init__(self, path):
        self.path, self.doc, self.cache = path, None, {}
        try:
            self.doc = pdfium.PdfDocument(str(path))
        except Exception as exc:
            raise PdfReadError(f"PDFium cannot open {path}: {type(exc).__name__}") from None

    def page(self, number, scale=INK_SCALE):
        """``(RGB array, (x0, y1) of the crop box, scale)``, the page unrotated as its crop box shows it."""
        if not (1 <= number <= len(self.doc)):
            raise PdfReadError(f"{self.path} has no page {number}")
        page = self.doc[number - 1]
        try:
            page.set_rotation(0)
            cx0, cy0, cx1, cy1 = page.get_bbox()         # a poster: fewer pixels per point
            scale = min(scale, math.sqrt(MAX_PIXELS / max((cx1 - cx0) * (cy1 - cy0), 1e-9)))
            if scale >= MIN_RENDER_SCALE:
                bitmap = page.render(scale=scale, may_draw_forms=True, draw_annots=True, rev_byteorder=True)
                image = np.array(bitmap.to_numpy()[:, :, :3])
        except Exception as exc:
            raise PdfReadError(f"PDFium cannot render page {number} of {self.path}: "
                               f"{type(exc).__name__}") from None
        finally:
            page.close()
        if scale < MIN_RENDER_SCALE:
            raise LimitError(f"page {number} of {self.path} is too large to render ({cx1 - cx0:.0f} x "
                             f"{cy1 - cy0:.0f} pt; at most {MAX_PIXELS} pixels at {MIN_RENDER_SCALE} pixels per point)")
        return image, (cx0, cy1), scale

    def close(self):
        self.doc.close()


def _fill_glyph(size, polys):
    """A glyph's contours filled by the nonzero winding rule (as Type 1 and TrueType fonts are), as a
    boolean array: each contour adds its orientation inside it, and ink is where the sum is not zero."""
    winding = np.zeros((size[1], size[0]), dtype=np.int16)
    edge = np.zeros((size[1], size[0]), dtype=bool)
    for poly in polys:
        area = sum(poly[i][0] * poly[i - 1][1] - poly[i - 1][0] * poly[i][1] for i in range(len(poly))) \
            if len(poly) >= 3 else 0     # twice the signed area
        if area == 0:
            continue
        image = Image.new("L", size, 0)
        draw = ImageDraw.Draw(image)
        draw.polygon(poly, fill=255)
        winding += np.where(np.asarray(image) > 0, 1 if area > 0 else -1, 0).astype(np.int16)
        draw.polygon(poly, fill=0, outline=255)
        edge |= np.asarray(image) > 0
    return (winding != 0) | edge


def _glyph_bitmap(g, scale, cache):
    """The glyph's outline filled at ``scale``, as a boolean array, and where its corner lies relative to
    the pixel of the glyph's origin.  Cached per outline, scale, size, slant and half-pixel position."""
    m = g["matrix"]
    sx, sy = round((m[4] * scale) % 1.0 * 2) / 2, round((-m[5] * scale) % 1.0 * 2) / 2
    key = (id(g["outline"]), scale, round(m[0], 5), round(m[1], 5), round(m[2], 5), round(m[3], 5), sx, sy)
    if key in cache:
        return cache[key]
    polys = [[((m[0] * x + m[2] * y) * scale + sx, -(m[1] * x + m[3] * y) * scale + sy) for x, y in contour]
             for contour in g["outline"]]
    xs, ys = [p[0] for poly in polys for p in poly], [p[1] for poly in polys for p in poly]
    x0, y0, x1, y1 = math.floor(min(xs)) - 1, math.floor(min(ys)) - 1, math.ceil(max(xs)) + 1, math.ceil(max(ys)) + 1
    cache[key] = (None, 0, 0) if (x1 - x0) * (y1 - y0) > 4_000_000 else \
        (_fill_glyph((x1 - x0, y1 - y0), [[(x - x0, y - y0) for x, y in poly] for poly in polys]), x0, y0)
    return cache[key]


def _ink(raw, drawings, rendered, cache=None):
    """Compare each glyph's box in the PDFium rendering with the ink its trusted outline gives: the ink where
    the page's outlines lie (grown by a pixel) must reach :data:`MIN_INK` of it, and the box must not hold
    ink away from every glyph, drawing and image (:data:`MAX_EXTRA`).  Returns :attr:`Page.stray`."""
    image, origin, scale = rendered
    image, cache = image.astype(np.int16), {} if cache is None else cache
    h, w = image.shape[:2]
    glyph_ink = np.zeros((h, w), dtype=bool)
    for g in raw:
        bitmap, bx, by = (None, 0, 0) if g["mode"] in (3, 7) or not g["outline"] else \
            _glyph_bitmap(g, scale, cache)
        if bitmap is not None:
            px, py = _to_pixel(origin, scale, g["matrix"][4], g["matrix"][5])
            x0, y0 = math.floor(px) + bx, math.floor(py) + by
            cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(w, x0 + bitmap.shape[1]), min(h, y0 + bitmap.shape[0])
            if cx0 < cx1 and cy0 < cy1:
                glyph_ink[cy0:cy1, cx0:cx1] |= bitmap[cy0 - y0: cy1 - y0, cx0 - x0: cx1 - x0]
    shapes = Image.new("L", (w, h), 0)
    draw = ImageDraw.Draw(shapes)
    for _, box, _, _, _, filled, shape in drawings:
        if shape is None or shape[2]:
            (x0, y0), (x1, y1) = _to_pixel(origin, scale, box[0], box[3]), _to_pixel(origin, scale, box[2], box[1])
            draw.rectangle((x0 - 1, y0 - 1, x1 + 1, y1 + 1), fill=255)
            continue
        width = max(1, int(math.ceil(2 * shape[1] * scale)) + 2)
        for sub in shape[0]:
            pts = [_to_pixel(origin, scale, x, y) for x, y in sub]
            if filled and len(pts) >= 3:
                draw.polygon(pts, fill=255, outline=255)
            if len(pts) >= 2:
                draw.line(pts + ([pts[0]] if filled else []), fill=255, width=width)
    allowed = _grow(glyph_ink | (np.asarray(shapes) > 0), 2)
    near_glyph = _grow(glyph_ink, 1)
    dark = 255 - image.min(axis=2)                       # ink of black on white, 0..255
    unexplained = _stray_boxes((dark > 128) & ~allowed, origin, scale)

    todo, boxes = [], []
    for g in raw:
        contrast = 0 if g["problems"] or not g["outline"] or g["color"] is None else \
            255 * max(abs(c - u) for c, u in zip(g["color"], g["under"]))
        if contrast < 32:
            continue
        under = np.array(g["under"]) * 255
        (bx0, by0), (bx1, by1) = _to_pixel(origin, scale, g["box"][0], g["box"][3]), \
            _to_pixel(origin, scale, g["box"][2], g["box"][1])
        ix0, iy0 = max(0, int(bx0) - 1), max(0, int(by0) - 1)
        ix1, iy1 = min(w, int(math.ceil(bx1)) + 1), min(h, int(math.ceil(by1)) + 1)
        if ix1 - ix0 < 2 or iy1 - iy0 < 2:
            continue
        todo.append((g, under, contrast))
        boxes.append((iy0, iy1, ix0, ix1))
    if not todo:
        return unexplained
    b = np.array(boxes)
    top, left = int(b[:, 0].min()), int(b[:, 2].min())          # tables over the boxes' region only
    bottom, right = int(b[:, 1].max()), int(b[:, 3].max())
    y0, y1, x0, x1 = b[:, 0] - top, b[:, 1] - top, b[:, 2] - left, b[:, 3] - left

    def sums(a):
        t = np.zeros((bottom - top + 1, right - left + 1), dtype=np.int32)
        np.cumsum(a[top:bottom, left:right], axis=0, dtype=np.int32, out=t[1:, 1:])
        np.cumsum(t[1:, 1:], axis=1, dtype=np.int32, out=t[1:, 1:])
        return (t[y1, x1] - t[y0, x1] - t[y1, x0] + t[y0, x0]).astype(np.int64)

    want, found, stray = sums(glyph_ink) * 255, sums(np.where(near_glyph, dark, 0)), sums((dark > 128) & ~allowed)
    areas = (y1 - y0) * (x1 - x0)
    # what really lies under each glyph: the mean colour of its box away from every glyph's ink
    away = ~_grow(glyph_ink, 2)
    tinted = sums(away & (dark > 24))                        # boxes with anything but white around the ink
    for k, (g, under, contrast) in enumerate(todo):
        if want[k] < 3 * 255:
            continue
        iy0, iy1, ix0, ix1 = boxes[k]
        ground_mask = away[iy0:iy1, ix0:ix1]
        if tinted[k] and ground_mask.sum() >= 4:
            seen = tuple(float(v) / 255 for v in image[iy0:iy1, ix0:ix1][ground_mask].mean(axis=0))
            if _contrast(g["color"], seen) < MIN_CONTRAST:
                g["problems"].append("low contrast with what lies under it")
                continue
            if max(abs(a - b) for a, b in zip(seen, g["under"])) > 0.15:
                under = np.array(seen) * 255                    # a background the content stream hides
                contrast = 255 * max(abs(c - u) for c, u in zip(g["color"], seen))
        if min(under) > 0.99 * 255 and max(g["color"]) < 0.01:   # black on white: the page tables
            coverage, extra = float(found[k]) / float(want[k]), float(stray[k]) / float(areas[k])
        else:                                                   # colour: this box alone
            region = image[iy0:iy1, ix0:ix1]
            ink = np.max(np.abs(region - under), axis=2) * (255.0 / contrast)
            coverage = float((ink * near_glyph[iy0:iy1, ix0:ix1]).sum()) / float(want[k])
            extra = float(((ink > 128) & ~allowed[iy0:iy1, ix0:ix1]).sum()) / ink.size
        if coverage < MIN_INK or extra > MAX_EXTRA:
            g["problems"].append("not visible in the rendering" if coverage < MIN_INK
                                 else "rendering differs from the glyph")
    return unexplained


def _stray_boxes(mask, origin, scale):
    """Cells of about :data:`STRAY_CELL` points holding :data:`STRAY_PIXELS` or more pixels of ``mask``,
    as boxes in user space (runs of cells along a row joined)."""
    if not mask.any():
        return ()
    (h, w), step = mask.shape, max(1, int(round(STRAY_CELL * scale)))
    padded = np.pad(mask, ((0, -h % step), (0, -w % step)))
    counts = padded.reshape(padded.shape[0] // step, step, -1, step).sum(axis=(1, 3))
    rows, cols = np.nonzero(counts >= STRAY_PIXELS)
    cx0, cy1 = origin
    out = []
    for r, c in zip(rows.tolist(), cols.tolist()):
        if out and out[-1][0] == r and out[-1][2] == c - 1:
            out[-1][2] = c
        elif len(out) > 20_001:
            break
        else:
            out.append([r, c, c])
    return tuple((round(cx0 + c0 * step / scale, 2), round(cy1 - (r + 1) * step / scale, 2),
                  round(cx0 + (c1 + 1) * step / scale, 2), round(cy1 - r * step / scale, 2))
                 for r, c0, c1 in out)


def _grow(mask, r):
    """A boolean mask dilated by ``r`` pixels (a square)."""
    (h, w), padded = mask.shape, np.pad(mask, r)
    rows = np.logical_or.reduce([padded[:, k:k + w] for k in range(2 * r + 1)])
    return np.logical_or.reduce([rows[k:k + h] for k in range(2 * r + 1)])


def text_lines(page):
    """The page's glyphs (those with a ``char``) as lines in reading order, two-column pages column by column.

    A line: glyphs on one baseline (within a third of their size) with gaps under three times their size,
    and the sub- and superscripts beside it; turned text is read in its own frame; line numbers come last.

    Parameters
    ----------
    page : Page

    Returns
    -------
    tuple of tuple of Glyph
    """
    glyphs = [g for g in page.glyphs if g.char.strip() and g.role != "line number"]
    lines = _upright_lines([g for g in glyphs if g.upright], page.cropbox)
    for angle in (90, 180, 270):
        lines.extend(_turned_lines([g for g in glyphs if not g.upright and g.direction == angle], angle, page.cropbox))
    lines += [[g] for g in glyphs if not g.upright and g.direction not in (90, 180, 270)]
    for row in _rows([g for g in page.glyphs if g.role == "line number" and g.char.strip()]):
        lines.extend(_split(row))
    return tuple(tuple(line) for line in lines)


def _split(row):
    """A row's glyphs, left to right, cut where the gap is wider than three times their size."""
    row = sorted(row, key=lambda g: g.bbox[0])
    out = [[row[0]]]
    for g in row[1:]:
        if g.bbox[0] - max(p.bbox[2] for p in out[-1]) > 3.0 * max(out[-1][-1].size, g.size):
            out.append([])
        out[-1].append(g)
    return out


def _turn(angle, x, y):
    """A point turned clockwise by ``angle`` degrees (a multiple of 90)."""
    for _ in range(angle // 90):
        x, y = y, -x
    return x, y


def _turned_lines(glyphs, angle, cbox):
    """Lines of glyphs whose baselines run at ``angle``: read in a frame turned to make them upright."""
    def box(b):
        (x0, y0), (x1, y1) = _turn(angle, b[0], b[1]), _turn(angle, b[2], b[3])
        return (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))

    twins = {id(t): (t, g) for g in glyphs for t in [dataclasses.replace(
        g, bbox=box(g.bbox), origin=_turn(angle, *g.origin), upright=True, direction=0)]}
    lines = _upright_lines([t for t, _ in twins.values()], box(cbox)) if glyphs else []
    return [[twins[id(t)][1] for t in line] for line in lines]


def _upright_lines(upright, cropbox):
    # split rows at the gutter of a two-column page, then join sub- and superscripts to the row whose
    # baseline they sit beside (wherever it lies: a line across the gutter takes its scripts from either side)
    gutter = _gutter(upright, cropbox)
    parts = []
    for row in _rows(upright):
        if gutter is not None and not any(g.bbox[0] < gutter[1] and g.bbox[2] > gutter[0] for g in row):
            parts.extend(p for p in ([g for g in row if g.bbox[2] <= gutter[0]],
                                     [g for g in row if g.bbox[0] >= gutter[1]]) if p)
        else:  # a first column's line that runs into the gutter (an overfull display) ends before the second's
            cut, reach = None, -math.inf
            for i, g in enumerate(row):
                if gutter is not None and g.bbox[0] >= gutter[1] - 0.5 and g.bbox[0] - reach >= 1.0 and \
                        gutter[0] < reach < gutter[1]:
                    cut = i
                    break
                reach = max(reach, g.bbox[2])
            parts.extend([row[:cut], row[cut:]] if cut else [row])
    return _reading_order([_stacks(line) for row in _merge_scripts(parts, gutter) for line in _split(row)], gutter)


def _stacks(line):
    """A line's glyphs in reading order: those on its main baseline left to right; between two of them,
    those on other baselines (stacked scripts, a sum's limits) baseline by baseline in paint order."""
    line = sorted(line, key=lambda g: (g.bbox[0] + g.bbox[2]) / 2)
    counts = collections.Counter(round(g.origin[1] * 2) / 2 for g in line)
    main = max(counts, key=lambda k: (counts[k], -abs(k)))
    out, cluster = [], []

    def flush():
        runs = {}
        for g in cluster:
            runs.setdefault(round(g.origin[1] * 2) / 2, []).append(g)
        out.extend(g for run in sorted(runs.values(), key=lambda r: min(h.order for h in r)) for g in run)
        cluster.clear()

    for g in line:
        if abs(g.origin[1] - main) <= 0.25:
            flush()
            out.append(g)
        else:
            cluster.append(g)
    flush()
    return out


def _merge_scripts(rows, gutter=None):
    """Rows that belong to a bigger row join it: smaller glyphs raised or lowered beside it (sub- and
    superscripts), and short rows whose ink crosses its baseline (a text-style sum hung from its top); never
    a row of one column to a row of the other."""
    def side(box):
        return 2 if gutter is None else 0 if box[2] <= gutter[0] else 1 if box[0] >= gutter[1] else 2

    merged = []
    for row in sorted(rows, key=lambda r: (-max(g.size for g in r), -len(r))):
        size, (x0, y0, x1, y1), y = max(g.size for g in row), _extent(row), row[0].origin[1]
        for target in merged:
            tsize, (tx0, _, tx1, _), ty = max(g.size for g in target), _extent(target), target[0].origin[1]
            scripts = size < 0.85 * tsize and abs(y - ty) < 0.6 * tsize
            hanging = len(row) < len(target) and y0 < ty < y1 and abs(y - ty) < tsize
            if (scripts or hanging) and x0 <= tx1 + tsize and x1 >= tx0 - tsize \
                    and {side((x0, 0, x1)), side((tx0, 0, tx1))} != {0, 1}:
                target.extend(row)
                break
        else:
            merged.append(list(row))
    return merged


def _extent(glyphs):
    """The box around the glyphs' boxes."""
    return (min(g.bbox[0] for g in glyphs), min(g.bbox[1] for g in glyphs), max(g.bbox[2] for g in glyphs),
            max(g.bbox[3] for g in glyphs))


def _gutter(glyphs, cbox):
    """The empty band between two columns, ``(x0, x1)``, or ``None`` for a one-column page: the left or right 6 pt of
    a run (4 pt or more) of the middle 30-70 % of the page crossed by few glyphs (the fewest there, at most 1 %
    of all, plus 15 % of the median), the one fewest glyphs cross, with columns of lines on both sides."""
    if len(glyphs) < 200:
        return None
    lo, hi = (int(cbox[0] + f * (cbox[2] - cbox[0])) for f in (0.3, 0.7))
    if hi - lo < 8:
        return None
    counts = [0] * (hi - lo + 1)
    for g in glyphs:
        a, b = max(lo, int(g.bbox[0])), min(hi, int(math.ceil(g.bbox[2])))
        for x in range(a, b + 1):
            counts[x - lo] += 1
    floor, lines = min(counts), _rows(glyphs)
    if floor > max(2, min(len(glyphs) // 100, len(lines) // 10)):  # text lines cross a one-column page anywhere
        return None
    ceiling = floor + max(2, 0.15 * sorted(counts)[len(counts) // 2])
    runs, i = [], 0
    for low, run in itertools.groupby(counts, key=lambda c: c <= ceiling):
        n = len(list(run))
        runs, i = runs + [(i, i + n)] * low, i + n
    widest = max(runs, key=lambda r: r[1] - r[0], default=None)
    if widest is None or widest[1] - widest[0] < 4:
        return None
    runs = [widest] + [r for r in runs if r[1] - r[0] >= 8 and r != widest]  # a word gap is no gutter
    # the left or the right 6 pt of a run (the widest, or 8 pt or more), whichever fewest glyphs cross: the first column
    # may end ragged (a family's cases), the second column's lines may be indented (a list) or few (a last page)
    bands = [(band, -(r[1] - r[0])) for r in runs for band in
             ((lo + r[0] + 0.5, min(lo + r[1] - 0.5, lo + r[0] + 6.5)),
              (max(lo + r[0] + 0.5, lo + r[1] - 6.5), lo + r[1] - 0.5))]
    band = min(bands, key=lambda b: (sum(g.bbox[0] < b[0][1] and g.bbox[2] > b[0][0] for g in glyphs), b[1]))[0]
    left = [g for g in glyphs if g.bbox[2] <= band[0]]
    right = [g for g in glyphs if g.bbox[0] >= band[1]]
    # both columns hold lines: a few long lines reaching past the middle of a wide page (a poster's
    # display) are not a second column
    rows = [len({round(g.origin[1]) for g in side}) for side in (left, right)]
    # a short second column (a paper's last page) starts its lines flush at the band (a list indents them)
    starts = [min(g.bbox[0] for g in side) for side in ([g for g in row if g.bbox[0] >= band[1]] for row in lines)
              if len(side) >= 5]
    flush = bool(starts) and sum(x <= band[1] + 24.0 for x in starts) >= 0.8 * len(starts)
    if min(len(left), len(right)) < 20 or min(rows) < 3 or min(rows) < 0.25 * max(rows) and not flush:
        return None
    # lines crossing the band hold at most half of the glyphs (one-column text whose word spaces line up
    # leaves a band that most lines cross)
    crossing = sum(len(row) for row in lines if any(g.bbox[0] < band[1] and g.bbox[2] > band[0] for g in row))
    return band if crossing <= 0.5 * len(glyphs) else None


def _reading_order(lines, gutter):
    def top(ln):
        return -max(g.origin[1] for g in ln)

    if not lines or gutter is None:
        return sorted(lines, key=lambda ln: (top(ln), min(g.bbox[0] for g in ln)))
    def side(ln):  # 0: the first column (it may run into the gutter), 1: the second, 2: across both
        x0, _, x1, _ = _extent(ln)
        return 1 if x0 >= gutter[1] else 0 if x1 <= gutter[0] or x0 < gutter[0] and x1 < gutter[1] else 2

    left = [ln for ln in lines if side(ln) == 0]
    right = [ln for ln in lines if side(ln) == 1]
    crossing = [ln for ln in lines if side(ln) == 2]
    # two columns: full-width lines above both columns (title, abstract) first, those below last
    top_of_columns = min((top(ln) for ln in left + right), default=0.0)
    head = [ln for ln in crossing if top(ln) < top_of_columns]
    tail = [ln for ln in crossing if top(ln) >= top_of_columns]
    return sorted(head, key=top) + sorted(left, key=top) + sorted(right, key=top) + sorted(tail, key=top)


def line_text(line):
    """The characters of a line with a space wherever the gap between glyphs is wider than 0.2 em.

    >>> a = Glyph("a", "CMR10", 10.0, (0, 0, 5, 5), 0, (), (0, 0), 5.0)
    >>> b = Glyph("b", "CMR10", 10.0, (8, 0, 13, 5), 1, (), (8, 0), 5.0)
    >>> line_text((a, b))
    'a b'
    """
    out, prev = [], None
    for g in line:
        x = _turn(g.direction if g.direction in (90, 180, 270) else 0, *g.origin)[0]   # along the baseline
        if prev is not None and x - prev > 0.2 * g.size:
            out.append(" ")
        out.append(g.char)
        prev = x + g.advance
    return "".join(out)


def _meets(a, b, margin=0.3):
    """Whether two boxes share more than a sliver (``margin`` points each way)."""
    return a[0] + margin < b[2] and b[0] + margin < a[2] and a[1] + margin < b[3] and b[1] + margin < a[3]


def _bands(glyphs):
    """One box per line of a run: its glyphs' boxes, 0.2 em below to 0.75 em above the baseline at least,
    1 em wider on both sides (in the frame of text turned by 90, 180 or 270 degrees)."""
    rows = []
    for g in sorted(glyphs, key=lambda g: (g.direction, -g.origin[1], g.origin[0])):
        axis = 0 if g.direction in (90, 270) else 1             # the coordinate of the baseline
        row = next((r for r in rows if r[0].direction == g.direction
                    and abs(r[0].origin[axis] - g.origin[axis]) <= 0.6 * max(r[0].size, g.size)), None)
        if row is None:
            rows.append([g])
        else:
            row.append(g)
    bands = []
    for row in rows:
        em, (x0, y0, x1, y1), d = max(g.size for g in row), _extent(row), row[0].direction
        b = row[0].origin[0 if d in (90, 270) else 1]
        lo, hi = (b - 0.75 * em, b + 0.2 * em) if d in (90, 180) else (b - 0.2 * em, b + 0.75 * em)
        bands.append((min(x0, lo), y0 - em, max(x1, hi), y1 + em) if d in (90, 270)
                     else (x0 - em, min(y0, lo), x1 + em, max(y1, hi)))
    return bands


def _explained(drawing, mine, glyphs):
    """Whether a drawing in a run's band is part of the typesetting: a background painted before the glyphs
    that lie on it (a colour box), a fraction bar with glyphs above and below it, a radical's bar."""
    kind, box, order, parts = drawing
    on = [g for g in mine if box[0] <= (g.bbox[0] + g.bbox[2]) / 2 <= box[2]
          and box[1] <= (g.bbox[1] + g.bbox[3]) / 2 <= box[3]]
    if kind == "drawing" and on and not parts and all(g.order > order for g in on):
        return True                                     # a box the glyphs are painted on (not a picture)
    if kind == "drawing" and box[3] - box[1] <= 1.5:     # a thin horizontal rule
        span = [g for g in mine if g.bbox[0] < box[2] and g.bbox[2] > box[0]]
        return any(g.bbox[3] <= box[1] + 0.5 for g in span) and (any(g.bbox[1] >= box[3] - 0.5 for g in span) or any(
            g.char == "\u221a" and abs(g.bbox[2] - box[0]) < 1.5 and g.bbox[3] >= box[1] - 1.0 for g in glyphs))
    return False


def run_problems(page, glyphs):
    """Why a run of glyphs (a statement found on a page) cannot be read as it stands, from what lies
    beside it (within 1 em of its lines): an unreadable glyph (:data:`UNKNOWN`, a Type 3 bitmap), a
    drawing or image that is not part of the typesetting (a digit drawn as a path), an annotation other
    than a link, ink in the rendering that nothing explains (:attr:`Page.stray`).

    Parameters
    ----------
    page : Page
    glyphs : sequence of Glyph
        The run's glyphs (all on ``page``).

    Returns
    -------
    tuple of str
        Reasons, e.g. ``'a drawing beside the statement (page 1)'``; empty when none.

    Examples
    --------
    >>> four = Glyph("4", "CMR10", 10.0, (0.0, 0.0, 5.0, 6.5), 1, (), (0.0, 0.0), 5.0)
    >>> page = Page(1, (0, 0, 100, 100), (four,), (), (), drawings=(("drawing", (6.0, 0.0, 10.0, 6.5), 2, ()),))
    >>> run_problems(page, (four,))
    ('a drawing beside the statement (page 1)',)
    >>> run_problems(Page(1, (0, 0, 100, 100), (four,), (), ()), (four,))
    ()
    """
    glyphs, n, reasons = tuple(glyphs), page.number, []
    mine = {id(g) for g in glyphs}
    for band in _bands(glyphs):
        if any(id(g) not in mine and (g.char == UNKNOWN or TYPE3 in g.problems) and _meets(g.bbox, band)
               for g in page.glyphs):
            reasons.append(f"a glyph the audit cannot read beside the statement (page {n})")
        for d in page.drawings:
            if _meets(d[1], band) and (not d[3] or any(_meets(p, band) for p in d[3])) \
                    and not _explained(d, glyphs, page.glyphs):
                rule = not d[3] or min(d[1][2] - d[1][0], d[1][3] - d[1][1]) <= 1.5   # a rectangle or a thin line
                what = "an image" if d[0] == "image" else "a drawing" if rule else "a shape drawn"
                reasons.append(f"{what} beside the statement (page {n})")
                break
        reasons += [f"a {subtype} annotation beside the statement (page {n})" for subtype, rect in page.annotations
                    if subtype not in ("Link", "Popup") and _meets(rect, band)][:1]
        if any(_meets(b, band) for b in page.stray):
            reasons.append(f"ink beside the statement not drawn by its glyphs (page {n})")
    return tuple(dict.fromkeys(reasons))


def render_crop(path, page_number, bbox, out_png, *, scale=2.0):
    """Write a PNG of a page region (``bbox`` in user space, as :class:`Glyph` boxes) as PDFium renders it.

    Parameters
    ----------
    path, out_png : str
        The PDF file; where to write the PNG.
    page_number : int
        1-based page number.
    bbox : tuple of float
    scale : float, optional
        Pixels per point.

    Raises
    ------
    symssm.errors.InputError
        The PDF cannot be rendered or the page does not exist.
    """
    try:
        stamp = os.stat(path).st_mtime_ns
    except OSError as exc:
        raise PdfReadError(f"cannot open {path}: {exc.strerror or exc}") from None
    image, origin, scale = _render_cached(os.path.abspath(path), stamp, page_number, float(scale))
    (x0, y0), (x1, y1) = _to_pixel(origin, scale, bbox[0], bbox[3]), _to_pixel(origin, scale, bbox[2], bbox[1])
    box = (max(0, int(x0)), max(0, int(y0)), min(image.width, math.ceil(x1)), min(image.height, math.ceil(y1)))
    if box[2] <= box[0] or box[3] <= box[1]:
        raise PdfReadError(f"the region {tuple(round(v, 1) for v in bbox)} is not on page {page_number}")
    buf = io.BytesIO()
    image.crop(box).save(buf, format="PNG")
    atomic_write(out_png, buf.getvalue(), inputs=(path,))


@functools.lru_cache(maxsize=3)
def _render_cached(path, stamp, page_number, scale):
    """A page rendered once for all the crops a report takes from it (keyed by the file's mtime too): a
    Pillow RGB image, its crop box's top-left corner and the scale (lower beyond the pixel budget)."""
    renderer = _Renderer(path)
    try:
        image, origin, scale = renderer.page(page_number, scale)
    finally:
        renderer.close()
    return Image.fromarray(image), origin, scale


def _to_pixel(origin, scale, x, y):
    return ((x - origin[0]) * scale, (origin[1] - y) * scale)
