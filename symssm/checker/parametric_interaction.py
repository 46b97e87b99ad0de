"""Obligations of the ``"parametric-interaction-rank"`` kind: interaction ranks for every input.

Standard library only (python-flint optional, through :mod:`.polynomials`).  The layer's entries are
formulas in parameters; each body's blocks are recomputed from its entries with the checker's own
polynomial arithmetic (every matrix scaled by the body's common denominator g, so a block is
``g^e W_ij``), and the rank proof, the factorisation and the cases are checked as for families
(:mod:`.parametric`): a nonzero minor determinant ``Delta``, a relation for every other nonzero
block, ``g * Delta * prod q = c * prod f^e``, and every case's layer by substitution.
"""

import hashlib
import json

from . import covering as CV
from . import polynomials as P
from .parametric import (ParsedBody, formula_matrix, matmul, parameter_names, poly_sum, check_cases, check_factors, check_rank,
                         locate, read_body_family, scaled_entries, show_point)
from .limits import MAX_CASES
from .reading import Unreadable, is_text, strict_equal

__all__ = ["read_parametric_layer", "parametric_layer_spec_hash", "check_parametric_interaction",
           "interaction_rank_at"]

MAX_TOKENS = 12
MAX_DIM = 8
MAX_HEADS = 8
SPEC_FIELDS = {
    "selective-ssm": (("A", "B", "C", "kind", "parameters"), ("D",)),
    "convolution": (("kernel", "kind", "n", "parameters"), ()),
    "linear-attention": (("X", "heads", "kind", "parameters"), ()),
    "operator": (("blocks", "kind", "m", "n", "p", "parameters"), ()),
}


def _hash(obj):
    kind = obj.get("kind")
    required, optional = SPEC_FIELDS.get(kind, ((), ())) if type(kind) is str else ((), ())
    data = {k: obj[k] for k in required + optional if k in obj}
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True) + "\n"
    return hashlib.sha256(text.encode("ascii")).hexdigest()


def parametric_layer_spec_hash(spec):
    """The hash of a layer spec with parameters (what ``--spec`` compares)."""
    if not isinstance(spec, dict) or "parameters" not in spec or type(spec.get("kind")) is not str \
            or spec["kind"] not in SPEC_FIELDS:
        raise Unreadable("the spec is not a layer with parameters, but the certificate is about one")
    return _hash(spec)


def _count(ledger, value, where, limit):
    ledger.require(isinstance(value, list) and 1 <= len(value) <= limit, where, f"must list 1 to {limit} matrices")
    return len(value)


def _dims(ledger, M, where):
    ledger.require(isinstance(M, list) and M and isinstance(M[0], list) and 1 <= len(M) <= MAX_DIM
                   and 1 <= len(M[0]) <= MAX_DIM, where, f"must be a matrix of at most {MAX_DIM} x {MAX_DIM}")
    return len(M), len(M[0])


