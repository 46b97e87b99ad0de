"""Obligations of ``interaction-rank`` certificates (standard library only).

The checker reads the layer (kind, sizes, exact parameters and input), recomputes every block
``W_ij`` of its interaction operator with its own code, and verifies:

1. the lower bound: r strictly increasing witness blocks, r entry positions, the minor
   ``M_st = W_{b_s}[r_t, c_t]`` with every leading principal minor nonzero (exact Bareiss) and the
   stated determinant; for softmax attention, an interval enclosure of that determinant that
   excludes zero (see :mod:`.softmax`);
2. the upper bound: every considered block is a witness block, or the stated combination of the
   witness blocks before it, or zero (softmax: every block lies in ``span{V_h}``, whose exact rank
   is r);
3. the construction and the gap list that follow from them.
"""

import hashlib
import json
from fractions import Fraction

from . import costs
from .costs import charge
from .numbers import NumberError, rat_text
from .spec import spec_rational
from .headcount import nonsingular_minor
from .limits import MAX_DIM
from .linalg import combinations
from .kernel import Unreadable, is_text, strict_equal
from .reading import integer, keys, matrix, positions, rational
from . import recurrent

MAX_TOKENS = 256
MAX_BLOCKS = 20_000
MAX_LAYER_WORK = 1_000_000
LAYER_KINDS = ("selective-ssm", "convolution", "linear-attention", "softmax-attention",
               "operator") + recurrent.RECURRENT_KINDS
RULE = ("W_ij = sum_h alpha^h_ij V_h with V_h = W at the h-th witness block; alpha^h_ij = 1 if (i,j) is "
        "that block, the listed coefficient for a listed block, 0 otherwise")
_ZERO = Fraction(0)


# ---------------------------------------------------------------- reading the layer

def _matrices(ledger, value, where, count, rows, cols):
    ledger.require(isinstance(value, list) and len(value) == count, where, f"must list {count} matrices")
    return [matrix(ledger, M, f"{where}[{i}]", rows, cols) for i, M in enumerate(value)]


def _shape_of(ledger, value, where):
    ledger.require(isinstance(value, list) and value and isinstance(value[0], list) and value[0], where,
                   "must be a non-empty matrix")
    return len(value), len(value[0])


def layer_work(kind, n, p, m, extra):
    """Multiply-adds needed to form the blocks (the generator applies the same formula)."""
    pairs = n * (n + 1) // 2
    if kind == "selective-ssm":
        N = extra
        return pairs * (N * N * m + p * N * m)
    if kind in ("linear-attention", "softmax-attention"):
        heads, d = extra
        return pairs * heads * (p * m + 1) + n * heads * d * m * 2
    if kind in recurrent.RECURRENT_KINDS:
        heads, dk, Dv, lags = extra
        return recurrent.recurrent_work(n, p, m, heads, dk, Dv, lags)
    return pairs


def _entries(layer):
    """Every number of a layer's matrices."""
    if layer["kind"] in recurrent.RECURRENT_KINDS:
        return recurrent.recurrent_entries(layer)
    out = []
    for key in ("A", "B", "C", "D", "kernel", "X"):
        value = layer.get(key)
        if value is None:
            continue
        for M in (value if key != "X" else [value]):
            out.extend(x for row in M for x in row)
    for head in layer.get("heads", ()):
        for M in head:
            out.extend(x for row in M for x in row)
    for _, W in layer.get("blocks", ()):
        out.extend(x for row in W for x in row)
    return out


def _within_work(work):
    """Refuse (exit 2, the limit named) a layer whose blocks cost more than the documented work limit."""
    if work > MAX_LAYER_WORK:
        raise Unreadable(f"undecided: system: over the cost limit: forming this layer's blocks takes about {work} "
                         f"multiply-adds; the limit is {MAX_LAYER_WORK} (docs/robustness.md)")
    charge(work)


