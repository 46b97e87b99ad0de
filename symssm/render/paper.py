"""Reading a paper as TeX would, without running TeX: what is typeset, what is defined, where.

:class:`PaperReader` walks the tokens (:mod:`symssm.render.texscan`) of a paper's main file and of
the files it ``\\input``\\s, in the order TeX reads them, and records

- every **marked block** (a symssm fragment, macro file or table: between its begin and end marker
  comments) with the reason it is *not* typeset, if any: inside ``\\iffalse`` or a false ``\\newif``
  switch, a ``comment`` environment, a conditional the audit does not evaluate (``\\ifdim``, ...),
  the argument of a command that may drop it, a definition's body, the preamble, after
  ``\\end{document}`` or ``\\endinput``, or excluded by ``\\includeonly``;
- every **definition** the paper (or a package file beside it) makes: ``\\def``, ``\\let``,
  ``\\newcommand`` and its relatives, environments, ``\\DeclareMathOperator``, ...; and the
  theorem environments it declares;
- **hazards**: constructs that would let text reach the page, or stay off it, in a way a reader of
  the tokens cannot follow (a macro whose body inputs a file or opens an ``\\iffalse``, a ``\\let``
  to ``\\input``, a ``\\catcode`` change, a command name built from macros, a redefinition of the
  commands the reading relies on);
- the **typeset text** outside the blocks, as sentences with their file and line, the symssm
  macros and ``\\ref``\\s they contain (for the prose checks).

Nothing is evaluated: conditionals are decided only when they are ``\\iftrue``, ``\\iffalse`` or a
``\\newif`` switch set by ``\\...true``/``\\...false`` where it is read; every other conditional is
*undecided*, and a fragment under it is not counted as typeset.

Examples
--------
>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> with open(os.path.join(folder, "p.tex"), "w") as fh:
...     _ = fh.write("\\\\documentclass{article}\\n\\\\begin{document}\\n\\\\iffalse\\n\\\\input{x}\\n\\\\fi\\n"
...                  "Some text.\\n\\\\end{document}\\n")
>>> with open(os.path.join(folder, "x.tex"), "w") as fh:
...     _ = fh.write("% symssm fragment: head-count certificate " + "0" * 64 + "; file x.json; options -\\n"
...                  "k = 2\\n% end of symssm fragment " + "0" * 64 + "\\n")
>>> paper = read_paper(os.path.join(folder, "p.tex"))
>>> [(b.file, b.line, b.reason) for b in paper.blocks]
[('x.tex', 1, 'inside \\\\iffalse (p.tex:3)')]
"""

import os
import re
from dataclasses import dataclass, field
from typing import Optional

from ..errors import InputError
from .texscan import Scanner, Token, _just_begun, significant

__all__ = ["read_paper", "PaperReader", "Paper", "Block", "Definition", "Sentence", "MAX_TEX_BYTES",
           "MAX_TEX_FILES", "MAX_TOTAL_BYTES", "BEGIN", "END", "SYMSSM_SIGNS"]

#: Largest TeX file read, in bytes.
MAX_TEX_BYTES = 16 * 2**20
#: Most TeX files followed through ``\\input``/``\\include``.
MAX_TEX_FILES = 500
#: Most bytes read from all the files of one paper.
MAX_TOTAL_BYTES = 64 * 2**20
#: Deepest nesting of ``\\input`` and of groups, conditionals or environments the reader follows.
MAX_DEPTH = 64
MAX_NESTING = 4096

#: ``% symssm fragment|macros|table: KIND certificate SHA; file F; options ...``
BEGIN = re.compile(r" symssm (fragment|macros): ([a-z-]+) certificate ([0-9a-f]{64}); file (\S+); options (.*)")
END = re.compile(r" end of symssm (fragment|macros|table) ([0-9a-f]{64})")
TABLE = re.compile(r" symssm table: (framework); certificates ([0-9a-f,+-]+); file (\S+); options (.*)")
#: Tokens only a symssm fragment writes (outside a marked block they show a fragment stripped of its markers).
SYMSSM_SIGNS = ("symssmspan", "symssmtheorem")

_INPUTS = {"input", "include", "InputIfFileExists", "import", "subimport", "inputfrom", "subinputfrom",
           "includefrom", "subincludefrom", "@input", "@iinput", "@@input", "@input@"}
_UNFOLLOWED = {"subfile", "includestandalone", "externaldocument"}
#: TeX's primitive conditionals (and the LaTeX kernel's); names starting with "if" count as
#: conditionals too, except these macros, which take their branches as arguments.
_MACRO_CONDITIONALS = {"ifthenelse", "iftoggle", "ifdef", "ifundef", "ifdefempty", "ifdefvoid", "ifboolexpr",
                       "ifboolexpe", "ifstrequal", "ifstrempty", "ifblank", "ifnumcomp", "ifdimcomp", "ifbool",
                       "ifnumequal", "ifnumgreater", "ifnumless", "ifnumodd", "ifdefmacro", "ifdefparam",
                       "ifdefstring", "ifdefstrequal", "ifcsdef", "ifcsundef", "ifcsvoid", "ifcsempty",
                       "ifcsstring", "ifcsmacro", "ifltxcounter", "ifdefltxprotect", "ifpackageloaded",
                       "ifclassloaded", "iflanguage", "ifcommandkey", "ifhyperref"}
_DEF = {"def", "gdef", "edef", "xdef"}
_LET = {"let", "futurelet"}
_NEWCOMMAND = {"newcommand", "renewcommand", "providecommand", "DeclareRobustCommand", "newrobustcmd",
               "DeclareTextFontCommand", "DeclareOldFontCommand",
               "renewrobustcmd", "providerobustcmd", "DeclareTextCommand", "DeclareTextCommandDefault",
               "DeclareTextSymbol"}
_DOCUMENTCOMMAND = {"NewDocumentCommand", "RenewDocumentCommand", "ProvideDocumentCommand",
                    "DeclareDocumentCommand", "NewExpandableDocumentCommand", "RenewExpandableDocumentCommand",
                    "ProvideExpandableDocumentCommand", "DeclareExpandableDocumentCommand", "NewCommandCopy",
                    "RenewCommandCopy", "DeclareCommandCopy"}
_ENVIRONMENT = {"newenvironment", "renewenvironment", "provideenvironment"}
_DOCUMENTENV = {"NewDocumentEnvironment", "RenewDocumentEnvironment", "ProvideDocumentEnvironment",
                "DeclareDocumentEnvironment", "NewEnvironmentCopy", "RenewEnvironmentCopy"}
_REGISTER = {"chardef", "mathchardef", "countdef", "dimendef", "skipdef", "muskipdef", "toksdef", "newcount",
             "newdimen", "newskip", "newmuskip", "newtoks", "newbox", "newlength", "newsavebox", "newread",
             "newwrite", "DeclareMathOperator", "DeclareMathSymbol", "DeclareMathDelimiter", "DeclareMathAccent",
             "DeclareMathRadical", "DeclarePairedDelimiter", "DeclarePairedDelimiterX"}
#: The commands the reading relies on: a paper that redefines one cannot be audited by reading it.
CORE = {"input", "include", "InputIfFileExists", "endinput", "iffalse", "iftrue", "fi", "else", "or", "begin",
        "end", "newcommand", "renewcommand", "providecommand", "def", "gdef", "edef", "xdef", "let", "csname",
        "endcsname", "newif", "includeonly", "document", "enddocument", "newtheorem", "verb", "makeatletter",
        "makeatother", "expandafter", "excludecomment", "includecomment", "comment", "endcomment", "label",
        "ref", "import", "subimport", "unless", "ifcsname", "ifx", "newenvironment", "renewenvironment",
        # what symssm's fragments and macros print through, and what ends or flushes the pages
        "ensuremath", "@ensuredmath", "@begintheorem", "@opargbegintheorem", "@thm", "@xthm", "@ythm",
        "@endtheorem", "deferred@thm@head", "thm@headfont", "trivlist", "endtrivlist", "@trivlist", "clearpage",
        "cleardoublepage", "newpage", "@doclearpage", "@makecol", "@outputpage", "@@end", "stop", "@end",
        "output", "bibliography", "printbibliography"}
#: Tokens in a macro's body that let it hide text or bring text in: such a macro is a hazard.
_HIDING = {"input", "include", "InputIfFileExists", "endinput", "iffalse", "iftrue", "subfile", "import",
           "subimport", "scantokens", "catcode", "excludecomment", "comment", "endcomment", "@@input",
           "@input", "@iinput", "csname"}
#: Commands whose brace arguments are typeset as they are: a fragment may sit inside them.
SAFE_ARGUMENTS = {"parbox", "fbox", "framebox", "vbox", "vtop", "hbox", "mbox", "textcolor",
                  "makebox", "resizebox", "resizebox*", "scalebox", "footnote", "centerline", "AtBeginDocument"}
#: Definitions by name (etoolbox's ``\\csdef{NAME}{BODY}`` and kin, LaTeX's ``\\@namedef``).
_CSNAMED = {"@namedef", "csdef", "csgdef", "csedef", "csxdef", "cslet", "csletcs", "csgletcs", "letcs",
            "protected@csedef", "protected@csxdef"}
#: Commands that change how characters, numbers or whole environments print, or define commands in ways the
#: audit does not read: a paper that uses one outside a symssm block cannot be audited by reading it.
APPEARANCE = {
    **dict.fromkeys(("mathcode", "delcode", "uccode", "lccode", "sfcode", "everymath", "everydisplay",
                     "everypar", "everyhbox", "everyvbox", "everycr", "everyeof", "DeclareUnicodeCharacter",
                     "newunicodechar", "DeclareTextCompositeCommand", "mathversion", "SetSymbolFont",
                     "DeclareSymbolFontAlphabet", "SetMathAlphabet", "DeclareSymbolFont", "DeclareMathAlphabet",
                     "DeclareFontSubstitution", "DeclareMathVersion", "DeclareFontEncoding", "textfont",
                     "scriptfont", "scriptscriptfont", "nullfont", "usefont", "font", "fontdimen",
                     "DeclareFontEncodingDefaults", "DeclareErrorFont", "pdfmapfile", "pdfmapline"),
                    "changes how characters or numbers print"),
    **dict.fromkeys(("AtBeginEnvironment", "AtEndEnvironment", "BeforeBeginEnvironment", "AfterEndEnvironment",
                     "patchcmd", "xpatchcmd", "apptocmd", "pretocmd", "xapptocmd", "xpretocmd", "AddToHook",
                     "AddToHookNext", "AddToHookWithArguments", "preto", "appto", "gpreto", "gappto",
                     "csappto", "cspreto", "robustify", "ExplSyntaxOn", "ProvidesExplPackage",
                     "declaretheoremstyle"),
                    "changes commands or environments in a way the audit does not follow"),
    **dict.fromkeys(("color", "pagecolor", "colorbox", "fcolorbox", "pdfcolorstack", "transparent",
                     "texttransparent", "fontsize", "DeclareMathSizes", "DeclareFontShape", "DeclareFontFamily",
                     "DeclareFixedFont", "moveleft", "moveright", "raise", "lower", "llap", "rlap", "clap", "put",
                     "multiput", "leaders", "cleaders", "xleaders", "special", "pdfliteral", "pdfsetmatrix",
                     "pdfsave", "pdfrestore", "mag", "hoffset", "voffset", "pdfhorigin", "pdfvorigin",
                     "pdfpagewidth", "pdfpageheight", "pagewidth", "pageheight", "pdfpageattr", "shipout",
                     "AddToShipoutPicture", "AddToShipoutPictureFG", "AddToShipoutPictureBG", "AtBeginShipout",
                     "AtBeginShipoutNext", "AtBeginShipoutFirst", "char", "ooalign", "mathrlap", "mathllap",
                     "mathclap", "hidewidth", "smashoperator", "pdfximage", "pdfrefximage", "pdfxform",
                     "pdfrefxform", "offinterlineskip", "smash", "wd", "ht", "dp", "boxmaxdepth"),
                    "changes where, how large or in what colour the text that follows prints (or prints a "
                    "character by its code)"),
    **dict.fromkeys(("write", "openout", "immediate", "closeout", "newwrite", "filecontents", "VerbatimOut"),
                    "writes a file that TeX may read back (the .aux, an input)"),
}
#: Registers and parameters whose assignment can move or drop text (checked like skips).
_ASSIGNED = {"leftskip", "rightskip", "hangindent", "parshape", "hsize", "vsize", "lineskip", "lineskiplimit",
             "baselineskip", "parindent", "parfillskip", "textwidth", "columnwidth", "linewidth", "textheight",
             "topskip", "output", "vadjust", "insert", "oddsidemargin", "evensidemargin", "topmargin",
             "headsep", "marginparwidth", "columnsep"}
