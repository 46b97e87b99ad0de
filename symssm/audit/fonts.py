"""Glyph identity and true outlines: the font programs a PDF embeds, checked against TeX Live's own files.

Only :mod:`symssm.audit.pages` imports this module.  A glyph's name comes from its font program's encoding
(Type 1, CFF, CID-keyed CFF, TrueType), never from ``/ToUnicode``; its outline is compared with the glyph of
that name (or glyph index) in the font TeX Live installs (``pdftex.map`` for Type 1, file names for
OpenType, through ``kpsewhich``).  A different outline or a font TeX Live lacks is reported.

>>> glyph_char("four"), glyph_char("ffi"), glyph_char("summationdisplay"), glyph_char("uni2212")
('4', 'ffi', '∑', '−')
>>> base_name("ABCDEF+CMR10")
'CMR10'
"""

import functools
import io
import math
import os
import re
import subprocess
import unicodedata

from fontTools import agl
from fontTools.cffLib import CFFFontSet
from fontTools.encodings.StandardEncoding import StandardEncoding
from fontTools.misc import psCharStrings
from fontTools.pens.basePen import BasePen
from fontTools.ttLib import TTFont

__all__ = [
    "FontProgram", "base_name", "glyph_char", "read_type1", "read_cff", "read_truetype",
    "reference_font", "same_outline", "flatten",
]

#: TeX's names for sizes and pieces of one symbol (cmex10: ``summationdisplay``, ``parenleftbig``).
_SUFFIXES = ("display", "text", "Bigg", "bigg", "Big", "big", "bt", "tp", "mid", "ex", "rm", "sm")
#: Glyph names of TeX's math fonts that the Adobe glyph list does not know (or reads otherwise).
_TEX_NAMES = {
    "dotlessj": "ȷ", "negationslash": "̸", "mapsto": "↦", "owner": "∋", "openbullet": "∘", "epsilon1": "ϵ", "pi1": "ϖ",
    "rho1": "ϱ", "phi1": "φ", "phi": "ϕ", "vector": "⃗", "tie": "⁀", "prime": "′", "lscript": "ℓ", "latticetop": "⊤",
    "similarequal": "≃", "equivasymptotic": "≍", "slurbelow": "⌣", "slurabove": "⌢", "star": "⋆", "triangleright": "▷",
    "triangleleft": "◁", "circledot": "⊙", "circleminus": "⊖", "unionsq": "⊔", "intersectionsq": "⊓",
    "angbracketleft": "⟨", "angbracketright": "⟩", "bardbl": "‖", "floorleft": "⌊", "floorright": "⌋",
    "ceilingleft": "⌈", "ceilingright": "⌉", "follows": "≻", "lessmuch": "≪", "greatermuch": "≫", "contintegral": "∮",
    "hatwide": "^", "tildewide": "~", "hatwider": "^", "tildewider": "~", "hatwidest": "^", "tildewidest": "~",
    "arrowvertex": "", "arrowdblvertex": "", "bracketleftex": "", "bracketrightex": "", "parenleftex": "",
    "parenrightex": "", "braceex": "", "vextendsingle": "", "vextenddouble": "", "braceleftmid": "",
    "bracerightmid": "",
}
#: Mathematical italic, bold ... letters and digits (unicode-math) as the plain letters they show.
_MATH_LETTERS = {chr(c): unicodedata.normalize("NFKC", chr(c)) for c in range(0x1D400, 0x1D800)
                 if len(unicodedata.normalize("NFKC", chr(c))) == 1}
#: Map of a ligature code point to its letters (TeX's fi, ffi ...), so statements match as letters.
_LIGATURES = {chr(c): unicodedata.normalize("NFKC", chr(c)) for c in range(0xFB00, 0xFB07)}


def is_piece(name):
    """Whether a glyph name is a known piece of a big delimiter that reads as nothing.

    >>> is_piece("parenleftex"), is_piece("four"), is_piece("a65")
    (True, False, False)
    """
    return _TEX_NAMES.get(name, None) == ""


def base_name(name):
    """A font name without its six-letter subset prefix (``ABCDEF+CMR10`` -> ``CMR10``)."""
    name = str(name)
    if len(name) > 7 and name[6] == "+" and name[:6].isupper() and name[:6].isalpha():
        return name[7:]
    return name


