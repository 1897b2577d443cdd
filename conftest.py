"""Hooks for the chapters under nbval (book/*.ipynb), which the conftests under tests/ do not reach.

tests/book/test_exercises.py probes every exercise's self-check in a kernel that has run the
chapter up to it.  When the same session runs the chapters under nbval (./dev.sh test), the
probes run in nbval's kernel, right after it ran the self-check cell, instead of in a second
execution of the whole chapter.
"""
import sys
from pathlib import Path

import pytest

BOOK_TESTS = Path(__file__).parent / "tests" / "book"


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
