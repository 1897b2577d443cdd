"""Hooks for the chapters under nbval (book/*.ipynb), which the conftests under tests/ do not reach.

tests/book/test_exercises.py probes every exercise's self-check in a kernel that has run the
chapter up to it.  When the same session runs the chapters under nbval (./dev.sh test), the
probes run in nbval's kernel, right after it ran the self-check cell, instead of in a second
execution of the whole chapter.  nbval's kernels start with one BLAS/OpenMP thread (ONE_THREAD).
"""
import os
import sys
from pathlib import Path

import pytest

BOOK_TESTS = Path(__file__).parent / "tests" / "book"
# The chapters' kernels use one BLAS/OpenMP thread.  Beside CI's other test runs on two cores, a
# second thread mostly spins waiting for a core: chapter 15 ran in 100 s with it, 7 s without (nnref's
# own thread count, which decides its results where PyTorch's depends on threads, is not read from these).
ONE_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _exercise_tests():
    if str(BOOK_TESTS) not in sys.path:
        sys.path.insert(0, str(BOOK_TESTS))
    import test_exercises
    return test_exercises


def pytest_collection_modifyitems(config, items):
    if any(type(item).__name__ == "IPyNbCell" for item in items) and \
            any(item.path == BOOK_TESTS / "test_exercises.py" for item in items):
        items[:] = _exercise_tests().after_their_chapters(config, items)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    outcome = yield
    if type(item).__name__ == "IPyNbCell" and outcome.excinfo is None and \
            "exercise-check" in item.cell.metadata.get("tags", []):
        _exercise_tests().probe_in_nbval_kernel(item)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    """nbval starts a chapter's kernel while setting up its first cell: with ONE_THREAD in its environment."""
    if type(item).__name__ != "IPyNbCell":
        yield
        return
    saved = {name: os.environ.get(name) for name in ONE_THREAD}
    os.environ.update(ONE_THREAD)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
