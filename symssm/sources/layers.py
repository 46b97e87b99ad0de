"""Sequence layers of the unified framework, with a concrete exact input: ``y_i = sum_j W_ij(X) x_j``.

Each layer is a small immutable :class:`Layer`; its interaction operator's blocks ``W_ij`` are
computed in :mod:`symssm.exact.interaction`.  Kinds (spec field ``"kind"``; tokens are numbered
from 1):

``"selective-ssm"``
    per-token ``A_i`` (N x N), ``B_i`` (N x m), ``C_i`` (p x N), optional ``D_i`` (p x m):
    ``h_i = A_i h_{i-1} + B_i x_i``, ``y_i = C_i h_i + D_i x_i``, so
    ``W_ij = C_i A_i ... A_{j+1} B_j`` (j < i) and ``W_ii = C_i B_i + D_i``.
``"convolution"``
    taps ``K_0 .. K_{L-1}`` (p x m) and a length ``n``: ``W_ij = K_{i-j}`` for ``0 <= i - j < L``.
``"linear-attention"``
    tokens ``X = [x_1 .. x_n]`` (each in Q^m) and heads ``{"Q", "K", "V"}`` (Q, K: d x m; V: p x m,
    the composite output-value map): ``W_ij = sum_h (Q_h x_i . K_h x_j) V_h`` for ``j <= i``.
``"softmax-attention"``
    the same fields; ``W_ij = sum_h a^h_ij V_h`` with ``a^h_ij = exp(s^h_ij) / sum_{l <= i} exp(s^h_il)``,
    ``s^h_ij = Q_h x_i . K_h x_j`` (irrational in general).
``"operator"``
    the blocks given directly: ``{"n", "p", "m", "blocks": [{"i", "j", "W"}, ...]}``; blocks not
    listed are zero, and any pair ``1 <= i, j <= n`` may be listed (non-causal layers too).

Examples
--------
>>> conv = layer_from_data({"kind": "convolution", "n": 4, "kernel": [[[1]], [[2]], [[4]]]})
>>> conv.kind, conv.n, conv.p, conv.m
('convolution', 4, 1, 1)
"""

import hashlib
from dataclasses import dataclass, field
from fractions import Fraction

from ..errors import InputError, LimitError, ShapeError
from ..formats.jsonio import dumps_canonical, load_strict, loads_strict
from ..formats.limits import MAX_DIM, check_n, check_name
from ..formats.rationals import format_rational, to_fraction
from . import layer_kinds
from .system import SSM

__all__ = ["Layer", "LAYER_KINDS", "MAX_TOKENS", "MAX_BLOCKS", "MAX_LAYER_WORK", "layer_work", "layer_from_data", "loads_layer", "read_layer",
           "layer_json", "selective_from_ssm", "mamba2_scalar_gate", "mamba2_layer", "selective_bilinear",
           "is_layer_spec"]

#: The layer kinds' names (the rows of :mod:`symssm.sources.layer_kinds`).
LAYER_KINDS = layer_kinds.names()
#: Longest input sequence of a layer certificate (the blocks grow like n^2).
MAX_TOKENS = 256
#: Most blocks an interaction operator may have (the checker has the same limit).
MAX_BLOCKS = 20_000
#: Most multiply-adds forming the blocks may take (the checker has the same limit and formula).
MAX_LAYER_WORK = 1_000_000
#: Longest input of a softmax-attention certificate (interval arithmetic on every weight).
MAX_SOFTMAX_TOKENS = 64


def layer_work(kind, n, p, m, extra):
    """Multiply-adds needed to form the blocks: ``extra`` is N (a selective SSM), (heads, d) (attention) or None.

    Parameters
    ----------
    kind : str
        The layer's kind (the formula follows ``extra``, which each kind's reader gives).
    n, p, m : int
        Tokens, outputs and inputs.
    extra : int, tuple or None
        N (a selective SSM), ``(heads, d)`` (attention), None (blocks given or copied: one per pair).

    Returns
    -------
    int
    """
    pairs = n * (n + 1) // 2
    if isinstance(extra, tuple):
        heads, d = extra
        return pairs * heads * (p * m + 1) + n * heads * d * m * 2
    if extra:
        N = extra
        return pairs * (N * N * m + p * N * m)
    return pairs


