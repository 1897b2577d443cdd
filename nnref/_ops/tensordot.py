"""``tensordot`` and ``inner``: contractions written, as in PyTorch, as a permute, a reshape to
two matrices, one ``mm`` and a reshape back, so their graphs (``ViewBackward0`` over
``MmBackward0``, or ``DotBackward0`` for two vectors) and derivatives of every order are those of PyTorch.

Mirrors ``tensordot`` in ``aten/src/ATen/native/Linear.cpp``, ``inner`` in
``aten/src/ATen/native/LinearAlgebra.cpp`` and the ``dims`` handling of ``torch.tensordot`` in
``torch/functional.py``.
"""
import math
import numbers

from ..core._tensor import Tensor, _wrap_dim

__all__ = ["tensordot", "inner"]


def _dim_lists(a, b, dims):
    """``dims`` as PyTorch's Python wrapper accepts it: a count of trailing/leading dims, a pair of
    dim lists, or a tensor holding either."""
    if isinstance(dims, Tensor):
        if dims.numel() == 1:
            dims = int(dims.item())
            if dims < 0:
                raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
            return list(range(-dims, 0)), list(range(dims))
        if dims.shape[0] != 2:
            raise AssertionError(f"dims tensor must have size 2 in first dimension, got {dims.shape[0]}")
        dims = dims.tolist()
    if isinstance(dims, numbers.Integral):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.dim(), b.dim()):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(-dims, 0)), list(range(dims))
    if not isinstance(dims, (list, tuple)):
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or "
                           f"list[list[int]] containing two lists, but got dims={dims}")
    dims_a, dims_b = ([d] if isinstance(d, numbers.Integral) else list(d) for d in dims)
    return dims_a, dims_b


def _contracted(dims, ndim):
    wrapped = [_wrap_dim(d, ndim) for d in dims]
    for d in wrapped:
        if wrapped.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return wrapped


def tensordot(a, b, dims=2):
    """Sum of products over the dims ``dims`` names in ``a`` and ``b`` (``torch.tensordot``)."""
    dims_a, dims_b = _dim_lists(a, b, dims)
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    if a._dtype is not b._dtype:
        raise RuntimeError("both inputs should have same dtype")
    t1, t2, contracted = a, b, 1
    for da, db in zip(dims_a, dims_b):
        s1, s2 = a.shape[da], b.shape[db]
        if s2 == 1:  # a broadcast dim is summed right away, as in PyTorch
            t1 = t1.sum(da, keepdim=True)
        elif s1 == 1:
            t2 = t2.sum(db, keepdim=True)
        elif s1 != s2:
            raise RuntimeError(f"contracted dimensions need to match, but first has size {s1} in dim "
                               f"{da} and second has size {s2} in dim {db}")
        else:
            contracted *= s1
    cdims_a, cdims_b = _contracted(dims_a, a.dim()), _contracted(dims_b, b.dim())
    free_a = [d for d in range(a.dim()) if d not in cdims_a]
    free_b = [d for d in range(b.dim()) if d not in cdims_b]
    result_shape = [t1.shape[d] for d in free_a] + [t2.shape[d] for d in free_b]
    rows = math.prod(t1.shape[d] for d in free_a)
    cols = math.prod(t2.shape[d] for d in free_b)
    t1, t2 = t1.permute(*free_a, *dims_a), t2.permute(*dims_b, *free_b)
    if rows == 1 and cols == 1:
        # Everything contracted: PyTorch 2.13 takes ``dot`` of the two flattened operands when
        # both flatten without a copy, else the sum of their elementwise product (as its graphs show).
        if t1.is_contiguous() and t2.is_contiguous():
            v1, v2 = (t if t.dim() == 1 else t.reshape(contracted) for t in (t1, t2))
            return v1.dot(v2).reshape(result_shape)
        return (t1.squeeze() * t2.squeeze()).sum().reshape(result_shape)
    return t1.reshape(rows, contracted).mm(t2.reshape(contracted, cols)).reshape(result_shape)


def inner(input, other):
    """Sum of products over the last dim of both (a plain product when either is 0-d)
    (``torch.inner``)."""
    if input.dim() == 0 or other.dim() == 0:
        return input * other
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got "
                           f"shapes {list(input.shape)} and {list(other.shape)}")
    return tensordot(input, other, ([-1], [-1]))
