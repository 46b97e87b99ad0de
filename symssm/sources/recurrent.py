"""Today's linear-recurrence layers as layer kinds of the unified framework: Mamba-2 SSD, RetNet, GLA, DeltaNet,
Gated DeltaNet, KDA, RWKV-6, RWKV-7 and mLSTM, with the wrappers that add value maps.

**The convention** (docs/framework.md, "Linear-recurrence layers").  For a fixed input ``X`` every quantity the
layer computes from ``X`` other than its value path (queries, keys, decays, gates, steps, the normaliser's
divisor, the scale of a norm, the factor ``sigma(u)`` of a SiLU on the value path) is evaluated at ``X`` and held
fixed; the layer is then linear in the tokens along the value path, ``y_i = sum_j W_ij(X) x_j``, and the identity
holds exactly at ``X`` (bias terms, the affine part, left out).  A spec gives those evaluated quantities as exact
numbers, one per token; :mod:`symssm.sources.recurrent_checkpoints` computes them from a checkpoint's tensors.

**One head** keeps a matrix state ``S_i`` (``d_k x d_v``) whose transition acts on the key side only, so every
kind has scalar coefficients ``c_ij`` and the head's output is ``o_i = sum_{j <= i} c_ij v_j``, with

    c_ij = q_i^T M_i M_{i-1} ... M_{j+1} k~_j   (j < i),        c_ii = d_i

for per-token ``M_i`` (``d_k x d_k``), ``k~_i``, ``q_i`` and a diagonal coefficient ``d_i``:

- Mamba-2 SSD: ``M_i = a_i I``, ``k~_i = dt_i B_i``, ``q_i = C_i``, ``d_i = dt_i C_i . B_i + D``;
- RetNet: ``M_i = gamma I``, ``k~_i = k_i``, ``q_i``, ``d_i = q_i . k_i``;
- GLA: ``M_i = diag(alpha_i)``, ``k~_i = k_i``, ``q_i``, ``d_i = q_i . k_i``;
- DeltaNet and Gated DeltaNet: ``M_i = alpha_i (I - beta_i k_i k_i^T)``, ``k~_i = beta_i k_i``, ``q_i``,
  ``d_i = beta_i q_i . k_i`` (DeltaNet: ``alpha_i = 1``);
- KDA (Kimi Delta Attention): ``M_i = (I - beta_i k_i k_i^T) diag(alpha_i)``, ``k~_i = beta_i k_i``, ``q_i``,
  ``d_i = beta_i q_i . k_i`` (a decay per key channel);
- RWKV-6: ``M_i = diag(w_i)``, ``k~_i = k_i``, ``q_i = r_i``, ``d_i = r_i^T diag(u) k_i``; token i reads the state
  before its own decay, so ``c_ij = r_i^T M_{i-1} ... M_{j+1} k_j``;
- RWKV-7: ``M_i = diag(w_i) + b_i a_i^T``, ``k~_i = k_i``, ``q_i = r_i``, ``d_i = r_i . k_i``; its bonus
  ``(r_i . (rk (.) k_i)) v_i`` is added after the norm, as the reference code does;
- mLSTM: ``M_i = f_i I``, ``k~_i = i_i k_i``, ``q_i / den_i``, ``d_i = i_i q_i . k_i / den_i``.

Each transition is ``diag(e_i) + u_i w_i^T`` (a diagonal and at most one rank-one term).

**The wrappers** act on the value path and on the output, shared by every kind (all optional):

- value path: ``u_k = V x~_k`` with the token shift ``x~_k = x_k + delta_k (.) (x_{k-1} - x_k)`` (``shift``, one
  row ``delta_k`` per token; ``x_0 = 0``), then a short causal convolution per value channel
  ``v_l = g_l (.) sum_t c_t (.) u_{l-t}`` (``conv``: taps ``c_0, c_1, ..`` by lag; ``value_gate``: the factors
  ``g_l``, e.g. ``sigma`` of a SiLU's argument at ``X``); head ``h`` takes channels ``h d_v .. (h+1) d_v - 1``;
- output: ``z_i = N_i(o_i)`` with a norm (``norm``: per token and group the scale ``1/rms`` or ``1/std`` at
  ``X``, a weight, the mean removed per group when ``center``), an output gate ``G_i = diag(g_i)`` (``gate``,
  before the norm when ``norm.after_gate``, after it otherwise), and ``y_i = W_O z_i`` (``out``).

So ``W_ij = Out_i sum_l C_il E_(l, l-j) + Post_i E_(i, i-j)`` with ``E_(l, s) = d v_l / d x_(l-s)``, ``C_il`` the
diagonal of the heads' ``c_il`` per channel, ``Out_i`` the output chain and ``Post_i`` RWKV-7's bonus through it.

Examples
--------
>>> from symssm.sources.layers import layer_from_data
>>> layer = layer_from_data({"kind": "gla", "V": [[1, 0], [0, 1]], "heads": [
...     {"q": [[1], [1], [2]], "k": [[1], [2], [1]], "alpha": [["1/2"], ["1/2"], ["1/3"]]}]})
>>> layer.n, layer.p, layer.m
(3, 2, 2)
"""

