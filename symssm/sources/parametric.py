"""Systems whose entries are rational functions of parameters, and the built-in parametric families.

A parametric spec is an SSM spec with a ``"parameters"`` list; its entries are formulas in the
grammar of :mod:`symssm.formats.expressions` (or integers)::

    {"name": "rotation", "parameters": ["t"],
     "A": [["(1-t^2)/(1+t^2)", "-2*t/(1+t^2)"], ["2*t/(1+t^2)", "(1-t^2)/(1+t^2)"]],
     "B": [["1"], ["0"]], "C": [["1", "0"], ["0", "1"]], "n": 4}

The system is a point of ``QQ(params)^{N x N}`` etc.; it is *defined* at a parameter point where no
entry's reduced denominator vanishes.  The certificate's hash is taken over the formulas as
written (so a spec and its certificate are matched exactly), and the certificate lists every
entry's reduced numerator and denominator beside it.

Examples
--------
>>> fam = parametric_family("diagonal-symbolic", N=2)
>>> fam.parameters, fam.formulas["A"]
(('l1', 'l2'), (('l1', '0'), ('0', 'l2')))
>>> substitute(fam, "l1", "l2").formulas["A"]
(('l2', '0'), ('0', 'l2'))
"""

import hashlib
import json
from dataclasses import dataclass, field as dc_field
from functools import cached_property

from ..errors import InputError, ParseError, ShapeError
from ..formats.expressions import (check_parameters, flint_rational_text, formula_field, parameter_field,
                                   parse_formula, rational_function_text)
from ..formats.limits import MAX_PARAMETRIC_DIM, check_name, check_n

__all__ = ["ParametricSSM", "parametric_ssm", "is_parametric_spec", "parametric_from_data", "substitute",
           "drop_generator",
           "PARAMETRIC_FAMILIES", "PARAMETRIC_NOTES", "parametric_family"]

_KEYS = ("A", "B", "C", "D", "n", "name", "parameters")


@dataclass(frozen=True)
class ParametricSSM:
    """A state space model over ``Q(parameters)``.

    ``formulas`` holds the entries as written (the hashed form: ``{"A": rows, ..., "D": rows or None}``);
    ``pairs`` the same entries parsed, as reduced ``(numerator, denominator)`` pairs of python-flint
    polynomials (what the head-count engine works on).  ``A``..``D`` (``D`` None when absent) give the
    entries as elements of SymPy's ``QQ(parameters)`` (``field``); they are built on first use, so a
    spec is read and certified without importing SymPy.
    """

    name: str
    parameters: tuple
    formulas: dict
    pairs: dict = dc_field(repr=False, compare=False)

    @property
    def N(self):
        return len(self.formulas["A"])

    def __repr__(self):
        label = f" {self.name!r}" if self.name else ""
        return (f"<ParametricSSM{label} over Q({', '.join(self.parameters)}): N={self.N} m={self.m} p={self.p}"
                f"{' with D' if self.has_D else ''}>")

    def _repr_markdown_(self):
        """Jupyter: the parameters and the entries as written (matrices up to 8 x 8; larger ones by their size)."""
        def cell(text):
            return "`" + text.replace("`", "'") + "`"

        lines = [f"**Family with parameters** {cell(self.name) if self.name else ''} over "
                 f"Q({', '.join(self.parameters)}): N = {self.N}, m = {self.m}, p = {self.p}", ""]
        for key in ("A", "B", "C", "D"):
            rows = self.formulas[key]
            if rows is None:
                continue
            if len(rows) > 8 or len(rows[0]) > 8:
                lines.append(f"- {key}: {len(rows)} x {len(rows[0])}")
            else:
                lines.append(f"- {key} = " + "; ".join("[" + ", ".join(cell(x) for x in row) + "]" for row in rows))
        return "\n".join(lines)

    @property
    def m(self):
        return len(self.formulas["B"][0])

    @property
    def p(self):
        return len(self.formulas["C"])

    @property
    def has_D(self):
        """Whether the system has a feedthrough D (without building its SymPy entries)."""
        return self.formulas["D"] is not None

    @cached_property
    def field(self):
        """SymPy's ``QQ(parameters)`` (lex order in the parameters' order)."""
        return parameter_field(self.parameters)

    def _sympy(self, key):
        rows = self.formulas[key]
        return None if rows is None else tuple(tuple(parse_formula(x, self.field) for x in row) for row in rows)

    @cached_property
    def A(self):
        return self._sympy("A")

    @cached_property
    def B(self):
        return self._sympy("B")

    @cached_property
    def C(self):
        return self._sympy("C")

    @cached_property
    def D(self):
        return self._sympy("D")

    @property
    def canonical_text(self):
        """``{"A":..,"B":..,"C":..,"D":..,"parameters":[..]}`` compact, keys sorted, one newline."""
        data = {k: ([list(r) for r in self.formulas[k]] if self.formulas[k] is not None else None)
                for k in ("A", "B", "C", "D")}
        data["parameters"] = list(self.parameters)
        return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True) + "\n"

    @property
    def sha256(self):
        return hashlib.sha256(self.canonical_text.encode("ascii")).hexdigest()


