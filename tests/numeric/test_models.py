"""Checkpoints: tensors from .npz, .safetensors and .pt; S4D, S5 and LRU layers; their numerical head counts."""

import json

import numpy as np
import pytest

from checkpoint_tools import write_safetensors
from symssm.cli import main
from symssm.errors import InputError
from symssm.numeric.models import analyse_checkpoint, s4d_kernel
from symssm.sources.checkpoints import find_layers, read_tensors


def _s4d_layer(rng, H, N2, shared):
    log_dt = np.full(H, np.log(0.05)) if shared else np.log(rng.uniform(0.01, 0.1, H))
    log_A_real = np.tile(np.log(0.5 + rng.uniform(0, 1, N2)), (H, 1)) if shared else np.log(rng.uniform(0.3, 2, (H, N2)))
    A_imag = np.tile(np.pi * np.arange(N2), (H, 1)).astype(np.float64)
    C = rng.standard_normal((H, N2, 2))
    return {"kernel.log_dt": log_dt, "kernel.log_A_real": log_A_real, "kernel.A_imag": A_imag, "kernel.C": C,
            "D": rng.standard_normal(H)}


def _reference_kernel(t, L):
    """The S4D reference formula, written out independently (complex arithmetic, one channel at a time)."""
    H = t["kernel.log_dt"].shape[0]
    K = np.zeros((H, L))
    for h in range(H):
        dt = np.exp(t["kernel.log_dt"][h])
        for a_re, a_im, c in zip(t["kernel.log_A_real"][h], t["kernel.A_imag"][h], t["kernel.C"][h]):
            A = -np.exp(a_re) + 1j * a_im
            Cp = (c[0] + 1j * c[1]) * (np.exp(dt * A) - 1) / A
            K[h] += 2 * (Cp * np.exp(dt * A) ** np.arange(L)).real
    return K


