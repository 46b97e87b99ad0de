"""Sparse multivariate polynomials over Fraction, and the formula grammar: the checker's own, stdlib only.

A polynomial in ``s`` variables is a dict ``{exponent tuple: Fraction}`` without zero coefficients.
Leading terms are taken in lex order (Python's tuple order), so exact division by one polynomial
decides divisibility: the remainder is zero exactly when the divisor divides.

The formula grammar is the one in ``docs/parametric.md`` (integers, exact decimals, parameter
names, ``+ - * /``, ``^`` with a non-negative integer exponent, parentheses, unary minus); a
formula parses into a pair ``(numerator, denominator)`` of polynomials.
"""

import heapq
import re
import sys
import threading
from fractions import Fraction
from math import gcd, lcm

from typing import Any, Dict

from . import costs
from .accel import optional
from .numbers import MAX_DIGITS, NumberError, big_int
from .spec import fits, formula_number, spec_rational
from .kernel import Unreadable

# an optional accelerator (imported on first use): the same products and quotients, the same work
# counted, the same verdicts; python-flint is a dependency of symssm, not of the checker
_flint: Any = optional("flint")
#: Products with at least this many term pairs go to FLINT (when it is installed) ...
FLINT_MIN_PAIRS = 64
#: ... once python-flint is loaded; loading it (about 25 ms) waits for a product this large, or for this
#: much work spent on the certificate, so a small certificate's check never pays for it.
FLINT_LOAD_PAIRS = 4096
FLINT_LOAD_WORK = 200_000
_CONTEXTS: Dict[int, Any] = {}

__all__ = ["MAX_PARAMETERS", "MAX_POLY_TERMS", "MAX_FORMULA_CHARS", "MAX_FORMULA_DEGREE", "MAX_POLY_DEGREE", "NAME", "const", "var",
           "reset_work", "add", "sub", "mul", "sum_polys", "dot", "matmul", "scale", "power", "is_const", "divide_exact", "evaluate", "substitute",
           "linear_solution", "coprime", "reduced_pair", "reduced_cache", "parse_pair", "parse_polynomial", "parse_rational"]

MAX_PARAMETERS = 16
MAX_POLY_TERMS = 20_000
MAX_FORMULA_CHARS = 1000
MAX_FORMULA_DEGREE = 64
#: Largest exponent in a polynomial field of a certificate (a determinant outgrows a formula's degree).
MAX_POLY_DEGREE = 10_000
#: Longest text of a polynomial field of a certificate (determinants, coefficients, factors).
MAX_POLY_CHARS = 4_000_000
#: Most units of polynomial work one certificate may cost (the work bound of the parametric kinds): term products
#: weighted by the 64-bit words of their coefficients, with the making of each result term, each division step
#: and the gcd's bookkeeping (:mod:`.costs`); at the limit, a few seconds of one core on either path.
MAX_POLY_WORK = 64_000_000
#: Most terms the remainder of one exact division may hold (honest divisions stay far below).
MAX_REMAINDER_TERMS = 1_000_000
_WORK = threading.local()
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,15}")
_TOKEN = re.compile(r"\s*(?:(?P<num>[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?)|(?P<name>[A-Za-z][A-Za-z0-9_]*)|(?P<op>[-+*/^()]))")
_RATIONAL = re.compile(r"-?[0-9]{1,10000}(?:\.[0-9]{1,10000}|/[0-9]{1,10000})?")  # MAX_DIGITS


class FormulaError(ValueError):
    """A formula outside the grammar (the caller turns it into a rejection)."""


def _use_flint(pairs):
    """Whether a product or quotient of ``pairs`` term pairs goes to FLINT (the same value either way)."""
    if _flint is None or pairs < FLINT_MIN_PAIRS:
        return False
    return ("flint" in sys.modules or pairs >= FLINT_LOAD_PAIRS
            or getattr(_WORK, "used", 0) >= FLINT_LOAD_WORK)


def _size(p):
    if len(p) > MAX_POLY_TERMS:
        raise Unreadable(f"a polynomial has more than {MAX_POLY_TERMS} terms: too large to check")
    return p


def const(c, nvars):
    c = Fraction(c)
    return {(0,) * nvars: c} if c else {}


def var(i, nvars):
    return {tuple(1 if j == i else 0 for j in range(nvars)): Fraction(1)}


def add(a, b):
    out = dict(a)
    for mon, c in b.items():
        v = out.get(mon, 0) + c
        if v:
            out[mon] = v
        else:
            out.pop(mon, None)
    return out


def scale(a, c):
    c = Fraction(c)
    return {mon: x * c for mon, x in a.items()} if c else {}


def sub(a, b):
    return add(a, scale(b, -1))


def reset_work():
    """Start counting term products afresh (once per certificate), with an empty cache of parsed texts."""
    _WORK.used = 0
    _WORK.parsed = {}
    _WORK.reduced = {}


def _spend(amount):
    used = getattr(_WORK, "used", 0) + amount
    _WORK.used = used
    if used > MAX_POLY_WORK:
        raise Unreadable(f"undecided: checking this certificate needs more than {MAX_POLY_WORK} polynomial term "
                         "products (weighted by coefficient size), the checker's work limit")
    costs.charge(amount)