from fractions import Fraction

from ..errors import InputError, LimitError, ShapeError
from ..formats.rationals import format_rational, to_fraction
from .layers import MAX_LAYER_WORK, MAX_TOKENS, Layer, _check_blocks, _matrix, _sequence

__all__ = ["HEAD_FIELDS", "recurrent_work", "check_work", "head_cores", "value_taps", "output_chain", "MAX_HEADS", "MAX_TAPS"]

#: Most heads of a recurrent layer.
MAX_HEADS = 64
#: Most taps of a short convolution on the value path.
MAX_TAPS = 16

#: Each head field's shape: ``"tokens"`` (one number per token), ``"rows"`` (one vector of d_k per token),
#: ``"vector"`` (d_k numbers), ``"scalar"``; and whether the field is required.
_TOKENS, _ROWS, _VECTOR, _SCALAR = "tokens", "rows", "vector", "scalar"

#: The head fields of each kind, in the order the spec writes them: ``(field, shape, required)``.  Keyed by the
#: kind's reader (the kinds' names live only in :mod:`.layer_kinds`).
HEAD_FIELDS = {
    "read_mamba2_ssd": (("a", _TOKENS, True), ("dt", _TOKENS, False), ("B", _ROWS, True), ("C", _ROWS, True),
                   ("D", _SCALAR, False)),
    "read_retnet": (("q", _ROWS, True), ("k", _ROWS, True), ("gamma", _SCALAR, True)),
    "read_gla": (("q", _ROWS, True), ("k", _ROWS, True), ("alpha", _ROWS, True)),
    "read_deltanet": (("q", _ROWS, True), ("k", _ROWS, True), ("beta", _TOKENS, True)),
    "read_gated_deltanet": (("q", _ROWS, True), ("k", _ROWS, True), ("beta", _TOKENS, True), ("alpha", _TOKENS, True)),
    "read_kda": (("q", _ROWS, True), ("k", _ROWS, True), ("beta", _TOKENS, True), ("alpha", _ROWS, True)),
    "read_rwkv6": (("r", _ROWS, True), ("k", _ROWS, True), ("w", _ROWS, True), ("u", _VECTOR, True)),
    "read_rwkv7": (("r", _ROWS, True), ("k", _ROWS, True), ("w", _ROWS, True), ("a", _ROWS, True), ("b", _ROWS, True),
              ("rk", _VECTOR, False)),
    "read_mlstm": (("q", _ROWS, True), ("k", _ROWS, True), ("i", _TOKENS, True), ("f", _TOKENS, True),
              ("den", _TOKENS, False)),
}

#: The layer's own fields (beside ``kind``, ``name`` and ``heads``) in the order the JSON writes them.
LAYER_FIELDS = ("V", "out", "gate", "norm", "shift", "conv", "value_gate")
_NORM_FIELDS = ("scale", "weight", "center", "after_gate")


