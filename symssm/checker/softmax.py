"""Softmax attention for the checker: outward-rounded dyadic interval arithmetic (standard library).

Written independently of the generator.  ``exp(t)`` is enclosed by halving ``t`` into ``[0, 1/2]``,
a Taylor polynomial with its remainder bound ``2 u^(K+1) / (K+1)!``, and repeated squaring, with
every operation rounded outward to ``precision_bits`` bits.
"""

from fractions import Fraction
from itertools import permutations

from .kernel import strict_equal
from .reading import integer, keys, positions

MAX_PRECISION = 1024
MAX_TERMS = 256
MAX_RANK = 6
MAX_SCORE = 2**20
MAX_TOKENS = 64
RULE = ("W_ij = sum_h a^h_ij V_h lies in span{V_h}; an r-head model takes the listed value maps as its "
        "V_h and the softmax weights, re-expressed in that basis, as its input-dependent coefficients")


def _lo(x, bits):
    if x == 0:
        return Fraction(0)
    shift = bits - (abs(x.numerator).bit_length() - x.denominator.bit_length())
    if shift >= 0:
        return Fraction((x.numerator << shift) // x.denominator, 1 << shift)
    return Fraction((x.numerator // (x.denominator << -shift)) << -shift)


def _hi(x, bits):
    return -_lo(-x, bits)


def _times(a, b, bits):
    c = (a[0] * b[0], a[0] * b[1], a[1] * b[0], a[1] * b[1])
    return _lo(min(c), bits), _hi(max(c), bits)


def _plus(a, b, bits):
    return _lo(a[0] + b[0], bits), _hi(a[1] + b[1], bits)


def _taylor(u, bits, terms, rnd):
    s = t = Fraction(1)
    for k in range(1, terms + 1):
        t = rnd(t * u / k, bits)
        s = rnd(s + t, bits)
    return s


def exp_enclosure(t, bits, terms):
    """``(lo, hi)`` with ``lo <= e^t <= hi`` for a rational t with ``|t| <= MAX_SCORE``."""
    if t < 0:
        lo, hi = exp_enclosure(-t, bits, terms)
        return _lo(1 / hi, bits), _hi(1 / lo, bits)
    halvings = 0
    while t > Fraction(1, 2) * 2**halvings:
        halvings += 1
    u = t / 2**halvings
    lo = _taylor(_lo(u, bits), bits, terms, _lo)
    top = _hi(u, bits)
    rest = Fraction(1)
    for k in range(1, terms + 2):
        rest = _hi(rest * top / k, bits)
    hi = _hi(_taylor(top, bits, terms, _hi) + 2 * rest, bits)
    for _ in range(halvings):
        lo, hi = _lo(lo * lo, bits), _hi(hi * hi, bits)
    return lo, hi


def _dot(u, v):
    return sum((a * b for a, b in zip(u, v)), Fraction(0))


def _rank(rows, stop=None):
    """Exact rank of rational row vectors (Gaussian elimination), or ``stop`` once that many pivots are found.

    With ``stop`` the work is at most ``stop * len(rows) * width`` operations, whatever the shape.
    """
    rows = [list(r) for r in rows]
    rank, col = 0, 0
    width = len(rows[0]) if rows else 0
    while rank < len(rows) and col < width and (stop is None or rank < stop):
        pivot = next((i for i in range(rank, len(rows)) if rows[i][col] != 0), None)
        if pivot is None:
            col += 1
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for i in range(rank + 1, len(rows)):
            f = rows[i][col] / rows[rank][col]
            if f:
                rows[i] = [a - f * b for a, b in zip(rows[i], rows[rank])]
        rank += 1
        col += 1
    return rank


def check_softmax(ledger, cert, layer, r):
    """Obligations of a softmax-attention interaction rank; returns None (the witness blocks are irrational)."""
    n, p, m = layer["n"], layer["p"], layer["m"]
    ledger.afford(n <= MAX_TOKENS, "system.n", f"softmax attention is checked for at most {MAX_TOKENS} tokens")
    heads = layer["heads"]
    lb = cert["lower_bound"]
    keys(ledger, lb, "lower_bound", ("method", "blocks", "positions", "precision_bits", "taylor_terms"))
    ledger.require(lb["method"] == "interval", "lower_bound.method", "must be 'interval' for softmax attention")
    bits = integer(ledger, lb["precision_bits"], "lower_bound.precision_bits", 32, MAX_PRECISION)
    terms = integer(ledger, lb["taylor_terms"], "lower_bound.taylor_terms", 8, MAX_TERMS)
    ub = cert["upper_bound"]
    keys(ledger, ub, "upper_bound", ("value_maps_rank",))
    # past MAX_RANK the certificate is refused anyway: stop there (work <= (MAX_RANK + 1) heads p m)
    vrank = _rank([[x for row in V for x in row] for _, _, V in heads], stop=MAX_RANK + 1)
    ledger.afford(vrank <= MAX_RANK, "upper_bound.value_maps_rank", f"the value maps have rank at least "
                   f"{MAX_RANK + 1}; softmax certificates are checked up to rank {MAX_RANK}")
    ledger.require(strict_equal(ub["value_maps_rank"], vrank), "upper_bound.value_maps_rank",
                   f"the value maps have rank {vrank}")
    ledger.require(r == vrank, "interaction_rank", f"must be the value maps' rank {vrank} (the upper bound)")
    ledger.afford(r <= MAX_RANK, "interaction_rank", f"softmax certificates are checked up to rank {MAX_RANK}")
    ledger.require(isinstance(lb["blocks"], list) and len(lb["blocks"]) == r, "lower_bound.blocks",
                   f"must list {r} blocks")
    wit = []
    for s, b in enumerate(lb["blocks"]):
        ledger.require(isinstance(b, list) and len(b) == 2, f"lower_bound.blocks[{s}]", "must be [i, j]")
        i = integer(ledger, b[0], f"lower_bound.blocks[{s}][0]", 1, n)
        j = integer(ledger, b[1], f"lower_bound.blocks[{s}][1]", 1, i)
        wit.append((i, j))
    ledger.require(wit == sorted(set(wit)), "lower_bound.blocks", "must be distinct, in increasing block order")
    cells = positions(ledger, lb["positions"], r, p, m)
    X = layer["X"]
    weights = {}
    for h, (Q, K, _) in enumerate(heads):
        q = [[_dot(row, x) for row in Q] for x in X]
        k = [[_dot(row, x) for row in K] for x in X]
        for i in sorted({b[0] for b in wit}):
            scores = [_dot(q[i - 1], k[l]) for l in range(i)]
            ledger.require(all(abs(s) <= MAX_SCORE for s in scores), "system.X", "an attention score exceeds 2^20")
            top = max(scores)
            e = [exp_enclosure(s - top, bits, terms) for s in scores]
            total = (Fraction(0), Fraction(0))
            for x in e:
                total = _plus(total, x, bits)
            for j in range(1, i + 1):
                weights[(h, i, j)] = (_lo(e[j - 1][0] / total[1], bits), _hi(e[j - 1][1] / total[0], bits))
    M = []
    for (i, j) in wit:
        row = []
        for (rr, cc) in cells:
            acc = (Fraction(0), Fraction(0))
            for h, (_, _, V) in enumerate(heads):
                acc = _plus(acc, _times(weights[(h, i, j)], (V[rr][cc], V[rr][cc]), bits), bits)
            row.append(acc)
        M.append(row)
    det = (Fraction(0), Fraction(0))
    for perm in permutations(range(r)):
        sign = 1
        for a in range(r):
            for b in range(a + 1, r):
                if perm[a] > perm[b]:
                    sign = -sign
        term = (Fraction(sign), Fraction(sign))
        for s in range(r):
            term = _times(term, M[s][perm[s]], bits)
        det = _plus(det, term, bits)
    ledger.require(det[0] > 0 or det[1] < 0, "lower_bound",
                   "the determinant's enclosure contains zero, so the minor is not proven nonsingular")
    heads_claim = cert["heads"]
    keys(ledger, heads_claim, "heads", ("H", "value_map_blocks", "value_map_heads", "rule"))
    ledger.require(strict_equal(heads_claim["H"], r), "heads.H", f"must be the interaction rank {r}")
    ledger.require(heads_claim["rule"] == RULE, "heads.rule", "is not the softmax construction rule")
    basis = heads_claim["value_map_heads"]
    ledger.require(isinstance(basis, list) and len(basis) == r, "heads.value_map_heads", f"must list {r} heads")
    idx = [integer(ledger, h, f"heads.value_map_heads[{t}]", 0, len(heads) - 1) for t, h in enumerate(basis)]
    ledger.require(_rank([[x for row in heads[h][2] for x in row] for h in idx]) == r, "heads.value_map_heads",
                   "the listed value maps are not a basis of span{V_h}")
    gap = cert["interaction_rank_gap"]
    ledger.require(strict_equal(gap, [{"H": H, "minor_order": H + 1} for H in range(r)]),
                   "interaction_rank_gap", f"must list H = 0..{r - 1}")
    return None
