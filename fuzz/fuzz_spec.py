"""Coverage-guided fuzzing of the spec reader with atheris (pip install 'symssm[fuzz]').

    python fuzz/fuzz_spec.py -max_total_time=60 fuzz/corpus_spec

Any exception other than symssm's own SymssmError is a finding.
"""

import sys

import atheris

with atheris.instrument_imports():
    from symssm.errors import SymssmError
    from symssm.sources.spec import loads_spec


def TestOneInput(data):
    try:
        loads_spec(data)
    except SymssmError:
        pass


if __name__ == "__main__":
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()
