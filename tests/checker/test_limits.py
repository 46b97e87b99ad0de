"""The checker's limits: each defined once, and the same numbers as the generator's."""

import ast
import operator
import os

import symssm.checker
from symssm.checker import limits as C
from symssm.formats import limits as G

CHECKER = os.path.dirname(symssm.checker.__file__)


_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Pow: operator.pow}


def _number(node):
    """The value of a literal arithmetic expression (``2**31``, ``64 * 1024``), or None for anything else (a
    reference to another limit is not a definition)."""
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        left, right = _number(node.left), _number(node.right)
        return None if left is None or right is None else _OPERATORS[type(node.op)](left, right)
    return None


def _assigned_limits():
    """``{name: [(module, value)]}`` of every module-level ``MAX_* = <literal expression>`` in the checker."""
    found = {}
    for name in sorted(os.listdir(CHECKER)):
        if not name.endswith(".py"):
            continue
        tree = ast.parse(open(os.path.join(CHECKER, name)).read())
        for node in tree.body:
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                target, value = node.targets[0].id, _number(node.value)
                if target.startswith("MAX_") and value is not None:
                    found.setdefault(target, []).append((name, value))
    return found


def test_no_limit_is_defined_twice():
    """A limit that several modules apply is defined in checker/limits.py and imported; two modules may define a
    name only for two different limits (their values differ: MAX_TOKENS of a layer and of softmax attention)."""
    for name, places in _assigned_limits().items():
        values = [value for _, value in places]
        assert len(set(values)) == len(values), (name, places)


def test_the_shared_limits_are_imported_not_copied():
    from symssm.checker import approximate, gaussian, headcount, interaction, parametric, parametric_interaction
    from symssm.checker import reading, trained

    assert approximate.MAX_GRAM_WORK is C.MAX_GRAM_WORK and trained.MAX_GRAM_WORK is C.MAX_GRAM_WORK
    assert reading.MAX_DIM is C.MAX_DIM and interaction.MAX_DIM is C.MAX_DIM
    assert reading.MAX_ENTRIES is C.MAX_ENTRIES and gaussian.MAX_ENTRIES is C.MAX_ENTRIES
    assert parametric.MAX_CASES is C.MAX_CASES and parametric_interaction.MAX_CASES is C.MAX_CASES
    assert headcount.MAX_PRIME is C.MAX_PRIME and gaussian.MAX_PRIME is C.MAX_PRIME


def test_the_generator_and_the_checker_share_the_numbers():
    for name in ("MAX_DIM", "MAX_ENTRIES", "MAX_NAME", "MAX_N", "MAX_DEPTH", "MAX_CASES"):
        assert getattr(G, name) == getattr(C, name), name
    assert G.MAX_FILE_BYTES == C.MAX_BYTES


def test_the_kernel_stands_below_the_readers():
    """kernel.py (verdicts, ledger, strict JSON) imports no reader: the system reader and every obligation build
    on it."""
    tree = ast.parse(open(os.path.join(CHECKER, "kernel.py")).read())
    local = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level}
    assert local <= {"limits", "numbers", "bulk"}, local  # bulk: the fast path of strict JSON, no reader


def test_the_dispatch_tables_constants_are_the_modules():
    """The checker's table names Q(i) head counts and the gradient versions without importing those modules."""
    from symssm.checker import core, gaussian, gradient

    assert core.GAUSSIAN_FIELD == gaussian.FIELD
    assert core.KIND_VERSIONS["gradient-highway"] == gradient.GRADIENT_VERSIONS
