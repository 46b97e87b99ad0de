"""Sentences every theorem shares: the class it is about, spaces, ranges of lengths.

Each theorem defines the multi-head factorized class it uses, in its statement, so that it stands
on its own when pasted into a paper: the maps ``y_i = sum_j W_ij x_j`` with ``W_ij = sum_l alpha^l_ij V_l``,
value maps shared by all positions, scalar coefficients that may depend on the input.  A model represents a
system when their interaction operators agree for every input (:func:`represents`); what a count says about
the map itself depends on the coefficients and the dimensions (:func:`map_sentence`,
:func:`symssm.render.claims.map_necessity`).  One letter has one meaning in a theorem: heads are indexed by
``\\ell`` (``u`` where a parameter is written with an ``l``), ``h`` is an SSM's hidden state (``s`` where a
parameter is written with an ``h``, such as a family's step).

Examples
--------
>>> space("\\\\mathbb{Q}", 1), space("\\\\mathbb{Q}", 3)
('\\\\mathbb{Q}', '\\\\mathbb{Q}^{3}')
>>> for_lengths(2, 2), for_lengths(2, None), for_lengths(0, 3)
('For sequences of length $n = 2$', 'For every sequence length $n \\\\ge 2$', 'For every sequence length $1 \\\\le n \\\\le 3$')
"""

import re

from .tex import tex_count

__all__ = ["space", "matrix_space", "factorized_class", "represents", "map_sentence", "for_lengths", "length_range",
           "state_symbol", "head_symbol"]


def _letters(parameters):
    """The letters the parameters are typeset with (``h1`` is ``h_{1}``: the letter ``h``)."""
    out = set()
    for name in parameters:
        m = re.match(r"[A-Za-z]+", str(name))
        if m:
            out.add(m.group(0) if not re.fullmatch(r"[A-Za-z][0-9_]*", str(name)) else m.group(0)[0])
    return out


def state_symbol(parameters=()):
    """The hidden state's letter: ``h``, unless a parameter of the theorem is written with it (``h``, ``h_{1}``):
    then ``s`` (or ``z``, ``w``).

    Examples
    --------
    >>> state_symbol(), state_symbol(["h"]), state_symbol(["h1", "h2"]), state_symbol(["h", "s"])
    ('h', 's', 's', 'z')
    """
    used = _letters(parameters)
    return next(x for x in ("h", "s", "z", "w") if x not in used)


def head_symbol(parameters=()):
    """The heads' index: ``\\ell``, unless a parameter is written with an ``l`` (``l_{1}``, which a reader could
    take for it): then ``u`` (or ``\\eta``).

    Examples
    --------
    >>> head_symbol(), head_symbol(["l1", "l2"])
    ('\\\\ell', 'u')
    """
    used = _letters(parameters)
    return next(x for x in ("\\ell", "u", "\\eta") if x.lstrip("\\") not in used and not (x == "\\ell" and "l" in used))


def space(field, d):
    """``Q`` for one dimension, else ``Q^{d}``."""
    return field if d == 1 else f"{field}^{{{d}}}"


def matrix_space(field, p, m):
    """``Q^{p x m}``."""
    return f"{field}^{{{p}\\times {m}}}"


def factorized_class(field, p, m, *, head="\\ell"):
    """The sentence that defines the multi-head factorized class for ``p x m`` value maps over ``field``, the heads
    indexed by ``head`` (:func:`head_symbol`)."""
    return _class_text(field, p, m).replace("\\ell", head)


def _class_text(field, p, m):
    return ("Here a model of the multi-head factorized class with $H$ heads sends $x_1, \\dots, x_n$ to "
            "$y_i = \\sum_j W_{ij} x_j$ through its interaction operator $W_{ij} = \\sum_{\\ell=1}^{H} "
            "\\alpha^\\ell_{ij} V_\\ell$: value maps $V_1, \\dots, V_H \\in " + matrix_space(field, p, m) + "$ shared "
            "by all positions, and scalar coefficients $\\alpha^\\ell_{ij}$, signed, unnormalised and allowed to "
            "depend on the input (an $H$-head attention layer is one, with $V_\\ell = W_O^\\ell W_V^\\ell$).")


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