def _check_work(kind, n, p, m, extra):
    work = layer_work(kind, n, p, m, extra)
    if work > MAX_LAYER_WORK:
        raise LimitError(f"forming this layer's blocks takes about {work} multiply-adds; the limit is {MAX_LAYER_WORK}")

@dataclass(frozen=True)
class Layer:
    """A layer with its concrete input: kind, sizes and exact parameters (tuples of Fractions).

    ``params`` depends on the kind: ``{"A": (A_1, ...), "B": ..., "C": ..., "D": ... or None}``,
    ``{"kernel": (K_0, ...)}``, ``{"X": (x_1, ...), "heads": ((Q, K, V), ...)}`` or
    ``{"blocks": (((i, j), W), ...)}``.  Build it with :func:`layer_from_data` or the helpers.
    """

    kind: str
    n: int
    p: int
    m: int
    params: tuple
    name: str = field(default="", compare=False)

    def param(self, key):
        """One parameter by name."""
        return dict(self.params)[key]

    @property
    def canonical_text(self):
        """The canonical JSON of the layer without its name (hashed into certificates)."""
        data = layer_json(self)
        data.pop("name")
        return dumps_canonical(data)

    @property
    def sha256(self):
        """SHA-256 (hex) of :attr:`canonical_text`."""
        return hashlib.sha256(self.canonical_text.encode("ascii")).hexdigest()

    def __repr__(self):
        label = f" {self.name!r}" if self.name else ""
        return f"<Layer {self.kind}{label} n={self.n} p={self.p} m={self.m}>"


def _matrix(value, what, shape=None):
    if isinstance(value, SSM):
        raise InputError(f"{what} must be a matrix, got an SSM")
    if hasattr(value, "tolist") and hasattr(value, "shape"):
        from .system import _is_inexact

        if hasattr(value, "dtype") and _is_inexact(value.dtype):
            raise InputError(f"{what} is a float array; the exact path takes integers, fractions or strings")
        value = value.tolist()
    if not isinstance(value, (list, tuple)) or not value or not all(isinstance(r, (list, tuple)) for r in value):
        raise InputError(f"{what} must be a non-empty matrix (a list of rows)")
    width = len(value[0])
    if width == 0 or any(len(r) != width for r in value):
        raise ShapeError(f"{what} must be rectangular with at least one column")
    if len(value) > MAX_DIM or width > MAX_DIM:
        raise LimitError(f"{what} is {len(value)}x{width}; the limit is {MAX_DIM} per dimension")
    out = tuple(tuple(to_fraction(x, what=f"{what}[{i}][{j}]") for j, x in enumerate(row))
                for i, row in enumerate(value))
    if shape is not None and (len(out), width) != shape:
        raise ShapeError(f"{what} is {len(out)}x{width} but must be {shape[0]}x{shape[1]}")
    return out


def _sequence(value, what, limit=MAX_TOKENS):
    if not isinstance(value, (list, tuple)) or not value:
        raise InputError(f"{what} must be a non-empty list")
    if len(value) > limit:
        raise LimitError(f"{what} has {len(value)} items; the limit is {limit}")
    return value


def _check_blocks(n, count):
    if count > MAX_BLOCKS:
        raise LimitError(f"the operator would have {count} blocks; the limit is {MAX_BLOCKS} (n = {n})")


