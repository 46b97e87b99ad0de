"""The layout's rules, read from the code: imports run downward, the checker stands alone, no circles."""

import ast
import os

import symssm

PACKAGE = os.path.dirname(symssm.__file__)

#: Stage of each top-level folder or module (docs/architecture.md); a module may import only
#: from stages strictly below its own, or from its own folder.
STAGES = {
    "errors": 0, "_version": 0,
    "formats": 1,
    "sources": 2,
    "exact": 3, "numeric": 3, "gradient": 3,
    "certificate": 4,
    "api": 5, "render": 5,
    "catalog": 6, "batch": 6, "audit": 6, "cli": 7, "__main__": 8, "__init__": 8,
    "families": 8, "layers": 8,  # facades: `from symssm.families import rotation` as the docs write it
    "checker": -1,
}
#: Same-stage imports that are allowed, and why (docs/architecture.md).
ALLOWED = {("api", "render"), ("certificate", "checker"), ("api", "checker")}


def _modules():
    for folder, _, files in os.walk(PACKAGE):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, PACKAGE)[:-3].split(os.sep)
                yield path, rel


def _imports(path, rel):
    """Top-level symssm parts imported by a module (absolute or relative)."""
    tree = ast.parse(open(path).read())
    package = rel[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)] if node.level > 1 else package
                parts = base + (node.module.split(".") if node.module else [])
                if not parts:  # "from . import x" at the top level
                    parts = [alias.name for alias in node.names]
                    for p in parts:
                        yield p
                    continue
                if node.module is None and len(base) >= 1:
                    yield base[0]
                    continue
                yield parts[0]
            elif node.module and node.module.split(".")[0] == "symssm":
                yield node.module.split(".")[1] if "." in node.module else "__init__"
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("symssm."):
                    yield alias.name.split(".")[1]


def test_every_module_belongs_to_a_stage():
    for _, rel in _modules():
        assert rel[0] in STAGES or rel[0] == "schema", rel


def test_imports_only_run_downward():
    for path, rel in _modules():
        here = rel[0]
        for target in _imports(path, rel):
            if target == here or target not in STAGES:
                continue
            if here == "checker":
                raise AssertionError(f"{path} (checker) imports symssm.{target}")
            if (here, target) in ALLOWED or here in ("__init__", "__main__"):
                continue
            assert STAGES[target] < STAGES[here] or target == "checker", f"{path}: stage {here} imports {target}"


FACADES = ("families.py", "layers.py")


def test_few_modules_at_the_top():
    top = [name for name in os.listdir(PACKAGE) if name.endswith(".py") and name not in FACADES]
    assert len(top) <= 8, top


def test_facades_only_re_export():
    """``symssm.families`` and ``symssm.layers`` hold no code of their own: imports and ``__all__``."""
    for name in FACADES:
        tree = ast.parse(open(os.path.join(PACKAGE, name)).read())
        for node in tree.body:
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                continue  # the docstring
            assert isinstance(node, (ast.ImportFrom, ast.Assign)), (name, ast.dump(node)[:80])
            if isinstance(node, ast.Assign):
                assert [t.id for t in node.targets] == ["__all__"], name


def _module_names():
    """``{dotted name: (path, is a package)}`` of every module of symssm (a package by its ``__init__.py``)."""
    root = os.path.dirname(PACKAGE)
    out = {}
    for path, rel in _modules():
        name = ["symssm"] + rel
        is_package = rel[-1] == "__init__"
        out[".".join(name[:-1] if is_package else name)] = (path, is_package)
    return out


def import_graph():
    """Every import between symssm's modules, at the top of a module or inside a function (a lazy import closes a
    circle as surely as an eager one): ``{module: set of modules it imports}``.  ``from . import x`` is an
    import of module ``x`` when there is one; an import of a name is an import of the module that defines it."""
    modules = _module_names()

    def owner(name):
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name

    graph = {}
    for me, (path, is_package) in modules.items():
        here = me if is_package else me.rpartition(".")[0]
        edges = graph.setdefault(me, set())
        for node in ast.walk(ast.parse(open(path).read())):
            targets = []
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = here.split(".")
                    base = ".".join(parts[:len(parts) - (node.level - 1)] + (node.module.split(".") if node.module else []))
                else:
                    base = node.module or ""
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for target in targets:
                target = owner(target) if target.split(".")[0] == "symssm" else None
                if target and target != me:
                    edges.add(target)
    return graph


