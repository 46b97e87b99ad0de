"""What an author controls in a fragment: its label, theorem environment and name, macro prefix.

Every fragment starts with a comment naming its certificate (kind, SHA-256 of the certificate's
canonical JSON, which is the file ``symssm certify`` writes, and the file's name when known) and
the options it was rendered with, and ends with a matching comment; ``symssm audit`` uses them to
find the certificate and re-render the fragment.

Examples
--------
>>> style = Style(label="thm:rot", environment="theorem")
>>> style.options()
'--label thm:rot --environment theorem'
>>> Style(label="bad label")
Traceback (most recent call last):
...
symssm.errors.InputError: label 'bad label' must be 1 to 64 of A-Z a-z 0-9 : . _ - /
"""

import hashlib
import re
import shlex
from dataclasses import dataclass
from typing import Optional

from ..certificate import kinds
from ..errors import InputError
from ..formats.jsonio import dumps_canonical
from .tex import escape_text

__all__ = ["Style", "certificate_sha256", "begin_marker", "end_marker", "safe_file_name", "derived_prefix",
           "DEFAULT_ENVIRONMENT", "DEFAULT_THEOREM_NAME", "BEGIN", "END"]

DEFAULT_ENVIRONMENT = "symssmtheorem"
DEFAULT_THEOREM_NAME = "Certified result"
#: First words of the comments that open and close every fragment and macro file.
BEGIN = "% symssm"
END = "% end of symssm"

_LABEL = re.compile(r"[A-Za-z0-9:._/-]{1,64}")
_ENV = re.compile(r"[A-Za-z]{1,40}\*?")
_NAME = re.compile(r"[A-Za-z0-9 .,:;()'-]{1,40}")
_PREFIX = re.compile(r"[A-Za-z]{1,60}")


@dataclass(frozen=True)
class Style:
    """Author options of a fragment (all validated on construction).

    Parameters
    ----------
    label : str, optional
        ``\\label`` placed inside the theorem, so ``\\ref`` gives its number.
    environment : str
        The theorem environment (defined with ``\\newtheorem`` only if the host lacks it).
    theorem_name : str
        The printed name when the fragment defines the environment.
    prefix : str, optional
        Macro prefix for ``--macros`` (default: derived from the certificate).

    Raises
    ------
    InputError
        If an option is not in its grammar.
    """

    label: Optional[str] = None
    environment: str = DEFAULT_ENVIRONMENT
    theorem_name: str = DEFAULT_THEOREM_NAME
    prefix: Optional[str] = None
    #: The label a fragment gets when the author gives none (``symssm:`` and 16 hex digits of the certificate's
    #: SHA-256), so the audit finds its number in the paper's .aux; not an option.
    auto_label: Optional[str] = None

    def __post_init__(self):
        if self.label is not None and not (isinstance(self.label, str) and _LABEL.fullmatch(self.label)):
            raise InputError(f"label {str(self.label)[:40]!r} must be 1 to 64 of A-Z a-z 0-9 : . _ - /")
        if not (isinstance(self.environment, str) and _ENV.fullmatch(self.environment)):
            raise InputError(f"theorem environment {str(self.environment)[:40]!r} must be 1 to 40 ASCII letters")
        if not (isinstance(self.theorem_name, str) and _NAME.fullmatch(self.theorem_name)):
            raise InputError(f"theorem name {str(self.theorem_name)[:40]!r} must be 1 to 40 letters, digits, "
                             "spaces or .,:;()'-")
        if self.auto_label is not None and not (isinstance(self.auto_label, str) and _LABEL.fullmatch(self.auto_label)):
            raise InputError("automatic label outside the label grammar")
        if self.prefix is not None and not (isinstance(self.prefix, str) and _PREFIX.fullmatch(self.prefix)):
            raise InputError(f"macro prefix must be 1 to 60 ASCII letters, got {str(self.prefix)[:40]!r}")

    def options(self, *, macros=False):
        """The command-line options that reproduce this style (what the marker comment records)."""
        out = []
        if macros:
            out += ["--macros"] + (["--prefix", self.prefix] if self.prefix else [])
            return " ".join(out)

        if self.label:
            out += ["--label", self.label]
        if self.environment != DEFAULT_ENVIRONMENT:
            out += ["--environment", self.environment]
        if self.theorem_name != DEFAULT_THEOREM_NAME:
            out += ["--theorem-name", self.theorem_name]
        return " ".join(shlex.quote(x) for x in out)

    def begin(self, title):
        """``\\begin{ENV}[title]`` with the label inside, and the preamble that defines ENV if absent."""
        env = self.environment
        return (f"\\ifcsname {env}\\endcsname\\else\\newtheorem{{{env}}}{{{escape_text(self.theorem_name)}}}\\fi\n"
                "\\providecommand{\\symssmspan}{\\operatorname{span}}\n"
                f"\\begin{{{env}}}[{{{title}}}]" + (f"\\label{{{self.label or self.auto_label}}}"
                                                    if self.label or self.auto_label else "")
                + "\\emergencystretch=3em")

    def end(self):
        """``\\end{ENV}``."""
        return f"\\end{{{self.environment}}}"