def layer_from_data(data, *, what="layer"):
    """Validate a layer spec (parsed JSON) and build the :class:`Layer`.

    Parameters
    ----------
    data : object
        Parsed layer JSON (its ``"kind"`` names one of :data:`LAYER_KINDS`).
    what : str
        How messages name it.

    Returns
    -------
    Layer

    Raises
    ------
    InputError
        An unknown kind or field, a missing field, wrong shapes, or limits exceeded (the message
        names the field).

    Examples
    --------
    >>> layer = layer_from_data({"kind": "convolution", "n": 3, "kernel": [[[1, 0]], [[2, 1]]]})
    >>> layer.kind, layer.n, layer.p, layer.m
    ('convolution', 3, 1, 2)
    """
    if not isinstance(data, dict):
        raise InputError(f"{what} must be a JSON object")
    kind = data.get("kind")
    try:
        row = layer_kinds.of(kind if isinstance(kind, str) else repr(kind))
    except InputError as exc:
        raise InputError(f"{what}: {exc}") from None
    required, optional = row.required, row.optional
    missing = sorted(required - set(data))
    if missing:
        raise InputError(f"{what}: a {kind} layer needs the field {missing[0]!r}")
    unknown = sorted(set(data) - required - optional)
    if "parameters" in unknown:
        raise InputError(f"{what}: a layer with parameters is a theorem for every input: read it with "
                         "symssm.parametric_layer (symssm certify does this by itself)")
    if unknown:
        raise InputError(f"{what}: unknown field {unknown[0][:40]!r} for a {kind} layer")
    name = check_name(data.get("name", ""), what=f"{what}: name")
    try:
        return row.load("reader")(data, name)
    except InputError as exc:
        exc.args = (f"{what}: {exc}",)
        raise