#: The page's own dimensions: templates set them to inches (``\\textwidth 6.5in``, ``\\topmargin -0.6in``), so only
#: more than 5 cm backwards or 26 cm forwards counts as far (points).
_LIMITS = dict.fromkeys(("hsize", "vsize", "textwidth", "columnwidth", "linewidth", "textheight", "oddsidemargin",
                         "evensidemargin", "topmargin", "headsep", "marginparwidth", "columnsep", "topskip"),
                        (142.3, 739.7))
#: Files TeX loads on its own (classes' options, font tables, configurations, packages that packages load).
_LOADED_BY_TEX = (".sty", ".cls", ".clo", ".fd", ".cfg", ".def", ".ldf", ".dfu", ".fdd", ".tex.cfg",
                  # fonts: pdfTeX finds a virtual font or metrics beside the paper first (a .vf can draw 3 for 2)
                  ".vf", ".tfm", ".pfb", ".pfa", ".pk", ".enc", ".map", ".otf", ".ttf", ".afm", ".ofm", ".ovf")
#: Commands that define colours (a redefined base colour, or a set of them, stops the audit).
_COLOUR_SETS = {"definecolorset", "definecolors", "preparecolorset", "DefineNamedColor", "definecolorseries",
                "providecolors", "providecolorset", "xglobal"}
_COLOUR_DEFINITIONS = {"definecolor", "xdefinecolor", "colorlet", "providecolor", "preparecolor"} | _COLOUR_SETS
#: Commands the audit reads specially: naming one through \csname hides that from it.
_INDIRECT = {"textcolor", "phantom", "hphantom", "vphantom", "smash", "setbox", "sbox", "savebox", "scalebox",
             "resizebox", "rotatebox", "reflectbox", "raisebox", "input", "include", "@input", "@iinput"}
#: Commands that end the run (TeX makes no page after them).
_ENDS = {"enddocument", "stop", "@@end", "bye", "end@document", "@end"}
#: Skips and kerns: a large negative one can push a fragment off the page.
_SKIPS = {"hskip", "vskip", "kern", "hspace", "vspace", "mskip", "mkern", "hglue", "vglue"}
_UNITS = {"pt": 1, "bp": 1.00375, "mm": 2.84528, "cm": 28.4528, "in": 72.27, "pc": 12, "sp": 1 / 65536,
          "em": 11, "ex": 5, "dd": 1.07, "cc": 12.84, "mu": 0.6}
#: Commands whose next brace group goes into a box register (typeset later, or never: not typeset for the audit).
_STORING = {"setbox"}
#: Environments that keep their contents in a box or write them to a file.
_STORING_ENVIRONMENTS = {"lrbox", "filecontents", "filecontents*", "VerbatimOut", "SaveVerbatim", "savenotes*"}
#: Boxes that typeset their argument at a size given as an argument: safe only at a legible size.
_SIZED = {"scalebox", "resizebox", "resizebox*"}
_SMALL_LENGTHS = {"baselineskip", "parskip", "smallskipamount", "medskipamount", "bigskipamount",
                  "abovedisplayskip", "belowdisplayskip", "abovecaptionskip", "belowcaptionskip", "itemsep", "topsep",
                  "parsep", "jot", "fboxsep", "tabcolsep", "arraycolsep", "parindent", "labelsep", "floatsep",
                  "textfloatsep", "intextsep"}
_WIDTHS = {"columnwidth", "linewidth", "textwidth", "hsize", "textheight", "vsize", "paperwidth"}
#: Environments standard LaTeX or common packages provide, which typeset their contents.
_SECTIONS = {"part", "chapter", "section", "subsection", "subsubsection", "paragraph", "subparagraph", "caption",
             "title", "author", "thanks", "footnote", "item", "maketitle", "appendix", "abstract", "bibliography"}
_SPACES = {",", ";", ":", "!", " ", "quad", "qquad", "enspace", "thinspace", "medspace", "thickspace", "\\",
           "newline", "linebreak", "allowbreak", "hfill", "hspace", "vspace", "smallskip", "medskip", "bigskip",
           "noindent", "indent", "par"}
_TEXT = {"ldots": "...", "dots": "...", "%": "%", "&": "&", "#": "#", "_": "_", "$": "$", "{": "{", "}": "}",
         "ge": ">=", "geq": ">=", "le": "<=", "leq": "<=", "neq": "!=", "ne": "!=", "times": "x", "cdot": "*",
         "infty": "infinity", "textendash": "-", "textemdash": "-", "colon": ":"}
_WORD_NUMBER = re.compile(r"[0-9]+")


@dataclass(frozen=True)
class Block:
    """A marked symssm block (fragment, macro file or table) as found in the paper."""

    what: str  # fragment, macros, table
    kind: str  # head-count, ..., or framework
    sha: str  # the certificate's SHA-256 (for a table: of its list of certificates)
    source: str  # the certificate's file name the marker records, or "-"
    options: str  # the recorded options (a table: its options)
    file: str  # shown file name
    path: str  # the file's path
    line: int
    tokens: tuple  # the tokens between the markers, comments left out
    closed: bool
    reason: Optional[str]  # why it is not typeset (None: typeset)
    preamble: bool  # read before \begin{document}
    order: int  # position in reading order
    end_line: int = 0
    certificates: tuple = ()  # a table's certificates: ((r sha, every sha or None), ...)


@dataclass(frozen=True)
class Definition:
    """A definition the paper (or a package file beside it) makes."""

    name: str  # a command's name (no backslash) or an environment's name
    environment: bool
    command: str  # the defining command (renewcommand, def, let, newenvironment, ...)
    file: str
    line: int
    block: Optional[str]  # the SHA of the marked block it is in (a macro file's own definitions)
    body: tuple  # significant tokens of its body (for text macros in prose)
    hazard: Optional[str] = None
    package: bool = False
    active: bool = True  # read where it takes effect (not inside \iffalse and the like)


@dataclass
class Sentence:
    """A sentence of typeset text outside the blocks: its text (symssm macros as ``\\ue000m:NAME\\ue001``,
    references as ``\\ue000r:LABEL\\ue001``), file, line, and the theorem-like environment it is in."""

    text: str
    file: str
    line: int
    environment: Optional[str] = None
    env_line: int = 0
    lines: list = field(default_factory=list)  # (offset in text, file, line)
    paragraph: int = 0

    def line_at(self, offset):
        """The (file, line) of the character at ``offset``."""
        where = (self.file, self.line)
        for off, f, ln in self.lines:
            if off > offset:
                break
            where = (f, ln)
        return where


@dataclass
class Paper:
    """What :func:`read_paper` finds (see :class:`PaperReader`)."""

    path: str
    root: str
    files: list = field(default_factory=list)  # (shown, path) in reading order
    blocks: list = field(default_factory=list)
    definitions: list = field(default_factory=list)
    theorems: dict = field(default_factory=dict)  # environment -> printed name
    hazards: list = field(default_factory=list)  # (file, line, message)
    notes: list = field(default_factory=list)
    macro_uses: list = field(default_factory=list)  # (name, file, line, order)
    signs: list = field(default_factory=list)  # (file, line, what, order): symssm text outside blocks
    sentences: list = field(default_factory=list)
    labels: list = field(default_factory=list)  # (label, file, line) written outside blocks
    mtime: float = 0.0


def _read_tex(path, shown):
    try:
        if not os.path.isfile(path):
            raise InputError(f"{shown}: not a file")
        if os.path.getsize(path) > MAX_TEX_BYTES:
            raise InputError(f"{shown}: larger than {MAX_TEX_BYTES // 2**20} MB, not read")
        with open(path, "rb") as fh:
            raw = fh.read(MAX_TEX_BYTES + 1)
        mtime = os.path.getmtime(path)
    except OSError as exc:
        raise InputError(f"{shown}: cannot read ({exc.strerror})") from None
    if b"\0" in raw:
        raise InputError(f"{shown}: not a TeX file (it contains NUL bytes)")
    return raw.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n"), len(raw), mtime


def _is_conditional(name, switches):
    return (name.startswith("if") and name not in _MACRO_CONDITIONALS) or name in switches


class _Frame:
    __slots__ = ("kind", "name", "file", "line", "value", "in_else", "arg_of", "defined")

    def __init__(self, kind, name, file, line, *, value=None, arg_of=None, defined=False):
        self.kind, self.name, self.file, self.line = kind, name, file, line
        self.value, self.in_else, self.arg_of, self.defined = value, False, arg_of, defined

    def active(self):
        """True, False, or None (undecided) for the branch being read."""
        if self.value is None:
            return None
        return self.value != self.in_else


