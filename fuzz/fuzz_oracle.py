"""Oracle fuzzing of the checker, one certificate kind at a time: an accepted mutant must be a true claim.

Each mutant changes one to three things in a valid certificate the way a forger would: a number (plus or
minus one, a sign, doubled, halved, zero, a third added, swapped with another number of the certificate), an
integer (a claimed count, rank, length or index), a list (an element dropped, repeated or two swapped), the
dimensions (a state added to the system with zero rows and columns, which keeps every lag) or the claimed
tolerance; the system's hash is then recomputed (nine times in ten, with the checker's own reader of the
kind) so the mutant reaches the mathematical obligations. The checker runs in this process
(:func:`symssm.checker.core.check_data`, as ``symssm check`` calls it, with a 10 s budget per mutant), and
every mutant it accepts is re-judged by an oracle written here from the definitions (no checker code, and no
generator code beyond its readers of layer specs):

* ``head-count`` (real, modular, feedthrough) and ``gaussian`` (head counts over Q(i)): the lags ``C A^d B``
  (``+ D`` at d = 0) in exact Fractions (Gaussian rationals as pairs), their rank by Gaussian elimination (over
  Q(i) the realified rank halved); the profile, ``holds_for``, the witnesses' span, the value maps and the gap;
* ``gradient``: ``||L_k||_F^2 <= K^2 r^(2k)`` for the first 60 lags exactly, the attention bound in mpmath;
* ``approximate`` (``approximate-head-count``): the Gram matrix ``sum_{d<n} (n - d) vec L_d vec L_d^T`` in
  mpmath at 100 digits (beyond n = 20,000 summed until 200 terms in a row are below 10^-125 of the total and
  ``A^d`` below 10^-60), its eigenvalues, ``e_H = sqrt(S_H / tr G)``: every bracket must contain ``e_H`` and the
  count must be the least ``H`` with ``e_H <= tolerance`` (or, when none is claimed, one of the two it names);
* ``trained`` (``trained-head-count``): the same at 110 digits, the lags from the S4D, S5 or LRU parameters
  (zero-order hold, docs/models.md) in mpmath;
* ``interaction`` (``interaction-rank``): the blocks of the layer (operator, convolution, selective SSM, linear
  attention) in Fractions, their exact rank, the value maps' span; softmax attention by the numerical rank
  (mpmath SVD at 60 digits) of its blocks.

The valid certificates mutated are stored in fuzz/oracle_bases.json (``--write-bases`` rebuilds them with the
generator, which needs python-flint; the fuzzer runs without it, the checker then taking its pure fallback).

A claim within 10^-40 of the truth (relative) counts as confirmed; an oracle that cannot decide (a singular
value between 10^-40 and 10^-12, a tail that does not decay) is counted apart, never as confirmed.

    python fuzz/fuzz_oracle.py --kind gaussian --seed 1 --count 100000 --workers 16

Mutant ``i`` of seed ``s`` depends on ``(s, i)`` only, so a run gives the same counts whatever ``--workers``.
Prints one summary line (kind, mutants, verdicts, FALSE ACCEPTANCES, tracebacks, seconds); each false
acceptance or traceback is written to ``--findings`` (default fuzz/findings/) as a JSON reproducer. Exits 1
on any false acceptance or traceback (an exception out of the checker, or its "malformed certificate, read
by no obligation" fall-through), 0 otherwise.
"""

import argparse
import collections
import copy
import json
import multiprocessing
import os
import random
import re
import sys
import time
from fractions import Fraction

import mpmath

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
KINDS = ("head-count", "gradient", "gaussian", "approximate", "trained", "interaction")
SLACK = mpmath.mpf(10) ** -40
FALLTHROUGH = "undecided: malformed certificate, read by no obligation"


# ---------------------------------------------------------------------------------------------------- bases

def _load(name):
    with open(os.path.join(ROOT, "certificates", name)) as fh:
        return json.load(fh)


def _bases_head_count():
    from symssm import certify
    from symssm.sources.examples import example

    return [certify(example("two-rotations").system, 8, method="exact").data,
            certify(example("two-rotations").system, 8, method="modular").data,
            certify(example("shift5-two-outputs").system, 3, method="exact").data,
            certify(example("shift-with-feedthrough").system, 5, method="modular").data,
            certify(example("zero-output").system, 4).data,
            _load("companion-N4-p2-m1.json")]


def _bases_gradient():
    from symssm import ssm
    from symssm.api import gradient_certificate

    return [gradient_certificate(ssm([["1/2", 3], [0, "1/3"]], [[1, 0], [0, 1]], [[1, 1]]), 200).data,
            _load("diagonal-N2-p1-m1.gradient.json"), _load("hippo-legs-N2-p1-m1.gradient.json")]