def read_selective(data, name):
    """The :class:`Layer` of a selective SSM's validated spec data (``A``, ``B``, ``C``, optional ``D``, per token)."""
    kind = data["kind"]
    As = _sequence(data["A"], "A")
    n = len(As)
    Bs, Cs = _sequence(data["B"], "B"), _sequence(data["C"], "C")
    Ds = data.get("D")
    A = tuple(_matrix(M, f"A[{i}]") for i, M in enumerate(As))
    N = len(A[0])
    A = tuple(_matrix(M, f"A[{i}]", (N, N)) for i, M in enumerate(As))
    if len(Bs) != n or len(Cs) != n or (Ds is not None and len(_sequence(Ds, "D")) != n):
        raise ShapeError(f"A, B, C (and D) must list one matrix per token: A has {n}")
    B = tuple(_matrix(M, f"B[{i}]") for i, M in enumerate(Bs))
    m = len(B[0][0])
    B = tuple(_matrix(M, f"B[{i}]", (N, m)) for i, M in enumerate(Bs))
    C = tuple(_matrix(M, f"C[{i}]") for i, M in enumerate(Cs))
    p = len(C[0])
    C = tuple(_matrix(M, f"C[{i}]", (p, N)) for i, M in enumerate(Cs))
    D = None if Ds is None else tuple(_matrix(M, f"D[{i}]", (p, m)) for i, M in enumerate(Ds))
    _check_blocks(n, n * (n + 1) // 2)
    _check_work(kind, n, p, m, N)
    return Layer(kind, n, p, m, (("A", A), ("B", B), ("C", C), ("D", D)), name)


def read_convolution(data, name):
    """The :class:`Layer` of a convolution's validated spec data (taps ``kernel`` and a length ``n``)."""
    taps = _sequence(data["kernel"], "kernel")
    K0 = _matrix(taps[0], "kernel[0]")
    p, m = len(K0), len(K0[0])
    K = tuple(_matrix(M, f"kernel[{d}]", (p, m)) for d, M in enumerate(taps))
    n = check_n(data["n"], what="n", minimum=1, maximum=MAX_TOKENS)
    _check_blocks(n, n * (n + 1) // 2)
    return Layer(data["kind"], n, p, m, (("kernel", K),), name)


def read_attention(data, name):
    """The :class:`Layer` of an attention layer's validated spec data (tokens ``X`` and ``heads``)."""
    kind = data["kind"]
    X = _matrix(_sequence(data["X"], "X"), "X")
    n, m = len(X), len(X[0])
    heads = []
    for h, head in enumerate(_sequence(data["heads"], "heads", limit=64)):
        if not isinstance(head, dict) or set(head) != {"Q", "K", "V"}:
            raise InputError(f"heads[{h}] must be an object with exactly Q, K and V")
        Q = _matrix(head["Q"], f"heads[{h}].Q")
        Q = _matrix(head["Q"], f"heads[{h}].Q", (len(Q), m))
        K = _matrix(head["K"], f"heads[{h}].K", (len(Q), m))
        V = _matrix(head["V"], f"heads[{h}].V")
        heads.append((Q, K, V))
    p = len(heads[0][2])
    for h, (_, _, V) in enumerate(heads):
        if (len(V), len(V[0])) != (p, m):
            raise ShapeError(f"heads[{h}].V is {len(V)}x{len(V[0])} but must be p x m = {p}x{m}")
    _check_blocks(n, n * (n + 1) // 2)
    _check_work(kind, n, p, m, (len(heads), len(heads[0][0])))
    return Layer(kind, n, p, m, (("X", X), ("heads", tuple(heads))), name)


def read_softmax_attention(data, name):
    """:func:`read_attention`, within softmax attention's own token limit (interval arithmetic on every weight)."""
    layer = read_attention(data, name)
    if layer.n > MAX_SOFTMAX_TOKENS:
        raise LimitError(f"softmax attention is certified for at most {MAX_SOFTMAX_TOKENS} tokens, got {layer.n}")
    return layer


def read_operator(data, name):
    """The :class:`Layer` of an operator's validated spec data: its blocks listed (others are zero)."""
    n = check_n(data["n"], what="n", minimum=1, maximum=MAX_TOKENS)
    p = check_n(data["p"], what="p", minimum=1, maximum=MAX_DIM)
    m = check_n(data["m"], what="m", minimum=1, maximum=MAX_DIM)
    blocks = {}
    if not isinstance(data["blocks"], (list, tuple)):
        raise InputError("blocks must be a list (of {i, j, W} objects)")
    if len(data["blocks"]) > MAX_BLOCKS:
        raise LimitError(f"blocks has {len(data['blocks'])} items; the limit is {MAX_BLOCKS}")
    for b, item in enumerate(data["blocks"]):
        if not isinstance(item, dict) or set(item) != {"i", "j", "W"}:
            raise InputError(f"blocks[{b}] must be an object with exactly i, j and W")
        i = check_n(item["i"], what=f"blocks[{b}].i", minimum=1, maximum=n)
        j = check_n(item["j"], what=f"blocks[{b}].j", minimum=1, maximum=n)
        if (i, j) in blocks:
            raise InputError(f"blocks[{b}]: the block ({i}, {j}) is listed twice")
        blocks[(i, j)] = _matrix(item["W"], f"blocks[{b}].W", (p, m))
    return Layer(data["kind"], n, p, m, (("blocks", tuple(sorted(blocks.items()))),), name)


def is_layer_spec(data):
    """Whether parsed spec JSON describes a layer (it has a ``"kind"``) rather than a time-invariant SSM.

    Parameters
    ----------
    data : object
        Parsed spec JSON.

    Returns
    -------
    bool
    """
    return isinstance(data, dict) and "kind" in data


def loads_layer(text, *, what="layer"):
    """Parse a layer spec from JSON text (see :func:`layer_from_data`).

    Parameters
    ----------
    text : str or bytes
        JSON text.
    what : str
        How messages name it.

    Returns
    -------
    Layer

    Raises
    ------
    InputError
        As :func:`layer_from_data`, or if the text is not strict JSON.
    """
    return layer_from_data(loads_strict(text, what=what), what=what)


def read_layer(path):
    """Read a layer spec file strictly.

    Parameters
    ----------
    path : str or os.PathLike
        The layer spec's JSON file.

    Returns
    -------
    Layer

    Raises
    ------
    InputError
        As :func:`loads_layer`.
    """
    return layer_from_data(load_strict(path, what=f"spec {path}"), what=f"spec {path}")


def _text(M):
    return [[format_rational(x) for x in row] for row in M]


def layer_json(layer):
    """The layer as JSON data with canonical number strings (the certificate's ``"system"`` field).

    Parameters
    ----------
    layer : Layer
        The layer.

    Returns
    -------
    dict
        ``kind``, ``name``, ``n``, ``p``, ``m`` and its parameters with canonical number texts.
    """
    out = {"kind": layer.kind, "name": layer.name, "n": layer.n, "p": layer.p, "m": layer.m}
    out.update(layer_kinds.of(layer.kind).load("writer")(dict(layer.params)))
    return out


def selective_json(params):
    """A selective SSM's own fields as JSON (``A``, ``B``, ``C``, ``D`` per token)."""
    return {"A": [_text(M) for M in params["A"]], "B": [_text(M) for M in params["B"]],
            "C": [_text(M) for M in params["C"]],
            "D": None if params["D"] is None else [_text(M) for M in params["D"]]}


def convolution_json(params):
    """A convolution's own field as JSON (its taps)."""
    return {"kernel": [_text(M) for M in params["kernel"]]}


def attention_json(params):
    """An attention layer's own fields as JSON (tokens and heads)."""
    return {"X": _text(params["X"]),
            "heads": [{"Q": _text(Q), "K": _text(K), "V": _text(V)} for Q, K, V in params["heads"]]}


def operator_json(params):
    """An operator's own field as JSON (its listed blocks)."""
    return {"blocks": [{"i": i, "j": j, "W": _text(W)} for (i, j), W in params["blocks"]]}


# ---------------------------------------------------------------- helpers that build selective SSMs

def _as_layer_matrices(seq, what):
    return [[[format_rational(to_fraction(x, what=what)) for x in row] for row in M] for M in seq]


def selective_from_ssm(system, n, *, name=None):
    """A time-invariant :class:`~symssm.sources.system.SSM` written as a selective SSM on n tokens.

    Its interaction rank on any input equals the head count ``k(n)``.

    Parameters
    ----------
    system : SSM
        A time-invariant system.
    n : int
        The number of tokens.
    name : str, optional
        The layer's name (default the system's).

    Returns
    -------
    Layer

    Examples
    --------
    >>> from symssm.sources.system import ssm
    >>> selective_from_ssm(ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]]), 3).n
    3
    """
    check_n(n, minimum=1, maximum=MAX_TOKENS)
    data = {"kind": layer_kinds.SELECTIVE_SSM.name, "name": system.name if name is None else name,
            "A": [system.entry_text["A"]] * n, "B": [system.entry_text["B"]] * n, "C": [system.entry_text["C"]] * n}
    if system.D is not None:
        data["D"] = [system.entry_text["D"]] * n
    return layer_from_data(data)


def selective_bilinear(A, B, C, steps, *, D=None, name=""):
    """Mamba-style selection: a continuous ``(A, B, C)`` discretised per token with its own rational step.

    Token i uses the bilinear rule with step ``Delta_i = steps[i]``:
    ``A_i = (I - Delta_i/2 A)^-1 (I + Delta_i/2 A)``, ``B_i = (I - Delta_i/2 A)^-1 Delta_i B``.

    Parameters
    ----------
    A, B, C : matrix-like
        The continuous-time system (exact entries).
    steps : sequence
        ``Delta_1 .. Delta_n``, positive rationals.
    D : matrix-like, optional
        The feed-through.
    name : str
        The layer's name.

    Returns
    -------
    Layer

    Examples
    --------
    >>> layer = selective_bilinear([[-1]], [[1]], [[1]], ["1/2", "1/4"])
    >>> layer.param("A")[0][0][0], layer.param("A")[1][0][0]
    (Fraction(3, 5), Fraction(7, 9))
    """
    from .families import bilinear

    As, Bs = [], []
    for step in steps:
        Abar, Bbar = bilinear(A, B, step=step)
        As.append(Abar)
        Bs.append(Bbar)
    data = {"kind": layer_kinds.SELECTIVE_SSM.name, "name": name, "A": _as_layer_matrices(As, "A"), "B": _as_layer_matrices(Bs, "B"),
            "C": _as_layer_matrices([C] * len(steps), "C")}
    if D is not None:
        data["D"] = _as_layer_matrices([D] * len(steps), "D")
    return layer_from_data(data)


def _per_token(M, n):
    """A matrix shared by all tokens, or a list of n per-token matrices."""
    is_list_of_matrices = (isinstance(M, (list, tuple)) and M and isinstance(M[0], (list, tuple))
                           and M[0] and isinstance(M[0][0], (list, tuple)))
    return list(M) if is_list_of_matrices else [M] * n


def mamba2_scalar_gate(gates, B, C, *, name=""):
    """Mamba-2's scalar-gated SSM: ``A_i = a_i I`` with per-token ``B_i`` (N x m) and ``C_i`` (p x N).

    ``gates`` lists ``a_1 .. a_n``; ``B`` and ``C`` are one matrix each (shared by every token) or a
    list of n matrices (token-dependent, as in Mamba-2 itself).

    Parameters
    ----------
    gates : sequence
        ``a_1 .. a_n`` (exact numbers).
    B : matrix or list of matrices
        N x m, shared by every token, or one per token.
    C : matrix or list of matrices
        p x N, shared or one per token.
    name : str
        The layer's name.

    Returns
    -------
    Layer

    Examples
    --------
    >>> mamba2_scalar_gate(["1/2", "1/3"], [[1], [2]], [[1, 0]]).param("A")[1]
    ((Fraction(1, 3), Fraction(0, 1)), (Fraction(0, 1), Fraction(1, 3)))
    """
    n = len(gates)
    Bs, Cs = _per_token(B, n), _per_token(C, n)
    N = len(Bs[0])
    A = [[[to_fraction(a, what="gate") if r == c else Fraction(0) for c in range(N)] for r in range(N)] for a in gates]
    return layer_from_data({"kind": layer_kinds.SELECTIVE_SSM.name, "name": name, "A": _as_layer_matrices(A, "A"),
                            "B": _as_layer_matrices(Bs, "B"), "C": _as_layer_matrices(Cs, "C")})


def mamba2_layer(gates, b, c, channels, *, name=""):
    """A Mamba-2 head on ``channels`` channels: scalar gates, token-dependent ``b_i``, ``c_i`` in Q^N.

    Mamba-2 shares ``b_i`` and ``c_i`` across the head's P channels, so its state is N x P and
    ``W_ij = (a_i ... a_{j+1}) (c_i . b_j) I_P``: every block is a multiple of the identity, and the
    interaction rank is at most 1 on every input (the SSM / masked-attention duality).  Written as a
    selective SSM with state ``N P``: ``A_i = a_i I``, ``B_i = b_i (x) I_P``, ``C_i = c_i^T (x) I_P``.

    Parameters
    ----------
    gates : sequence
        ``a_1 .. a_n`` (exact numbers).
    b, c : list of vectors
        ``b_i`` and ``c_i`` in Q^N, one per token.
    channels : int
        P, the head's channels.
    name : str
        The layer's name.

    Returns
    -------
    Layer

    Raises
    ------
    ShapeError
        If ``b`` and ``c`` do not list one vector of N entries per token.

    Examples
    --------
    >>> head = mamba2_layer(["1/2", "1/3"], [[1, 2], [0, 1]], [[1, 1], [2, -1]], 2)
    >>> head.p, head.m, len(head.param("A")[0])
    (2, 2, 4)
    """
    n = len(gates)
    if len(b) != n or len(c) != n:
        raise ShapeError(f"b and c must list one vector per token ({n} gates)")
    P = check_n(channels, what="channels", minimum=1, maximum=MAX_DIM)
    N = len(b[0])
    one = Fraction(1)
    As, Bs, Cs = [], [], []
    for i in range(n):
        a = to_fraction(gates[i], what=f"gates[{i}]")
        bi = [to_fraction(x, what=f"b[{i}]") for x in b[i]]
        ci = [to_fraction(x, what=f"c[{i}]") for x in c[i]]
        if len(bi) != N or len(ci) != N:
            raise ShapeError(f"b[{i}] and c[{i}] must have N = {N} entries")
        As.append([[a if r == s else 0 for s in range(N * P)] for r in range(N * P)])
        Bs.append([[bi[k] * one if ch == col else 0 for col in range(P)] for k in range(N) for ch in range(P)])
        Cs.append([[ci[k] if ch == out else 0 for k in range(N) for ch in range(P)] for out in range(P)])
    return layer_from_data({"kind": layer_kinds.SELECTIVE_SSM.name, "name": name, "A": _as_layer_matrices(As, "A"),
                            "B": _as_layer_matrices(Bs, "B"), "C": _as_layer_matrices(Cs, "C")})
