"""Trained S4D, S5 and LRU layers as exact data: their float parameters read as the dyadic rationals they are.

A binary float is an exact rational (a dyadic one), so a checkpoint's float32 parameters are exact
inputs; only the layer's lags, which involve ``exp``, are not rational. :class:`TrainedLayer` holds
the parameters of one layer in the shapes the certificate uses (``docs/models.md``):

``s4d``: ``log_dt`` (H), ``log_A_real``, ``A_imag`` (H, P), ``C`` (H, P, 2), ``D`` (H) or None; P = N/2.
``s5``: ``Lambda_re``, ``Lambda_im``, ``log_step`` (P), ``B`` (P, H, 2), ``C`` (H, P, 2), ``D`` (H) or None.
``lru``: ``nu_log``, ``theta_log``, ``gamma_log`` (P), ``B_re``, ``B_im`` (P, H), ``C_re``, ``C_im`` (H, P),
``D`` (H) or None.

A shared step (``log_dt`` of one entry, as some configurations store it) is repeated per channel.

An S4 layer with state-spaces/s4's ``SSMKernelDiag`` kernel (kind ``s4-diag``) is certified as the S4D layer with
the same kernel, when its conventions allow (zero-order hold, the ``exp`` transforms of ``inv_dt`` and ``A_real``,
``A_imag`` untransformed, one output copy, a step shared by the channel's modes): ``log_dt = inv_dt``,
``log_A_real = A_real``, ``A_imag = -kernel.A_imag`` and ``C = kernel.C kernel.B`` (exact products of the stored
floats), the rows of ``n_ssm < H`` copies repeated.

Examples
--------
>>> import numpy as np
>>> from symssm.sources.checkpoints import CheckpointLayer
>>> t = {"kernel.log_dt": np.log(np.float32([0.5])), "kernel.log_A_real": np.zeros((2, 1), np.float32),
...      "kernel.A_imag": np.zeros((2, 1), np.float32), "kernel.C": np.ones((2, 1, 2), np.float32)}
>>> layer = trained_layer(CheckpointLayer("layers.0", "s4d", t), "m.npz")
>>> layer.channels, layer.modes, layer.parameters["log_dt"]
(2, 1, ['-1453635/2097152', '-1453635/2097152'])
"""

import hashlib
import json
import os
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..errors import InputError, LimitError
from ..formats.rationals import format_rational

__all__ = ["TrainedLayer", "trained_layer", "ARCHITECTURES", "MAX_TRAINED_MODES"]

ARCHITECTURES = ("s4d", "s5", "lru")
#: Most modes (complex eigenvalues) a certified layer may have, as the checker's limit.
MAX_TRAINED_MODES = 16_384


@dataclass(frozen=True)
class TrainedLayer:
    """One trained layer: architecture, name, checkpoint file name, H channels, P modes, exact parameters.

    ``parameters`` maps each name to nested lists of canonical rational strings (None for an absent D).
    """

    architecture: str
    name: str
    checkpoint: str
    channels: int
    modes: int
    parameters: dict = field(repr=False)

    def as_json(self):
        """The certificate's ``"system"`` field."""
        return {"architecture": self.architecture, "name": self.name, "checkpoint": self.checkpoint,
                "channels": self.channels, "modes": self.modes, "parameters": self.parameters}

    @property
    def sha256(self):
        """The hash of the layer's canonical JSON without its name and file name (the checker's)."""
        data = {k: v for k, v in self.as_json().items() if k not in ("name", "checkpoint")}
        text = json.dumps(data, sort_keys=True, ensure_ascii=True, separators=(",", ":"), allow_nan=False) + "\n"
        return hashlib.sha256(text.encode("ascii")).hexdigest()

    def values(self, name):
        """A parameter as nested lists of Fractions (None for an absent D)."""
        def conv(x):
            return [conv(v) for v in x] if isinstance(x, list) else Fraction(x)
        value = self.parameters[name]
        return None if value is None else conv(value)


