"""The table of layer kinds (symssm/sources/layer_kinds.py): every stage dispatches through it.

A new kind is one row and its own functions: the toy kind of tests/fixtures/shift_mixer.py, registered in
the table here, is read, written, certified exactly, typeset and computed in floats without a change to the
package; and no layer kind's name is written in the package outside its row (the checker keeps its own table).
"""

import ast
import importlib
import os
import sys

import pytest

from paths import ROOT
import symssm
from symssm.sources import layer_kinds

PACKAGE = os.path.dirname(symssm.__file__)
sys.path.insert(0, os.path.join(ROOT, "tests", "fixtures"))

#: Modules that still write layer kinds' names (none: the checker, which keeps its own dispatch, is not read).
NOT_YET = set()


def _literal_modules(text):
    found = set()
    for folder, _, files in os.walk(PACKAGE):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, PACKAGE)[:-3].replace(os.sep, "/")
                if rel.startswith("checker/"):
                    continue
                tree = ast.parse(open(path).read())
                if any(isinstance(node, ast.Constant) and node.value == text for node in ast.walk(tree)):
                    found.add(rel)
    return found


@pytest.mark.parametrize("name", layer_kinds.names())
def test_a_layer_kind_is_named_only_in_its_row(name):
    assert _literal_modules(name) - NOT_YET == {"sources/layer_kinds"}, name


def test_every_reference_names_a_function_of_its_stage():
    for row in layer_kinds.KINDS:
        for field, stage in layer_kinds.REFERENCES.items():
            reference = getattr(row, field)
            if reference is None:  # no exact blocks (softmax), no builder of its own, no family theorem
                assert field in ("exact", "certificate", "family_form") or (
                    field.startswith("family_") and row.family_reader is None), (row.name, field)
                continue
            module = reference.split(":")[0]
            assert module.split(".")[0] == stage, (row.name, field, reference)
            assert callable(row.load(field)), (row.name, field)


def test_a_stage_loads_only_layer_fields_of_its_stage_or_below():
    from test_architecture import STAGES, _modules

    for path, rel in _modules():
        source = open(path).read()
        if "layer_kinds" not in source:
            continue
        for node in ast.walk(ast.parse(source)):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "load"
                    and node.args and isinstance(node.args[0], ast.Constant)
                    and node.args[0].value in layer_kinds.REFERENCES and "of(" in ast.unparse(node.func.value)):
                target = layer_kinds.REFERENCES[node.args[0].value]
                assert rel[0] == target or STAGES[rel[0]] > STAGES[target], f"{path} loads {node.args[0].value}"


def test_the_checker_knows_the_same_layer_kinds():
    from symssm.checker import interaction

    assert interaction.LAYER_KINDS == layer_kinds.names()


@pytest.fixture
def toy(monkeypatch):
    shift_mixer = importlib.import_module("shift_mixer")
    monkeypatch.setattr(layer_kinds, "KINDS", layer_kinds.KINDS + (shift_mixer.ROW,))
    return shift_mixer


def test_a_new_layer_kind_is_one_row_and_its_own_functions(toy):
    from symssm.api import certify
    from symssm.certificate.interaction import interaction_data
    from symssm.exact.interaction import interaction_rank, operator_blocks
    from symssm.numeric.interaction import numeric_interaction_rank
    from symssm.render.latex import _render_checked
    from symssm.sources.layers import layer_from_data, layer_json

    layer = layer_from_data({"kind": "shift-mixer", "name": "toy", "n": 3, "K": [[1, 2]]})
    assert (layer.n, layer.p, layer.m) == (3, 1, 2)
    assert layer_json(layer) == {"kind": "shift-mixer", "name": "toy", "n": 3, "p": 1, "m": 2, "K": [["1", "2"]]}
    blocks = dict(operator_blocks(layer))
    assert len(blocks) == 6 and blocks[(2, 1)] == blocks[(3, 2)] == ((1, 2),) and not any(map(any, blocks[(3, 1)]))
    assert interaction_rank(layer) == 1
    assert numeric_interaction_rank(layer).numerical_rank == 1
    data = interaction_data(layer)
    assert data["interaction_rank"] == 1 and data["system"]["kind"] == "shift-mixer"
    # the independent checker has its own table: a kind it does not know is refused, never guessed
    assert not certify(layer, verify=False).check().verified
    tex = _render_checked(data)  # the renderer, on data a checker with the kind's obligations would verify
    assert "the shift mixer $y_i = K x_{i-1}$" in tex and "$r = 1$" in tex


def test_an_unknown_layer_kind_lists_the_table(toy):
    from symssm.errors import InputError
    from symssm.sources.layers import layer_from_data

    with pytest.raises(InputError, match="the layer kinds are selective-ssm, .*, operator, .*, mlstm, shift-mixer"):
        layer_from_data({"kind": "nonsense", "n": 1})
