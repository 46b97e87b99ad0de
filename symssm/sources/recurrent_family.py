"""A linear-recurrence layer written as a selective SSM: the form its theorems for every input are proved in.

A layer of :mod:`.recurrent` (heads with matrix states, the value path, the output chain) is a selective SSM
``h_i = A_i h_{i-1} + B_i x_i``, ``y_i = C_i h_i`` whose state holds every head's ``S_i`` (``d_k d_v`` numbers
each, transitions on the key side) and the last ``K + 1`` tokens (the value path's reach):

- ``R_i = (x_i, x_{i-1}, ..., x_{i-K})``, the register: ``x_i`` from ``B_i``, a shift of ``R_{i-1}``;
- ``S_i = M_i S_{i-1} + k~_i v_i^T`` with ``v_i = sum_s E_(i,s) x_{i-s}`` (for RWKV-6, which reads the state before
  its decay, ``Q_i = S_{i-1}``: ``Q_i = M_{i-1} Q_{i-1} + k~_{i-1} v_{i-1}^T``, from the register);
- ``y_i = Out_i o_i + Post_i v_i`` with ``o_i = S_i^T q_i + (d_i - q_i . k~_i) v_i`` (``Q_i^T q_i + d_i v_i``).

Its blocks ``C_i A_i ... A_{j+1} B_j`` are the layer's ``W_ij`` (tests/test_recurrent_layers.py checks them against
the layer's own blocks).  With ``"parameters"`` the entries are formulas, composed here as texts of the family
grammar, and the selective SSM's family theorem (:mod:`.parametric_layers`) is the layer's theorem for every value
of them; the state has ``H d_k d_v + (K + 1) m`` numbers, within the limits of layers with parameters only for
small layers (8 per dimension).

Examples
--------
>>> spec = selective_family_spec({"kind": "gla", "parameters": ["a2", "a3"], "V": [[1]],
...     "heads": [{"q": [[1], [1], [1]], "k": [[1], [1], [1]], "alpha": [["1"], ["a2"], ["a3"]]}]})
>>> spec["kind"], len(spec["A"]), spec["A"][2]
('selective-ssm', 3, [['a3', '0'], ['0', '0']])
"""

from fractions import Fraction

from ..errors import InputError
from ..formats.rationals import format_rational
from . import layer_kinds
from .layers import Layer, layer_from_data
from .recurrent import head_cores, output_chain, value_taps

__all__ = ["Formula", "selective_family_spec", "selective_form"]


class Formula:
    """A formula's text under ``+``, ``-``, ``*``, ``/`` (products and sums written out, 0 and 1 simplified).

    Examples
    --------
    >>> a, b = Formula("a"), Formula("1/2")
    >>> str(a * b + Formula(0)), str(Formula(1) * a), str(a - a * Formula(0))
    ('(a)*(1/2)', 'a', 'a')
    """

    __slots__ = ("text",)

    def __init__(self, value):
        if isinstance(value, Formula):
            value = value.text
        elif isinstance(value, Fraction):
            value = format_rational(value)
        elif type(value) is int:
            value = str(value)
        self.text = value.strip()

    def __str__(self):
        return self.text

    def __repr__(self):
        return f"Formula({self.text!r})"

    def _zero(self):
        return self.text == "0"

    def _one(self):
        return self.text == "1"

    def __eq__(self, other):
        return isinstance(other, (Formula, int, Fraction)) and self.text == Formula(other).text

    def __hash__(self):
        return hash(self.text)

    def __bool__(self):
        return not self._zero()

    def __add__(self, other):
        other = Formula(other)
        if self._zero():
            return other
        if other._zero():
            return self
        return Formula(f"{self.text} + {other.text}")

    __radd__ = __add__

    def __neg__(self):
        return self if self._zero() else Formula(f"-({self.text})")

    def __sub__(self, other):
        other = Formula(other)
        if other._zero():
            return self
        return Formula(f"{self.text} - ({other.text})") if not self._zero() else -other

    def __rsub__(self, other):
        return Formula(other) - self

    def __mul__(self, other):
        other = Formula(other)
        if self._zero() or other._zero():
            return Formula("0")
        if self._one():
            return other
        if other._one():
            return self
        return Formula(f"({self.text})*({other.text})")

    __rmul__ = __mul__

    def __truediv__(self, other):
        other = Formula(other)
        if other._one() or self._zero():
            return self
        return Formula(f"({self.text})/({other.text})")

    def __rtruediv__(self, other):
        return Formula(other) / self


def _ones(value):
    """The spec with every number replaced by 1 (its shapes), booleans and nulls kept."""
    if isinstance(value, list):
        return [_ones(v) for v in value]
    if isinstance(value, dict):
        return {k: _ones(v) for k, v in value.items()}
    if value is None or isinstance(value, bool):
        return value
    return 1


def _entries(value):
    if isinstance(value, list):
        return tuple(_entries(v) for v in value)
    if value is None or isinstance(value, bool):
        return value
    if type(value) not in (int, str):
        raise InputError(f"an entry must be a formula string or an integer, got {type(value).__name__}")
    return value


def _formula_layer(data):
    """The layer of a recurrent spec whose entries are formulas (shapes and limits checked by the exact reader)."""
    body = {k: v for k, v in data.items() if k not in ("parameters", "name", "kind")}
    shaped = layer_from_data(dict(_ones(body), kind=data["kind"]))  # the kind's reader on the same shapes
    params = dict(shaped.params)
    heads = []
    for head, read in zip(data["heads"], params["heads"]):
        heads.append(tuple((key, None if head.get(key) is None else _entries(head[key])) for key, _ in read))
    params["heads"] = tuple(heads)
    for key in ("V", "out", "gate", "shift", "conv", "value_gate"):
        params[key] = None if data.get(key) is None else _entries(data[key])
    if data.get("norm") is not None:
        norm = data["norm"]
        params["norm"] = (("scale", _entries(norm["scale"])), ("weight", _entries(norm.get("weight"))),
                          ("center", bool(norm.get("center"))), ("after_gate", bool(norm.get("after_gate"))))
    return Layer(shaped.kind, shaped.n, shaped.p, shaped.m, tuple(params.items()), data.get("name", ""))


