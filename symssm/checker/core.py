"""The checker's entry points: read a certificate, dispatch on its kind, return a verdict.

Standard library only (numpy optional, for products mod P); it never imports the
generator.  It fails closed: anything unexpected is a rejection or undecided, never VERIFIED.
"""

import importlib
import sys
import time

from .kernel import FORMAT, VERSIONS, CheckResult, Ledger, Malformed, Rejected, Unreadable, is_text, read_file
from .reading import first_malformed, read_system

__all__ = ["check_data", "check_file", "KINDS", "NAMES", "FIELDS", "AT_KINDS"]


def _lazy(module, name):
    """Function ``name`` of the checker's module ``module``, imported on its first call: a check loads the code of
    its own kind only (all of them cost 40 ms of start-up, more than a small certificate's whole check)."""
    def call(*args, **kwargs):
        return getattr(importlib.import_module(f"{__package__}.{module}"), name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__module__ = f"{__package__}.{module}"
    return call


#: How a spec is hashed for ``--spec`` (the spec grammar, :mod:`.spec`, loaded only when a spec is given).
spec_hash = _lazy("spec", "spec_hash")


#: The ``"field"`` of head counts over Q(i) (``checker/gaussian.py`` ``FIELD``; a test keeps the two equal).
GAUSSIAN_FIELD = "Q(i)"


#: Each certificate kind, keyed by ``(kind, field)``: a kind's plain form has field None, a variant its
#: ``"field"`` (``"Q(i)"``: head counts of complex systems). A row: how its ``system`` is read, how a spec is
#: hashed, its obligations, and what ``--at`` answers (``at(parsed bodies, point, cert, system)``; None where
#: ``--at`` does not apply). The generator's twin is :mod:`symssm.certificate.kinds`.
KINDS = {
    ("head-count", None): (read_system, spec_hash, _lazy("headcount", "check_head_count"), None),
    ("head-count", GAUSSIAN_FIELD): (_lazy("gaussian", "read_gaussian_system"), _lazy("gaussian", "gaussian_spec_hash"),
                                     _lazy("gaussian", "check_gaussian_head_count"), None),
    ("gradient-highway", None): (read_system, spec_hash, _lazy("gradient", "check_gradient"), None),
    ("interaction-rank", None): (_lazy("interaction", "read_layer"), _lazy("interaction", "layer_spec_hash"),
                                 _lazy("interaction", "check_interaction"), None),
    ("parametric-head-count", None): (_lazy("parametric", "read_parametric_system"),
                                      _lazy("parametric", "parametric_spec_hash"),
                                      _lazy("parametric", "check_parametric"),
                                      _lazy("answers", "family_at")),
    ("approximate-head-count", None): (read_system, spec_hash, _lazy("approximate", "check_approximate"), None),
    ("parametric-interaction-rank", None): (_lazy("parametric_interaction", "read_parametric_layer"),
                                            _lazy("parametric_interaction", "parametric_layer_spec_hash"),
                                            _lazy("parametric_interaction", "check_parametric_interaction"),
                                            _lazy("answers", "layer_at")),
    ("trained-head-count", None): (_lazy("trained", "read_trained_layer"), _lazy("trained", "trained_spec_hash"),
                                   _lazy("trained", "check_trained"), None),
}
#: The versions of each kind this checker reads (gradient certificates: version 2 too, ``checker/gradient.py``).
KIND_VERSIONS = {"gradient-highway": (1, 2)}
#: The kinds, each once.
NAMES = tuple(dict.fromkeys(name for name, _ in KINDS))
#: The ``"field"`` values of the kinds that have variants.
FIELDS = {name: tuple(f for n, f in KINDS if n == name and f is not None) for name in NAMES
          if any(n == name and f is not None for n, f in KINDS)}
#: The kinds that say what they prove at a parameter point (``--at``).
AT_KINDS = tuple(name for (name, _), row in KINDS.items() if row[3] is not None)


def check_data(cert, *, spec=None, max_seconds=None, at=None):
    """Check certificate data (already parsed JSON): read it, dispatch on its kind (:data:`KINDS`), verify.

    Parameters
    ----------
    cert : object
        Parsed certificate JSON.
    spec : dict, optional
        Parsed spec JSON the certificate must be about (its system's hash must match).
    max_seconds : float, optional
        A wall-clock limit, only when asked for: past it the verdict is undecided (code 2), the message saying it
        was the clock. Without it the verdict depends on the certificate alone (its charges, :mod:`.costs`).
    at : dict, optional
        ``{name: int or Fraction}``: ask a certificate with parameters what it proves at that point.

    Returns
    -------
    CheckResult
        Code 0 (verified; with ``at``, the answer is its ``at`` attribute: a dict with ``head_count``, or
        ``interaction_rank`` for a layer, an int or None), 1 (rejected: the message names the first failed
        obligation) or 2 (unreadable, beyond a limit, or undecided). Nothing is raised: every failure is a verdict.

    Examples
    --------
    >>> check_data({"format": "symssm-certificate", "version": 1, "kind": "curvature"}).message
    "kind: unknown kind 'curvature'"
    """
    deadline = None if max_seconds is None else time.monotonic() + max_seconds
    ledger = Ledger(deadline, max_seconds)
    polynomials = sys.modules.get(f"{__package__}.polynomials")
    if polynomials is not None:  # each certificate's polynomial work is counted from zero, whatever came before
        polynomials.reset_work()
    try:
        if not isinstance(cert, dict) or cert.get("format") != FORMAT:
            raise Unreadable(f"not a symssm certificate (no \"format\": \"{FORMAT}\")")
        known = KIND_VERSIONS.get(cert.get("kind"), VERSIONS) if isinstance(cert.get("kind"), str) else VERSIONS
        ledger.require(cert.get("version") in known and not isinstance(cert.get("version"), bool), "version",
                       f"unknown version {cert.get('version')!r} (this checker knows {known})")
        ledger.require(isinstance(cert.get("kind"), str) and cert["kind"] in NAMES, "kind",
                       f"unknown kind {str(cert.get('kind'))[:40]!r}")
        ledger.require(is_text(cert.get("generator"), 200), "generator", "must be a string of at most 200 characters")
        field = None
        if cert["kind"] in FIELDS and "field" in cert:  # a kind's variant (else an unknown field is its obligations')
            field = cert["field"]
            ledger.require((cert["kind"], field) in KINDS if isinstance(field, str) else False, "field",
                           f"must be {' or '.join(map(repr, FIELDS[cert['kind']]))} when present")
        reader, hasher, obligations, answer = KINDS[(cert["kind"], field)]
        system = reader(ledger, cert.get("system"))
        ledger.require(cert.get("input_sha256") == system["sha256"], "input_sha256",
                       "does not match the system (the system or the hash was changed)")
        if spec is not None:
            ledger.require(hasher(spec) == system["sha256"], "spec",
                           "the certificate is about a different system than the spec")
        if at is None:
            return CheckResult(0, obligations(ledger, cert, system), ledger.done)
        from .answers import check_at  # --at: what a certificate with parameters proves at a point

        return check_at(ledger, cert, system, obligations, answer, at, AT_KINDS)
    except Rejected as exc:
        found = _malformed(cert, ledger)  # (a CheckResult is falsy unless verified: compared with None)
        return CheckResult(1, str(exc), ledger.done) if found is None else found
    except Malformed as exc:
        found = _malformed(cert, ledger)
        return CheckResult(2, str(exc), ledger.done) if found is None else found
    except Unreadable as exc:
        return CheckResult(2, str(exc), ledger.done)
    except TimeoutError:
        return CheckResult(2, ledger.clock_message(), ledger.done)
    except (MemoryError, RecursionError) as exc:
        return CheckResult(2, f"the certificate is too large to check ({type(exc).__name__})", ledger.done)
    except Exception as exc:  # a shape no obligation anticipated: fail closed, and say nothing is decided
        return CheckResult(2, f"undecided: malformed certificate, read by no obligation ({type(exc).__name__}: "
                              f"{str(exc)[:120]}); neither verified nor rejected", ledger.done)


def _malformed(cert, ledger):
    """The verdict on a certificate with a field written against the number grammar (:func:`.reading.first_malformed`):
    unreadable, exit 2, that field named; None if it has none.  Asked only once the check has failed, so it never
    costs an honest certificate anything."""
    found = first_malformed(cert)
    if found is None:
        return None
    return CheckResult(2, f"malformed certificate: {found[0]}: {found[1]}", ledger.done)


def check_file(path, *, spec_path=None, max_seconds=None, at=None):
    """Check a certificate file.

    Parameters
    ----------
    path : str or os.PathLike
        The certificate's JSON file.
    spec_path : str or os.PathLike, optional
        A spec file the certificate must be about.
    max_seconds : float, optional
        A wall-clock limit, only when asked for (see :func:`check_data`).
    at : dict, optional
        A parameter point (see :func:`check_data`).

    Returns
    -------
    CheckResult
        As :func:`check_data`; code 2 when a file cannot be read.
    """
    try:
        cert = read_file(path, "certificate")
        spec = read_file(spec_path, "spec") if spec_path is not None else None
    except Unreadable as exc:
        return CheckResult(2, str(exc))
    return check_data(cert, spec=spec, max_seconds=max_seconds, at=at)
