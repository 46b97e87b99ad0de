"""The numeric path on a GPU (CuPy) gives the host's answers.  Skipped where CuPy or a GPU is missing (CI has none);
run on a GPU machine with ``python3 -m pytest -q tests/numeric/test_gpu.py``."""

import json

import numpy as np
import pytest

from symssm.cli import main
from symssm.errors import BackendError
from symssm.numeric.backend import get_namespace
from symssm.numeric.headcount import numeric_head_count

try:
    get_namespace("cuda")
    HAVE_GPU = True
except BackendError:
    HAVE_GPU = False

pytestmark = pytest.mark.skipif(not HAVE_GPU, reason="needs CuPy and a GPU")


def _stable(N, p, m, seed):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((N, N))
    A *= 0.9 / max(abs(np.linalg.eigvals(A)))
    return A, rng.standard_normal((N, m)), rng.standard_normal((p, N))


@pytest.mark.parametrize("N, n", [(8, 5), (64, 1000), (256, 10_000), (512, 1000)])
def test_cuda_matches_cpu(N, n):
    system = _stable(N, 4, 4, seed=N)
    cpu = numeric_head_count(system, n, device="cpu")
    gpu = numeric_head_count(system, n, device="cuda")
    assert gpu.numerical_head_count == cpu.numerical_head_count
    assert gpu.approximation_method == cpu.approximation_method
    assert np.allclose(gpu.approximation_error, cpu.approximation_error, rtol=1e-9, atol=1e-12)
    assert np.allclose(gpu.singular_values, cpu.singular_values, rtol=1e-9, atol=1e-12 * cpu.singular_values[0])


def test_cli_numeric_on_cuda(tmp_path, capsys):
    spec = tmp_path / "rot.json"
    spec.write_text('{"name": "rotation", "A": [[0, -1], [1, 0]], "B": [[1, 0], [0, 1]], "C": [[1, 0], [0, 1]], "n": 6}')
    assert main(["numeric", str(spec), "--device", "cuda", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["numerical_head_count"] == 2