def _words(p):
    """64-bit words of a coefficient over the polynomial's common denominator: the cost of one term product.

    The products work on integers over the common denominator (:func:`_packed`; FLINT's ``fmpq_mpoly`` too), whose
    size is the largest numerator plus the lcm of the denominators: its bits are bounded by the sum of the bits of
    the distinct denominators, so 60 distinct 10,000-digit denominators are charged as the 600,000 digits they
    cost, not as one of them.
    """
    big, dens = 0, set()
    try:
        for c in p.values():
            bits = c._numerator.bit_length()
            if bits > big:
                big = bits
            dens.add(c._denominator)
    except AttributeError:  # pragma: no cover - every coefficient is a Fraction; stay correct if not
        big = max((c.numerator.bit_length() for c in p.values()), default=0)
        dens = {c.denominator for c in p.values()}
    return 1 + (big + sum(d.bit_length() for d in dens)) // 64


def _mul_cost(a, b):
    """The charge of ``a * b``: every term pair's product (:func:`_product_cost`), and the lowest terms of every
    term of the result (at most the pairs): a gcd of the result's numerator and common denominator, quadratic in
    their words (:func:`symssm.checker.costs.lowest_terms_work`), and the making of each (its monomial and its
    Fraction: :data:`~symssm.checker.costs.OUTPUT_TERM_WORK` units, up to the terms a product may have: at most
    its pairs, and at most the monomials within both operands' degrees, :func:`_product_terms`).  A monomial times
    a polynomial is one Fraction product per term (:data:`MONOMIAL_TERM_WORK`)."""
    if len(a) == 1 or len(b) == 1:  # a monomial times a polynomial: one Fraction product per term, no sums
        (m1, c1), = (a if len(a) == 1 else b).items()
        other = b if len(a) == 1 else a
        if c1 == 1 and not any(m1):
            return len(other)  # the polynomial itself
        return len(other) * (_product_cost(_words(a), _words(b)) + costs.lowest_terms_work(_words(a) + _words(b))
                             + MONOMIAL_TERM_WORK)
    return _pair_cost(len(a), len(b), _words(a), _words(b), _product_terms(a, b))


def _product_terms(a, b):
    """The most terms ``a * b`` can have: no more than its term pairs, nor than the monomials within the
    degrees of both in each variable (``prod (deg_a + deg_b + 1)``: ``2 d + 1`` for two univariate polynomials of
    degree d, however many their pairs)."""
    top_a, top_b = _degrees(a), _degrees(b)
    room = 1
    for x, y in zip(top_a, top_b):
        room *= x + y + 1
        if room > MAX_POLY_TERMS:
            break
    return min(len(a) * len(b), room)


def _degrees(a):
    """The largest exponent of each variable in ``a``."""
    top = None
    for mon in a:
        top = list(mon) if top is None else [x if x >= y else y for x, y in zip(top, mon)]
    return top or []


#: The work of one term of a monomial times a polynomial (one Fraction product, its monomial), in units of
#: polynomial work.
MONOMIAL_TERM_WORK = 24


def _pair_cost(la, lb, wa, wb, terms=None):
    """:func:`_mul_cost` of operands of ``la`` and ``lb`` terms whose coefficients have ``wa`` and ``wb`` words, with
    at most ``terms`` result terms (default: one per pair), each made in lowest terms."""
    pairs = la * lb
    terms = min(pairs if terms is None else terms, MAX_POLY_TERMS + 1)
    return (pairs * _product_cost(wa, wb)
            + terms * (costs.OUTPUT_TERM_WORK + costs.lowest_terms_work(wa + wb)))


def words_of(bits):
    """64-bit words of a number of ``bits`` bits, as :func:`_words` counts them (``1 + bits // 64``)."""
    return 1 + bits // 64


def _fraction_words(c):
    """64-bit words of one coefficient (numerator and denominator)."""
    return 1 + (c.numerator.bit_length() + c.denominator.bit_length()) // 64