class PaperReader:
    """Walk a paper's tokens in TeX's reading order (see the module's description).

    Parameters
    ----------
    paper : str
        The main ``.tex`` file.

    Raises
    ------
    InputError
        If a file cannot be read, the inputs form a cycle, or a limit is passed.
    """

    def __init__(self, paper):
        self.paper = os.fspath(paper)
        self.root = os.path.dirname(os.path.abspath(self.paper))
        self.out = Paper(self.paper, self.root)
        self.scanner = Scanner()
        self.conds = []
        self.envs = []
        self.groups = []
        self.switches = {}  # newif name -> True / False / None (undecided)
        self.in_document = False
        self.after_end = None
        self.includeonly = None
        self.bytes = 0
        self.order = 0
        self.stack = []
        self.text = []  # current paragraph: (text, file, line)
        self.text_env = None
        self.paragraph_env = None
        self.pending = None
        self.block = None  # (what, sha) of the marked block being read
        self.macro_names = set()
        self.paragraphs = 0
        self.storing = None  # \setbox read: the next brace group is stored in a box register, not typeset
        self.backwards = 0.0  # points moved backwards by skips since the last paragraph break
        self.styled = {}  # (name, is environment) -> the command of APPEARANCE its definition uses (at any depth)

    # ---------------------------------------------------------------- entry

    def read(self):
        self._file(os.path.abspath(self.paper), self._shown(os.path.abspath(self.paper)), skip=None)
        self._flush()
        read = {os.path.realpath(path) for _, path in self.out.files}
        try:
            beside = sorted(os.listdir(self.root))
        except OSError:
            beside = []
        for name in beside:  # TeX finds files in the paper's folder before its own: a package may load these
            path = os.path.join(self.root, name)
            if name.endswith(_LOADED_BY_TEX) and os.path.isfile(path) and os.path.realpath(path) not in read:
                font = name.endswith(_LOADED_BY_TEX[10:])
                self._hazard(name, 0, "this file beside the paper is not read by the audit, but TeX may load it "
                             + ("(pdfTeX looks for fonts beside the paper first: a virtual font can draw any "
                                "digit as another): remove it" if font else
                                "(a class loads its .clo, a package another package, the font tables their .fd): "
                                "remove it, or load it with \\usepackage so that it is read"))
        return self.out

    def _shown(self, path):
        return os.path.relpath(path, self.root)

    def _file(self, path, shown, *, skip, package=False):
        """Read one file: ``skip`` is why TeX would not read it (None: it does)."""
        real = os.path.realpath(path)
        if real in self.stack:
            raise InputError(f"{shown} inputs itself (a cycle)")
        if len(self.out.files) >= MAX_TEX_FILES:
            raise InputError(f"{self.paper}: more than {MAX_TEX_FILES} input files; not audited")
        if len(self.stack) >= MAX_DEPTH:
            raise InputError(f"{shown}: inputs nested more than {MAX_DEPTH} deep; not audited")
        text, size, mtime = _read_tex(path, shown)
        self.bytes += size
        if self.bytes > MAX_TOTAL_BYTES:
            raise InputError(f"{self.paper}: more than {MAX_TOTAL_BYTES // 2**20} MB of TeX; not audited")
        self.out.mtime = max(self.out.mtime, mtime)
        self.out.files.append((shown, path))
        at_letter = self.scanner.at_letter
        if package:
            self.scanner.at_letter = True
        tokens = self.scanner.tokenize(text, what=shown)
        if package:
            self.scanner.at_letter = at_letter
        self.stack.append(real)
        try:
            self._walk(tokens, shown, skip=skip, package=package)
        finally:
            self.stack.pop()

    # ---------------------------------------------------------------- where are we

    def _skip_reason(self, skip):
        """Why TeX does not read the tokens here (a false branch, a file it does not input), or None."""
        if skip:
            return skip
        for f in self.conds:
            if f.active() is False:
                return (f"inside \\{f.name} ({f.file}:{f.line})" if not f.in_else else
                        f"inside the \\else branch of \\{f.name} ({f.file}:{f.line})")
        if self.after_end:
            return f"after \\end{{document}} ({self.after_end})"
        return None

    def _reason(self, skip):
        """Why text here is not typeset for sure (None: it is), arguments of commands aside."""
        why = self._skip_reason(skip)
        if why:
            return why
        for f in self.conds:
            if f.active() is None:
                return f"inside \\{f.name} ({f.file}:{f.line}), a condition the audit does not evaluate"
        for f in self.envs:
            if f.defined:
                return f"inside the environment {f.name}, which the paper defines ({f.file}:{f.line})"
            if f.name in _STORING_ENVIRONMENTS:
                return (f"inside the environment {f.name} ({f.file}:{f.line}), which stores its contents in a box "
                        "or a file instead of typesetting them")
        return None

    def _arg_reason(self):
        f = self._unsafe_group(SAFE_ARGUMENTS, SAFE_ARGUMENTS)
        return None if f is None else (f"inside the argument of \\{f.arg_of} ({f.file}:{f.line}), which may not "
                                       "typeset it")

    def _unsafe_group(self, allowed, wrapped):
        """The first open group that is the argument of a command neither in ``allowed`` nor a plain wrapper of
        ``wrapped`` commands (see :meth:`_plain_wrapper`), or None."""
        for f in self.groups:
            name = f.arg_of
            if name is None or name in allowed:
                continue
            if (name, False) not in self.styled and self._plain_wrapper(name, wrapped):
                continue
            return f
        return None

    # ---------------------------------------------------------------- the walk

    def _walk(self, toks, shown, *, skip, package=False):
        blocks = {} if package else _marked_blocks(toks)
        saved = None
        if skip:
            saved, self.conds = self.conds, []
        block_end, block = -1, None
        endinput = None
        i, n = 0, len(toks)
        while i < n:
            t = toks[i]
            if endinput is not None and t.line > endinput:
                self._walk(toks[i:], shown, skip=skip or f"after \\endinput ({shown}:{endinput})", package=package)
                break
            if i in blocks:
                spec = blocks[i]
                self._block(spec, toks, shown, skip)
                block_end, block = spec[1], (spec[2], spec[4])
            self.block = block if i <= block_end else None
            in_block = self.block is not None
            kind = t.kind
            skipping = self._skip_reason(skip) is not None
            if kind == "comment":
                i += 1
                continue
            if kind == "raw":
                env = _just_begun(toks[max(0, i - 80):i])
                if env is not None and not package:
                    self._raw(env, t, shown, skip)
                i += 1
                continue
            if kind in ("space", "par"):
                if not skipping and not package:
                    if kind == "par":
                        self.pending = None
                        self.backwards = 0.0
                        self._flush()
                    else:
                        self._emit(" ", shown, t.line, skip)
                i += 1
                continue
            if kind == "char":
                i = self._char(t, toks, i, shown, skip, skipping, package)
                continue
            name = t.text
            # conditionals are followed where TeX skips too (it counts them there)
            if name in ("else", "or", "fi") or _is_conditional(name, self.switches):
                i = self._conditional(name, toks, i, shown, skipping)
                self.pending = None
                continue
            if name in _INPUTS or name in _UNFOLLOWED:
                if not package:
                    i = self._input(name, toks, i, shown, skip)
                else:
                    self._hazard(shown, t.line, f"\\{name} in a package file beside the paper brings in a file "
                                 "the audit does not read as part of the paper")
                    i += 1
                self.pending = None
                continue
            if skipping:
                i = self._env_name(toks, i + 1)[1] if name in ("begin", "end") else i + 1
                continue
            # from here on TeX reads the token (or may: undecided conditionals)
            if name == "newif":
                j = _skip_spaces(toks, i + 1)
                if j < n and toks[j].kind == "cs" and toks[j].text.startswith("if"):
                    base = toks[j].text[2:]
                    self.switches[base] = False
                    for defined in (toks[j].text, base + "true", base + "false"):
                        self._define(defined, False, "newif", shown, toks[j].line, (), package)
                    i = j + 1
                    continue
            if name.endswith(("true", "false")):
                base = name[:-4] if name.endswith("true") else name[:-5]
                if base in self.switches:
                    self.switches[base] = None if self._reason(skip) is not None else name.endswith("true")
                    i += 1
                    continue
            if name in ("begin", "end"):
                i = self._environment(name, toks, i, shown, skip, package)
                continue
            if name == "endinput":
                endinput = t.line
                i += 1
                continue
            if name in _DEF or name in _LET or name in _NEWCOMMAND or name in _DOCUMENTCOMMAND \
                    or name in _ENVIRONMENT or name in _DOCUMENTENV or name in _REGISTER or name in _CSNAMED:
                i = self._definition(name, toks, i, shown, package)
                continue
            if name in ("newtheorem", "newtheorem*"):
                i = self._newtheorem(toks, i, shown, package)
                continue
            if name == "includeonly":
                arg, j = _group(toks, _skip_spaces(toks, i + 1))
                self.includeonly = {x.strip() for x in _chars(arg).split(",") if x.strip()}
                i = j
                continue
            if name in ("usepackage", "RequirePackage", "documentclass", "LoadClass"):
                i = self._package(name, toks, i)
                continue
            if name in ("catcode", "scantokens") and not in_block:
                self._hazard(shown, t.line, f"\\{name} changes how TeX reads the text that follows; a paper that "
                             "does this cannot be audited by reading it")
            if not in_block and name in APPEARANCE and not (name == "color" and self._dark(toks, i)):
                self._hazard(shown, t.line, f"\\{name} {APPEARANCE[name]}; a paper that uses it cannot be audited "
                             "by reading it")
            if not in_block and name == "newtheoremstyle":
                odd = _odd_style(toks, i)
                if odd:
                    self._hazard(shown, t.line, f"\\newtheoremstyle uses \\{odd}, which may hide or restyle the "
                                 "theorems that follow (symssm's among them)")
            if not in_block and name in ("tikz", "tikzset", "pgfkeys") and _overlay(toks, i):
                self._hazard(shown, t.line, f"\\{name} with an overlay draws over the page, where it can cover a "
                             "result; a paper that does this cannot be audited by reading it")
            if not in_block and name in _COLOUR_DEFINITIONS:
                target, _ = _group(toks, _skip_spaces(toks, i + 1))
                colour = _chars(target).strip()
                if name in _COLOUR_SETS or colour in _BASE_COLOURS or colour in (".", "default", "fg", "text"):
                    what = "colours" if name in _COLOUR_SETS else "the colour " + colour
                    self._hazard(shown, t.line, f"\\{name} redefines {what}, "
                                 "which can make text invisible; the audit reads only xcolor's base colours")
            if not in_block and name == "includegraphics" and _drawn_outside(toks, i):
                self._hazard(shown, t.line, "\\includegraphics with trim, viewport or bb but no clip, or scaled to "
                             "nothing, draws outside its box, where the image can cover a result")
            if not in_block and name == "raisebox" and _raised_far(toks, i):
                self._hazard(shown, t.line, "\\raisebox by 1 cm or more, or with a height or depth given, can print "
                             "what it holds over other text")
            if not in_block and name == "linespread":
                factor, _ = _group(toks, _skip_spaces(toks, i + 1))
                if not re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*", _chars(factor)) or float(_chars(factor)) < 0.8:
                    self._hazard(shown, t.line, "\\linespread below 0.8 (or not a number) lets lines print over "
                                 "each other")
            if not in_block and name in ("geometry", "newgeometry"):
                options, _ = _group(toks, _skip_spaces(toks, i + 1))
                if _geometry_far(_chars(options)):
                    self._hazard(shown, t.line, f"\\{name} moves the text area far (an offset, a negative or huge "
                                 "margin, a tiny paper): a result may print off the page")
            if not in_block and name in _SKIPS:
                amount = _skip_text(toks, i)
                self.backwards += _backwards(amount)  # many small steps back add up (reset at a paragraph)
                if _far(amount) or self.backwards >= 28.45:
                    self.backwards = 0.0
                    self._hazard(shown, t.line, f"\\{name} moves by 1 cm or more backwards, 10 cm or more forwards, "
                                 "or an amount the audit cannot measure, which can push a result off the page")
            if not in_block and name in ("@nameuse", "csuse", "@namedef", "csdef", "csgdef", "ifcsdef",
                                         "cslet", "csletcs", "letcs", "@ifundefined", "ifcsundef", "ifdef"):
                target, _ = _group(toks, _skip_spaces(toks, i + 1))
                named = _chars(target).strip().lstrip("\\")
                if named in APPEARANCE or named in CORE or named in _SKIPS or named in _ASSIGNED \
                        or named in _INDIRECT or (self.in_document and name in ("@nameuse", "csuse")):
                    self._hazard(shown, t.line, f"\\{name} names \\{named} indirectly; the audit cannot follow "
                                 "what it does")
            if not in_block and name in _ENDS:
                self._hazard(shown, t.line, f"\\{name} ends the run: the pages after it are never made, though "
                             "the audit would read on")
            if not in_block and name in _ASSIGNED:
                j = _skip_spaces(toks, i + 1)
                if name in ("parshape", "output", "vadjust", "insert") or _far(_chars(toks[j:j + 40]),
                                                                              *_LIMITS.get(name, ())):
                    self._hazard(shown, t.line, f"\\{name} is set to a value that can move or drop text (or one "
                                 "the audit cannot measure)")
            if not in_block and name in ("setlength", "addtolength"):
                target, j = _group(toks, _skip_spaces(toks, i + 1))
                value, _ = _group(toks, _skip_spaces(toks, j))
                named = _chars(target).strip().lstrip("\\")
                if named in _ASSIGNED and _far(_chars(value), *_LIMITS.get(named, ())):
                    self._hazard(shown, t.line, f"\\{name} sets \\{named} to a value that can move or drop text "
                                 "(or one the audit cannot measure)")
            if name == "csname" and not in_block:
                j, cs = _csname(toks, i)
                if not package and cs is None:
                    self._hazard(shown, t.line, "\\csname builds a command name from other commands; the audit "
                                 "cannot tell which command it names")
                elif cs is not None and cs.lower().startswith("symssm"):
                    self._hazard(shown, t.line, f"\\csname {cs}\\endcsname names a symssm command indirectly")
                elif cs is not None and (cs in APPEARANCE or cs in CORE or cs in _SKIPS or cs in _ASSIGNED
                                         or cs in _ENDS or cs in _INDIRECT or self.in_document):
                    self._hazard(shown, t.line, f"\\csname {cs}\\endcsname names \\{cs} indirectly; the audit "
                                 "cannot follow what it does")
                i = j
                continue
            if package:
                i += 1
                continue
            i = self._text_cs(t, toks, i, shown, skip, in_block)
        if saved is not None:
            self.conds = saved
        self.block = None

    # ---------------------------------------------------------------- pieces

    def _block(self, spec, toks, shown, skip):
        start, end, what, kind, sha, source, options, closed, certs = spec
        reason = self._reason(skip) or self._arg_reason()
        preamble = not self.in_document and not self.after_end
        if what != "macros" and reason is None and preamble:
            reason = "in the preamble (before \\begin{document})"
        body = [x for x in toks[start + 1:end] if x.kind != "comment"]
        self.order += 1
        self.out.blocks.append(Block(what, kind, sha, source, options, shown, self.stack[-1], toks[start].line,
                                     tuple(body), closed, reason, preamble, self.order, toks[end].line, certs))

    def _raw(self, env, t, shown, skip):
        """The contents of a comment or verbatim-like environment: TeX does not read them; look inside for
        fragments and inputs, as text that is not typeset."""
        if env in self.scanner.comment_envs:
            why = f"inside the {env} environment ({shown}:{t.line})"
        else:
            why = f"inside the {env} environment ({shown}:{t.line}), printed as code"
        inner = Scanner(max_tokens=self.scanner.budget).tokenize("\n" * (t.line - 1) + t.text, what=shown)
        self._walk(inner, shown, skip=self._skip_reason(skip) or why)

    def _char(self, t, toks, i, shown, skip, skipping, package):
        ch = t.text
        if skipping:
            return i + 1
        if ch == "{":
            if len(self.groups) > MAX_NESTING:
                raise InputError(f"{shown}:{t.line}: groups nested more than {MAX_NESTING} deep; not audited")
            arg_of = self.pending if self.pending not in _WIDTHS | _SMALL_LENGTHS else None  # \hbox to \hsize{
            if self.storing is not None:  # \setbox0\vbox{...}: the box's contents go to a register
                arg_of, self.storing = self.storing, None
            self.groups.append(_Frame("group", "", shown, t.line, arg_of=arg_of))
            self.pending = None
            return i + 1
        if ch == "}":
            if self.groups:
                self.pending = self.groups.pop().arg_of
                if self.pending in _SECTIONS:
                    self._flush()
            return i + 1
        if ch == "[" and self.pending is not None:
            opt, j = _optional(toks, i)
            if opt is not None:
                if not package:
                    for x in opt:
                        if x.kind == "char" and x.text not in "{}":
                            self._emit(x.text, shown, x.line, skip)
                        elif x.kind == "space":
                            self._emit(" ", shown, x.line, skip)
                return j
        if ch != "*":
            self.pending = None
        if not package:
            self._emit(" " if ch == "~" else "" if ch in "$&^_#" else ch, shown, t.line, skip)
        return i + 1

    def _conditional(self, name, toks, i, shown, skipping):
        t = toks[i]
        if name == "fi":
            if self.conds:
                self.conds.pop()
            return i + 1
        if name in ("else", "or"):
            if self.conds:
                if name == "else":
                    self.conds[-1].in_else = True
                else:
                    self.conds[-1].value = None
            return i + 1
        if len(self.conds) > MAX_NESTING:
            raise InputError(f"{shown}:{t.line}: conditionals nested more than {MAX_NESTING} deep; not audited")
        value = None
        if name == "iffalse":
            value = False
        elif name == "iftrue":
            value = True
        elif name[2:] in self.switches:
            value = self.switches[name[2:]]
        prev = toks[i - 1] if i else None
        if prev is not None and prev.kind == "cs" and prev.text == "unless" and value is not None:
            value = not value
        self.conds.append(_Frame("if", name, shown, t.line, value=value))
        j = i + 1
        if skipping:
            return j
        if name == "ifcsname":
            while j < len(toks) and not (toks[j].kind == "cs" and toks[j].text == "endcsname") and j - i < 500:
                j += 1
            return j + 1
        if name in ("ifx", "ifdefined", "ifcat", "if"):
            for _ in range(2 if name in ("ifx", "ifcat", "if") else 1):
                j = _skip_spaces(toks, j) + 1
        return j

    def _input(self, name, toks, i, shown, skip):
        t = toks[i]
        j = _skip_spaces(toks, i + 1)
        base = self.root
        if name in ("import", "subimport", "inputfrom", "subinputfrom", "includefrom", "subincludefrom"):
            folder, j = _group(toks, j)
            target, j = _group(toks, _skip_spaces(toks, j))
            base = os.path.join(self.root if name in ("import", "inputfrom", "includefrom")
                                else os.path.dirname(self.stack[-1]), _chars(folder).strip())
            target = _chars(target)
        elif j < len(toks) and toks[j].kind == "char" and toks[j].text == "{":
            arg, j = _group(toks, j)
            target = _chars(arg)
        else:
            chars = []
            while j < len(toks) and toks[j].kind == "char" and toks[j].text not in "{}%" and len(chars) < 300:
                chars.append(toks[j].text)
                j += 1
            target = "".join(chars)
        target = target.strip()
        why = self._skip_reason(skip)
        if name in _UNFOLLOWED:
            if why is None:
                self.out.notes.append(f"note: {shown}:{t.line}: \\{name}{{{target[:80]}}} is not followed by the "
                                      "audit; results in it are not found")
            return j
        path = _resolve(base, target)
        if path is None:
            if why is None and target:
                self.out.notes.append(f"note: {shown}:{t.line}: \\{name}{{{target[:80]}}} not found beside the "
                                      "paper; not followed")
            return j
        if why is None and name == "include" and self.includeonly is not None:
            stem = target[:-4] if target.endswith(".tex") else target
            if stem not in self.includeonly:
                why = f"not included: \\includeonly does not list {stem}"
        if why is None and name == "include":
            self._flush()
        self._file(path, self._shown(path), skip=why)
        return j

    def _env_name(self, toks, j):
        arg, j = _group(toks, _skip_spaces(toks, j))
        return _chars(arg).strip(), j

    def _environment(self, name, toks, i, shown, skip, package):
        t = toks[i]
        env, j = self._env_name(toks, i + 1)
        if package:
            return j
        self._flush()
        self.pending = None
        if name == "begin":
            if env == "document":
                self.in_document = True
                # LaTeX inputs the paper's .aux here, as it was left by the last run: definitions in it count
                aux = os.path.join(self.root, os.path.splitext(os.path.basename(self.paper))[0] + ".aux")
                if os.path.isfile(aux) and self.block is None and self._skip_reason(skip) is None:
                    self._file(aux, self._shown(aux), skip=None, package=True)
                return j
            if len(self.envs) > MAX_NESTING:
                raise InputError(f"{shown}:{t.line}: environments nested more than {MAX_NESTING} deep; not audited")
            defined = any(d.environment and d.name == env and d.block is None and not d.package
                          and d.command != "newtheorem" for d in self.out.definitions)
            self.envs.append(_Frame("env", env, shown, t.line, defined=defined))
            if env in ("tikzpicture", "pgfpicture", "picture", "overpic") and self.block is None and (
                    env != "tikzpicture" or _overlay(toks, j - 1)):
                self._hazard(shown, t.line, f"the environment {env} can draw over the page, where it can cover a "
                             "result; a paper that uses it cannot be audited by reading it")
            if (env, True) in self.styled and self.block is None:
                self._hazard(shown, t.line, f"the environment {env} uses \\{self.styled[(env, True)]}, which "
                             f"{_why(self.styled[(env, True)])}; a paper that uses it cannot be audited by "
                             "reading it")
            if self.block is None:
                if env in self.out.theorems or env in _THEOREM_LIKE:
                    self.text_env = (env, shown, t.line)
                if env in SYMSSM_SIGNS and self._reason(skip) is None and self.in_document:
                    self.order += 1
                    self.out.signs.append((shown, t.line, f"\\begin{{{env}}}", self.order))
            return j
        if env == "document":
            self.after_end = f"{shown}:{t.line}"
            return j
        for k in range(len(self.envs) - 1, -1, -1):
            if self.envs[k].name == env:
                del self.envs[k:]
                break
        if self.text_env is not None and self.text_env[0] == env:
            self.text_env = None
        return j

    def _definition(self, command, toks, i, shown, package):
        t = toks[i]
        names, bodies, j = _parse_definition(command, toks, i)
        body = tuple(p for b in bodies for p in b)
        in_block = self.block is not None
        for name, env in names:
            if name is None:
                if not in_block:
                    self._hazard(shown, t.line, f"\\{command} defines a command whose name the audit cannot read "
                                 "(it is built from other commands)")
                continue
            if not in_block and name == "baselinestretch" and not env:
                stretch = "".join(x for k, x in body if k == "char")
                if not re.fullmatch(r"[0-9]*\.?[0-9]+", stretch) or float(stretch) < 0.8:
                    self._hazard(shown, t.line, "\\baselinestretch below 0.8 (or not a number) lets lines print "
                                 "over each other")
            if not in_block and name in CORE and not env:
                self._hazard(shown, t.line, f"\\{command} redefines \\{name}, which the audit relies on to read "
                             "the paper")
            hazard = None if in_block or package else _body_hazard(command, body)
            if hazard:
                self._hazard(shown, t.line, f"\\{command} defines \\{name}, whose body {hazard}; the audit "
                             "does not expand macros, so it cannot tell what this hides or brings in")
            self._define(name, env, command, shown, t.line, body, package)
        if not in_block:  # definitions nested in a body are definitions too
            for b in bodies:
                sub = [Token(kind, text, t.line) for kind, text in b if not (kind == "cs" and text in _NOEXPAND)]
                for k, x in enumerate(sub):
                    if x.kind == "cs" and x.text in _ALL_DEFINING:
                        for name, env in _parse_definition(x.text, sub, k)[0]:
                            if name is not None:
                                self._define(name, env, x.text, shown, t.line, (), package)
        self.pending = None
        return j

    def _define(self, name, env, command, shown, line, body, package):
        block = self.block[1] if self.block is not None else None
        if block is None:  # \newcommand{\hide}{\color{white}}, \let\hide\color: a use of it is one of those
            sub = [Token(k, x, line) for k, x in body]
            styled = next((x if x in APPEARANCE else self.styled[(x, False)] for n, (k, x) in enumerate(body)
                           if k == "cs" and (x in APPEARANCE or (x, False) in self.styled)
                           and not (x == "color" and self._dark(sub, n))), None)
            if styled is None:  # \newcommand{\rev}[1]{\textcolor{white}{#1}}
                styled = next((x for n, (k, x) in enumerate(body) if k == "cs" and x == "textcolor"
                               and not self._dark(sub, n)), None)
            if styled is not None:
                self.styled[(name, env)] = styled
            else:
                self.styled.pop((name, env), None)
        if self.block is not None and self.block[0] == "macros" and not env:
            self.macro_names.add(name)
        self.out.definitions.append(Definition(name, env, command, shown, line, block, tuple(body), None, package))

    def _newtheorem(self, toks, i, shown, package):
        j = _skip_spaces(toks, i + 1)
        if j < len(toks) and toks[j].kind == "char" and toks[j].text == "*":
            j += 1
        env, j = _group(toks, _skip_spaces(toks, j))
        if self.block is None and _chars(env).strip().startswith("symssm"):  # a hand-made symssm environment
            self._define(_chars(env).strip(), True, "newtheorem", shown, toks[i].line, (), package)
        _, j = _optional(toks, _skip_spaces(toks, j))
        title, j = _group(toks, _skip_spaces(toks, j))
        k = _skip_spaces(toks, j)
        opt, k2 = _optional(toks, k)
        name = _chars(env).strip()
        if name and name not in self.out.theorems:
            self.out.theorems[name] = " ".join(_chars(title).split())
        return k2 if opt is not None else j

    def _package(self, name, toks, i):
        options, j = _optional(toks, _skip_spaces(toks, i + 1))
        arg, j = _group(toks, _skip_spaces(toks, j))
        if "geometry" in _chars(arg) and options is not None and _geometry_far(_chars(options)):
            self._hazard(self._shown(self.stack[-1]), toks[i].line, "the geometry package's options move the text "
                         "area far (an offset, a negative or huge margin, a tiny paper): a result may print off the "
                         "page")
        ext = ".cls" if name in ("documentclass", "LoadClass") else ".sty"
        for pkg in _chars(arg).split(","):
            pkg = pkg.strip()
            if not re.fullmatch(r"[A-Za-z0-9_.-]{1,100}", pkg):
                continue
            path = os.path.join(self.root, pkg + ext)
            if os.path.isfile(path) and os.path.realpath(path) not in self.stack:
                self._file(path, self._shown(path), skip=None, package=True)
        return j

    def _hiding_argument(self):
        """Why a symssm macro used here may not be seen (the argument of a command that is not known to print it
        legibly), or None."""
        f = self._unsafe_group(SAFE_ARGUMENTS | _TEXT_ARGUMENTS | _SECTIONS, SAFE_ARGUMENTS | _TEXT_ARGUMENTS)
        return None if f is None else f"inside the argument of \\{f.arg_of} ({f.file}:{f.line})"

    def _plain_wrapper(self, name, allowed):
        """Whether the paper defines ``name`` with a body of ``allowed`` commands and its one argument only,
        printed legibly (``\\newcommand{\\rev}[1]{\\textcolor{blue}{#1}}``)."""
        d = self._latest(name)
        if d is None or d.command in _LET or d.command in _REGISTER:
            return False
        params = {d.body[n + 1][1] for n, (k, x) in enumerate(d.body[:-1]) if k == "char" and x == "#"}
        body = [Token(k, x, 0) for k, x in d.body]
        return params == {"1"} and all(
            k != "cs" or (x in allowed and not (x in _SIZED and not _legible(x, body, n))
                          and not (x == "textcolor" and not self._dark(body, n)))
            for n, (k, x) in enumerate(d.body))

    def _latest(self, name):
        """The paper's last definition of the command ``name`` outside symssm's blocks, or None."""
        return next((d for d in reversed(self.out.definitions)
                     if d.name == name and not d.environment and d.block is None), None)

    def _dark(self, toks, i):
        """Whether ``\\color`` / ``\\textcolor`` at ``toks[i]`` names a colour dark enough to read on white:
        one of xcolor's base colours or their mixes (``red``, ``blue!70``), or a model's values (``[rgb]{0,0,.6}``);
        not ``white``, ``yellow``, ``blue!10``, nor a colour the paper defines (TeX's order and groups decide
        what such a name means, which reading cannot follow), nor values outside 0 to 1."""
        j = _skip_spaces(toks, i + 1)
        model, j = _optional(toks, j)
        spec, _ = _group(toks, _skip_spaces(toks, j))
        rgb = _model_colour(_chars(model), _chars(spec)) if model is not None else _mix(_chars(spec), _BASE_COLOURS)
        return rgb is not None and 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2] <= 0.6

    def _hazard(self, shown, line, message):
        entry = (shown, line, message)
        if entry not in self.out.hazards:
            self.out.hazards.append(entry)

    def _text_cs(self, t, toks, i, shown, skip, in_block):
        name = t.text
        n = len(toks)
        self.pending = name
        if in_block:
            return i + 1
        if (name, False) in self.styled and self.in_document:
            self._hazard(shown, t.line, f"\\{name} uses \\{self.styled[(name, False)]}, which "
                         f"{_why(self.styled[(name, False)])}; a paper that uses it cannot be audited by "
                         "reading it")
        if name in _STORING:
            self.storing = name
        elif name in _SIZED and not _legible(name, toks, i):
            self.pending = name + " (to a size the audit cannot read as legible)"
        elif name in ("makebox", "framebox", "hbox", "vbox", "vtop") and _zero_width(name, toks, i):
            self.pending = name + " (of zero width or height: what it holds prints over the text beside it)"
            if self.in_document:
                self._hazard(shown, t.line, f"\\{name} of zero width or height prints what it holds over the text "
                             "beside it, where it can cover or change a result")
        elif name == "textcolor" and not self._dark(toks, i):
            self.pending = name + (" (in a colour the audit cannot read as dark enough on white: it reads xcolor's "
                                   "base colours, their mixes such as blue!70!black, and [rgb]{...} values)")
        typeset = self.in_document and self._reason(skip) is None
        if name in SYMSSM_SIGNS and typeset:
            self.order += 1
            self.out.signs.append((shown, t.line, f"\\{name}", self.order))
        if name.startswith("Symssm") or name in self.macro_names:
            if typeset:
                self.order += 1
                self.out.macro_uses.append((name, shown, t.line, self.order))
                hidden = self._hiding_argument()
                if hidden:
                    self._hazard(shown, t.line, f"\\{name} is {hidden}; the page may not show it, or show "
                                 "something else in its place")
                if _squeezed(toks, i):
                    self._hazard(shown, t.line, f"a negative space next to \\{name} can print something over it")
                if _joined_to_digit(toks, i, self._text_macro):
                    self._hazard(shown, t.line, f"a digit is joined to \\{name}: the page shows a number the "
                                 "certificate does not (leave a space or a word between them)")
            self._emit("\ue000m:" + name + "\ue001", shown, t.line, skip)
            return i + 1
        if name in _REFS or name == "label":
            j = _skip_spaces(toks, i + 1)
            if j < n and toks[j].kind == "char" and toks[j].text == "*":
                j += 1
            arg, j2 = _group(toks, j)
            labels = [x.strip() for x in _chars(arg).split(",") if x.strip()]
            if name == "label":
                self.out.labels.extend((lab, shown, t.line) for lab in labels)
            elif name != "pageref":
                for lab in labels:
                    self._emit("\ue000r:" + lab + "\ue001", shown, t.line, skip)
            self.pending = None
            return j2
        if name in ("bibliography", "printbibliography"):  # TeX inputs the .bbl here: it is read as an input
            j = i + 1
            if name == "bibliography":
                _, j = _group(toks, _skip_spaces(toks, i + 1))
            stem = os.path.splitext(os.path.basename(self.paper))[0]
            bbl = os.path.join(self.root, stem + ".bbl")
            if os.path.isfile(bbl) and os.path.realpath(bbl) not in {os.path.realpath(p) for _, p in self.out.files}:
                self._flush()
                self._file(bbl, self._shown(bbl), skip=self._skip_reason(skip))
            self.pending = None
            return j
        if name in _SKIPPED_ARGUMENT:
            _, j = _optional(toks, _skip_spaces(toks, i + 1))
            _, j = _group(toks, _skip_spaces(toks, j))
            self._emit(" ", shown, t.line, skip)
            self.pending = "href" if name == "href" else None
            return j
        if name in _SECTIONS:
            self._flush()
        elif name in _SPACES:
            self._emit(" ", shown, t.line, skip)
        elif name in _TEXT:
            word = _TEXT[name]
            self._emit(f" {word} " if word.isalpha() else word, shown, t.line, skip)
        else:
            body = self._text_macro(name)
            if body is not None:
                self._emit(body, shown, t.line, skip)
        return i + 1

    def _text_macro(self, name):
        """The text of a macro the paper defines without arguments and with plain text as its body, else None."""
        d = self._latest(name)
        if d is None or d.command in _LET or not d.body or len(d.body) > 200:
            return None
        body = [(k, x) for k, x in d.body if not (k == "cs" and x in _TEXT_WRAPPERS)
                and not (k == "char" and x in "{}$")]  # \ensuremath{3}, \textbf{three}: their text
        if body and all(k in ("char", "space") and x != "#" for k, x in body):
            return "".join(" " if k == "space" else x for k, x in body)
        return None

    # ---------------------------------------------------------------- text

    def _emit(self, text, shown, line, skip):
        if self.block is not None or not self.in_document or self._reason(skip) is not None or not text:
            return
        if not self.text:
            self.paragraph_env = self.text_env
        self.text.append((text, shown, line))

    def _flush(self):
        if not self.text:
            return
        pieces, self.text = self.text, []
        self.paragraphs += 1
        env = self.paragraph_env
        buf, where = "", []
        for text, f, ln in pieces:
            piece = re.sub(r"\s+", " ", text)
            if piece == " " and (not buf or buf.endswith(" ")):
                continue
            if buf.endswith(" ") and piece.startswith(" "):
                piece = piece[1:]
            where.append((len(buf), f, ln))
            buf += piece
        for start, end in _sentence_spans(buf):
            chunk = buf[start:end]
            lead = len(chunk) - len(chunk.lstrip())
            chunk = chunk.strip()
            if not chunk:
                continue
            s0 = start + lead
            f, ln = where[0][1], where[0][2]
            marks = []
            for off, f2, ln2 in where:
                if off <= s0:
                    f, ln = f2, ln2
                elif off < s0 + len(chunk):
                    marks.append((off - s0, f2, ln2))
            self.out.sentences.append(Sentence(chunk, f, ln, env[0] if env else None, env[2] if env else 0, marks,
                                               self.paragraphs))