def read_parametric_layer(ledger, obj):
    """The ``"system"`` of the certificate: kind, sizes, parameters; every matrix under its flat key; the hash."""
    ledger.require(isinstance(obj, dict) and type(obj.get("kind")) is str and obj["kind"] in SPEC_FIELDS, "system",
                   f"must be a layer of kind {', '.join(SPEC_FIELDS)}")
    kind = obj["kind"]
    required, optional = SPEC_FIELDS[kind]
    allowed = set(required) | set(optional) | {"name", "n", "p", "m"}
    ledger.require(set(required) | {"name", "n", "p", "m"} <= set(obj) <= allowed, "system",
                   f"a {kind} layer has exactly {', '.join(sorted(set(required) | {'name', 'n', 'p', 'm'}))}"
                   + (f" (and {', '.join(optional)})" if optional else ""))
    ledger.require(is_text(obj["name"], 200), "system.name", "must be a string of at most 200 characters")
    for key, top in (("n", MAX_TOKENS), ("p", MAX_DIM), ("m", MAX_DIM)):
        ledger.require(type(obj[key]) is int and 1 <= obj[key] <= top, f"system.{key}",
                       f"must be an integer from 1 to {top}")
    n, p, m = obj["n"], obj["p"], obj["m"]
    names = parameter_names(ledger, obj["parameters"], "system.parameters")
    shapes, formulas = {}, {}

    def add(key, M, shape, where):
        formula_matrix(ledger, M, shape, where)
        shapes[key], formulas[key] = shape, M

    if kind == "selective-ssm":
        ledger.require(_count(ledger, obj["A"], "system.A", MAX_TOKENS) == n, "system.A", "must list n matrices")
        N = _dims(ledger, obj["A"][0], "system.A[0]")[0]
        shape = {"A": (N, N), "B": (N, m), "C": (p, N), "D": (p, m)}
        for key in ("A", "B", "C", "D"):
            if key == "D" and "D" not in obj:
                continue
            ledger.require(_count(ledger, obj[key], f"system.{key}", MAX_TOKENS) == n, f"system.{key}",
                           "must list one matrix per token")
            for i, M in enumerate(obj[key], start=1):
                add(f"{key}[{i}]", M, shape[key], f"system.{key}[{i - 1}]")
        structure = ("selective-ssm", N, "D" in obj)
    elif kind == "convolution":
        taps = _count(ledger, obj["kernel"], "system.kernel", MAX_TOKENS)
        for d, M in enumerate(obj["kernel"]):
            add(f"kernel[{d}]", M, (p, m), f"system.kernel[{d}]")
        structure = ("convolution", taps)
    elif kind == "linear-attention":
        add("X", obj["X"], (n, m), "system.X")
        heads = _count(ledger, obj["heads"], "system.heads", MAX_HEADS)
        ledger.require(all(isinstance(h, dict) and set(h) == {"Q", "K", "V"} for h in obj["heads"]), "system.heads",
                       "each head must have exactly Q, K and V")
        d = _dims(ledger, obj["heads"][0]["Q"], "system.heads[0].Q")[0]
        for h, head in enumerate(obj["heads"], start=1):
            add(f"Q[{h}]", head["Q"], (d, m), f"system.heads[{h - 1}].Q")
            add(f"K[{h}]", head["K"], (d, m), f"system.heads[{h - 1}].K")
            add(f"V[{h}]", head["V"], (p, m), f"system.heads[{h - 1}].V")
        structure = ("linear-attention", heads, d)
    else:
        blocks = obj["blocks"]
        ledger.require(isinstance(blocks, list) and 1 <= len(blocks) <= n * n, "system.blocks",
                       f"must list 1 to n^2 = {n * n} blocks")
        seen = set()
        for b, item in enumerate(blocks):
            ledger.require(isinstance(item, dict) and set(item) == {"i", "j", "W"} and type(item["i"]) is int
                           and type(item["j"]) is int and 1 <= item["i"] <= n and 1 <= item["j"] <= n
                           and (item["i"], item["j"]) not in seen, f"system.blocks[{b}]",
                           "must be a new block {i, j, W} with 1 <= i, j <= n")
            seen.add((item["i"], item["j"]))
        order = tuple(sorted(seen))
        by_pair = {(item["i"], item["j"]): item["W"] for item in blocks}
        for i, j in order:
            add(f"W[{i},{j}]", by_pair[(i, j)], (p, m), f"system.blocks[({i}, {j})].W")
        structure = ("operator", order)
    return {"kind": kind, "n": n, "p": p, "m": m, "parameters": names, "shapes": shapes, "formulas": formulas,
            "structure": structure, "name": obj["name"], "sha256": _hash(obj)}


def block_order(system):
    """The blocks that are the rows: every ``j <= i`` row by row, or an operator's listed blocks."""
    if system["kind"] == "operator":
        return [list(ij) for ij in system["structure"][1]]
    n = system["n"]
    return [[i, j] for i in range(1, n + 1) for j in range(1, i + 1)]


