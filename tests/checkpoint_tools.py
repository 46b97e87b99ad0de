"""Helpers for tests that write checkpoints: a minimal safetensors writer (no library needed)."""

import json
import struct

import numpy as np

_DTYPES = {"F64": "<f8", "F32": "<f4"}


def write_safetensors(path, tensors, dtype="F64"):
    """Write ``{name: array}`` as a safetensors file: an 8-byte header length, the JSON header, raw data."""
    header, blobs, offset = {}, [], 0
    for name, arr in tensors.items():
        data = np.ascontiguousarray(arr, dtype=_DTYPES[dtype]).tobytes()
        header[name] = {"dtype": dtype, "shape": list(np.shape(arr)), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(text)) + text + b"".join(blobs))