def read_layer(ledger, obj):
    """The layer of an interaction-rank certificate, validated; with its canonical hash."""
    ledger.require(isinstance(obj, dict), "system", "must be a JSON object")
    kind = obj.get("kind")
    ledger.require(is_text(kind, 40) and kind in LAYER_KINDS, "system.kind", f"must be one of {', '.join(LAYER_KINDS)}")
    fields = {"selective-ssm": ("A", "B", "C", "D"), "convolution": ("kernel",),
              "linear-attention": ("X", "heads"), "softmax-attention": ("X", "heads"),
              "operator": ("blocks",)}.get(kind, recurrent.FIELDS)
    keys(ledger, obj, "system", ("kind", "name", "n", "p", "m") + fields)
    ledger.require(is_text(obj["name"], 200), "system.name", "must be a string of at most 200 characters")
    n = integer(ledger, obj["n"], "system.n", 1, MAX_TOKENS)
    p = integer(ledger, obj["p"], "system.p", 1, MAX_DIM)
    m = integer(ledger, obj["m"], "system.m", 1, MAX_DIM)
    layer = {"kind": kind, "name": obj["name"], "n": n, "p": p, "m": m}
    extra = None
    if kind == "selective-ssm":
        N, _ = _shape_of(ledger, obj["A"][0] if isinstance(obj["A"], list) and obj["A"] else None, "system.A[0]")
        extra = N
        _within_work(layer_work(kind, n, p, m, extra))
        layer["A"] = _matrices(ledger, obj["A"], "system.A", n, N, N)
        layer["B"] = _matrices(ledger, obj["B"], "system.B", n, N, m)
        layer["C"] = _matrices(ledger, obj["C"], "system.C", n, p, N)
        layer["D"] = None if obj["D"] is None else _matrices(ledger, obj["D"], "system.D", n, p, m)
    elif kind == "convolution":
        ledger.require(isinstance(obj["kernel"], list) and 1 <= len(obj["kernel"]) <= MAX_TOKENS, "system.kernel",
                       f"must list 1 to {MAX_TOKENS} taps")
        layer["kernel"] = _matrices(ledger, obj["kernel"], "system.kernel", len(obj["kernel"]), p, m)
    elif kind in ("linear-attention", "softmax-attention"):
        layer["X"] = matrix(ledger, obj["X"], "system.X", n, m)
        heads = obj["heads"]
        ledger.require(isinstance(heads, list) and 1 <= len(heads) <= 64, "system.heads", "must list 1 to 64 heads")
        d, _ = _shape_of(ledger, heads[0].get("Q") if isinstance(heads[0], dict) else None, "system.heads[0].Q")
        extra = (len(heads), d)
        _within_work(layer_work(kind, n, p, m, extra))
        layer["heads"] = []
        for h, head in enumerate(heads):
            keys(ledger, head, f"system.heads[{h}]", ("Q", "K", "V"))
            layer["heads"].append((matrix(ledger, head["Q"], f"system.heads[{h}].Q", d, m),
                                   matrix(ledger, head["K"], f"system.heads[{h}].K", d, m),
                                   matrix(ledger, head["V"], f"system.heads[{h}].V", p, m)))
    elif kind in recurrent.RECURRENT_KINDS:
        n_, H, dk, Dv, m_, p_, lags = recurrent.sizes(ledger, obj)
        extra = (H, dk, Dv, lags)
        _within_work(layer_work(kind, n, p, m, extra))
        recurrent.read_recurrent(ledger, obj, layer, n_, H, dk, Dv, m_, p_)
    else:
        blocks = obj["blocks"]
        ledger.require(isinstance(blocks, list) and len(blocks) <= MAX_BLOCKS, "system.blocks",
                       f"must be a list of at most {MAX_BLOCKS} blocks")
        layer["blocks"] = []
        for b, item in enumerate(blocks):
            keys(ledger, item, f"system.blocks[{b}]", ("i", "j", "W"))
            i = integer(ledger, item["i"], f"system.blocks[{b}].i", 1, n)
            j = integer(ledger, item["j"], f"system.blocks[{b}].j", 1, n)
            layer["blocks"].append(((i, j), matrix(ledger, item["W"], f"system.blocks[{b}].W", p, m)))
        order = [ij for ij, _ in layer["blocks"]]
        ledger.require(order == sorted(set(order)), "system.blocks", "must be listed once each, in (i, j) order")
    # the blocks' multiply-adds on these entries, charged again by their size: a sum of products over many distinct
    # denominators grows to their common denominator (60 distinct 3,000-digit ones: 2.3 s for 1,000 multiply-adds)
    if kind in recurrent.RECURRENT_KINDS:
        # a block multiplies up to n transitions: its numbers grow with the distance i - j (growth_work)
        H, dk, Dv, lags = extra
        per_pair = recurrent.recurrent_work(1, p, m, H, dk, Dv, lags)
        _within_work(recurrent.growth_work(n, per_pair, recurrent.entry_words(_entries(layer)),
                                           recurrent.STEP_FACTORS.get(kind, 1)))
    else:
        _within_work(layer_work(kind, n, p, m, extra) * costs.lowest_terms_work(costs.common_words(_entries(layer))))
    canonical = {k: v for k, v in obj.items() if k != "name"}
    text = json.dumps(canonical, sort_keys=True, ensure_ascii=True, separators=(",", ":"), allow_nan=False) + "\n"
    layer["sha256"] = hashlib.sha256(text.encode("ascii")).hexdigest()
    return layer


