"""Obligations of ``head-count`` certificates: :func:`check_head_count`, obligation by obligation.

Standard library only (the arithmetic is :mod:`.lags`).  In short:

1. The lower bound: K strictly increasing lags below T, K positions, a prime dividing no
   denominator; the K x K matrix ``M_st = L_{d_s}[r_t, c_t]`` has every leading principal
   minor nonzero (exactly, by Bareiss, or modulo the prime), and the stated determinant.
2. The upper bound: every lag below T is a witness lag, or the stated exact combination of
   the witness lags below it, or covered by the dimension argument (K = pm).
3. The claims derived from the profile ``k(n') = #{s : d_s < n'}``: the head count, the
   profile, the range of lengths, the value maps of the H = k construction, the gap list.

In the code, a comment ``# -- i.`` opens the lines of obligation i of the docstring's list.
"""

from bisect import bisect_left
from operator import attrgetter
from fractions import Fraction

from .lags import (MAX_LAG_BITS, combinations, exact_lags, lag_bit_bound, leading_minors_exact, leading_minors_mod,
                   minor_mod)
from .limits import MAX_PRIME
from .numbers import int_text, is_prime, rat_text
from .kernel import strict_equal
from .reading import integer, keys, matrix, positions, rational, witness_lags

HEADS_RULE = "alpha^h_ij = c_(i-j),h for j <= i and 0 for j > i, with V_h = L_(d_h)"


