"""Trained checkpoints: tensors from ``.npz``, ``.safetensors`` and PyTorch ``.pt`` files, and the SSM layers in them.

Tensors are read without executing anything: ``.npz`` with ``allow_pickle=False``; ``.safetensors``
by this module's own strict reader (an 8-byte length, a JSON header, raw little-endian data); ``.pt``
state dicts with ``torch.load(weights_only=True)`` when PyTorch is installed.

Layers are recognised by the parameter names of the reference implementations: a layer is every group
of keys sharing a prefix, with ``.`` (PyTorch state dicts) or ``/`` (flattened flax parameter trees) as
separators, so ``layers.0.kernel.C`` and ``params/layers_0/seq/Lambda_re`` are both read.  A group that has
the names of a kind but lacks one is reported by :func:`scan_checkpoint` with what is missing; a
recognised layer's tensors are checked at once (:func:`check_layer`: shapes, NaN, infinities).

``s4d`` (state-spaces/s4, ``models/s4/s4d.py``, the minimal S4D)
    ``kernel.log_dt`` (H), ``kernel.log_A_real`` and ``kernel.A_imag`` (H, N/2), ``kernel.C`` (H, N/2, 2:
    a real view of complex), ``D`` (H).
``s4-diag`` (state-spaces/s4, ``src/models/sequence/kernels/ssm.py``: ``SSMKernelDiag`` inside ``FFTConv``)
    ``kernel.inv_dt`` (H, 1), or (H, N/2) with untied steps; ``kernel.A_real``, ``kernel.A_imag`` (S, N/2),
    S = n_ssm dividing H; ``kernel.B`` (1, S, N/2, 2); ``kernel.C`` (channels, H, N/2, 2); the layer's ``D``
    (channels, H).  The real variant (``is_real``) has no ``kernel.A_imag`` and real ``kernel.B``, ``kernel.C``.
    ``kernel.P`` marks the DPLR kernel of S4, which is not diagonal and is reported, not read.
``s5`` (lindermanlab/S5)
    ``Lambda_re``, ``Lambda_im`` (P), ``B`` (P, H, 2), ``C`` (H, P, 2), ``D`` (H), ``log_step`` (P, 1).
``lru`` (Orvieto et al., Linear Recurrent Unit; NicolasZucchet/minimal-LRU)
    ``nu_log``, ``theta_log``, ``gamma_log`` (N), ``B_re``, ``B_im`` (N, H), ``C_re``, ``C_im`` (H, N), ``D`` (H).
``mamba`` (state-spaces/mamba, ``Mamba``: the selective scan of a Mamba-1 block)
    ``A_log`` (d_inner, d_state), ``x_proj.weight`` (dt_rank + 2 d_state, d_inner), ``dt_proj.weight``
    (d_inner, dt_rank), ``dt_proj.bias`` (d_inner), ``D`` (d_inner).
``mamba2`` (state-spaces/mamba, ``Mamba2``)
    ``A_log``, ``dt_bias`` (nheads), ``D`` (nheads, or d_ssm with ``D_has_hdim``); ``in_proj.weight`` and
    ``conv1d.weight`` when present give d_state.

What each layer computes is in :mod:`symssm.numeric.models` and docs/models.md.

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
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError, ParseError

__all__ = ["read_tensors", "read_layers", "scan_checkpoint", "tensor_names", "find_layers", "check_layer", "Checkpoint",
           "CheckpointLayer", "Conventions", "KINDS", "DISCRETIZATIONS", "TRANSFORMS", "SAFETENSORS_DTYPES"]

#: Element types of safetensors this reader accepts.
SAFETENSORS_DTYPES = {"F64": np.float64, "F32": np.float32, "F16": np.float16, "I64": np.int64, "I32": np.int32,
                      "BF16": None}
_MAX_HEADER = 100 * 1024 * 1024


#: How a layer's stored parameters become its operator when the checkpoint does not say (the reference code's
#: options): the discretisation of S5 and SSMKernelDiag, and SSMKernelDiag's parameter transforms.
DISCRETIZATIONS = ("zoh", "bilinear")
TRANSFORMS = ("exp", "softplus", "relu", "sigmoid", "none")


@dataclass(frozen=True)
class Conventions:
    """The options a checkpoint does not record, with the reference code's defaults.

    ``discretization`` (S5's ``discretization``, SSMKernelDiag's ``disc``): ``zoh`` or ``bilinear``;
    ``dt_transform``, ``real_transform``, ``imag_transform``: SSMKernelDiag's transforms of ``inv_dt``,
    ``A_real`` and ``A_imag`` (its defaults ``exp``, ``exp``, ``none``; the repository's ``s4.yaml`` sets
    ``dt_transform: softplus``).

    Raises
    ------
    InputError
        For a value outside those lists.
    """

    discretization: str = "zoh"
    dt_transform: str = "exp"
    real_transform: str = "exp"
    imag_transform: str = "none"

    def __post_init__(self):
        if self.discretization not in DISCRETIZATIONS:
            raise InputError(f"discretization must be one of {', '.join(DISCRETIZATIONS)}; got {self.discretization!r}")
        for what in ("dt_transform", "real_transform", "imag_transform"):
            if getattr(self, what) not in TRANSFORMS:
                raise InputError(f"{what} must be one of {', '.join(TRANSFORMS)}; got {getattr(self, what)!r}")

    def as_json(self):
        return {"discretization": self.discretization, "dt_transform": self.dt_transform,
                "real_transform": self.real_transform, "imag_transform": self.imag_transform}


@dataclass(frozen=True)
class CheckpointLayer:
    """One recognised SSM layer: its name (the key prefix), kind and tensors."""

    name: str
    kind: str
    tensors: dict
    dims: dict = field(default_factory=dict, compare=False)


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

    Parameters
    ----------
    path : str or os.PathLike
        A ``.npz``, ``.safetensors`` or PyTorch (``.pt``, ``.pth``, ``.bin``) file.
    wanted : collection of str, optional
        The names to read (default: every tensor).

    Returns
    -------
    dict
        ``{name: numpy array}``.

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


#: The layers recognised, by the parameter names of the reference implementations (module docstring):
#: kind -> (label, names that mark the kind, required names, optional names).
KINDS = {
    "s4d": ("S4D", ("kernel.log_dt", "kernel.log_A_real"), ("kernel.log_dt", "kernel.log_A_real", "kernel.A_imag",
                                                            "kernel.C"), ("D",)),
    "s4-diag": ("S4 (SSMKernelDiag)", ("kernel.inv_dt", "kernel.A_real"), ("kernel.inv_dt", "kernel.A_real",
                                                                           "kernel.B", "kernel.C"),
                ("kernel.A_imag", "D", "kernel.P")),
    "s5": ("S5", ("Lambda_re", "Lambda_im", "log_step"), ("Lambda_re", "Lambda_im", "B", "C", "log_step"),
           ("D", "C1", "C2")),
    "lru": ("LRU", ("nu_log", "theta_log", "gamma_log", "B_re", "B_im", "C_re", "C_im"),
            ("nu_log", "theta_log", "gamma_log", "B_re", "B_im", "C_re", "C_im"), ("D",)),
    "mamba": ("Mamba", ("A_log", "x_proj.weight", "dt_proj.weight", "dt_proj.bias"),
              ("A_log", "x_proj.weight", "dt_proj.weight", "dt_proj.bias"), ("D",)),
    "mamba2": ("Mamba-2", ("A_log", "dt_bias"), ("A_log", "dt_bias"), ("D", "in_proj.weight", "conv1d.weight",
                                                                      "norm.weight")),
}
#: Every name a layer may read, for the readers that load only what they need.
_NAMES = sorted({n for _, marks, req, opt in KINDS.values() for n in marks + req + opt})


def _normal(key):
    """A key with flax's ``/`` separators read as ``.`` (the same length, so prefixes line up)."""
    return str(key).replace("/", ".")


