"""Interaction ranks of layers with parameters, on FLINT: the proof for every input at once.

The rows are the layer's blocks ``W_ij`` over ``Q(parameters)``, each scaled by a power of the
common denominator ``g`` of the entries (every matrix of the layer is multiplied by ``g`` before
the blocks are formed, so a block is ``g^e W_ij`` with ``e`` = 1 for taps and operator blocks,
``i - j + 2`` for a selective SSM, 5 for linear attention).  Where the layer is defined, ``g`` is
nonzero, so the scaled blocks span the same space as the blocks.  The rank proof of a body is the
family one (:func:`~symssm.exact.flintfamily.prove_rows`): a minor with determinant ``Delta``, a
relation ``q W'_b = sum_s p_s W'_(b_s)`` for every other nonzero block, and the factors of
``g * Delta * prod q`` (outside the domain, a case solved for a parameter, or honestly uncovered).

Examples
--------
>>> from symssm.sources.parametric_layers import parametric_layer_from_data
>>> layer = parametric_layer_from_data({"kind": "convolution", "n": 2, "parameters": ["t"],
...                                     "kernel": [[["1", "0"], ["0", "t"]], [["t", "0"], ["0", "1"]]]})
>>> bodies = interaction_bodies(layer)
>>> [(b.head_count, [f.text for f in b.factors]) for b in bodies]
[(2, ['t + 1', 't - 1']), (1, []), (1, [])]
"""

from ..errors import InputError
from ..formats.limits import MAX_CASES
from ..sources import layer_kinds
from ..sources.parametric_layers import ParametricLayer
from .bodies import run_cases
from .flintfamily import FlintEngine, counted_product, family_from_matrices, family_key, prove_rows, scaled_entries

__all__ = ["block_order", "interaction_bodies"]


def block_order(layer):
    """The pairs ``(i, j)`` whose blocks are the rows, in order: row by row (every ``j <= i``), or an operator's list.

    Parameters
    ----------
    layer : ParametricLayer
        The layer (its ``kind``, ``n`` and, for an operator, the listed blocks in ``structure``).

    Returns
    -------
    tuple of (int, int)
        ``(1, 1), (2, 1), (2, 2), (3, 1), ...`` up to ``(n, n)``; for an ``"operator"`` layer, the
        blocks it lists, in its order.  A body's ``lags`` are indices into this tuple.

    Examples
    --------
    >>> from symssm.sources.parametric_layers import parametric_layer_from_data
    >>> layer = parametric_layer_from_data({"kind": "convolution", "n": 3, "parameters": ["t"],
    ...                                     "kernel": [[["1"]], [["t"]]]})
    >>> block_order(layer)
    ((1, 1), (2, 1), (2, 2), (3, 1), (3, 2), (3, 3))
    """
    if layer_kinds.of(layer.kind).pairs == "listed":
        return tuple(layer.structure[1])
    return tuple((i, j) for i in range(1, layer.n + 1) for j in range(1, i + 1))


def scaled_blocks(layer, fam):
    """``(pairs, g, rows)``: the scaled blocks of ``fam`` (a family with the layer's keys) in :func:`block_order`."""
    pairs, g, S = scaled_entries(fam)
    zero = g * 0
    mul = counted_product(zero, "the blocks of this layer")
    blank = [[zero for _ in range(layer.m)] for _ in range(layer.p)]
    out = layer_kinds.of(layer.kind).load("family_blocks")(layer, S, g, mul, blank)
    return pairs, g, [out[ij] for ij in block_order(layer)]