def check_work(layer):
    """Refuse a layer whose exact blocks cost more than the limit the checker shares (the numeric path has none).

    Parameters
    ----------
    layer : Layer
        A recurrent layer.

    Raises
    ------
    LimitError
        If forming its exact blocks takes more than ``MAX_LAYER_WORK`` multiply-adds.
    """
    conv, shift = layer.param("conv"), layer.param("shift")
    lags = (len(conv) - 1 if conv is not None else 0) + (1 if shift is not None else 0)
    work = recurrent_work(layer.n, layer.p, layer.m, len(layer.param("heads")), layer.param("dk"),
                          len(layer.param("V")), lags)
    if work > MAX_LAYER_WORK:
        raise LimitError(f"forming this layer's exact blocks takes about {work} multiply-adds; the limit (shared "
                         f"with the checker) is {MAX_LAYER_WORK}: use the numeric path (symssm numeric)")


def recurrent_work(n, p, m, heads, dk, dv_total, lags):
    """Multiply-adds forming a recurrent layer's blocks (the checker applies the same formula).

    Parameters
    ----------
    n, p, m : int
        Tokens, outputs, inputs.
    heads, dk, dv_total : int
        Heads, the key width of a head, the value channels of all heads.
    lags : int
        ``K``: the value path reaches ``x_{l-K} .. x_l`` (taps - 1, plus 1 with a token shift).

    Returns
    -------
    int

    Examples
    --------
    >>> recurrent_work(4, 2, 2, 1, 1, 2, 0)
    240
    """
    pairs = n * (n + 1) // 2
    return pairs * (4 * heads * dk + (lags + 1 + 2 * p) * dv_total * m)


# ---------------------------------------------------------------- reading

def _number(value, what):
    return to_fraction(value, what=what)


def _numbers(value, what, count=None):
    if not isinstance(value, (list, tuple)) or not value:
        raise InputError(f"{what} must be a non-empty list of numbers")
    if count is not None and len(value) != count:
        raise ShapeError(f"{what} has {len(value)} entries but must have {count}")
    if len(value) > max(MAX_TOKENS, 4096):
        raise LimitError(f"{what} has {len(value)} entries; the limit is {max(MAX_TOKENS, 4096)}")
    return tuple(_number(x, f"{what}[{t}]") for t, x in enumerate(value))


def _read_head(head, h, fields, n, dk):
    """One head's fields as exact values; ``n`` and ``dk`` fixed by the first head (None: read them here)."""
    where = f"heads[{h}]"
    names = [f for f, _, _ in fields]
    if not isinstance(head, dict):
        raise InputError(f"{where} must be an object with the fields {', '.join(names)}")
    unknown = sorted(set(head) - set(names))
    if unknown:
        raise InputError(f"{where}: unknown field {unknown[0][:40]!r}; a head has {', '.join(names)}")
    out = {}
    for field, shape, required in fields:
        value = head.get(field)
        if value is None:
            if required:
                raise InputError(f"{where} needs the field {field!r}")
            out[field] = None
            continue
        what = f"{where}.{field}"
        if shape == _ROWS:
            rows = _matrix(_sequence(value, what), what)
            n = len(rows) if n is None else n
            dk = len(rows[0]) if dk is None else dk
            out[field] = _matrix(value, what, (n, dk))
        elif shape == _TOKENS:
            seq = _numbers(_sequence(value, what), what)
            n = len(seq) if n is None else n
            if len(seq) != n:
                raise ShapeError(f"{what} lists {len(seq)} numbers but the layer has {n} tokens")
            out[field] = seq
        elif shape == _VECTOR:
            out[field] = _numbers(value, what)
        else:
            out[field] = _number(value, what)
    if out.get("den") is not None and any(x == 0 for x in out["den"]):
        raise InputError(f"{where}.den: the normaliser's divisor must be nonzero at every token")
    for field, shape, _ in fields:  # vectors of d_k once d_k is known
        if shape == _VECTOR and out[field] is not None and dk is not None and len(out[field]) != dk:
            raise ShapeError(f"{where}.{field} has {len(out[field])} entries but d_k = {dk}")
    return out, n, dk


