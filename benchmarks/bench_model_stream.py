"""Benchmark: `symssm model` on a 1B-parameter-class hybrid checkpoint, layer by layer, beside loading it whole.

    python benchmarks/bench_model_stream.py                     # the table in docs/performance.md
    python benchmarks/bench_model_stream.py --layers 4 --keep   # smaller; keep the file in /tmp

A synthetic checkpoint in the Hugging Face layout (``model.safetensors`` in float16 and ``config.json``) is written
to a temporary folder: a Nemotron-H-like hybrid of width 2048 with ``--layers`` blocks (default 18), each a
Mamba-2 mixer (64 heads x headdim 64, one group, d_state 128, conv 4) or, every sixth block, grouped-query
attention (16 heads, 4 kv heads, head dim 128), followed by a gated MLP of width 5632; a 32,000-token embedding
and output head.  With 18 blocks: about 1.18 billion parameters, 2.4 GB on disk.

Measured in the same run, each in a fresh process (``/usr/bin/time -f "%e %M"``: wall seconds, peak RSS):

- the baseline: every tensor of the file loaded into memory as stored (what loading the state dict costs);
- ``symssm model DIR --json``: the layer map from the header, then each layer's tensors read, analysed and dropped.

The largest layer's tensors as float64 (the bound the streaming read keeps to) are printed beside.
"""

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

BASELINE = """
import json, struct, sys
import numpy as np
path = sys.argv[1]
with open(path, "rb") as fh:
    (size,) = struct.unpack("<Q", fh.read(8))
    header = json.loads(fh.read(size))
    base = 8 + size
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        fh.seek(base + start)
        tensors[name] = np.frombuffer(fh.read(end - start), dtype=np.float16).reshape(info["shape"])
print(sum(t.size for t in tensors.values()))
"""


def plan(layers, d=2048, vocab=32000):
    """``[(name, shape)]`` of the synthetic hybrid, in order, and its config."""
    heads, headdim, N, conv = 64, 64, 128, 4
    d_ssm = heads * headdim
    conv_dim = d_ssm + 2 * N
    a_heads, a_kv, a_hd, hidden = 16, 4, 128, 5632
    out = [("backbone.embeddings.weight", (vocab, d))]
    for i in range(layers):
        p = f"backbone.layers.{i}"
        out.append((f"{p}.norm.weight", (d,)))
        if i % 6 == 5:
            out += [(f"{p}.mixer.q_proj.weight", (a_heads * a_hd, d)), (f"{p}.mixer.k_proj.weight", (a_kv * a_hd, d)),
                    (f"{p}.mixer.v_proj.weight", (a_kv * a_hd, d)), (f"{p}.mixer.o_proj.weight", (d, a_heads * a_hd))]
        else:
            out += [(f"{p}.mixer.in_proj.weight", (d_ssm + conv_dim + heads, d)),
                    (f"{p}.mixer.conv1d.weight", (conv_dim, 1, conv)), (f"{p}.mixer.conv1d.bias", (conv_dim,)),
                    (f"{p}.mixer.dt_bias", (heads,)), (f"{p}.mixer.A_log", (heads,)), (f"{p}.mixer.D", (heads,)),
                    (f"{p}.mixer.norm.weight", (d_ssm,)), (f"{p}.mixer.out_proj.weight", (d, d_ssm))]
        out += [(f"{p}.ffn_norm.weight", (d,)), (f"{p}.mlp.gate_proj.weight", (hidden, d)),
                (f"{p}.mlp.up_proj.weight", (hidden, d)), (f"{p}.mlp.down_proj.weight", (d, hidden))]
    out += [("backbone.norm_f.weight", (d,)), ("lm_head.weight", (vocab, d))]
    config = {"model_type": "nemotron_h", "hidden_size": d, "n_groups": 1, "ssm_state_size": N,
              "mamba_num_heads": heads, "mamba_head_dim": headdim, "num_attention_heads": a_heads,
              "num_key_value_heads": a_kv, "head_dim": a_hd, "layer_norm_epsilon": 1e-5}
    return out, config


def write(folder, layers):
    tensors, config = plan(layers)
    header, offset = {}, 0
    for name, shape in tensors:
        size = 2 * int(np.prod(shape))
        header[name] = {"dtype": "F16", "shape": list(shape), "data_offsets": [offset, offset + size]}
        offset += size
    text = json.dumps(header).encode()
    rng = np.random.default_rng(0)
    with open(os.path.join(folder, "model.safetensors"), "wb") as fh:
        fh.write(struct.pack("<Q", len(text)) + text)
        for name, shape in tensors:
            if name.endswith("A_log"):
                data = np.log(rng.uniform(1, 16, shape))
            elif name.endswith("dt_bias"):
                data = np.log(np.expm1(rng.uniform(0.001, 0.1, shape)))
            elif name.endswith("norm.weight") or name.endswith(".D"):
                data = np.ones(shape)
            else:
                data = rng.standard_normal(shape, dtype=np.float32) * 0.02
            fh.write(np.ascontiguousarray(data, dtype="<f2").tobytes())
    with open(os.path.join(folder, "config.json"), "w") as fh:
        json.dump(config, fh)
    params = sum(int(np.prod(s)) for _, s in tensors)
    largest = max(sum(int(np.prod(s)) for n, s in tensors if n.startswith(f"backbone.layers.{i}.mixer"))
                  for i in range(layers))
    return params, largest, offset


def timed(cmd):
    res = subprocess.run(["/usr/bin/time", "-f", "%e %M"] + cmd, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": ROOT})
    if res.returncode != 0:
        raise SystemExit(res.stderr[-2000:])
    wall, rss = res.stderr.strip().splitlines()[-1].split()
    return float(wall), int(rss) / 1024, res.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--layers", type=int, default=18)
    ap.add_argument("--keep", action="store_true", help="keep the checkpoint folder (its path is printed)")
    args = ap.parse_args()
    folder = tempfile.mkdtemp(prefix="symssm-hybrid-")
    try:
        params, largest, size = write(folder, args.layers)
        print(f"checkpoint: {args.layers} blocks, {params / 1e9:.2f} billion parameters, {size / 2 ** 30:.2f} GiB "
              f"(float16); largest mixer {largest / 1e6:.1f} M parameters = {8 * largest / 2 ** 20:.0f} MiB as float64")
        print()
        print("| what | wall s | peak RSS MiB |")
        print("|---|---|---|")
        wall, rss, _ = timed([sys.executable, "-c", BASELINE, os.path.join(folder, "model.safetensors")])
        print(f"| baseline: every tensor loaded (float16, as stored) | {wall:.2f} | {rss:.0f} |", flush=True)
        wall, rss, out = timed([sys.executable, "-m", "symssm", "model", folder, "--json"])
        report = json.loads(out)
        kinds = {}
        for layer in report["layers"]:
            kinds[layer["kind"]] = kinds.get(layer["kind"], 0) + 1
        print(f"| symssm model DIR --json ({', '.join(f'{v} {k}' for k, v in sorted(kinds.items()))}) | {wall:.2f} | "
              f"{rss:.0f} |", flush=True)
        if args.keep:
            print(f"\nkept: {folder}")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
