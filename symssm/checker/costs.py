"""The checker's cost model: every operation whose cost depends on the certificate, charged before it runs.

A check has no clock unless one is asked for (``--max-seconds``): its verdict is decided by its charges alone
(verified, rejected, or ``undecided: <named limit>``, exit 2, before the work).  So each operation below is priced
from the sizes it will actually touch (dimensions, counts, and the 64-bit words of the numbers, denominators and
lcms included) *before* it runs; over its limit the verdict is undecided, naming the limit, never REJECTED (a true
certificate may need more work than the checker does).  The charge is the same whichever engine then does the
work (python-flint, numpy or the standard library), computed from the certificate's values only, so the verdict
does not depend on what is installed or imported.  The charges are calibrated so that the most any limit admits
is decided within :data:`CALIBRATED_SECONDS` on a loaded 2-core machine, on either path (a unit of polynomial
work is about 0.05 us of one core: tests/checker/test_worst_charges.py runs the worst accepted case of each
polynomial charge).  Standard library only.

==========================================  ==========================================================  ======================
operation (where)                           charge, before the work                                     limit
==========================================  ==========================================================  ======================
reading numbers (numbers.py)                digits of each numerator and denominator                    ``MAX_DIGITS`` = 10,000
exact lags of a head count (lags)           bits of the entries of ``C A^d B`` (``lag_bit_bound``)      ``MAX_LAG_BITS``
eps-head count's exact lags (approximate)   ``n0 (N^2 m + p N m) w``, w the words of the largest lag    :data:`MAX_LAG_WORK`
Gram matrix (approximate, trained)          ``n0 (p m)^2`` multiply-adds                                ``MAX_GRAM_WORK``
definiteness of brackets (approximate)      ``brackets 2 (p m)^3 x^1.5``, x = p m words(tr G)            ``MAX_DEFINITE_WORK``
trained layer's enclosures (trained)        products of the mode recurrences (``recurrence_work``)      ``MAX_RECURRENCE_WORK``
gradient v1: characteristic polynomials     :func:`decay_v1_work`: ``2 N^3 x^1.5``, x = N words(T), T the  :data:`MAX_DECAY_V1_WORK`
  or leading minors of P and of               integer form of ``r^2 P - A^T P A`` (bits of P, A, r);
  ``r^2 P - A^T P A`` (gradient.py)           P and A each at most ``MAX_P_BITS``, ``MAX_A_BITS``
gradient v2: products (gradient.py)         ``N^3 (wU + wD + wA + wmu)^2`` (``decay_work``)             ``MAX_DECAY_WORK``
gradient: ``||C||^2 ||B||^2 M / mu``        :func:`norm_work`: ``32 W^2``, W the words of C, B, M, mu   :data:`MAX_NORM_WORK`
  and its text (gradient.py)                  over their common denominators
Q(i) lags (gaussian.py)                     bits over the common denominator (lcm, capped); products    ``MAX_GAUSSIAN_LAG_BITS``,
                                              ``(N^2 m + p N m)(1 + bits_d / 64)`` per lag              ``MAX_GAUSSIAN_WORK``
polynomial products (polynomials.py)        term pairs times the words of both coefficients, plus each  ``MAX_POLY_WORK``
                                              result term (at most the pairs, and the monomials within
                                              both degrees) :data:`OUTPUT_TERM_WORK` and its lowest terms
powers (polynomials.py ``power``)           each step's pairs on integers over the common denominator,  ``MAX_POLY_WORK``
                                              ``POWER_PAIR_WORK`` each; the result's terms once
exact division (polynomials.py)             ``len(a)``, and per quotient term ``len(b)`` products of     ``MAX_POLY_WORK``
                                              its words, their lowest terms and ``DIVISION_PRODUCT_WORK``
                                              (charged step by step: the denominators may grow)
coprimality (polynomials.py ``coprime``)    the modular witness (``witness_work``: every term's image,   ``MAX_POLY_WORK``
                                              ``deg_a deg_b`` Euclid steps, per variable and prime); if it
                                              cannot tell, the exact gcd's products, divisions and
                                              ``GCD_TERM_WORK`` per term touched
covering: lcm and content gcd of the        :func:`content_work`: per coefficient three gcds on          ``MAX_POLY_WORK``
  rational-root and solve rules               :func:`common_words` words (the distinct denominators'
  (covering.py)                               bits summed), the scaled solution's lowest terms
covering: divisors, candidate roots         ``isqrt(c)`` trial divisions; ``2 (d + 1)`` products per     ``MAX_POLY_WORK``;
                                              candidate of their words                                  ``MAX_ROOT_*``
covering: definite Gram matrix, L D L^T     :func:`elimination_work`, :func:`ldl_work` (``k^3`` steps on   ``MAX_POLY_WORK``
                                              entries of their grown words)
a polynomial at a point (``--at``)          :func:`evaluation_work`: the words of each term's powers     ``MAX_POLY_WORK``
layers' blocks (interaction.py)             multiply-adds of the blocks' products, and again weighted   ``MAX_LAYER_WORK``
                                              by :func:`lowest_terms_work` of the entries' common words;
                                              recurrent kinds: per block, of the words its numbers grow
                                              to over ``i - j`` transitions (recurrent ``growth_work``)
==========================================  ==========================================================  ======================

Every charge is recorded on a meter (:func:`reset_meter`, :func:`charge`, :func:`charged`; :func:`within` affords
and charges in one step) that tests/checker/test_cost_model.py, tests/checker/test_worst_charges.py and
fuzz/fuzz_cost.py set against measured time.

Operations with no charge of their own, and the earlier charge (or bound) that covers each:

- ``int()`` of a number's text and ``Fraction`` in lowest terms while reading: each number has at most
  ``MAX_DIGITS`` digits above and below, so each costs at most a few milliseconds, and the certificate's bytes
  bound how many there are (the cost model counts 10 units a byte).
- sums of polynomials (``add``, ``sum_polys``), ``scale``, ``_normalised``, ``substitute``'s term moves: one
  operation per term of operands that a charged product made or a byte read; the exact gcd's own bookkeeping is
  charged per term (``GCD_TERM_WORK``).
- the Gram matrix of a degree-2 factor (covering ``_gram``): at most ``(k + 1)^2`` sums of read coefficients,
  k <= 16 parameters.
- sorts (``sorted`` of denominators, of bodies' keys, of a layer's blocks): ``n log n`` comparisons over items
  already read (bytes), each comparison of numbers already charged or bounded by ``MAX_DIGITS``.
- the lcm behind Q(i) lags' price (gaussian ``common_denominator_bits``): stops once it passes the lag limit,
  so each step works on at most ``MAX_GAUSSIAN_LAG_BITS`` bits per distinct denominator read.
- powers of a decay rate (``r ** (2 n0)``, ``r ** (2 delta)``): r has at most ``MAX_SMALL_DIGITS`` = 40 digits
  above and below, n0 <= 4096, delta <= ``MAX_CROSSOVER``: at most 2.7 million bits, one power.
- the attention bound's Taylor sum (gradient.py): at most ``MAX_TAYLOR`` terms of a 40-digit beta.
- integer forms of lags and the Gram matrix (approximate.py ``int(x * a)``): their bits bounded by
  ``lag_bit_bound`` <= ``MAX_LAG_BITS`` and their count by ``MAX_GRAM_WORK``, both charged first.
- a family's determinants (parametric.py ``_det``, Bareiss) and a case's substitutions (covering.py): every
  product, power and exact division goes through :mod:`~symssm.checker.polynomials`, charged step by step.
- the decimal text of a verdict's numbers: of the numbers' size, each charged above (a gradient's norms by
  :func:`norm_work`) or read within ``MAX_DIGITS``.

Examples
--------
>>> decay_v1_work(8, 100, 300, 20)
884736
>>> decay_v1_work(80, 33_000, 0, 0) > MAX_DECAY_V1_WORK  # N = 80, 33,000-bit P: refused before FLINT runs
True
"""