def check_head_count(ledger, cert, system):
    """Every obligation of a ``head-count`` certificate, in the order they are checked; returns the verdict's summary.

    ``system`` was read by :func:`.reading.read_system` (every entry a canonical rational, its hash equal to
    ``input_sha256``).  With ``L_d = C A^d B`` (``L_0 = C B + D``) and ``T`` the truncation, the obligations are:

    0. *Shape.* Exactly the format's fields; ``truncation`` is ``T`` (N, or N + 1 with D); ``n`` and
       ``head_count`` are integers >= 0 (a boolean is not).
    1. *Witness lags.* ``lower_bound.lags`` are K strictly increasing lags below T, at most ``min(T, p m)``;
       ``positions`` are K entries ``(r_t, c_t)`` of a p x m matrix; ``prime`` is a prime below 2^31 dividing
       no denominator of the system (so reduction modulo it is defined).
    2. *Upper bound.* Every lag ``d < T`` is a witness lag, or is listed in ``upper_bound.coefficients`` with one
       rational per witness lag below it, or lies past the last witness lag when ``K = p m`` (the dimension
       argument: ``dimension_from_lag`` is then ``d_K + 1``).
    3. *The claim.* ``head_count = #{s : d_s < n}`` (the witness structure's count, :func:`bisect_left`), and
       the optional ``heads.value_maps`` list that many maps.
    4. *Cost.* The exact lags any later obligation needs (the listed lags, the witness lags of an exact minor,
       the value maps' lags) have entries of at most ``MAX_LAG_BITS`` bits (:func:`.lags.lag_bit_bound`),
       checked before any lag is formed; over it the check is undecided (exit 2), naming the limit.
    5. *Lower bound.* ``M_st = L_(d_s)[r_t, c_t]``: for ``method = "exact"`` the stated ``minor`` equals M entry
       by entry, every leading principal minor is nonzero (Bareiss) and ``determinant`` is det M; for
       ``"modular"`` the same minors are computed modulo the prime (:func:`.lags.minor_mod`), all nonzero, and
       ``determinant_mod_p`` is det M mod P.  So ``L_(d_1), ..., L_(d_K)`` are linearly independent.
    6. *Upper bound, exactly.* Each listed lag equals its stated combination of the witness lags below it
       (:func:`.lags.combinations`).  With 2., every lag below T lies in the span of the witness lags below
       it, and (Cayley-Hamilton) so does every later lag: ``k(n') = #{s : d_s < n'}`` for every n'.
    7. *Derived claims.* ``profile`` (values ``k(1..d_K + 1)``, ``constant_from``, ``eventual = K``),
       ``holds_for`` (the range of n with the same count), ``heads`` (``H = k``, the value maps' lags and
       rule, each value map equal to its lag) and ``interaction_rank_gap`` (H = 0..k-1, each refuted by the
       leading (H+1)-minor) are exactly what the proven profile implies.

    Parameters
    ----------
    ledger : Ledger
        Records each obligation; raises :class:`.kernel.Rejected` (exit 1) naming the first that fails,
        :class:`.kernel.Malformed` for a field written against the format and :class:`.kernel.Unreadable`
        for a limit (exit 2).
    cert : dict
        The certificate, parsed by :func:`.kernel.parse_json`.
    system : dict
        The record of :func:`.reading.read_system`.

    Returns
    -------
    str
        The summary of what is verified (``head-count k(n) = k for 'name' (for every n from .. to ..)``).

    Raises
    ------
    Rejected
        An obligation failed.
    Unreadable
        A field is malformed, or a limit stops the check (undecided).

    Examples
    --------
    >>> from symssm.checker.core import check_data
    >>> from symssm.checker.kernel import read_file
    >>> import os
    >>> cert = read_file(os.path.join(os.path.dirname(__file__), "..", "..", "certificates",
    ...                               "rotation-N2-p1-m1.json"), "certificate")
    >>> check_data(cert).message
    "head-count k(1024) = 1 for 'rotation-N2-p1-m1' (for every n from 1 on)"
    """
    # -- 0. Shape
    keys(ledger, cert, "certificate", ("format", "version", "kind", "generator", "system", "input_sha256", "n",
                                       "head_count", "truncation", "lower_bound", "upper_bound", "heads",
                                       "profile", "holds_for", "interaction_rank_gap"))
    m, p, T = system["m"], system["p"], system["T"]
    ledger.require(cert["truncation"] == T and isinstance(cert["truncation"], int) and not isinstance(cert["truncation"], bool),
                   "truncation", f"must be {T} (N{' + 1, D is present' if system['D'] is not None else ''})")
    n = integer(ledger, cert["n"], "n", 0)
    k = integer(ledger, cert["head_count"], "head_count", 0)

    # -- 1. Witness lags, positions, prime
    lb = cert["lower_bound"]
    ledger.require(isinstance(lb, dict) and isinstance(lb.get("method"), str) and lb["method"] in ("exact", "modular"),
                   "lower_bound.method",
                   "must be 'exact' or 'modular'")
    if lb["method"] == "exact":
        keys(ledger, lb, "lower_bound", ("method", "lags", "positions", "prime", "minor", "determinant"))
    else:
        keys(ledger, lb, "lower_bound", ("method", "lags", "positions", "prime", "determinant_mod_p"))
    lags = witness_lags(ledger, lb["lags"], T, min(T, p * m))
    K = len(lags)
    pos = positions(ledger, lb["positions"], K, p, m)
    prime = integer(ledger, lb["prime"], "lower_bound.prime", 3, MAX_PRIME - 1)
    ledger.require(is_prime(prime), "lower_bound.prime", f"{prime} is not prime")
    dens = set(map(attrgetter("denominator"), system["distinct"]))
    ledger.require(all(q % prime for q in dens), "lower_bound.prime",
                   f"{prime} divides a denominator of the system, so reduction mod {prime} is not defined")

    # -- 2. Upper bound: every lag below T accounted for
    coeffs = cert["upper_bound"]
    keys(ledger, coeffs, "upper_bound", ("coefficients", "dimension_from_lag"))
    table = coeffs["coefficients"]
    ledger.require(isinstance(table, list), "upper_bound.coefficients", "must be a list")
    listed = {}
    for i, row in enumerate(table):
        keys(ledger, row, f"upper_bound.coefficients[{i}]", ("lag", "c"))
        d = integer(ledger, row["lag"], f"upper_bound.coefficients[{i}].lag", 0, T - 1)
        ledger.require(d not in listed and d not in lags, f"upper_bound.coefficients[{i}].lag",
                       f"lag {d} is a witness lag or listed twice")
        ledger.require(isinstance(row["c"], list) and len(row["c"]) == bisect_left(lags, d),
                       f"upper_bound.coefficients[{i}].c", f"must have one coefficient per witness lag below {d}")
        listed[d] = [rational(ledger, x, f"upper_bound.coefficients[{i}].c[{h}]") for h, x in enumerate(row["c"])]
    dim_from = coeffs["dimension_from_lag"]
    if dim_from is not None:
        integer(ledger, dim_from, "upper_bound.dimension_from_lag", 0)
        ledger.require(K == p * m and K > 0 and dim_from == lags[-1] + 1, "upper_bound.dimension_from_lag",
                       "the dimension argument needs K = p*m witness lags and starts after the last one")
    for d in range(T):
        if d in lags or d in listed:
            continue
        ledger.require(dim_from is not None and d >= dim_from, "upper_bound",
                       f"lag {d} is neither a witness lag, nor given coefficients, nor covered by dimension")

    # -- 3. The claim
    heads = cert["heads"]
    keys(ledger, heads, "heads", ("H", "value_map_lags", "rule"), ("value_maps",))
    vm = heads.get("value_maps")
    ledger.require(vm is None or isinstance(vm, list), "heads.value_maps", "must be a list")
    # The claim must be the one the witness structure states: k(n) = #{s : d_s < n}.
    want = bisect_left(lags, n)
    ledger.require(k == want, "head_count", f"the witnesses prove k({int_text(n)}) = {want}, not {k}")
    ledger.require(vm is None or len(vm) == k, "heads.value_maps", f"must list {k} value maps")
    # -- 4. Cost: the exact lags, only where an obligation needs them, charged before any is formed
    need_exact = set(listed) | (set(lags) if lb["method"] == "exact" else set()) | (set(lags[:k]) if vm else set())
    if need_exact:
        bound = lag_bit_bound(system, max(need_exact))
        ledger.afford(bound <= MAX_LAG_BITS, "exact lags",
                       f"verifying this certificate needs exact lags up to L_{max(need_exact)} whose entries may have "
                       f"{bound} bits; the limit is {MAX_LAG_BITS} (docs/robustness.md)")
    exact = exact_lags(system, max(need_exact) + 1) if need_exact else []

    # -- 5. Lower bound: the witness minor is nonsingular
    if lb["method"] == "exact":
        minor = matrix(ledger, lb["minor"], "lower_bound.minor", K, K)
        for s, d in enumerate(lags):
            for t, (r, c) in enumerate(pos):
                ledger.require(minor[s][t] == exact[d][r][c], f"lower_bound.minor[{s}][{t}]",
                               f"is {rat_text(minor[s][t])} but L_{d}[{r},{c}] = {rat_text(exact[d][r][c])}")
        nonsingular_minor(ledger, minor, lb["determinant"])
    else:
        nonsingular_minor_mod(ledger, minor_mod(system, lags, pos, prime), prime, lb["determinant_mod_p"])

    # -- 6. Upper bound, exactly: each listed lag is its stated combination
    ordered = sorted(listed)
    combos = combinations(exact, lags, [listed[d] for d in ordered], p, m)
    for d, combo in zip(ordered, combos):
        ledger.require(combo == exact[d], f"upper_bound.coefficients lag {d}",
                       f"L_{d} is not the stated combination of the witness lags")

    # -- 7. Derived claims, from the proven profile k(n') = #{s : d_s < n'}
    prof = cert["profile"]
    keys(ledger, prof, "profile", ("values", "constant_from", "eventual"))
    start = lags[-1] + 1 if lags else 1
    ledger.require(prof["constant_from"] == start and not isinstance(prof["constant_from"], bool), "profile.constant_from", f"must be {start}")
    ledger.require(prof["eventual"] == K and not isinstance(prof["eventual"], bool), "profile.eventual", f"must be {K}")
    values = [bisect_left(lags, j) for j in range(1, start + 1)]
    ledger.require(strict_equal(prof["values"], values),
                   "profile.values", f"must be {values}")
    hf = cert["holds_for"]
    keys(ledger, hf, "holds_for", ("from", "to"))
    n0 = lags[k - 1] + 1 if k > 0 else 0
    n1 = lags[k] if k < K else None
    ledger.require(hf["from"] == n0 and hf["to"] == n1 and not isinstance(hf["from"], bool) and not isinstance(hf["to"], bool),
                   "holds_for", f"must be from {n0} to {n1 if n1 is not None else 'null (unbounded)'}")
    ledger.require(heads["H"] == k and not isinstance(heads["H"], bool), "heads.H", f"must be the head count {k}")
    ledger.require(strict_equal(heads["value_map_lags"], lags[:k]), "heads.value_map_lags", f"must be {lags[:k]}")
    ledger.require(heads["rule"] == HEADS_RULE, "heads.rule", "is not the construction rule of format version 1")
    if vm is not None:
        for h, V in enumerate(vm):
            ledger.require(matrix(ledger, V, f"heads.value_maps[{h}]", p, m) == exact[lags[h]],
                           f"heads.value_maps[{h}]", f"is not L_{lags[h]}")
    gap = cert["interaction_rank_gap"]
    ledger.require(strict_equal(gap, [{"H": H, "minor_order": H + 1} for H in range(k)]),
                   "interaction_rank_gap", f"must list H = 0..{k - 1}, each refuted by the leading (H+1)-minor")
    name = system["name"] or "the system"
    return f"head-count k({int_text(n)}) = {k} for {name!r} (for every n from {n0}" + \
        (f" to {n1})" if n1 is not None else " on)")