def _bases_gaussian():
    from symssm.api import certify
    from symssm.sources.complex_system import complex_ssm

    A = [["1/2+1/3i", "0"], ["0", "-1i"]]
    return [certify(complex_ssm(A, [[1, "2i"], [0, 1]], [[1, 0], [0, 1]], name="c"), 6).data,
            certify(complex_ssm([["1i", "1"], ["0", "1i"]], [["0"], ["1"]], [["1", "0"]], [["1/2i"]], name="d"),
                    5).data,
            certify(complex_ssm([["0", "1"], ["0", "0"]], [["1+1i"], ["1"]], [["1", "-1i"], ["2", "-2i"]], name="e"),
                    4).data,
            certify(complex_ssm([["1i", "1", "0", "0"], ["0", "1/2", "0", "1"], ["0", "0", "-1", "0"], ["1", "0", "0", "0"]],
                                [["1"], ["1i"], ["0"], ["2"]], [["1", "0", "1i", "0"], ["0", "1", "0", "1"]], name="f"),
                    9, method="modular").data]


def _bases_approximate():
    import symssm.certificate.approximate as approximate_certificate
    from symssm.api import certify
    from symssm.formats.rationals import parse_tolerance
    from symssm.sources.system import ssm

    a = ssm([["1/2", 0], [0, "-1/3"]], [[1], [1]], [[1, 0], [0, 1]], name="a")
    b = ssm([["1/2", "1/5"], [0, "1/4"]], [[1, 0], [0, 1]], [[1, "1/3"], [0, 1]], name="b")
    # a certified tail (n = 10^6): 200 lags summed exactly, not the most the limits allow (4096: 2 s a check)
    tol = parse_tolerance("1/1000", floats=False)
    return [certify(a, 8, tolerance="1/100").data, certify(b, 12, tolerance="1/10").data,
            approximate_certificate.within_limits(approximate_certificate._tail_data(b, 10 ** 6, 200, tol))]


def _bases_trained():
    import numpy as np

    from symssm.api import certify
    from symssm.sources.checkpoints import CheckpointLayer
    from symssm.sources.trained import trained_layer

    f = lambda *v: np.array(v, np.float32)  # noqa: E731
    s4d = {"kernel.log_dt": f(-1.0, -2.0), "kernel.log_A_real": f([-0.5], [0.0]), "kernel.A_imag": f([1.0], [0.5]),
           "kernel.C": f([[0.5, -1.0]], [[1.0, 0.25]]), "D": f(0.25, 0.0)}
    s4d1 = {"kernel.log_dt": f(-1.0), "kernel.log_A_real": f([-0.5]), "kernel.A_imag": f([1.0]),
            "kernel.C": f([[0.5, -1.0]]), "D": f(0.25)}
    s5 = {"Lambda_re": f(-0.5, -0.25), "Lambda_im": f(1.0, 0.0), "log_step": f(-1.0, -1.0),
          "B": f([[1.0, 0.0], [0.5, 0.0]], [[0.0, 1.0], [1.0, 0.0]]), "C": f([[1.0, 0.0], [0.0, 1.0]],
                                                                              [[0.5, 0.5], [1.0, 0.0]]),
          "D": f(0.5, 0.0)}
    lru = {"nu_log": f(0.0, -1.0), "theta_log": f(-1.0, 0.0), "gamma_log": f(0.0, 0.0),
           "B_re": f([1.0, 0.0], [0.5, 1.0]), "B_im": f([0.0, 0.0], [0.0, 0.5]),
           "C_re": f([1.0, 0.0], [0.0, 1.0]), "C_im": f([0.0, 0.25], [0.0, 0.0]), "D": f(0.0, 1.0)}

    def make(arch, tensors, n, tol):
        return certify(trained_layer(CheckpointLayer("l", arch, tensors), "m.npz"), n, tolerance=tol).data
    import symssm.exact.trained as generator

    keep = generator.MAX_SURROGATE_LAGS
    generator.MAX_SURROGATE_LAGS = 200  # a tail (n = 10^6) after 200 lags, not 4096 (70 ms a check, 4,000 leaves)
    try:
        tail = make("s4d", s4d, 10 ** 6, "1/100")
    finally:
        generator.MAX_SURROGATE_LAGS = keep
    return [make("s4d", s4d1, 4, "1/100"), make("s4d", s4d, 16, "1/10"), make("s5", s5, 8, "1/10"),
            make("lru", lru, 8, "1/10"), tail]


#: The layer kinds this oracle's ``_blocks`` writes out; the linear-recurrence kinds have their own token-by-token
#: oracle (tests/test_recurrent_layers.py, tests/checker/test_recurrent_hostile.py).
_ORACLE_LAYERS = {"operator", "convolution", "linear-attention", "selective-ssm", "softmax-attention"}


def _bases_interaction():
    from symssm.catalog import build_framework

    return [copy.deepcopy(c.data) for _, _, c, *_ in build_framework(None, seed=0, n=3, m=1, every_input=False)
            if c.data["system"]["kind"] in _ORACLE_LAYERS]


BUILDERS = {"head-count": _bases_head_count, "gradient": _bases_gradient, "gaussian": _bases_gaussian,
         "approximate": _bases_approximate, "trained": _bases_trained, "interaction": _bases_interaction}


# --------------------------------------------------------------------------------------------------- numbers

