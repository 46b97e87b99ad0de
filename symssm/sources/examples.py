"""Built-in example systems with known head counts.

One table, :data:`EXAMPLES`, drives ``symssm demo`` and the contract tests that
run every method (exact, modular, numeric, the checker) against the same
expected answers.

Examples
--------
>>> ex = example("shift5-two-outputs")
>>> ex.profile
(0, 1, 1, 2, 2)
"""

from dataclasses import dataclass

from ..errors import InputError
from .system import ssm

__all__ = ["Example", "EXAMPLES", "example", "DEMO_NAMES"]


@dataclass(frozen=True)
class Example:
    """A named system with its known profile ``k(1), k(2), ...`` (then constant)."""

    name: str
    description: str
    build: object
    profile: tuple

    @property
    def system(self):
        return self.build()

    def k(self, n):
        """Expected k(n)."""
        if n == 0:
            return 0
        return self.profile[min(n, len(self.profile)) - 1]


def _shift(N):
    return [[1 if i == j + 1 else 0 for j in range(N)] for i in range(N)]


def _e(N, i):
    return [[1 if r == i else 0] for r in range(N)]


def _rotation():
    return ssm([[0, -1], [1, 0]], [[1, 0], [0, 1]], [[1, 0], [0, 1]], name="rotation")


def _shift5():
    return ssm(_shift(5), _e(5, 0), [[0, 1, 0, 0, 0], [0, 0, 0, 1, 0]], name="shift5-two-outputs")


def _shift3():
    return ssm(_shift(3), _e(3, 0), [[0, 0, 1]], name="shift3")


def _identity():
    return ssm([[1, 0], [0, 1]], [[1, 0], [0, 1]], [[1, 0], [0, 1]], name="identity")


def _zero_output():
    return ssm([[1, 2], [3, 4]], [[1], [1]], [[0, 0]], name="zero-output")


def _with_D():
    return ssm([[0, 0], [1, 0]], [[1, 0], [0, 1]], [[0, 1], [1, 0]], [["1/2", 0], [0, 0]], name="shift-with-feedthrough")


def _two_rotations():
    R = [[0, -1, 0, 0], [1, 0, 0, 0], [0, 0, 0, -1], [0, 0, 1, 0]]
    return ssm(R, [[1, 0], [0, 1], [1, 0], [0, 1]], [[1, 0, 1, 0], [0, 1, 0, 1]], name="two-rotations")


def _decay():
    return ssm([["1/2", 0, 0], [0, "1/3", 0], [0, 0, "-1/4"]], [[1], [1], [1]], [[1, 1, 1]], name="diagonal-decay")


EXAMPLES = (
    Example("rotation", "2x2 rotation, B = C = I", _rotation, (1, 2)),
    Example("shift5-two-outputs", "5x5 down-shift, B = e1, C = [e2^T; e4^T]", _shift5, (0, 1, 1, 2, 2)),
    Example("shift3", "3x3 down-shift, B = e1, C = e3^T", _shift3, (0, 0, 1)),
    Example("identity", "A = I: every lag equals CB", _identity, (1,)),
    Example("zero-output", "C = 0: no heads at all", _zero_output, (0,)),
    Example("shift-with-feedthrough", "2x2 shift with D != 0", _with_D, (1, 2, 2)),
    Example("two-rotations", "two copies of a rotation: k = 2 < min(n, N, pm) = 4", _two_rotations, (1, 2)),
    Example("diagonal-decay", "stable diagonal system, eigenvalues 1/2, 1/3, -1/4", _decay, (1, 1, 1)),
)

#: Examples ``symssm demo`` certifies.
DEMO_NAMES = ("rotation", "shift5-two-outputs", "two-rotations", "shift-with-feedthrough")


def example(name):
    """The :class:`Example` with this name.

    Parameters
    ----------
    name : str
        One of the names of :data:`EXAMPLES`.

    Returns
    -------
    Example
        The system, its description and its known head counts.

    Raises
    ------
    InputError
        If there is no example of that name (the message lists them).
    """
    for ex in EXAMPLES:
        if ex.name == name:
            return ex
    raise InputError(f"no example named {str(name)[:60]!r}; the examples are {', '.join(e.name for e in EXAMPLES)}")
