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


def merge_streams(outputs):
    """Join consecutive pieces of one stream: the kernel flushes stdout on a timer, so a single
    print() can arrive split in two, which the page would show as two separate blocks."""
    merged = []
    for output in outputs:
        if (output.output_type == "stream" and merged and merged[-1].output_type == "stream"
                and merged[-1].name == output.name):
            merged[-1].text += output.text
        else:
            merged.append(output)
    return merged


def execute(path):
    notebook = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(notebook, timeout=900, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    for cell in notebook.cells:
        cell.metadata.pop("execution", None)  # timestamps would make every run a diff
        if cell.cell_type == "code":
            cell.outputs = merge_streams(cell.outputs)
    nbformat.write(notebook, path)
    return time.perf_counter() - start


def main(arguments):
    paths = [Path(a).resolve() for a in arguments] or sorted((ROOT / "book").rglob("*.ipynb"))
    for path in paths:
        print(f"{path.relative_to(ROOT)} ... ", end="", flush=True)
        print(f"{execute(path):.1f}s")


if __name__ == "__main__":
    main(sys.argv[1:])
