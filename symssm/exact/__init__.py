"""Stage 3, exact: lag operators, rank profiles, witness primes and head-count witnesses.

Exact rational (and modular) arithmetic only: DomainMatrix over ZZ / QQ / GF(P) with
python-flint underneath; :mod:`.convert` is the one place that changes representation.
Imports :mod:`symssm.sources`, :mod:`symssm.formats` and :mod:`symssm.errors`.
"""