#: The fields of a layer spec beside ``kind`` and ``name``, by kind (the recurrent kinds: :data:`recurrent.FIELDS`).
SPEC_FIELDS = {"selective-ssm": ("A", "B", "C", "D"), "convolution": ("kernel", "n"),
               "linear-attention": ("X", "heads"), "softmax-attention": ("X", "heads"),
               "operator": ("blocks", "n", "p", "m")}


def layer_spec_hash(spec):
    """The canonical hash of a layer spec file, read by this checker's own grammar."""
    from .kernel import Ledger, Rejected

    if not isinstance(spec, dict) or spec.get("kind") not in LAYER_KINDS:
        raise Unreadable("spec is not a layer spec of a known kind")

    def canon(value):
        if isinstance(value, list):
            return [canon(v) for v in value]
        if isinstance(value, dict):
            return {k: canon(v) for k, v in value.items()}
        if isinstance(value, bool) or value is None:
            return value
        try:
            return rat_text(spec_rational(value))
        except NumberError as exc:
            raise Unreadable(f"spec: {exc}") from None

    kind = spec["kind"]
    # a field the generator's reader refuses (a typo, "parameters") would leave the hash that of another layer
    allowed = recurrent.FIELDS if kind in recurrent.RECURRENT_KINDS else SPEC_FIELDS[kind]
    unknown = sorted(str(k) for k in spec if k not in ("kind", "name") + allowed)
    if unknown:
        raise Unreadable(f"spec is not a valid {kind} layer (unknown field {unknown[0][:40]!r})")
    for key, inner in (("heads", ("Q", "K", "V")), ("blocks", ("i", "j", "W"))):
        if kind in ("linear-attention", "softmax-attention", "operator") and key in allowed and isinstance(
                spec.get(key), list):
            for item in spec[key]:
                extra = sorted(str(k) for k in item if k not in inner) if isinstance(item, dict) else []
                if extra:
                    raise Unreadable(f"spec is not a valid {kind} layer (unknown field {key}[].{extra[0][:40]})")
    data = {k: v for k, v in spec.items() if k not in ("kind", "name", "n")}
    out = {"kind": kind, "name": spec.get("name", "")}
    try:
        if kind == "selective-ssm":
            out.update({k: canon(data.get(k)) for k in ("A", "B", "C", "D")})
            out.update(n=len(out["A"]), p=len(out["C"][0]), m=len(out["B"][0][0]))
        elif kind == "convolution":
            out["kernel"] = canon(data["kernel"])
            out.update(n=spec["n"], p=len(out["kernel"][0]), m=len(out["kernel"][0][0]))
        elif kind in recurrent.RECURRENT_KINDS:
            out.update(recurrent.canonical_recurrent(spec, canon))
        elif kind == "operator":
            out.update(n=spec["n"], p=spec["p"], m=spec["m"])
            out["blocks"] = sorted(({"i": b["i"], "j": b["j"], "W": canon(b["W"])} for b in data["blocks"]),
                                   key=lambda b: (b["i"], b["j"]))
        else:
            out["X"] = canon(data["X"])
            out["heads"] = [{"Q": canon(h["Q"]), "K": canon(h["K"]), "V": canon(h["V"])} for h in data["heads"]]
            out.update(n=len(out["X"]), p=len(out["heads"][0]["V"]), m=len(out["X"][0]))
        layer = read_layer(Ledger(), out)
    except (KeyError, IndexError, TypeError, Rejected) as exc:
        raise Unreadable(f"spec is not a valid {kind} layer ({str(exc)[:80]})") from None
    return layer["sha256"]