def _groups(names):
    """``{prefix: {short name: full key}}`` for every key ending in a recognised name (``.`` or ``/``)."""
    groups = {}
    for key in names:
        nk = _normal(key)
        for short in _NAMES:
            if nk == short or nk.endswith("." + short):
                prefix = key[:len(key) - len(short)]
                groups.setdefault(prefix, {})[short] = key
    return groups


def _classify(group):
    """``(kind, missing names)`` of a group of keys sharing a prefix, or ``(None, ())`` when nothing marks it."""
    present = set(group)
    if "A_log" in present:  # Mamba-1 (x_proj, dt_proj) or Mamba-2 (dt_bias per head)
        kind = "mamba2" if "dt_bias" in present and not present & {"x_proj.weight", "dt_proj.weight"} else "mamba"
        if kind == "mamba" and not present & {"x_proj.weight", "dt_proj.weight", "dt_proj.bias"}:
            return "mamba", ("dt_bias (Mamba-2) or x_proj.weight, dt_proj.weight and dt_proj.bias (Mamba-1)",)
    else:
        scores = {kind: len(present & set(marks)) for kind, (_, marks, _, _) in KINDS.items() if kind[:5] != "mamba"}
        kind = max(scores, key=lambda k: scores[k])
        if scores[kind] == 0:
            return None, ()
    missing = tuple(n for n in KINDS[kind][2] if n not in present)
    return kind, missing


