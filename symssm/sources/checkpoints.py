"""Trained checkpoints: tensors from ``.npz``, ``.safetensors`` and PyTorch ``.pt`` files, and the SSM layers in them.

Tensors are read without executing anything: ``.npz`` with ``allow_pickle=False``; ``.safetensors``
by this module's own strict reader (an 8-byte length, a JSON header, raw little-endian data); ``.pt``
state dicts with ``torch.load(weights_only=True)`` when PyTorch is installed.

Layers are recognised by the parameter names of the reference implementations (a layer is every
group of keys sharing a prefix):

``s4d`` (state-spaces/s4, ``models/s4/s4d.py``)
    ``kernel.log_dt`` (H), ``kernel.log_A_real`` and ``kernel.A_imag`` (H, N/2), ``kernel.C`` (H, N/2, 2:
    a real view of complex), ``D`` (H).  Per channel, ``A = -exp(log_A_real) + i A_imag``, zero-order
    hold with ``dt = exp(log_dt)``: ``K_h[d] = 2 Re(sum_n C_n (exp(dt A_n) - 1) / A_n exp(dt A_n)^d)``.
``s5`` (lindermanlab/S5)
    ``Lambda_re``, ``Lambda_im`` (P), ``B`` (P, H, 2), ``C`` (H, P, 2), ``D`` (H), ``log_step`` (P or P x 1):
    ``Lambda_bar = exp(Lambda step)``, ``B_bar = (Lambda_bar - 1) / Lambda B``, ``y = 2 Re(C x) + D u``
    (conjugate symmetry implied).
``lru`` (Orvieto et al., Linear Recurrent Unit)
    ``nu_log``, ``theta_log``, ``gamma_log`` (N), ``B_re``, ``B_im`` (N, H), ``C_re``, ``C_im`` (H, N), ``D`` (H):
    ``lambda = exp(-exp(nu_log) + i exp(theta_log))``, ``x_k = lambda x_(k-1) + gamma B u_k``,
    ``y = Re(C x) + D u``.
``mamba`` (state-spaces/mamba, the selective scan of a Mamba block)
    ``A_log`` (d_inner, d_state), ``x_proj.weight`` (dt_rank + 2 d_state, d_inner), ``dt_proj.weight``
    (d_inner, dt_rank), ``dt_proj.bias`` (d_inner), ``D`` (d_inner): for an input ``u`` of the scan,
    ``(dt, B, C) = split(x_proj u)``, ``Delta = softplus(dt_proj dt)``, ``A = -exp(A_log)``,
    ``h_t = exp(Delta_t A) h_(t-1) + Delta_t B_t u_t``, ``y_t = C_t h_t + D u_t`` per channel.

Examples
--------
>>> import numpy as np, os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "m.npz")
>>> np.savez(path, **{"layers.0.kernel.log_dt": np.zeros(2), "layers.0.kernel.log_A_real": np.zeros((2, 1)),
...                   "layers.0.kernel.A_imag": np.zeros((2, 1)), "layers.0.kernel.C": np.ones((2, 1, 2)),
...                   "layers.0.D": np.ones(2)})
>>> [(layer.name, layer.kind) for layer in find_layers(read_tensors(path))]
[('layers.0', 's4d')]
"""

import json
import struct
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, ParseError

__all__ = ["read_tensors", "read_layers", "tensor_names", "find_layers", "CheckpointLayer", "SAFETENSORS_DTYPES"]

#: Element types of safetensors this reader accepts.
SAFETENSORS_DTYPES = {"F64": np.float64, "F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32,
                      "BF16": None}
_MAX_HEADER = 100 * 1024 * 1024


@dataclass(frozen=True)
class CheckpointLayer:
    """One recognised SSM layer: its name (the key prefix), kind and tensors."""

    name: str
    kind: str
    tensors: dict


