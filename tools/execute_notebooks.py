"""Execute chapters in place so their stored outputs are fresh: ``./dev.sh execute [NOTEBOOK ...]``.

Runs each notebook top to bottom in a new kernel from the repository's
virtual environment, with the notebook's folder as working directory.  A cell
that raises stops the run unless it is tagged ``raises-exception`` (the cells
that demonstrate errors).  Prints one line per notebook with its run time.
"""
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]


def execute(path):
    notebook = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(notebook, timeout=900, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)  # timestamps would make every run a diff
    nbformat.write(notebook, path)
    return time.perf_counter() - start


def main(arguments):
    paths = [Path(a).resolve() for a in arguments] or sorted((ROOT / "book").rglob("*.ipynb"))
    for path in paths:
        print(f"{path.relative_to(ROOT)} ... ", end="", flush=True)
        print(f"{execute(path):.1f}s")


if __name__ == "__main__":
    main(sys.argv[1:])