def _matrix(name, rows, field, *, allow_none=False):
    if rows is None and allow_none:
        return None, None
    if not isinstance(rows, (list, tuple)) or not rows or not all(isinstance(r, (list, tuple)) and r for r in rows):
        raise ShapeError(f"{name} must be a non-empty list of non-empty rows")
    width = len(rows[0])
    if any(len(r) != width for r in rows):
        raise ShapeError(f"{name} has rows of different lengths")
    if len(rows) > MAX_PARAMETRIC_DIM or width > MAX_PARAMETRIC_DIM:
        raise ShapeError(f"{name} is {len(rows)} x {width}; parametric systems are limited to "
                         f"{MAX_PARAMETRIC_DIM} x {MAX_PARAMETRIC_DIM}")
    values, written = [], []
    for i, row in enumerate(rows):
        vrow, wrow = [], []
        for j, entry in enumerate(row):
            if type(entry) is bool or type(entry) not in (int, str):
                raise ParseError(f"{name}[{i}][{j}] must be a formula string or an integer")
            try:
                value = parse_formula(entry, field)
            except InputError as exc:
                exc.args = (f"{name}[{i}][{j}]: {exc}",)
                raise
            vrow.append((value.numer, value.denom))
            wrow.append(entry)
        values.append(tuple(vrow))
        written.append(tuple(wrow))
    return tuple(values), tuple(written)


def parametric_ssm(A, B, C, D=None, *, parameters, name=""):
    """Build a :class:`ParametricSSM` from formulas (strings in the grammar, or integers).

    An all-zero ``D`` is kept as written (it changes only the truncation, not the lags).

    Parameters
    ----------
    A, B, C : matrix-like
        Rows of formulas: strings in the grammar of :mod:`symssm.formats.expressions`, or integers.
    D : matrix-like, optional
        The feed-through.
    parameters : sequence of str
        The parameters' names, in order.
    name : str
        A label carried into certificates.

    Returns
    -------
    ParametricSSM

    Raises
    ------
    InputError
        If a formula is not in the grammar or names an undeclared parameter, the shapes do not
        agree, or a limit (``MAX_PARAMETERS``, ``MAX_PARAMETRIC_DIM``, formula limits) is exceeded.

    Examples
    --------
    >>> family = parametric_ssm([["t", 0], [0, 1]], [[1], [1]], [[1, 1]], parameters=["t"])
    >>> family.parameters, family.N
    (('t',), 2)
    """
    parameters = check_parameters(list(parameters))
    name = check_name(name)
    field = formula_field(parameters)
    a, wa = _matrix("A", A, field)
    b, wb = _matrix("B", B, field)
    c, wc = _matrix("C", C, field)
    d, wd = _matrix("D", D, field, allow_none=True)
    N = len(a)
    if len(a[0]) != N:
        raise ShapeError(f"A must be square, got {N} x {len(a[0])}")
    if len(b) != N:
        raise ShapeError(f"B must have N = {N} rows, got {len(b)}")
    if len(c[0]) != N:
        raise ShapeError(f"C must have N = {N} columns, got {len(c[0])}")
    if d is not None and (len(d) != len(c) or len(d[0]) != len(b[0])):
        raise ShapeError(f"D must be {len(c)} x {len(b[0])}")
    return ParametricSSM(name, parameters, {"A": wa, "B": wb, "C": wc, "D": wd}, {"A": a, "B": b, "C": c, "D": d})


