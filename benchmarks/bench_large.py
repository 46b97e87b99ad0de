"""Large systems, whole commands, each beside its baseline measured in the same run.

    python benchmarks/bench_large.py [--quick] [--repeat R]

Rows (median of R runs, whole processes, seconds):

* certify / check, N = 1024, p = m = 32, n = 10^6 (random integer system) against python-flint
  forming the lags mod a prime with nmod_mat products and ranking them (no witness);
* check of two copies of a 128-state block (N = 256, k = 128) against its certify;
* gradient on HiPPO-LegS N = 96 (the family, and the same system from a spec file) and a dense stable N = 64
  rational system against the float answer a user would compute instead (spectral radius, scipy Lyapunov
  solve, eigenvalues: float_gradient.py);
* numeric on an N = 2048, p = m = 8 .npz spec at n = 10^6 against a plain numpy script
  (numpy_baseline.py), with both numerical head counts.

``--quick`` uses N = 512 (p = m = 23) for the first row and skips N = 2048.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

FLINT_RANK = r"""
import json, sys
import flint
P = 2097143
data = json.load(open(sys.argv[1]))
red = lambda M: flint.nmod_mat([[int(x) % P for x in row] for row in M], P)
A, X, C = red(data["A"]), red(data["B"]), red(data["C"])
rows = []
for d in range(len(data["A"])):
    L = C * X
    rows.append([int(L[i, j]) for i in range(L.nrows()) for j in range(L.ncols())])
    X = A * X
print(flint.nmod_mat(rows, P).rank())
"""


def timed(argv, repeat):
    times, out = [], ""
    for _ in range(repeat):
        start = time.perf_counter()
        result = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT,
                                env=dict(os.environ, PYTHONPATH=ROOT))
        times.append(time.perf_counter() - start)
        if result.returncode not in (0,):
            raise SystemExit(f"{' '.join(argv)} failed: {result.stderr[-500:]}")
        out = result.stdout
    return statistics.median(times), out


def symssm(*args):
    return [sys.executable, "-m", "symssm", *args]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    import numpy as np

    work = tempfile.mkdtemp(prefix="symssm-bench-")
    rng = np.random.default_rng(0)
    rows = []

    N, pm = (512, 23) if args.quick else (1024, 32)
    spec = os.path.join(work, "random.json")
    json.dump({"A": rng.integers(-9, 10, (N, N)).tolist(), "B": rng.integers(-9, 10, (N, pm)).tolist(),
               "C": rng.integers(-9, 10, (pm, N)).tolist(), "n": 10**6}, open(spec, "w"))
    cert = os.path.join(work, "random.cert.json")
    t_cert, _ = timed(symssm("certify", spec, "-o", cert), args.repeat)
    t_check, _ = timed(symssm("check", cert), args.repeat)
    t_flint, _ = timed([sys.executable, "-c", FLINT_RANK, spec], args.repeat)
    rows += [(f"certify N={N} p=m={pm} (with its verification)", t_cert, "flint lags mod P + rank", t_flint),
             (f"check N={N} p=m={pm}", t_check, "certify, same system", t_cert)]

    n = 128
    blk = rng.integers(-9, 10, (n, n))
    A = np.zeros((2 * n, 2 * n), dtype=int)
    A[:n, :n] = A[n:, n:] = blk
    Bb, Cb = rng.integers(-9, 10, (n, 16)), rng.integers(-9, 10, (16, n))
    degen = os.path.join(work, "degenerate.json")
    json.dump({"A": A.tolist(), "B": np.vstack([Bb, Bb]).tolist(), "C": np.hstack([Cb, Cb]).tolist(), "n": 10**6},
              open(degen, "w"))
    dcert = os.path.join(work, "degenerate.cert.json")
    t_dc, _ = timed(symssm("certify", degen, "-o", dcert, "--no-verify"), args.repeat)
    t_dk, _ = timed(symssm("check", dcert), args.repeat)
    rows.append(("check, two copies of a 128-state block", t_dk, "certify --no-verify, same", t_dc))

    sys.path.insert(0, ROOT)
    from symssm.sources.families import hippo_legs

    legs = hippo_legs(96)
    legs_spec = os.path.join(work, "legs96.json")
    json.dump({k: legs.entry_text[k] for k in ("A", "B", "C")}, open(legs_spec, "w"))
    dense_spec = os.path.join(work, "dense64.json")
    r = np.random.default_rng(1)
    json.dump({"A": [[f"{r.integers(-9, 10)}/{r.integers(50, 100)}" for _ in range(64)] for _ in range(64)],
               "B": [[1, 0]] * 64, "C": [[1] * 64, [0] * 64]}, open(dense_spec, "w"))
    for label, path, source in (("gradient --family hippo-legs -N 96", legs_spec, ("--family", "hippo-legs", "-N", "96")),
                                ("gradient HiPPO-LegS N=96 (spec)", legs_spec, (legs_spec,)),
                                ("gradient dense stable N=64", dense_spec, (dense_spec,))):
        t_g, _ = timed(symssm("gradient", *source, "-o", os.path.join(work, "g.json")), args.repeat)
        t_f, _ = timed([sys.executable, os.path.join(HERE, "float_gradient.py"), path], args.repeat)
        rows.append((label, t_g, "float: rho, scipy Lyapunov, eigvalsh", t_f))

    if not args.quick:
        npz = os.path.join(work, "float2048.npz")
        np.savez(npz, A=rng.standard_normal((2048, 2048)) * (0.9 / np.sqrt(2048)),
                 B=rng.standard_normal((2048, 8)), C=rng.standard_normal((8, 2048)), n=np.array(10**6))
        t_n, out_n = timed(symssm("numeric", npz, "--json"), args.repeat)
        t_p, out_p = timed([sys.executable, os.path.join(HERE, "numpy_baseline.py"), npz], args.repeat)
        ours = json.loads(out_n)["numerical_head_count"]
        rows.append((f"numeric N=2048 p=m=8 .npz (k = {ours}; numpy: {out_p.strip()})", t_n,
                     "plain numpy: N lags + SVD", t_p))

    width = max(len(r[0]) for r in rows)
    print(f"{'case':<{width}}  {'symssm s':>9}  {'baseline':<38} {'s':>7}  ratio")
    for label, t, base, tb in rows:
        print(f"{label:<{width}}  {t:9.2f}  {base:<38} {tb:7.2f}  {t / tb:5.2f}")


if __name__ == "__main__":
    main()
