"""Helpers for the tests of the course's nnref tasks.

Visible tests (``tests/course/tasks``, handed to students) check nnref
against fixed answers and, where PyTorch is installed, against PyTorch.
Hidden tests (``tests/course/hidden``, only the grader runs them) compare
with the reference solution: the grader runs every test file twice, on the
reference nnref and on the student's, and takes the right-hand side of each
``assert`` from the reference run (coursekit/checks.py), so a test simply
writes ``assert f(x) == expected`` with ``expected = f(x)`` computed the same way.
"""
import pytest


def pytorch():
    """The ``torch`` module, or None when PyTorch is not installed."""
    try:
        import torch
    except ImportError:
        return None
    return torch


def require_pytorch():
    torch = pytorch()
    if torch is None:
        pytest.skip("PyTorch is not installed: nothing to compare with")
    return torch


def same_objects(values):
    """Each value replaced by the index of its first occurrence: which entries are the same object, as data.

    The grader compares values across processes (coursekit/checks.py), where
    ``id()`` means nothing; this numbering does.
    """
    seen = {}
    return [seen.setdefault(id(value), len(seen)) for value in values]