def is_parametric_spec(data):
    """True if parsed spec JSON declares parameters (``"parameters"`` key).

    Parameters
    ----------
    data : object
        Parsed spec JSON.

    Returns
    -------
    bool
    """
    return isinstance(data, dict) and "parameters" in data


def parametric_from_data(data, *, what="spec"):
    """``(system, n)`` from a parsed parametric spec.

    Parameters
    ----------
    data : object
        Parsed spec JSON with ``"parameters"``.
    what : str
        How messages name it.

    Returns
    -------
    tuple
        ``(system, n)``: the :class:`ParametricSSM` and the spec's ``n`` (None when absent).

    Raises
    ------
    InputError
        If a key is unknown or missing, ``n`` or ``name`` is invalid, or the system is invalid
        (:func:`parametric_ssm`); the message starts with ``what``.
    """
    try:
        if not isinstance(data, dict):
            raise ParseError("must be a JSON object")
        unknown = sorted(k for k in data if k not in _KEYS)
        if unknown:
            raise ParseError(f"unknown key {unknown[0]!r} (allowed: {', '.join(_KEYS)})")
        for key in ("A", "B", "C"):
            if key not in data:
                raise ParseError(f"no matrix {key}")
        n = data.get("n")
        if n is not None:
            check_n(n, what="n")
        system = parametric_ssm(data["A"], data["B"], data["C"], data.get("D"), parameters=data["parameters"],
                                name=data.get("name", ""))
    except InputError as exc:
        exc.args = (f"{what}: {exc}",)
        raise
    return system, n


def drop_generator(poly, index, child_ring):
    """A polynomial free of generator ``index``, re-expressed in ``child_ring`` (the ring without it).

    Parameters
    ----------
    poly : fmpq_mpoly
        A polynomial that does not involve generator ``index``.
    index : int
        The generator to drop.
    child_ring : fmpq_mpoly_ctx
        The ring without it.

    Returns
    -------
    fmpq_mpoly
    """
    terms = {mon[:index] + mon[index + 1:]: coeff for mon, coeff in poly.terms()}
    return child_ring.from_dict(terms) if terms else child_ring.zero


def _to_child(poly, index, value, child_ring):
    """``poly`` (a parent polynomial) with generator ``index`` replaced by ``value``, in ``child_ring``."""
    parent = poly.ring
    return drop_generator(poly.compose(parent.gens[index], value) if parent.ngens else poly, index, child_ring)


def substitute(system, name, value):
    """The family with parameter ``name`` replaced by ``value`` (a polynomial formula in the others).

    Entries become reduced fractions of the child field; their formulas are the canonical texts.

    Parameters
    ----------
    system : ParametricSSM
        The family.
    name : str
        One of its parameters.
    value : str
        A polynomial formula in the other parameters.

    Returns
    -------
    ParametricSSM
        The child family, without ``name``.

    Raises
    ------
    InputError
        If ``name`` is not a parameter, ``value`` mentions ``name`` or is not a polynomial, or a
        denominator vanishes identically after the substitution (the family is undefined there).
    """
    if name not in system.parameters:
        raise InputError(f"{name!r} is not a parameter of {system.name or 'the system'}")
    index = system.parameters.index(name)
    rest = tuple(x for x in system.parameters if x != name)
    child = parameter_field(rest)
    if isinstance(value, str):
        value = parse_formula(value, child)
    if not value.denom.is_ground:
        raise InputError("a substituted value must be a polynomial in the other parameters")
    parent_value = _lift(value.numer * (1 / value.denom.LC), system.field.ring, rest, system.parameters)
    out = {}
    for key in ("A", "B", "C", "D"):
        mat = getattr(system, key)
        if mat is None:
            out[key] = None
            continue
        rows = []
        for row in mat:
            new = []
            for entry in row:
                num = _to_child(entry.numer, index, parent_value, child.ring)
                den = _to_child(entry.denom, index, parent_value, child.ring)
                if den.is_zero:
                    raise InputError(f"the family is undefined where {name} = {value}: a denominator vanishes")
                new.append(rational_function_text(child(num) / child(den)))
            rows.append(new)
        out[key] = rows
    return parametric_ssm(out["A"], out["B"], out["C"], out["D"], parameters=rest, name=system.name)