def nonsingular_minor(ledger, minor, determinant):
    """Every leading principal minor of an exact minor is nonzero, and ``determinant`` is its determinant."""
    minors = leading_minors_exact(minor)
    for j, value in enumerate(minors):
        ledger.require(value != 0, "lower_bound.minor",
                       f"leading {j + 1}x{j + 1} minor is singular, so it does not prove {j + 1} heads are needed")
    det = minors[-1] if minors else Fraction(1)
    ledger.require(rational(ledger, determinant, "lower_bound.determinant") == det,
                   "lower_bound.determinant", f"is not the determinant of the minor ({rat_text(det)})")


def nonsingular_minor_mod(ledger, M, prime, determinant):
    """Every leading principal minor of ``M`` is nonzero mod P, and ``determinant`` is its determinant mod P."""
    minors = leading_minors_mod(M, prime)
    for j, value in enumerate(minors):
        ledger.require(value != 0, "lower_bound.minor mod P",
                       f"leading {j + 1}x{j + 1} minor is zero mod {prime}, so it proves nothing")
    det = minors[-1] if minors else 1
    integer(ledger, determinant, "lower_bound.determinant_mod_p", 0, prime - 1)
    ledger.require(determinant == det, "lower_bound.determinant_mod_p",
                   f"is not the determinant of the minor mod {prime} ({det})")