# ---------------------------------------------------------------- blocks

def _mul(X, Y):
    cols = list(zip(*Y))
    return [[sum((a * b for a, b in zip(row, col)), _ZERO) for col in cols] for row in X]


def _dot(u, v):
    return sum((a * b for a, b in zip(u, v)), _ZERO)


def blocks(layer):
    """``{(i, j): W_ij}`` for every block considered (exact kinds), by the layer's definition."""
    kind, n, p, m = layer["kind"], layer["n"], layer["p"], layer["m"]
    zero = [[_ZERO] * m for _ in range(p)]
    out = {}
    if kind == "selective-ssm":
        A, B, C, D = layer["A"], layer["B"], layer["C"], layer["D"]
        for j in range(1, n + 1):
            X = B[j - 1]
            W = _mul(C[j - 1], X)
            if D is not None:
                W = [[a + b for a, b in zip(r1, r2)] for r1, r2 in zip(W, D[j - 1])]
            out[(j, j)] = W
            for i in range(j + 1, n + 1):
                X = _mul(A[i - 1], X)
                out[(i, j)] = _mul(C[i - 1], X)
    elif kind == "convolution":
        K = layer["kernel"]
        for i in range(1, n + 1):
            for j in range(1, i + 1):
                out[(i, j)] = K[i - j] if i - j < len(K) else zero
    elif kind == "linear-attention":
        X = layer["X"]
        # the projections Q_h x_t and K_h x_t once per token (layer_work counts them once per token)
        qs = [[[_dot(r, x) for r in Q] for x in X] for Q, _, _ in layer["heads"]]
        ks = [[[_dot(r, x) for r in K] for x in X] for _, K, _ in layer["heads"]]
        for i in range(1, n + 1):
            for j in range(1, i + 1):
                W = [[_ZERO] * m for _ in range(p)]
                for h, (_, _, V) in enumerate(layer["heads"]):
                    s = _dot(qs[h][i - 1], ks[h][j - 1])
                    W = [[w + s * v for w, v in zip(rw, rv)] for rw, rv in zip(W, V)]
                out[(i, j)] = W
    elif kind == "operator":
        out = dict(layer["blocks"])
    elif kind in recurrent.RECURRENT_KINDS:
        out = recurrent.recurrent_blocks(layer)
    return out


# ---------------------------------------------------------------- obligations

def _pair(ledger, value, where, considered):
    ledger.require(isinstance(value, list) and len(value) == 2, where, "must be [i, j]")
    pair = (integer(ledger, value[0], f"{where}[0]", 1), integer(ledger, value[1], f"{where}[1]", 1))
    ledger.require(pair in considered, where, f"({pair[0]}, {pair[1]}) is not a block of this operator")
    return pair


def _claims(ledger, cert, layer, r, witness):
    heads = cert["heads"]
    keys(ledger, heads, "heads", ("H", "value_map_blocks", "value_maps", "rule"))
    ledger.require(strict_equal(heads["H"], r), "heads.H", f"must be the interaction rank {r}")
    ledger.require(strict_equal(heads["value_map_blocks"], cert["lower_bound"]["blocks"]), "heads.value_map_blocks",
                   "must be the witness blocks")
    ledger.require(heads["rule"] == RULE, "heads.rule", "is not the construction rule of format version 1")
    gap = cert["interaction_rank_gap"]
    ledger.require(strict_equal(gap, [{"H": H, "minor_order": H + 1} for H in range(r)]),
                   "interaction_rank_gap", f"must list H = 0..{r - 1}, each refuted by the leading (H+1)-minor")
    vm = heads["value_maps"]
    ledger.require(isinstance(vm, list) and len(vm) == r, "heads.value_maps", f"must list {r} value maps")
    for h, V in enumerate(vm):
        ledger.require(matrix(ledger, V, f"heads.value_maps[{h}]", layer["p"], layer["m"]) == witness[h],
                       f"heads.value_maps[{h}]", "is not the block at the witness")


