"""Obligations of ``gradient-highway`` certificates (standard library only).

1. ``0 < r < 1`` and the decay witness ``lyapunov``:
   - version 1: ``P`` symmetric; ``mu, M > 0``; ``P - mu I``, ``M I - P`` and ``r^2 P - A^T P A``
     positive definite (exact: characteristic polynomials with python-flint, leading minors without);
   - version 2: ``P = U^T diag(D) U + mu I`` with ``U`` unit upper triangular, ``D > 0`` and
     ``mu > 0`` (so ``P > mu I`` by its form); ``r^2 P - A^T P A`` has a strictly dominant positive
     diagonal (so it is positive definite); positive weights ``w`` with ``(|P| w)_i <= M w_i`` (so
     ``P <= M I``, Collatz-Wielandt).  Products and passes over matrices, nothing else.
2. ``K^2 >= ||C||_F^2 ||B||_F^2 M / mu``.  Together: ``||L_d||_F^2 <= K^2 r^(2d)`` for d >= 1.
3. The attention construction is exactly the documented one for (p, m) and ``beta``, and
   ``0 < c <= L / (L + n - 1)`` (m >= 2) or ``L / (2L + n - 2)`` (m = 1), with ``L`` the
   Taylor partial sum of ``e^beta`` (a lower bound).
4. The crossover: ``1 <= delta <= n - 1``, ``K^2 r^(2 delta) < c^2`` and (``delta = 1`` or
   ``K^2 r^(2 (delta - 1)) >= c^2``).  ``null`` claims nothing.
5. The recorded path lengths are those of the two computation graphs (own BFS).
"""

import re
from collections import deque
from fractions import Fraction
from math import factorial

from .linalg import (MAX_A_BITS, MAX_P_BITS, capped_integer_form, decrease_definite, definite_between,
                     factored_decay, integer_bits)
from .costs import MAX_DECAY_V1_WORK, MAX_NORM_WORK, charge, decay_v1_work, norm_work, within
from .numbers import rat_text
from .reading import Unreadable, integer, is_text, keys, matrix, rational, strict_equal

#: Limits that keep every gradient certificate decidable in seconds (docs/robustness.md); the
#: generator stays far inside them (Taylor terms <= 3 ceil(ln n) + 20, r on a 1/1000 grid).
MAX_TAYLOR = 256
MAX_CROSSOVER = 10_000
MAX_SMALL_DIGITS = 40
GRAPH_N = 12
#: The gradient certificate versions this checker verifies.
GRADIENT_VERSIONS = (1, 2)
#: Most word operations a version-2 decay witness may cost the checker's products, ``N^3 (wU + wD + wA + wmu)^2``
#: with ``w`` the 64-bit words of each matrix over its common denominator (the generator refuses the same).
MAX_DECAY_WORK = 10**10
ESTIMATE = re.compile(r"-?[0-9]+(\.[0-9]+)?(e[+-]?[0-9]+)?\Z")
CONSTRUCTION = "single-head-softmax-v1"


def _bfs(adj, start, goal):
    seen = {start: 0}
    todo = deque([start])
    while todo:
        u = todo.popleft()
        if u == goal:
            return seen[u]
        for v in adj.get(u, ()):
            if v not in seen:
                seen[v] = seen[u] + 1
                todo.append(v)
    return None


def _ssm_adj(n, feedthrough):
    adj = {}
    add = lambda a, b: adj.setdefault(a, []).append(b)
    for t in range(1, n + 1):
        add(("x", t), ("h", t))
        add(("h", t), ("y", t))
        if feedthrough:
            add(("x", t), ("y", t))
        if t < n:
            add(("h", t), ("h", t + 1))
    return adj


def _attention_adj(n):
    adj = {}
    add = lambda a, b: adj.setdefault(a, []).append(b)
    for t in range(1, n + 1):
        for part in ("q", "k", "v"):
            add(("x", t), (part, t))
    for i in range(1, n + 1):
        add(("x", i), ("y", i))
        for j in range(1, i + 1):
            add(("q", i), ("s", i, j))
            add(("k", j), ("s", i, j))
            add(("s", i, j), ("a", i))
            add(("v", j), ("y", i))
        add(("a", i), ("y", i))
    return adj