def _safetensors_header(path, fh):
    """``(header, body offset, body size)`` of an open safetensors file; only the header is read."""
    import os

    total = os.fstat(fh.fileno()).st_size
    first = fh.read(8)
    if len(first) < 8:
        raise ParseError(f"{path} is not a safetensors file (too short)")
    (size,) = struct.unpack("<Q", first)
    if size > _MAX_HEADER or 8 + size > total:
        raise ParseError(f"{path} is not a safetensors file (header of {size} bytes)")
    try:
        header = json.loads(fh.read(size).decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise ParseError(f"{path}: the safetensors header is not JSON") from None
    if not isinstance(header, dict):
        raise ParseError(f"{path}: the safetensors header is not an object")
    return header, 8 + size, total - 8 - size


def _safetensors(path, wanted=None):
    """The tensors of a safetensors file; with ``wanted`` (a set of names), only those are read from disk."""
    with open(path, "rb") as fh:
        header, base, body_size = _safetensors_header(path, fh)
        return _safetensors_body(path, fh, header, base, body_size, wanted)


def _safetensors_keys(path):
    with open(path, "rb") as fh:
        header, _, _ = _safetensors_header(path, fh)
    return [k for k in header if k != "__metadata__"]


def _safetensors_body(path, fh, header, base, body_size, wanted):
    out = {}
    for name, info in header.items():
        if name == "__metadata__" or (wanted is not None and name not in wanted):
            continue
        if not isinstance(info, dict) or set(info) != {"dtype", "shape", "data_offsets"}:
            raise ParseError(f"{path}: tensor {name[:60]!r} has a malformed header entry")
        dtype, shape, (start, end) = info["dtype"], info["shape"], info["data_offsets"]
        if dtype not in SAFETENSORS_DTYPES:
            raise ParseError(f"{path}: tensor {name[:60]!r} has unsupported dtype {str(dtype)[:20]}")
        if not (isinstance(shape, list) and all(isinstance(s, int) and s >= 0 for s in shape)):
            raise ParseError(f"{path}: tensor {name[:60]!r} has a malformed shape")
        if not (isinstance(start, int) and isinstance(end, int) and 0 <= start <= end <= body_size):
            raise ParseError(f"{path}: tensor {name[:60]!r} points outside the file")
        count = int(np.prod(shape)) if shape else 1
        fh.seek(base + start)
        data = fh.read(end - start)
        if dtype == "BF16":
            bits = np.frombuffer(data, dtype="<u2")
            if bits.size != count:
                raise ParseError(f"{path}: tensor {name[:60]!r} has {bits.size} elements, its shape says {count}")
            arr = (bits.astype(np.uint32) << 16).view(np.float32)
        else:
            arr = np.frombuffer(data, dtype=np.dtype(SAFETENSORS_DTYPES[dtype]).newbyteorder("<"))
            if arr.size != count:
                raise ParseError(f"{path}: tensor {name[:60]!r} has {arr.size} elements, its shape says {count}")
        out[name] = arr.reshape(shape).astype(np.float64 if arr.dtype.kind == "f" else arr.dtype)
    return out


def _torch(path, wanted=None):
    try:
        import torch
    except ImportError:
        raise InputError(f"reading {path} needs PyTorch (pip install torch); .npz and .safetensors need nothing "
                         "more") from None
    try:
        try:  # memory-mapped: only the tensors converted below are read
            state = torch.load(path, map_location="cpu", weights_only=True, mmap=True)
        except (RuntimeError, TypeError, ValueError):  # an older file format or torch without mmap
            state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many kinds; weights_only refuses anything but tensors
        raise ParseError(f"{path} is not a PyTorch state dict of tensors ({type(exc).__name__})") from None
    if isinstance(state, dict) and "state_dict" in state and isinstance(state["state_dict"], dict):
        state = state["state_dict"]
    if not isinstance(state, dict):
        raise ParseError(f"{path} does not hold a state dict")
    out = {}
    for name, value in state.items():
        if wanted is not None and str(name) not in wanted:
            continue
        if hasattr(value, "detach"):
            value = value.detach().cpu()
            if value.is_complex():
                value = torch.view_as_real(value)
            out[str(name)] = value.double().numpy() if value.is_floating_point() else value.numpy()
    return out


def read_tensors(path, wanted=None):
    """``{name: numpy array}`` from a checkpoint file, by its suffix; with ``wanted``, only those names.

    Raises
    ------
    InputError
        For an unknown suffix, an unreadable file, or a ``.pt`` file without PyTorch installed.
    """
    text = str(path).lower()
    try:
        if text.endswith(".npz"):
            with np.load(path, allow_pickle=False) as archive:  # each member is read only when asked for
                return {key: archive[key] for key in archive.files if wanted is None or key in wanted}
        if text.endswith(".safetensors"):
            return _safetensors(path, wanted)
        if text.endswith((".pt", ".pth", ".bin")):
            return _torch(path, wanted)
    except FileNotFoundError:
        raise ParseError(f"{path}: no such file") from None
    except (OSError, ValueError, EOFError) as exc:
        if isinstance(exc, InputError):
            raise
        raise ParseError(f"{path} cannot be read as a checkpoint ({str(exc)[:80]})") from None
    raise InputError(f"{path}: a checkpoint is a .npz, .safetensors or .pt file")


_PATTERNS = {
    "s4d": ("kernel.log_dt", ("kernel.log_A_real", "kernel.A_imag", "kernel.C"), ("D",)),
    "s5": ("Lambda_re", ("Lambda_im", "B", "C", "log_step"), ("D",)),
    "lru": ("nu_log", ("theta_log", "gamma_log", "B_re", "B_im", "C_re", "C_im"), ("D",)),
    "mamba": ("A_log", ("x_proj.weight", "dt_proj.weight", "dt_proj.bias"), ("D",)),
}


def _layer_keys(names):
    """``[(prefix, kind, {short name: full key})]`` of the recognised layers among tensor names, in key order."""
    names = set(names)
    found = []
    for key in sorted(names):
        for kind, (anchor, required, optional) in _PATTERNS.items():
            if key == anchor or key.endswith("." + anchor):
                prefix = key[:-len(anchor)]
                if all(prefix + n in names for n in (anchor,) + required):
                    found.append((prefix, kind, {n: prefix + n for n in (anchor,) + required + optional
                                                 if prefix + n in names}))
    return found


def find_layers(tensors):
    """The SSM layers in a checkpoint's tensors, in key order (S4D, S5, LRU; see the module docstring)."""
    return [CheckpointLayer(prefix.rstrip(".") or kind, kind, {n: np.asarray(tensors[k]) for n, k in keys.items()})
            for prefix, kind, keys in _layer_keys(tensors)]


def tensor_names(path):
    """The tensor names of a checkpoint, read without loading any tensor (.npz, .safetensors; .pt loads lazily)."""
    text = str(path).lower()
    try:
        if text.endswith(".npz"):
            with np.load(path, allow_pickle=False) as archive:
                return list(archive.files)
        if text.endswith(".safetensors"):
            return _safetensors_keys(path)
    except FileNotFoundError:
        raise ParseError(f"{path}: no such file") from None
    except (OSError, ValueError, EOFError) as exc:
        if isinstance(exc, InputError):
            raise
        raise ParseError(f"{path} cannot be read as a checkpoint ({str(exc)[:80]})") from None
    return None  # .pt: torch.load(mmap=True) maps the file; only the layers' tensors are converted


def read_layers(path):
    """The recognised SSM layers of a checkpoint, reading only their tensors (peak memory: those tensors).

    Examples
    --------
    >>> import numpy as np, os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "m.npz")
    >>> np.savez(path, **{"embed": np.zeros((4, 4)), "l.kernel.log_dt": np.zeros(2),
    ...                   "l.kernel.log_A_real": np.zeros((2, 1)), "l.kernel.A_imag": np.zeros((2, 1)),
    ...                   "l.kernel.C": np.ones((2, 1, 2))})
    >>> [(layer.name, sorted(layer.tensors)) for layer in read_layers(path)]
    [('l', ['kernel.A_imag', 'kernel.C', 'kernel.log_A_real', 'kernel.log_dt'])]
    """
    names = tensor_names(path)
    if names is None:  # .pt: mapped lazily, only what a layer needs is converted (other suffixes are refused)
        return find_layers(read_tensors(path, wanted=_TorchWanted()))
    wanted = {k for _, _, keys in _layer_keys(names) for k in keys.values()}
    return find_layers(read_tensors(path, wanted=wanted))


class _TorchWanted:
    """For a .pt file: the names are known only once mapped; keep the keys of recognised layers."""

    def __contains__(self, name):
        return any(name == a or name.endswith("." + a) or any(name.endswith("." + r) or name == r for r in req + opt)
                   for a, req, opt in _PATTERNS.values())