import threading

__all__ = ["CALIBRATED_SECONDS", "words", "MAX_DECAY_V1_WORK", "decay_v1_work", "MAX_LAG_WORK", "lag_product_work", "GCD_WORDS_PER_UNIT",
           "lowest_terms_work", "OUTPUT_TERM_WORK", "fraction_words", "common_words", "content_work", "elimination_work", "ldl_work",
           "evaluation_work", "MAX_NORM_WORK", "norm_work", "reset_meter", "charge", "charged", "within"]

_METER = threading.local()

#: The seconds the charges are calibrated to: a certificate within every limit is decided (verified, rejected, or
#: refused over a named limit) within this time on a 2-core machine under load, whatever is installed or imported
#: (tests/checker/test_cost_model.py runs the worst accepted case of each charge on each path).
CALIBRATED_SECONDS = 10.0


def reset_meter():
    """Start the meter of charged units afresh (this thread): what :func:`charged` reports is charged after it.

    The meter only records; each limit is enforced where its charge is made.  It is what the cost model's test
    (tests/checker/test_cost_model.py) and ``fuzz/fuzz_cost.py`` set against measured time.
    """
    _METER.total = 0


def charge(amount):
    """Record ``amount`` units charged (before the work they price); returns ``amount``.

    >>> reset_meter(); _ = charge(5); _ = charge(7); charged()
    12
    """
    _METER.total = getattr(_METER, "total", 0) + amount
    return amount


