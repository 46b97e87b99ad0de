"""Gradient-highway certificates: certified decay for SSMs, certified highways for attention.

See docs/gradient.md.  The public entry point is :func:`gradient_certificate`.
"""

from .certificate import gradient_certificate

__all__ = ["gradient_certificate"]