def _gaussian_parse(text):
    """``(re, im)`` of a canonical Gaussian rational text (``"p/q"``, ``"p/qi"``, ``"p/q+r/si"``), else None."""
    if not isinstance(text, str) or not text:
        return None
    try:
        if not text.endswith("i"):
            return Fraction(text), Fraction(0)
        body = text[:-1]
        cut = max(body.rfind("+"), body.rfind("-"))
        if cut <= 0:
            return Fraction(0), Fraction(body)
        return Fraction(body[:cut]), Fraction(body[cut:])
    except (ValueError, ZeroDivisionError):
        return None


def _rational_text(x):
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _gaussian_text(re, im):
    if im == 0:
        return _rational_text(re)
    imag = _rational_text(im) + "i"
    if re == 0:
        return imag
    return _rational_text(re) + ("" if im < 0 else "+") + imag


def _perturb_number(rng, text, gaussian):
    re, im = _gaussian_parse(text)
    op = rng.randrange(9)
    if op == 0:
        re += 1
    elif op == 1:
        re -= 1
    elif op == 2:
        re, im = -re, -im
    elif op == 3:
        re, im = 2 * re, 2 * im
    elif op == 4:
        re, im = re / 2, im / 2
    elif op == 5:
        re, im = Fraction(0), Fraction(0)
    elif op == 6:
        re += Fraction(1, 3)
    elif op == 7 and gaussian:
        im += 1
    else:
        re += Fraction(rng.choice([1, -1]), 2 ** rng.randint(1, 70))
    return _gaussian_text(re, im) if gaussian else _rational_text(re)


# ------------------------------------------------------------------------------------------------- mutation

def _leaves(obj, path=()):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _leaves(v, path + (k,))
    elif isinstance(obj, list):
        yield path
        for i, v in enumerate(obj):
            yield from _leaves(v, path + (i,))
    else:
        yield path


def _at(obj, path):
    for key in path:
        obj = obj[key]
    return obj


def _add_state(rng, d):
    """A state with zero rows and columns (N + 1): every lag, hence every true claim, stays the same."""
    s = d.get("system")
    if not (isinstance(s, dict) and all(isinstance(s.get(k), list) for k in "ABC") and type(s.get("N")) is int):
        return False
    s["A"] = [row + ["0"] for row in s["A"]] + [["0"] * (len(s["A"]) + 1)]
    s["B"] = s["B"] + [["0"] * len(s["B"][0])] if s["B"] else s["B"]
    s["C"] = [row + ["0"] for row in s["C"]]
    s["N"] += 1
    if "truncation" in d and type(d["truncation"]) is int and rng.random() < 0.7:
        d["truncation"] += 1
    return True


_RATIONAL = r"-?(?:0|[1-9][0-9]*)(?:/[1-9][0-9]*)?"
_NUMBER = re.compile(rf"{_RATIONAL}|(?:{_RATIONAL}[+-])?(?:0|[1-9][0-9]*)(?:/[1-9][0-9]*)?i|-(?:0|[1-9][0-9]*)(?:/[1-9][0-9]*)?i")


def _classify(d):
    """The certificate's edit sites: number texts, integers and non-empty lists (paths, found once per mutant)."""
    numbers, ints, lists = [], [], []
    for path in _leaves(d):
        if not path or path[0] in ("format", "generator"):
            continue
        v = _at(d, path)
        if isinstance(v, str):
            if _NUMBER.fullmatch(v):
                numbers.append(path)
        elif type(v) is int:
            ints.append(path)
        elif isinstance(v, list) and v:
            lists.append(path)
    return numbers, ints, lists


def _site(d, paths, rng, want):
    """A random path of ``paths`` that still holds a value ``want`` accepts (earlier edits may have moved it)."""
    for _ in range(4):
        path = rng.choice(paths)
        try:
            parent = _at(d, path[:-1])
            value = parent[path[-1]]
        except (KeyError, IndexError, TypeError):
            continue
        if want(value):
            return parent, path[-1], value
    return None