def charged():
    """Units charged in this thread since :func:`reset_meter`."""
    return getattr(_METER, "total", 0)


def within(ledger, work, limit, where, message):
    """``work`` afforded against ``limit`` (over it: undecided, the limit named, by ``ledger.afford``), then
    charged on the meter, before the work it prices; returns ``work``."""
    ledger.afford(work <= limit, where, message)
    return charge(work)


def words(bits):
    """64-bit words of a number of ``bits`` bits (at least 1).

    >>> words(0), words(64), words(65)
    (1, 1, 2)
    """
    return max(1, -(-bits // 64))


#: Most word operations the exact definiteness tests of a version-1 gradient certificate may cost: about 3 s of one
#: core for the standard library's leading minors at the limit (python-flint's characteristic polynomials take less).
MAX_DECAY_V1_WORK = 4_000_000_000


def decay_v1_work(N, p_bits, a_bits, r_bits):
    """The charge of a version-1 decay witness's definiteness tests, priced as the standard library does them:
    fraction-free elimination of an N x N matrix whose entries have ``w`` words (those of the integer form of
    ``r^2 P - A^T P A``, ``p_bits + 2 a_bits + 2 r_bits + 2 log2 N`` bits, the larger of the two matrices tested)
    takes ``N^3`` products of entries that grow to ``x = N w`` words, each about ``2 x^1.5`` word operations
    (Karatsuba): ``2 N^3 x isqrt(x)``.  The same charge whatever engine then runs (python-flint's characteristic
    polynomials cost less).

    Parameters
    ----------
    N : int
        The state dimension.
    p_bits, a_bits, r_bits : int
        Bits of P and of A over their common denominators, and of r's numerator and denominator together.

    Returns
    -------
    int
    """
    from math import isqrt

    bits = p_bits + 2 * a_bits + 2 * r_bits + 2 * max(1, N.bit_length())
    grown = N * words(bits)
    return 2 * N ** 3 * grown * isqrt(grown)


#: Most word operations the exact lags of an eps-head count may cost (``C A^d B`` for d below n0, dense integer
#: products in the standard library: a few seconds at the limit).
MAX_LAG_WORK = 100_000_000


def lag_product_work(n0, N, p, m, lag_bits):
    """The charge of forming the exact lags ``C A^d B`` (d < n0) as integer products: ``n0 (N^2 m + p N m)``
    multiply-adds, each of the words of the largest lag entry.

    >>> lag_product_work(2800, 400, 1, 1, 12)  # a shift of 400 states summed to n = 2800
    449120000
    """
    return n0 * (N * N * m + p * N * m) * words(lag_bits)


#: The making of one term of a polynomial product (its monomial and its Fraction in lowest terms), in units of
#: polynomial work (a unit: about 0.05 us of one core, the product of two one-word integers with its dictionary
#: update; the term costs about 2 us under load).  Charged for every term pair up to the most terms a product may have (the
#: result is held to ``MAX_POLY_TERMS``).
OUTPUT_TERM_WORK = 48

#: Squared 64-bit words of a gcd (CPython's Lehmer gcd, quadratic: about 7 ns per squared word, measured on this
#: machine) per unit of polynomial work (a term product of one-word coefficients with its Fraction: about 3.6 us).
GCD_WORDS_PER_UNIT = 512


def lowest_terms_work(w):
    """The charge of putting a ``w``-word fraction in lowest terms (one gcd, quadratic in the words): nothing
    for the short coefficients of honest certificates, ``w^2 / 512`` units past that.

    >>> lowest_terms_work(2), lowest_terms_work(31_250)
    (0, 1907348)
    """
    return w * w // GCD_WORDS_PER_UNIT


def fraction_words(c):
    """64-bit words of one Fraction (numerator and denominator together)."""
    return words(c.numerator.bit_length() + c.denominator.bit_length())


def common_words(coeffs):
    """Words of Fractions over their common denominator: the largest numerator plus the sum of the bits of the
    *distinct* denominators (a bound on the bits of their lcm), which is what an lcm and a content gcd touch."""
    big, dens = 0, set()
    for c in coeffs:
        big = max(big, c.numerator.bit_length())
        dens.add(c.denominator)
    return words(big + sum(d.bit_length() for d in dens))


def content_work(coeffs):
    """The charge of the lcm of the denominators of ``coeffs`` and the content gcd of the integers over it
    (the covering rules' rational-root and rational-solve steps): per coefficient a gcd with the growing lcm, a
    product and a gcd with the content, each on numbers of :func:`common_words` words.

    >>> from fractions import Fraction
    >>> content_work([Fraction(1, 2), Fraction(3, 4)])
    8
    >>> content_work([Fraction(1, 10**10000 + k) for k in range(60)]) > 50_000_000  # 60 distinct denominators
    True
    """
    coeffs = list(coeffs)
    w = common_words(coeffs)
    return len(coeffs) * (3 * (1 + lowest_terms_work(w)) + w)


#: Most word operations the norms of a decay witness may cost (``||C||_F^2 ||B||_F^2 M / mu``, its comparisons and
#: its text in the verdict): about 3.5 s at the limit, measured (docs/performance.md).
MAX_NORM_WORK = 1_000_000_000


def norm_work(*groups):
    """The charge of ``||C||_F^2 ||B||_F^2 M / mu``: sums of Fractions over many distinct denominators grow to their
    common denominator, and every step after (products, comparisons, the decimal text of the verdict) is quadratic
    in its words: ``32 W^2`` word operations, W the words of all the groups over their common denominators.

    >>> from fractions import Fraction
    >>> norm_work([Fraction(1, 3)], [Fraction(2)])
    128
    >>> norm_work([Fraction(1, 10 ** 5000 + 2 * k + 1) for k in range(24)]) > 10 ** 9  # 24 distinct denominators
    True
    """
    w = sum(common_words(list(g)) for g in groups)
    return 32 * w * w


def elimination_work(k, w):
    """The charge of Gaussian elimination without pivoting on a k x k matrix of Fractions of ``w`` words: ``k^3``
    products and subtractions on entries that grow to about ``k w`` words (each in lowest terms)."""
    grown = k * w
    return k ** 3 * (1 + grown + lowest_terms_work(grown))


def ldl_work(k, wl, wd):
    """The charge of ``L diag(D) L^T`` for k x k ``L`` of ``wl``-word and pivots of ``wd``-word Fractions: ``k^3``
    triple products of ``2 wl + wd`` words, each in lowest terms, summed."""
    w = 2 * wl + wd
    return k ** 3 * (1 + w + lowest_terms_work(k * w))


def evaluation_work(terms, point_words):
    """The charge of evaluating a polynomial at a point: ``terms`` is ``[(words of c, exponents)]``; each term's
    powers have ``sum e_i w_i`` words, and the sum's common denominator up to all of them together.

    >>> evaluation_work([(1, (10_000,))], [1]) > 10_000  # x^10000: a power of 10,000 words
    True
    """
    sizes = [wc + sum(e * w for e, w in zip(mon, point_words)) for wc, mon in terms]
    total = sum(sizes)
    return len(sizes) * (1 + lowest_terms_work(total)) + total + sum(lowest_terms_work(s) for s in sizes)
