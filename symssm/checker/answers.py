"""``--at`` and ``--json``: what a certificate with parameters proves at a point, and how the command prints it.

Loaded only when those options are given (a head-count verdict does not use this module).
:func:`check_at` runs a kind's obligations keeping what the answer needs, then asks the kind's module
(:mod:`.parametric`, :mod:`.parametric_interaction`) what they prove at the point; :func:`at_line` and
:func:`print_json` print what :func:`.core.check_data` returned.  Standard library only.
"""

from fractions import Fraction

from .kernel import CheckResult, Unreadable

__all__ = ["check_at", "family_at", "layer_at", "at_line", "print_json"]


def check_at(ledger, cert, system, obligations, answer, at, at_kinds):
    """Check a certificate's obligations, then ask what it proves at the point ``at`` (``check_data(at=...)``).

    Parameters
    ----------
    ledger : Ledger
        The check's ledger.
    cert, system : dict
        The certificate and its system, read by the kind's reader.
    obligations, answer : callable
        The kind's row of :data:`.core.KINDS`: ``obligations(ledger, cert, system, keep=list)`` and
        ``answer(parsed, point, cert, system)`` (None for a kind without parameters).
    at : object
        The point asked: ``{name: int or Fraction}``.
    at_kinds : tuple of str
        The kinds with an answer (for the message).

    Returns
    -------
    CheckResult
        Code 0 with the answer as its ``at`` attribute.

    Raises
    ------
    Unreadable
        If the point is not such a dict, the kind has no parameters, or the answer refuses the point.
    Rejected
        If an obligation fails.
    """
    if not (isinstance(at, dict) and all(type(k) is str and type(v) in (int, Fraction) for k, v in at.items())):
        raise Unreadable("--at: the point must give each parameter as an int or a Fraction")
    at = {k: Fraction(v) for k, v in at.items()}
    if answer is None:
        raise Unreadable(f"--at applies to certificates with parameters (kinds {' and '.join(at_kinds)})")
    parsed = []
    summary = obligations(ledger, cert, system, keep=parsed)
    try:
        point = answer(parsed, at, cert, system)
    except ValueError as exc:
        raise Unreadable(str(exc)) from None
    result = CheckResult(0, summary, ledger.done)
    result.at = point
    return result


def family_at(parsed, point, cert, system):
    """The head count a family certificate proves at ``point`` (:func:`.parametric.head_count_at`)."""
    from .parametric import head_count_at

    return head_count_at(parsed, point, cert["n"])


def layer_at(parsed, point, cert, system):
    """The interaction rank a layer certificate proves at ``point``
    (:func:`.parametric_interaction.interaction_rank_at`)."""
    from .parametric_interaction import interaction_rank_at

    return interaction_rank_at(parsed, point, system)


def at_line(at):
    """The line ``--at`` prints under VERIFIED: what a certificate with parameters proves at the point.

    Parameters
    ----------
    at : dict
        The answer of :func:`.core.check_data` (its ``at`` attribute).

    Returns
    -------
    str

    Examples
    --------
    >>> at_line({"point": {"a": "1/2"}, "head_count": 2, "n": 8, "reason": "case 1",
    ...          "holds_for": {"from": 2, "to": None}})
    'at a = 1/2: k(8) = 2 (case 1; for every n from 2 on)'
    """
    point = ", ".join(f"{k} = {v}" for k, v in at["point"].items()) or "the only point (no parameters)"
    if "interaction_rank" in at:
        if at["interaction_rank"] is None:
            return f"at {point}: the certificate proves no interaction rank here ({at['reason']})"
        return f"at {point}: r = {at['interaction_rank']} ({at['reason']}; n = {at['n']} tokens)"
    if at["head_count"] is None:
        return f"at {point}: the certificate proves no head count here ({at['reason']})"
    hf = at["holds_for"]
    span = f"for every n from {hf['from']}" + (f" to {hf['to']}" if hf["to"] is not None else " on")
    return f"at {point}: k({at['n']}) = {at['head_count']} ({at['reason']}; {span})"


def print_json(result, asked_at):
    """Print the verdict (and the ``--at`` answer when asked) as one JSON object.

    Parameters
    ----------
    result : CheckResult
        The verdict, with ``count`` (obligations checked) and ``at`` set by the command.
    asked_at : bool
        Whether ``--at`` was given.
    """
    import json

    verdict = {0: "verified", 1: "rejected"}.get(result.code, "undecided")
    out = {"verdict": verdict, "message": result.message, "obligations": result.count}
    if asked_at:
        at = result.at or {}
        if "interaction_rank" in at:
            out.update(interaction_rank=at["interaction_rank"])
        else:
            out.update(head_count=at.get("head_count"), holds_for=at.get("holds_for"))
        out.update(n=at.get("n"), point=at.get("point"), case=at.get("case"),
                   reason=at.get("reason", "the certificate is not verified: nothing is proven"))
    print(json.dumps(out, sort_keys=True))
