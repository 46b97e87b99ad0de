"""Exact arithmetic modulo a prime at BLAS speed: residues in float64 matrix products.

For a prime ``P < 2**21`` two residues multiply to less than ``2**42`` and a sum of up to ``2**11``
such products stays below ``2**53``, so a float64 GEMM over an inner dimension of at most 2048 is
*exact*; longer inner dimensions are split and reduced between the pieces.  Every result is an
integer in ``[0, P)``, so nothing here depends on the BLAS kernel, the CPU or the thread count.

* :func:`lags_mod` forms ``vec(L_d) mod P`` for all ``d < T`` by baby steps and giant steps,
  ``L_{i s + j} = (C A^{i s}) (A^j B)``: a few squarings and one large product per giant step
  instead of T sequential products.
* :func:`greedy_positions` finds the witness positions (columns with every leading principal minor
  nonzero) by blocked elimination whose work is matrix products.

Examples
--------
>>> import numpy as np
>>> P = 2097143
>>> A = np.array([[1.0, 2.0], [3.0, 4.0]])
>>> mulmod(A, A, P).tolist()
[[7.0, 10.0], [15.0, 22.0]]
"""

import numpy as np

__all__ = ["FLOAT_PRIME_LIMIT", "fmod", "mulmod", "residue_codes", "residue_array", "lags_mod", "greedy_positions",
           "greedy_profile", "baby_step"]

#: Primes for the float path are below this bound.
FLOAT_PRIME_LIMIT = 2**21
#: Longest inner dimension whose products are summed in one float64 GEMM (2^11 * 2^42 < 2^53).
_CHUNK = 2048


def fmod(X, prime):
    """``X mod P`` in ``[0, P)`` for a float64 array of integers with ``|X| < 2^53 - P``, exactly.

    ``q = floor(X / P)`` in floating point may be off by one near a multiple of P, but ``q P`` is
    then within P of X, so below 2^53 and exact, and ``X - q P`` is an exact integer in ``[-P, 2P)``,
    which one correction brings into range: the same residues as ``np.fmod`` on non-negative input,
    about ten times faster (``np.fmod`` calls the C library's exact fmod per element).  Every caller
    stays far inside the bound: sums of at most 2^11 products of residues below 2^21 are below
    2^53 - 2^33.

    Parameters
    ----------
    X : numpy.ndarray
        float64 integers with ``|X| < 2^53 - P``.
    prime : int
        The modulus.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> fmod(np.array([-1.0, 7.0, 2.0**52]), 5).tolist()
    [4.0, 2.0, 1.0]
    """
    R = X * (1.0 / prime)  # one new array, worked in place: a 1024 x 1024 residue matrix is 8 MB, and
    np.floor(R, out=R)  # allocating a temporary per step cost ten times the arithmetic
    R *= prime
    np.subtract(X, R, out=R)
    np.add(R, prime, out=R, where=R < 0)
    np.subtract(R, prime, out=R, where=R >= prime)
    return R


def mulmod(X, Y, prime):
    """``(X @ Y) mod P`` for float64 arrays of residues in ``[0, P)``, exactly (P < 2^21).

    Parameters
    ----------
    X, Y : numpy.ndarray
        float64 residues in ``[0, P)``.
    prime : int
        The modulus, below 2^21.

    Returns
    -------
    numpy.ndarray
    """
    k = X.shape[1]
    if k <= _CHUNK:
        return fmod(X @ Y, prime)
    out = np.zeros((X.shape[0], Y.shape[1]))
    for start in range(0, k, _CHUNK):
        out = fmod(out + fmod(X[:, start:start + _CHUNK] @ Y[start:start + _CHUNK], prime), prime)
    return out


def _residue(x, prime):
    return x.numerator % prime if x.denominator == 1 else x.numerator * pow(x.denominator, -1, prime) % prime