def _layer_keys(names):
    """``([(prefix, kind, {short name: full key})], [(layer name, what is missing)])`` in key order."""
    found, problems = [], []
    for prefix, group in sorted(_groups(names).items()):
        kind, missing = _classify(group)
        if kind is None:
            continue
        name = prefix.rstrip("./") or kind
        label = KINDS[kind][0]
        if kind == "s4-diag" and "kernel.P" in group:
            problems.append((name, f"an S4 kernel with a low-rank term (kernel.P, SSMKernelDPLR) is not a diagonal "
                                   f"SSM; only diagonal kernels (S4D, SSMKernelDiag) are read"))
            continue
        if kind == "s5" and "C" not in group and ("C1" in group or "C2" in group):
            problems.append((name, "a bidirectional S5 layer (C1 and C2) is not causal; only causal S5 layers are "
                                   "read"))
            continue
        if missing:
            present = ", ".join(sorted(group))[:120]
            problems.append((name, f"{label} parameters found ({present}) but no {', '.join(missing)}"))
            continue
        wanted = KINDS[kind][2] + KINDS[kind][3]
        found.append((prefix, kind, {n: group[n] for n in wanted if n in group}))
    return found, problems


def find_layers(tensors, *, problems=None):
    """The SSM layers in a checkpoint's tensors, in key order, their tensors checked (:func:`check_layer`).

    ``problems``: a list that receives ``(name, reason)`` for every group of keys that looks like a layer
    but lacks a parameter.

    Parameters
    ----------
    tensors : dict
        ``{name: array}`` of a checkpoint.
    problems : list, optional
        Receives ``(name, reason)`` for every group of keys that looks like a layer but lacks a parameter.

    Returns
    -------
    list of CheckpointLayer

    Raises
    ------
    InputError
        If a recognised layer's tensor has the wrong shape, or holds NaN or an infinite value.
    """
    found, missing = _layer_keys(tensors)
    if problems is not None:
        problems.extend(missing)
    return [check_layer(CheckpointLayer(prefix.rstrip("./") or kind, kind,
                                         {n: np.asarray(tensors[k]) for n, k in keys.items()}))
            for prefix, kind, keys in found]


def tensor_names(path):
    """The tensor names of a checkpoint, read without loading any tensor (.npz, .safetensors; .pt loads lazily).

    Parameters
    ----------
    path : str or os.PathLike
        The checkpoint.

    Returns
    -------
    list of str or None
        None for a PyTorch file (its tensors are mapped lazily when the layers are read).

    Raises
    ------
    ParseError
        For a missing or unreadable file.
    """
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


def scan_checkpoint(path):
    """``(layers, problems)``: the recognised SSM layers of a checkpoint (only their tensors are read) and, for
    every group of keys that looks like a layer but is incomplete, ``(name, what is missing)``.

    Parameters
    ----------
    path : str or os.PathLike
        The checkpoint.

    Returns
    -------
    tuple
        ``(layers, problems)``: a list of :class:`CheckpointLayer` and a list of ``(name, reason)``.

    Raises
    ------
    InputError
        If the file cannot be read, or a layer's tensor has the wrong shape or a value that is not finite.
    """
    names = tensor_names(path)
    problems = []
    if names is None:  # .pt: mapped lazily, only what a layer needs is converted (other suffixes are refused)
        return find_layers(read_tensors(path, wanted=_TorchWanted()), problems=problems), problems
    found, problems = _layer_keys(names)
    wanted = {k for _, _, keys in found for k in keys.values()}
    return find_layers(read_tensors(path, wanted=wanted)), problems