def certificate_sha256(data):
    """SHA-256 of the certificate's canonical JSON: the bytes ``symssm certify`` writes to its file."""
    return hashlib.sha256(dumps_canonical(data, indent=2).encode("ascii")).hexdigest()


def safe_file_name(name):
    """A file name as it may appear in a comment: one line, the characters outside A-Z a-z 0-9 . _ - / + as ``?``."""
    return re.sub(r"[^A-Za-z0-9._/+-]", "?", str(name))[:200] if name else "-"


def begin_marker(what, data, source, options, *, digest=None):
    """``% symssm fragment: KIND certificate SHA; file F; options ...`` (what: 'fragment' or 'macros'); ``digest``:
    the certificate's SHA-256 when the caller has it (:func:`certificate_sha256` otherwise)."""
    digest = digest or certificate_sha256(data)
    return (f"{BEGIN} {what}: {data['kind']} certificate {digest}; file {safe_file_name(source)}; "
            f"options {options or '-'}")


def end_marker(what, data, *, digest=None):
    """``% end of symssm fragment SHA``: the comment that closes a fragment or macro file."""
    return f"{END} {what} {digest or certificate_sha256(data)}"


_DIGITS = ["Zero", "One", "Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine"]


def derived_prefix(data, source=None, *, digest=None):
    """The default macro prefix, derived from the certificate, so two certificates' macro files can share a preamble.

    With the certificate's file name (``symssm latex``): ``Symssm`` + the file's stem in CamelCase,
    digits spelled (``N4`` -> ``NFour``): files in one folder have distinct names. Without one
    (Python): the system's name, the kind, and four letters from the certificate's SHA-256, so two
    certificates (even of the same or an unnamed system) never define the same macro.

    Examples
    --------
    >>> derived_prefix({"kind": "head-count", "system": {"name": "x"}}, "certs/rotation-N2.cert.json")
    'SymssmRotationNTwo'
    >>> derived_prefix({"kind": "gradient-highway", "system": {"name": "legs 4"}})[:-4]
    'SymssmLegsFourDecay'
    """
    if source:
        stem = re.split(r"[\\/]", str(source))[-1]
        for ext in (".json", ".cert"):
            stem = stem[:-len(ext)] if stem.endswith(ext) else stem
        tag = ""
    else:
        stem = (data.get("system") or {}).get("name") or ""
        digest = digest or certificate_sha256(data)
        tag = _kind_tag(data) + "".join(chr(ord("a") + int(c, 16)) for c in digest[:4]).title()
    words = []
    for part in re.findall(r"[A-Za-z]+|[0-9]", stem):
        words.append(_DIGITS[int(part)] if part.isdigit() else part[0].upper() + part[1:])
    return ("Symssm" + "".join(words)[:40] + tag)[:60]


def _kind_tag(data):
    """The kind's part of a default macro prefix (its row's ``tag``; none for an unknown kind)."""
    try:
        return kinds.of(data).tag
    except InputError:
        return ""