def _exact(array, name, shape):
    a = np.asarray(array)
    if a.dtype == object and a.size and all(isinstance(x, Fraction) for x in a.reshape(-1)):  # exact already
        if a.shape != shape:
            raise InputError(f"{name} has shape {a.shape}, expected {shape}")
        return np.vectorize(format_rational, otypes=[object])(a).tolist()
    if a.dtype.kind not in "fiu":
        raise InputError(f"{name}: a {a.dtype} tensor, not real numbers (complex values are stored as a real view)")
    a = a.astype(np.float64) if a.dtype.kind == "f" else a
    if a.shape != shape:
        raise InputError(f"{name} has shape {a.shape}, expected {shape}")
    if a.dtype.kind == "f" and not np.all(np.isfinite(a)):
        raise InputError(f"{name} holds NaN or infinite values: nothing can be certified")
    cache = {}

    def text(x):
        if x not in cache:
            cache[x] = format_rational(Fraction(x.item() if hasattr(x, "item") else x))
        return cache[x]
    return np.vectorize(text, otypes=[object])(a).tolist() if a.size else a.tolist()


def _s4_diag_as_s4d(layer, conventions):
    """The tensors of the S4D layer with the same kernel as an SSMKernelDiag layer (exact), or InputError why not."""
    conv = conventions.as_json() if conventions is not None else {"discretization": "zoh", "dt_transform": "exp",
                                                                  "real_transform": "exp", "imag_transform": "none"}
    want = {"discretization": "zoh", "dt_transform": "exp", "real_transform": "exp", "imag_transform": "none"}
    differ = [f"{k} {conv[k]}" for k in want if conv[k] != want[k]]
    if differ:
        raise InputError(f"{layer.name}: certified S4 kernels are those with zero-order hold and the exp transforms of "
                         f"inv_dt and A_real (this one: {', '.join(differ)}); the numerical count still applies")
    t, dims = layer.tensors, layer.dims
    if not dims:
        from .checkpoints import check_layer

        layer = check_layer(layer)
        t, dims = layer.tensors, layer.dims
    H, P, S, c = dims["H"], dims["P"], dims["S"], dims["channels"]
    if c != 1:
        raise InputError(f"{layer.name}: an S4 kernel with {c} output copies (channels) is not certified; one copy is")
    inv_dt = np.asarray(t["kernel.inv_dt"])
    if inv_dt.shape[1] != 1 and not np.all(inv_dt == inv_dt[:, :1]):
        raise InputError(f"{layer.name}: a step per mode (dt_tie false) is not certified; a step per channel is")
    rep = np.arange(H) % S
    B = np.asarray(t["kernel.B"])[rep]
    C = np.asarray(t["kernel.C"])[0]
    F = np.vectorize(lambda x: Fraction(float(x)), otypes=[object])
    if dims["complex"]:
        Br, Bi, Cr, Ci = F(B[..., 0]), F(B[..., 1]), F(C[..., 0]), F(C[..., 1])
        prod = np.stack([Cr * Br - Ci * Bi, Cr * Bi + Ci * Br], axis=-1)  # exact, as Fractions
        A_imag = -np.asarray(t["kernel.A_imag"])[rep]
    else:
        prod = np.stack([F(C) * F(B), np.full(C.shape, Fraction(0), dtype=object)], axis=-1)
        A_imag = np.zeros((H, P))
    out = {"kernel.log_dt": inv_dt[:, 0], "kernel.log_A_real": np.asarray(t["kernel.A_real"])[rep],
           "kernel.A_imag": A_imag, "kernel.C": prod}
    if "D" in t:
        out["D"] = np.asarray(t["D"])[0]
    return out