def read_layers(path):
    """The recognised SSM layers of a checkpoint, reading only their tensors (peak memory: those tensors).

    Parameters
    ----------
    path : str or os.PathLike
        The checkpoint.

    Returns
    -------
    list of CheckpointLayer
        The recognised layers, in key order, their tensors checked (:func:`check_layer`).

    Raises
    ------
    InputError
        As :func:`scan_checkpoint`.

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
    return scan_checkpoint(path)[0]


class _TorchWanted:
    """For a .pt file: the names are known only once mapped; keep the keys ending in a recognised name."""

    def __contains__(self, name):
        nk = _normal(name)
        return any(nk == short or nk.endswith("." + short) for short in _NAMES)


# ---------------------------------------------------------------- shapes, checked at the boundary

def _shape_error(layer, short, arr, expected):
    return InputError(f"{layer.name}: {short} has shape {tuple(arr.shape)}, expected {expected}")


def _real(layer, short):
    arr = np.asarray(layer.tensors[short])
    if arr.dtype.kind not in "fiu":
        raise InputError(f"{layer.name}: {short} is a {arr.dtype} tensor, not real numbers (complex values are stored "
                         "as a real view whose last dimension is 2)")
    arr = np.asarray(arr, dtype=np.float64)  # no copy when already float64
    if not np.isfinite(arr).all():
        bad = ~np.isfinite(arr)
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        what = "NaN" if np.isnan(arr[where]) else "an infinite value"
        raise InputError(f"{layer.name}: {short} holds {what} (at index {list(where)}); the layer's operator is not "
                         "defined")
    return arr


def _expect(layer, short, arr, *shapes):
    """``arr`` reshaped to the first of ``shapes`` it has (None entries match anything), or one-line refusal."""
    for shape in shapes:
        if arr.ndim == len(shape) and all(e is None or e == a for e, a in zip(shape, arr.shape)):
            return arr
    text = " or ".join("(" + ", ".join("?" if e is None else str(e) for e in shape) + ("," if len(shape) == 1 else "")
                       + ")" for shape in shapes)
    raise _shape_error(layer, short, arr, text)


def check_layer(layer):
    """The layer with its tensors as float64 in the shapes its kind names (``dims`` holding the sizes).

    Shapes accepted (H channels, P modes; ``?``: read from the other tensors):

    - ``s4d``: ``kernel.log_dt`` (H,), (H, 1), (1,) or (); ``kernel.log_A_real``, ``kernel.A_imag`` (H, P);
      ``kernel.C`` (H, P, 2); ``D`` (H,) or (1, H).
    - ``s4-diag``: ``kernel.inv_dt`` (H, 1) or (H, P); ``kernel.A_real`` (and ``kernel.A_imag``) (S, P) with S
      dividing H; ``kernel.B`` (1, S, P, 2) or (S, P, 2) (real: without the 2, and no ``kernel.A_imag``);
      ``kernel.C`` (c, H, P, 2) or (H, P, 2) (real: without the 2); ``D`` (c, H) or (H,).
    - ``s5``: ``Lambda_re``, ``Lambda_im`` (P,); ``B`` (P, H, 2); ``C`` (H, P, 2); ``D`` (H,);
      ``log_step`` (P, 1) or (P,).
    - ``lru``: ``nu_log``, ``theta_log``, ``gamma_log`` (P,); ``B_re``, ``B_im`` (P, H); ``C_re``, ``C_im`` (H, P);
      ``D`` (H,).
    - ``mamba``: ``A_log`` (d_inner, d_state); ``x_proj.weight`` (dt_rank + 2 d_state, d_inner); ``dt_proj.weight``
      (d_inner, dt_rank); ``dt_proj.bias`` (d_inner,); ``D`` (d_inner,).
    - ``mamba2``: ``A_log``, ``dt_bias`` (nheads,); ``D`` (nheads,) or (nheads * headdim,).

    Parameters
    ----------
    layer : CheckpointLayer
        A layer as found in a checkpoint (its tensors as stored).

    Returns
    -------
    CheckpointLayer
        The same layer, its tensors float64 arrays in its kind's shapes and ``dims`` its sizes.

    Raises
    ------
    InputError
        Naming the tensor: a shape that does not fit, a complex or non-numeric tensor, NaN or an infinite value.

    Examples
    --------
    >>> import numpy as np
    >>> bad = CheckpointLayer("layers.0", "s5", {"Lambda_re": -np.ones(4), "Lambda_im": np.zeros(4),
    ...     "B": np.ones((4, 2, 2)), "C": np.ones((2, 3, 2)), "log_step": np.zeros((4, 1))})
    >>> check_layer(bad)
    Traceback (most recent call last):
    ...
    symssm.errors.InputError: layers.0: C has shape (2, 3, 2), expected (2, 4, 2)
    """
    t = {k: _real(layer, k) for k in layer.tensors if k != "kernel.P"}
    kind = layer.kind
    out = {}
    if kind == "s4d":
        aim = _expect(layer, "kernel.A_imag", t["kernel.A_imag"], (None, None))
        H, P = aim.shape
        out["kernel.A_imag"] = aim
        out["kernel.log_A_real"] = _expect(layer, "kernel.log_A_real", t["kernel.log_A_real"], (H, P))
        out["kernel.C"] = _expect(layer, "kernel.C", t["kernel.C"], (H, P, 2))
        out["kernel.log_dt"] = _expect(layer, "kernel.log_dt", t["kernel.log_dt"], (H,), (H, 1), (1,), ()).reshape(-1)
        if "D" in t:
            out["D"] = _expect(layer, "D", t["D"], (H,), (1, H)).reshape(H)
        dims = {"H": H, "P": P}
    elif kind == "s4-diag":
        ar = _expect(layer, "kernel.A_real", t["kernel.A_real"], (None, None))
        S, P = ar.shape
        cplx = "kernel.A_imag" in t
        C = _expect(layer, "kernel.C", t["kernel.C"], *(((None, None, P, 2), (None, P, 2)) if cplx else
                                                         ((None, None, P), (None, P))))
        if C.ndim == (3 if cplx else 2):
            C = C[None]
        c, H = C.shape[:2]
        if S < 1 or H % S:
            raise InputError(f"{layer.name}: kernel.A_real has {S} rows, which must divide the {H} channels of kernel.C")
        out["kernel.A_real"] = ar
        if cplx:
            out["kernel.A_imag"] = _expect(layer, "kernel.A_imag", t["kernel.A_imag"], (S, P))
        B = _expect(layer, "kernel.B", t["kernel.B"], *(((1, S, P, 2), (S, P, 2)) if cplx else ((1, S, P), (S, P))))
        out["kernel.B"] = B.reshape((S, P, 2) if cplx else (S, P))
        out["kernel.C"] = C
        out["kernel.inv_dt"] = _expect(layer, "kernel.inv_dt", t["kernel.inv_dt"], (H, 1), (H, P), (H,)).reshape(H, -1)
        if "D" in t:
            out["D"] = _expect(layer, "D", t["D"], (c, H), (H,) if c == 1 else (c, H)).reshape(c, H)
        dims = {"H": H, "P": P, "S": S, "channels": c, "complex": cplx}
    elif kind == "s5":
        re = _expect(layer, "Lambda_re", t["Lambda_re"], (None,))
        P = re.size
        out["Lambda_re"] = re
        out["Lambda_im"] = _expect(layer, "Lambda_im", t["Lambda_im"], (P,))
        B = _expect(layer, "B", t["B"], (P, None, 2))
        H = B.shape[1]
        out["B"] = B
        C = t["C"]
        if C.ndim == 3 and C.shape[0] == H and C.shape[1] == 2 * P and C.shape[2] == 2:
            raise InputError(f"{layer.name}: C has shape {C.shape}, twice the {P} modes: a bidirectional S5 layer is not "
                             "causal; only causal S5 layers are read")
        out["C"] = _expect(layer, "C", C, (H, P, 2))
        out["log_step"] = _expect(layer, "log_step", t["log_step"], (P, 1), (P,)).reshape(P)
        if "D" in t:
            out["D"] = _expect(layer, "D", t["D"], (H,))
        dims = {"H": H, "P": P}
    elif kind == "lru":
        nu = _expect(layer, "nu_log", t["nu_log"], (None,))
        P = nu.size
        out["nu_log"] = nu
        for short in ("theta_log", "gamma_log"):
            out[short] = _expect(layer, short, t[short], (P,))
        B_re = _expect(layer, "B_re", t["B_re"], (P, None))
        H = B_re.shape[1]
        out["B_re"] = B_re
        out["B_im"] = _expect(layer, "B_im", t["B_im"], (P, H))
        for short in ("C_re", "C_im"):
            out[short] = _expect(layer, short, t[short], (H, P))
        if "D" in t:
            out["D"] = _expect(layer, "D", t["D"], (H,))
        dims = {"H": H, "P": P}
    elif kind == "mamba":
        A = _expect(layer, "A_log", t["A_log"], (None, None))
        d_inner, d_state = A.shape
        Wx = _expect(layer, "x_proj.weight", t["x_proj.weight"], (None, d_inner))
        dt_rank = Wx.shape[0] - 2 * d_state
        if dt_rank < 1:
            raise InputError(f"{layer.name}: x_proj.weight has shape {Wx.shape}, expected (dt_rank + 2 * {d_state}, "
                             f"{d_inner}) with dt_rank >= 1")
        out.update({"A_log": A, "x_proj.weight": Wx,
                    "dt_proj.weight": _expect(layer, "dt_proj.weight", t["dt_proj.weight"], (d_inner, dt_rank)),
                    "dt_proj.bias": _expect(layer, "dt_proj.bias", t["dt_proj.bias"], (d_inner,))})
        if "D" in t:
            out["D"] = _expect(layer, "D", t["D"], (d_inner,))
        dims = {"H": d_inner, "P": d_state, "dt_rank": dt_rank}
    elif kind == "mamba2":
        A = _expect(layer, "A_log", t["A_log"], (None,))
        heads = A.size
        out["A_log"] = A
        out["dt_bias"] = _expect(layer, "dt_bias", t["dt_bias"], (heads,))
        headdim = 1
        if "D" in t:
            D = _expect(layer, "D", t["D"], (None,))
            if D.size % heads:
                raise _shape_error(layer, "D", D, f"({heads},) or ({heads} * headdim,)")
            out["D"] = D
            headdim = D.size // heads
        d_state = None
        if "in_proj.weight" in t and "conv1d.weight" in t:
            d_in, conv = t["in_proj.weight"].shape[0], t["conv1d.weight"].shape[0]
            d_ssm = d_in - conv - heads  # d_in = d_ssm (z) + conv_dim + nheads when the layer has no MLP part
            if 0 < d_ssm < conv and (conv - d_ssm) % 2 == 0:
                d_state = (conv - d_ssm) // 2
        dims = {"H": heads, "P": d_state, "headdim": headdim}
    else:
        raise InputError(f"{layer.name}: unknown layer kind {kind!r}")
    return CheckpointLayer(layer.name, kind, out, dims)


# ---------------------------------------------------------------- whole models: a file or a folder, read lazily

#: Weight files looked for in a checkpoint folder, in this order (Hugging Face and state-spaces/mamba layouts).
WEIGHT_FILES = ("model.safetensors.index.json", "model.safetensors", "pytorch_model.bin.index.json",
                "pytorch_model.bin", "model.npz")
#: Largest config.json read.
_MAX_CONFIG = 4 * 1024 * 1024


def _npz_shapes(path):
    """``{name: (shape, dtype)}`` of an ``.npz`` archive from each member's header only (no data read)."""
    import zipfile

    out = {}
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            if not info.filename.endswith(".npy"):
                continue
            with archive.open(info) as fh:
                version = np.lib.format.read_magic(fh)
                if version == (1, 0):
                    shape, _, dtype = np.lib.format.read_array_header_1_0(fh)
                else:
                    shape, _, dtype = np.lib.format.read_array_header_2_0(fh)
            out[info.filename[:-4]] = (tuple(int(s) for s in shape), str(dtype))
    return out


