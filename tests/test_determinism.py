"""Same input, same bytes, on every machine: certificates do not depend on BLAS kernels or threads.

Each run regenerates the catalogue and a few fresh gradient certificates in a subprocess with
another OpenBLAS kernel or thread count, and compares the bytes with the committed catalogue and
with each other.
"""

import filecmp
import os
import subprocess
import sys

import pytest

from paths import ROOT

ENVIRONMENTS = {
    "prescott": {"OPENBLAS_CORETYPE": "Prescott"},
    "skylakex": {"OPENBLAS_CORETYPE": "SkylakeX"},
    "one-thread": {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "SYMSSM_THREADS": "1"},
}

SCRIPT = r"""
import sys
from symssm import gradient_certificate
from symssm.sources.families import random_system, hippo_legs, diagonal
out = sys.argv[1]
for system in (random_system(6, 2, 2, seed=3, low=-1, high=1), hippo_legs(12, 2, 1), diagonal(10, 3, 2)):
    try:
        cert = gradient_certificate(system, 500)
    except Exception as exc:
        open(f"{out}/{system.name}.txt", "w").write(type(exc).__name__ + ": " + str(exc))
    else:
        cert.save(f"{out}/{system.name}.gradient.json")
"""


def _run(env_extra, out, args):
    env = dict(os.environ, **env_extra, PYTHONPATH=ROOT)
    subprocess.run([sys.executable, *args], cwd=ROOT, env=env, check=True, capture_output=True, timeout=600)


@pytest.mark.parametrize("label", sorted(ENVIRONMENTS))
def test_catalogue_and_gradient_certificates_are_byte_identical_under_other_blas_settings(label, tmp_path):
    catalogue = tmp_path / "catalogue"
    _run(ENVIRONMENTS[label], catalogue, ["-m", "symssm", "catalog", "--out", str(catalogue)])
    committed = os.path.join(ROOT, "certificates")
    names = sorted(os.listdir(committed))
    assert sorted(os.listdir(catalogue)) == names
    match, mismatch, errors = filecmp.cmpfiles(committed, catalogue, names, shallow=False)
    assert not mismatch and not errors, (label, mismatch, errors)

    fresh = tmp_path / "fresh"
    fresh.mkdir()
    _run(ENVIRONMENTS[label], fresh, ["-c", SCRIPT, str(fresh)])
    reference = tmp_path / "reference"
    reference.mkdir()
    _run({}, reference, ["-c", SCRIPT, str(reference)])
    files = sorted(os.listdir(reference))
    assert files and sorted(os.listdir(fresh)) == files
    match, mismatch, errors = filecmp.cmpfiles(reference, fresh, files, shallow=False)
    assert not mismatch and not errors, (label, mismatch, errors)
