"""The linear-recurrence layers of ``interaction-rank`` certificates: their fields and blocks (standard library only).

Kinds ``mamba2-ssd``, ``retnet``, ``gla``, ``deltanet``, ``gated-deltanet``, ``kda``, ``rwkv6``, ``rwkv7``,
``mlstm``: per head a matrix state whose transition acts on the key side, so head h's output is ``o_i = sum_j c_ij v_j`` with

    c_ij = q_i^T M_i ... M_{j+1} k~_j  (j < i),   c_ii = d_i

(each kind's ``M``, ``k~``, ``q``, ``d`` below, written from the kind's recurrence), the values ``v`` from ``V``
through the optional token shift, short convolution and value factors, and the output through the optional norm,
gate and output map.  This module forms ``W_ij`` from the certificate's fields by that definition, with its own
code.
"""

from fractions import Fraction

from .costs import lowest_terms_work
from .reading import keys, matrix, rational

__all__ = ["RECURRENT_KINDS", "read_recurrent", "recurrent_blocks", "recurrent_work", "growth_work", "canonical_recurrent"]

_ZERO, _ONE = Fraction(0), Fraction(1)
_T, _R, _V, _S = "tokens", "rows", "vector", "scalar"
#: Each kind's head fields: (field, shape, required).
HEADS = {
    "mamba2-ssd": (("a", _T, True), ("dt", _T, False), ("B", _R, True), ("C", _R, True), ("D", _S, False)),
    "retnet": (("q", _R, True), ("k", _R, True), ("gamma", _S, True)),
    "gla": (("q", _R, True), ("k", _R, True), ("alpha", _R, True)),
    "deltanet": (("q", _R, True), ("k", _R, True), ("beta", _T, True)),
    "gated-deltanet": (("q", _R, True), ("k", _R, True), ("beta", _T, True), ("alpha", _T, True)),
    "kda": (("q", _R, True), ("k", _R, True), ("beta", _T, True), ("alpha", _R, True)),
    "rwkv6": (("r", _R, True), ("k", _R, True), ("w", _R, True), ("u", _V, True)),
    "rwkv7": (("r", _R, True), ("k", _R, True), ("w", _R, True), ("a", _R, True), ("b", _R, True), ("rk", _V, False)),
    "mlstm": (("q", _R, True), ("k", _R, True), ("i", _T, True), ("f", _T, True), ("den", _T, False)),
}
RECURRENT_KINDS = tuple(HEADS)
FIELDS = ("heads", "V", "out", "gate", "norm", "shift", "conv", "value_gate")
MAX_HEADS = 64
MAX_TAPS = 16


def recurrent_work(n, p, m, heads, dk, dv_total, lags):
    """Multiply-adds forming the blocks (the generator applies the same formula)."""
    return n * (n + 1) // 2 * (4 * heads * dk + (lags + 1 + 2 * p) * dv_total * m)


