"""Every chapter's code gives the same printed results on real PyTorch as on nnref."""
from pathlib import Path

import nbformat
import pytest

from parity import RUN_ONLY, nnref_leftovers, parity_cells, printed, run_on_pytorch, tags

BOOK = Path(__file__).resolve().parents[2] / "book"
CHAPTERS = sorted(BOOK.rglob("*.ipynb"))


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: str(p.relative_to(BOOK)))
def test_parity_cells_are_plain_pytorch_programs(path):
    """Outside nnref-only cells, nnref appears only in the imports that the check swaps."""
    notebook = nbformat.read(path, as_version=4)
    problems = {i: nnref_leftovers(cell.source) for i, cell in parity_cells(notebook)}
    assert not {i: p for i, p in problems.items() if p}, (
        "tag these cells 'nnref-only' or use only the swappable imports")


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: str(p.relative_to(BOOK)))
def test_chapter_prints_the_same_on_pytorch(path):
    pytest.importorskip("torch")
    notebook = nbformat.read(path, as_version=4)
    on_pytorch = run_on_pytorch(path)
    mismatches = []
    for index, cell in parity_cells(notebook):
        if RUN_ONLY in tags(cell):
            continue
        if printed(cell) != on_pytorch[index]:
            mismatches.append(f"cell {index}:\n--- nnref (stored)\n{printed(cell)}\n"
                              f"--- PyTorch\n{on_pytorch[index]}\n--- code\n{cell.source}")
    assert not mismatches, "\n\n".join(mismatches)