def _mutate_once(rng, d, gaussian, sites):
    numbers, ints, lists = sites
    r = rng.random()
    if r < 0.40 and numbers:
        hit = _site(d, numbers, rng, lambda v: isinstance(v, str) and _gaussian_parse(v) is not None)
        if hit:
            parent, key, value = hit
            if rng.random() < 0.15:
                other = _site(d, numbers, rng, lambda v: isinstance(v, str))
                parent[key] = other[2] if other else value
            else:
                parent[key] = _perturb_number(rng, value, gaussian)
    elif r < 0.65 and ints:
        hit = _site(d, ints, rng, lambda v: type(v) is int)
        if hit:
            parent, key, v = hit
            parent[key] = rng.choice([v + 1, v - 1, v + 2, 0, 2 * v, v + rng.randint(3, 50)])
    elif r < 0.80 and lists:
        hit = _site(d, lists, rng, lambda v: isinstance(v, list) and v)
        if hit:
            lst = hit[2]
            op = rng.randrange(4)
            if op == 0:
                del lst[rng.randrange(len(lst))]
            elif op == 1:
                lst.insert(rng.randrange(len(lst) + 1), copy.deepcopy(rng.choice(lst)))
            elif op == 2 and len(lst) > 1:
                i, j = rng.sample(range(len(lst)), 2)
                lst[i], lst[j] = lst[j], lst[i]
            else:
                lst.pop()
    elif r < 0.87:
        _add_state(rng, d)
    elif r < 0.94 and "head_count" in d:
        v = d["head_count"]
        if type(v) is not int:
            d["head_count"], d["undecided_at"] = rng.randint(0, 3), None
        elif rng.random() < 0.3 and "undecided_at" in d:
            d["head_count"], d["undecided_at"] = None, max(v - 1, 0)
        else:
            d["head_count"] = v + rng.choice([-1, 1])
    elif "tolerance" in d and isinstance(d["tolerance"], str) and _gaussian_parse(d["tolerance"]):
        t = Fraction(d["tolerance"]) * rng.choice([Fraction(1, 2), 2, 10, Fraction(1, 10), Fraction(99, 100)])
        d["tolerance"] = _rational_text(t)
    elif "n" in d and type(d["n"]) is int:
        d["n"] = rng.choice([d["n"] + 1, d["n"] - 1, 2 * d["n"], d["n"] + 1000, 1])


def mutate(rng, base, kind):
    """One mutant of ``base``: one to three edits, then (nine times in ten) the system's hash recomputed."""
    d = copy.deepcopy(base)
    sites = _classify(d)
    for _ in range(rng.choice([1, 1, 1, 2, 3])):
        _mutate_once(rng, d, kind == "gaussian", sites)
    if rng.random() < 0.9:
        _rehash(d)
    return d


def _rehash(d):
    from symssm.checker.core import KINDS as CHECKER_KINDS
    from symssm.checker.reading import Ledger

    row = CHECKER_KINDS.get((d.get("kind"), d.get("field")))
    if row is None:
        return
    try:
        d["input_sha256"] = row[0](Ledger(), d["system"])["sha256"]
    except Exception:  # noqa: BLE001 - a system the reader refuses keeps its old hash (the checker refuses it)
        pass


# --------------------------------------------------------------------------------------------------- oracles

def _rank(rows):
    """Exact rank of a list of rows of Fractions (Gaussian elimination written here)."""
    rows = [list(r) for r in rows if any(r)]
    rank, col = 0, 0
    width = len(rows[0]) if rows else 0
    while rows and col < width:
        pivot = next((i for i in range(rank, len(rows)) if rows[i][col] != 0), None)
        if pivot is None:
            col += 1
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        p = rows[rank]
        for i in range(rank + 1, len(rows)):
            if rows[i][col] != 0:
                f = rows[i][col] / p[col]
                rows[i] = [a - f * b for a, b in zip(rows[i], p)]
        rank += 1
        col += 1
    return rank


def _matrix(rows, gaussian):
    """A certificate's matrix as rows of Fractions, or of ``(re, im)`` pairs over Q(i)."""
    if gaussian:
        return [[_gaussian_parse(x) for x in row] for row in rows]
    return [[Fraction(x) for x in row] for row in rows]


def _mul(X, Y, gaussian):
    if not gaussian:
        return [[sum((a * b for a, b in zip(row, col)), Fraction(0)) for col in zip(*Y)] for row in X]
    return [[(sum((a[0] * b[0] - a[1] * b[1] for a, b in zip(row, col)), Fraction(0)),
              sum((a[0] * b[1] + a[1] * b[0] for a, b in zip(row, col)), Fraction(0))) for col in zip(*Y)] for row in X]


def system_lags(s, count, gaussian=False):
    """``L_0 .. L_{count-1}`` of a certificate's system (``L_0 = CB + D``), with arithmetic written here."""
    A, X, C = (_matrix(s[k], gaussian) for k in "ABC")
    out = []
    for d in range(count):
        L = _mul(C, X, gaussian) if C and X and X[0] else [[] for _ in C]
        if d == 0 and s.get("D") is not None:
            D = _matrix(s["D"], gaussian)
            L = [[(a[0] + b[0], a[1] + b[1]) if gaussian else a + b for a, b in zip(r1, r2)] for r1, r2 in zip(L, D)]
        out.append(L)
        if d + 1 < count:
            X = _mul(A, X, gaussian)
    return out


def _span_rank(lags, gaussian):
    """dim span over the field (Q or Q(i)) of the lags."""
    if not gaussian:
        return _rank([[x for row in L for x in row] for L in lags])
    # over Q(i): realify (v, i v) and halve the rational rank
    rows = []
    for L in lags:
        re = [z[0] for row in L for z in row]
        im = [z[1] for row in L for z in row]
        rows += [re + im, [-x for x in im] + re]
    return _rank(rows) // 2


