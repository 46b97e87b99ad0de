"""The checker's limits that more than one of its modules applies, each defined once.

Standard library only. A limit that one kind alone applies stands at the top of that kind's module
(``MAX_TAYLOR`` in :mod:`.gradient`, ``MAX_MODES`` in :mod:`.trained`); the ones below are shared: the
size of what is read, of a system, of a modular witness's prime, of a Gram matrix and of a family's
cases.  The generator enforces the same numbers with its own code (:mod:`symssm.formats.limits`), so it
never writes what the checker would refuse; ``tests/checker/test_limits.py`` keeps the two equal.
"""

__all__ = ["MAX_BYTES", "MAX_INTEGER_BYTES", "MAX_DEPTH", "MAX_DIM", "MAX_ENTRIES", "MAX_INTEGER_ENTRIES", "MAX_NAME", "MAX_N", "MAX_PRIME", "MAX_GRAM_WORK",
           "MAX_CASES"]

#: Largest certificate or spec file read, in bytes.
MAX_BYTES = 64 * 1024 * 1024
#: A certificate whose system's matrices are integers read by the bulk reader (checker/bulk.py) may be this
#: large, what is not such a matrix staying below MAX_BYTES.
MAX_INTEGER_BYTES = 256 * 1024 * 1024
#: Deepest nesting of JSON arrays and objects read.
MAX_DEPTH = 32
#: Largest state, input or output dimension of a system (over Q and over Q(i)), and of a layer's p and m.
MAX_DIM = 4096
#: Most entries of a system, A, B, C and D together (over Q and over Q(i)).
MAX_ENTRIES = 8_388_608
#: ... and systems whose matrices are integers below 10^18, read by the bulk reader (int64 arrays): N = 4096
#: with p = m = 64 (a memory estimate: checker/bulk.py).
MAX_INTEGER_ENTRIES = 17_825_792
#: Longest system name, in characters.
MAX_NAME = 200
#: Largest n a spec may give.
MAX_N = 10**30
#: Largest prime of a modular witness (over Q and over Q(i)).
MAX_PRIME = 2**31
#: Most multiply-adds of forming a Gram matrix (eps-head counts of systems and of trained layers).
MAX_GRAM_WORK = 20_000_000
#: Most cases (bodies) of a certificate for every parameter value (families and layers for every input).
MAX_CASES = 1024
