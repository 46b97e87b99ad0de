"""Check a certificate from Python with the independent checker.

Examples
--------
>>> from symssm import ssm, certify
>>> check(certify(ssm([[1]], [[1]], [[1]]))).verified
True
"""

import os

from .checker import check_data, check_file
from .certificate import Certificate

__all__ = ["check"]


def check(certificate, *, spec=None, max_seconds=None):
    """Verify a certificate: a :class:`Certificate`, its JSON data, or a file path.

    Returns the checker's ``CheckResult`` (``.verified``, ``.code``, ``.message``).
    ``spec`` is a spec file path (or parsed spec JSON) the certificate must be about.
    """
    if isinstance(certificate, (str, os.PathLike)):
        return check_file(certificate, spec_path=spec, max_seconds=max_seconds)
    data = certificate.data if isinstance(certificate, Certificate) else certificate
    if isinstance(spec, (str, os.PathLike)):
        from .checker.core import Unreadable, read_file, CheckResult

        try:
            spec = read_file(spec, "spec")
        except Unreadable as exc:
            return CheckResult(2, str(exc))
    return check_data(data, spec=spec, max_seconds=max_seconds)
