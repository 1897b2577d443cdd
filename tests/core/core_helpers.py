"""Shared helpers for the core tests: run one function with nnref and with PyTorch, compare.

Tests write their code once, as ``def f(torch): ...``, and call it with both
modules, exactly as a reader would run a notebook cell with ``import nnref as
torch``.  (Named ``core_helpers`` so it cannot clash with other test folders.)
"""
import re

import numpy as np

import nnref


def numpy_of(t):
    """The values of an nnref or PyTorch tensor as a numpy array (None stays None)."""
    if t is None:
        return None
    if isinstance(t, nnref.Tensor):
        return t.detach()._data.copy()
    t = t.detach().cpu()
    if str(t.dtype) == "torch.bfloat16":  # numpy has no bfloat16 of its own
        t = t.float()
    return t.numpy(force=True).copy()  # force: PyTorch may hand back a ZeroTensor


def assert_close(actual, expected, rtol=1e-6, atol=1e-8, check_dtype=True):
    """Same shape, close values, and (for two tensors) dtypes with the same name."""
    a, e = numpy_of(actual), numpy_of(expected)
    assert a.shape == e.shape, f"shape {a.shape} != {e.shape}"
    if check_dtype and actual is not None and hasattr(expected, "dtype"):
        assert dtype_name(actual.dtype) == dtype_name(expected.dtype)
    np.testing.assert_allclose(a.astype(np.float64), e.astype(np.float64), rtol=rtol, atol=atol,
                               equal_nan=True)


def dtype_name(d):
    """``torch.float32`` and ``nnref.float32`` both become ``'float32'``."""
    return str(d).rsplit(".", 1)[-1]


def graph_signature(fn, leaves=()):
    """A nested description of the graph below ``fn``, comparable across the two libraries.

    Each node becomes ``(class name, [(child signature, input_nr) or None, ...])``;
    an ``AccumulateGrad`` becomes ``("AccumulateGrad", i)`` where ``i`` is the
    position of its ``.variable`` in ``leaves`` (found by identity), so the
    comparison also checks that each accumulator points at the right leaf.
    """
    if fn is None:
        return None
    name = type(fn).__name__
    if name == "AccumulateGrad":
        position = next((i for i, leaf in enumerate(leaves) if leaf is fn.variable), "unknown leaf")
        return (name, position)
    return (name, [None if child is None else (graph_signature(child, leaves), nr)
                   for child, nr in fn.next_functions])


def run_both(fn, torch_module):
    """``fn(nnref)`` and ``fn(torch)``."""
    return fn(nnref), fn(torch_module)


def numeric_vjp(f, arrays, v, eps=1e-6):
    """d(sum(f(arrays) * v))/d(arrays) by central differences, in plain numpy.

    ``f`` maps numpy arrays to a numpy array.  This is deliberately independent
    of ``nnref.autograd.gradcheck`` so the two checks do not share mistakes.
    """
    grads = []
    for k, array in enumerate(arrays):
        g = np.zeros_like(array, dtype=np.float64)
        for idx in np.ndindex(array.shape):
            plus = [a.copy() for a in arrays]
            minus = [a.copy() for a in arrays]
            plus[k][idx] += eps
            minus[k][idx] -= eps
            g[idx] = (np.sum(f(*plus) * v) - np.sum(f(*minus) * v)) / (2 * eps)
        grads.append(g)
    return grads


try:
    import torch as _torch
except ImportError:
    _torch = None


def both(run):
    """``run(nnref)``, checked equal to ``run(torch)`` when PyTorch is there."""
    ours = run(nnref)
    if _torch is not None:
        assert_same(ours, run(_torch))
    return ours


def assert_same(ours, theirs):
    """Equal structure; tensors close with the same dtype; strings equal up to module names."""
    if isinstance(ours, (list, tuple)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs), (ours, theirs)
        for a, b in zip(ours, theirs):
            assert_same(a, b)
    elif isinstance(ours, nnref.Tensor):
        assert_close(ours, theirs, rtol=1e-5, atol=1e-7)
    elif isinstance(ours, str):
        strip = lambda text: re.sub(r" object at 0x[0-9a-f]+", "", text.replace("torch.", "nnref."))  # noqa: E731
        assert strip(ours) == strip(theirs)
    else:
        assert ours == theirs
