"""symssm batch: many specs, results as data, resumable, on processes or a Dask cluster."""

import json
import os
import random

import pytest

from symssm import certify, check
from symssm.batch import run_batch, run_lines
from symssm.cli import main
from symssm.sources.spec import loads_spec


def _specs(count, seed=0):
    rng = random.Random(seed)
    lines = []
    for i in range(count):
        N, p, m = rng.randint(1, 4), rng.randint(1, 2), rng.randint(1, 2)
        mat = lambda r, c: [[rng.randint(-2, 2) for _ in range(c)] for _ in range(r)]
        lines.append(json.dumps({"A": mat(N, N), "B": mat(N, m), "C": mat(p, N), "name": f"sys{i}", "n": 10}))
    lines.insert(3, "not json")
    lines.insert(7, json.dumps({"A": [[1]], "B": [[1]], "C": [[1, 2]]}))
    lines.append(json.dumps({"kind": "convolution", "n": 4, "kernel": [[[1]], [[2]]], "name": "conv"}))
    return lines


def _write(tmp_path, lines):
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_every_result_is_the_single_certify_answer_and_errors_are_data(tmp_path):
    lines = _specs(60)
    src = _write(tmp_path, lines)
    out = tmp_path / "out.jsonl"
    total, errors = run_batch(src, str(out), cert_dir=str(tmp_path / "certs"), workers=2, progress=False)
    rows = [json.loads(t) for t in out.read_text().splitlines()]
    assert total == len(rows) == len(lines) and errors == 2
    assert [r["line"] for r in rows] == list(range(1, len(lines) + 1))
    for row, text in zip(rows, lines):
        if row["error"]:
            assert row["line"] in (4, 8) and row["verified"] is False
            continue
        assert row["verified"] and check(row["certificate"]).verified
        if row["kind"] == "head-count":
            spec = loads_spec(text)
            assert row["head_count"] == certify(spec.system, spec.n)["head_count"]
        else:
            assert row["interaction_rank"] == 1  # scalar taps span one dimension
    assert "C is 1x2 but A is 1x1" in rows[7]["error"]


def test_an_interrupted_batch_resumed_gives_the_same_file(tmp_path):
    src = _write(tmp_path, _specs(80, seed=1))
    whole = tmp_path / "whole.jsonl"
    run_batch(src, str(whole), workers=2, progress=False)
    part = tmp_path / "part.jsonl"
    done = whole.read_text().splitlines()
    random.Random(2).shuffle(done)  # results arrive in completion order
    part.write_text("\n".join(done[:37]) + "\n" + done[37][:25])  # and the last line was torn
    run_batch(src, str(part), workers=2, progress=False)
    assert part.read_bytes() == whole.read_bytes()
    run_batch(src, str(part), workers=2, progress=False)  # a rerun of a finished batch changes nothing
    assert part.read_bytes() == whole.read_bytes()


def test_the_same_batch_on_a_local_dask_cluster(tmp_path):
    distributed = pytest.importorskip("distributed")
    src = _write(tmp_path, _specs(40, seed=3))
    local = tmp_path / "local.jsonl"
    run_batch(src, str(local), workers=1, progress=False)
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                       dashboard_address=None)
    try:
        assert main(["batch", src, "-o", str(tmp_path / "dask.jsonl"), "--scheduler", cluster.scheduler_address,
                     "--no-progress"]) == 0
    finally:
        cluster.close()
    assert (tmp_path / "dask.jsonl").read_bytes() == local.read_bytes()


def test_cli_errors(tmp_path, capsys):
    src = _write(tmp_path, _specs(3))
    assert main(["batch", str(tmp_path / "missing.jsonl"), "-o", str(tmp_path / "o.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["batch", src, "-o", src]) == 2
    assert "input" in capsys.readouterr().err


def test_run_lines_in_process():
    rows = run_lines(['{"A": [[0, 1], [0, 0]], "B": [[0], [1]], "C": [[1, 0]]}', "{}"])
    assert rows[0]["head_count"] == 1 and rows[1]["error"]


def test_a_budget_ends_a_batch_with_workers_and_a_rerun_loses_nothing(tmp_path, capsys):
    """--max-seconds with --workers 2 printed its error and then waited for every queued chunk."""
    import json
    import random
    import time

    from symssm.cli import main

    rng = random.Random(0)
    src = tmp_path / "in.jsonl"
    N = 140
    with open(src, "w") as fh:
        for i in range(64):
            fh.write(json.dumps({"name": f"s{i}", "A": [[rng.randint(-9, 9) for _ in range(N)] for _ in range(N)],
                                 "B": [[rng.randint(-9, 9) for _ in range(4)] for _ in range(N)],
                                 "C": [[rng.randint(-9, 9) for _ in range(N)] for _ in range(4)], "n": 100}) + "\n")
    out = tmp_path / "out.jsonl"
    start = time.monotonic()
    # A budget far below what starting two workers alone takes: the batch cannot finish inside it on any machine
    # (0.5 s did once the integer fast path made these 64 systems a 0.5 s batch).
    code = main(["batch", str(src), "-o", str(out), "--workers", "2", "--max-seconds", "0.02"])
    assert code == 2 and "max-seconds" in capsys.readouterr().err
    assert time.monotonic() - start < 120  # ended, not hung (the queued chunks alone take far longer to wait for)
    kept = out.read_text().splitlines() if out.exists() else []
    assert all(json.loads(line)["verified"] for line in kept)
    assert main(["batch", str(src), "-o", str(out), "--workers", "2"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["line"] for r in rows] == list(range(1, 65)) and all(r["verified"] for r in rows)


def test_ctrl_c_in_a_batch_with_workers_prints_one_line(tmp_path):
    """Ctrl-C reaches the whole process group: the workers printed a traceback each before "interrupted"."""
    import signal
    import subprocess
    import sys
    import time

    rng = random.Random(5)
    N = 90
    lines = [json.dumps({"A": [[rng.randint(-3, 3) for _ in range(N)] for _ in range(N)],
                         "B": [[rng.randint(-3, 3) for _ in range(6)] for _ in range(N)],
                         "C": [[rng.randint(-3, 3) for _ in range(N)] for _ in range(6)], "name": f"s{i}"})
             for i in range(40)]
    src = _write(tmp_path, lines)
    out = tmp_path / "out.jsonl"
    proc = subprocess.Popen([sys.executable, "-m", "symssm", "batch", src, "-o", str(out), "--workers", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                            env={**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.abspath(
                                __file__)))})
    deadline = time.monotonic() + 60
    while not (out.exists() and out.read_text()) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)  # the workers are running once the first result is written
    if proc.poll() is not None:
        pytest.skip("the batch finished before it could be interrupted")
    os.killpg(proc.pid, signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130 and stderr.decode() == "symssm: interrupted\n", stderr.decode()[-2000:]
    assert stdout == b""
