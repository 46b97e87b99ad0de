"""What a family's analysis returns, whichever polynomial engine made it, and the steps that do not depend on it.

Both engines (:mod:`symssm.exact.parametric` on SymPy, :mod:`symssm.exact.flintfamily` on FLINT)
sample the same points, pick the same witnesses and walk the same cases with the functions here,
each passing its own ``value(poly, point)``; that is what keeps their certificates byte-identical.
"""

import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Optional

__all__ = ["Factor", "Body", "run_cases", "sample_points", "witness_at", "ATTEMPTS"]

#: Deterministic sample points tried for the generic witness.
ATTEMPTS = 8


@dataclass(frozen=True)
class Factor:
    """One irreducible factor of ``g * Delta * prod q_d`` with its multiplicity and status."""

    text: str
    multiplicity: int
    status: str  # "outside-domain", "case" or "uncovered"
    case: Optional[int] = None  # index of the body for the substituted family (status "case")
    parameter: Optional[str] = None
    value: Optional[str] = None


@dataclass(frozen=True)
class Body:
    """The proof for one family (the generic one, or a case of the exceptional set)."""

    system: object
    substitution: tuple  # None, or (parent index, factor index, parameter, value text)
    entries: dict  # key -> rows of (numerator text, denominator text), or None for an absent D
    denominator: str
    head_count: int
    lags: tuple
    positions: tuple
    determinant: str
    dimension: bool
    coefficients: tuple  # ((lag, q text, (p texts...)), ...)
    constant: str
    factors: tuple
    complete: bool
    holds_for: tuple
    minor: Optional[tuple] = None  # the witness minor's entries as texts (layers), row by row


def run_cases(root, analyse, substitute, max_cases):
    """Analyse ``root`` and, breadth first, the family of every case factor: the bodies of a certificate.

    ``analyse(family)`` returns a body's fields with ``factors`` as tuples ``(text, multiplicity,
    status, parameter, value, where)``; ``substitute(family, factor)`` returns the case's family or
    raises :class:`~symssm.errors.InputError` (the factor is then ``uncovered``). A case factor beyond
    ``max_cases`` bodies is left ``uncovered``; ``complete`` is computed from the leaves up.
    """
    from ..errors import InputError

    queue = [(root, None)]
    raw = []
    while len(raw) < len(queue):
        fam, sub = queue[len(raw)]
        body = analyse(fam)
        factors = []
        for i, factor in enumerate(body["factors"]):
            text, e, status, name, value = factor[:5]
            if status == "case" and len(queue) < max_cases:
                try:
                    child = substitute(fam, factor)
                except InputError:
                    factors.append(Factor(text, e, "uncovered"))
                    continue
                queue.append((child, (len(raw), i, name, value)))
                factors.append(Factor(text, e, "case", len(queue) - 1, name, value))
            else:
                factors.append(Factor(text, e, "uncovered" if status == "case" else status))
        body["factors"] = tuple(factors)
        raw.append((fam, sub, body))
    complete = [False] * len(raw)
    for i in reversed(range(len(raw))):
        complete[i] = all(f.status == "outside-domain" or (f.status == "case" and complete[f.case])
                          for f in raw[i][2]["factors"])
    return [Body(system=fam, substitution=sub, complete=complete[i], **body) for i, (fam, sub, body) in enumerate(raw)]


def sample_points(parameters, dens, value):
    """Deterministic rational points (seeded by the number of parameters) where every denominator is nonzero."""
    rng = random.Random(0x5EED + len(parameters))
    found = 0
    for _ in range(1000):
        point = [Fraction(rng.randint(-10**6, 10**6), rng.randint(1, 997)) for _ in parameters]
        if all(value(den, point) != 0 for den in dens):
            yield point
            found += 1
            if found == ATTEMPTS:
                return


def witness_at(lags, point, p, m, value):
    """Lex-first lags whose values at ``point`` raise the rank, with pivot positions ``(row, column)``."""
    basis = []  # (pivot, reduced row)
    lags_out, positions = [], []
    for d, L in enumerate(lags):
        row = [value(L[i][j], point) for i in range(p) for j in range(m)]
        for pivot, brow in basis:
            if row[pivot]:
                f = row[pivot] / brow[pivot]
                row = [x - f * y for x, y in zip(row, brow)]
        pivot = next((c for c, x in enumerate(row) if x), None)
        if pivot is not None:
            basis.append((pivot, row))
            lags_out.append(d)
            positions.append(divmod(pivot, m))
    return tuple(lags_out), tuple(positions)
