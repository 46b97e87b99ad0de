"""numpydoc on the public functions: every function in an ``__all__`` of api, sources, exact, certificate and the
checker's entry points documents its parameters, what it returns and what it raises."""

import ast
import os

import pytest

import symssm

PACKAGE = os.path.dirname(symssm.__file__)
#: The modules whose public functions must carry numpydoc sections.
DOCUMENTED = ["api.py", "sources", "exact", "certificate", "checker/core.py", "checker/cli.py", "checker/kernel.py",
              "checker/reading.py"]


def _modules():
    for target in DOCUMENTED:
        path = os.path.join(PACKAGE, target)
        if os.path.isdir(path):
            for name in sorted(os.listdir(path)):
                if name.endswith(".py") and name != "__init__.py":
                    yield f"{target}/{name}"
        else:
            yield target


def _own(node):
    """The nodes of a function's body, not those of functions or classes defined inside it."""
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            yield child
            yield from _own(child)


def _raises(node):
    """Whether a raise statement can leave the function (one inside a ``try`` body may be caught: not counted)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        if isinstance(child, ast.Raise):
            return True
        if isinstance(child, ast.Try):
            if any(_raises(part) for part in child.handlers + child.orelse + child.finalbody):
                return True
            continue
        if _raises(child):
            return True
    return False


def _missing(function):
    doc = ast.get_docstring(function) or ""
    arguments = function.args.args + function.args.kwonlyargs + [a for a in (function.args.vararg,
                                                                            function.args.kwarg) if a]
    returns = any(isinstance(n, ast.Return) and n.value is not None for n in _own(function))
    yields = any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in _own(function))
    missing = []
    if arguments and "Parameters\n" not in doc:
        missing.append("Parameters")
    if returns and "Returns\n" not in doc:
        missing.append("Returns")
    if yields and "Yields\n" not in doc:
        missing.append("Yields")
    if _raises(function) and "Raises\n" not in doc:
        missing.append("Raises")
    return missing


@pytest.mark.parametrize("module", list(_modules()))
def test_public_functions_have_numpydoc_sections(module):
    tree = ast.parse(open(os.path.join(PACKAGE, module)).read())
    public = next((node.value for node in tree.body if isinstance(node, ast.Assign)
                   and any(getattr(t, "id", None) == "__all__" for t in node.targets)), None)
    names = {e.value for e in public.elts} if public is not None else set()
    problems = [f"{node.name}: {', '.join(_missing(node))}" for node in tree.body
                if isinstance(node, ast.FunctionDef) and node.name in names and _missing(node)]
    assert not problems, f"{module}: " + "; ".join(problems)


def test_every_documented_module_declares_what_is_public():
    for module in _modules():
        tree = ast.parse(open(os.path.join(PACKAGE, module)).read())
        assert any(isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets)
                   for node in tree.body), module