_THEOREM_LIKE = {"proof", "theorem", "lemma", "proposition", "corollary", "claim", "definition", "remark", "result",
                 "conjecture", "observation", "fact"}
_REFS = {"ref", "cref", "Cref", "autoref", "eqref", "nameref", "pageref", "vref", "Vref", "cpageref"}
_SKIPPED_ARGUMENT = {"cite", "citep", "citet", "citealp", "nocite", "bibliographystyle", "bibliography", "url",
                     "href", "includegraphics", "pagestyle", "thispagestyle", "setlength", "setcounter",
                     "addtocounter", "vspace", "hspace", "vspace*", "hspace*", "addbibresource"}
_NOEXPAND = {"noexpand", "unexpanded", "expandafter", "protect", "global", "long", "outer", "protected"}
_ALL_DEFINING = _DEF | _LET | _NEWCOMMAND | _DOCUMENTCOMMAND | _ENVIRONMENT | _DOCUMENTENV | _CSNAMED


_SENTENCE_END = re.compile(r"(?<=[.!?])[\s)]+(?=[A-Z\ue000(\\])")


def _sentence_spans(text):
    start = 0
    for m in _SENTENCE_END.finditer(text):
        if re.search(r"(?:\b(?:e\.g|i\.e|cf|Fig|Eq|Sec|Thm|resp|etc|vs|al)\.|\b[A-Z]\.)$", text[start:m.start()]):
            continue
        yield start, m.start()
        start = m.start()
    yield start, len(text)


