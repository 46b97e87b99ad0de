"""Array backends for the numeric path: numpy by default, CuPy on a GPU.

The numeric core is written against the array API standard (through array-api-compat), so it
runs on any conforming namespace; tests run it under array-api-strict.

Examples
--------
>>> get_namespace("cpu").__name__
'array_api_compat.numpy'
"""

from ..errors import BackendError, InputError

__all__ = ["get_namespace", "DEVICES"]

DEVICES = ("cpu", "cuda")


def get_namespace(device="cpu"):
    """The array namespace for ``device`` ("cpu": numpy, "cuda": CuPy on the current GPU)."""
    if device == "cpu":
        import array_api_compat.numpy as xp

        return xp
    if device == "cuda":
        try:
            import cupy
        except Exception as exc:  # ImportError, or CUDA libraries missing
            raise BackendError(f"--device cuda needs CuPy, which could not be imported ({type(exc).__name__}: "
                               f"{str(exc)[:120]}); install symssm[gpu] or use --device cpu") from None
        try:
            count = cupy.cuda.runtime.getDeviceCount()
        except Exception as exc:
            raise BackendError(f"--device cuda: CuPy found no usable GPU ({str(exc)[:120]})") from None
        if count < 1:
            raise BackendError("--device cuda: CuPy found no GPU")
        import array_api_compat.cupy as xp

        return xp
    raise InputError(f"device must be one of {', '.join(DEVICES)}; got {device!r}")
