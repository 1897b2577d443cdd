"""Matrix products: ``mm``, ``mv``, ``dot``, ``bmm`` and ``matmul`` (the ``@`` operator).

``matmul`` dispatches on the operands' dimensions exactly as PyTorch's
``aten/src/ATen/native/LinearAlgebra.cpp`` does, so the graph it records has
the same nodes (``DotBackward0``, ``MvBackward0``, ``MmBackward0``, or a
folded ``MmBackward0``/``BmmBackward0`` between views for batches).
"""
import math

import numpy as np

try:
    from scipy.linalg import blas as _blas
except ImportError:  # SciPy is optional: outer products then go through numpy's dot
    _blas = None

from ..core._device import array_module, array_module_of
from ..core.autograd.graph import Node
from ._common import check_same_device, from_accumulator, needs_grad, record, wrap
from .shape import _unsafe_view, squeeze_result
from ..core._ops import linalg as _core_linalg
from ..core._ops.linalg import BmmBackward0, MmBackward0
from ..core._seams import install


def _same_dtype(name, a, b):
    check_same_device(a, b)
    if a._dtype is not b._dtype:
        raise RuntimeError(f"{name}: expected both operands to have the same dtype, but got: "
                           f"{a._dtype.name} != {b._dtype.name}. Convert one, e.g. b.to(a.dtype)")


def _product(function, a, b):
    """``function(a, b)`` (a numpy or CuPy product), accumulating 16-bit floats in float32 as PyTorch does."""
    accumulate = a._dtype._accumulate
    if accumulate is a._dtype.numpy:
        return function(a._data, b._data)
    return from_accumulator(function(a._data.astype(accumulate), b._data.astype(accumulate)),
                            a._dtype)


def _matrix_product(a, b):
    """``a @ b`` for 2-D arrays, as a row-major array like PyTorch's result.

    Two shapes are slow on numpy's usual route and take another one to BLAS:

    * an inner size of 1 (a weight's gradient at batch size 1) is an outer product, which
      ``matmul`` computes without BLAS; gemm is several times faster, called through SciPy
      when it is there (:func:`_outer`), else through numpy's ``dot``;
    * a few rows times a transposed matrix (``x @ W.t()`` in every Linear at a small batch):
      OpenBLAS's kernel for that layout is slower than for ``W @ x.t()``, the same
      numbers transposed, so the product is computed that way and copied back row-major (a
      cheap copy: the result is small when the rows are few).
    """
    xp = array_module_of(a)
    rows, inner = a.shape
    if inner == 1:
        return _outer(a, b)
    if xp is np and 1 < rows <= _FEW_ROWS and b.shape[1] >= 4 * rows and _is_transposed(b):
        return xp.ascontiguousarray(xp.matmul(b.T, a.T).T)
    return xp.matmul(a, b)


# Up to this many rows, ``(b^T @ a^T)^T`` beats ``a @ b`` for a transposed ``b`` (OpenBLAS,
# one thread: 2x at 8 rows, 1.2x at 64, even at 256, slower beyond).
_FEW_ROWS = 64

_GEMM = {} if _blas is None else {np.dtype(np.float32): _blas.sgemm, np.dtype(np.float64): _blas.dgemm}


def _outer(a, b):
    """``a @ b`` for an ``(m, 1)`` times a ``(1, n)`` array, as a row-major array of its own.

    SciPy's gemm, given the two vectors as they lie in memory, writes ``b^T a^T`` column by
    column, which is ``a @ b`` row by row: it writes straight into the transpose of a fresh
    row-major array, 1.5-2.5x faster than numpy's ``dot`` for the MLP's weight gradients at
    batch 1 (one thread; numpy calls the gemm of its own OpenBLAS build, with other layout
    flags). Each element is one product, so the values are the same bit for bit. The array
    owns its memory, so ``AccumulateGrad`` can adopt it as a weight's gradient.
    """
    xp = array_module_of(a)
    gemm = _GEMM.get(a.dtype) if xp is np else None  # SciPy's BLAS reads host memory only
    if gemm is None or b.dtype != a.dtype or not (a.shape[0] and b.shape[1]):  # BLAS needs sizes
        return xp.dot(a, b)
    out = xp.empty((a.shape[0], b.shape[1]), a.dtype)
    written = gemm(1.0, b.T, a.T, c=out.T, overwrite_c=True)
    return out if written.base is out else xp.ascontiguousarray(written.T)