def trained_layer(layer, checkpoint, conventions=None):
    """The exact :class:`TrainedLayer` of a recognised checkpoint layer (S4D, S4 SSMKernelDiag, S5 or LRU).

    ``conventions``: the :class:`~symssm.sources.checkpoints.Conventions` the checkpoint does not record (S5:
    only zero-order hold is certified; SSMKernelDiag: see the module docstring).

    Parameters
    ----------
    layer : CheckpointLayer
        A recognised layer (:func:`~symssm.sources.checkpoints.read_layers`).
    checkpoint : str
        The checkpoint's file name (recorded in the certificate).
    conventions : Conventions, optional
        What the checkpoint does not record (S5: only zero-order hold is certified; SSMKernelDiag: see the
        module docstring).

    Returns
    -------
    TrainedLayer

    Raises
    ------
    InputError
        If the layer is a Mamba layer (input-dependent: not a fixed operator), its conventions are not certified,
        or its tensors have the wrong shapes or non-finite values.
    LimitError
        If it has more than :data:`MAX_TRAINED_MODES` modes.
    """
    t = layer.tensors
    kind = layer.kind
    if kind == "s4-diag":
        t, kind = _s4_diag_as_s4d(layer, conventions), "s4d"
    elif kind == "s5" and conventions is not None and conventions.discretization != "zoh":
        raise InputError(f"{layer.name}: certified S5 layers use zero-order hold (this one: {conventions.discretization}"
                         "); the numerical count still applies")
    if kind not in ARCHITECTURES:
        raise InputError(f"{layer.name}: a {kind} layer has no fixed lag operator (its lags depend on the input); "
                         "only S4D, S5 and LRU layers are certified")
    if kind == "s4d":
        H, P = np.shape(t["kernel.A_imag"])[:2] if np.ndim(t["kernel.A_imag"]) == 2 else (0, 0)
        if H == 0:
            raise InputError(f"{layer.name}: kernel.A_imag must be (H, N/2), got {np.shape(t['kernel.A_imag'])}")
        log_dt = np.asarray(t["kernel.log_dt"]).reshape(-1)
        if log_dt.size == 1:
            log_dt = np.repeat(log_dt, H)
        params = {"log_dt": _exact(log_dt, "kernel.log_dt", (H,)),
                  "log_A_real": _exact(t["kernel.log_A_real"], "kernel.log_A_real", (H, P)),
                  "A_imag": _exact(t["kernel.A_imag"], "kernel.A_imag", (H, P)),
                  "C": _exact(t["kernel.C"], "kernel.C", (H, P, 2))}
        modes = H * P
    elif kind == "s5":
        P = int(np.size(t["Lambda_re"]))
        B = np.asarray(t["B"])
        H = B.shape[1] if B.ndim == 3 else 0
        params = {"Lambda_re": _exact(np.reshape(t["Lambda_re"], -1), "Lambda_re", (P,)),
                  "Lambda_im": _exact(np.reshape(t["Lambda_im"], -1), "Lambda_im", (P,)),
                  "log_step": _exact(np.reshape(t["log_step"], -1), "log_step", (P,)),
                  "B": _exact(B, "B", (P, H, 2)), "C": _exact(t["C"], "C", (H, P, 2))}
        modes = P
    else:
        P = int(np.size(t["nu_log"]))
        B_re = np.asarray(t["B_re"])
        H = B_re.shape[1] if B_re.ndim == 2 else 0
        params = {"nu_log": _exact(np.reshape(t["nu_log"], -1), "nu_log", (P,)),
                  "theta_log": _exact(np.reshape(t["theta_log"], -1), "theta_log", (P,)),
                  "gamma_log": _exact(np.reshape(t["gamma_log"], -1), "gamma_log", (P,)),
                  "B_re": _exact(B_re, "B_re", (P, H)), "B_im": _exact(t["B_im"], "B_im", (P, H)),
                  "C_re": _exact(t["C_re"], "C_re", (H, P)), "C_im": _exact(t["C_im"], "C_im", (H, P))}
        modes = P
    if H < 1:
        raise InputError(f"{layer.name}: the tensors do not give a channel count")
    if modes > MAX_TRAINED_MODES:
        raise LimitError(f"{layer.name} has {modes} modes; certified layers have at most {MAX_TRAINED_MODES}")
    params["D"] = _exact(np.reshape(t["D"], -1), "D", (H,)) if "D" in t else None
    return TrainedLayer(kind, layer.name[:200], os.path.basename(str(checkpoint))[-200:], int(H),
                        int(modes if kind != "s4d" else P), params)