# ---------------------------------------------------------------- token helpers


def _skip_spaces(toks, j):
    while j < len(toks) and toks[j].kind in ("space", "comment"):
        j += 1
    return j


def _group(toks, j, limit=200_000):
    """(tokens of the brace group at j, index after it); a single token when there is no brace."""
    if j >= len(toks):
        return [], j
    t = toks[j]
    if not (t.kind == "char" and t.text == "{"):
        return [t], j + 1
    depth, k = 0, j
    while k < len(toks) and k - j < limit:
        x = toks[k]
        if x.kind == "char" and x.text == "{":
            depth += 1
        elif x.kind == "char" and x.text == "}":
            depth -= 1
            if depth == 0:
                return list(toks[j + 1:k]), k + 1
        k += 1
    return list(toks[j + 1:k]), k


def _optional(toks, j):
    """(tokens of an optional ``[...]`` argument at j or None, index after it)."""
    if j < len(toks) and toks[j].kind == "char" and toks[j].text == "[":
        depth, k = 0, j + 1
        while k < len(toks) and k - j < 20_000:
            x = toks[k]
            if x.kind == "char" and x.text == "{":
                depth += 1
            elif x.kind == "char" and x.text == "}":
                depth -= 1
            elif x.kind == "char" and x.text == "]" and depth == 0:
                return list(toks[j + 1:k]), k + 1
            k += 1
    return None, j


