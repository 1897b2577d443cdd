"""Re-run a chapter's code on real PyTorch and compare what it prints with the stored outputs.

Chapters run on nnref (``import nnref as torch``).  Every claim that "PyTorch
does this" is checked by swapping the imports for PyTorch's, executing the
same cells in a fresh kernel and comparing each cell's printed output with the
output stored in the notebook.  Cells tagged ``nnref-only`` (nnref's source,
its internals) are left out; cells tagged ``parity-run-only`` run on PyTorch
but their output is not compared (random numbers, timings).
"""
import os
import re

import nbformat
from nbclient import NotebookClient

NNREF_ONLY = "nnref-only"
RUN_ONLY = "parity-run-only"

IMPORT_SWAPS = [
    (re.compile(r"^import nnref as torch$", re.M), "import torch"),
    (re.compile(r"^from nnref import nn$", re.M), "from torch import nn"),
    (re.compile(r"^import nnref\.nn\.functional as F$", re.M), "import torch.nn.functional as F"),
    (re.compile(r"^from nnref import optim$", re.M), "from torch import optim"),
    (re.compile(r"^import nnref\.nn as nn$", re.M), "import torch.nn as nn"),
    (re.compile(r"^from nnref\.utils\.data import ", re.M), "from torch.utils.data import "),
]
# nnref.viz draws PyTorch tensors too, so it may stay in a parity cell.
ALLOWED_NNREF = re.compile(r"^from nnref(\.viz)? import (viz|draw_graph|draw_grad_flow)[\w, ]*$", re.M)

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_LIBRARY = re.compile(r"\b(nnref|torch)\.")


def tags(cell):
    return set(cell.get("metadata", {}).get("tags", []))


def to_pytorch(source):
    """The cell's code with nnref's imports replaced by PyTorch's."""
    for pattern, replacement in IMPORT_SWAPS:
        source = pattern.sub(replacement, source)
    return source


def nnref_leftovers(source):
    """Mentions of nnref that would stop the cell from being a PyTorch program."""
    remaining = ALLOWED_NNREF.sub("", to_pytorch(source))
    return re.findall(r".*\bnnref\b.*", remaining)


def normalise(text):
    """Output text with the library name and memory addresses made neutral."""
    return _LIBRARY.sub("LIB.", _ADDRESS.sub("0xADDR", text)).rstrip()


def printed(cell):
    """What a code cell showed as text: streams, results and error names, in order."""
    parts = []
    previous_stream = None
    for output in cell.get("outputs", []):
        kind = output["output_type"]
        if kind == "stream":
            # The kernel flushes stdout on a timer, so one print() can arrive in several
            # stream outputs; join consecutive pieces of the same stream as they were written.
            if previous_stream == output["name"]:
                parts[-1] += output["text"]
            else:
                parts.append(output["text"])
            previous_stream = output["name"]
            continue
        previous_stream = None
        if kind in ("execute_result", "display_data"):
            if "text/plain" in output.get("data", {}) and "image/svg+xml" not in output["data"] \
                    and "image/png" not in output["data"]:
                parts.append(output["data"]["text/plain"])
        elif kind == "error":
            parts.append(f"{output['ename']}")
    return normalise("".join(p if p.endswith("\n") else p + "\n" for p in parts))


def parity_cells(notebook):
    return [(i, cell) for i, cell in enumerate(notebook.cells)
            if cell.cell_type == "code" and NNREF_ONLY not in tags(cell)]


def run_on_pytorch(path, timeout=600):
    """Execute the chapter's parity cells with PyTorch; return {cell index: printed text}."""
    notebook = nbformat.read(path, as_version=4)
    selected = parity_cells(notebook)
    copy = nbformat.v4.new_notebook()
    copy.metadata = notebook.metadata
    for _, cell in selected:
        new = nbformat.v4.new_code_cell(to_pytorch(cell.source))
        new.metadata = dict(cell.metadata)
        copy.cells.append(new)
    # One OpenMP thread: beside CI's other test runs on two cores, PyTorch's second intra-op thread
    # mostly spins waiting for a core (chapter 15's training took four times as long with it).
    NotebookClient(copy, timeout=timeout, kernel_name="python3", allow_errors=True,
                   resources={"metadata": {"path": str(path.parent)}}).execute(
        env=dict(os.environ, OMP_NUM_THREADS="1"))
    return {index: printed(ran) for (index, _), ran in zip(selected, copy.cells)}
