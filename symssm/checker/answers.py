"""What ``symssm-check`` prints beyond the verdict: the ``--at`` answer of a certificate with parameters, and the
``--json`` object.  Loaded only when those options are given; it prints what :func:`.core.check_data` returned
and decides nothing.  Standard library only.
"""

__all__ = ["at_line", "print_json"]


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