#: Commands that only style the text of a hand-written macro's body (its text is read through them).
_TEXT_WRAPPERS = {"ensuremath", "mathrm", "textrm", "text", "textbf", "textit", "emph", "mbox", "mathbf",
                  "textnormal", "mathit", "textsf", "texttt"}


#: What a theorem style may use (amsthm's arguments: spaces, fonts, punctuation, the heading's pieces).
_STYLE_SAFE = {"itshape", "upshape", "slshape", "scshape", "bfseries", "mdseries", "normalfont", "rmfamily",
               "sffamily", "ttfamily", "em", "it", "bf", "sl", "sc", "rm", "sf", "tt", "normalsize", "small",
               "large", "Large", "topsep", "itemsep", "parskip", "baselineskip", "parindent", "labelsep", "newline",
               "thmname", "thmnumber", "thmnote", "textbf", "textit", "textsc", "emph", "upshape", "space", "quad",
               "medskipamount", "smallskipamount", "bigskipamount", "fill", "z@", "p@"}


def _odd_style(toks, i):
    """The first command in ``\\newtheoremstyle``'s nine arguments that is not a font, a space or a heading
    piece (``\\color``), else None."""
    j = i + 1
    for _ in range(9):
        arg, j = _group(toks, _skip_spaces(toks, j))
        for x in arg:
            if x.kind == "cs" and x.text not in _STYLE_SAFE:
                return x.text
    return None


_BASE_COLOURS = {"black": (0, 0, 0), "white": (1, 1, 1), "red": (1, 0, 0), "green": (0, 1, 0), "blue": (0, 0, 1),
                 "cyan": (0, 1, 1), "magenta": (1, 0, 1), "yellow": (1, 1, 0), "gray": (.5, .5, .5),
                 "darkgray": (.25, .25, .25), "lightgray": (.75, .75, .75), "brown": (.75, .5, .25),
                 "lime": (.75, 1, 0), "olive": (.5, .5, 0), "orange": (1, .5, 0), "pink": (1, .75, .75),
                 "purple": (.75, 0, .25), "teal": (0, .5, .5), "violet": (.5, 0, .5)}


def _model_colour(model, spec):
    """``(r, g, b)`` of an xcolor model and its values (``rgb``, ``RGB``, ``gray``, ``HTML``, ``cmyk``), or None."""
    model, spec = model.strip(), spec.strip()
    try:
        if model == "HTML" and re.fullmatch(r"[0-9A-Fa-f]{6}", spec):
            return tuple(int(spec[k:k + 2], 16) / 255 for k in (0, 2, 4))
        values = [float(x) for x in spec.split(",")]
    except ValueError:
        return None
    if not all(0 <= v <= (255 if model == "RGB" else 1) for v in values):
        return None  # xcolor clamps: 1,1,-10 is yellow, not dark
    if model == "rgb" and len(values) == 3:
        return tuple(values)
    if model == "RGB" and len(values) == 3:
        return tuple(v / 255 for v in values)
    if model == "gray" and len(values) == 1:
        return (values[0],) * 3
    if model == "cmyk" and len(values) == 4:
        c, m, y, k = values
        return ((1 - c) * (1 - k), (1 - m) * (1 - k), (1 - y) * (1 - k))
    return None


def _mix(expr, colours):
    """``(r, g, b)`` of an xcolor expression ``name!pct!name2!pct...`` (``blue!50`` is half blue, half white), or
    None when a name is unknown."""
    parts = [x.strip() for x in expr.strip().split("!")]
    if not parts or parts[0] not in colours:
        return None
    rgb = colours[parts[0]]
    k = 1
    while k < len(parts):
        try:
            share = float(parts[k]) / 100
        except ValueError:
            return None
        other = colours.get(parts[k + 1]) if k + 1 < len(parts) else (1, 1, 1)
        if other is None or not 0 <= share <= 1:
            return None
        rgb = tuple(share * a + (1 - share) * b for a, b in zip(rgb, other))
        k += 2
    return rgb


def _overlay(toks, i):
    """Whether the optional argument after ``toks[i]`` (or the next 400 tokens) asks TikZ for an overlay."""
    opt, _ = _optional(toks, _skip_spaces(toks, i + 1))
    text = _chars(opt if opt is not None else toks[i + 1:i + 400])
    return "overlay" in text or "remember picture" in text


def _why(name):
    """What a command of APPEARANCE (or ``\\textcolor`` in a light colour) does, for a message."""
    return APPEARANCE.get(name, "prints in a colour the audit cannot read as dark enough on white (it reads "
                                "xcolor's base colours, their mixes such as blue!70!black, and [rgb]{...} values)")


#: Commands that print their argument as text (a symssm macro may be used inside them).
_TEXT_ARGUMENTS = _TEXT_WRAPPERS | {"textup", "textsl", "textmd", "underline", "uline", "hyperref",
                                    "caption", "footnote", "emph",
                                    "operatorname", "boldsymbol", "left", "right", "frac", "sqrt",
                                    "mathsf", "mathtt", "mathcal", "overline", "widehat", "hat", "bar", "tilde",
                                    "textsuperscript", "textsubscript", "item", "subcaption", "tablefootnote",
                                    "multicolumn", "multirow", "makecell", "thead", "footnotetext", "enquote",
                                    "textquote"}
#: Commands whose first brace group is not printed (a colour, a label, a length): a digit in it is not text.
_UNPRINTED_FIRST = {"textcolor", "color", "colorbox", "fcolorbox", "href", "url", "label", "ref", "cref", "Cref",
                    "eqref", "cite", "citep", "citet", "hspace", "vspace", "includegraphics", "rule", "setlength",
                    "hyperref", "hyperlink", "rotatebox", "scalebox", "resizebox", "parbox", "makebox",
                    "framebox", "raisebox"}


#: What TeX prints as nothing (or as a thin space) between a digit and a macro: ``1$\\SymssmX$``, ``1\\relax``.
_INVISIBLE = {"relax", ",", "!", "/", "hbox", "mbox", "empty", "ensuremath", "mathrm", "text", "null",
              "thinspace", "negthinspace", "nobreak", "unskip", "ignorespaces"}