def _read_norm(value, n, dv_total):
    if not isinstance(value, dict) or set(value) - set(_NORM_FIELDS) or "scale" not in value:
        raise InputError("norm must be an object with scale (one row per token, one column per group) and "
                         "optional weight, center, after_gate")
    scale = _matrix(_sequence(value["scale"], "norm.scale"), "norm.scale")
    groups = len(scale[0])
    if len(scale) != n:
        raise ShapeError(f"norm.scale has {len(scale)} rows but the layer has {n} tokens")
    if dv_total % groups:
        raise ShapeError(f"norm.scale has {groups} groups, which do not divide the {dv_total} value channels")
    weight = value.get("weight")
    weight = None if weight is None else _matrix(weight, "norm.weight", (1, dv_total))
    flags = {}
    for key in ("center", "after_gate"):
        flag = value.get(key, False)
        if flag is None:
            flag = False
        if not isinstance(flag, bool):
            raise InputError(f"norm.{key} must be true or false")
        flags[key] = flag
    return (("scale", scale), ("weight", weight), ("center", flags["center"]), ("after_gate", flags["after_gate"]))


def _read(data, name, fields):
    heads_data = _sequence(data["heads"], "heads", limit=MAX_HEADS)
    heads, n, dk = [], None, None
    for h, head in enumerate(heads_data):
        values, n, dk = _read_head(head, h, fields, n, dk)
        heads.append(values)
    if n is None:
        raise InputError("a head must list at least one per-token field")
    if n > MAX_TOKENS:
        raise LimitError(f"the layer has {n} tokens; the limit is {MAX_TOKENS}")
    dk = 1 if dk is None else dk
    V = _matrix(data["V"], "V")
    dv_total, m = len(V), len(V[0])
    H = len(heads)
    if dv_total % H:
        raise ShapeError(f"V has {dv_total} value channels, which the {H} heads cannot share equally")
    out = data.get("out")
    out = None if out is None else _matrix(out, "out")
    if out is not None and len(out[0]) != dv_total:
        raise ShapeError(f"out is {len(out)}x{len(out[0])} but must have {dv_total} columns (the value channels)")
    p = dv_total if out is None else len(out)
    gate = data.get("gate")
    gate = None if gate is None else _matrix(gate, "gate", (n, dv_total))
    norm = data.get("norm")
    norm = None if norm is None else _read_norm(norm, n, dv_total)
    shift = data.get("shift")
    shift = None if shift is None else _matrix(shift, "shift", (n, m))
    conv = data.get("conv")
    if conv is not None:
        conv = _matrix(_sequence(conv, "conv", limit=MAX_TAPS), "conv")
        conv = _matrix(conv, "conv", (len(conv), dv_total))
    value_gate = data.get("value_gate")
    value_gate = None if value_gate is None else _matrix(value_gate, "value_gate", (n, dv_total))
    _check_blocks(n, n * (n + 1) // 2)
    heads = tuple(tuple((f, head[f]) for f, _, _ in fields) for head in heads)
    params = (("heads", heads), ("V", V), ("out", out), ("gate", gate), ("norm", norm), ("shift", shift),
              ("conv", conv), ("value_gate", value_gate), ("dk", dk))
    return Layer(data["kind"], n, p, m, params, name)


def read_mamba2_ssd(data, name):
    """A Mamba-2 SSD layer: per head the decays ``a``, optional steps ``dt``, ``B``, ``C`` per token, skip ``D``."""
    return _read(data, name, HEAD_FIELDS["read_mamba2_ssd"])


def read_retnet(data, name):
    """A RetNet (multi-scale retention) layer: per head ``q``, ``k`` per token and the fixed decay ``gamma``."""
    return _read(data, name, HEAD_FIELDS["read_retnet"])


def read_gla(data, name):
    """A gated linear attention layer: per head ``q``, ``k`` and the key gate ``alpha`` per token."""
    return _read(data, name, HEAD_FIELDS["read_gla"])


def read_deltanet(data, name):
    """A DeltaNet layer: per head ``q``, ``k`` and the writing strength ``beta`` per token."""
    return _read(data, name, HEAD_FIELDS["read_deltanet"])


def read_gated_deltanet(data, name):
    """A Gated DeltaNet layer: DeltaNet's fields and the scalar decay ``alpha`` per token."""
    return _read(data, name, HEAD_FIELDS["read_gated_deltanet"])


def read_kda(data, name):
    """A Kimi Delta Attention layer: DeltaNet's fields and the decay ``alpha`` per token and key channel."""
    return _read(data, name, HEAD_FIELDS["read_kda"])


def read_rwkv6(data, name):
    """An RWKV-6 time-mix layer: per head ``r``, ``k``, the decay ``w`` per token and the bonus ``u``."""
    return _read(data, name, HEAD_FIELDS["read_rwkv6"])


def read_rwkv7(data, name):
    """An RWKV-7 time-mix layer: per head ``r``, ``k``, ``w``, ``a``, ``b`` per token and the bonus weight ``rk``."""
    return _read(data, name, HEAD_FIELDS["read_rwkv7"])


def read_mlstm(data, name):
    """An mLSTM layer: per head ``q``, ``k``, the input and forget gates ``i``, ``f`` and the divisor ``den``."""
    return _read(data, name, HEAD_FIELDS["read_mlstm"])


# ---------------------------------------------------------------- writing

def _text(M):
    return [[format_rational(x) for x in row] for row in M]


def _field_json(value):
    if value is None:
        return None
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):
        return _text(value)
    if isinstance(value, tuple):
        return [format_rational(x) for x in value]
    return format_rational(value)


