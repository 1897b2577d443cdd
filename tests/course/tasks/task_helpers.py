"""Helpers for the tests of the course's nnref tasks.

Visible tests (``tests/course/tasks``, handed to students) check nnref
against fixed answers and, where PyTorch is installed, against PyTorch.
Hidden tests (``tests/course/hidden``, only the grader runs them) may also
compare with the reference solution: ``using_reference`` swaps the
instructor's version of a function in for the duration of a ``with`` block,
everything else staying the student's nnref.
"""
import ast
import contextlib
import os
import sys
import textwrap
from pathlib import Path

import pytest

REFERENCE_ENV = "NNREF_COURSE_REFERENCE"  # the grader sets it to the instructor's repository


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


def reference_root():
    """The instructor's repository (holding the reference nnref), or None in a student edition."""
    candidates = [Path(os.environ[REFERENCE_ENV])] if os.environ.get(REFERENCE_ENV) else []
    candidates.append(Path(__file__).resolve().parents[3])
    for root in candidates:
        if (root / "nnref" / "course").is_dir():
            return root
    return None


def reference_function(module, qualname):
    """The reference version of ``module.qualname``, compiled in ``module``'s namespace."""
    root = reference_root()
    if root is None:
        pytest.skip("the reference nnref is not available")
    path = root.joinpath(*module.__name__.split(".")).with_suffix(".py")
    source = path.read_text(encoding="utf-8")
    node = ast.parse(source)
    for name in qualname.split("."):
        node = next(child for child in ast.iter_child_nodes(node)
                    if isinstance(child, (ast.ClassDef, ast.FunctionDef)) and child.name == name)
    code = textwrap.dedent(ast.get_source_segment(source, node, padded=True))
    namespace = dict(vars(module))
    exec(compile(code, f"{path} (reference {qualname})", "exec"), namespace)
    return namespace[node.name]


@contextlib.contextmanager
def using_reference(owner, name, *aliases):
    """Within the block, ``owner.name`` (a class's method or a module's function) is the reference one.

    ``aliases`` are other attributes bound to the same function (``Module.__call__``
    is ``Module._call_impl``).
    """
    module = owner if isinstance(owner, type(sys)) else sys.modules[owner.__module__]
    qualname = name if owner is module else f"{owner.__name__}.{name}"
    reference = reference_function(module, qualname)
    originals = {attribute: owner.__dict__[attribute] for attribute in (name, *aliases)}
    for attribute in originals:
        setattr(owner, attribute, reference)
    try:
        yield
    finally:
        for attribute, original in originals.items():
            setattr(owner, attribute, original)