def _head_count_truth(d, gaussian):
    """Whether every claim of an accepted head-count certificate is true (the lags' ranks, written here)."""
    s = d["system"]
    n = d["n"]
    lag_list = system_lags(s, s["N"] + 2, gaussian)
    k = [0] + [_span_rank(lag_list[:t], gaussian) for t in range(1, len(lag_list) + 1)]
    eventual = k[-1]
    kn = lambda t: k[min(t, len(k) - 1)]  # noqa: E731  (k(t) is constant from N + 1 on)
    hc = d["head_count"]
    if hc != kn(n) or d["heads"]["H"] != hc:
        return False
    c0 = next(t for t in range(1, len(k)) if k[t] == eventual)
    prof = d["profile"]
    if prof["eventual"] != eventual or prof["values"] != k[1:c0 + 1] or prof["constant_from"] != c0:
        return False
    lo = next(t for t in range(len(k)) if k[t] == hc)
    hi = None if hc == eventual else max(t for t in range(len(k)) if k[t] == hc)
    if [d["holds_for"]["from"], d["holds_for"]["to"]] != [lo, hi]:
        return False
    vl = d["heads"]["value_map_lags"]
    if len(vl) != hc or len(set(vl)) != hc or any(not 0 <= x < n for x in vl):
        return False
    chosen = system_lags(s, max(vl) + 1, gaussian) if vl else []
    if _span_rank([chosen[x] for x in vl], gaussian) != hc:
        return False
    maps = d["heads"].get("value_maps")
    if maps is not None and (len(maps) != hc or any(_matrix(M, gaussian) != chosen[x] for x, M in zip(vl, maps))):
        return False
    return d["interaction_rank_gap"] == [{"H": h, "minor_order": h + 1} for h in range(hc)]


def _gradient_truth(d):
    s = d["system"]
    r, K2 = Fraction(d["decay_rate"]), Fraction(d["decay_constant_squared"])
    c = Fraction(d["attention_lower_bound"])
    ok = all(sum(x * x for row in L for x in row) <= K2 * r ** (2 * k) for k, L in enumerate(system_lags(s, 60)) if k)
    with mpmath.workdps(50):
        beta = Fraction(d["attention"]["beta"])
        e = mpmath.exp(mpmath.mpf(beta.numerator) / beta.denominator)
        n = d["n"]
        bound = e / (e + n - 1) if s["m"] >= 2 else e / (2 * e + n - 2)
        ok = ok and mpmath.mpf(c.numerator) / c.denominator <= bound
    delta = d["crossover_distance"]
    if delta is not None:
        ok = ok and K2 * r ** (2 * delta) < c * c
    return ok


class OracleUndecided(Exception):
    """The oracle cannot judge this mutant (counted apart, never as confirmed)."""


def _gram(vectors_of_d, n, tail_ok):
    """``sum_{d<n} (n - d) v_d v_d^T`` in mpmath; beyond 20,000 lags, summed until the terms are negligible."""
    G, total, small = None, mpmath.mpf(0), 0
    for dd, v in vectors_of_d():
        if dd >= n:
            break
        w = n - dd
        if G is None:
            G = mpmath.zeros(len(v), len(v))
        norm = sum(x * x for x in v)
        for i in range(len(v)):
            if v[i]:
                for j in range(len(v)):
                    G[i, j] += w * v[i] * v[j]
        total += w * norm
        if n > 20000:
            small = small + 1 if w * norm <= total * mpmath.mpf(10) ** -125 else 0
            if small >= 200 and tail_ok(dd):
                break
            if dd > 100000:
                raise OracleUndecided("the lags do not decay within 100000 steps")
    return G


def _errors_truth(G, pm):
    """``e_H`` for H = 0..pm (mpmath), from the Gram matrix."""
    if G is None:
        return [mpmath.mpf(0)] * (pm + 1)
    tr = sum(G[i, i] for i in range(G.rows))
    if tr == 0:
        return [mpmath.mpf(0)] * (pm + 1)
    ev = sorted((max(x, 0) for x in mpmath.eigsy(G, eigvals_only=True)), reverse=True)
    return [mpmath.sqrt(max(sum(ev[H:], mpmath.mpf(0)), 0) / tr) for H in range(len(ev) + 1)]


def _le(a, b):
    """``a <= b`` up to the slack; None when too close to tell against a nonzero margin."""
    return a <= b + SLACK * (1 + abs(b))


def _claims_follow(d, e, tol):
    """The brackets contain the true errors and the count (or its absence) is the true one."""
    for br in d["errors"]:
        H = br["H"]
        if H >= len(e):
            return False
        lo, up = Fraction(br["lower"]), Fraction(br["upper"])
        if not (_le(_mp(lo), e[H]) and _le(e[H], _mp(up))):
            return False
    tolm = _mp(tol)
    k_true = next((H for H in range(len(e)) if e[H] <= tolm), None)
    near = any(abs(x - tolm) <= SLACK * tolm for x in e)
    if near:
        raise OracleUndecided("an error within 10^-40 of the tolerance")
    if d["head_count"] is not None:
        return d["head_count"] == k_true
    K = d["undecided_at"] + 1
    return k_true in (K - 1, K)


def _mp(x):
    return mpmath.mpf(x.numerator) / x.denominator