def _lift(poly, parent_ring, child_names, parent_names):
    """A polynomial in the child's generators, re-expressed in the parent ring."""
    positions = [parent_names.index(x) for x in child_names]
    terms = {}
    for mon, coeff in poly.terms():
        full = [0] * len(parent_names)
        for pos, e in zip(positions, mon):
            full[pos] = e
        terms[tuple(full)] = coeff
    return parent_ring.from_dict(terms) if terms else parent_ring.zero


# ---------------------------------------------------------------- built-in parametric families

def _names(prefix, count):
    return [f"{prefix}{i}" for i in range(1, count + 1)]


def _identity(N, cols=None):
    cols = N if cols is None else cols
    return [["1" if i == j else "0" for j in range(cols)] for i in range(N)]


def _rotation(N=2, **_):
    """Rotation by theta with t = tan(theta/2): A = [[(1-t^2)/(1+t^2), -2t/(1+t^2)], [...]], B = e1, C = I."""
    c, s = "(1-t^2)/(1+t^2)", "2*t/(1+t^2)"
    return parametric_ssm([[c, f"-{s}"], [s, c]], [["1"], ["0"]], _identity(2), parameters=["t"],
                          name="rotation by 2 arctan t")


def _diagonal(N=3, **_):
    """diag(l1..lN), B = ones, C = I: as many heads as distinct eigenvalues (Vandermonde)."""
    names = _names("l", N)
    A = [[names[i] if i == j else "0" for j in range(N)] for i in range(N)]
    return parametric_ssm(A, [["1"] for _ in range(N)], _identity(N), parameters=names,
                          name=f"diagonal with symbolic eigenvalues, N = {N}")


def _companion(N=3, **_):
    """Companion matrix of x^N + a{N-1} x^{N-1} + ... + a0, B = e_N, C = I."""
    names = [f"a{i}" for i in range(N)]
    A = [["0"] * N for _ in range(N)]
    for i in range(N - 1):
        A[i][i + 1] = "1"
    A[N - 1] = [f"-{x}" for x in names]
    B = [["1" if i == N - 1 else "0"] for i in range(N)]
    return parametric_ssm(A, B, _identity(N), parameters=names,
                          name=f"companion with symbolic coefficients, N = {N}")


def _jordan(N=2, **_):
    """Jordan block [[a, 1], [0, a]], B = e2, C = I: two heads for every a."""
    return parametric_ssm([["a", "1"], ["0", "a"]], [["0"], ["1"]], _identity(2), parameters=["a"],
                          name="Jordan block with symbolic eigenvalue")


def _bilinear_family(A, B, label, N):
    """Abar = (I - h/2 A)^-1 (I + h/2 A), Bbar = (I - h/2 A)^-1 h B over Q(h); C = I."""
    field = formula_field(["h"])
    h = field.gens[0]
    half = h / 2
    left = [[(1 if i == j else 0) - half * A[i][j] for j in range(N)] for i in range(N)]
    right = [[(1 if i == j else 0) + half * A[i][j] for j in range(N)] for i in range(N)]
    inv = _inverse(left, field)
    abar = [[sum((inv[i][t] * right[t][j] for t in range(N)), field.constant(0)) for j in range(N)] for i in range(N)]
    bbar = [[sum((inv[i][t] * (h * B[t][j]) for t in range(N)), field.constant(0)) for j in range(len(B[0]))]
            for i in range(N)]
    text = [[flint_rational_text(x.numer, x.denom) for x in row] for row in abar]
    btext = [[flint_rational_text(x.numer, x.denom) for x in row] for row in bbar]
    return parametric_ssm(text, btext, _identity(N), parameters=["h"],
                          name=f"{label}, bilinear step h, N = {N}")


def _inverse(M, field):
    """The inverse of a square matrix over ``field`` (Gauss-Jordan; the built-in families' are invertible)."""
    N = len(M)
    rows = [list(M[i]) + [field.constant(1 if i == j else 0) for j in range(N)] for i in range(N)]
    for c in range(N):
        pivot = next(r for r in range(c, N) if rows[r][c] != 0)
        rows[c], rows[pivot] = rows[pivot], rows[c]
        inverse = 1 / rows[c][c]
        rows[c] = [x * inverse for x in rows[c]]
        for r in range(N):
            if r != c and rows[r][c] != 0:
                f = rows[r][c]
                rows[r] = [x - f * y for x, y in zip(rows[r], rows[c])]
    return [row[N:] for row in rows]


