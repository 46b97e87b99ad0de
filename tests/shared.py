"""Expensive results many tests read, computed once per test process (certificates are never mutated by tests)."""

from functools import lru_cache


@lru_cache(maxsize=None)
def framework_certificates(seed=0, n=6, m=2):
    """``(label, layer, certificate)`` of every framework layer on the seeded input (each verified)."""
    from symssm import certify
    from symssm.catalog import _framework_layers

    return tuple((label, layer, certify(layer)) for label, _, layer, _ in _framework_layers(seed, n, m))


@lru_cache(maxsize=None)
def framework_rows(seed=0, n=6, m=2):
    """``build_framework(None, ...)``'s rows, with the certificates for every input."""
    from symssm.catalog import build_framework

    return tuple(build_framework(None, seed=seed, n=n, m=m))


def _bilinear(re_, im, step="1/10"):
    """``(1 + step a / 2) / (1 - step a / 2)`` for ``a = re_ + im i``, as a Gaussian rational's text."""
    from fractions import Fraction

    s = Fraction(step) / 2
    num, den = (1 + s * re_, s * im), (1 - s * re_, -s * im)
    norm = den[0] ** 2 + den[1] ** 2
    a, b = (num[0] * den[0] + num[1] * den[1]) / norm, (num[1] * den[0] - num[0] * den[1]) / norm
    return f"{a}{'+' if b >= 0 else ''}{b}i"


def s4d_layer(channels=6, modes=2):
    """A small S4D layer (S4D-Lin initialisation), float32 tensors as a checkpoint stores them."""
    import numpy as np

    from symssm.sources.checkpoints import CheckpointLayer
    from symssm.sources.trained import trained_layer

    rng = np.random.default_rng(3)
    t = {"kernel.log_dt": np.full(channels, np.log(0.01)).astype(np.float32),
         "kernel.log_A_real": np.log(np.full((channels, modes), 0.5)).astype(np.float32),
         "kernel.A_imag": np.tile(np.pi * np.arange(modes), (channels, 1)).astype(np.float32),
         "kernel.C": (rng.standard_normal((channels, modes, 2)) * 0.5 ** 0.5).astype(np.float32),
         "D": rng.standard_normal(channels).astype(np.float32)}
    return trained_layer(CheckpointLayer("layer0", "s4d", t), "model.safetensors")


@lru_cache(maxsize=None)
def fresh_certificates():
    """``(name, certificate)`` of every kind, fresh: real and complex head counts (an S4D-Lin system over Q(i), a
    diagonal layer with decimal entries), a gradient highway, every framework layer's interaction rank, every
    built-in family, eps-head counts of a system and of a trained S4D layer, and layers for every input (a Mamba-2
    head for every gate, linear attention for every pair of tokens)."""
    from fractions import Fraction

    from symssm import certify, gradient_certificate, ssm
    from symssm.api import verified
    from symssm.catalog import _framework_layers
    from symssm.certificate.parametric_interaction import parametric_interaction_data
    from symssm.sources.families import family_system
    from symssm.sources.parametric import PARAMETRIC_FAMILIES, parametric_family
    from symssm.sources.parametric_layers import parametric_layer_from_data
    from symssm.sources.complex_system import complex_ssm

    out = [("diagonal-N6-p2-m2", certify(family_system("diagonal", N=6, p=2, m=2), 64)),
           ("rotation-N4-p2-m1", certify(family_system("rotation", N=4, p=2, m=1), 64)),
           ("hippo-legs-N4-p2-m1.gradient", gradient_certificate(family_system("hippo-legs", N=4, p=2, m=1), 1024)),
           ("diagonal-N6-p2-m2.approximate", certify(family_system("diagonal", N=6, p=2, m=2), 128,
                                                      tolerance="1e-3")),
           ("s4d-layer.trained", certify(s4d_layer(), 64, tolerance="1/100"))]
    # S4D-Lin, bilinear at step 1/10 with pi ~ 355/113: a diagonal A over Q(i) with long entries
    lin = [_bilinear(Fraction(-1, 2), Fraction(355, 113) * k) for k in range(3)]
    spec = {"name": "s4d-lin-N3", "A": [[lin[i] if i == j else "0" for j in range(3)] for i in range(3)],
            "B": [["1"], ["1"], ["1"]], "C": [["1", "1/2+1/3i", "1"], ["1", "1", "1/2-1/3i"]]}
    out.append(("s4d-lin-N3", certify(complex_ssm(spec["A"], spec["B"], spec["C"], name=spec["name"]), 8)))
    small = {"name": "qi", "A": [["1/2+1/3i", "0", "1"], ["1", "-1/5i", "0"], ["0", "1", "2/7-3/11i"]],
             "B": [["1"], ["1/2-2/3i"], ["1"]], "C": [["1", "1/7+1i", "0"]]}
    out.append(("qi-N3", certify(complex_ssm(small["A"], small["B"], small["C"], name=small["name"]), 6)))
    # a trained layer's decimals, read exactly: a diagonal A whose entries are exact decimals
    decimals = ["2203/2500", "-39/50", "1/2", "3/5", "-7/20", "9/10"]
    trained = ssm([[decimals[i] if i == j else "0" for j in range(6)] for i in range(6)],
                  [[str((i + j) % 3 - 1) for j in range(2)] for i in range(6)],
                  [[str((2 * i + j) % 3 - 1) for j in range(6)] for i in range(2)], name="trained-diagonal-N6")
    out.append(("trained-diagonal-N6", certify(trained, 32)))
    out.append(("trained-diagonal-N6.approximate", certify(trained, 32, tolerance="1/100")))
    out += [(name, certify(parametric_family(name), 8)) for name in sorted(PARAMETRIC_FAMILIES)]
    layers = _framework_layers(0, 6, 2)
    out += [(layer.name, certify(layer)) for _, _, layer, _ in layers]
    every = {layer.name: spec for _, _, layer, spec in layers if spec is not None}
    gate = every["mamba2-head"][1]
    out.append((gate["name"], verified(parametric_interaction_data(parametric_layer_from_data(gate)))))
    attention = dict(every["linear-attention-H2"][1])  # two tokens of dimension 2 (a few cases)
    attention.update(name="linear-attention-H2-two-tokens", X=attention["X"][:2],
                     parameters=[x for row in attention["X"][:2] for x in row])
    out.append((attention["name"], verified(parametric_interaction_data(parametric_layer_from_data(attention)))))
    return tuple(out)
