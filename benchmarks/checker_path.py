"""The head-count verdict's path through the checker: which modules it enters, their size, the lines it runs.

Runs ``symssm-check CERT`` (the checker's own command line, :func:`symssm.checker.cli.main`) on each certificate
with ``sys.settrace`` on, in the parent and in the forked child that does the check (the child's lines are
sent back through a file when it exits), on the standard-library path (``SYMSSM_CHECKER_PURE=1`` is set before
the checker is imported, so neither numpy nor python-flint is used). For each checker module entered it prints
its lines (``wc -l``), its lines of code (neither blank, nor comment, nor docstring) and the distinct lines
executed; the modules are split into

- the *reading path*: what a reader reads, in order, to trust the verdict (docs/checker.md walks it), and
- the *skippable* modules: the accelerators and bulk reader behind :mod:`symssm.checker.accel`, and the process
  harness (:mod:`.isolate`, :mod:`.interrupts`), which decide nothing about the claim.

    python benchmarks/checker_path.py                       # the rotation and a larger catalogue certificate
    python benchmarks/checker_path.py CERT.json ...          # other certificates
    python benchmarks/checker_path.py --json                 # one JSON object per certificate (tests read it)

Standard library only.
"""

import argparse
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
CHECKER = os.path.join(ROOT, "symssm", "checker")
DEFAULT = [os.path.join(ROOT, "certificates", name) for name in
           ("rotation-N2-p1-m1.json", "hippo-legs-N8-p3-m2.json")]

#: Modules a reader may skip: the accelerators' interface and the bulk reader, and the process harness.
SKIPPABLE = ("accel.py", "bulk.py", "isolate.py", "interrupts.py")


def _lines(path):
    with open(path, "rb") as fh:
        return fh.read().count(b"\n")


def _code_lines(path):
    """Lines that are neither blank, nor a comment, nor inside a docstring."""
    import ast

    with open(path) as fh:
        text = fh.read()
    doc = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef)) and ast.get_docstring(node) is not None:
            doc.update(range(node.body[0].lineno, node.body[0].end_lineno + 1))
    return sum(1 for i, line in enumerate(text.splitlines(), 1)
               if line.strip() and not line.strip().startswith("#") and i not in doc)


def trace(cert):
    """``{file name: sorted executed line numbers}`` of the checker's modules while ``symssm-check cert`` runs."""
    os.environ["SYMSSM_CHECKER_PURE"] = "1"
    hits = {}

    def local(frame, event, arg):
        if event == "line":
            hits.setdefault(frame.f_code.co_filename, set()).add(frame.f_lineno)
        return local

    def call(frame, event, arg):
        name = frame.f_code.co_filename
        if not name.startswith(CHECKER):
            return None
        hits.setdefault(name, set()).add(frame.f_lineno)
        return local

    fd, child_file = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    real_exit = os._exit

    def child_exit(code):  # the forked child ends with os._exit: send its lines to the parent first
        sys.settrace(None)
        with open(child_file, "w") as fh:
            json.dump({k: sorted(v) for k, v in hits.items()}, fh)
        real_exit(code)

    os._exit = child_exit
    sys.settrace(call)
    try:
        import symssm.checker.cli as cli

        code = cli.main([cert, "--quiet"])
    finally:
        sys.settrace(None)
        os._exit = real_exit
    with open(child_file) as fh:
        text = fh.read()
    os.unlink(child_file)
    for name, lines in (json.loads(text) if text else {}).items():
        hits.setdefault(name, set()).update(lines)
    return code, {os.path.relpath(k, CHECKER): sorted(v) for k, v in hits.items()}


def report(cert):
    """The path of one certificate as a dict (see the module docstring)."""
    code, hits = trace(cert)
    rows = []
    for name in sorted(hits):
        path = os.path.join(CHECKER, name)
        rows.append({"module": name, "lines": _lines(path), "code": _code_lines(path), "executed": len(hits[name]),
                     "skippable": name in SKIPPABLE})
    path = [r for r in rows if not r["skippable"]]
    return {"certificate": os.path.relpath(cert, ROOT) if cert.startswith(ROOT) else cert, "exit": code,
            "modules": rows, "path_modules": [r["module"] for r in path],
            "path_lines": sum(r["lines"] for r in path), "path_code": sum(r["code"] for r in path),
            "path_executed": sum(r["executed"] for r in path),
            "all_lines": sum(r["lines"] for r in rows), "all_executed": sum(r["executed"] for r in rows)}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("certificates", nargs="*", default=DEFAULT)
    parser.add_argument("--json", action="store_true", help="one JSON object per certificate")
    args = parser.parse_args(argv)
    for cert in args.certificates:
        # each certificate in a fresh interpreter: the modules a check imports are part of its path
        if len(args.certificates) > 1:
            import subprocess

            cmd = [sys.executable, os.path.abspath(__file__), cert] + (["--json"] if args.json else [])
            subprocess.run(cmd, check=True, env={**os.environ, "SYMSSM_CHECKER_PURE": "1"})
            continue
        out = report(cert)
        if args.json:
            print(json.dumps(out, sort_keys=True))
            continue
        print(f"{out['certificate']}: exit {out['exit']} (standard-library path, SYMSSM_CHECKER_PURE=1)")
        print(f"  {'module':<16} {'lines':>6} {'code':>6} {'executed':>9}")
        for r in out["modules"]:
            print(f"  {r['module']:<16} {r['lines']:>6} {r['code']:>6} {r['executed']:>9}"
                  + ("   (skippable)" if r["skippable"] else ""))
        print(f"  reading path: {len(out['path_modules'])} modules, {out['path_lines']} lines "
              f"({out['path_code']} of code: not blank, comment or docstring), {out['path_executed']} executed")
        print(f"  with the skippable modules: {len(out['modules'])} modules, {out['all_lines']} lines, "
              f"{out['all_executed']} executed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