def _product_cost(wa, wb):
    """The charge of one term product of coefficients of ``wa`` and ``wb`` words: linear in the words while
    the smaller is short, growing with it past 8 words (Karatsuba, and the gcds of big fractions, cost more
    than their length: a power of a sum with 10,000-digit constants is refused before it runs, not by the clock)."""
    return (wa + wb - 1) * (1 + min(wa, wb) // 8)


def _ctx(nvars):
    ctx = _CONTEXTS.get(nvars)
    if ctx is None:
        ctx = _CONTEXTS[nvars] = _flint.fmpq_mpoly_ctx.get(tuple(f"x{i}" for i in range(nvars)), "lex")
    return ctx


def _to_flint(a, nvars):
    fmpq = _flint.fmpq  # one lookup through the lazy module, not one per coefficient
    return _ctx(nvars).from_dict({mon: fmpq(c.numerator, c.denominator) for mon, c in a.items()})


def _from_flint(poly):
    # FLINT's rationals are canonical (coprime, positive denominator): no gcd to take again
    return {tuple(map(int, mon)): _coprime(int(c.p), int(c.q)) for mon, c in poly.terms()}


_new = object.__new__
_SLOTS = getattr(Fraction, "__slots__", ())


def _coprime(n, d):
    """``Fraction(n, d)`` for coprime ``n`` and ``d > 0`` (already in lowest terms), made without a gcd."""
    if "_numerator" not in _SLOTS:  # pragma: no cover - another Fraction layout: the usual constructor
        return Fraction(n, d)
    f = _new(Fraction)
    f._numerator, f._denominator = n, d
    return f


def _fraction(n, d):
    """``Fraction(n, d)`` for ``d > 0``: one gcd, and the Fraction made from the reduced pair."""
    if d == 1:
        return _coprime(n, 1)
    g = gcd(n, d)
    return _coprime(n // g, d // g) if g != 1 else _coprime(n, d)


def _nvars(a, b):
    for mon in a:
        return len(mon)
    for mon in b:
        return len(mon)
    return 0


def mul(a, b):
    # the work is counted before it is done, and weighted by the coefficients' size: a power of a sum
    # with 1,000-digit constants creates huge coefficients from few terms
    if not a or not b:  # nothing to multiply, nothing spent
        return {}
    _spend(_mul_cost(a, b))
    if len(a) > len(b):
        a, b = b, a
    if len(a) == 1:  # a monomial times a polynomial: no two products share a monomial, none is zero
        (m1, c1), = a.items()
        if not any(m1):
            return _size(dict(b) if c1 == 1 else {m2: c1 * c2 for m2, c2 in b.items()})
        return _size({tuple(x + y for x, y in zip(m1, m2)): c1 * c2 for m2, c2 in b.items()})
    if _use_flint(len(a) * len(b)):
        nv = _nvars(a, b)
        if nv:
            return _size(_from_flint(_to_flint(a, nv) * _to_flint(b, nv)))
    if len(a) * len(b) >= 16:
        return _size(_convolve(a, b))
    out = {}
    for m1, c1 in a.items():
        for m2, c2 in b.items():
            mon = tuple(x + y for x, y in zip(m1, m2))
            v = out.get(mon, 0) + c1 * c2
            if v:
                out[mon] = v
            else:
                out.pop(mon, None)
    return _size(out)


def _packed(a, width):
    """``a`` as ``[(packed monomial, integer coefficient)]`` over its common denominator, and that denominator."""
    den = 1
    for c in a.values():
        den = lcm(den, c.denominator)
    return [(sum(e << (width * i) for i, e in enumerate(mon)), c.numerator * (den // c.denominator))
            for mon, c in a.items()], den


def _convolve(a, b):
    """The product of two polynomials of two or more terms, on integers.

    Each monomial is packed into one integer (a field of ``width`` bits per variable, wide enough
    that no exponent of the product carries into the next), each coefficient scaled to an integer
    over the polynomial's common denominator; the product is then integer additions and products,
    and one Fraction per term of the result.
    """
    nv = len(next(iter(a)))
    top = max(max(mon) for mon in a) + max(max(mon) for mon in b)
    width = 8 if top < 128 else top.bit_length() + 1  # a byte per exponent: the monomials unpacked by to_bytes
    pa, da = _packed(a, width)
    pb, db = _packed(b, width)
    acc: Dict[int, int] = {}
    get = acc.get
    for ka, ca in pa:
        for kb, cb in pb:
            k = ka + kb
            acc[k] = get(k, 0) + ca * cb
    den, mask = da * db, (1 << width) - 1
    if width == 8:
        # int(k): a monomial FLINT returned may carry fmpz exponents (the same values)
        return {tuple(int(k).to_bytes(nv, "little")): _fraction(v, den) for k, v in acc.items() if v}
    return {tuple((k >> (width * i)) & mask for i in range(nv)): _fraction(v, den) for k, v in acc.items() if v}


def sum_polys(polys):
    """The sum of polynomials (``{}`` for none); the first is returned as it is when it is the only one."""
    out = None
    for x in polys:
        out = x if out is None else add(out, x)
    return {} if out is None else out


def dot(terms):
    """``sum a * b`` over the pairs ``(a, b)``: the work of :func:`mul` for each pair, the same value.

    With python-flint the products and the sum stay in FLINT (one conversion per operand);
    each product is still held to ``MAX_POLY_TERMS`` terms, as :func:`mul` holds it.
    """
    terms = [(a, b) for a, b in terms if a and b]
    if not _use_flint(sum(len(a) * len(b) for a, b in terms)):
        return sum_polys(mul(a, b) for a, b in terms)
    nv = _nvars(terms[0][0], terms[0][1])
    if not nv:
        return sum_polys(mul(a, b) for a, b in terms)
    return _from_flint(_flint_dot([(a, b, None, None) for a, b in terms], nv))


def _flint_dot(terms, nv):
    """The FLINT sum of products of ``(a, b, a in FLINT or None, b in FLINT or None)``, the work counted."""
    acc = _ctx(nv).from_dict({})
    for a, b, fa, fb in terms:
        _spend(_mul_cost(a, b))
        prod = (_to_flint(a, nv) if fa is None else fa) * (_to_flint(b, nv) if fb is None else fb)
        if len(prod) > MAX_POLY_TERMS:
            raise Unreadable(f"a polynomial has more than {MAX_POLY_TERMS} terms: too large to check")
        acc += prod
    return acc


def matmul(X, Y):
    """The product of two matrices of polynomials: :func:`dot` for every entry, each operand converted once."""
    cols = len(Y[0]) if Y else 0
    rows_x = [[(t, x) for t, x in enumerate(row) if x] for row in X]  # the zero entries contribute nothing
    sizes = [[len(y) for y in row] for row in Y]
    pairs = sum(len(x) * sizes[t][j] for row in rows_x for t, x in row for j in range(cols))
    nv = next((len(mon) for M in (X, Y) for row in M for x in row for mon in x), 0)
    if not nv or not _use_flint(pairs):
        return [[sum_polys(mul(x, Y[t][j]) for t, x in row if sizes[t][j]) for j in range(cols)] for row in rows_x]
    FY = [[_to_flint(y, nv) if y else None for y in row] for row in Y]
    return [[_from_flint(_flint_dot([(x, Y[t][j], fx, FY[t][j]) for t, x, fx in row if sizes[t][j]], nv))
             for j in range(cols)] for row in ([(t, x, _to_flint(x, nv)) for t, x in row] for row in rows_x)]


#: The fixed work of one term pair of a power's integer product (a dictionary update), in units of polynomial work.
POWER_PAIR_WORK = 5


def power(a, k, nvars):
    """``a ** k``, each of its ``k`` products charged before it is made, as :func:`mul` charges it.

    The products run on integers over the common denominator (``a = A / d``, ``a^j = A^j / d^j``), whatever
    accelerator is loaded: a step's cost is its term pairs' integer products (each charged :func:`_product_cost`
    of the words of the largest integer coefficients, and :data:`POWER_PAIR_WORK`), before it runs; the result's
    Fractions are made once, at the end, each charged its lowest terms and
    :data:`~symssm.checker.costs.OUTPUT_TERM_WORK`.

    >>> t = var(0, 1)
    >>> power(add(t, const(Fraction(1, 2), 1)), 2, 1) == {(2,): Fraction(1), (1,): Fraction(1), (0,): Fraction(1, 4)}
    True
    """
    if k == 0 or not a:
        return const(1, nvars) if k == 0 else {}
    if len(a) == 1:  # a monomial: its k products are one term each
        (mon, c), = a.items()
        bits = c.numerator.bit_length() + c.denominator.bit_length()
        for j in range(k):
            _spend(_pair_cost(1, 1, words_of(j * bits), words_of(bits)))
        return _size({tuple(e * k for e in mon): c ** k})
    nv = len(next(iter(a)))
    width = max(8, (k * max(max(mon) for mon in a)).bit_length() + 1)
    pa, den = _packed(a, width)
    wa = words_of(max(abs(c) for _, c in pa).bit_length())
    _spend(len(a) * POWER_PAIR_WORK)  # 1 * a
    acc = dict(pa)
    for _ in range(2, k + 1):
        wacc = words_of(max(abs(c) for c in acc.values()).bit_length())
        _spend(len(acc) * len(a) * (_product_cost(wacc, wa) + POWER_PAIR_WORK))
        out: Dict[int, int] = {}
        get = out.get
        for ka, ca in acc.items():
            for kb, cb in pa:
                key = ka + kb
                out[key] = get(key, 0) + ca * cb
        acc = {key: v for key, v in out.items() if v}
        if len(acc) > MAX_POLY_TERMS:
            raise Unreadable(f"a polynomial has more than {MAX_POLY_TERMS} terms: too large to check")
    total, mask = den ** k, (1 << width) - 1
    wout = words_of(max(abs(c) for c in acc.values()).bit_length() + total.bit_length())
    _spend(len(acc) * (costs.OUTPUT_TERM_WORK + costs.lowest_terms_work(wout)))  # the result's Fractions
    return {tuple((key >> (width * i)) & mask for i in range(nv)): _fraction(v, total) for key, v in acc.items()}


def is_const(a):
    return all(not any(mon) for mon in a)


def constant_value(a):
    return next(iter(a.values())) if a else Fraction(0)


def divide_exact(a, b):
    """``a / b`` if ``b`` (nonzero) divides ``a`` exactly, else None.

    The work is ``len(a)`` plus, for each term q of the quotient tried, ``len(b)`` products of q by a
    coefficient of ``b``, each weighted by the words of both (:func:`_product_cost`; the quotient's
    denominators may grow at each step, and the charge grows with them): the remainder is updated in place
    and its leading term kept on a heap, so a step costs ``len(b)`` such products (times a logarithm),
    never the length of the remainder.  FLINT, when it answers, is charged the same, from the same quotient.

    >>> t = var(0, 1)
    >>> one = const(1, 1)
    >>> divide_exact(sub(mul(t, t), one), sub(t, one)) == add(t, one), divide_exact(t, add(t, one))
    (True, None)
    """
    if not b:
        return None
    if len(b) == 1 and not any(next(iter(b))):  # a nonzero constant: one pass over ``a``, whatever is loaded
        c = next(iter(b.values()))
        _spend(len(a) if c == 1 else len(a) * (MONOMIAL_TERM_WORK + costs.lowest_terms_work(_words(a) + _words(b))))
        return _size(dict(a) if c == 1 else {mon: v / c for mon, v in a.items()})
    if _use_flint(len(a) * len(b)) and _nvars(a, b):
        nv = _nvars(a, b)
        try:
            quo = _from_flint(_to_flint(a, nv) / _to_flint(b, nv))
        except Exception:  # noqa: BLE001 - not exact: the loop below decides (and counts) as always
            quo = None
        if quo is not None and len(quo) <= MAX_POLY_TERMS:
            wb = _words(b)  # what the loop spends: one step per quotient term, charged as it is there
            _spend(len(a) + sum(_division_step(_fraction_words(q), wb, len(b)) for q in quo.values()))
            return quo
    _spend(len(a))
    lead = max(b)
    ln, ld = b[lead].numerator, b[lead].denominator
    # the remainder's coefficients as reduced integer pairs (numerator, positive denominator): the same values as
    # Fractions, without the Fraction operators' overhead in the inner loop
    rest = [(mon, c.numerator, c.denominator) for mon, c in b.items() if mon != lead]
    rem = {mon: (c.numerator, c.denominator) for mon, c in a.items()}
    heap = [tuple(-e for e in mon) for mon in rem]  # the largest monomial first (lex order)
    heapq.heapify(heap)
    quo = {}
    wb = _words(b)
    while heap:
        top = tuple(-e for e in heapq.heappop(heap))
        c = rem.pop(top, None)
        if c is None:  # an entry whose term has cancelled since it was pushed
            continue
        shift = tuple(x - y for x, y in zip(top, lead))
        if any(e < 0 for e in shift):
            _spend(len(b))
            return None
        qn, qd = c[0] * ld, c[1] * ln
        if qd < 0:
            qn, qd = -qn, -qd
        g = gcd(qn, qd)
        if g != 1:
            qn, qd = qn // g, qd // g
        _spend(_division_step(1 + (qn.bit_length() + qd.bit_length()) // 64, wb, len(b)))  # before its products
        quo[shift] = _coprime(qn, qd)
        _size(quo)
        for mon, vn, vd in rest:
            m2 = tuple(x + y for x, y in zip(mon, shift))
            old = rem.get(m2)
            if old is None:
                n, d = -vn * qn, vd * qd
            else:
                pd = vd * qd
                n, d = old[0] * pd - vn * qn * old[1], old[1] * pd
            if n:
                g = gcd(n, d)
                if old is None:
                    heapq.heappush(heap, tuple(-e for e in m2))
                rem[m2] = (n // g, d // g) if g != 1 else (n, d)
            elif old is not None:
                del rem[m2]
        if len(rem) > MAX_REMAINDER_TERMS:
            raise Unreadable(f"an exact division's remainder has more than {MAX_REMAINDER_TERMS} terms: too large "
                             "to check")
    return quo


#: The fixed work of one product of an exact division's step (the remainder's entry updated, its heap kept), in
#: units of polynomial work: a step of a division by a short divisor costs several microseconds in the standard
#: library whatever its coefficients' size.
DIVISION_PRODUCT_WORK = 32


def _division_step(wq, wb, lb):
    """The charge of one step of an exact division: ``lb`` products of a quotient term of ``wq`` words by the
    divisor's coefficients of ``wb`` words, each a Fraction in lowest terms (a gcd quadratic in the words: the
    quotient's denominators may grow at every step) and an update of the remainder."""
    return lb * (_product_cost(wq, wb) + costs.lowest_terms_work(wq + wb) + DIVISION_PRODUCT_WORK)


def _total_degree(a):
    return max((sum(mon) for mon in a), default=0)


def _coefficients(a, v):
    """``a`` as a polynomial in variable ``v``: ``{exponent: coefficient}``, each coefficient free of ``v``."""
    out = {}
    for mon, c in a.items():
        out.setdefault(mon[v], {})[mon[:v] + (0,) + mon[v + 1:]] = c
    return out


def _variables(a):
    return {i for mon in a for i, e in enumerate(mon) if e}


def _normalised(a):
    """``a`` divided by its leading coefficient (lex order), so that a gcd has one representation."""
    lead = a[max(a)]
    return a if lead == 1 else {mon: c / lead for mon, c in a.items()}


def _shift(a, v, k):
    return {mon[:v] + (mon[v] + k,) + mon[v + 1:]: c for mon, c in a.items()}


#: The work of the exact gcd's bookkeeping per term touched (coefficients in one variable, normalisations, shifts),
#: in units of polynomial work; its products and divisions are charged as any other.
GCD_TERM_WORK = 40


def _pseudo_remainder(a, b, v):
    """A multiple ``lc(b)^e a`` reduced modulo ``b`` in the variable ``v`` (degree below ``b``'s)."""
    cb = _coefficients(b, v)
    db = max(cb)
    lb = cb[db]
    r = a
    while r:
        _spend(GCD_TERM_WORK * (len(r) + len(b)))  # the step's coefficients in v, the shift of b, the difference
        cr = _coefficients(r, v)
        dr = max(cr)
        if dr < db:
            break
        r = sub(mul(lb, r), mul(cr[dr], _shift(b, v, dr - db)))
    return r


def _content(a, v):
    """The gcd of ``a``'s coefficients as a polynomial in ``v`` (normalised; 1 as soon as it is constant)."""
    g = {}
    _spend(GCD_TERM_WORK * len(a))  # a's coefficients in v, sorted
    for c in sorted(_coefficients(a, v).values(), key=len):
        g = _gcd(g, c)
        if is_const(g):
            return g
    return g


def _gcd(a, b):
    """The normalised gcd of two polynomials over Q (recursive primitive remainder sequences)."""
    _spend(GCD_TERM_WORK * (len(a) + len(b) + 4))  # the variables, the normalisation, the comparisons
    if not a:
        return _normalised(b) if b else {}
    if not b:
        return _normalised(a)
    nv = _nvars(a, b)
    va, vb = _variables(a), _variables(b)
    if not va or not vb:
        return const(1, nv)
    v = min(va | vb)
    if v not in va:  # a common factor is free of v: it divides every coefficient of b in v
        return _gcd(a, _content(b, v))
    if v not in vb:
        return _gcd(b, _content(a, v))
    ca, cb = _content(a, v), _content(b, v)
    c = _gcd(ca, cb)
    a, b = divide_exact(a, ca), divide_exact(b, cb)
    if max(_coefficients(a, v)) < max(_coefficients(b, v)):
        a, b = b, a
    while True:
        r = _pseudo_remainder(a, b, v)
        if not r:
            g = b
            break
        if v not in _variables(r):  # a nonzero remainder of degree 0: the primitive parts are coprime
            return c
        a, b = b, divide_exact(r, _content(r, v))
    return _normalised(mul(c, g))


#: The primes of the modular coprimality witness (:func:`coprime`), tried in this order; fixed, so the verdict
#: is the same on every run and machine.
WITNESS_PRIMES = (2_147_483_647, 2_147_483_629, 2_147_483_587)
#: The work of one modular image of a term, and of one step of a univariate remainder sequence modulo a prime.
IMAGE_TERM_WORK = 4
EUCLID_STEP_WORK = 1


def _image(a, v, point, prime):
    """``a`` modulo ``prime`` with every variable but ``v`` set to ``point``: ``{degree in v: residue}``, or None
    when a denominator is a multiple of ``prime``."""
    out: Dict[int, int] = {}
    for mon, c in a.items():
        d = c.denominator % prime
        if not d:
            return None
        r = c.numerator % prime * pow(d, -1, prime) % prime
        for i, e in enumerate(mon):
            if e and i != v:
                r = r * pow(point[i], e, prime) % prime
        if r:
            out[mon[v]] = (out.get(mon[v], 0) + r) % prime
    return {e: r for e, r in out.items() if r}


def _unit_gcd_mod(f, g, prime):
    """Whether univariate polynomials ``f`` and ``g`` (``{degree: residue}``, f nonzero) are coprime modulo ``prime``
    (Euclid's remainder sequence on dense lists, lowest degree first)."""
    def dense(h):
        out = [0] * (max(h) + 1 if h else 0)
        for e, r in h.items():
            out[e] = r
        return out

    x, y = dense(f), dense(g)
    while y:
        inv = pow(y[-1], -1, prime)
        while len(x) >= len(y):
            q = x[-1] * inv % prime
            if q:
                shift = len(x) - len(y)
                for i, c in enumerate(y):
                    x[shift + i] = (x[shift + i] - q * c) % prime
            x.pop()
            while x and not x[-1]:
                x.pop()
        x, y = y, x
    return len(x) == 1  # the last nonzero remainder is a nonzero constant


def witness_work(a, b):
    """The charge of :func:`coprime`'s modular witness: for each common variable and each prime tried, the image of
    every term (its coefficient reduced, its other variables' powers: ``IMAGE_TERM_WORK`` units and the words of
    the coefficient) and the remainder sequence of the two images (``deg_a deg_b`` steps)."""
    common = _variables(a) & _variables(b)
    terms = sum(IMAGE_TERM_WORK * (1 + len(mon)) + _fraction_words(c) for p in (a, b) for mon, c in p.items())
    euclid = sum((1 + max((mon[v] for mon in a), default=0)) * (1 + max((mon[v] for mon in b), default=0))
                 for v in common) * EUCLID_STEP_WORK
    return len(WITNESS_PRIMES) * (len(common) * terms + euclid)


def _coprime_witness(a, b):
    """True when modular images prove that ``a`` and ``b`` (integer-free of a common constant factor question:
    nonzero, not constant) share no non-constant factor; False when they do not tell.

    For each variable v of both, some prime P and point c for the other variables must give images in F_P[v] of
    full degree in v for ``a`` that are coprime: a common factor g involving v would keep its degree in v there
    (its leading coefficient divides a's, which does not vanish) and divide both images (Gauss's lemma, after
    clearing denominators, which P does not divide).  A factor involves some variable of both, so no v left
    means no factor."""
    nv = _nvars(a, b)
    for v in sorted(_variables(a) & _variables(b)):
        degree = max(mon[v] for mon in a)
        for attempt, prime in enumerate(WITNESS_PRIMES):
            point = [(1_000_003 * (i + 1) + 7919 * attempt + 12345) % prime for i in range(nv)]
            fa, fb = _image(a, v, point, prime), _image(b, v, point, prime)
            if fa is None or fb is None or max(fa, default=-1) != degree:
                continue
            if _unit_gcd_mod(fa, fb, prime):
                break
        else:
            return False
    return True


def coprime(a, b):
    """Whether the gcd of ``a`` and ``b`` (not both zero) is a constant.

    First a modular witness, charged before it runs (:func:`witness_work`): coprime images modulo a fixed
    prime prove there is no common factor (:func:`_coprime_witness`), in time linear in the terms.  When the
    images do not tell (a common factor, or an unlucky prime), the exact gcd by the remainder sequences above
    decides, every product and division charged against the certificate's work limit as any other.  Nothing
    here depends on an accelerator being installed or imported: the same charges, the same verdict.

    >>> t = var(0, 1)
    >>> coprime(mul(t, t), add(t, const(1, 1))), coprime(mul(t, t), scale(t, 3))
    (True, False)
    """
    if (a and is_const(a)) or (b and is_const(b)):
        return True
    if not a or not b:  # gcd(0, b) is b, not constant
        return False
    _spend(witness_work(a, b))
    if _coprime_witness(a, b):
        return True
    return is_const(_gcd(a, b))


def reduced_cache():
    """The verdicts of :func:`reduced_pair` already decided for this certificate (by the entries' texts)."""
    cache = getattr(_WORK, "reduced", None)
    if cache is None:
        cache = _WORK.reduced = {}
    return cache


def reduced_pair(num, den):
    """``None`` when ``num / den`` is in lowest terms as the certificates write it, else the reason.

    Lowest terms: a constant denominator is 1; any other has coprime integer coefficients and a
    positive leading coefficient (lex order), and shares no non-constant factor with the numerator.

    >>> t = var(0, 1)
    >>> one = const(1, 1)
    >>> reduced_pair(mul(t, t), add(t, one)) is None
    True
    >>> reduced_pair(mul(add(t, one), add(t, one)), add(t, one))
    'numerator and denominator share a non-constant factor'
    >>> reduced_pair(one, scale(add(t, one), 2))
    'the denominator must have coprime integer coefficients and a positive leading coefficient'
    """
    if is_const(den):
        return None if den == const(1, len(next(iter(den)))) else "a constant denominator must be 1"
    content = 0
    for c in den.values():
        if c.denominator != 1:
            content = None
            break
        content = gcd(content, c.numerator)
    if content != 1 or den[max(den)] < 0:
        return "the denominator must have coprime integer coefficients and a positive leading coefficient"
    return None if coprime(num, den) else "numerator and denominator share a non-constant factor"


def evaluate(a, point):
    """``a`` at ``point`` (Fractions), charged first: each term's powers and product have about
    ``words(c) + sum e_i words(x_i)`` words, and the sum's lowest terms are quadratic in them
    (:func:`symssm.checker.costs.evaluation_work`).

    >>> evaluate(add(var(0, 2), var(1, 2)), [Fraction(1, 2), Fraction(1, 3)])
    Fraction(5, 6)
    """
    _spend(costs.evaluation_work([(_fraction_words(c), mon) for mon, c in a.items()],
                                 [_fraction_words(x) for x in point]))
    total = Fraction(0)
    for mon, c in a.items():
        term = c
        for x, e in zip(point, mon):
            if e:
                term *= x ** e
        total += term
    return total


def substitute(a, index, value, nvars_child):
    """``a`` with variable ``index`` replaced by ``value`` (a polynomial in the remaining variables)."""
    if all(not mon[index] for mon in a):  # free of the variable: drop its exponent
        _spend(len(a))
        return {mon[:index] + mon[index + 1:]: c for mon, c in a.items()}
    out, powers = {}, [const(1, nvars_child)]
    for mon, c in a.items():
        e = mon[index]
        while len(powers) <= e:
            powers.append(mul(powers[-1], value))
        rest = mon[:index] + mon[index + 1:]
        out = add(out, mul({rest: c}, powers[e]))
    return _size(out)


def linear_solution(f, index):
    """``-(f - c x)/c`` when ``f = c x + r`` with a constant ``c`` and ``r`` free of ``x``; else None.

    The result is a polynomial in the other variables (the exponent of ``x`` dropped).
    """
    ones = [(mon, c) for mon, c in f.items() if mon[index] == 1]
    if any(mon[index] > 1 for mon in f) or len(ones) != 1:
        return None
    mon, c = ones[0]
    if any(e for i, e in enumerate(mon) if i != index):
        return None
    return {m[:index] + m[index + 1:]: -v / c for m, v in f.items() if m != mon}


# ---------------------------------------------------------------- the grammar

class _Parser:
    def __init__(self, text, names, limit=MAX_FORMULA_CHARS, max_exponent=MAX_FORMULA_DEGREE):
        self.max_exponent = max_exponent
        if len(text) > limit:
            raise FormulaError(f"longer than {limit} characters")
        self.names = {x: i for i, x in enumerate(names)}
        self.nv = len(names)
        self.toks = []
        pos = 0
        while text[pos:].strip():
            m = _TOKEN.match(text, pos)
            if not m:
                raise FormulaError(f"unexpected character at position {pos + 1}")
            self.toks.append((m.lastgroup, m.group(m.lastgroup)))
            pos = m.end()
        self.toks.append(("end", ""))
        self.i = 0
        self.depth = 0

    def peek(self):
        return self.toks[self.i]

    def take(self):
        self.i += 1
        return self.toks[self.i - 1]

    def run(self):
        if self.peek()[0] == "end":
            raise FormulaError("empty formula")
        value = self.expr()
        if self.peek()[0] != "end":
            raise FormulaError(f"unexpected {self.peek()[1]!r}")
        return value

    def expr(self):
        n, d = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            op = self.take()[1]
            n2, d2 = self.term()
            if op == "-":
                n2 = scale(n2, -1)
            n, d = add(mul(n, d2), mul(n2, d)), mul(d, d2)
        return n, d

    def term(self):
        n, d = self.unary()
        while self.peek() in (("op", "*"), ("op", "/")):
            op = self.take()[1]
            n2, d2 = self.unary()
            if op == "*":
                n, d = mul(n, n2), mul(d, d2)
            else:
                if not n2:
                    raise FormulaError("division by zero")
                n, d = mul(n, d2), mul(d, n2)
            n, d = _fold(n, d)
        return n, d

    def unary(self):
        if self.peek() == ("op", "-"):
            self.take()
            n, d = self.unary()
            return scale(n, -1), d
        return self.power()

    def power(self):
        n, d = self.atom()
        if self.peek() == ("op", "^"):
            self.take()
            kind, tok = self.take()
            if kind != "num" or not tok.isdigit() or len(tok) > 6 or int(tok) > self.max_exponent:
                raise FormulaError(f"the exponent must be an integer from 0 to {self.max_exponent}")
            if self.peek() == ("op", "^"):
                raise FormulaError("chained '^'")
            k = int(tok)
            n, d = power(n, k, self.nv), power(d, k, self.nv)
        return n, d

    def atom(self):
        kind, tok = self.take()
        one = const(1, self.nv)
        if kind == "num":
            try:
                return const(formula_number(tok), self.nv), one
            except NumberError as exc:
                raise FormulaError(f"a number beyond the limits (10,000 digits, exponent +-10,000): {exc}") from None
        if kind == "name":
            if tok not in self.names:
                raise FormulaError(f"{tok[:20]!r} is not a parameter here")
            return var(self.names[tok], self.nv), one
        if tok == "(":
            self.depth += 1
            if self.depth > 50:
                raise FormulaError("nested too deeply")
            value = self.expr()
            self.depth -= 1
            if self.take() != ("op", ")"):
                raise FormulaError("missing ')'")
            return value
        raise FormulaError("expected a number, a parameter or '('")


def _fold(n, d):
    """Move a constant denominator into the numerator."""
    if is_const(d):
        c = constant_value(d)
        return scale(n, 1 / c), const(1, len(next(iter(d))) if d else 0)
    return n, d


def parse_pair(text, names, *, limit=MAX_FORMULA_CHARS, max_exponent=MAX_FORMULA_DEGREE):
    """``(numerator, denominator)`` of a formula (a string, or an int) in the variables ``names``.

    Raises
    ------
    FormulaError
        If the formula is not in the grammar or exceeds a limit.
    """
    if type(text) is int:
        text = str(text)
    if type(text) is not str:
        raise FormulaError("not a string")
    n, d = _Parser(text, names, limit, max_exponent).run()
    return _fold(n, d)


_ONE = Fraction(1)
_CANON_SPLIT = re.compile(r" ([-+]) ")
_CANON_COEFF = re.compile(r"[0-9]{1,10000}(?:/[0-9]{1,10000})?")
_CANON_FACTOR = re.compile(r"([A-Za-z][A-Za-z0-9_]{0,15})(?:\^([0-9]{1,5}))?")


def _canonical(text, names):
    """The polynomial of a canonical text (``3/2*a^2*b - c + 1``) in one pass, or None to use the grammar.

    Only texts the general parser reads to the same value are taken here: a sum of distinct
    monomials, each an optional coefficient and distinct names with exponents from 2 to MAX_POLY_DEGREE.
    """
    nv = len(names)
    index = {x: i for i, x in enumerate(names)}
    parts = _CANON_SPLIT.split(text)
    first = parts[0]
    signs = ["-" if first.startswith("-") else "+"] + parts[1::2]
    terms = [first[1:] if first.startswith("-") else first] + parts[2::2]
    out = {}
    for sign, term in zip(signs, terms):
        pieces = term.split("*")
        coeff = _ONE
        if _CANON_COEFF.fullmatch(pieces[0]):
            num, _, den = pieces[0].partition("/")
            if len(num) < 19 and len(den) < 19:  # the common case: machine-sized digits
                num, den = int(num), int(den) if den else 1
            else:
                num, den = big_int(num), big_int(den) if den else 1
            if not den:
                return None
            coeff = Fraction(num, den) if den != 1 else Fraction(num)
            pieces = pieces[1:]
            if not coeff:
                return None
        exps = [0] * nv
        for piece in pieces:
            m = _CANON_FACTOR.fullmatch(piece)
            if not m or m.group(1) not in index or exps[index[m.group(1)]]:
                return None
            e = int(m.group(2)) if m.group(2) else 1
            if not 2 <= e <= MAX_POLY_DEGREE and m.group(2):
                return None
            exps[index[m.group(1)]] = e
        mon = tuple(exps)
        if mon in out:
            return None
        out[mon] = -coeff if sign == "-" else coeff
    _spend(len(out))
    return _size(out)


def parse_polynomial(text, names):
    """A polynomial field of a certificate (a formula whose denominator is a constant).

    Raises
    ------
    FormulaError
        If it is not in the grammar or has a non-constant denominator.
    """
    if type(text) is not str:
        raise FormulaError("must be a string")
    if text == "0":
        return {}
    if len(text) <= MAX_POLY_CHARS and text and text == text.strip():
        # a certificate repeats its short texts (entries, factors) in every body: each is read once per
        # certificate and shared (no polynomial is ever changed in place), its work counted every time
        cache = getattr(_WORK, "parsed", None)
        key = (text, *names)
        fast = cache.get(key) if cache is not None else None
        if fast is not None:
            _spend(len(fast))
            return fast
        fast = _canonical(text, names)
        if fast is not None:
            if cache is not None and len(cache) < 100_000:
                cache[key] = fast
            return fast
    n, d = parse_pair(text, names, limit=MAX_POLY_CHARS, max_exponent=MAX_POLY_DEGREE)
    if not is_const(d):
        raise FormulaError("is not a polynomial")
    return n


def parse_rational(text):
    """A rational number written ``p``, ``p/q`` or as an exact decimal (``-0.25``); else FormulaError."""
    if type(text) is not str or len(text) > 2 * MAX_DIGITS + 2 or not _RATIONAL.fullmatch(text):
        raise FormulaError(f"{str(text)[:40]!r} is not a rational number (p, p/q or a decimal) of at most "
                           f"{MAX_DIGITS} digits in its numerator and its denominator")
    try:
        if "/" in text:  # p/q: at most MAX_DIGITS digits each, as the certificate's numbers
            num, _, den = text.partition("/")
            if not big_int(den):
                raise NumberError("zero denominator")
            value = Fraction(big_int(num), big_int(den))
        else:
            value = spec_rational(text)
    except NumberError as exc:
        raise FormulaError(f"{text[:40]!r} is not a rational number within the limits: {exc}") from None
    if not fits(value):
        raise FormulaError(f"{text[:40]!r} needs more than {MAX_DIGITS} digits in lowest terms; the limit is "
                           f"{MAX_DIGITS}")
    return value
