"""Coverage-guided fuzzing of the checker's parser and obligations with atheris.

    python fuzz/fuzz_checker.py -max_total_time=60 fuzz/corpus_checker

The checker must return a result (0, 1 or 2) for every input and never raise.  Seeds: the
certificate fixtures (copied into the corpus folder by the command in docs/robustness.md).
"""

import sys

import atheris

with atheris.instrument_imports():
    from symssm.checker.core import check_data
    from symssm.checker.reading import Unreadable, parse_json


def TestOneInput(data):
    try:
        cert = parse_json(data, "input")
    except Unreadable:
        return
    result = check_data(cert)
    if result.code not in (0, 1, 2):
        raise AssertionError(result)
    if result.code == 0 and isinstance(cert, dict) and cert.get("kind") == "head-count":
        # Anything accepted must at least claim a consistent head count.
        assert cert["head_count"] == cert["heads"]["H"]


if __name__ == "__main__":
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()
