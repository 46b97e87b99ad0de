"""What ``symssm audit`` reports: claims, hand-written numbers, the report, its verdict.

Examples
--------
>>> exit_code(Report("p.tex", ".", claims=[Claim("verified", "head-count fragment", "p.tex", 1, 1)]))
0
"""

from dataclasses import dataclass, field
from typing import Optional

from ..certificate import kinds
from ..errors import InputError

__all__ = ["Claim", "Unchecked", "Report", "statement", "exit_code", "STATUSES", "PASSING", "head_count_statement",
           "interaction_statement", "family_statement", "approximate_statement", "gradient_statement"]

#: Every status of a claim, with how the terminal report writes it.
STATUSES = {
    "verified": "VERIFIED", "kernel-checked": "KERNEL-CHECKED", "edited": "EDITED",
    "changed-certificate": "CHANGED CERTIFICATE", "missing-certificate": "MISSING CERTIFICATE",
    "fails-check": "FAILS CHECK", "not-typeset": "NOT TYPESET", "redefined": "REDEFINED", "unmarked": "UNMARKED",
}
#: The statuses that pass the audit.
PASSING = {"verified", "kernel-checked"}

@dataclass
class Claim:
    """One claim the paper shows, with its verdict (see the module's description)."""

    status: str
    what: str  # "head-count fragment", "head-count macros", "macro \\SymssmX...", "framework table", ...
    file: str
    line: int
    order: int
    kind: Optional[str] = None  # the certificate's kind (framework: "framework")
    label: Optional[str] = None
    number: Optional[str] = None  # "Theorem 3", from the .aux
    page: Optional[str] = None
    certificate: Optional[str] = None  # path of the certificate (as given, relative to the working folder)
    sha256: Optional[str] = None
    statement: Optional[str] = None  # what the certificate proves, in one line
    detail: str = ""
    diff: list = field(default_factory=list)  # [{"line", "expected", "found"}]
    obligation: Optional[str] = None
    certificates: list = field(default_factory=list)  # a table's certificates
    environment: Optional[str] = None  # a fragment's theorem environment
    theorem_name: Optional[str] = None  # the printed name when the fragment defines the environment

    def text(self):
        """The claim's line in the terminal report."""
        head = STATUSES[self.status]
        where = f"{self.file}:{self.line}"
        name = self.number or ""
        if self.label and not self.label.startswith("symssm:"):
            name = f"{name} [{self.label}]" if name else f"[{self.label}]"
        if self.page:
            name += f", page {self.page}"
        cert = f" ({self.certificate})" if self.certificate else ""
        out = f"{head}: {name + ', ' if name else ''}{where}: {self.what}{cert}"
        if self.statement and self.status in PASSING:
            out += f": {self.statement}"
        if self.detail:
            out += f": {self.detail}"
        return out


@dataclass
class Unchecked:
    """A number the paper writes by hand next to "heads", "k(n)", "k =", "r =", "interaction rank", "rank"."""

    status: str  # "unchecked" or "contradicts"
    file: str
    line: int
    quantity: str
    value: str
    sentence: str
    certificate: Optional[str] = None  # the certificate of the system the sentence names
    detail: str = ""

    def text(self):
        head = "CONTRADICTS CERTIFICATE" if self.status == "contradicts" else "UNCHECKED"
        about = f" ({self.certificate}: {self.detail})" if self.certificate else (f" ({self.detail})"
                                                                                  if self.detail else "")
        return f"{head}: {self.file}:{self.line}: hand-written {self.quantity} {self.value}{about}: \"{self.sentence}\""


@dataclass
class Report:
    """Everything ``symssm audit`` found (``claims`` in the paper's order)."""

    paper: str
    folder: str
    claims: list = field(default_factory=list)
    unchecked: list = field(default_factory=list)
    warnings: list = field(default_factory=list)  # (file, line, text)
    problems: list = field(default_factory=list)  # (file, line, text): what stops the audit reading the paper
    unused: list = field(default_factory=list)  # certificate paths no typeset claim uses
    notes: list = field(default_factory=list)
    aux: Optional[str] = None
    strict: bool = False


def statement(data):
    """What a verified certificate proves, in one plain line (for the report; empty for an unknown kind).

    Examples
    --------
    >>> statement({"kind": "interaction-rank", "interaction_rank": 2, "system": {"kind": "convolution", "n": 6}})
    'r = 2 (convolution, n = 6)'
    """
    try:
        row = kinds.of(data)
    except InputError:
        return ""
    return row.load("statement")(data)


def head_count_statement(data):
    """``k(n) = K for RANGE``: a head count and the lengths it holds for."""
    hf = data["holds_for"]
    rng = f"n >= {hf['from']}" if hf["to"] is None else (f"n = {hf['from']}" if hf["from"] == hf["to"]
                                                           else f"{hf['from']} <= n <= {hf['to']}")
    return f"k(n) = {data['head_count']} for {rng}"


def interaction_statement(data):
    """``r = R (LAYER, n = N)``: an interaction rank on one input."""
    return f"r = {data['interaction_rank']} ({data['system']['kind']}, n = {data['system']['n']})"


def family_statement(data):
    """``k(n) = K generically, ... in special cases``: a count for every parameter value (a family, a layer)."""
    key = kinds.of(data).count
    other = sorted({b.get(key) for b in data["bodies"][1:]} - {data[key]})
    sym = "k(n)" if key == "head_count" else "r"
    return (f"{sym} = {data[key]} generically" + (f", {', '.join(map(str, other))} in special cases" if other
                                                  else "") + ("" if data["complete"] else " (not complete)"))


def approximate_statement(data):
    """``k_eps = K at eps = EPS``: an eps-head count (of a system or a trained layer), or that it is undecided."""
    k = data["head_count"]
    return f"k_eps = {k} at eps = {data['tolerance']}" if k is not None else \
        f"k_eps undecided at eps = {data['tolerance']}"


def gradient_statement(data):
    """``decay rate r = R, crossover distance D``: a gradient-highway certificate."""
    delta = data["crossover_distance"]
    return f"decay rate r = {data['decay_rate']}, crossover distance {delta if delta is not None else 'none'}"


def exit_code(report):
    """0 when the paper passes the audit, 1 otherwise (see the module's description)."""
    if not report.claims:
        return 1
    if any(c.status not in PASSING for c in report.claims) or report.problems:
        return 1
    if any(u.status == "contradicts" for u in report.unchecked):
        return 1
    if report.strict and (report.unchecked or report.warnings or report.unused):
        return 1
    return 0