def recurrent_json(params):
    """A recurrent layer's own fields as JSON: ``heads`` (every field of the kind, null where absent), the wrappers."""
    out = {"heads": [{f: _field_json(v) for f, v in head} for head in params["heads"]]}
    for key in LAYER_FIELDS:
        value = params[key]
        if key == "norm" and value is not None:
            norm = dict(value)
            weight = None if norm["weight"] is None else _text(norm["weight"])
            out[key] = {"scale": _text(norm["scale"]), "weight": weight, "center": norm["center"],
                        "after_gate": norm["after_gate"]}
        else:
            out[key] = None if value is None else _text(value)
    return out


# ---------------------------------------------------------------- the shared structure (exact or float numbers)

def _dot(u, v, zero):
    return sum((a * b for a, b in zip(u, v)), zero)


def head_cores(layer, convert=None):
    """Per head and token, ``(e_i, u_i, w_i, k~_i, q_i, d_i, post_i, before)``: ``M_i = diag(e_i) + u_i w_i^T``.

    ``u_i``, ``w_i`` are None where ``M_i`` is diagonal; ``post_i`` is RWKV-7's bonus coefficient added after the
    norm (0 for the other kinds); ``before`` is True where token i reads the state before its own transition
    (RWKV-6: ``c_ij = q_i^T M_{i-1} ... M_{j+1} k~_j``).  ``convert`` maps each number first (``float`` for the
    numeric path).

    Parameters
    ----------
    layer : Layer
        A recurrent layer.
    convert : callable, optional
        Applied to every number (default: the exact Fractions as they are).

    Returns
    -------
    list
        One list per head of one tuple per token.
    """
    c = convert or (lambda x: x)
    n, dk = layer.n, layer.param("dk")
    one, zero = c(Fraction(1)), c(Fraction(0))
    out = []
    for head in layer.param("heads"):
        f = {key: _convert(value, c) for key, value in head}
        rows = []
        for i in range(n):
            rows.append(_core(f, i, n, dk, one, zero))
        out.append(rows)
    return out


def _convert(value, c):
    if value is None:
        return None
    if isinstance(value, tuple) and value and isinstance(value[0], tuple):
        return tuple(tuple(c(x) for x in row) for row in value)
    if isinstance(value, tuple):
        return tuple(c(x) for x in value)
    return c(value)