def selective_form(layer, convert):
    """``(A, B, C)``: per-token matrices of the selective SSM whose blocks are ``layer``'s, numbers by ``convert``.

    Parameters
    ----------
    layer : Layer
        A recurrent layer (numbers, or formula texts with ``convert=Formula``).
    convert : callable
        Makes each number (``Formula`` for texts, ``lambda x: x`` for Fractions).

    Returns
    -------
    tuple of list
        ``A_i`` (N x N), ``B_i`` (N x m), ``C_i`` (p x N), one per token.
    """
    n, m, p = layer.n, layer.m, layer.p
    cores = head_cores(layer, convert)
    E = value_taps(layer, convert)
    chain = output_chain(layer, convert)
    zero, one = convert(Fraction(0)), convert(Fraction(1))
    H, dk = len(cores), layer.param("dk")
    Dv = len(layer.param("V"))
    dv = Dv // H
    K = len(E[0]) - 1
    depth = K + 1
    before = cores[0][0][7]
    S = H * dk * dv

    def s_index(h, a, b):
        return h * dk * dv + a * dv + b

    def r_index(s, col):
        return S + s * m + col

    N = S + depth * m
    As, Bs, Cs = [], [], []
    for i in range(n):
        A = [[zero] * N for _ in range(N)]
        B = [[zero] * m for _ in range(N)]
        C = [[zero] * N for _ in range(p)]
        for s in range(1, depth):  # the register shifts; x_i enters at slot 0
            for col in range(m):
                A[r_index(s, col)][r_index(s - 1, col)] = one
        for col in range(m):
            B[r_index(0, col)][col] = one
        for h in range(H):
            t = i - 1 if before else i  # the token whose transition and write this state takes
            if t >= 0:
                e, u, w, kt = cores[h][t][:4]
                for a in range(dk):
                    for c in range(dk):
                        entry = (e[a] if a == c else zero) + (u[a] * w[c] if u is not None else zero)
                        for b in range(dv):
                            A[s_index(h, a, b)][s_index(h, c, b)] = entry
                    for b in range(dv):  # + k~_t[a] v_t[b]: v_t from x_t (B or register) and the register
                        ch = h * dv + b
                        for s in range(depth):
                            for col in range(m):
                                value = kt[a] * E[t][s][ch][col]
                                if before:  # v_{i-1} = sum_s E_(i-1,s) R_{i-1}[s]
                                    A[s_index(h, a, b)][r_index(s, col)] = value
                                elif s == 0:
                                    B[s_index(h, a, b)][col] = value
                                else:  # R_{i-1}[s-1] = x_{i-s}
                                    A[s_index(h, a, b)][r_index(s - 1, col)] = value
        Out, Post = chain[i]
        for h in range(H):
            _, _, _, kt, q, d, post = cores[h][i][:7]
            coef = d if before else d - sum((x * y for x, y in zip(q, kt)), zero)
            for b in range(dv):
                ch = h * dv + b
                for a in range(dk):
                    for row in range(p):
                        C[row][s_index(h, a, b)] = Out[row][ch] * q[a]
                for row in range(p):
                    factor = Out[row][ch] * coef + Post[row][ch] * post
                    if not factor:
                        continue
                    for s in range(depth):
                        for col in range(m):
                            C[row][r_index(s, col)] = C[row][r_index(s, col)] + factor * E[i][s][ch][col]
        As.append(A)
        Bs.append(B)
        Cs.append(C)
    return As, Bs, Cs


def selective_family_spec(data):
    """A recurrent layer spec (with or without ``"parameters"``) as a selective-ssm spec with the same blocks.

    Parameters
    ----------
    data : dict
        A spec of a linear-recurrence kind (docs/framework.md); its entries may be formulas in ``"parameters"``.

    Returns
    -------
    dict
        A ``selective-ssm`` spec (with the same ``"parameters"``), named after the layer.

    Raises
    ------
    InputError
        If the spec is not a valid recurrent layer (the exact reader's message on its shapes) or an entry is
        neither a formula nor an integer.
    """
    if not isinstance(data, dict) or layer_kinds.of(data.get("kind")) not in layer_kinds.RECURRENT:
        raise InputError("not a linear-recurrence layer spec (the kinds are "
                         f"{', '.join(row.name for row in layer_kinds.RECURRENT)})")
    if "parameters" in data:
        As, Bs, Cs = selective_form(_formula_layer(data), Formula)
        text = lambda M: [[str(x) for x in row] for row in M]  # noqa: E731
    else:  # numbers: exact arithmetic, canonical texts
        As, Bs, Cs = selective_form(layer_from_data(data), lambda x: x)
        text = lambda M: [[format_rational(x) for x in row] for row in M]  # noqa: E731
    name = data.get("name") or f"a {data['kind']} layer"
    out = {"kind": layer_kinds.SELECTIVE_SSM.name, "name": f"{name} (as a selective SSM)"[:200],
           "A": [text(M) for M in As], "B": [text(M) for M in Bs], "C": [text(M) for M in Cs]}
    if "parameters" in data:
        out["parameters"] = data["parameters"]
    return out