def test_s4d_kernel_matches_the_reference_formula():
    t = _s4d_layer(np.random.default_rng(0), 3, 4, shared=False)
    assert np.allclose(s4d_kernel(t, 50), _reference_kernel(t, 50), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("fmt", ["npz", "safetensors", "pt"])
def test_shared_A_and_dt_s4d_checkpoint_has_the_rank_of_its_kernel_matrix(tmp_path, fmt):
    rng = np.random.default_rng(1)
    layer = _s4d_layer(rng, H=6, N2=2, shared=True)  # channels share A, dt: kernels span <= 2N/2 * 2 = 4 dims
    tensors = {f"layers.0.{k}": v for k, v in layer.items()}
    tensors["encoder.weight"] = rng.standard_normal((6, 3))
    path = tmp_path / f"model.{fmt}"
    if fmt == "npz":
        np.savez(path, **tensors)
    elif fmt == "safetensors":
        write_safetensors(path, tensors)
    else:
        torch = pytest.importorskip("torch")
        torch.save({k: torch.tensor(v) for k, v in tensors.items()}, path)
    n = 256
    K = _reference_kernel(layer, n)
    M = K.copy()
    M[:, 0] += layer["D"]
    Mn = M / np.linalg.norm(M, axis=0)[None, :]
    s = np.linalg.svd(Mn, compute_uv=False)
    expected = int((s > 1e-10 * s[0]).sum())
    report = analyse_checkpoint(path, n)
    assert [entry["name"] for entry in report["layers"]] == ["layers.0"]
    assert report["layers"][0]["numerical_head_count"] == expected
    assert expected <= 5  # the shared dynamics make the head count small
    assert report["layers"][0]["approximation_error"][-1] < 1e-6


def test_s5_and_lru_layers(tmp_path):
    rng = np.random.default_rng(2)
    P, H = 3, 4
    s5 = {"Lambda_re": -rng.uniform(0.1, 1, P), "Lambda_im": rng.uniform(0, 3, P), "B": rng.standard_normal((P, H, 2)),
          "C": rng.standard_normal((H, P, 2)), "D": rng.standard_normal(H), "log_step": np.log(np.full((P, 1), 0.1))}
    N = 3
    lru = {"nu_log": np.log(rng.uniform(0.05, 0.5, N)), "theta_log": np.log(rng.uniform(0.1, 3, N)),
           "gamma_log": np.zeros(N), "B_re": rng.standard_normal((N, H)), "B_im": rng.standard_normal((N, H)),
           "C_re": rng.standard_normal((H, N)), "C_im": rng.standard_normal((H, N)), "D": rng.standard_normal(H)}
    np.savez(tmp_path / "m.npz", **{f"enc.s5.{k}": v for k, v in s5.items()}, **{f"enc.lru.{k}": v for k, v in lru.items()})
    layers = {layer.name: layer.kind for layer in find_layers(read_tensors(tmp_path / "m.npz"))}
    assert layers == {"enc.s5": "s5", "enc.lru": "lru"}
    report = {entry["name"]: entry for entry in analyse_checkpoint(tmp_path / "m.npz", 200)["layers"]}
    # Independent lags: L_0 = Re(C B) + diag D, L_d = Re(C lambda^d B); their numerical rank.
    lam = np.exp(-np.exp(lru["nu_log"]) + 1j * np.exp(lru["theta_log"]))
    B = lru["B_re"] + 1j * lru["B_im"]
    C = lru["C_re"] + 1j * lru["C_im"]
    rows = [((C * lam ** d) @ B).real.reshape(-1) + (np.diag(lru["D"]).reshape(-1) if d == 0 else 0)
            for d in range(2 * N + 1)]
    rows = np.array([r / np.linalg.norm(r) for r in rows])
    s = np.linalg.svd(rows, compute_uv=False)
    assert report["enc.lru"]["numerical_head_count"] == int((s > 1e-10 * s[0]).sum())
    assert report["enc.s5"]["numerical_head_count"] == min(2 * P + 1, H * H)


def test_model_command(tmp_path, capsys):
    layer = _s4d_layer(np.random.default_rng(3), 4, 2, shared=False)
    np.savez(tmp_path / "m.npz", **{f"l.{k}": v for k, v in layer.items()})
    assert main(["model", str(tmp_path / "m.npz"), "-n", "128", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["layers"][0]["kind"] == "s4d" and data["numerical"] is True
    np.savez(tmp_path / "empty.npz", w=np.ones(3))
    assert main(["model", str(tmp_path / "empty.npz")]) == 2
    assert "no S4D, S5 or LRU layer" in capsys.readouterr().err
    (tmp_path / "bad.safetensors").write_bytes(b"\xff" * 20)
    assert main(["model", str(tmp_path / "bad.safetensors")]) == 2
    with pytest.raises(InputError, match="checkpoint is a"):
        read_tensors(tmp_path / "x.ckpt")


def test_model_plot(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    layer = _s4d_layer(np.random.default_rng(4), 3, 2, shared=True)
    np.savez(tmp_path / "m.npz", **{f"l.{k}": v for k, v in layer.items()})
    assert main(["model", str(tmp_path / "m.npz"), "-n", "64", "--plot", str(tmp_path / "curves.png")]) == 0
    assert (tmp_path / "curves.png").read_bytes().startswith(b"\x89PNG")


def test_jupyter_displays():
    import symssm

    s = symssm.ssm([[0, "-1/2"], [1, 0]], [[1], [0]], [[1, 0]])
    assert "\\tfrac{1}{2}" in s._repr_latex_()
    assert "<table>" in symssm.profile(s)._repr_html_()
    assert "not a certificate" in symssm.numeric_head_count(s, 10)._repr_html_()
    assert "head(s)" in symssm.certify(s, 4)._repr_markdown_()


def test_mamba_layer_interaction_rank(tmp_path):
    rng = np.random.default_rng(5)
    d_inner, d_state, dt_rank = 6, 3, 2
    tensors = {"layers.0.mixer.A_log": np.log(np.tile(np.arange(1, d_state + 1), (d_inner, 1)).astype(float)),
               "layers.0.mixer.x_proj.weight": rng.standard_normal((dt_rank + 2 * d_state, d_inner)),
               "layers.0.mixer.dt_proj.weight": rng.standard_normal((d_inner, dt_rank)) * 0.1,
               "layers.0.mixer.dt_proj.bias": np.full(d_inner, -3.0),
               "layers.0.mixer.D": np.ones(d_inner)}
    np.savez(tmp_path / "mamba.npz", **tensors)
    (layer,) = analyse_checkpoint(tmp_path / "mamba.npz", 16)["layers"]
    assert layer["kind"] == "mamba" and layer["name"] == "layers.0.mixer"
    assert 1 <= layer["numerical_head_count"] <= d_inner  # diagonal blocks: at most d_inner directions


@pytest.mark.parametrize("fmt", ["safetensors", "npz"])
def test_only_the_layers_tensors_are_read(tmp_path, fmt):
    """A 64 MB embedding beside a small S4D layer: reading it all peaked at 2 GB for a Mamba-130M-sized file."""
    import tracemalloc

    from symssm.sources.checkpoints import read_layers

    rng = np.random.default_rng(0)
    tensors = {"embedding.weight": rng.standard_normal((4096, 4096)).astype(np.float32),  # 64 MB
               "layers.0.kernel.log_dt": np.full(3, np.log(0.05)),
               "layers.0.kernel.log_A_real": np.zeros((3, 2)), "layers.0.kernel.A_imag": np.ones((3, 2)),
               "layers.0.kernel.C": rng.standard_normal((3, 2, 2)), "layers.0.D": np.ones(3)}
    path = tmp_path / f"m.{fmt}"
    if fmt == "safetensors":
        write_safetensors(path, tensors)
    else:
        np.savez(path, **tensors)
    tracemalloc.start()
    layers = read_layers(str(path))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert [(layer.name, layer.kind) for layer in layers] == [("layers.0", "s4d")]
    assert peak < 8 * 1024 * 1024, peak  # the embedding (64 MB) was never read