def interaction_bodies(layer, *, max_cases=MAX_CASES):
    """Every body of a layer's certificate: the generic rank, then each case of the exceptional set.

    Each :class:`~symssm.exact.bodies.Body` has ``head_count`` = the interaction rank of its
    family and ``lags`` = indices into :func:`block_order` of the witness blocks.

    Parameters
    ----------
    layer : ParametricLayer
        The layer with parameters (:mod:`symssm.sources.parametric_layers`).
    max_cases : int, optional
        The most bodies, the generic one included; a case beyond it leaves its factor uncovered.

    Returns
    -------
    list of Body
        The generic body first, then one per distinct case (:func:`~symssm.exact.bodies.run_cases`);
        each has ``minor`` (the witness minor's entries, those of the scaled blocks, as texts) and
        ``holds_for`` None (the rank is the layer's at its own length ``n``); identically zero blocks
        get no relation.

    Raises
    ------
    InputError
        If ``layer`` is not a :class:`~symssm.sources.parametric_layers.ParametricLayer`, or no
        witness proves itself at the deterministic points.
    LimitError
        If a polynomial grows beyond the limits (both sides share them).

    Examples
    --------
    >>> from symssm.sources.parametric_layers import parametric_layer_from_data
    >>> layer = parametric_layer_from_data({"kind": "convolution", "n": 2, "parameters": ["t"],
    ...                                     "kernel": [[["1", "0"], ["0", "t"]], [["t", "0"], ["0", "1"]]]})
    >>> generic, *cases = interaction_bodies(layer)
    >>> generic.head_count, generic.minor
    (2, (('1', 't'), ('t', '1')))
    >>> [(f.text, f.cover.parameter, f.cover.value, f.case) for f in generic.factors]
    [('t + 1', 't', '-1', 1), ('t - 1', 't', '1', 2)]
    >>> [(case.substitution, case.head_count) for case in cases]   # kernel[1] = -kernel[0] or kernel[0]
    [((0, 'factor', 0), 1), ((0, 'factor', 1), 1)]
    """
    if not isinstance(layer, ParametricLayer):
        raise InputError(f"expected a ParametricLayer, got {type(layer).__name__}")
    root = family_from_matrices(layer.parameters, dict(layer.matrices), layer.name)
    p, m = layer.p, layer.m

    analysed = {}

    def analyse(fam):
        key = family_key(fam)  # the same family reached along two paths of the case tree: analysed once
        if key not in analysed:
            pairs, g, rows = scaled_blocks(layer, fam)
            body = prove_rows(fam, pairs, g, rows, p, m, dimension_at=p * m, skip_zero=True,
                              what="interaction rank", with_minor=True)
            body["holds_for"] = None
            analysed[key] = body
        return dict(analysed[key])

    return run_cases(root, analyse, FlintEngine, max_cases)


# ---------------------------------------------------------------- each kind's scaled blocks (rows of sources/layer_kinds.py)
# ``S``: the scaled matrices by key, ``g``: the common denominator, ``mul``: the counted product, ``blank``: a zero block.

def selective_family_blocks(layer, S, g, mul, blank):
    """A selective SSM's scaled blocks ``U_ij = g^(i-j+2) W_ij``."""
    n, p, m = layer.n, layer.p, layer.m
    out = {}
    has_d = layer.structure[2]
    for j in range(1, n + 1):
        X = S[f"B[{j}]"]
        W = mul(S[f"C[{j}]"], X)
        if has_d:
            W = [[W[r][c] + g * S[f"D[{j}]"][r][c] for c in range(m)] for r in range(p)]
        out[(j, j)] = W
        for i in range(j + 1, n + 1):
            X = mul(S[f"A[{i}]"], X)
            out[(i, j)] = mul(S[f"C[{i}]"], X)
    return out


def convolution_family_blocks(layer, S, g, mul, blank):
    """A convolution's scaled blocks ``U_ij = g W_ij``."""
    taps = layer.structure[1]
    return {(i, j): S[f"kernel[{i - j}]"] if i - j < taps else blank
            for i in range(1, layer.n + 1) for j in range(1, i + 1)}


def attention_family_blocks(layer, S, g, mul, blank):
    """Linear attention's scaled blocks ``U_ij = g^5 W_ij``."""
    n, p, m = layer.n, layer.p, layer.m
    out = {}
    X = S["X"]
    heads = layer.structure[1]
    cols = [[[x] for x in X[t]] for t in range(n)]  # token t as an m x 1 column
    q = {(h, t): mul(S[f"Q[{h}]"], cols[t]) for h in range(1, heads + 1) for t in range(n)}
    k = {(h, t): mul(S[f"K[{h}]"], cols[t]) for h in range(1, heads + 1) for t in range(n)}
    for i in range(1, n + 1):
        for j in range(1, i + 1):
            W = blank
            for h in range(1, heads + 1):
                s = mul([[x[0] for x in q[(h, i - 1)]]], k[(h, j - 1)])[0][0]
                V = S[f"V[{h}]"]
                W = [[W[r][c] + mul.scalar(s, V[r][c]) for c in range(m)] for r in range(p)]
            out[(i, j)] = W
    return out


def operator_family_blocks(layer, S, g, mul, blank):
    """An operator's scaled listed blocks ``U_ij = g W_ij``."""
    return {(i, j): S[f"W[{i},{j}]"] for i, j in layer.structure[1]}