@functools.lru_cache(maxsize=4096)
def glyph_char(name):
    """The text a PostScript glyph name stands for ('' when unknown), with ligatures as their letters."""
    if not name or name == ".notdef":
        return ""
    if name in _TEX_NAMES:
        return _TEX_NAMES[name]
    text = agl.toUnicode(name)
    if not text or (len(text) == 1 and text == "\ufffd"):
        for suffix in _SUFFIXES:
            if name.endswith(suffix) and len(name) > len(suffix):
                return glyph_char(name[: -len(suffix)])
        return ""
    return "".join(_LIGATURES.get(ch, ch) if ch not in _MATH_LETTERS else _MATH_LETTERS[ch] for ch in text)


# ---------------------------------------------------------------------------------------------- outlines


class _FlattenPen(BasePen):
    """Contours as lists of points, curves flattened into ``steps`` segments each."""

    def __init__(self, glyphset=None, steps=6):
        super().__init__(glyphset)
        self.contours, self.current, self.steps = [], None, steps

    def _moveTo(self, pt):
        self.current = [tuple(pt)]
        self.contours.append(self.current)

    def _lineTo(self, pt):
        if self.current is None:
            self._moveTo(self._getCurrentPoint() or (0, 0))
        self.current.append(tuple(pt))

    def _curveToOne(self, p1, p2, p3):
        self._lineTo(self._getCurrentPoint() or (0, 0))   # opens a contour if none is (flatten drops the repeat)
        p0 = self.current[-1]
        for i in range(1, self.steps + 1):
            t = i / self.steps
            w = ((1 - t) ** 3, 3 * (1 - t) ** 2 * t, 3 * (1 - t) * t * t, t ** 3)
            self.current.append(tuple(sum(k * p[j] for k, p in zip(w, (p0, p1, p2, p3))) for j in (0, 1)))

    def _closePath(self):
        self.current = None

    _endPath = _closePath


def flatten(glyph, glyphset=None):
    """A glyph's contours as tuples of points in font units (curves flattened), or ``None`` if unreadable."""
    pen = _FlattenPen(glyphset)
    try:
        glyph.draw(pen)
    except Exception:  # a broken charstring: the caller reports the glyph as unverifiable
        return None
    contours = []
    for contour in pen.contours:
        points = [p for i, p in enumerate(contour) if i == 0 or p != contour[i - 1]]
        if len(points) > 1 and points[-1] == points[0]:
            points.pop()
        if len(points) >= 2:
            contours.append(tuple(points))
    return tuple(contours)


def outline_box(contours):
    """``(x0, y0, x1, y1)`` around flattened contours, or ``None``."""
    xs, ys = [p[0] for c in contours for p in c], [p[1] for c in contours for p in c]
    return (min(xs), min(ys), max(xs), max(ys)) if xs else None


def same_outline(a, b, *, tolerance=12.0):
    """Whether two flattened outlines (font units of a 1000-unit em) draw the same shape.

    Tolerant of subsetting, hinting and charstring conversion: equal bounds within ``tolerance`` and
    every flattened point of each within ``tolerance`` of the other's polyline points.

    >>> sq = (((0, 0), (100, 0), (100, 100), (0, 100)),)
    >>> same_outline(sq, sq), same_outline(sq, (((0, 0), (100, 0), (100, 300), (0, 300)),))
    (True, False)
    """
    if a == b:
        return True
    if not a or not b:
        return False
    if any(abs(x - y) > tolerance for x, y in zip(outline_box(a), outline_box(b))):
        return False
    pa, pb = _densify(a, tolerance), _densify(b, tolerance)
    return _directed(pa, pb, tolerance) and _directed(pb, pa, tolerance)


def _densify(contours, step):
    points = []
    for contour in contours:
        for i, p in enumerate(contour):
            q = contour[(i + 1) % len(contour)]
            n = max(1, int(math.hypot(q[0] - p[0], q[1] - p[1]) / step))
            points.extend((p[0] + (q[0] - p[0]) * k / n, p[1] + (q[1] - p[1]) * k / n) for k in range(n))
    return points


