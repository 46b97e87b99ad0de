"""Many systems in one run: ``symssm batch IN.jsonl -o OUT.jsonl``, on local processes or a Dask cluster.

Each input line is one spec of any shape :mod:`symssm.sources.reader` recognises (a time-invariant SSM,
real or complex, a family with ``"parameters"``, a layer with a ``"kind"``, with or without parameters).  Each result is one JSON line: ``{"line", "name", "kind", "n", "head_count" (with
``"complete"`` for a family) or "interaction_rank", "verified", "certificate", "error"}``; a spec that cannot be certified gives its error as data, never a stop.

Results are appended to the output as they complete, one whole line at a time (signals held back
while a line is written), so an interrupted run loses nothing; a rerun reads what is there, skips the
lines already done and runs the rest, and first removes the temporary files a killed run may have left
in its output and certificate folders (:func:`symssm.formats.files.remove_stale_temporaries`).  When
every line is done the output is rewritten, atomically, in input order: an interrupted and resumed
batch ends with the same file as an uninterrupted one.  Workers import symssm once and then take
chunks of lines, so the import cost is paid once per worker, not once per system.

Examples
--------
>>> rows = run_lines(['{"A": [[0, -1], [1, 0]], "B": [[1, 0], [0, 1]], "C": [[1, 0], [0, 1]], "name": "rot"}'])
>>> rows[0]["head_count"], rows[0]["verified"], rows[0]["error"]
(2, True, None)
"""

import json
import os
import signal
import sys

from .errors import InputError, OutputError, SymssmError

__all__ = ["run_batch", "run_lines", "process_chunk", "MAX_LINE_BYTES"]