def _core(f, i, n, dk, one, zero):
    """The per-token core of one head from its fields (the kind is told by its field names)."""
    keys = set(f)
    if "gamma" in keys:  # RetNet: M = gamma I
        q, k = f["q"][i], f["k"][i]
        return tuple(f["gamma"] for _ in range(dk)), None, None, k, q, _dot(q, k, zero), zero, False
    if "B" in keys:  # Mamba-2 SSD: M = a_i I, k~ = dt_i B_i, q = C_i, d = dt_i C_i . B_i + D
        dt = one if f["dt"] is None else f["dt"][i]
        kt = tuple(dt * x for x in f["B"][i])
        q = f["C"][i]
        d = _dot(q, kt, zero) + (zero if f["D"] is None else f["D"])
        return tuple(f["a"][i] for _ in range(dk)), None, None, kt, q, d, zero, False
    if "beta" in keys and isinstance(f["alpha"][i] if f.get("alpha") is not None else None, tuple):
        # KDA: M = (I - beta_i k_i k_i^T) diag(alpha_i) = diag(alpha_i) - beta_i k_i (alpha_i (.) k_i)^T
        q, k, beta, alpha = f["q"][i], f["k"][i], f["beta"][i], f["alpha"][i]
        kt = tuple(beta * x for x in k)
        return (alpha, tuple(-beta * x for x in k), tuple(a * x for a, x in zip(alpha, k)), kt, q,
                _dot(q, kt, zero), zero, False)
    if "beta" in keys:  # (Gated) DeltaNet: M = alpha_i (I - beta_i k_i k_i^T), k~ = beta_i k_i
        alpha = f["alpha"][i] if f.get("alpha") is not None else one
        q, k, beta = f["q"][i], f["k"][i], f["beta"][i]
        kt = tuple(beta * x for x in k)
        return (tuple(alpha for _ in range(dk)), tuple(-alpha * beta * x for x in k), k, kt, q,
                _dot(q, kt, zero), zero, False)
    if "u" in keys:  # RWKV-6: c_ij = r_i^T diag(w_{i-1}) ... diag(w_{j+1}) k_j (the state before token i's decay)
        r, k = f["r"][i], f["k"][i]
        return f["w"][i], None, None, k, r, sum((a * b * c for a, b, c in zip(r, f["u"], k)), zero), zero, True
    if "rk" in keys:  # RWKV-7: M_i = diag(w_i) + b_i a_i^T; bonus (r_i . (rk (.) k_i)) after the norm
        r, k = f["r"][i], f["k"][i]
        post = zero if f["rk"] is None else sum((a * b * c for a, b, c in zip(r, f["rk"], k)), zero)
        return f["w"][i], f["b"][i], f["a"][i], k, r, _dot(r, k, zero), post, False
    if "den" in keys:  # mLSTM: M = f_i I, k~ = i_i k_i, q = q_i / den_i
        den = one if f["den"] is None else f["den"][i]
        q = tuple(x / den for x in f["q"][i])
        kt = tuple(f["i"][i] * x for x in f["k"][i])
        return tuple(f["f"][i] for _ in range(dk)), None, None, kt, q, _dot(q, kt, zero), zero, False
    # GLA: M = diag(alpha_i)
    q, k = f["q"][i], f["k"][i]
    return f["alpha"][i], None, None, k, q, _dot(q, k, zero), zero, False


def coefficients(cores, zero):
    """The head's coefficients ``c[i][j]`` (0-based, ``j <= i``) from its per-token cores."""
    n = len(cores)
    c = [[zero] * n for _ in range(n)]

    def carry(core, w):
        e, u, v = core[:3]
        if u is None:
            return tuple(a * b for a, b in zip(e, w))
        s = _dot(v, w, zero)
        return tuple(a * b + x * s for a, b, x in zip(e, w, u))

    for j in range(n):
        c[j][j] = cores[j][5]
        w = cores[j][3]
        for i in range(j + 1, n):
            if cores[i][7]:  # token i reads the state before its transition: M_{i-1} ... M_{j+1}
                if i > j + 1:
                    w = carry(cores[i - 1], w)
            else:
                w = carry(cores[i], w)
            c[i][j] = _dot(cores[i][4], w, zero)
    return c