def _past(toks, j, chars, spaces=False):
    """The index of the first token from ``j`` on that is none of ``chars``, no command of ``_INVISIBLE`` and
    (with ``spaces``) no space."""
    while j < len(toks) and ((spaces and toks[j].kind == "space") or (toks[j].kind == "char" and toks[j].text in chars)
                             or (toks[j].kind == "cs" and toks[j].text in _INVISIBLE)):
        j += 1
    return j


def _joined_to_digit(toks, i, text_of=None):
    """Whether the macro use at ``toks[i]`` touches a digit or a decimal point (``1\\SymssmX``, ``\\SymssmX{}0``,
    ``\\SymssmX 0``: TeX drops the space after a command's name)."""
    k = i - 1
    while k >= 0 and ((toks[k].kind == "char" and toks[k].text in "{}$") or (
            toks[k].kind == "cs" and toks[k].text in _INVISIBLE)):  # {1}\SymssmX
        if toks[k].text == "}" and not (k > 0 and toks[k - 1].kind == "char" and toks[k - 1].text == "{"):
            depth, o = 0, k  # a group with something in it: is it an argument that does not print?
            while o >= 0:
                if toks[o].kind == "char" and toks[o].text == "}":
                    depth += 1
                elif toks[o].kind == "char" and toks[o].text == "{":
                    depth -= 1
                    if depth == 0:
                        break
                o -= 1
            b = o - 1
            if b >= 0 and toks[b].kind == "char" and toks[b].text == "]":  # \textcolor[rgb]{1,1,1}
                while b >= 0 and not (toks[b].kind == "char" and toks[b].text == "["):
                    b -= 1
                b -= 1
            if b >= 0 and toks[b].kind == "cs" and toks[b].text in _UNPRINTED_FIRST:
                return False
        k -= 1
    if k >= 0 and toks[k].kind == "char" and (toks[k].text.isdigit() or toks[k].text in ".,"):
        return True
    if k >= 0 and toks[k].kind == "cs" and text_of is not None:  # \newcommand{\one}{1}: \one\SymssmX
        text = text_of(toks[k].text)
        if text and (text.rstrip()[-1:].isdigit() or text.rstrip()[-1:] in ".,"):
            return True
    j = _past(toks, _skip_spaces(toks, i + 1), "{}$")  # \SymssmX{}{}0, \SymssmX\relax 0
    if j < len(toks) and toks[j].kind == "cs" and text_of is not None:
        text = text_of(toks[j].text)
        if text and text.lstrip()[:1].isdigit():
            return True
    return j < len(toks) and toks[j].kind == "char" and toks[j].text.isdigit()


def _skip_text(toks, i):
    """The amount of the skip or kern at ``toks[i]`` as text: its brace group (``\\hspace*{-1cm}``), or the 40
    tokens after it (``\\kern-1cm``, ``\\hskip 2pt plus 1fil``)."""
    j = _skip_spaces(toks, i + 1)
    if j < len(toks) and toks[j].kind == "char" and toks[j].text == "*":
        j = _skip_spaces(toks, j + 1)
    arg, _ = _group(toks, j) if j < len(toks) and toks[j].text == "{" else (toks[j:j + 40], None)
    return _chars(arg)


def _geometry_far(options):
    """Whether the geometry package's ``key=value`` options move the text area far: any offset other than zero,
    a length more than 5 cm negative or more than 26 cm, a paper side under 10 cm, or a length not measured."""
    for item in options.split(","):
        key, _, value = item.partition("=")
        key, value = key.strip(), value.strip().strip("{}")
        if not value or key in ("hmarginratio", "vmarginratio", "marginratio", "hscale", "vscale", "scale",
                                "ratio", "mag", "paper", "papername", "driver", "layout"):
            continue
        lengths = [v for v in value.split(",") if v.strip()] or [value]
        for v in lengths:
            if not re.search(r"[0-9\\]", v) or re.fullmatch(r"-?\s*0*\.?0*\s*(pt|bp|mm|cm|in|pc|sp|em|ex|dd|cc)?",
                                                              v.strip()):
                continue  # a word (true, a4paper) or zero
            if "offset" in key:
                return True
            if _far(v, 142.3, 739.7):
                return True
            m = re.fullmatch(r"([0-9]*\.?[0-9]+)\s*(pt|bp|mm|cm|in|pc|dd|cc)", v.strip())
            if key in ("paperwidth", "paperheight", "papersize") and m and float(m.group(1)) * _UNITS[m.group(2)] < 284.5:
                return True
    return False


def _far(text, back_pt=28.45, forward_pt=284.5):
    """Whether a dimension's text (``-100cm``, ``=2\\baselineskip``, ``\\dimexpr...``) is far (a skip's):
    ``back_pt`` or more backwards, ``forward_pt`` or more forwards, or not measurable."""
    text = text.strip().replace("\\z@", "0pt").replace("\\p@", "pt")  # LaTeX's own names for 0pt and 1pt
    if text.startswith("="):
        text = text[1:].strip()
    m = re.match(r"([-+]?)\s*([0-9]*\.?[0-9]*)\s*(pt|bp|mm|cm|in|pc|sp|em|ex|dd|cc|mu|true|\\[A-Za-z@]+)?", text)
    back, number, unit = m.group(1) == "-", m.group(2), m.group(3)
    if unit is None:
        return bool(back or number)  # a bare number is not a dimension TeX takes; a sign before a group
    if unit.startswith("\\"):
        name = unit[1:]
        factor = float(number) if number not in ("", ".") else 1.0
        if name in ("fill", "fil", "filll", "stretch", "hfill", "vfill"):
            return back
        if name in _SMALL_LENGTHS:
            return factor > 3
        if name in _WIDTHS and not back:
            return factor > 1
        return True  # \dimexpr, a register, a width backwards
    if unit == "true" or number in ("", "."):
        return True
    length = float(number) * _UNITS[unit]
    return length >= back_pt if back else length >= forward_pt


#: LaTeX's size commands, which classes and conference styles redefine as a matter of course.
SIZE_COMMANDS = {"normalsize", "small", "footnotesize", "scriptsize", "tiny", "large", "Large", "LARGE", "huge",
                 "Huge"}


def benign_size_definition(definition):
    """Whether a definition of a size command only sets a font size of at least 5 pt and the display skips
    (``\\renewcommand{\\small}{\\@setfontsize\\small\\@ixpt\\@xpt ...}``, as conference styles do).

    Examples
    --------
    >>> from symssm.render.paper import Definition
    >>> body = (("cs", "@setfontsize"), ("cs", "small"), ("cs", "@ixpt"), ("cs", "@xpt"))
    >>> benign_size_definition(Definition("small", False, "renewcommand", "s.sty", 1, None, body))
    True
    >>> benign_size_definition(Definition("small", False, "renewcommand", "s.sty", 1, None, (("cs", "tiny"),)))
    False
    """
    if definition.name not in SIZE_COMMANDS or definition.environment:
        return False
    allowed = SIZE_COMMANDS | {"@setfontsize", "@plus", "@minus", "p@", "z@", "abovedisplayskip",
                               "belowdisplayskip", "abovedisplayshortskip", "belowdisplayshortskip", "let",
                               "@listi", "@listI", "topsep", "parsep", "itemsep", "leftmargin", "leftmargini"}
    cs = [x for k, x in definition.body if k == "cs"]
    sizes = [x for x in cs if re.fullmatch(r"@(v|vi|vii|viii|ix|x|xi|xii|xiv|xvii|xx|xxv)pt", x)]
    numbers = [int(x) for x in re.findall(r"[0-9]+", "".join(x for k, x in definition.body if k == "char"))]
    return "@setfontsize" in cs and all(x in allowed or x in sizes for x in cs) and all(n >= 2 for n in numbers[:2])


def _zero_width(name, toks, i):
    """Whether the box at ``toks[i]`` is given a width (``\\makebox[0pt]``) or a size (``\\hbox to 0pt``) of
    at most 1 pt, or one the audit cannot measure."""
    j = _skip_spaces(toks, i + 1)
    if name in ("makebox", "framebox"):
        width, _ = _optional(toks, j)
        text = _chars(width).strip() if width is not None else None
    else:
        rest = _chars(toks[j:j + 12])
        m = re.match(r"\s*(to|spread)\s*([^{]*)", rest)
        text = m.group(2).strip() if m else None
    if text is None or text == "":
        return False
    m = re.fullmatch(r"(-?)\s*([0-9]*\.?[0-9]+)\s*(pt|bp|mm|cm|in|pc|sp|em|ex|dd|cc)", text)
    if m is None:
        m2 = re.fullmatch(r"([0-9]*\.?[0-9]*)\s*\\([A-Za-z]+)", text)
        return not (m2 and m2.group(2) in _WIDTHS | _SMALL_LENGTHS and (m2.group(1) in ("", ".") or
                                                                      float(m2.group(1)) >= 0.05))
    return m.group(1) == "-" or float(m.group(2)) * _UNITS[m.group(3)] <= (14 if name in ("makebox", "framebox")
                                                                           else 1)


def _drawn_outside(toks, i):
    """Whether ``\\includegraphics`` at ``toks[i]`` trims or sets a viewport or bounding box without ``clip``
    (pdfTeX then draws the whole image beyond its box), or scales it to at most 1 pt."""
    j = _skip_spaces(toks, i + 1)
    if j < len(toks) and toks[j].kind == "char" and toks[j].text == "*":
        return False  # the starred form clips
    options, _ = _optional(toks, j)
    text = _chars(options) if options is not None else ""
    keys = {item.partition("=")[0].strip(): item.partition("=")[2].strip() for item in text.split(",")}
    if any(k in keys for k in ("trim", "viewport", "bb", "bbllx", "bblly", "bburx", "bbury", "natwidth",
                               "natheight", "hiresbb")) and "clip" not in keys:
        return True
    for k in ("width", "height", "totalheight"):
        if k in keys and re.fullmatch(r"-?\s*0*\.?0*[0-9]?\s*(pt|bp|sp|mm)?", keys[k]) and \
                not re.fullmatch(r"[1-9][0-9]*\s*(pt|bp|mm)", keys[k]):
            return True
    return "scale" in keys and re.fullmatch(r"0*\.0*[0-9]{0,2}", keys["scale"]) is not None and \
        float(keys["scale"] or 0) < 0.05


def _raised_far(toks, i):
    """Whether ``\\raisebox{LIFT}[HEIGHT][DEPTH]{...}`` lifts by 1 cm or more either way (or by an amount not
    measured), or declares its own height or depth (what it holds then overlaps the lines around it)."""
    lift, j = _group(toks, _skip_spaces(toks, i + 1))
    height, _ = _optional(toks, _skip_spaces(toks, j))
    text = _chars(lift).strip()
    return height is not None or _far(text, 28.45, 28.45)


