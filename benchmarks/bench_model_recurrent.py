"""Benchmark: `symssm model` on linear-recurrence layers read as their layer kinds, by width.

    python benchmarks/bench_model_recurrent.py                  # the table in docs/performance.md
    python benchmarks/bench_model_recurrent.py --widths 64 --length 16

For each width d a checkpoint of one fla Gated DeltaNet layer (4 heads, d_k = d / 4, d_v = d / 2,
short convolutions of 4 taps, an output gate; fla's names) is written to a temporary folder and `symssm model
DIR --json --input-length L` runs on it in a fresh process: the layer's blocks W_ij are L(L+1)/2 matrices of
d x d. Wall seconds and peak RSS (``resource.getrusage``) of each run are printed, with the size of the block
stack.
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

RUN = """
import resource, sys, time
from symssm.numeric.models import analyse_model
t0 = time.perf_counter()
report = analyse_model(sys.argv[1], 64, length=int(sys.argv[2]))
wall = time.perf_counter() - t0
layer = report["layers"][1]
print(wall, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, layer["status"],
      layer.get("numerical_interaction_rank"), layer.get("reason", ""))
"""


def gated_deltanet(rng, d, heads=4):
    hd = d // heads

    def w(*shape):
        return (rng.standard_normal(shape) * 0.3).astype(np.float32)

    return {"q_proj.weight": w(d, d), "k_proj.weight": w(d, d), "v_proj.weight": w(2 * d, d),
            "a_proj.weight": w(heads, d), "b_proj.weight": w(heads, d),
            "A_log": np.log(rng.uniform(1, 16, heads)).astype(np.float32), "dt_bias": w(heads),
            "q_conv1d.weight": w(d, 1, 4), "k_conv1d.weight": w(d, 1, 4), "v_conv1d.weight": w(2 * d, 1, 4),
            "g_proj.weight": w(2 * d, d), "o_norm.weight": np.ones(2 * hd, np.float32), "o_proj.weight": w(d, 2 * d)}


def write(folder, d):
    rng = np.random.default_rng(0)
    tensors = {f"model.layers.0.attn.{k}": v for k, v in gated_deltanet(rng, d).items()}
    tensors["model.embeddings.weight"] = rng.standard_normal((16, d)).astype(np.float32)
    tensors["model.layers.0.attn_norm.weight"] = np.ones(d, np.float32)
    os.makedirs(folder, exist_ok=True)
    np.savez(os.path.join(folder, "model.npz"), **tensors)
    with open(os.path.join(folder, "config.json"), "w") as fh:
        json.dump({"model_type": "gated_deltanet", "num_heads": 4}, fh)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--widths", default="64,128,192")
    parser.add_argument("--length", type=int, default=32)
    args = parser.parse_args()
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    print("| width | blocks (floats) | wall s | peak RSS MiB | status | interaction rank |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for d in (int(x) for x in args.widths.split(",")):
            folder = os.path.join(tmp, f"gdn{d}")
            write(folder, d)
            out = subprocess.run([sys.executable, "-c", RUN, folder, str(args.length)], env=env, capture_output=True,
                                 text=True, check=True).stdout.split(maxsplit=4)
            L = args.length
            print(f"| {d} | {L * (L + 1) // 2 * d * d} | {float(out[0]):.2f} | {float(out[1]):.0f} | {out[2]} | "
                  f"{out[3]} |")


if __name__ == "__main__":
    main()