def _shape_text(t):
    return "x".join(str(s) for s in t._data.shape)


def _is_transposed(data):
    return data.flags.f_contiguous and not data.flags.c_contiguous


def _mat2_grad(mat1, grad, mat2_transposed):
    """``mat1^T @ grad`` laid out like ``mat2`` (PyTorch's ``mm_mat2_backward``).

    In ``x @ W.t()`` (every Linear) ``mat2`` is a transposed view of the weight. Computing
    ``(grad^T @ mat1)^T`` instead gives the same values already in the weight's row-major
    layout, so the optimizer later reads it contiguously instead of through a transpose.
    """
    if mat2_transposed:
        return mm(grad.t(), mat1).t()
    return mm(mat1.t(), grad)


def mm(input, mat2):
    """Product of two matrices."""
    if input._data.ndim != 2 or mat2._data.ndim != 2:
        raise RuntimeError(f"mm: expected 2-D tensors, got {input._data.ndim}-D and "
                           f"{mat2._data.ndim}-D; use matmul (@) for other shapes")
    _same_dtype("mm", input, mat2)
    if input._data.shape[1] != mat2._data.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_shape_text(input)} and "
                           f"{_shape_text(mat2)}): the inner sizes {input._data.shape[1]} and "
                           f"{mat2._data.shape[0]} must match")
    out = wrap(_product(_matrix_product, input, mat2), input)
    if needs_grad(input, mat2):
        out.grad_fn = MmBackward0((input, mat2), (input if mat2.requires_grad else None,
                                                  mat2 if input.requires_grad else None),
                                  mat2_transposed=_is_transposed(mat2._data))
    return out


class MvBackward0(Node):
    """d(A @ v) = (outer(grad, v), A^T @ grad)."""

    def backward(self, grad):
        self_, vec = self.saved_tensors
        wants_self, wants_vec = self.needs_input_grad
        return (grad.unsqueeze(1) * vec if wants_self else None,
                mv(self_.t(), grad) if wants_vec else None)


def mv(input, vec):
    """Product of a matrix and a vector."""
    _same_dtype("mv", input, vec)
    if input._data.ndim != 2 or vec._data.ndim != 1 or input._data.shape[1] != vec._data.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input._data.shape[0] if input._data.ndim else ''}), "
                           f"mat ({_shape_text(input)}), vec ({_shape_text(vec)})")
    xp = array_module(input._device)
    out = wrap(_product(xp.matmul, input, vec), input)
    return record(out, MvBackward0, (input, vec), saved=(input, vec))


class DotBackward0(Node):
    """d(a . b) = (grad * b, grad * a)."""

    def backward(self, grad):
        self_, other = self.saved_tensors
        wants_self, wants_other = self.needs_input_grad
        return (grad * other if wants_self else None, grad * self_ if wants_other else None)


def dot(input, tensor):
    """Inner product of two 1-D tensors of the same length (PyTorch names the second ``tensor``)."""
    if input._data.ndim != 1 or tensor._data.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input._data.ndim}D and "
                           f"{tensor._data.ndim}D tensors")
    _same_dtype("dot", input, tensor)
    if input._data.shape != tensor._data.shape:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input._data.shape[0]}] and "
                           f"src [{tensor._data.shape[0]}] to have the same number of elements, but got "
                           f"{input._data.shape[0]} and {tensor._data.shape[0]} elements respectively")
    xp = array_module(input._device)
    out = wrap(_product(xp.dot, input, tensor), input)
    return record(out, DotBackward0, (input, tensor), saved=(input, tensor))