def _cycle(graph):
    """One import circle of ``graph`` as a list of modules, or None (an iterative depth-first search)."""
    state = {}
    for start in graph:
        if start in state:
            continue
        stack, path = [(start, iter(sorted(graph[start])))], [start]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                path.pop()
                state[node] = 2
            elif state.get(child) == 1:
                return path[path.index(child):] + [child]
            elif child not in state:
                state[child] = 1
                stack.append((child, iter(sorted(graph.get(child, ())))))
                path.append(child)
    return None


def test_no_import_circles_anywhere():
    """No module of symssm (generator or checker) reaches itself through imports, lazy ones included."""
    graph = import_graph()
    assert "symssm.checker.spec" in graph["symssm.checker.polynomials"]  # the graph sees imports of names
    assert _cycle(graph) is None, " -> ".join(_cycle(graph))


def test_the_circle_finder_finds_a_circle():
    """The test above can fail: the circle the checker's number reader once closed (kernel -> numbers -> spec ->
    kernel, the middle import inside a function) is found when it is put back."""
    graph = {name: set(edges) for name, edges in import_graph().items()}
    graph["symssm.checker.numbers"].add("symssm.checker.spec")
    assert {"symssm.checker.kernel", "symssm.checker.spec"} <= set(_cycle(graph) or ())


# ---------------------------------------------------------------- the table of kinds (symssm/certificate/kinds.py)

def _literal_modules(text):
    """The generator modules (outside the checker) holding the string ``text`` as a literal of its own."""
    found = set()
    for path, rel in _modules():
        if rel[0] == "checker":
            continue
        tree = ast.parse(open(path).read())
        if any(isinstance(node, ast.Constant) and node.value == text for node in ast.walk(tree)):
            found.add("/".join(rel))
    return found


#: The modules that dispatch on kinds through the table: none of them tests a kind's name itself.
DISPATCHERS = {"api", "batch", "catalog", "render/latex", "render/style", "render/summary", "render/claims",
               "audit/core", "audit/statements", "cli/__init__", "cli/table", "cli/options", "cli/common",
               "cli/certify", "cli/certificates", "cli/numeric", "cli/catalogue"}


def test_each_kind_name_is_a_literal_in_at_most_three_places():
    """A kind's name is written in the table, in its own builders (``certificate/``) and in at most one consumer:
    everything else finds a certificate's row with ``kinds.of`` or ``kinds.for_system``."""
    from symssm.certificate import kinds

    for name in kinds.NAMES:
        found = _literal_modules(name)
        assert "certificate/kinds" in found, name
        others = {m for m in found if not m.startswith("certificate/")}
        assert len(others) <= 1, (name, sorted(others))
        assert not others & DISPATCHERS, (name, sorted(others & DISPATCHERS))


def test_the_table_names_functions_of_the_stage_each_field_belongs_to():
    import importlib

    from symssm.certificate import kinds

    for row in kinds.KINDS:
        for field, stage in kinds.REFERENCES.items():
            reference = getattr(row, field)
            if reference is None:
                assert field in ("values", "coq", "sentences"), (row.name, field)
                continue
            module, name = reference.split(":")
            assert module.split(".")[0] == stage, (row.name, field, reference)
            assert callable(getattr(importlib.import_module(f"symssm.{module}"), name)), (row.name, field)


def test_a_stage_loads_only_the_fields_of_its_stage_or_below():
    """``row.load("fragment")`` imports a renderer: only render and the stages above may ask for it."""
    from symssm.certificate import kinds

    for path, rel in _modules():
        tree = ast.parse(open(path).read())
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "load"
                    and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value in kinds.REFERENCES):
                target = kinds.REFERENCES[node.args[0].value]
                assert rel[0] == target or STAGES[rel[0]] > STAGES[target], f"{path} loads {node.args[0].value}"


def test_the_table_and_the_checker_know_the_same_kinds():
    import json
    from importlib import resources

    from symssm.certificate import envelope, kinds
    from symssm.checker import core

    assert envelope.KINDS == kinds.NAMES
    assert core.NAMES == kinds.NAMES and core.FIELDS == kinds.FIELDS
    assert set(core.KINDS) == {(row.name, row.field) for row in kinds.KINDS}
    assert core.AT_KINDS == tuple(row.name for row in kinds.KINDS if row.at)
    schema = json.loads(resources.files("symssm").joinpath("schema/certificate.schema.json").read_text())
    parts = [ref["$ref"].rsplit("/", 1)[1] for ref in schema["oneOf"]]
    assert parts == list(dict.fromkeys(row.schema for row in kinds.KINDS))
    for row in kinds.KINDS:
        kind = schema["$defs"][row.schema]["properties"]["kind"]
        assert kind.get("const", kind.get("enum", [None])[0]) == row.name, row.name