def _blocks(system, S, g, nv):
    """The scaled blocks ``g^e W_ij``, in :func:`block_order`, from the scaled entries ``S``."""
    kind, n, p, m = system["kind"], system["n"], system["p"], system["m"]
    zero = [[{} for _ in range(m)] for _ in range(p)]
    out = {}
    if kind == "selective-ssm":
        with_d = system["structure"][2]
        for j in range(1, n + 1):
            X = S[f"B[{j}]"]
            W = matmul(S[f"C[{j}]"], X)
            if with_d:
                W = [[P.add(W[r][c], P.mul(g, S[f"D[{j}]"][r][c])) for c in range(m)] for r in range(p)]
            out[(j, j)] = W
            for i in range(j + 1, n + 1):
                X = matmul(S[f"A[{i}]"], X)
                out[(i, j)] = matmul(S[f"C[{i}]"], X)
    elif kind == "convolution":
        taps = system["structure"][1]
        for i in range(1, n + 1):
            for j in range(1, i + 1):
                out[(i, j)] = S[f"kernel[{i - j}]"] if i - j < taps else zero
    elif kind == "linear-attention":
        heads = system["structure"][1]
        X = S["X"]
        q = {(h, t): matmul(S[f"Q[{h}]"], [[x] for x in X[t]]) for h in range(1, heads + 1) for t in range(n)}
        k = {(h, t): matmul(S[f"K[{h}]"], [[x] for x in X[t]]) for h in range(1, heads + 1) for t in range(n)}
        for i in range(1, n + 1):
            for j in range(1, i + 1):
                W = zero
                for h in range(1, heads + 1):
                    s = poly_sum(P.mul(a[0], b[0]) for a, b in zip(q[(h, i - 1)], k[(h, j - 1)]))
                    V = S[f"V[{h}]"]
                    W = [[P.add(W[r][c], P.mul(s, V[r][c])) for c in range(m)] for r in range(p)]
                out[(i, j)] = W
    else:
        for i, j in system["structure"][1]:
            out[(i, j)] = S[f"W[{i},{j}]"]
    return [out[tuple(ij)] for ij in block_order(system)]


def _check_body(ledger, system, bodies, i, parsed):
    b = bodies[i]
    w = f"bodies[{i}]"
    keys = {"parameters", "substitution", "entries", "denominator", "interaction_rank", "lower_bound", "upper_bound",
            "factors", "complete"}
    ledger.require(isinstance(b, dict) and set(b) == keys, w, f"must have exactly {', '.join(sorted(keys))}")
    names, pairs = read_body_family(ledger, bodies, i, system, system["shapes"], parsed)
    g, scaled = scaled_entries(ledger, w, b["denominator"], pairs, names)
    p, m = system["p"], system["m"]
    rows = _blocks(system, scaled, g, len(names))
    k, delta, qs = check_rank(ledger, w, b, rows, block_order(system), names, p, m, field="interaction_rank",
                              dimension_at=p * m, skip_zero=True, row_word="block",
                              relation="q U_b = sum p_s U_(b_s)", with_minor=True)
    whole = P.mul(g, delta)
    for q in qs:
        whole = P.mul(whole, q)
    body = ParsedBody()
    factors = check_factors(ledger, w, b, names, pairs, whole, i, len(bodies), body)
    body.names, body.pairs, body.g, body.k = names, pairs, g, k
    body.holds, body.factors, body.complete, body.index = None, factors, b["complete"], i
    return body


def check_parametric_interaction(ledger, cert, system, *, keep=None):
    """Every obligation of the certificate; returns the one-line summary (``keep`` receives the bodies)."""
    P.reset_work()
    keys = {"format", "version", "kind", "generator", "system", "input_sha256", "interaction_rank", "complete",
            "bodies"}
    ledger.require(set(cert) == keys, "structure",
                   f"a parametric interaction-rank certificate has exactly {', '.join(sorted(keys))}")
    bodies = cert["bodies"]
    ledger.require(isinstance(bodies, list) and 1 <= len(bodies) <= MAX_CASES, "bodies",
                   f"must be a list of 1 to {MAX_CASES} bodies")
    parsed = []
    for i in range(len(bodies)):
        parsed.append(_check_body(ledger, system, bodies, i, parsed))
    complete = check_cases(ledger, bodies, parsed)
    ledger.require(strict_equal(cert["interaction_rank"], parsed[0].k), "interaction_rank",
                   "is not the generic body's interaction rank")
    ledger.require(strict_equal(cert["complete"], complete[0]), "complete", "is not the generic body's completeness")
    if keep is not None:
        keep.extend(parsed)
    scope = CV.scope(parsed)
    extent = f"every {scope + ' ' if scope else ''}input where the layer is defined" if complete[0] else \
        "every input outside the uncovered factors"
    return (f"interaction rank r = {parsed[0].k} generically for the {system['kind']} layer {system['name']!r} "
            f"(n = {system['n']}) over Q({', '.join(system['parameters'])}); {len(parsed)} "
            f"bod{'y covers' if len(parsed) == 1 else 'ies cover'} {extent}")


def interaction_rank_at(parsed, point, system):
    """What the verified certificate proves at ``point``: a dict with ``interaction_rank`` (int or None).

    Raises
    ------
    ValueError
        If the point does not give exactly the layer's parameters.
    """
    body, path, reason = locate(parsed, point, "the layer")
    return {"n": system["n"], "point": show_point(point), "case": path, "reason": reason,
            "interaction_rank": None if body is None else body.k}
