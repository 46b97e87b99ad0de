"""Conventions of other tools: python-control / scipy.signal state-space systems, exactly.

symssm's SSM reads the input before the output: ``h_i = A h_{i-1} + B x_i``, ``y_i = C h_i + D x_i``,
so its lags are ``L_0 = C B + D`` and ``L_d = C A^d B``.  python-control and scipy.signal write
``x_{k+1} = A x_k + B u_k``, ``y_k = C x_k + D u_k``, whose Markov parameters are ``h_0 = D`` and
``h_d = C A^(d-1) B``.  The two conversions below keep every lag exactly:

* :func:`to_state_space` gives ``(A, B, C A, C B + D)``: its Markov parameters are symssm's lags;
* :func:`from_state_space` gives a symssm system (state ``[x_(i+1); x_i]``, dimension 2N) whose lags
  are the Markov parameters of ``(A, B, C, D)``.

Examples
--------
>>> from symssm.exact.lags import lags
>>> rot = from_state_space([[0, -1], [1, 0]], [[1], [0]], [[1, 0]], [[5]])
>>> [L[0][0] for L in lags(rot, 4)]  # D, CB, CAB, CA^2B
[Fraction(5, 1), Fraction(1, 1), Fraction(0, 1), Fraction(-1, 1)]
"""

from fractions import Fraction

from .system import ssm

__all__ = ["to_state_space", "from_state_space"]


def _mul(X, Y):
    cols = list(zip(*Y))
    return tuple(tuple(sum((a * b for a, b in zip(row, col)), Fraction(0)) for col in cols) for row in X)


def to_state_space(system):
    """``(A, B, C A, C B + D)`` as tuples of Fractions: a python-control / scipy.signal system with the same lags.

    Parameters
    ----------
    system : SSM
        A time-invariant system.

    Returns
    -------
    tuple
        ``(A, B, C A, C B + D)``, tuples of rows of Fractions (python-control's ``ss(A, B, C', D')``).

    Examples
    --------
    >>> from symssm.sources.system import ssm
    >>> A, B, C2, D2 = to_state_space(ssm([["1/2"]], [[1]], [[3]]))
    >>> C2, D2
    (((Fraction(3, 2),),), ((Fraction(3, 1),),))
    """
    CB = _mul(system.C, system.B)
    D = system.D if system.D is not None else tuple(tuple(Fraction(0) for _ in range(system.m))
                                                    for _ in range(system.p))
    return system.A, system.B, _mul(system.C, system.A), tuple(tuple(a + b for a, b in zip(r1, r2))
                                                                  for r1, r2 in zip(CB, D))


def from_state_space(A, B, C, D=None, *, name=""):
    """The symssm system whose lags are the Markov parameters of ``x+ = A x + B u, y = C x + D u``.

    Parameters
    ----------
    A, B, C : matrix-like
        The state-space system ``x+ = A x + B u, y = C x + D u`` (exact entries).
    D : matrix-like, optional
        The feed-through (default zero).
    name : str
        A label carried into certificates.

    Returns
    -------
    SSM
        The 2N-state system whose lags ``D, CB, CAB, ...`` are the Markov parameters.

    Raises
    ------
    InputError
        As :func:`symssm.ssm` (shapes, floats, limits).
    """
    base = ssm(A, B, C, D, name=name)  # validates the four matrices
    N, m = base.N, base.m
    zero = Fraction(0)
    Az = [list(row) + [zero] * N for row in base.A] + [[Fraction(int(i == j)) for j in range(N)] + [zero] * N
                                                        for i in range(N)]
    Bz = [list(row) for row in base.B] + [[zero] * m for _ in range(N)]
    Cz = [[zero] * N + list(row) for row in base.C]
    return ssm(Az, Bz, Cz, base.D, name=name)
