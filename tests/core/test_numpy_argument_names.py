"""numpy's argument names (``axis``, ``keepdims``, ``x``/``a``/``x1``, ``x2``) where PyTorch's C++
argument parser accepts them, and their refusal where PyTorch's Python-level functions do not:
each case's result, or its exception type, equals PyTorch's."""
import pathlib
import warnings

import pytest

import nnref

torch = pytest.importorskip("torch")

CASES = [line.strip() for line in (pathlib.Path(__file__).parent / "numpy_name_cases.txt").read_text().splitlines()
         if line.strip()]


def _outcome(lib, expression):
    x = lib.arange(12.0).reshape(3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return repr(eval(expression, {"lib": lib, "x": x}))
        except Exception as exc:  # PyTorch's argument parser and Python raise TypeError both
            return type(exc).__name__


@pytest.mark.parametrize("expression", CASES)
def test_numpy_argument_names(expression):
    assert _outcome(nnref, expression) == _outcome(torch, expression)


def test_the_alias_wrapper_keeps_the_signature_for_the_reference():
    import inspect
    assert list(inspect.signature(nnref.sum).parameters)[:3] == ["input", "dim", "keepdim"]
    assert nnref.Tensor.sum.__doc__ == nnref._ops.reduction.sum.__doc__
