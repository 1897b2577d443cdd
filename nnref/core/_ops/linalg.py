"""Matrix products, 2-D and batched: ``mm``, ``bmm`` and ``matmul``, the ``@`` operator
(``aten/src/ATen/native/LinearAlgebra.cpp``)."""
import numpy as np

from .._tensor import Tensor, bind
from ..autograd.graph import Node
from ._common import record
from .shape import UnsafeViewBackward0

__all__ = ["mm", "bmm", "matmul"]
__seams__ = ("mm", "bmm")


class MmBackward0(Node):
    """d(A @ B) = (grad @ B^T, A^T @ grad).  In ``x @ W.t()`` (every Linear) B is a transposed view
    of W: then ``(grad^T @ A)^T``, the same values laid out as W (PyTorch's ``mm_mat2_backward``)."""
    def backward(self, grad):
        self_, mat2 = self.saved_tensors
        wants_self, wants_mat2 = self.needs_input_grad
        return (mm(grad, mat2.t()) if wants_self else None,
                (mm(grad.t(), self_).t() if self.mat2_transposed else mm(self_.t(), grad)) if wants_mat2 else None)


# Seams: mm and bmm; the mirror puts PyTorch's BLAS routes and 16-bit floats: nnref/_ops/linalg.py
def mm(input, mat2):
    """The product of two matrices (the nodes' backward computes with it too)."""
    transposed = mat2._data.flags.f_contiguous and not mat2._data.flags.c_contiguous
    return record(Tensor._make(input._data @ mat2._data, input._device), MmBackward0, (input, mat2),
                  (input, mat2), mat2_transposed=transposed)


class BmmBackward0(Node):
    """d(A @ B), batch by batch = (grad @ B^T, A^T @ grad)."""
    def backward(self, grad):
        self_, mat2 = self.saved_tensors
        wants_self, wants_mat2 = self.needs_input_grad
        return (bmm(grad, mat2.transpose(1, 2)) if wants_self else None,
                bmm(self_.transpose(1, 2), grad) if wants_mat2 else None)


def bmm(input, mat2):
    """``(b, n, m) @ (b, m, p)``.  ``import nnref`` binds ``nnref/_ops/linalg.py:bmm`` here."""
    return record(Tensor._make(input._data @ mat2._data, input._device), BmmBackward0, (input, mat2),
                  (input, mat2))


def matmul(input, other):
    """``input @ other``, 2-D or batched: as PyTorch's ``_matmul_impl``, the batch dimensions are
    broadcast and flattened into one ``bmm``, whose result is viewed back.  ``import nnref`` binds
    ``nnref/_ops/linalg.py:matmul`` here (1-D operands, folding into ``mm``)."""
    if input._data.ndim == 2 and other._data.ndim == 2:
        return mm(input, other)
    (n, k), p = input._data.shape[-2:], other._data.shape[-1]
    batch = np.broadcast_shapes(input._data.shape[:-2], other._data.shape[:-2])
    product = bmm(input.expand(*batch, n, k).reshape(-1, n, k), other.expand(*batch, k, p).reshape(-1, k, p))
    out = Tensor._make(product._data.reshape(*batch, n, p), product._device)
    return record(out, UnsafeViewBackward0, (product,), self_sizes=product._data.shape)


bind(mm=mm, bmm=bmm, matmul=matmul, __matmul__=matmul)
