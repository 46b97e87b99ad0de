"""symssm's independent certificate checker.

Standard library only (numpy, if installed, only speeds up products modulo a
prime); it shares no code with the generator and never searches: it re-derives
every obligation a certificate states and fails closed.

Exit codes of ``symssm-check`` / ``python -m symssm.checker``: 0 verified,
1 rejected (the first failed obligation is named), 2 unreadable input.
"""

from .cli import main
from .core import CheckResult, check_data, check_file

__all__ = ["check_data", "check_file", "CheckResult", "main"]
