"""Random multi-field mutation of certificates of every kind, outside pytest (long runs).

Each mutant replaces, deletes, perturbs or truncates one to three fields of a valid certificate; the
checker must decide it (exit code 0, 1 or 2) without raising and without reaching its generic
"malformed certificate" fall-through: every malformed field must be named by an obligation.

    python fuzz/fuzz_mutants.py --seed 1 --count 30000 certificates/rotation-N2-p1-m1.json ...

With no files it uses a small certificate of every kind from certificates/ and the framework table.
Prints a summary and exits 1 if any mutant reached the fall-through or raised.
"""

import argparse
import collections
import copy
import os
import random
import sys

from symssm.checker.core import check_data
from symssm.checker.reading import JsonDecimal, read_file

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VALUES = [None, True, 0, -1, 2**70, "x", "", [], {}, [[]], JsonDecimal("1.5"), "1/2", [0], {"a": 1},
          "0", "1", "a", "b", "a - b", "t", "-1", "2*a", "a^2 + 1", "case", "uncovered", "outside-domain", "1/0"]


def _paths(obj, prefix=()):
    out = [prefix]
    if isinstance(obj, dict):
        for k in obj:
            out += _paths(obj[k], prefix + (k,))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, prefix + (i,))
    return out


def _default_certificates():
    from symssm.catalog import build_framework

    names = ["rotation-N2-p1-m1.json", "diagonal-N2-p1-m1.gradient.json", "rotation-symbolic-N2-p2-m1.json",
             "generic-symbolic-N2-p2-m2.json"]
    out = [(n, read_file(os.path.join(ROOT, "certificates", n), "certificate")) for n in names]
    out += [(label, copy.deepcopy(c.data)) for label, _, c, *_ in build_framework(None, seed=0, n=3, m=1,
                                                                                  every_input=False)]
    return out


def mutate(rng, data):
    d = copy.deepcopy(data)
    for _ in range(rng.randint(1, 3)):
        paths = _paths(d)[1:]
        if not paths:
            break
        path = rng.choice(paths)
        parent = d
        for key in path[:-1]:
            parent = parent[key]
        value, r = parent[path[-1]], rng.random()
        if r < 0.1:
            del parent[path[-1]]
        elif r < 0.2 and type(value) is int:
            parent[path[-1]] = value + rng.choice([-1, 1, 2])
        elif r < 0.3 and isinstance(value, list):
            parent[path[-1]] = value[:-1] if rng.random() < 0.5 else value + value[-1:]
        else:
            parent[path[-1]] = copy.deepcopy(rng.choice(VALUES))
    return d


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", help="certificates to mutate (default: one small one of every kind)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=10000)
    args = ap.parse_args(argv)
    bases = [(f, read_file(f, "certificate")) for f in args.files] or _default_certificates()
    rng = random.Random(args.seed)
    bad, codes = collections.Counter(), collections.Counter()
    for _ in range(args.count):
        name, data = rng.choice(bases)
        try:
            result = check_data(mutate(rng, data))
        except BaseException as exc:  # noqa: BLE001 - a raise is exactly what this harness looks for
            bad[(name, f"raised {type(exc).__name__}: {str(exc)[:80]}")] += 1
            continue
        codes[result.code] += 1
        if result.message.startswith("undecided: malformed certificate, read by no obligation") or "internal" in result.message:
            bad[(name, result.message[:100])] += 1
    print(f"{args.count} mutants of {len(bases)} certificates (seed {args.seed}): "
          f"{codes[0]} verified, {codes[1]} rejected, {codes[2]} unreadable; {sum(bad.values())} fall-throughs")
    for (name, msg), c in bad.most_common():
        print(f"  {c} x {name}: {msg}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