#: Factors a block's entry multiplies beside its coefficient's path: the two ends of the path (``q``, ``k~``), a
#: tap, a value factor, ``V``, the norm's scale and weight, the gate and the output map.
END_FACTORS = 9
def entry_words(values):
    """64-bit words of one factor over the entries' common denominator: the largest numerator, and a bound on the
    bits of the lcm of the denominators: the largest power of two among them and the distinct odd parts
    (entries read from floats share one power of two).  Linear in the entries' size.

    >>> from fractions import Fraction
    >>> entry_words([Fraction(1, 2 ** k) for k in range(1, 60)])  # dyadic: the lcm is 2^59
    1
    >>> entry_words([Fraction(1, 3 ** 40), Fraction(1, 5 ** 40)])  # coprime: their bits add up
    3
    """
    big, twos, odd = 0, 0, set()
    for c in values:
        big = max(big, c.numerator.bit_length())
        d = c.denominator
        t = (d & -d).bit_length() - 1
        twos = max(twos, t)
        odd.add(d >> t)
    return max(1, -(-(big + twos + sum(o.bit_length() for o in odd)) // 64))


#: Factors one transition multiplies a carried entry by: a decay (1); the delta rule's ``alpha``, ``beta`` and ``k``
#: twice (4); RWKV-7's ``w`` or ``b`` and ``a`` (2).
STEP_FACTORS = {"deltanet": 4, "gated-deltanet": 4, "kda": 4, "rwkv7": 2}


def growth_work(n, per_pair, w, step=1):
    """The blocks' charge with the growth of their numbers: the block ``(i, j)`` multiplies ``i - j`` transitions
    of ``step`` factors each (:data:`STEP_FACTORS`) and :data:`END_FACTORS` more, of ``w`` words each, and every
    one of its ``per_pair`` multiply-adds puts a number of that many words in lowest terms (``lowest_terms_work``,
    quadratic).  Measured: at most about 5 s for 10^6 units (docs/robustness.md).

    >>> growth_work(4, 10, 1)
    0
    >>> growth_work(256, 11, 29) > 1_000_000  # 256 tokens of 600-bit decays over coprime denominators
    True
    """
    return sum((n - d) * per_pair * lowest_terms_work((step * d + END_FACTORS) * w) for d in range(n))


def _length(ledger, value, where, lo, hi):
    ledger.require(isinstance(value, list) and lo <= len(value) <= hi, where, f"must list {lo} to {hi} items")
    return len(value)


def _row(ledger, value, where, count):
    return matrix(ledger, [value], where, 1, count)[0]


def sizes(ledger, obj):
    """``(n, heads, dk, Dv, m, p, lags)`` of a recurrent layer's fields (before reading its numbers)."""
    kind = obj["kind"]
    heads = obj["heads"]
    H = _length(ledger, heads, "system.heads", 1, MAX_HEADS)
    ledger.require(isinstance(heads[0], dict), "system.heads[0]", "must be a JSON object")
    n = dk = None
    for field, shape, _ in HEADS[kind]:
        value = heads[0].get(field)
        if value is None or shape not in (_T, _R):
            continue
        n = _length(ledger, value, f"system.heads[0].{field}", 1, 256)
        if shape == _R:
            ledger.require(isinstance(value[0], list) and value[0], f"system.heads[0].{field}[0]",
                           "must be a non-empty row")
            dk = len(value[0])
    ledger.require(n is not None, "system.heads[0]", "must list a per-token field")
    dk = dk or 1
    V = obj["V"]
    ledger.require(isinstance(V, list) and V and isinstance(V[0], list) and V[0], "system.V",
                   "must be a non-empty matrix")
    Dv, m = len(V), len(V[0])
    ledger.require(Dv % H == 0, "system.V", f"its {Dv} rows (value channels) must split equally over {H} heads")
    out = obj["out"]
    if out is not None:
        ledger.require(isinstance(out, list) and out, "system.out", "must be a non-empty matrix")
    p = Dv if out is None else len(out)
    lags = 0
    if obj["conv"] is not None:
        lags += _length(ledger, obj["conv"], "system.conv", 1, MAX_TAPS) - 1
    if obj["shift"] is not None:
        lags += 1
    return n, H, dk, Dv, m, p, lags


def read_recurrent(ledger, obj, layer, n, H, dk, Dv, m, p):
    """Read a recurrent layer's numbers into ``layer`` (its sizes checked first by :func:`sizes`)."""
    kind = obj["kind"]
    ledger.require(layer["p"] == p and layer["m"] == m and layer["n"] == n, "system",
                   f"n, p, m must be {n}, {p}, {m} (the tokens, the outputs, the columns of V)")
    spec = HEADS[kind]
    heads = []
    for h, head in enumerate(obj["heads"]):
        where = f"system.heads[{h}]"
        keys(ledger, head, where, tuple(f for f, _, _ in spec))
        f = {}
        for field, shape, required in spec:
            value = head[field]
            if value is None:
                ledger.require(not required, f"{where}.{field}", "is required")
                f[field] = None
            elif shape == _R:
                f[field] = matrix(ledger, value, f"{where}.{field}", n, dk)
            elif shape == _T:
                f[field] = _row(ledger, value, f"{where}.{field}", n)
                if field == "den":
                    ledger.require(all(x != 0 for x in f[field]), f"{where}.den", "must be nonzero at every token")
            elif shape == _V:
                f[field] = _row(ledger, value, f"{where}.{field}", dk)
            else:
                f[field] = rational(ledger, value, f"{where}.{field}")
        heads.append(f)
    layer["heads"] = heads
    layer["V"] = matrix(ledger, obj["V"], "system.V", Dv, m)
    layer["out"] = None if obj["out"] is None else matrix(ledger, obj["out"], "system.out", p, Dv)
    layer["gate"] = None if obj["gate"] is None else matrix(ledger, obj["gate"], "system.gate", n, Dv)
    layer["shift"] = None if obj["shift"] is None else matrix(ledger, obj["shift"], "system.shift", n, m)
    layer["conv"] = None if obj["conv"] is None else matrix(ledger, obj["conv"], "system.conv", len(obj["conv"]), Dv)
    layer["value_gate"] = None if obj["value_gate"] is None else matrix(ledger, obj["value_gate"], "system.value_gate",
                                                                        n, Dv)
    norm = obj["norm"]
    if norm is None:
        layer["norm"] = None
    else:
        keys(ledger, norm, "system.norm", ("scale", "weight", "center", "after_gate"))
        scale = norm["scale"]
        ledger.require(isinstance(scale, list) and scale and isinstance(scale[0], list) and scale[0],
                       "system.norm.scale", "must be a non-empty matrix")
        G = len(scale[0])
        ledger.require(Dv % G == 0, "system.norm.scale", f"its {G} groups must divide the {Dv} value channels")
        # by identity: 1 == True in Python, and the format writes JSON booleans
        ledger.require(norm["center"] is True or norm["center"] is False, "system.norm.center", "must be true or false")
        ledger.require(norm["after_gate"] is True or norm["after_gate"] is False, "system.norm.after_gate",
                       "must be true or false")
        layer["norm"] = {"scale": matrix(ledger, scale, "system.norm.scale", n, G),
                         "weight": None if norm["weight"] is None else
                         matrix(ledger, norm["weight"], "system.norm.weight", 1, Dv)[0],
                         "center": norm["center"], "after_gate": norm["after_gate"]}


def recurrent_entries(layer):
    """Every number of a recurrent layer (for the size charge)."""
    out = []
    for f in layer["heads"]:
        for value in f.values():
            if isinstance(value, list):
                for x in value:
                    out.extend(x if isinstance(x, list) else [x])
            elif value is not None:
                out.append(value)
    for key in ("V", "out", "gate", "shift", "conv", "value_gate"):
        for row in layer[key] or ():
            out.extend(row)
    if layer["norm"] is not None:
        for row in layer["norm"]["scale"]:
            out.extend(row)
        out.extend(layer["norm"]["weight"] or ())
    return out


def _known(obj, names, where):
    """Refuse a spec object with a field the generator's reader refuses (the hash would describe another layer)."""
    if not isinstance(obj, dict):
        raise TypeError(f"{where or 'the spec'} must be an object")
    unknown = sorted(k for k in obj if k not in names)
    if unknown:
        raise TypeError(f"unknown field {where}{str(unknown[0])[:40]}")


def canonical_recurrent(spec, canon):
    """The certificate's ``"system"`` fields of a recurrent layer spec (absent fields null), numbers canonical."""
    kind = spec["kind"]
    _known(spec, ("kind", "name") + FIELDS, "")
    names = tuple(field for field, _, _ in HEADS[kind])
    for h, head in enumerate(spec["heads"]):
        _known(head, names, f"heads[{h}].")
    heads = [{field: canon(head.get(field)) for field, _, _ in HEADS[kind]} for head in spec["heads"]]
    out = {"heads": heads}
    for key in FIELDS[1:]:
        value = spec.get(key)
        if key == "norm" and value is not None:
            _known(value, ("scale", "weight", "center", "after_gate"), "norm.")
            flags = {}
            for flag in ("center", "after_gate"):
                if value.get(flag) not in (None, True, False) or type(value.get(flag)) not in (type(None), bool):
                    raise TypeError(f"norm.{flag} must be true or false")
                flags[flag] = value.get(flag) is True
            out[key] = {"scale": canon(value["scale"]), "weight": canon(value.get("weight")), **flags}
        else:
            out[key] = canon(value)
    first = heads[0]
    rows = [first[f] for f, shape, _ in HEADS[kind] if shape in (_T, _R) and first[f] is not None]
    out["n"] = len(rows[0])
    out["m"] = len(out["V"][0])
    out["p"] = len(out["V"]) if out["out"] is None else len(out["out"])
    return out


# ---------------------------------------------------------------- the blocks, from each kind's recurrence

def _dot(u, v):
    return sum((a * b for a, b in zip(u, v)), _ZERO)


def _carry(kind, f, t, w):
    """The key-side vector ``w`` carried through token t's transition (0-based t)."""
    if kind == "mamba2-ssd":
        return [f["a"][t] * x for x in w]
    if kind == "retnet":
        return [f["gamma"] * x for x in w]
    if kind == "gla":
        return [a * x for a, x in zip(f["alpha"][t], w)]
    if kind in ("deltanet", "gated-deltanet"):
        k = f["k"][t]
        s = f["beta"][t] * _dot(k, w)
        alpha = f["alpha"][t] if kind == "gated-deltanet" else _ONE
        return [alpha * (x - s * y) for x, y in zip(w, k)]
    if kind == "kda":  # (I - beta_t k_t k_t^T) diag(alpha_t)
        k = f["k"][t]
        w = [a * x for a, x in zip(f["alpha"][t], w)]
        s = f["beta"][t] * _dot(k, w)
        return [x - s * y for x, y in zip(w, k)]
    if kind == "rwkv6":
        return [a * x for a, x in zip(f["w"][t], w)]
    if kind == "rwkv7":  # S_t = S_{t-1}(diag(w_t) + a_t b_t^T): on the key side, diag(w_t) + b_t a_t^T
        s = _dot(f["a"][t], w)
        return [a * x + b * s for a, x, b in zip(f["w"][t], w, f["b"][t])]
    return [f["f"][t] * x for x in w]  # mlstm


def _written(kind, f, j):
    """The key-side vector token j writes (with its value)."""
    if kind == "mamba2-ssd":
        dt = _ONE if f["dt"] is None else f["dt"][j]
        return [dt * x for x in f["B"][j]]
    if kind in ("deltanet", "gated-deltanet", "kda"):
        return [f["beta"][j] * x for x in f["k"][j]]
    if kind == "mlstm":
        return [f["i"][j] * x for x in f["k"][j]]
    return list(f["k"][j])


def _read_out(kind, f, i):
    """The key-side vector token i reads the state with."""
    if kind == "mamba2-ssd":
        return f["C"][i]
    if kind in ("rwkv6", "rwkv7"):
        return f["r"][i]
    if kind == "mlstm":
        den = _ONE if f["den"] is None else f["den"][i]
        return [x / den for x in f["q"][i]]
    return f["q"][i]


def _own(kind, f, i):
    """``c_ii``: token i's own value in its output."""
    if kind == "mamba2-ssd":
        return _dot(_read_out(kind, f, i), _written(kind, f, i)) + (_ZERO if f["D"] is None else f["D"])
    if kind == "rwkv6":
        return sum((r * u * k for r, u, k in zip(f["r"][i], f["u"], f["k"][i])), _ZERO)
    return _dot(_read_out(kind, f, i), _written(kind, f, i))


def _coefficients(kind, f, n):
    c = {}
    for j in range(n):
        c[(j, j)] = _own(kind, f, j)
        w = _written(kind, f, j)
        for i in range(j + 1, n):
            if kind != "rwkv6":
                w = _carry(kind, f, i, w)
            elif i > j + 1:  # RWKV-6 reads S_{i-1}: the decays of tokens j+1 .. i-1
                w = _carry(kind, f, i - 1, w)
            c[(i, j)] = _dot(_read_out(kind, f, i), w)
    return c


def _value_maps(layer, l):
    """``{k: d v_l / d x_k}`` (Dv x m) for the tokens k that reach value l (0-based)."""
    V, shift, conv, vg = layer["V"], layer["shift"], layer["conv"], layer["value_gate"]
    Dv, m = len(V), layer["m"]
    taps = conv if conv is not None else [[_ONE] * Dv]
    out = {}

    def add(k, ch, factor, row):
        M = out.get(k)
        if M is None:  # made once per token (setdefault would build its default at every call: Dv^2)
            M = out[k] = [[_ZERO] * m for _ in range(Dv)]
        M[ch] = [a + factor * b for a, b in zip(M[ch], row)]

    for t, tap in enumerate(taps):
        s = l - t  # v_l reads u_s with tap t; u_s = V x~_s
        if s < 0:
            continue
        for ch in range(Dv):
            g = tap[ch] * (_ONE if vg is None else vg[l][ch])
            if g == 0:
                continue
            if shift is None:
                add(s, ch, g, V[ch])
            else:
                add(s, ch, g, [v * (_ONE - d) for v, d in zip(V[ch], shift[s])])
                if s >= 1:
                    add(s - 1, ch, g, [v * d for v, d in zip(V[ch], shift[s])])
    return out


def _apply_out(layer, i, z, bonus):
    """``y_i`` from the heads' outputs ``z`` (Dv x m, by columns) and the bonus term (added after the norm)."""
    Dv = len(layer["V"])
    norm, gate, out = layer["norm"], layer["gate"], layer["out"]
    g = gate[i] if gate is not None else [_ONE] * Dv

    def normed(col):
        if norm is None:
            return col
        G = len(norm["scale"][i])
        size = Dv // G
        # each group's mean once (Dv additions per column, within the charge's 2 p Dv m per block)
        means = [sum(col[g * size:(g + 1) * size], _ZERO) / size if norm["center"] else _ZERO for g in range(G)]
        res = []
        for r in range(Dv):
            grp = r // size
            w = _ONE if norm["weight"] is None else norm["weight"][r]
            res.append(w * norm["scale"][i][grp] * (col[r] - means[grp]))
        return res

    m = layer["m"]
    cols = []
    for col in range(m):
        zc = [z[ch][col] for ch in range(Dv)]
        bc = [bonus[ch][col] for ch in range(Dv)]
        if norm is not None and norm["after_gate"]:
            v = [a + b for a, b in zip(normed([x * y for x, y in zip(g, zc)]), bc)]
        else:
            v = [x * (a + b) for x, a, b in zip(g, normed(zc), bc)]
        cols.append(v if out is None else [_dot(row, v) for row in out])
    p = len(cols[0])
    return [[cols[col][r] for col in range(m)] for r in range(p)]


def recurrent_blocks(layer):
    """``{(i, j): W_ij}`` (1-based, every ``j <= i``) of a recurrent layer, from its recurrences."""
    kind, n, m = layer["kind"], layer["n"], layer["m"]
    heads = layer["heads"]
    Dv = len(layer["V"])
    dv = Dv // len(heads)
    coef = [_coefficients(kind, f, n) for f in heads]
    bonus = [[_ZERO] * n for _ in heads]
    if kind == "rwkv7":
        for h, f in enumerate(heads):
            if f["rk"] is not None:
                bonus[h] = [sum((r * p * k for r, p, k in zip(f["r"][i], f["rk"], f["k"][i])), _ZERO) for i in range(n)]
    maps = [_value_maps(layer, l) for l in range(n)]
    reach = max((l - k for l in range(n) for k in maps[l]), default=0)  # v_l depends on x_(l-reach) .. x_l
    out = {}
    for i in range(n):
        for j in range(i + 1):
            z = [[_ZERO] * m for _ in range(Dv)]
            b = [[_ZERO] * m for _ in range(Dv)]
            for l in range(j, min(i, j + reach) + 1):
                M = maps[l].get(j)
                if M is None:
                    continue
                for ch in range(Dv):
                    c = coef[ch // dv][(i, l)]
                    if c:
                        z[ch] = [x + c * y for x, y in zip(z[ch], M[ch])]
                    if l == i and bonus[ch // dv][i]:
                        b[ch] = [x + bonus[ch // dv][i] * y for x, y in zip(b[ch], M[ch])]
            out[(i + 1, j + 1)] = _apply_out(layer, i, z, b)
    return out
