"""Load a certificate file into a :class:`~symssm.certificate.Certificate`.

Reading is strict (see :mod:`symssm.jsonio`); the content is not verified
here: call ``.check()`` for that.
"""

from .certificate import FORMAT, Certificate
from .errors import InputError
from .jsonio import load_strict

__all__ = ["load_certificate"]


def load_certificate(path):
    """Read a certificate JSON file; raises InputError if it is not one."""
    data = load_strict(path, what=f"certificate {path}")
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(f"certificate {path} is not a symssm certificate (no \"format\": \"{FORMAT}\")")
    if data.get("kind") not in ("head-count", "gradient-highway"):
        raise InputError(f"certificate {path} has unknown kind {data.get('kind')!r}")
    return Certificate(data)