def bmm(input, mat2):
    """Batch of matrix products: ``(b, n, m) @ (b, m, p) -> (b, n, p)``."""
    if input._data.ndim != 3 or mat2._data.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor (got {input._data.ndim}D and {mat2._data.ndim}D)")
    _same_dtype("bmm", input, mat2)
    a, b = input._data.shape, mat2._data.shape
    if a[0] != b[0] or a[2] != b[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a[0]}, {a[2]}] but got: [{b[0]}, {b[1]}].")
    xp = array_module(input._device)
    out = wrap(_product(xp.matmul, input, mat2), input)
    return record(out, BmmBackward0, (input, mat2), saved=(input, mat2))


# The core's MmBackward0 and BmmBackward0 compute their gradients with these.
install(_core_linalg, "mm", mm)
install(_core_linalg, "bmm", bmm)


def matmul(input, other):
    """``input @ other`` with PyTorch's rules for 1-D, 2-D and batched operands.

    Follows ``_matmul_impl`` step by step, so the recorded graph is PyTorch's:
    dot / mv / mm for 1-D and 2-D operands; a batch against a vector or matrix
    is *folded* into one ``mm``/``mv`` when ``_should_fold`` says so;
    everything else is broadcast and flattened into one ``bmm``.
    """
    da, db = input._data.ndim, other._data.ndim
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {da}D and {db}D")
    if da == 1 and db == 1:
        return dot(input, other)
    if da == 2 and db == 1:
        return mv(input, other)
    if da == 1 and db == 2:
        return squeeze_result(mm(input.unsqueeze(0), other), 0)
    if da == 2 and db == 2:
        return mm(input, other)
    if _should_fold(input, other):
        return _folded_matmul(input, other)
    return _batched_matmul(input, other)


def _strides(t):
    """Strides in elements (numpy counts bytes), as PyTorch reports them."""
    return tuple(s // t._data.itemsize for s in t._data.strides)


def _should_fold(input, other):
    """Can the batched operand be folded into a matrix for one mm/mv? (``should_fold``).

    Yes when the smaller operand requires grad (folding avoids summing its
    gradient over the batch afterwards), or when the larger one's batch
    dimensions are laid out so that flattening them needs no copy.
    """
    input_larger = input._data.ndim >= other._data.ndim
    large, small = (input, other) if input_larger else (other, input)
    shape, strides = list(large._data.shape), list(_strides(large))
    if not input_larger:  # PyTorch looks at other.mT: swap the last two dimensions
        shape[-2:], strides[-2:] = shape[:-3:-1], strides[:-3:-1]
    if not (len(shape) >= 3 and small._data.ndim <= 2):
        return False
    if small.requires_grad:
        return True
    if input._data.ndim == 2:
        return False  # folding would need a transposed, then copied, result
    if large._data.size == 0:
        return True
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(len(shape) - 2))


def _folded_matmul(input, other):
    """``(..., n, k) @ (k, p)`` as one ``mm`` on ``(-1, k)`` rows (or the mirror image, transposed)."""
    transpose = other._data.ndim > input._data.ndim
    if transpose:  # A @ B = (B^T @ A^T)^T: make the batched operand come first
        large, small = other.mT, (input.t() if input._data.ndim == 2 else input)
    else:
        large, small = input, other
    sizes = large._data.shape
    output_shape = sizes[:-1]
    rows = large.reshape(math.prod(output_shape), sizes[-1])
    if small._data.ndim == 1:
        return _unsafe_view(mv(rows, small), output_shape)
    output = _unsafe_view(mm(rows, small), output_shape + (small._data.shape[1],))
    return output.mT.contiguous() if transpose else output