def value_taps(layer, convert=None):
    """``E[l][s] = d v_l / d x_(l-s)`` (``Dv x m``, 0-based tokens) for ``s = 0 .. K``: the value path's maps.

    Parameters
    ----------
    layer : Layer
        A recurrent layer.
    convert : callable, optional
        Applied to every number.

    Returns
    -------
    list
        ``E[l]`` lists ``K + 1`` matrices (tuples of rows), zero where ``l - s < 0``.
    """
    c = convert or (lambda x: x)
    V = _convert(layer.param("V"), c)
    n, m = layer.n, layer.m
    Dv = len(V)
    zero, one = c(Fraction(0)), c(Fraction(1))
    shift = _convert(layer.param("shift"), c)
    conv = _convert(layer.param("conv"), c)
    vg = _convert(layer.param("value_gate"), c)
    taps = conv if conv is not None else (tuple(one for _ in range(Dv)),)
    K = len(taps) - 1 + (1 if shift is not None else 0)

    def u_map(k, s):
        """d u_k / d x_(k-s): V (1 - delta_k) at s = 0, V delta_k at s = 1 (a token shift)."""
        if shift is None:
            return V if s == 0 else None
        if s == 0:
            return tuple(tuple(v * (one - d) for v, d in zip(row, shift[k])) for row in V)
        return tuple(tuple(v * d for v, d in zip(row, shift[k])) for row in V) if k >= 1 else None

    E = []
    for l in range(n):
        maps = [[[zero] * m for _ in range(Dv)] for _ in range(K + 1)]
        for t, tap in enumerate(taps):
            k = l - t
            if k < 0:
                continue
            for s_u in (0, 1):
                U = u_map(k, s_u)
                if U is None:
                    continue
                s = t + s_u
                target = maps[s]
                for ch in range(Dv):
                    if tap[ch] == zero:
                        continue
                    row, factor = target[ch], tap[ch]
                    for col in range(m):
                        row[col] = row[col] + factor * U[ch][col]
        if vg is not None:
            for s in range(K + 1):
                maps[s] = [[vg[l][ch] * x for x in maps[s][ch]] for ch in range(Dv)]
        E.append([tuple(tuple(r) for r in M) for M in maps])
    return E


def output_chain(layer, convert=None):
    """Per token ``(Out_i, Post_i)``: the maps from the heads' outputs and from RWKV-7's bonus to ``y_i`` (``p x Dv``).

    ``Out_i = W_O G_i N_i`` (the norm first) or ``W_O N_i G_i`` (``norm.after_gate``), ``N_i`` the norm at ``X``
    (per group: weight, scale, the mean removed when centred); ``Post_i = W_O G_i`` or ``W_O`` (the bonus skips
    the norm).  Missing wrappers are identities.

    Parameters
    ----------
    layer : Layer
        A recurrent layer.
    convert : callable, optional
        Applied to every number.

    Returns
    -------
    list of (tuple, tuple)
    """
    c = convert or (lambda x: x)
    Dv = len(layer.param("V"))
    zero, one = c(Fraction(0)), c(Fraction(1))
    W_O = _convert(layer.param("out"), c)
    gate = _convert(layer.param("gate"), c)
    norm = layer.param("norm")
    after_gate = bool(norm) and dict(norm)["after_gate"]
    identity = tuple(tuple(one if r == s else zero for s in range(Dv)) for r in range(Dv))
    out = []
    for i in range(layer.n):
        G = tuple(one for _ in range(Dv)) if gate is None else gate[i]
        N = identity if norm is None else _norm_matrix(dict(norm), i, Dv, c, zero, one)
        if after_gate:
            chain = tuple(tuple(N[r][s] * G[s] for s in range(Dv)) for r in range(Dv))
            post = identity
        else:
            chain = tuple(tuple(G[r] * N[r][s] for s in range(Dv)) for r in range(Dv))
            post = tuple(tuple(G[r] if r == s else zero for s in range(Dv)) for r in range(Dv))
        if W_O is not None:
            chain = _mul(W_O, chain, zero)
            post = _mul(W_O, post, zero)
        out.append((chain, post))
    return out


def _norm_matrix(norm, i, Dv, c, zero, one):
    scale = tuple(c(x) for x in norm["scale"][i])
    groups = len(scale)
    size = Dv // groups
    weight = tuple(one for _ in range(Dv)) if norm["weight"] is None else tuple(c(x) for x in norm["weight"][0])
    rows = []
    for r in range(Dv):
        g = r // size
        row = []
        for s in range(Dv):
            if s // size != g:
                row.append(zero)
                continue
            entry = (one if r == s else zero) - (one / c(Fraction(size)) if norm["center"] else zero)
            row.append(weight[r] * scale[g] * entry)
        rows.append(tuple(row))
    return tuple(rows)


def _mul(X, Y, zero):
    cols = list(zip(*Y))
    return tuple(tuple(sum((a * b for a, b in zip(row, col)), zero) for col in cols) for row in X)