def _directed(src, dst, tolerance):
    grid = {}
    for x, y in dst:
        grid.setdefault((int(x // tolerance), int(y // tolerance)), []).append((x, y))
    t2 = tolerance * tolerance
    for x, y in src:
        cx, cy = int(x // tolerance), int(y // tolerance)
        if not any((x - u) ** 2 + (y - v) ** 2 <= t2
                   for dx in (-1, 0, 1) for dy in (-1, 0, 1) for u, v in grid.get((cx + dx, cy + dy), ())):
            return False
    return True


# ---------------------------------------------------------------------------------------------- programs


class FontProgram:
    """A parsed font program (``kind`` ``'type1'``, ``'cff'`` or ``'truetype'``): its built-in
    ``encoding`` (code -> glyph name), glyph ``order``, CID map of a CID-keyed CFF, Unicode ``cmap`` (glyph
    name -> text), units per em and a Type 1 FontMatrix's ``slant`` (pdfTeX's SlantFont)."""

    def __init__(self, kind, glyphset, encoding, units, order=None, cid_map=None, cmap=None):
        self.kind, self.glyphset, self.encoding, self.units = kind, glyphset, encoding, units
        self.order, self.cid_map, self.cmap = order or [], cid_map or {}, cmap or {}
        self.slant, self._outlines = 0.0, {}

    def name_for_cid(self, cid):
        """The glyph a CID selects: a CID-keyed charset, else the glyph index itself."""
        return self.cid_map.get(cid) if self.cid_map else self.order[cid] if 0 <= cid < len(self.order) else None

    def outline(self, name):
        """Flattened contours of glyph ``name`` scaled to a 1000-unit em, ``None`` if absent."""
        if name not in self._outlines:
            try:
                contours = flatten(self.glyphset[name], self.glyphset)
            except Exception:  # absent
                contours = None
            if contours is not None and self.units != 1000:
                f = 1000.0 / self.units
                contours = tuple(tuple((x * f, y * f) for x, y in c) for c in contours)
            self._outlines[name] = contours
        return self._outlines[name]


class _Lazy(dict):
    """Type 1 charstrings (by glyph name) or subroutines (by index), each decrypted and decoded on first use."""

    def __init__(self, raw, lenIV, subrs=None):
        super().__init__()
        self.raw, self.lenIV, self.subrs = raw, lenIV, self if subrs is None else subrs

    def __contains__(self, key):
        return key in self.raw

    def __missing__(self, key):
        self[key] = psCharStrings.T1CharString(_decrypt(self.raw[key], 4330)[self.lenIV:], subrs=self.subrs)
        return self[key]


_RD = rb"(?:RD|-\|)"


def _type1_program(clear, plain):
    """A Type 1 program from its clear text and decrypted private part, charstrings decoded lazily."""
    m = re.search(rb"/lenIV\s+(\d+)", plain)
    lenIV = int(m.group(1)) if m else 4
    subrs_at = plain.find(b"/Subrs")
    chars_at = plain.find(b"/CharStrings")
    if chars_at < 0:
        raise ValueError("no CharStrings")
    raw_subrs = {int(i): data for i, data in _entries(plain, rb"dup\s+(\d+)", subrs_at, chars_at)} \
        if 0 <= subrs_at < chars_at else {}
    raw = {k.decode("latin-1"): v for k, v in _entries(plain, rb"/([^\s/\[\]{}()<>%]+)", chars_at + 12, len(plain))}
    if not raw:
        raise ValueError("no glyphs")
    encoding = {}
    if re.search(rb"/Encoding\s+StandardEncoding", clear):
        encoding = {i: n for i, n in enumerate(StandardEncoding) if n != ".notdef"}
    for m in re.finditer(rb"dup\s+(\d+)\s*/([^\s/\[\]{}()<>%]+)\s+put", clear):
        if int(m.group(1)) < 256:
            encoding[int(m.group(1))] = m.group(2).decode("latin-1")
    program = FontProgram("type1", _Lazy(raw, lenIV, _Lazy(raw_subrs, lenIV)), encoding, 1000.0)
    m = re.search(rb"/FontMatrix\s*\[\s*([-0-9.eE]+)(?:\s+([-0-9.eE]+)\s+([-0-9.eE]+)\s+([-0-9.eE]+))?", clear)
    try:
        scale = float(m.group(1)) if m else 0.0
        program.units = 1.0 / scale if scale else 1000.0
        if m and m.group(4) is not None:
            program.slant = max(-1.0, min(1.0, float(m.group(3)) / scale)) if scale else 0.0
    except ValueError:
        pass
    return program


def _entries(plain, key, start, end):
    """``(key, bytes)`` of each ``KEY LENGTH RD <bytes>`` entry of a decrypted Type 1 part in ``start:end``."""
    pattern = re.compile(key + rb"\s+(\d+)\s+" + _RD + rb" ")
    m = pattern.search(plain, start, end)
    while m:
        yield m.group(1), plain[m.end(): m.end() + int(m.group(2))]
        m = pattern.search(plain, m.end() + int(m.group(2)), end)


def _decrypt(cipher, r):
    """Type 1 decryption (eexec key 55665, charstring key 4330), a tight loop over ints."""
    out = bytearray(len(cipher))
    for i, c in enumerate(cipher):
        out[i] = c ^ (r >> 8)
        r = ((c + r) * 52845 + 22719) & 0xFFFF
    return bytes(out)


def _decrypt_eexec(cipher):
    if cipher[:4] and all(c in b"0123456789abcdefABCDEF \r\n\t" for c in cipher[:16]):
        cipher = bytes.fromhex(re.sub(rb"[^0-9a-fA-F]", b"", cipher).decode("ascii"))
    return _decrypt(cipher, 55665)[4:]


def read_type1(data, length1, length2):
    """Parse an embedded Type 1 program (``/FontFile``: clear text, then binary eexec part).

    Raises
    ------
    ValueError
        The program cannot be read.
    """
    if not (0 < length1 < len(data)):
        raise ValueError("bad Length1")
    clear = data[:length1]
    if clear.rfind(b"eexec") < 0:
        raise ValueError("no eexec")
    cipher = data[length1: length1 + length2] if length2 > 0 else data[length1:]
    return _type1_program(clear, _decrypt_eexec(cipher))


def pfb_parts(data):
    """The clear text and the encrypted part of an installed ``.pfb`` (segments) or ``.pfa`` font."""
    if data[:1] == b"\x80":
        clear, cipher, pos = b"", b"", 0
        while pos + 6 <= len(data) and data[pos] == 0x80 and data[pos + 1] in (1, 2):
            length = int.from_bytes(data[pos + 2: pos + 6], "little")
            if data[pos + 1] == 1 and not cipher:
                clear += data[pos + 6: pos + 6 + length]
            elif data[pos + 1] == 2:
                cipher += data[pos + 6: pos + 6 + length]
            pos += 6 + length
        return clear, cipher
    m = re.search(rb"eexec[\r\n \t]*", data)
    if m is None:
        raise ValueError("no eexec")
    end = data.find(b"0000000000", m.end())
    return data[:m.end()], data[m.end(): end if end > 0 else len(data)]


def read_pfb(path):
    """Parse an installed ``.pfb`` (segments) or ``.pfa`` Type 1 font file."""
    with open(path, "rb") as fh:
        clear, cipher = pfb_parts(fh.read())
    return _type1_program(clear, _decrypt_eexec(cipher))


def read_cff(data):
    """Parse a CFF program (``/FontFile3`` of subtype ``Type1C`` or ``CIDFontType0C``, or ``OpenType``)."""
    if data[:4] == b"OTTO":
        tt = TTFont(io.BytesIO(data), lazy=True)
        data = tt.getTableData("CFF ")
    cff = CFFFontSet()
    cff.decompile(io.BytesIO(data), None)
    top = cff[cff.fontNames[0]]
    charset = list(top.charset or [])
    cid_map = {int(n[3:]) if n != ".notdef" else 0: n for n in charset
               if n == ".notdef" or n.startswith("cid") and n[3:].isdigit()} if hasattr(top, "ROS") else {}
    encoding, enc = {}, getattr(top, "Encoding", None)
    if isinstance(enc, list):
        encoding = {i: n for i, n in enumerate(enc[:256]) if n and n != ".notdef"}
    elif enc == "StandardEncoding" or enc is None:
        encoding = {i: n for i, n in enumerate(StandardEncoding) if n != ".notdef"}
    matrix = getattr(top, "FontMatrix", None) or [0.001]
    units = 1.0 / matrix[0] if matrix[0] else 1000.0
    return FontProgram("cff", top.CharStrings, encoding, units, order=charset, cid_map=cid_map)


def read_truetype(data):
    """Parse a TrueType program (``/FontFile2``) or an OpenType file."""
    tt = TTFont(io.BytesIO(data), lazy=True)
    if "CFF " in tt:
        return read_cff(data)
    cmap, encoding = {}, {}
    for table in tt["cmap"].tables if "cmap" in tt else ():
        for code, name in table.cmap.items():
            if (table.platformID, table.platEncID) in ((3, 0), (1, 0)):
                encoding.setdefault(code & 0xFF, name)
            elif table.isUnicode():
                cmap.setdefault(name, chr(code))
    units = tt["head"].unitsPerEm if "head" in tt else 1000
    return FontProgram("truetype", tt.getGlyphSet(), encoding, units, order=tt.getGlyphOrder(), cmap=cmap)


# ---------------------------------------------------------------------------------------------- TeX Live


def _kpsewhich(*names):
    try:
        out = subprocess.run(["kpsewhich", *names], capture_output=True, text=True, timeout=30,
                             check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [line.strip() for line in out.splitlines() if line.strip()]


@functools.lru_cache(maxsize=1)
def _font_index():
    """File name -> path of every Type 1, OpenType and TrueType font on TeX's font search paths."""
    out = [_kpsewhich(f"-show-path={kind}") for kind in ("type1 fonts", "opentype fonts")]   # one per call
    index = {}
    for entry in ":".join(line for lines in out for line in lines).split(":"):
        folder = entry.strip().lstrip("!").rstrip("/")
        if not folder or folder == "." or not os.path.isdir(folder):
            continue
        for root, _, files in os.walk(folder):
            for name in files:
                if name.lower().endswith((".pfb", ".pfa", ".otf", ".ttf")):
                    index.setdefault(name, os.path.join(root, name))
            if len(index) > 200_000:
                return index
    return index


def _find(name):
    """The path of a font file by name, or ``None``."""
    return _font_index().get(name) or next(iter(_kpsewhich(name)), None)


@functools.lru_cache(maxsize=1)
def _pdftex_map():
    """PostScript font name (upper case) -> Type 1 file name, from TeX Live's pdftex.map."""
    found, table = _kpsewhich("pdftex.map"), {}
    try:
        with open(found[0], encoding="latin-1") as fh:
            for line in fh:
                words = line.split()
                files = [w.lstrip("<[") for w in words if w.lower().endswith((".pfb", ".pfa"))]
                if len(words) >= 2 and files and line[0] not in "%#*;":
                    table.setdefault(words[1].upper(), files[-1])
                    table.setdefault(words[0].upper(), files[-1])
    except (OSError, IndexError):   # no pdftex.map
        return {}
    return table


@functools.lru_cache(maxsize=256)
def reference_font(name, opentype=False):
    """TeX Live's own program of the font called ``name``, or ``None``: Type 1 through pdftex.map, OpenType
    and TrueType by file name (first when ``opentype``: LuaTeX's and XeTeX's CID fonts)."""
    name = base_name(name)
    if not re.fullmatch(r"[A-Za-z0-9_.\-]{1,80}", name):
        return None
    name = re.sub(r"-(?:Slant|Extend)_-?\d+$", "", name)     # pdfTeX's SlantFont/ExtendFont of a map entry
    pfb = None if opentype else _pdftex_map().get(name.upper())
    if pfb and _find(pfb):
        try:
            return read_pfb(_find(pfb))
        except Exception:  # an unreadable installed font: unknown
            return None
    stem = name.split("-Identity-")[0]
    stems = [stem.lower(), stem]
    m = re.fullmatch(r"(.+?)Math(?:-Regular)?", stem)
    if m:                                    # LatinModernMath-Regular is latinmodern-math.otf
        stems.append(m.group(1).lower() + "-math")
    for path in (_font_index().get(s + ext) for s in stems for ext in (".otf", ".ttf")):
        if path and os.path.isfile(path):
            try:
                with open(path, "rb") as fh:
                    data = fh.read()
                tt = TTFont(io.BytesIO(data), lazy=True)
                if "name" in tt and tt["name"].getDebugName(6) not in (None, stem):
                    continue                  # a file of that name holding another font
                program = read_truetype(data)
                if program.kind == "cff":
                    program.order = tt.getGlyphOrder()
                    program.cmap = {n: chr(c) for c, n in sorted(tt.getBestCmap().items(), reverse=True)}
                return program
            except Exception:
                return None
    return reference_font(name) if opentype else None
