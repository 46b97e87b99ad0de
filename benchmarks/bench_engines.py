"""Engines beside the methods they replaced, measured in the same run.

- Q(i) lags: python-flint integer matrices of the real and imaginary parts, against symssm's own
  Gaussian arithmetic (the generator's ``gaussian_lags`` / ``gaussian_lags_pure`` and the checker's
  ``_lags_flint`` / ``_lags_pure``); the results are compared for equality.
- Checkpoint reading: only the recognised layers' tensors (``read_layers``), against reading every
  tensor (``find_layers(read_tensors(path))``), on a safetensors file with a large embedding; peak
  memory by tracemalloc.

    python benchmarks/bench_engines.py [--N 64] [--embedding-mb 256]

Prints a Markdown table (docs/performance.md records a run).
"""

import argparse
import json
import os
import random
import struct
import tempfile
import time
import tracemalloc

import numpy as np

from symssm.checker import gaussian as checker_gaussian
from symssm.checker.reading import Ledger
from symssm.exact.gaussian import gaussian_lags, gaussian_lags_pure
from symssm.sources.checkpoints import find_layers, read_layers, read_tensors
from symssm.sources.complex_system import complex_ssm


def _timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def _peak(fn):
    tracemalloc.start()
    start = time.perf_counter()
    out = fn()
    took = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return took, peak, out


def _gaussian_system(N, p, m, seed=0):
    rng = random.Random(seed)

    def g():
        b = rng.randint(-9, 9)
        return f"{rng.randint(-9, 9)}/{rng.randint(1, 9)}{'+' if b >= 0 else '-'}{abs(b)}/{rng.randint(1, 9)}i"

    return complex_ssm([[g() for _ in range(N)] for _ in range(N)], [[g() for _ in range(m)] for _ in range(N)],
                       [[g() for _ in range(N)] for _ in range(p)])


def _safetensors(path, embedding_mb):
    rng = np.random.default_rng(0)
    rows = embedding_mb * 1024 * 1024 // (4 * 1024)
    tensors = {"embedding.weight": rng.standard_normal((rows, 1024), dtype=np.float32)}
    for i in range(2):
        prefix, d_inner, d_state, dt_rank = f"layers.{i}.mixer.", 64, 16, 4
        tensors[prefix + "A_log"] = np.log(np.tile(np.arange(1, d_state + 1, dtype=np.float32), (d_inner, 1)))
        tensors[prefix + "x_proj.weight"] = rng.standard_normal((dt_rank + 2 * d_state, d_inner), dtype=np.float32)
        tensors[prefix + "dt_proj.weight"] = rng.standard_normal((d_inner, dt_rank), dtype=np.float32)
        tensors[prefix + "dt_proj.bias"] = np.full(d_inner, -2.0, dtype=np.float32)
        tensors[prefix + "D"] = np.ones(d_inner, dtype=np.float32)
    header, blobs, offset = {}, [], 0
    for name, value in tensors.items():
        blob = np.ascontiguousarray(value).astype("<f4").tobytes()
        header[name] = {"dtype": "F32", "shape": list(value.shape), "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    text = json.dumps(header).encode()
    with open(path, "wb") as fh:
        fh.write(struct.pack("<Q", len(text)) + text)
        for blob in blobs:
            fh.write(blob)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--N", type=int, default=64)
    ap.add_argument("--embedding-mb", type=int, default=256)
    args = ap.parse_args(argv)
    rows = []
    system = _gaussian_system(args.N, 4, 4)
    count = args.N + 1
    t_fast, fast = _timed(lambda: gaussian_lags(system, count))
    t_pure, pure = _timed(lambda: gaussian_lags_pure(system, count))
    assert fast == pure
    rows.append((f"generator Q(i) lags, N = {args.N}, p = m = 4, {count} lags", f"{t_fast:.3f} s", f"{t_pure:.2f} s",
                 "equal"))
    from symssm.api import certify

    data = certify(system, 100).data
    checker_system = checker_gaussian.read_gaussian_system(Ledger(), data["system"])
    t_fast, fast = _timed(lambda: checker_gaussian._lags_flint(checker_system, count))
    t_pure, pure = _timed(lambda: checker_gaussian._lags_pure(checker_system, count))
    assert fast == pure
    rows.append(("checker Q(i) lags, the same system", f"{t_fast:.3f} s", f"{t_pure:.2f} s", "equal"))
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "m.safetensors")
        _safetensors(path, args.embedding_mb)
        size = os.path.getsize(path) / 1e6
        t_lazy, p_lazy, lazy = _peak(lambda: read_layers(path))
        t_all, p_all, every = _peak(lambda: find_layers(read_tensors(path)))
        assert [(x.name, x.kind) for x in lazy] == [(x.name, x.kind) for x in every]
        rows.append((f"checkpoint layers from a {size:.0f} MB safetensors file (two small Mamba layers)",
                     f"{t_lazy:.3f} s, {p_lazy / 1e6:.1f} MB", f"{t_all:.2f} s, {p_all / 1e6:.0f} MB", "same layers"))
    print("| operation | new engine | previous method | results |")
    print("|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()