def _read_config(path):
    import os

    try:
        if os.path.getsize(path) > _MAX_CONFIG:
            raise ParseError(f"{path}: config.json larger than {_MAX_CONFIG // 1024 // 1024} MB")
        with open(path, "rb") as fh:
            data = json.loads(fh.read().decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        raise ParseError(f"{path} is not a readable JSON config") from None
    if not isinstance(data, dict):
        raise ParseError(f"{path}: config.json is not a JSON object")
    return data


class Checkpoint:
    """A checkpoint opened lazily: its tensor names and shapes from the headers, its ``config.json`` when there is
    one, and each tensor read only when asked for (safetensors: a seek and a read per tensor, or per row of an
    embedding; ``.npz``: one member; PyTorch: ``torch.load(mmap=True)``).

    ``path`` is a weight file (``.safetensors``, ``.npz``, ``.pt``/``.pth``/``.bin``) or a folder holding
    ``config.json`` and the weights (Hugging Face: ``model.safetensors``, sharded with
    ``model.safetensors.index.json``, or ``pytorch_model.bin``; state-spaces/mamba: ``pytorch_model.bin``). A
    weight file's folder's ``config.json`` is read too.

    Raises
    ------
    ParseError
        For a missing file, a folder without weights, or an unreadable header or config.
    InputError
        For an unknown suffix.

    Examples
    --------
    >>> import numpy as np, os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> np.savez(os.path.join(folder, "model.npz"), **{"model.embed_tokens.weight": np.zeros((5, 2))})
    >>> ckpt = Checkpoint(folder)
    >>> ckpt.shape("model.embed_tokens.weight"), ckpt.config
    ((5, 2), {})
    """

    def __init__(self, path):
        import os

        self.path = str(path)
        self.config = {}
        self.config_path = None
        self._where = {}  # name -> (file, kind)
        self._shapes = {}
        self._headers = {}
        self._torch = {}
        if os.path.isdir(self.path):
            cfg = os.path.join(self.path, "config.json")
            if os.path.isfile(cfg):
                self.config, self.config_path = _read_config(cfg), cfg
            files = self._folder_files(self.path)
        else:
            if not os.path.exists(self.path):
                raise ParseError(f"{self.path}: no such file")
            cfg = os.path.join(os.path.dirname(os.path.abspath(self.path)), "config.json")
            if os.path.isfile(cfg):
                self.config, self.config_path = _read_config(cfg), cfg
            files = [self.path]
        for file in files:
            self._index(file)
        self.names = list(self._shapes)

    @staticmethod
    def _folder_files(folder):
        import os

        for name in WEIGHT_FILES:
            full = os.path.join(folder, name)
            if not os.path.isfile(full):
                continue
            if name.endswith(".index.json"):
                index = _read_config(full)
                weight_map = index.get("weight_map")
                if not isinstance(weight_map, dict):
                    raise ParseError(f"{full}: no weight_map")
                shards = []
                for shard in weight_map.values():
                    shard = str(shard)
                    if os.path.basename(shard) != shard:
                        raise ParseError(f"{full}: shard {shard[:60]!r} is not a file of the folder")
                    if shard not in shards:
                        shards.append(shard)
                return [os.path.join(folder, s) for s in shards]
            return [full]
        found = sorted(f for f in os.listdir(folder) if f.lower().endswith((".safetensors", ".npz", ".pt", ".pth",
                                                                             ".bin")))
        if not found:
            raise ParseError(f"{folder}: no weights (model.safetensors, pytorch_model.bin, or a .safetensors, .npz or "
                             ".pt file)")
        return [os.path.join(folder, f) for f in found]

    def _index(self, file):
        text = file.lower()
        try:
            if text.endswith(".safetensors"):
                with open(file, "rb") as fh:
                    header, base, body = _safetensors_header(file, fh)
                self._headers[file] = (header, base, body)
                for name, info in header.items():
                    if name == "__metadata__":
                        continue
                    shape = info.get("shape") if isinstance(info, dict) else None
                    if not (isinstance(shape, list) and all(isinstance(s, int) and s >= 0 for s in shape)):
                        raise ParseError(f"{file}: tensor {name[:60]!r} has a malformed shape")
                    self._shapes[name] = tuple(shape)
                    self._where[name] = (file, "safetensors")
            elif text.endswith(".npz"):
                for name, (shape, _) in _npz_shapes(file).items():
                    self._shapes[name] = shape
                    self._where[name] = (file, "npz")
            elif text.endswith((".pt", ".pth", ".bin")):
                state = self._torch_state(file)
                for name, value in state.items():
                    if hasattr(value, "shape"):
                        self._shapes[str(name)] = tuple(int(s) for s in value.shape)
                        self._where[str(name)] = (file, "torch")
            else:
                raise InputError(f"{file}: a checkpoint is a .npz, .safetensors or .pt file, or a folder with "
                                 "config.json and its weights")
        except FileNotFoundError:
            raise ParseError(f"{file}: no such file") from None
        except (OSError, ValueError, EOFError) as exc:
            if isinstance(exc, InputError):
                raise
            raise ParseError(f"{file} cannot be read as a checkpoint ({str(exc)[:80]})") from None

    def _torch_state(self, file):
        if file not in self._torch:
            try:
                import torch
            except ImportError:
                raise InputError(f"reading {file} needs PyTorch (pip install torch); .npz and .safetensors need "
                                 "nothing more") from None
            try:
                try:
                    state = torch.load(file, map_location="cpu", weights_only=True, mmap=True)
                except (RuntimeError, TypeError, ValueError):
                    state = torch.load(file, map_location="cpu", weights_only=True)
            except Exception as exc:  # torch raises many kinds; weights_only refuses anything but tensors
                raise ParseError(f"{file} is not a PyTorch state dict of tensors ({type(exc).__name__})") from None
            if isinstance(state, dict) and "state_dict" in state and isinstance(state["state_dict"], dict):
                state = state["state_dict"]
            if not isinstance(state, dict):
                raise ParseError(f"{file} does not hold a state dict")
            self._torch[file] = state
        return self._torch[file]

    def shape(self, name):
        """The stored shape of tensor ``name`` (no data read)."""
        return self._shapes[name]

    def size(self, name):
        """Number of elements of tensor ``name``."""
        return int(np.prod(self._shapes[name])) if self._shapes[name] else 1

    def __contains__(self, name):
        return name in self._shapes

    def read(self, names):
        """``{name: float64 array}`` for the tensors ``names`` (only they are read from disk).

        Raises
        ------
        ParseError
            If a tensor's bytes cannot be read or do not fit its header.
        """
        out = {}
        by_file = {}
        for name in names:
            file, kind = self._where[name]
            by_file.setdefault((file, kind), []).append(name)
        for (file, kind), wanted in by_file.items():
            try:
                if kind == "safetensors":
                    header, base, body = self._headers[file]
                    with open(file, "rb") as fh:
                        out.update(_safetensors_body(file, fh, header, base, body, set(wanted)))
                elif kind == "npz":
                    with np.load(file, allow_pickle=False) as archive:
                        out.update({k: archive[k] for k in wanted})
                else:
                    state = self._torch_state(file)
                    out.update(_torch_values(state, wanted))
            except (OSError, ValueError, EOFError) as exc:
                if isinstance(exc, InputError):
                    raise
                raise ParseError(f"{file} cannot be read as a checkpoint ({str(exc)[:80]})") from None
        return out

    def read_rows(self, name, rows):
        """Rows ``rows`` of a 2-D tensor (an embedding), as float64; safetensors reads only those rows.

        Raises
        ------
        InputError
            If a row is outside the tensor.
        """
        shape = self._shapes[name]
        if len(shape) != 2:
            raise InputError(f"{name} has shape {shape}, not an embedding (vocabulary, width)")
        rows = [int(r) for r in rows]
        bad = [r for r in rows if not 0 <= r < shape[0]]
        if bad:
            raise InputError(f"token id {bad[0]} is outside the embedding {name} ({shape[0]} rows)")
        file, kind = self._where[name]
        if kind != "safetensors":
            return np.asarray(self.read([name])[name], dtype=np.float64)[rows]
        header, base, body = self._headers[file]
        info = header[name]
        dtype, (start, end) = info["dtype"], info["data_offsets"]
        width = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4}.get(dtype)
        if width is None or end - start != width * shape[0] * shape[1]:
            raise ParseError(f"{file}: tensor {name[:60]!r} has a malformed header entry")
        out = np.zeros((len(rows), shape[1]))
        with open(file, "rb") as fh:
            for i, r in enumerate(rows):
                fh.seek(base + start + r * width * shape[1])
                data = fh.read(width * shape[1])
                if dtype == "BF16":
                    out[i] = (np.frombuffer(data, "<u2").astype(np.uint32) << 16).view(np.float32)
                else:
                    out[i] = np.frombuffer(data, np.dtype(SAFETENSORS_DTYPES[dtype]).newbyteorder("<"))
        return out


def _torch_values(state, wanted):
    import torch

    out = {}
    for name in wanted:
        value = state[name].detach().cpu()
        if value.is_complex():
            value = torch.view_as_real(value)
        out[name] = value.double().numpy() if value.is_floating_point() else value.numpy()
    return out