def _approximate_truth(d):
    s = d["system"]
    n, pm = d["n"], s["p"] * s["m"]
    with mpmath.workdps(100):
        M = lambda rows: mpmath.matrix([[_mp(Fraction(x)) for x in r] for r in rows])  # noqa: E731
        A, B, C = M(s["A"]), M(s["B"]), M(s["C"])
        D = M(s["D"]) if s["D"] is not None else None

        def vectors():
            X, dd = B, 0
            while True:
                L = C * X
                if dd == 0 and D is not None:
                    L = L + D
                yield dd, [L[i, j] for i in range(L.rows) for j in range(L.cols)]
                X, dd = A * X, dd + 1

        def decays(dd):
            X = A ** min(dd, 10 ** 6)
            return mpmath.mnorm(X, "F") < mpmath.mpf(10) ** -60

        G = _gram(vectors, n, decays)
        e = _errors_truth(G, pm)
        return _claims_follow(d, e, Fraction(d["tolerance"]))


def _trained_modes(s):
    """``(E, scale, [(lambda, {entry: weight})], {entry: D})``: the layer's lags are ``scale Re(sum w lambda^d)`` (+ D
    at d = 0), from its parameters by docs/models.md's definitions (zero-order hold; written here in mpmath)."""
    arch, H, P = s["architecture"], s["channels"], s["modes"]
    par = s["parameters"]

    def q(x):
        return _mp(Fraction(x))

    def c(pair):
        return mpmath.mpc(q(pair[0]), q(pair[1]))

    modes = []
    if arch == "s4d":
        for h in range(H):
            dt = mpmath.exp(q(par["log_dt"][h]))
            for p in range(P):
                A = mpmath.mpc(-mpmath.exp(q(par["log_A_real"][h][p])), q(par["A_imag"][h][p]))
                lam = mpmath.exp(dt * A)
                modes.append((lam, {h: c(par["C"][h][p]) * (lam - 1) / A}))
        E, scale = H, 2
    elif arch == "s5":
        for p in range(P):
            Lam = mpmath.mpc(q(par["Lambda_re"][p]), q(par["Lambda_im"][p]))
            lam = mpmath.exp(Lam * mpmath.exp(q(par["log_step"][p])))
            Bbar = [(lam - 1) / Lam * c(par["B"][p][j]) for j in range(H)]
            modes.append((lam, {i * H + j: c(par["C"][i][p]) * Bbar[j] for i in range(H) for j in range(H)}))
        E, scale = H * H, 2
    else:
        for p in range(P):
            lam = mpmath.exp(mpmath.mpc(-mpmath.exp(q(par["nu_log"][p])), mpmath.exp(q(par["theta_log"][p]))))
            g = mpmath.exp(q(par["gamma_log"][p]))
            modes.append((lam, {i * H + j: mpmath.mpc(q(par["C_re"][i][p]), q(par["C_im"][i][p])) * g
                                * mpmath.mpc(q(par["B_re"][p][j]), q(par["B_im"][p][j])) for i in range(H) for j in range(H)}))
        E, scale = H * H, 1
    D = par.get("D")
    Dmap = None if D is None else {(i if arch == "s4d" else i * H + i): Fraction(D[i]) for i in range(H)}
    return E, scale, modes, Dmap


def _trained_truth(d):
    s = d["system"]
    n = d["n"]
    with mpmath.workdps(110):
        E, scale, modes, Dmap = _trained_modes(s)
        big = max((abs(lam) for lam, _ in modes), default=mpmath.mpf(0))

        def vectors():
            powers = [mpmath.mpc(1)] * len(modes)
            dd = 0
            while True:
                v = [mpmath.mpc(0)] * E
                for p, (lam, w) in enumerate(modes):
                    for e, x in w.items():
                        v[e] += x * powers[p]
                out = [scale * x.real for x in v]
                if dd == 0 and Dmap is not None:
                    for e, x in Dmap.items():
                        out[e] += _mp(x)
                yield dd, out
                powers = [z * lam for z, (lam, _) in zip(powers, modes)]
                dd += 1

        def decays(dd):
            if big >= 1:
                raise OracleUndecided("a mode of modulus >= 1")
            return big ** dd < mpmath.mpf(10) ** -60

        G = _gram(vectors, n, decays)
        e = _errors_truth(G, E)
        return _claims_follow(d, e, Fraction(d["tolerance"]))