#: Longest input line (one spec) a batch accepts.
MAX_LINE_BYTES = 16 * 1024 * 1024
#: Lines handed to a worker at a time.
CHUNK = 16
#: Signals held back while the workers are forked: Ctrl-C, SIGTERM and the --max-seconds alarm take effect once
#: every worker runs, never inside a fork hook (where Python would print and drop what they raise).
_FORK_HELD = frozenset(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGALRM") if hasattr(signal, name))


def _certify_line(number, text, cert_dir, method):
    from .api import certify
    from .certificate import kinds
    from .formats.jsonio import loads_strict
    from .sources.reader import source_from_data

    what = f"line {number}"
    row = {"line": number, "name": None, "kind": None, "n": None, "verified": False, "certificate": None,
           "error": None}
    try:
        if len(text) > MAX_LINE_BYTES:
            raise InputError(f"{what} is {len(text)} bytes; the limit is {MAX_LINE_BYTES}")
        data = loads_strict(text, what=what)
        if isinstance(data, dict) and type(data.get("name")) is str and len(data["name"]) <= 200:
            row["name"] = data["name"]  # the spec's own name, also on a line that then fails
        source = source_from_data(data, what=what)  # every shape, recognised as every command does
        system, n = source.system, source.n
        kind = kinds.for_system(system)
        row.update(name=system.name, kind=kind.name, n=kind.length_of(system, n))
        cert = certify(system, n, method=method)
        if kind.count is not None:
            row[kind.count] = cert[kind.count]
        if kind.family:
            row["complete"] = cert["complete"]
        row["verified"] = cert.check().verified  # certify() verified it: its kept verdict
        if cert_dir is not None:
            path = os.path.join(cert_dir, f"{number:06d}.cert.json")
            cert.save(path)
            row["certificate"] = path
    except SymssmError as exc:
        row["error"] = str(exc)
    except (MemoryError, RecursionError) as exc:
        row["error"] = f"too large ({type(exc).__name__})"
    return row


def process_chunk(items, cert_dir=None, method="auto"):
    """Certify ``[(line_number, text), ...]``; returns one result dict per line (errors as data)."""
    return [_certify_line(number, text, cert_dir, method) for number, text in items]


def run_lines(lines, *, cert_dir=None, method="auto"):
    """Certify a list of spec texts in this process (numbered from 1); returns the result rows."""
    return process_chunk(list(enumerate(lines, start=1)), cert_dir, method)


def _read_input(path):
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except FileNotFoundError:
        raise InputError(f"batch input {path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"batch input {path} cannot be read ({str(exc)[:80]})") from None
    return [(i, text) for i, text in enumerate(lines, start=1) if text.strip()]


def _read_done(path):
    """Results already in the output (a torn last line from an interruption is dropped)."""
    done = {}
    if not os.path.exists(path):
        return done
    with open(path, encoding="utf-8") as fh:
        for text in fh:
            try:
                row = json.loads(text)
            except ValueError:
                continue
            if isinstance(row, dict) and isinstance(row.get("line"), int):
                done[row["line"]] = row
    return done


def _line(row):
    return json.dumps(row, sort_keys=True, ensure_ascii=True) + "\n"


def run_batch(input_path, output_path, *, cert_dir=None, workers=None, scheduler=None, method="auto",
              progress=True):
    """Run a batch (see the module docstring); returns ``(done, errors)`` counts.

    Raises
    ------
    InputError
        If the input cannot be read, or the output is not writable (or is the input).
    """
    from .checker.interrupts import raise_if_fired
    from .formats.files import atomic_write, check_output_path, remove_stale_temporaries, signals_held

    items = _read_input(input_path)
    check_output_path(output_path, inputs=(input_path,))
    if cert_dir is not None:
        if os.path.exists(cert_dir) and not os.path.isdir(cert_dir):
            raise OutputError(f"cannot write certificates into {cert_dir}: it is not a folder")
        os.makedirs(cert_dir, exist_ok=True)
        remove_stale_temporaries(cert_dir)
    remove_stale_temporaries(os.path.dirname(os.path.abspath(output_path)))
    done = _read_done(output_path)
    todo = [(n, t) for n, t in items if n not in done]
    chunks = [todo[i:i + CHUNK] for i in range(0, len(todo), CHUNK)]
    bar = _progress(len(items), len(items) - len(todo), progress)
    try:
        with open(output_path, "a", encoding="utf-8") as out:
            for rows in _results(chunks, cert_dir, method, workers, scheduler):
                with signals_held():  # whole lines: a signal takes effect after the flush
                    for row in rows:
                        out.write(_line(row))
                        done[row["line"]] = row
                    out.flush()
                bar.update(len(rows))
                raise_if_fired()
    finally:
        bar.close()  # an interrupted run leaves no half-drawn bar before its one line
    ordered = [done[n] for n, _ in items if n in done]
    atomic_write(output_path, "".join(_line(row) for row in ordered), inputs=(input_path,))
    return len(ordered), sum(1 for row in ordered if row["error"])


def _isatty(stream):
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _progress(total, initial, enabled):
    class _Quiet:
        def update(self, k):
            pass

        def close(self):
            pass

    # a bar only where a person watches: a terminal, or a Jupyter kernel (tqdm.auto draws a widget)
    if not enabled or not (_isatty(sys.stderr) or "ipykernel" in sys.modules):
        return _Quiet()
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency
        return _Quiet()
    return tqdm(total=total, initial=initial, unit="system", desc="symssm batch", leave=False)


def _results(chunks, cert_dir, method, workers, scheduler):
    """Yield the result rows of each chunk as it completes."""
    if not chunks:
        return
    if scheduler is not None:
        try:
            from distributed import Client, as_completed
        except ImportError:
            raise InputError("--scheduler needs Dask: pip install 'symssm[dask]'") from None
        try:
            client = Client(scheduler, timeout=30)
        except (OSError, TimeoutError) as exc:
            raise InputError(f"cannot reach the Dask scheduler at {scheduler} ({str(exc)[:80]})") from None
        try:
            futures = client.map(process_chunk, chunks, cert_dir=cert_dir, method=method, pure=False)
            for future in as_completed(futures):
                yield future.result()
        finally:
            client.close()
        return
    if workers is None:
        workers = os.cpu_count() or 1
    if workers <= 1 or len(chunks) == 1:
        for chunk in chunks:
            yield process_chunk(chunk, cert_dir, method)
        return
    from concurrent.futures import ProcessPoolExecutor, as_completed as done_first

    from .checker.interrupts import raise_if_fired
    from .formats.files import signals_held

    pool = None
    try:
        # The workers are forked with both signals blocked (they inherit the mask and unblock it once their own
        # handlers are set), and a signal to this process takes effect once they all run, never inside a fork.
        with signals_held(_FORK_HELD):
            pool = ProcessPoolExecutor(max_workers=workers, initializer=_worker_signals)
            futures = [pool.submit(process_chunk, chunk, cert_dir, method) for chunk in chunks]
        raise_if_fired()
        for future in done_first(futures):
            raise_if_fired()
            yield future.result()
    except BaseException:  # --max-seconds, Ctrl-C, SIGTERM, or the consumer stopped: end the workers now
        if pool is not None:
            _stop_pool(pool)
        raise
    pool.shutdown(wait=True)


def _worker_signals():
    """In a worker: Ctrl-C (sent to the whole process group) is the parent's to handle, and SIGTERM (how the parent
    ends a worker) ends it quietly, so an interrupted batch prints one line, not a traceback per worker."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):  # forked with them blocked (see _results): now they may come
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _FORK_HELD)


def _stop_pool(pool):
    """Cancel what has not started and end the worker processes (waiting for them could take the whole batch).

    Lines already written stay; the unfinished ones are simply absent, so the same command resumes them.
    """
    processes = list(getattr(pool, "_processes", {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in processes:
        try:
            proc.terminate()
        except (OSError, ValueError, AttributeError):
            pass
    for proc in processes:
        try:
            proc.join(2)
            if proc.is_alive():
                proc.kill()
                proc.join(2)
        except (OSError, ValueError, AttributeError, AssertionError):
            pass