def _batched_matmul(input, other):
    """Broadcast the batch dimensions, flatten them into one, and call ``bmm``."""
    da, db = input._data.ndim, other._data.ndim
    n = input._data.shape[-2] if da > 1 else 1
    m1 = input._data.shape[-1]
    m2 = other._data.shape[-2] if db > 1 else other._data.shape[0]
    p = other._data.shape[-1] if db > 1 else 1
    batch1, batch2 = input._data.shape[:-2], other._data.shape[:-2]
    if da == 3 and db == 3 and batch1[0] != batch2[0]:
        # A batch of one that requires grad is squeezed so the fold path can take it.
        if batch1[0] == 1 and input.requires_grad:
            return matmul(input.squeeze(0), other)
        if batch2[0] == 1 and other.requires_grad:
            return matmul(input, other.squeeze(0))
    try:
        batch = np.broadcast_shapes(batch1, batch2)
    except ValueError:
        x, y, dim = _mismatch(batch1, batch2)
        raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                           f"non-singleton dimension {dim}: matmul's batch dimensions "
                           f"{list(batch1)} and {list(batch2)} cannot be broadcast") from None
    count = math.prod(batch)
    left = input.expand(batch + (n, m1)).reshape(count, n, m1)
    if db == 1:
        right = other.expand(batch + (m2,)).reshape(count, m2).unsqueeze(2)
    else:
        right = other.expand(batch + (m2, p)).reshape(count, m2, p)
    output_shape = batch + ((n,) if da > 1 else ()) + ((p,) if db > 1 else ())
    product = bmm(left, right)
    return _unsafe_view(product.squeeze(-1) if db == 1 else product, output_shape)


def _mismatch(a, b):
    """The first sizes (from the right) that do not broadcast, and their dimension in the result."""
    ndim = max(len(a), len(b))
    for i in range(1, ndim + 1):
        x, y = (a[-i] if i <= len(a) else 1), (b[-i] if i <= len(b) else 1)
        if x != y and x != 1 and y != 1:
            return x, y, ndim - i
    raise AssertionError("shapes broadcast")


class AddmmBackward0(Node):
    """d(bias + A @ B) = (grad, grad @ B^T, A^T @ grad); the engine sums grad down to bias's shape."""

    def backward(self, grad):
        mat1, mat2 = self.saved_tensors
        wants_bias, wants_mat1, wants_mat2 = self.needs_input_grad
        beta, alpha = self.beta, self.alpha
        return (_scaled(grad, beta) if wants_bias else None,
                _scaled(mm(grad, mat2.t()), alpha) if wants_mat1 else None,
                _scaled(_mat2_grad(mat1, grad, self.mat2_transposed), alpha) if wants_mat2 else None)


def _scaled(tensor, factor):
    """``tensor * factor``, skipped for 1 (PyTorch's ``maybe_multiply``)."""
    return tensor if factor == 1 else tensor * factor


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)`` in one op: what ``F.linear`` uses for a batch of
    rows with a bias; ``beta=0`` ignores ``input`` (its NaNs too)."""
    _same_dtype("addmm", mat1, mat2)
    if mat1._data.ndim != 2 or mat2._data.ndim != 2 or mat1._data.shape[1] != mat2._data.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({_shape_text(mat1)} and "
                           f"{_shape_text(mat2)})")
    product = _product(_matrix_product, mat1, mat2)
    if alpha != 1:
        product *= product.dtype.type(alpha)
    try:
        if beta == 1:
            product += input._data  # in place on our own fresh buffer: no extra allocation
        elif beta != 0:
            product += input._data * product.dtype.type(beta)
        else:
            np.broadcast_shapes(input._data.shape, product.shape)
    except ValueError:
        raise RuntimeError(f"addmm: the bias of shape {list(input.shape)} does not broadcast to the "
                           f"product's shape {list(product.shape)}") from None
    out = wrap(product, mat1)
    if needs_grad(input, mat1, mat2):
        out.grad_fn = AddmmBackward0((input, mat1, mat2), (mat1 if mat2.requires_grad else None,
                                                           mat2 if mat1.requires_grad else None),
                                     mat2_transposed=_is_transposed(mat2._data), beta=beta,
                                     alpha=alpha)
    return out
