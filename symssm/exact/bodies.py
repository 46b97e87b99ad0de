"""What a family's analysis returns, whichever polynomial engine made it: bodies and their factors."""

from dataclasses import dataclass
from typing import Optional

__all__ = ["Factor", "Body"]


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
