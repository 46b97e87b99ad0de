"""Sentences every theorem shares: the class it is about, spaces, ranges of lengths.

Each theorem defines the multi-head factorized class it uses, in its statement, so that it stands
on its own when pasted into a paper: the maps ``y_i = sum_j W_ij x_j`` with ``W_ij = sum_h alpha^h_ij V_h``,
value maps shared by all positions, scalar coefficients that may depend on the input.  A model represents a
system when their interaction operators agree for every input (:func:`represents`); what a count says about
the map itself depends on the coefficients and the dimensions (:func:`map_sentence`,
:func:`symssm.render.claims.map_necessity`).

Examples
--------
>>> space("\\\\mathbb{Q}", 1), space("\\\\mathbb{Q}", 3)
('\\\\mathbb{Q}', '\\\\mathbb{Q}^{3}')
>>> for_lengths(2, 2), for_lengths(2, None), for_lengths(0, 3)
('For sequences of length $n = 2$', 'For every sequence length $n \\\\ge 2$', 'For every sequence length $1 \\\\le n \\\\le 3$')
"""

from .tex import tex_count

__all__ = ["space", "matrix_space", "factorized_class", "represents", "map_sentence", "for_lengths", "length_range"]


def space(field, d):
    """``Q`` for one dimension, else ``Q^{d}``."""
    return field if d == 1 else f"{field}^{{{d}}}"


def matrix_space(field, p, m):
    """``Q^{p x m}``."""
    return f"{field}^{{{p}\\times {m}}}"


def factorized_class(field, p, m):
    """The sentence that defines the multi-head factorized class for ``p x m`` value maps over ``field``."""
    return ("Here a model of the multi-head factorized class with $H$ heads sends $x_1, \\dots, x_n$ to "
            "$y_i = \\sum_j W_{ij} x_j$ through its interaction operator $W_{ij} = \\sum_{h=1}^{H} \\alpha^h_{ij} V_h$: "
            f"value maps $V_1, \\dots, V_H \\in {matrix_space(field, p, m)}$ shared by all positions, and scalar "
            "coefficients $\\alpha^h_{ij}$, signed, unnormalised and allowed to depend on the input (an $H$-head "
            "attention layer is one, with $V_h = W_O^h W_V^h$).")


def represents(target, what="the SSM"):
    """The sentence that says what representing means: the interaction operators agree for every input.

    Examples
    --------
    >>> represents("L_{i-j}")[:40]
    'It represents the SSM when its interacti'
    """
    return (f"It represents {what} when its interaction operator is {what}'s for every input: "
            f"$W_{{ij}}(X) = {target}$ for every input $X$ and all $j \\le i$, and $W_{{ij}}(X) = 0$ for $j > i$.")


def map_sentence(necessity, p, m, k, what="the SSM"):
    """What the count says about the map itself (``sum_j W_ij(X) x_j`` equal to the outputs for every input).

    Parameters
    ----------
    necessity : {"any", "input-independent"}
        The claim's :attr:`~symssm.render.claims.Claim.map_necessity`.
    p, m : int
        The dimensions.
    k : str
        The count, in LaTeX (``"3"``, ``"k(n)"``).
    what : str
        The subject (``"the SSM"``).

    Examples
    --------
    >>> map_sentence("any", 1, 2, "2").startswith("As $p = 1$, the same holds for the map itself")
    True
    >>> "fewer heads" in map_sentence("input-independent", 2, 2, "3")
    True
    """
    if necessity == "any":
        dim = "m" if m == 1 else "p"
        return (f"As ${dim} = 1$, the same holds for the map itself: a model of the class, with coefficients that "
                f"depend on the input or not, computes {what}'s map on these sequences "
                f"($\\sum_j W_{{ij}}(X) x_j = y_i$ for every input) if and only if $H \\ge {k}$.")
    return ("For the map itself the same holds among models whose coefficients do not depend on the input: such a "
            f"model computes {what}'s map on these sequences ($\\sum_j W_{{ij}} x_j = y_i$ for every input) if and "
            f"only if $H \\ge {k}$. With coefficients that depend on the input and $p, m \\ge 2$, a map can need "
            "fewer heads than its operator, so necessity is claimed for the operator.")


def length_range(lo, hi, var="n"):
    """``n \\ge 2``, ``2 \\le n \\le 5`` or ``n = 3`` (math, no dollars); a sequence has length at least 1."""
    lo = max(1, lo)
    if hi is None:
        return f"{var} \\ge {tex_count(lo)}"
    if lo == hi:
        return f"{var} = {tex_count(lo)}"
    return f"{tex_count(lo)} \\le {var} \\le {tex_count(hi)}"


def for_lengths(lo, hi):
    """"For every sequence length $n \\ge 2$", or "For sequences of length $n = 2$" for a single length."""
    if hi is not None and max(1, lo) == hi:
        return f"For sequences of length ${length_range(lo, hi)}$"
    return f"For every sequence length ${length_range(lo, hi)}$"
