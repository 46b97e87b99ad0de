"""One strict reader of numbers in every kind: canonical texts only, and a JSON boolean is never a number.

Every number field of one small certificate per kind (``test_malformed_fields.CERTS``) is given texts that a
loose reader (``x.lstrip("-").isdigit()``, ``int(x)``) would let through or trip over: ``"--158"``, ``"²"``
(a digit to ``str.isdigit``), ``"007"``, ``" 1"``, ``"1 "``, ``"+1"``, ``"-0"``; every integer field is given
``true`` and ``false`` (``True == 1`` in Python).  None verifies; each is unreadable, exit 2, naming the very field
that was changed (``malformed certificate: <field>: ...``), never a rejection of the obligation it happened to
break and never the checker's last-resort handler.
"""

import json
import os
import re
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from symssm.checker.core import check_data
from symssm.checker.numbers import NumberError, canonical_integer, canonical_rational
from test_malformed_fields import CERTS, _paths

BAD_TEXTS = ["--158", "\u00b2", "007", " 1", "1 ", "+1", "-0", "1/-2", "2/4", "3/1", "\uff11"]
NUMBER = re.compile(r"-?(0|[1-9][0-9]*)(/[1-9][0-9]*)?\Z")


def _set(data, path, value):
    """``data`` as its JSON text reads (no two fields sharing one list), with the field at ``path`` set to ``value``."""
    mutant = json.loads(json.dumps(data))
    parent = mutant
    for key in path[:-1]:
        parent = parent[key]
    parent[path[-1]] = value
    return mutant


def _fields(data, test):
    out = []
    for path in _paths(data)[1:]:
        value = data
        for key in path:
            value = value[key]
        if test(value):
            out.append(path)
    return out


def field_name(path):
    """How the checker names the field at ``path``: ``lower_bound.minor[0][1]``."""
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else key)
    return out


def _malformed_naming(result, path):
    return result.code == 2 and result.message.startswith(f"malformed certificate: {field_name(path)}: ")


def _sample(paths, most=12):
    """At most ``most`` paths, spread over the certificate (the big systems' entries are many)."""
    step = max(1, len(paths) // most)
    return paths[::step][:most]


@pytest.mark.parametrize("bad", BAD_TEXTS)
def test_the_readers_refuse_loose_texts(bad):
    for read in (canonical_integer, canonical_rational):
        with pytest.raises(NumberError):
            read(bad)


def test_the_readers_take_canonical_texts():
    assert canonical_integer("-158") == -158 and canonical_integer("0") == 0
    assert canonical_rational("-3/4").denominator == 4 and canonical_rational("12") == 12


#: Kinds whose texts are formulas in parameters (docs/parametric.md), read by value by the formula grammar, which
#: allows blanks and expressions (``"2/4"``, ``" 1"``): their number fields are not canonical number texts.
FORMULA_KINDS = ("parametric-head-count", "parametric-interaction-rank")


@pytest.mark.parametrize("kind", sorted(k for k in CERTS if not k.startswith(FORMULA_KINDS)))
def test_loose_number_texts_are_malformed_naming_the_field(kind):
    data = CERTS[kind]
    texts = _sample(_fields(data, lambda v: type(v) is str and NUMBER.match(v) is not None and len(v) < 40))
    for path in texts:
        for bad in BAD_TEXTS:
            result = check_data(_set(data, path, bad))
            assert _malformed_naming(result, path), (kind, path, bad, result.code, result.message)


def test_a_family_s_envelope_numbers_are_held_to_the_grammar():
    """In the formula kinds a number of the envelope (``n``) is no formula: ``"--158"`` there is malformed too."""
    for kind in (k for k in CERTS if k.startswith(FORMULA_KINDS)):
        result = check_data(_set(CERTS[kind], ("n",), "--158")) if "n" in CERTS[kind] else None
        assert result is None or _malformed_naming(result, ("n",)), (kind, result.message)


@pytest.mark.parametrize("kind", sorted(CERTS))
def test_a_boolean_is_never_a_number(kind):
    data = CERTS[kind]
    for path in _sample(_fields(data, lambda v: type(v) is int), 40):
        for flag in (True, False):
            result = check_data(_set(data, path, flag))
            assert _malformed_naming(result, path), (kind, path, flag, result.code, result.message)


def test_the_field_names_are_the_checker_s():
    assert field_name(("lower_bound", "minor", 0, 1)) == "lower_bound.minor[0][1]"
    assert field_name(("n",)) == "n"


def test_undecided_at_false_is_not_zero():
    """A count withheld at H = 0 (the bracket of e_0 straddles the tolerance): ``undecided_at`` must be the
    integer 0; ``false`` (``False == 0``) and ``0.0``-like texts are refused."""
    from fractions import Fraction

    from symssm.checker.approximate import check_claim
    from symssm.checker.kernel import Ledger, Rejected

    lowers, uppers, tol = [Fraction(1, 4)], [Fraction(2), Fraction(1, 10)], Fraction(1, 2)
    check_claim(Ledger(), {"head_count": None, "undecided_at": 0}, lowers, uppers, tol, "x")
    for wrong in (False, "0", None):
        with pytest.raises(Rejected, match="head_count"):
            check_claim(Ledger(), {"head_count": None, "undecided_at": wrong}, lowers, uppers, tol, "x")
    with pytest.raises(Rejected, match="head_count"):  # and a count of False is not a count of 0
        check_claim(Ledger(), {"head_count": False, "undecided_at": None}, [], [Fraction(1, 10)], tol, "x")
