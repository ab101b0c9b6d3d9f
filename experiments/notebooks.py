"""Re-execute the notebooks in place, top to bottom, so they are committed with the
outputs of a full run (``RUMMY_NOTEBOOK_SMOKE=1``, ``--smoke``: the tiny budgets the tests
use)::

    python -m experiments.notebooks                 # every notebook in notebooks/
    python -m experiments.notebooks 03_tournament   # one of them
    git add notebooks && git commit -m "notebooks: re-executed"

Needs the ``notebooks`` extra (``pip install -e '.[notebooks]'``). Each notebook runs in a
fresh kernel from the repository root; a cell that fails stops it and leaves the file as
it was.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"


def execute(path: Path, smoke: bool = False, timeout: int = 1800) -> float:
    """Run ``path`` top to bottom in a fresh kernel and write it back with its outputs;
    the seconds it took. Raises the cell's error (the file unchanged) when one fails."""
    import nbclient
    import nbformat

    nb = nbformat.read(path, as_version=4)
    env = {"RUMMY_NOTEBOOK_SMOKE": "1" if smoke else "0", "MPLBACKEND": "Agg"}
    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    start = time.perf_counter()
    try:
        nbclient.NotebookClient(
            nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(ROOT)}}
        ).execute()
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    for cell in nb.cells:  # (no timings in the committed file: a rerun changes only outputs)
        cell.get("metadata", {}).pop("execution", None)
    nbformat.write(nb, path)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m experiments.notebooks",
        description="Re-execute the notebooks in place, top to bottom, with the outputs of a "
        "full run, ready to commit.",
    )
    ap.add_argument(
        "names",
        nargs="*",
        help="notebooks to run, by file name with or without .ipynb (default: all of them)",
    )
    ap.add_argument(
        "--smoke", action="store_true", help="the tiny budgets the tests use (a quick check)"
    )
    ap.add_argument(
        "--timeout", type=int, default=1800, help="seconds a cell may run (default: 1800)"
    )
    args = ap.parse_args(argv)
    known = {p.stem: p for p in sorted(NOTEBOOKS.glob("*.ipynb"))}
    names = [n.removesuffix(".ipynb") for n in args.names] or list(known)
    unknown = [n for n in names if n not in known]
    if unknown:
        ap.error(f"unknown notebook(s) {', '.join(unknown)} (allowed: {', '.join(known)})")
    try:
        import nbclient  # noqa: F401
    except ImportError:
        ap.error("needs the notebooks extra: pip install -e '.[notebooks]'")
    for name in names:
        print(f"{name}: running ...", flush=True)
        seconds = execute(known[name], smoke=args.smoke, timeout=args.timeout)
        print(f"{name}: written with its outputs ({seconds:.0f} s)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