def decay_rate(ledger, value, where):
    """A decay rate: a rational in (0, 1) of at most ``MAX_SMALL_DIGITS`` digits above and below (its powers
    are formed exactly, so its size is bounded before any of them)."""
    ledger.require(is_text(value, 2 * MAX_SMALL_DIGITS + 2) and sum(ch.isdigit() for ch in value) <= 2 * MAX_SMALL_DIGITS,
                   where, f"must be a rational of at most {MAX_SMALL_DIGITS} digits above and below")
    r = rational(ledger, value, where)
    ledger.require(0 < r < 1, where, "must lie strictly between 0 and 1")
    return r


def check_decay(ledger, ly, r, system, where):
    """The Lyapunov witness ``{"P", "mu", "M"}`` of the decay rate r (``||L_d||_F^2 <= K^2 r^(2d)`` for d >= 1):
    P symmetric, ``P - mu I``, ``M I - P`` and ``r^2 P - A^T P A`` positive definite. Returns the least
    ``K^2 = ||C||_F^2 ||B||_F^2 M / mu`` it proves."""
    N, A, B, C = system["N"], system["A"], system["B"], system["C"]
    keys(ledger, ly, where, ("P", "mu", "M"))
    P = matrix(ledger, ly["P"], f"{where}.P", N, N)
    ledger.require(all(P[i][j] == P[j][i] for i in range(N) for j in range(i)), f"{where}.P", "must be symmetric")
    # the exact definiteness tests below cost grows with these sizes: refuse over the limit before any of them
    if integer_bits(P, MAX_P_BITS) > MAX_P_BITS:
        raise Unreadable(f"undecided: {where}.P: over the cost limit: its entries over a common denominator need "
                         f"more than {MAX_P_BITS} bits (the limit of the exact definiteness tests; docs/robustness.md)")
    if integer_bits(A, MAX_A_BITS) > MAX_A_BITS:
        raise Unreadable(f"undecided: system.A: over the cost limit of a decay certificate: its entries over a common "
                         f"denominator need more than {MAX_A_BITS} bits (docs/robustness.md)")
    mu = rational(ledger, ly["mu"], f"{where}.mu")
    M = rational(ledger, ly["M"], f"{where}.M")
    ledger.require(mu > 0 and M > 0, f"{where}.mu", "mu and M must be positive")
    r_bits = r.numerator.bit_length() + r.denominator.bit_length()
    work = decay_v1_work(N, integer_bits(P, MAX_P_BITS), integer_bits(A, MAX_A_BITS), r_bits)
    if work > MAX_DECAY_V1_WORK:
        raise Unreadable(f"undecided: {where}.P: the exact definiteness tests of this version-1 witness cost about "
                         f"{work} word operations (N = {N}); the limit is {MAX_DECAY_V1_WORK} (checker/costs.py); "
                         "neither verified nor rejected")
    charge(work)
    above_mu, below_M = definite_between(P, mu, M)
    ledger.require(above_mu, f"{where}.mu", "P - mu I is not positive definite")
    ledger.require(below_M, f"{where}.M", "M I - P is not positive definite")
    ledger.require(decrease_definite(A, P, r), f"{where}.P",
                   "r^2 P - A^T P A is not positive definite, so P does not prove the decay rate r")
    return _norms(ledger, C, B, M, mu, where)


def _norms(ledger, C, B, M, mu, where):
    """``||C||_F^2 ||B||_F^2 M / mu``, charged first (:func:`~symssm.checker.costs.norm_work`): C and B may hold
    many distinct big denominators, whose sums, products and decimal text cost the square of their total words."""
    work = norm_work([x for row in C for x in row], [x for row in B for x in row], [M, mu])
    within(ledger, work, MAX_NORM_WORK, where, f"the norms ||C||_F^2 ||B||_F^2 M / mu cost about {work} word "
           f"operations; the limit is {MAX_NORM_WORK} (checker/costs.py)")
    frob2 = lambda X: sum((x * x for row in X for x in row), Fraction(0))  # noqa: E731
    return frob2(C) * frob2(B) * M / mu