def _squeezed(toks, i):
    """Whether a negative skip or kern stands right before or after the macro use at ``toks[i]``."""
    k = i - 1
    while k >= 0 and toks[k].kind == "char" and toks[k].text in "{}":
        k -= 1
    for n in range(max(0, k - 12), k + 1):  # \kern-5pt\SymssmX: a skip within the few tokens before
        if toks[n].kind == "cs" and toks[n].text in _SKIPS and _backwards(_skip_text(toks, n)) > 0 and \
                all(x.kind != "cs" for x in toks[n + 1:k + 1]):
            return True
    j = _past(toks, _skip_spaces(toks, i + 1), "{}$~", spaces=True)  # \SymssmX{} \relax \hspace{-10pt}
    return j < len(toks) and toks[j].kind == "cs" and toks[j].text in _SKIPS and _backwards(_skip_text(toks, j)) > 0


def _backwards(text):
    """The points a skip's amount (:func:`_skip_text`) moves backwards when it is a plain negative dimension,
    else 0."""
    m = re.match(r"=?\s*-\s*([0-9]*\.?[0-9]+)\s*(pt|bp|mm|cm|in|pc|sp|em|ex|dd|cc|mu)", text.strip())
    if m is None:
        m = re.match(r"=?\s*-\s*([0-9]*\.?[0-9]*)\s*\\baselineskip", text.strip())
        return 0.0 if m is None else float(m.group(1) or 1) * 12
    return float(m.group(1)) * _UNITS[m.group(2)]


def _factor(text):
    """A decimal factor of at least 1/2 (``0.8``, ``1``, ``.9``; empty: 1), else False."""
    text = text.strip()
    if not text:
        return True
    return re.fullmatch(r"[0-9]{0,3}(\.[0-9]{1,6})?", text) is not None and float(text) >= 0.5


def _legible(name, toks, i):
    """Whether ``\\scalebox`` / ``\\resizebox`` at ``toks[i]`` keeps its argument at least half size: a factor of
    at least 1/2, or a width or height of at least half a standard length (``0.9\\columnwidth``) with ``!``
    for the other; anything else (``\\scalebox{0.01}``, ``\\resizebox{1pt}{!}``) could make a fragment invisible.
    """
    j = _skip_spaces(toks, i + 1)
    if name == "scalebox":
        factor, j = _group(toks, j)
        vertical, _ = _optional(toks, _skip_spaces(toks, j))
        return _factor(_chars(factor)) and (vertical is None or _factor(_chars(vertical)))
    sizes = []
    for _ in range(2):
        arg, j = _group(toks, _skip_spaces(toks, j))
        sizes.append(_chars(arg).strip())
    if sizes == ["!", "!"]:
        return False
    for size in sizes:
        if size == "!":
            continue
        m = re.fullmatch(r"(.*?)\\([A-Za-z]+)", size)
        if m is None or m.group(2) not in _WIDTHS or not _factor(m.group(1)):
            return False
    return True


def _chars(toks):
    out = []
    for t in toks:
        if t.kind == "char":
            out.append(t.text)
        elif t.kind == "space":
            out.append(" ")
        elif t.kind == "cs":
            out.append("\\" + t.text)
    return "".join(out)


def _csname(toks, i):
    """(index after ``\\csname ... \\endcsname``, the name or None when it is not plain characters)."""
    j = i + 1
    chars = []
    plain = True
    while j < len(toks) and j - i < 500:
        t = toks[j]
        if t.kind == "cs" and t.text == "endcsname":
            return j + 1, "".join(chars) if plain else None
        if t.kind == "char":
            chars.append(t.text)
        elif t.kind != "space":
            plain = False
        j += 1
    return j, None


def _target(toks, j):
    """(the name of the command at j: a control sequence, ``\\csname``-built, or ``{\\name}``; index after it)."""
    j = _skip_spaces(toks, j)
    if j >= len(toks):
        return None, j
    t = toks[j]
    if t.kind == "cs" and t.text == "csname":
        k, name = _csname(toks, j)
        return name, k
    if t.kind == "cs":
        return t.text, j + 1
    if t.kind == "char" and t.text == "~":
        return "~", j + 1
    if t.kind == "char" and t.text == "{":
        arg, k = _group(toks, j)
        arg = [x for x in arg if x.kind != "space"]
        if len(arg) == 1 and arg[0].kind == "cs":
            return arg[0].text, k
        if arg and arg[0].kind == "cs" and arg[0].text == "csname":
            _, name = _csname(arg, 0)
            return name, k
        return None, k
    return None, j + 1


def _parse_definition(command, toks, i):
    """((names as (name or None, is environment)), bodies as significant token lists, index after it)."""
    j = i + 1
    if command == "letcs":
        name, j = _target(toks, _skip_spaces(toks, j))
        body, j = _group(toks, _skip_spaces(toks, j))
        return [(name, False)], [significant(body)], j
    if command in _CSNAMED:
        arg, j = _group(toks, _skip_spaces(toks, j))
        body, j = _group(toks, _skip_spaces(toks, j))
        name = _chars(arg).strip()
        return [(name if re.fullmatch(r"[A-Za-z@]+", name) else None, False)], [significant(body)], j
    if j < len(toks) and toks[j].kind == "char" and toks[j].text == "*":
        j += 1
    if command in _DEF:
        name, j = _target(toks, j)
        k = j
        while k < len(toks) and not (toks[k].kind == "char" and toks[k].text == "{") and k - j < 200:
            k += 1
        body, k = _group(toks, k)
        return [(name, False)], [significant(body)], k
    if command in _LET:
        name, j = _target(toks, j)
        if command == "futurelet":
            _, j = _target(toks, j)
        j = _skip_spaces(toks, j)
        if j < len(toks) and toks[j].kind == "char" and toks[j].text == "=":
            j = _skip_spaces(toks, j + 1)
        src = [toks[j]] if j < len(toks) else []
        return [(name, False)], [significant(src)], j + 1
    if command in _NEWCOMMAND:
        name, j = _target(toks, j)
        j = _skip_spaces(toks, j)
        _, j = _optional(toks, j)
        j = _skip_spaces(toks, j)
        _, j = _optional(toks, j)
        body, j = _group(toks, _skip_spaces(toks, j))
        return [(name, False)], [significant(body)], j
    if command in _DOCUMENTCOMMAND:
        name, j = _target(toks, j)
        if command.endswith("Copy"):
            src, j = _target(toks, j)
            return [(name, False)], [[("cs", src or "")]], j
        _, j = _group(toks, _skip_spaces(toks, j))
        body, j = _group(toks, _skip_spaces(toks, j))
        return [(name, False)], [significant(body)], j
    if command in _ENVIRONMENT or command in _DOCUMENTENV:
        arg, j = _group(toks, _skip_spaces(toks, j))
        env = _chars(arg).strip()
        if command.endswith("Copy"):
            _, j = _group(toks, _skip_spaces(toks, j))
            return [(env or None, True)], [], j
        if command in _DOCUMENTENV:
            _, j = _group(toks, _skip_spaces(toks, j))
        else:
            j = _skip_spaces(toks, j)
            _, j = _optional(toks, j)
            j = _skip_spaces(toks, j)
            _, j = _optional(toks, j)
        begin, j = _group(toks, _skip_spaces(toks, j))
        end, j = _group(toks, _skip_spaces(toks, j))
        return [(env or None, True)], [significant(begin), significant(end)], j
    # registers and math operators: the name, then (for the operators) a body
    name, j = _target(toks, j)
    body = []
    if command.startswith("Declare"):
        k = _skip_spaces(toks, j)
        if k < len(toks) and toks[k].kind == "char" and toks[k].text == "{":
            group, j = _group(toks, k)
            body = significant(group)
    return [(name, False)], [body], j


def _body_hazard(command, body):
    """Why a definition's body can hide or bring in text (None when it cannot)."""
    depth = 0
    for k, (kind, text) in enumerate(body):
        if kind != "cs":
            continue
        if text in _HIDING:
            return f"uses \\{text}"
        if text == "begin" or text == "end":
            name = "".join(x for kk, x in body[k + 2:k + 12] if kk == "char").split("}")[0]
            if name in ("comment", "document") or name in ("iffalse",):
                return f"uses \\{text}{{{name}}}"
        if text.startswith("if") and text not in _MACRO_CONDITIONALS:
            depth += 1
        elif text == "fi":
            depth -= 1
    if command in _LET and body and body[0][0] == "cs" and (body[0][1] in _HIDING or body[0][1] in ("fi", "else")):
        return f"is \\{body[0][1]}"
    if depth != 0:
        return "opens or closes a conditional it does not close or open"
    return None


def _marked_blocks(toks):
    """{index of a begin marker: (start, end, what, kind, sha, source, options, closed, certificates)}."""
    out = {}
    opened = None

    def close(end, closed):
        k, what, kind, sha, source, options, certs = opened
        out[k] = (k, end, what, kind, sha, source, options, closed, certs)

    skip_to = -1
    for k, t in enumerate(toks):
        if t.kind != "comment" or k <= skip_to:
            continue
        text, last = _marker_text(toks, k)
        m = BEGIN.fullmatch(text)
        tm = TABLE.fullmatch(text) if not m else None
        if m or tm or END.fullmatch(text):
            skip_to = last
        if m or tm:
            if opened is not None:
                close(k - 1, False)
            if m:
                what, kind, sha, source, options = m.groups()
                certs = ()
            else:
                kind, listed, source, options = tm.groups()
                what, sha = "table", _table_sha(listed)
                certs = tuple((a, b or None) for a, _, b in (x.partition("+") for x in listed.split(",") if x))
            opened = (k, what, kind, sha, source, options, certs)
            continue
        e = END.fullmatch(text)
        if e and opened is not None:
            close(k, e.group(1) == opened[1] and e.group(2) == opened[3])
            opened = None
    if opened is not None:
        close(len(toks) - 1, False)
    return out


def _marker_text(toks, k):
    """(the text of the marker comment at ``k``, index of its last comment): a marker an editor wrapped over
    several comment lines is read as one, and what an editor joined to its end (`` % generated by``) is cut."""
    text = toks[k].text.rstrip()
    last = k
    if text.startswith((" symssm ", " end of symssm ", "symssm ", "end of symssm ")):
        j = k
        while not (BEGIN.fullmatch(text) or TABLE.fullmatch(text) or END.fullmatch(text)) and j + 1 < len(toks) \
                and toks[j + 1].kind == "comment" and j - k < 6:
            j += 1
            text = text + " " + toks[j].text.strip()
            last = j
        if not (BEGIN.fullmatch(text) or TABLE.fullmatch(text) or END.fullmatch(text)):
            return toks[k].text.rstrip(), k
    return text, last


def _table_sha(listed):
    import hashlib

    return hashlib.sha256(listed.encode("ascii")).hexdigest()


def _resolve(base, name):
    name = name.strip()
    if not name or "\0" in name or len(name) > 500:
        return None
    candidates = [name + ".tex", name] if not name.endswith(".tex") else [name]
    for c in candidates:
        path = c if os.path.isabs(c) else os.path.join(base, c)
        if os.path.isfile(path):
            return path
    return None


def read_paper(paper):
    """Read a paper (see :class:`PaperReader`) and return what it holds.

    Raises
    ------
    InputError
        If a file cannot be read, the inputs form a cycle, or a limit is passed.
    """
    return PaperReader(paper).read()