def residue_codes(values, codes, prime):
    """A matrix of Fractions (or ints) reduced mod P as a float64 array (P divides no denominator), from its
    distinct values and entry codes (``StateSpaceForm.entry_codes``): each distinct value is reduced once.

    Parameters
    ----------
    values : sequence of Fraction or int
        The matrix's distinct values.
    codes : numpy.ndarray
        Each entry's index into ``values``.
    prime : int
        The modulus.

    Returns
    -------
    numpy.ndarray
        float64 residues in ``[0, P)``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> residue_codes((Fraction(1, 2), Fraction(3)), np.array([[0, 1], [1, 1]]), 7).tolist()
    [[4.0, 3.0], [3.0, 3.0]]
    """
    return np.array([_residue(x, prime) for x in values], dtype=np.float64)[codes]


def residue_array(array, prime):
    """An integer numpy array reduced mod P, as float64 residues in ``[0, P)``.

    Parameters
    ----------
    array : numpy.ndarray
        Integers (an int64 matrix held by :class:`~symssm.sources.system.IntRows`).
    prime : int
        The modulus, below 2^26 (so the residues' products stay exact in float64).

    Returns
    -------
    numpy.ndarray
        float64 residues, the array's shape.

    Examples
    --------
    >>> residue_array(np.array([[-1, 7], [2, -9]]), 5).tolist()
    [[4.0, 2.0], [2.0, 1.0]]
    """
    return np.remainder(array, prime).astype(np.float64)