def decay_work(N, *bits):
    """The cost estimate of a version-2 decay witness's products: ``N^3`` times the squared sum of the words."""
    return N ** 3 * sum(-(-b // 64) for b in bits) ** 2


def _positive_vector(ledger, value, where, N):
    ledger.require(isinstance(value, list) and len(value) == N, where, f"must be a list of {N} rationals")
    out = matrix(ledger, [value], where, 1, N)[0]
    ledger.require(all(x > 0 for x in out), where, "every entry must be positive")
    return out


def check_factored_decay(ledger, ly, r, system, where):
    """The version-2 decay witness ``{"U", "D", "mu", "M", "weights"}`` of the rate r, with
    ``P = U^T diag(D) U + mu I``: ``U`` unit upper triangular, ``D``, ``mu`` and the weights positive,
    ``r^2 P - A^T P A`` strictly diagonally dominant with a positive diagonal, ``(|P| w)_i <= M w_i``.
    Returns the least ``K^2 = ||C||_F^2 ||B||_F^2 M / mu`` it proves."""
    N, A, B, C = system["N"], system["A"], system["B"], system["C"]
    keys(ledger, ly, where, ("U", "D", "mu", "M", "weights"))
    U = matrix(ledger, ly["U"], f"{where}.U", N, N)
    ledger.require(all(U[i][i] == 1 and not any(U[i][:i]) for i in range(N)), f"{where}.U",
                   "must be unit upper triangular (ones on the diagonal, zeros below it)")
    D = _positive_vector(ledger, ly["D"], f"{where}.D", N)
    mu = rational(ledger, ly["mu"], f"{where}.mu")
    ledger.require(mu > 0, f"{where}.mu", "must be positive")
    w = _positive_vector(ledger, ly["weights"], f"{where}.weights", N)
    M = rational(ledger, ly["M"], f"{where}.M")
    # the products below cost grows with N and these sizes: refuse over the limit before any of them
    cap = MAX_P_BITS
    forms = [capped_integer_form(X, cap) for X in (U, [D], [w])]
    mu_bits = integer_bits([[mu]], cap)
    if None in forms or max(f[2] for f in forms) > cap or mu_bits > cap:
        raise Unreadable(f"undecided: {where}: over the cost limit: its entries over a common denominator need "
                         f"more than {cap} bits (docs/robustness.md)")
    a_form = capped_integer_form(A, MAX_A_BITS)
    if a_form is None or a_form[2] > MAX_A_BITS:
        raise Unreadable(f"undecided: system.A: over the cost limit of a decay certificate: its entries over a common "
                         f"denominator need more than {MAX_A_BITS} bits (docs/robustness.md)")
    work = decay_work(N, forms[0][2], forms[1][2], mu_bits, a_form[2])
    if work > MAX_DECAY_WORK:
        raise Unreadable(f"undecided: {where}: over the cost limit: its products would cost about {work} word "
                         f"operations; the limit is {MAX_DECAY_WORK} (docs/robustness.md)")
    charge(work)
    decreases, bounded = factored_decay(A, U, D, mu, r, w, M, forms=[a_form] + forms)
    ledger.require(decreases, f"{where}.P",
                   "r^2 P - A^T P A (P = U^T diag(D) U + mu I) does not have a strictly dominant positive diagonal, "
                   "so P does not prove the decay rate r")
    ledger.require(bounded, f"{where}.M", "(|P| w)_i <= M w_i fails for the weights w, so P <= M I is not proven")
    return _norms(ledger, C, B, M, mu, where)


def check_gradient(ledger, cert, system):

    keys(ledger, cert, "certificate", ("format", "version", "kind", "generator", "system", "input_sha256", "n",
                                       "decay_rate", "decay_constant_squared", "spectral_radius_estimate",
                                       "lyapunov", "attention", "attention_lower_bound", "crossover_distance",
                                       "computation_graph"))
    m, p = system["m"], system["p"]
    n = integer(ledger, cert["n"], "n", 2, 10**12)
    ledger.require(is_text(cert["spectral_radius_estimate"], 40) and ESTIMATE.match(cert["spectral_radius_estimate"]),
                   "spectral_radius_estimate", "must be a short decimal string (informative, not verified)")
    r = decay_rate(ledger, cert["decay_rate"], "decay_rate")
    K2 = rational(ledger, cert["decay_constant_squared"], "decay_constant_squared")
    witness = check_factored_decay if cert["version"] == 2 else check_decay
    need = witness(ledger, cert["lyapunov"], r, system, "lyapunov")
    ledger.require(K2 >= need, "decay_constant_squared", f"must be at least ||C||_F^2 ||B||_F^2 M / mu = {rat_text(need)}")

    at = cert["attention"]
    keys(ledger, at, "attention", ("construction", "beta", "taylor_terms", "W_Q", "W_K", "W_V", "query_token",
                                   "key_token", "bound_interval"))
    ledger.require(at["construction"] == CONSTRUCTION, "attention.construction", f"must be {CONSTRUCTION!r}")
    ledger.require(is_text(at["beta"], 2 * MAX_SMALL_DIGITS + 2), "attention.beta",
                   f"must be a rational of at most {MAX_SMALL_DIGITS} digits above and below")
    beta = rational(ledger, at["beta"], "attention.beta")
    ledger.require(beta >= 0, "attention.beta", "must be non-negative")
    terms = integer(ledger, at["taylor_terms"], "attention.taylor_terms", 0, MAX_TAYLOR)
    unit = lambda size, i: [Fraction(int(k == i)) for k in range(size)]
    WQ = matrix(ledger, at["W_Q"], "attention.W_Q", 1, m)
    WK = matrix(ledger, at["W_K"], "attention.W_K", 1, m)
    WV = matrix(ledger, at["W_V"], "attention.W_V", p, m)
    q_tok = matrix(ledger, [at["query_token"]], "attention.query_token", 1, m)[0]
    k_tok = matrix(ledger, [at["key_token"]], "attention.key_token", 1, m)[0]
    if m >= 2:
        want = ([[beta * x for x in unit(m, 0)]], [unit(m, 1)],
                [[Fraction(int(i == 0 and j == 1)) for j in range(m)] for i in range(p)], unit(m, 0), unit(m, 1))
    else:
        want = ([[beta]], [[Fraction(1)]], [[Fraction(int(i == 0))] for i in range(p)], [Fraction(1)], [Fraction(1)])
    ledger.require((WQ, WK, WV, q_tok, k_tok) == want, "attention", "is not the documented construction for these p, m")
    ledger.require(isinstance(at["bound_interval"], list) and len(at["bound_interval"]) == 2
                   and all(is_text(x, 40) and ESTIMATE.match(x) for x in at["bound_interval"]),
                   "attention.bound_interval", "must be two short decimal strings (informative)")
    L = sum((beta ** k / factorial(k) for k in range(terms + 1)), Fraction(0))
    exact = L / (L + n - 1) if m >= 2 else L / (2 * L + n - 2)
    ledger.require(is_text(cert["attention_lower_bound"], 2 * MAX_SMALL_DIGITS + 2), "attention_lower_bound",
                   f"must be a rational of at most {MAX_SMALL_DIGITS} digits above and below")
    c = rational(ledger, cert["attention_lower_bound"], "attention_lower_bound")
    ledger.require(0 < c <= exact, "attention_lower_bound",
                   f"must be positive and at most the proven bound {float(exact):.6g}")

    delta = cert["crossover_distance"]
    if delta is not None:
        integer(ledger, delta, "crossover_distance", 1, min(n - 1, MAX_CROSSOVER))
        ledger.require(K2 * r ** (2 * delta) < c * c, "crossover_distance",
                       f"K r^{delta} is not below the attention bound c")
        ledger.require(delta == 1 or K2 * r ** (2 * (delta - 1)) >= c * c, "crossover_distance",
                       f"is not the least such distance (K r^{delta - 1} < c already)")

    cg = cert["computation_graph"]
    keys(ledger, cg, "computation_graph", ("n", "ssm_path_edges", "attention_path_edges"))
    gn = integer(ledger, cg["n"], "computation_graph.n", GRAPH_N, GRAPH_N)
    ssm_adj, att_adj = _ssm_adj(gn, system["D"] is not None), _attention_adj(gn)
    ledger.require(strict_equal(cg["ssm_path_edges"], [_bfs(ssm_adj, ("x", 1), ("y", 1 + d)) for d in range(gn)]),
                   "computation_graph.ssm_path_edges", "are not the SSM graph's shortest path lengths")
    ledger.require(strict_equal(cg["attention_path_edges"], [_bfs(att_adj, ("x", 1), ("y", 1 + d)) for d in range(gn)]),
                   "computation_graph.attention_path_edges", "are not the attention graph's shortest path lengths")
    name = system["name"] or "the system"
    cross = f"attention dominates from distance {delta}" if delta is not None else "no crossover certified"
    return (f"gradient-highway for {name!r}: ||L_d||_F <= K r^d with r = {rat_text(r)}, attention >= "
            f"{rat_text(c)} up to n = {n}; {cross}")
