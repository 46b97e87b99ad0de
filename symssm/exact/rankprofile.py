"""Row rank profiles and witness positions: the linear algebra kernels.

The *row rank profile* of a stack of rows is the lexicographically first set of
row indices whose rows are linearly independent and span all rows: row ``d`` is
in it exactly when it is not in the span of the rows before it.  For the lag
stack this is the set of lags at which the head count ``k(n)`` steps up.

Examples
--------
>>> row_rank_profile_mod([[0, 0], [1, 2], [2, 4], [0, 1]], 7)
[1, 3]
>>> greedy_positions_mod([[1, 2], [0, 1]], 7)
[0, 1]
"""

from ..errors import InputError
from .convert import fmpz_matrix, nmod_matrix

__all__ = ["row_rank_profile_exact", "row_rank_profile_mod", "greedy_positions_mod", "det_mod"]


def _pivots(reduced, rank):
    """Pivot columns of a matrix in reduced row echelon form (python-flint type)."""
    out = []
    ncols = reduced.ncols()
    for i in range(rank):
        j = out[-1] + 1 if out else 0
        while j < ncols and reduced[i, j] == 0:
            j += 1
        out.append(j)
    return out


def row_rank_profile_exact(rows):
    """Row rank profile of an integer matrix, exactly (fraction-free RREF in python-flint).

    Parameters
    ----------
    rows : list of list of int

    Returns
    -------
    list of int

    Notes
    -----
    Pivot columns of the transpose's RREF are the row rank profile.  python-flint is
    called directly: SymPy's DomainMatrix.rref does not reach flint's RREF here and is
    tens of times slower (see docs/performance.md).
    """
    if not rows or not rows[0]:
        return []
    reduced, _den, rank = fmpz_matrix(list(zip(*rows))).rref()
    return _pivots(reduced, rank)


def row_rank_profile_mod(rows, prime):
    """Row rank profile modulo a prime (python-flint ``nmod_mat``).

    Parameters
    ----------
    rows : list of list of int
        Integer rows.
    prime : int
        The modulus.

    Returns
    -------
    list of int
        The indices of the first maximal set of independent rows.
    """
    if len(rows) == 0 or len(rows[0]) == 0:
        return []
    columns = rows.T if hasattr(rows, "T") else [list(col) for col in zip(*rows)]
    reduced, rank = nmod_matrix(columns, prime).rref()
    return _pivots(reduced, rank)


def greedy_positions_mod(rows, prime):
    """Columns ``t_1..t_k`` making every leading principal minor nonzero mod P.

    Gaussian elimination with column pivoting: row ``j`` (reduced by the rows
    above it) takes the first column where it is nonzero.  Then the k x k matrix
    ``rows[s][t_u]`` has all leading principal minors nonzero modulo the prime.

    Parameters
    ----------
    rows : list of list of int
        Integer rows, independent modulo ``prime``.
    prime : int
        The modulus, below ``2**26``.

    Returns
    -------
    list of int or None
        ``None`` if the rows are linearly dependent modulo the prime.

    Raises
    ------
    InputError
        If ``prime`` is not below ``2**26`` (int64 products would overflow).

    Notes
    -----
    Residues are below ``2**26``, so the products formed in int64 stay below
    ``2**52``.
    """
    if not rows:
        return []
    if prime >= 2**26:
        raise InputError(f"greedy_positions_mod needs a prime below 2**26 (int64 products), got {prime}")
    if len(rows) * len(rows[0]) <= _SMALL:
        return _greedy_positions_small(rows, prime)
    import numpy as np  # imported here: a small system's certificate needs no numpy

    W = np.array(rows, dtype=np.int64) % prime
    chosen = []
    for j in range(W.shape[0]):
        nz = np.flatnonzero(W[j])
        if nz.size == 0:
            return None
        col = int(nz[0])
        chosen.append(col)
        inv = pow(int(W[j, col]), -1, prime)
        if j + 1 < W.shape[0]:
            factors = (W[j + 1:, col] * inv) % prime
            W[j + 1:] = (W[j + 1:] - (factors[:, None] * W[j][None, :]) % prime) % prime
    return chosen


#: Up to this many entries the elimination runs on Python ints (same arithmetic, same columns), without numpy.
_SMALL = 4096


def _greedy_positions_small(rows, prime):
    """:func:`greedy_positions_mod` on Python ints: the same elimination, entry by entry."""
    W = [[int(v) % prime for v in row] for row in rows]
    chosen = []
    for j, row in enumerate(W):
        col = next((t for t, v in enumerate(row) if v), None)
        if col is None:
            return None
        chosen.append(col)
        inv = pow(row[col], -1, prime)
        for below in W[j + 1:]:
            factor = below[col] * inv % prime
            if factor:
                below[:] = [(b - factor * r) % prime for b, r in zip(below, row)]
    return chosen


def det_mod(matrix, prime):
    """Determinant of a square integer matrix modulo a prime, in ``[0, P)``.

    Parameters
    ----------
    matrix : list of list of int
        A square integer matrix.
    prime : int
        The modulus.

    Returns
    -------
    int
    """
    if len(matrix) == 0:
        return 1 % prime
    return int(nmod_matrix(matrix, prime).det()) % prime