def check_interaction(ledger, cert, layer):
    """Verify an interaction-rank certificate; returns the summary line."""
    keys(ledger, cert, "certificate", ("format", "version", "kind", "generator", "system", "input_sha256",
                                       "interaction_rank", "lower_bound", "upper_bound", "heads",
                                       "interaction_rank_gap"))
    p, m = layer["p"], layer["m"]
    r = integer(ledger, cert["interaction_rank"], "interaction_rank", 0, p * m)
    if layer["kind"] == "softmax-attention":
        from .softmax import check_softmax

        check_softmax(ledger, cert, layer, r)
        ledger.require(strict_equal(cert["heads"]["value_map_blocks"], cert["lower_bound"]["blocks"]),
                       "heads.value_map_blocks", "must be the witness blocks")
        name = layer["name"] or "the layer"
        return f"interaction-rank r = {r} for the softmax-attention layer {name!r} on its input (interval bounds)"
    W = blocks(layer)
    considered = set(W)
    order = sorted(W)
    index = {ij: t for t, ij in enumerate(order)}
    lb = cert["lower_bound"]
    keys(ledger, lb, "lower_bound", ("method", "blocks", "positions", "minor", "determinant"))
    ledger.require(lb["method"] == "exact", "lower_bound.method", "must be 'exact'")
    ledger.require(isinstance(lb["blocks"], list) and len(lb["blocks"]) == r, "lower_bound.blocks",
                   f"must list {r} blocks")
    wit = [_pair(ledger, b, f"lower_bound.blocks[{s}]", considered) for s, b in enumerate(lb["blocks"])]
    ledger.require(all(index[a] < index[b] for a, b in zip(wit, wit[1:])), "lower_bound.blocks",
                   "must be in increasing block order")
    cells = positions(ledger, lb["positions"], r, p, m)
    minor = matrix(ledger, lb["minor"], "lower_bound.minor", r, r)
    for s, b in enumerate(wit):
        for t, (rr, cc) in enumerate(cells):
            ledger.require(minor[s][t] == W[b][rr][cc], f"lower_bound.minor[{s}][{t}]",
                           f"is not W_{b}[{rr},{cc}] = {rat_text(W[b][rr][cc])}")
    nonsingular_minor(ledger, minor, lb["determinant"])
    ub = cert["upper_bound"]
    keys(ledger, ub, "upper_bound", ("coefficients",))
    ledger.require(isinstance(ub["coefficients"], list), "upper_bound.coefficients", "must be a list")
    # the identities cost (coefficients) x p x m multiply-adds each: bounded before any is checked
    identity_work = sum(len(row["c"]) if isinstance(row, dict) and isinstance(row.get("c"), list) else 0
                        for row in ub["coefficients"]) * p * m
    if identity_work > MAX_LAYER_WORK:
        raise Unreadable(f"undecided: upper_bound.coefficients: over the cost limit: checking the identities takes "
                         f"{identity_work} multiply-adds; the limit is {MAX_LAYER_WORK} (docs/robustness.md)")
    charge(identity_work)
    listed, rows = set(), []
    for e, row in enumerate(ub["coefficients"]):
        where = f"upper_bound.coefficients[{e}]"
        keys(ledger, row, where, ("block", "c"))
        b = _pair(ledger, row["block"], f"{where}.block", considered)
        ledger.require(b not in listed and b not in wit, f"{where}.block", "is a witness block or listed twice")
        listed.add(b)
        below = [w for w in wit if index[w] < index[b]]
        ledger.require(isinstance(row["c"], list) and len(row["c"]) == len(below), f"{where}.c",
                       "must have one coefficient per witness block before it")
        c = [rational(ledger, x, f"{where}.c[{h}]") for h, x in enumerate(row["c"])]
        rows.append((b, c))
    # every identity at once: one product (coefficients x witness blocks), exact, python-flint when present
    combos = combinations(W, wit, [c for _, c in rows], p, m)
    for (b, _), combo in zip(rows, combos):
        ledger.require(combo == W[b], f"upper_bound.coefficients block {b}",
                       f"W_{b} is not the stated combination of the witness blocks")
    for b in order:
        if b not in listed and b not in wit:
            ledger.require(all(x == 0 for row in W[b] for x in row), "upper_bound",
                           f"block {b} is neither a witness, nor given coefficients, nor zero")
    witness = [W[b] for b in wit]
    _claims(ledger, cert, layer, r, witness)
    name = layer["name"] or "the layer"
    return f"interaction-rank r = {r} for the {layer['kind']} layer {name!r} on its input"