def baby_step(T, N, m, p):
    """The baby-step length ``s`` that balances the products of :func:`lags_mod` (at least 1).

    Parameters
    ----------
    T : int
        The number of lags.
    N, m, p : int
        The system's sizes.

    Returns
    -------
    int
    """
    best, best_cost = 1, None
    for s in range(1, T + 1):
        giants = -(-T // s)
        cost = s * N * N * m + max(0, s - 1).bit_length() * N ** 3 + giants * p * N * N + T * p * N * m
        if best_cost is None or cost < best_cost:
            best, best_cost = s, cost
        if s * s > 4 * T:
            break
    return best


def lags_mod(A, B, C, D, count, prime, *, deadline=None):
    """``vec(L_d) mod P`` for ``d < count`` as an int64 array of shape (count, p*m).

    ``A, B, C, D`` are float64 residue arrays (D may be None).  Baby steps ``A^j B`` (j < s), giant
    steps ``C A^{i s}``, then one product per giant step gives s lags at once.

    Parameters
    ----------
    A, B, C : numpy.ndarray
        float64 residue arrays.
    D : numpy.ndarray, optional
        The feed-through's residues.
    count : int
        How many lags.
    prime : int
        The modulus.
    deadline : Deadline, optional
        Checked between giant steps.

    Returns
    -------
    numpy.ndarray
        int64, shape (count, p*m).
    """
    N, m = B.shape
    p = C.shape[0]
    out = np.zeros((count, p * m), dtype=np.int64)
    if count == 0:
        return out
    s = min(baby_step(count, N, m, p), count)
    babies = [B]
    for _ in range(1, s):
        if deadline is not None:
            deadline.check("computing lags mod P (baby steps)")
        babies.append(mulmod(A, babies[-1], prime))
    stack = np.concatenate(babies, axis=1)  # N x (s m)
    As = None
    if count > s:  # A^s by repeated squaring
        base, e = A, s
        while e:
            if deadline is not None:
                deadline.check("computing lags mod P (A^s)")
            if e & 1:
                As = base if As is None else mulmod(As, base, prime)  # no product with the identity
            e >>= 1
            if e:
                base = mulmod(base, base, prime)
    G = C
    for start in range(0, count, s):
        if deadline is not None:
            deadline.check("computing lags mod P (giant steps)")
        block = mulmod(G, stack, prime)  # p x (s m): column block j is C A^{start} A^j B
        for j in range(min(s, count - start)):
            out[start + j] = block[:, j * m:(j + 1) * m].reshape(p * m).astype(np.int64)
        if start + s < count:
            G = mulmod(G, As, prime)
    if D is not None:
        out[0] = (out[0] + D.reshape(p * m).astype(np.int64)) % prime
    return out


def greedy_positions(rows, prime, *, block=64):
    """Columns ``t_1..t_k`` with every leading principal minor of ``rows[:, t]`` nonzero mod P.

    Returns None if the rows are dependent mod P (see :func:`greedy_profile`).

    Parameters
    ----------
    rows : numpy.ndarray
        Integer rows (residues).
    prime : int
        The modulus.
    block : int
        Rows processed per block.

    Returns
    -------
    list of int or None

    Examples
    --------
    >>> import numpy as np
    >>> greedy_positions(np.array([[0, 1, 2], [0, 1, 5]]), 7)
    [1, 2]
    """
    pivots, cols, _ = greedy_profile(rows, prime, block=block)
    return cols if len(pivots) == len(rows) else None


def greedy_profile(rows, prime, *, block=64):
    """Row rank profile, pivot columns and the minor's determinant mod P, in one elimination.

    Row s, reduced by the pivot rows before it so that it vanishes at their columns, is a pivot row
    when something is left, and takes its first nonzero column; a row reduced to zero is skipped.
    The minor ``rows[pivots][:, cols]`` then has every leading principal minor nonzero, and its
    determinant is the product of the pivot values (reducing a row by earlier rows keeps the
    determinant, and leaves the minor triangular in the chosen column order).  Rows are processed
    in blocks: a block is reduced against every earlier pivot row with one product, then row by row
    within the block; the earlier pivot rows are brought up to date with one product per block.

    Parameters
    ----------
    rows : numpy.ndarray
        Integer rows (residues).
    prime : int
        The modulus.
    block : int
        Rows processed per block.

    Returns
    -------
    (list of int, list of int, int)
        The pivot rows (the lexicographically first basis among the rows), their columns, and the
        determinant mod P.

    Examples
    --------
    >>> import numpy as np
    >>> greedy_profile(np.array([[0, 1, 2], [0, 2, 4], [0, 1, 5]]), 7)
    ([0, 2], [1, 2], 3)
    """
    R = fmod(np.asarray(rows, dtype=np.float64), prime)
    K, width = R.shape
    U = np.zeros((0, width))  # pivot rows, 1 at their own column and 0 at every other pivot column
    cols, pivots, det = [], [], 1
    for start in range(0, K, block):
        if len(cols) == width:
            break  # the pivot rows span every row: the rest reduce to zero
        Rb = R[start:start + block].copy()
        if cols:
            Rb = fmod(Rb - mulmod(Rb[:, cols], U, prime), prime)
        N_new = np.zeros((Rb.shape[0], width))  # this block's pivot rows, fully reduced among themselves
        new_cols = []
        for i in range(Rb.shape[0]):
            q = len(new_cols)
            if q:  # at most 64 products of residues per entry: exact in float64
                row = fmod(Rb[i] - N_new[:q].T @ Rb[i, new_cols], prime)
            else:
                row = Rb[i]
            nz = np.flatnonzero(row)
            if nz.size == 0:
                continue  # dependent on the pivot rows before it
            t = int(nz[0])
            value = int(row[t])
            det = det * value % prime
            row = fmod(row * pow(value, -1, prime), prime)
            if q:  # keep the block's pivot rows zero at the new column
                N_new[:q] = fmod(N_new[:q] - np.outer(N_new[:q, t], row), prime)
            N_new[q] = row
            new_cols.append(t)
            pivots.append(start + i)
        N_new = N_new[:len(new_cols)]
        if cols and new_cols:
            U = fmod(U - mulmod(U[:, new_cols], N_new, prime), prime)
        U = np.concatenate([U, N_new], axis=0)
        cols.extend(new_cols)
    return pivots, cols, det
