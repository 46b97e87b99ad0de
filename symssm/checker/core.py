"""The checker's entry points: read a certificate, dispatch on its kind, return a verdict.

Standard library only (numpy optional, for products mod P); it never imports the
generator.  It fails closed: anything unexpected is a rejection or undecided, never VERIFIED.
"""

import time

from .approximate import check_approximate
from .trained import check_trained, read_trained_layer, trained_spec_hash
from .gradient import GRADIENT_VERSIONS, check_gradient
from .gaussian import FIELD as GAUSSIAN_FIELD
from .gaussian import check_gaussian_head_count, gaussian_spec_hash, read_gaussian_system
from .headcount import check_head_count
from .interaction import check_interaction, layer_spec_hash, read_layer
from .parametric import check_parametric, head_count_at, parametric_spec_hash, read_parametric_system
from .parametric_interaction import (check_parametric_interaction, interaction_rank_at, parametric_layer_spec_hash,
                                     read_parametric_layer)
from .reading import (
    FORMAT,
    VERSIONS,
    CheckResult,
    Ledger,
    Rejected,
    Unreadable,
    is_text,
    read_file,
    read_system,
    spec_hash,
)

__all__ = ["check_data", "check_file", "KINDS", "AT_KINDS"]

#: Each certificate kind: how its ``system`` is read, how a spec is hashed, and its obligations.
KINDS = {
    "head-count": (read_system, spec_hash, check_head_count),
    "gradient-highway": (read_system, spec_hash, check_gradient),
    "interaction-rank": (read_layer, layer_spec_hash, check_interaction),
    "parametric-head-count": (read_parametric_system, parametric_spec_hash, check_parametric),
    "approximate-head-count": (read_system, spec_hash, check_approximate),
    "parametric-interaction-rank": (read_parametric_layer, parametric_layer_spec_hash, check_parametric_interaction),
    "trained-head-count": (read_trained_layer, trained_spec_hash, check_trained),
}
#: The kinds that say what they prove at a parameter point (``--at``).
AT_KINDS = ("parametric-head-count", "parametric-interaction-rank")


def check_data(cert, *, spec=None, max_seconds=None, at=None):
    """Check certificate data (already parsed JSON). ``spec``: parsed spec JSON or None.

    ``at`` (a dict ``{name: Fraction}``) asks a certificate with parameters what it proves at that point;
    the answer is the result's ``at`` attribute (a dict with ``head_count``, or ``interaction_rank`` for
    a layer, an int or None), set only when the certificate is verified.
    """
    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    ledger = Ledger(deadline)
    try:
        if not isinstance(cert, dict) or cert.get("format") != FORMAT:
            raise Unreadable(f"not a symssm certificate (no \"format\": \"{FORMAT}\")")
        known = GRADIENT_VERSIONS if cert.get("kind") == "gradient-highway" else VERSIONS  # gradient: also 2
        ledger.require(cert.get("version") in known and not isinstance(cert.get("version"), bool), "version",
                       f"unknown version {cert.get('version')!r} (this checker knows {known})")
        kinds = KINDS
        ledger.require(isinstance(cert.get("kind"), str) and cert["kind"] in kinds, "kind",
                       f"unknown kind {str(cert.get('kind'))[:40]!r}")
        ledger.require(is_text(cert.get("generator"), 200), "generator", "must be a string of at most 200 characters")
        reader, hasher, obligations = kinds[cert["kind"]]
        if cert["kind"] == "head-count" and "field" in cert:
            ledger.require(cert["field"] == GAUSSIAN_FIELD, "field", f"must be {GAUSSIAN_FIELD!r} when present")
            reader, hasher, obligations = read_gaussian_system, gaussian_spec_hash, check_gaussian_head_count
        system = reader(ledger, cert.get("system"))
        ledger.require(cert.get("input_sha256") == system["sha256"], "input_sha256",
                       "does not match the system (the system or the hash was changed)")
        if spec is not None:
            ledger.require(hasher(spec) == system["sha256"], "spec",
                           "the certificate is about a different system than the spec")
        if at is not None and cert["kind"] not in AT_KINDS:
            raise Unreadable("--at applies to certificates with parameters (kinds parametric-head-count and "
                             "parametric-interaction-rank)")
        if at is None:
            summary = obligations(ledger, cert, system)
            return CheckResult(0, summary, ledger.done)
        parsed = []
        summary = obligations(ledger, cert, system, keep=parsed)
        try:
            if cert["kind"] == "parametric-head-count":
                answer = head_count_at(parsed, at, cert["n"])
            else:
                answer = interaction_rank_at(parsed, at, system)
        except ValueError as exc:
            raise Unreadable(str(exc)) from None
        result = CheckResult(0, summary, ledger.done)
        result.at = answer
        return result
    except Rejected as exc:
        return CheckResult(1, str(exc), ledger.done)
    except Unreadable as exc:
        return CheckResult(2, str(exc), ledger.done)
    except TimeoutError:
        return CheckResult(2, "undecided: the checking budget (--max-seconds) ran out before all obligations "
                              "were checked; neither verified nor rejected", ledger.done)
    except (MemoryError, RecursionError) as exc:
        return CheckResult(2, f"the certificate is too large to check ({type(exc).__name__})", ledger.done)
    except Exception as exc:  # a shape no obligation anticipated: fail closed
        return CheckResult(1, f"structure: malformed certificate ({type(exc).__name__}: {str(exc)[:120]})",
                           ledger.done)


def check_file(path, *, spec_path=None, max_seconds=None, at=None):
    """Check a certificate file; returns a :class:`CheckResult` (see :func:`check_data` for ``at``)."""
    try:
        cert = read_file(path, "certificate")
        spec = read_file(spec_path, "spec") if spec_path is not None else None
    except Unreadable as exc:
        return CheckResult(2, str(exc))
    return check_data(cert, spec=spec, max_seconds=max_seconds, at=at)
