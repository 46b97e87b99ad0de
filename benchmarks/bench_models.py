"""Benchmark: trained layers' error curves, the modal forms against the materialised lag stack, in one run.

    python benchmarks/bench_models.py                    # the tables in docs/performance.md
    python benchmarks/bench_models.py --lengths 1024,16384 --no-command

Layers (seed 0, 8 channels): S4D with 32 complex modes per channel (steps from 0.001 to 0.1, state-spaces/s4's
initialisation), S5 with 32 modes (Lambda_re from -0.002 to -0.4) and LRU with 32 modes (|lambda| in (0.9, 0.999)).
For each length n it times

- the baseline: the lag stack materialised (n x entries, every lag from its modes) and its SVD, the way the numeric
  path worked before (its memory grows with n; skipped past --baseline-limit numbers);
- symssm's ``analyse_layer`` (the form ``auto`` picks: stream, doubling or gram; docs/numeric.md),

with the peak memory of each (tracemalloc: numpy's buffers included) and the largest relative difference of the two
curves where the baseline's values exceed 1e-8.  Then the whole command ``symssm model FILE -n 10000000`` on a
checkpoint of 2 such layers of each kind (wall seconds and peak RSS from /usr/bin/time).
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from symssm.numeric.models import analyse_layer, layer_modal_form  # noqa: E402
from symssm.numeric.modal import modal_lags  # noqa: E402
from symssm.sources.checkpoints import CheckpointLayer  # noqa: E402


def layers(seed=0, H=8, P=32):
    rng = np.random.default_rng(seed)
    s4d = {"kernel.log_dt": np.log(rng.uniform(0.001, 0.1, H)), "kernel.log_A_real": np.log(np.full((H, P), 0.5)),
           "kernel.A_imag": np.tile(np.pi * np.arange(P), (H, 1)).astype(float),
           "kernel.C": rng.standard_normal((H, P, 2)), "D": rng.standard_normal(H)}
    s5 = {"Lambda_re": -np.linspace(0.002, 0.4, P), "Lambda_im": rng.uniform(0, 3, P),
          "B": rng.standard_normal((P, H, 2)), "C": rng.standard_normal((H, P, 2)), "D": rng.standard_normal(H),
          "log_step": np.log(rng.uniform(0.001, 0.1, (P, 1)))}
    lru = {"nu_log": np.log(-np.log(rng.uniform(0.9, 0.999, P))), "theta_log": np.log(rng.uniform(0.01, 3, P)),
           "gamma_log": np.zeros(P), "B_re": rng.standard_normal((P, H)), "B_im": rng.standard_normal((P, H)),
           "C_re": rng.standard_normal((H, P)), "C_im": rng.standard_normal((H, P)), "D": rng.standard_normal(H)}
    return {"s4d": s4d, "s5": s5, "lru": lru}


def stack_curve(layer, n):
    """The baseline: every lag materialised, the weighted n x E stack, its SVD."""
    form, _ = layer_modal_form(layer)
    rows = modal_lags(form, n) * np.sqrt(n - np.arange(n))[:, None]
    s = np.linalg.svd(rows, compute_uv=False)
    sq = s * s
    tails = np.concatenate([np.cumsum(sq[::-1])[::-1], [0.0]])
    return np.sqrt(tails / tails[0])


def measured(fn):
    tracemalloc.start()
    t = time.perf_counter()
    out = fn()
    elapsed = time.perf_counter() - t
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, elapsed, peak


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lengths", default="1024,16384,131072,1000000,10000000,1000000000000")
    ap.add_argument("--baseline-limit", type=float, default=1.5e8, help="most numbers of the materialised stack")
    ap.add_argument("--no-command", action="store_true", help="skip the whole-command runs")
    args = ap.parse_args()
    print("| layer | n | stack: s | stack: peak MB | symssm: s | symssm: peak MB | form | k (1e-10) | stack / symssm "
          "| max rel. diff |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for kind, tensors in layers().items():
        layer = CheckpointLayer(kind, kind, tensors)
        E = layer_modal_form(layer)[0].E
        for n in [int(x) for x in args.lengths.split(",")]:
            out, t_new, p_new = measured(lambda: analyse_layer(layer, n))
            base, cells = None, ["-", "-"]
            if n * E * 3 <= args.baseline_limit:
                base, t_old, p_old = measured(lambda: stack_curve(layer, n))
                cells = [f"{t_old:.3f}", f"{p_old / 2 ** 20:.0f}"]
            diff = "-"
            ratio = "-"
            if base is not None:
                got = out["approximation_error"]
                rel = [abs(g - b) / b for g, b in zip(got, base) if b > 1e-8]
                diff = f"{max(rel, default=0.0):.1e}"
                ratio = f"{t_old / t_new:.1f}x"
            print(f"| {kind} | {n:,} | {cells[0]} | {cells[1]} | {t_new:.3f} | {p_new / 2 ** 20:.1f} | "
                  f"{out['approximation_method']} | {out['numerical_head_count']} | {ratio} | {diff} |", flush=True)
    if args.no_command:
        return
    print()
    print("| checkpoint (2 layers x 8 channels) | command | wall s | peak RSS MB |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("s4d", "s5", "lru"):
            path = os.path.join(tmp, f"{kind}.npz")
            np.savez(path, **{f"layers.{i}.{k}": v for i in range(2) for k, v in layers(seed=i)[kind].items()})
            cmd = [sys.executable, "-m", "symssm", "model", path, "-n", "10000000", "--json"]
            res = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + cmd, capture_output=True, text=True,
                                 env={**os.environ, "PYTHONPATH": os.path.join(os.path.dirname(__file__), "..")})
            wall, rss = res.stderr.strip().splitlines()[-1].split()
            print(f"| {kind} | symssm model {kind}.npz -n 10000000 | {float(wall):.2f} | {int(rss) / 1024:.0f} |",
                  flush=True)


if __name__ == "__main__":
    main()