def _blocks(layer):
    """``{(i, j): W_ij}`` of an exact layer (Fractions), by docs/framework.md's definitions, written here."""
    n, p, m = layer.n, layer.p, layer.m
    zero = [[Fraction(0)] * m for _ in range(p)]
    add = lambda X, Y: [[a + b for a, b in zip(r, t)] for r, t in zip(X, Y)]  # noqa: E731
    apply = lambda M, x: [sum((a * b for a, b in zip(row, x)), Fraction(0)) for row in M]  # noqa: E731
    mat = lambda M: [[Fraction(x) for x in row] for row in M]  # noqa: E731
    kind = layer.kind
    if kind == "operator":
        return {tuple(ij): mat(W) for ij, W in layer.param("blocks")}
    if kind == "convolution":
        K = [mat(k) for k in layer.param("kernel")]
        return {(i, j): K[i - j] if i - j < len(K) else zero for i in range(1, n + 1) for j in range(1, i + 1)}
    if kind == "linear-attention":
        X, heads = layer.param("X"), layer.param("heads")
        out = {}
        for i in range(1, n + 1):
            for j in range(1, i + 1):
                W = zero
                for Q, K, V in heads:
                    w = sum((a * b for a, b in zip(apply(Q, X[i - 1]), apply(K, X[j - 1]))), Fraction(0))
                    W = add(W, [[w * Fraction(v) for v in row] for row in V])
                out[(i, j)] = W
        return out
    if kind == "selective-ssm":
        A, B, C, D = (layer.param(k) for k in "ABCD")
        out = {}
        for j in range(1, n + 1):
            X = mat(B[j - 1])
            W = _mul(mat(C[j - 1]), X, False)
            out[(j, j)] = add(W, mat(D[j - 1])) if D is not None else W
            for i in range(j + 1, n + 1):
                X = _mul(mat(A[i - 1]), X, False)
                out[(i, j)] = _mul(mat(C[i - 1]), X, False)
        return out
    raise OracleUndecided(f"no oracle for layers of kind {kind}")


def _interaction_truth(d):
    from symssm.sources.layers import layer_from_data

    s = d["system"]
    spec = {k: v for k, v in s.items() if k not in ("n", "p", "m") or k in _layer_fields(s)}  # derived sizes
    layer = layer_from_data(spec)
    if (layer.n, layer.p, layer.m) != (s["n"], s["p"], s["m"]):
        return False  # the certificate states other dimensions than the layer has
    r = d["interaction_rank"]
    if d["system"]["kind"] == "softmax-attention":
        return _softmax_truth(d, layer)
    blocks = _blocks(layer)
    vec = lambda W: [Fraction(x) for row in W for x in row]  # noqa: E731
    true_r = _rank([vec(W) for W in blocks.values()])
    if r != true_r or d["heads"]["H"] != r:
        return False
    vb = [tuple(b) for b in d["heads"]["value_map_blocks"]]
    if len(vb) != r or len(set(vb)) != r or any(b not in blocks for b in vb):
        return False
    if _rank([vec(blocks[b]) for b in vb]) != r:
        return False
    maps = d["heads"]["value_maps"]
    if len(maps) != r or any(vec(blocks[b]) != [Fraction(x) for row in M for x in row] for b, M in zip(vb, maps)):
        return False
    return d["interaction_rank_gap"] == [{"H": h, "minor_order": h + 1} for h in range(r)]


def _layer_fields(s):
    from symssm.sources import layer_kinds

    row = layer_kinds.of(s["kind"])
    return row.required | row.optional


def _softmax_truth(d, layer):
    """The rank of the blocks ``W_ij = sum_h a^h_ij V_h``, ``a^h_ij = softmax_j((Q_h x_i) . (K_h x_j))`` for j <= i,
    numerically (mpmath at 60 digits, singular values against 10^-12 of the largest)."""
    r = d["interaction_rank"]
    X, heads = layer.param("X"), layer.param("heads")
    with mpmath.workdps(60):
        x = [[_mp(Fraction(v)) for v in row] for row in X]
        dot = lambda u, v: mpmath.fsum(a * b for a, b in zip(u, v))  # noqa: E731
        rows = []
        for i in range(1, layer.n + 1):
            weights = []
            for Q, K, V in heads:
                q = [dot([_mp(Fraction(v)) for v in row], x[i - 1]) for row in Q]
                scores = [dot(q, [dot([_mp(Fraction(v)) for v in row], x[l]) for row in K]) for l in range(i)]
                top = max(scores)
                e = [mpmath.exp(t - top) for t in scores]
                weights.append(([w / mpmath.fsum(e) for w in e], V))
            for j in range(1, i + 1):
                rows.append([mpmath.fsum(a[j - 1] * _mp(Fraction(V[rr][cc])) for a, V in weights)
                             for rr in range(layer.p) for cc in range(layer.m)])
        S = mpmath.svd_r(mpmath.matrix(rows), compute_uv=False)
        sv = sorted((abs(S[i]) for i in range(S.rows)), reverse=True)
        top = sv[0] if sv else mpmath.mpf(0)
        if any(top * mpmath.mpf(10) ** -40 < v < top * mpmath.mpf(10) ** -12 for v in sv):
            raise OracleUndecided("a singular value between 10^-40 and 10^-12 of the largest")
        true_r = sum(1 for v in sv if v >= top * mpmath.mpf(10) ** -12) if top else 0
    if r != true_r or d["heads"]["H"] != r:
        return False
    return d["interaction_rank_gap"] == [{"H": h, "minor_order": h + 1} for h in range(r)]


def truth(kind, d):
    """Whether the accepted certificate's claims are true (raises OracleUndecided where it cannot tell)."""
    if kind == "head-count":
        return _head_count_truth(d, False)
    if kind == "gaussian":
        return _head_count_truth(d, True)
    if kind == "gradient":
        return _gradient_truth(d)
    if kind == "approximate":
        return _approximate_truth(d)
    if kind == "trained":
        return _trained_truth(d)
    return _interaction_truth(d)