def _hippo_legs(N=3, **_):
    """HiPPO-LegS (rational form A_nk = -(2k+1) below, -(n+1) on the diagonal, B = ones), bilinear step h."""
    A = [[-(2 * k + 1) if n > k else (-(n + 1) if n == k else 0) for k in range(N)] for n in range(N)]
    return _bilinear_family(A, [[1] for _ in range(N)], "HiPPO-LegS", N)


def _hippo_legt(N=3, **_):
    """HiPPO-LegT (rational form A_nk = -(2k+1) (-1)^(n-k) for n < k, else -(2k+1); B = ones), step h."""
    A = [[-(2 * k + 1) * ((-1) ** (k - n) if n < k else 1) for k in range(N)] for n in range(N)]
    return _bilinear_family(A, [[1] for _ in range(N)], "HiPPO-LegT", N)


def _s4d_real(N=3, **_):
    """S4D-Real A = diag(-(n+1)), B = ones, bilinear step h."""
    A = [[-(n + 1) if n == k else 0 for k in range(N)] for n in range(N)]
    return _bilinear_family(A, [[1] for _ in range(N)], "S4D-Real", N)


def _generic(N=2, p=1, m=1, **_):
    """Every entry of A (a11..), B (b11..) and C (c11..) a parameter: the generic head count min(n, pm, N)."""
    def mat(letter, rows, cols):
        return [[f"{letter}{i + 1}{j + 1}" for j in range(cols)] for i in range(rows)]

    A, B, C = mat("a", N, N), mat("b", N, m), mat("c", p, N)
    names = [x for M in (A, B, C) for row in M for x in row]
    return parametric_ssm(A, B, C, parameters=names, name=f"generic {N}-state system, p = {p}, m = {m}")


#: Built-in parametric families: name -> (builder, default N, largest N).
PARAMETRIC_FAMILIES = {
    "rotation-symbolic": (_rotation, 2, 2),
    "diagonal-symbolic": (_diagonal, 3, 5),
    "companion-symbolic": (_companion, 3, 8),
    "jordan-symbolic": (_jordan, 2, 2),
    "hippo-legs-step": (_hippo_legs, 3, 8),
    "hippo-legt-step": (_hippo_legt, 3, 8),
    "s4d-real-step": (_s4d_real, 3, 8),
    "generic-symbolic": (_generic, 2, 3),
}

#: One line per parametric family (shown by ``symssm families``).
PARAMETRIC_NOTES = {name: (builder.__doc__ or name).splitlines()[0] for name, (builder, _, _) in PARAMETRIC_FAMILIES.items()}


def parametric_family(name, *, N=None, p=None, m=None):
    """Build a built-in parametric family.

    Parameters
    ----------
    name : str
        One of :data:`PARAMETRIC_FAMILIES`.
    N : int, optional
        The state dimension (each family has a default).
    p, m : int, optional
        The output and input dimensions (``generic-symbolic`` only).

    Returns
    -------
    ParametricSSM

    Raises
    ------
    InputError
        If the family is unknown, or ``N`` (or ``p``, ``m`` for ``generic-symbolic``) is out of range.

    Examples
    --------
    >>> family = parametric_family("rotation-symbolic")
    >>> family.parameters, family.N
    (('t',), 2)
    """
    if name not in PARAMETRIC_FAMILIES:
        raise InputError(f"unknown parametric family {name!r}; choose one of {', '.join(PARAMETRIC_FAMILIES)}")
    builder, default, largest = PARAMETRIC_FAMILIES[name]
    N = default if N is None else N
    if not 1 <= N <= largest or (name in ("rotation-symbolic", "jordan-symbolic") and N != 2):
        raise InputError(f"family {name} is built for N from {1 if largest > 2 else 2} to {largest}, got {N}")
    if name == "generic-symbolic":
        p, m = p or 1, m or 1
        if not (1 <= p <= 3 and 1 <= m <= 3):
            raise InputError("generic-symbolic is built for p, m from 1 to 3")
        return builder(N, p, m)
    if (p or 1) != 1 or (m or 1) != 1:
        raise InputError(f"family {name} has fixed p and m; --p and --m apply to generic-symbolic")
    return builder(N)