# ------------------------------------------------------------------------------------------------------ runs

BASES_FILE = os.path.join(ROOT, "fuzz", "oracle_bases.json")
_CACHE = {}


def load_bases(kind):
    """The valid certificates of ``kind`` that the mutants start from (fuzz/oracle_bases.json, written by
    ``--write-bases`` from the generator: the fuzzer itself runs without python-flint, which the generator needs)."""
    if not _CACHE:
        with open(BASES_FILE) as fh:
            _CACHE.update(json.load(fh))
    return _CACHE[kind]


_bases = load_bases


def write_bases(path=BASES_FILE):
    """Build every kind's bases with the generator and store them (sorted keys, one kind a line)."""
    data = {kind: json.loads(json.dumps(build())) for kind, build in BUILDERS.items()}
    text = "{\n" + ",\n".join(f"{json.dumps(k)}: {json.dumps(v, sort_keys=True)}" for k, v in data.items()) + "\n}\n"
    with open(path + ".tmp", "w") as fh:
        fh.write(text)
    os.replace(path + ".tmp", path)


def run_chunk(job):
    """Mutants ``start .. start + count - 1`` of ``(kind, seed)``: counts and findings (reproducers)."""
    kind, seed, start, count = job
    from symssm.checker.core import check_data

    bases = _bases(kind)
    counts, findings = collections.Counter(), []
    for i in range(start, start + count):
        rng = random.Random(f"{kind}:{seed}:{i}")
        mutant = mutate(rng, rng.choice(bases), kind)
        counts["mutants"] += 1
        try:
            result = check_data(mutant, max_seconds=10)
        except BaseException as exc:  # noqa: BLE001 - a raise out of the checker is what this harness looks for
            counts["tracebacks"] += 1
            findings.append(("traceback", i, f"{type(exc).__name__}: {exc}"[:300], mutant))
            continue
        if result.message.startswith(FALLTHROUGH):
            counts["tracebacks"] += 1
            findings.append(("traceback", i, result.message[:300], mutant))
            continue
        if result.code != 0:
            counts[{1: "rejected", 2: "undecided" if "undecided" in result.message else "unreadable"}[result.code]] += 1
            continue
        try:
            ok = truth(kind, mutant)
        except OracleUndecided:
            counts["oracle_undecided"] += 1
            continue
        except Exception as exc:  # noqa: BLE001 - the generator refused an accepted certificate: judge by hand
            counts["oracle_undecided"] += 1
            findings.append(("oracle-error", i, f"{type(exc).__name__}: {exc}"[:300], mutant))
            continue
        if ok:
            counts["confirmed"] += 1
        else:
            counts["false_acceptances"] += 1
            findings.append(("false-acceptance", i, result.message[:300], mutant))
    return counts, findings


def run(kind, seed, count, workers=1, chunk=250):
    """Run ``count`` mutants of ``kind``; return ``(counts, findings)``."""
    jobs = [(kind, seed, s, min(chunk, count - s)) for s in range(0, count, chunk)]
    total, findings = collections.Counter(), []
    if workers <= 1:
        results = map(run_chunk, jobs)
    else:
        _bases(kind)  # built once, before the workers fork
        pool = multiprocessing.get_context("fork").Pool(workers, maxtasksperchild=40)
        results = pool.imap_unordered(run_chunk, jobs)
    for counts, found in results:
        total.update(counts)
        findings += found
    if workers > 1:
        pool.close()
        pool.join()
    return total, sorted(findings, key=lambda f: f[1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kind", choices=KINDS)
    ap.add_argument("--write-bases", action="store_true", help="rebuild fuzz/oracle_bases.json (needs python-flint)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--findings", default=os.path.join(ROOT, "fuzz", "findings"))
    args = ap.parse_args(argv)
    if args.write_bases:
        write_bases()
        return 0
    if args.kind is None:
        ap.error("--kind is required")
    sys.set_int_max_str_digits(0)
    start = time.monotonic()
    counts, findings = run(args.kind, args.seed, args.count, args.workers)
    took = time.monotonic() - start
    print(f"{args.kind}: {counts['mutants']} mutants (seed {args.seed}, {args.workers} workers): "
          f"{counts['rejected']} rejected, {counts['unreadable']} unreadable, {counts['undecided']} undecided, "
          f"{counts['confirmed']} accepted and confirmed, {counts['oracle_undecided']} accepted, oracle undecided; "
          f"FALSE ACCEPTANCES {counts['false_acceptances']}, tracebacks {counts['tracebacks']}; {took:.0f} s")
    for what, i, message, mutant in findings[:20]:
        os.makedirs(args.findings, exist_ok=True)
        path = os.path.join(args.findings, f"{args.kind}-{what}-seed{args.seed}-{i}.json")
        with open(path, "w") as fh:
            json.dump(mutant, fh)
        print(f"  {what} #{i}: {message}\n    reproducer: {path}")
    return 1 if counts["false_acceptances"] or counts["tracebacks"] else 0


if __name__ == "__main__":
    sys.exit(main())
