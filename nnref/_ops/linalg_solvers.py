"""``torch.linalg.inv`` and ``torch.linalg.solve``: ``A^{-1}`` and ``X`` with ``AX = B`` (``XA = B``).

Mirrors ``aten/src/ATen/native/BatchLinearAlgebra.cpp`` (``linalg_inv_ex``, ``linalg_solve_ex``:
checks, the vector right-hand side rule ``linalg_solve_is_vector_rhs``, batch broadcasting,
``torch.linalg.LinAlgError`` for a singular matrix).  numpy (CuPy on the GPU) computes the
LU-based results.  The gradients are ``derivatives.yaml``'s (``LinalgInvExBackward0``:
``-A^{-H} grad A^{-H}``; ``LinalgSolveExBackward0``: ``linalg_solve_backward`` of
``torch/csrc/autograd/FunctionsManual.cpp``), written with nnref's ``matmul`` and ``solve`` so
that they differentiate again, as PyTorch does when grad mode is on.
"""
import numpy as np

from ..core._device import array_module
from ..core.autograd.graph import Node
from ._common import check_same_device, record, wrap
from .linalg import matmul
from .linalg_checks import check_floating, check_square, no_half_kernel, raise_linalg_error

__all__ = ["inv", "inverse", "solve"]

_SINGULAR_INV = ("The diagonal element {info} is zero, the inversion could not be completed because the "
                 "input matrix is singular.")
_SINGULAR_SOLVE = "The solver failed because the input matrix is singular."


class LinalgInvExBackward0(Node):
    def backward(self, grad):
        (inverse,) = self.saved_tensors
        inverse_h = inverse.mT
        return (-matmul(inverse_h, matmul(grad, inverse_h)),)


def inv(A):
    """The inverse of each square matrix of ``A`` (``torch.linalg.inv``,
    ``aten/src/ATen/native/BatchLinearAlgebra.cpp``); a singular one raises
    :class:`nnref.linalg.LinAlgError`."""
    check_square("linalg.inv", A)
    check_floating("linalg.inv", A, low_precision=False)
    xp = array_module(A._device)
    try:
        data = xp.linalg.inv(A._data)
    except np.linalg.LinAlgError:
        raise_linalg_error("linalg.inv", A._data, "getrf", _SINGULAR_INV)
    out = wrap(xp.ascontiguousarray(data), A)
    return record(out, LinalgInvExBackward0, (A,), save_result=True)


def inverse(input):
    """The inverse of each square matrix of ``input``, as :func:`nnref.linalg.inv` (``torch.inverse``,
    ``aten/src/ATen/native/BatchLinearAlgebra.cpp``, which calls ``linalg_inv``)."""
    return inv(input)


def _is_vector_rhs(A, B):
    """PyTorch's ``linalg_solve_is_vector_rhs``: ``B`` is a (batch of) vector(s), not matrices."""
    return B._data.ndim == 1 or (A._data.ndim - 1 == B._data.ndim and B._data.shape == A._data.shape[:-1])


class LinalgSolveExBackward0(Node):
    """``linalg_solve_backward``: ``gB = A^{-H} gX`` (``gX A^{-H}`` on the right), then
    ``gA = -gB X^H`` (``-X^H gB``)."""

    def backward(self, grad):
        A, X = self.saved_tensors
        wants_A, wants_B = self.needs_input_grad
        matrix = (lambda t: t.unsqueeze(-1)) if self.vector_case else (lambda t: t)
        gB = solve(A.mT, matrix(grad), left=self.left)
        gA = None
        if wants_A:
            gA = -matmul(gB, matrix(X).mT) if self.left else -matmul(matrix(X).mT, gB)
        return gA, (gB.squeeze(-1) if self.vector_case else gB) if wants_B else None


def _batch_shape(A, B):
    a, b = A.shape[:-2], B.shape[:-2]
    for i in range(1, max(len(a), len(b)) + 1):
        x, y = (a[-i] if i <= len(a) else 1), (b[-i] if i <= len(b) else 1)
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({y}) must match the size of tensor b ({x}) at "
                               f"non-singleton dimension {max(len(a), len(b)) - i}")
    return np.broadcast_shapes(a, b)


def solve(A, B, *, left=True):
    """The solution ``X`` of ``A X = B`` (``X A = B`` when ``left=False``) for square ``A``, over
    broadcast batches; ``B`` may be a vector (``torch.linalg.solve``,
    ``aten/src/ATen/native/BatchLinearAlgebra.cpp``)."""
    check_same_device(A, B)
    check_floating("linalg.solve", A)
    if A._dtype is not B._dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{A._dtype._legacy_name[:-6]} and B of type {B._dtype._legacy_name[:-6]} instead")
    check_square("linalg.solve", A)
    vector_case = _is_vector_rhs(A, B)
    b = B._data[..., None] if vector_case else B._data
    if b.ndim < 2:
        raise RuntimeError("linalg.solve: The input tensor B must have at least 2 dimensions.")
    n = A._data.shape[-1]
    if (b.shape[-2] if left else b.shape[-1]) != n:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {b.shape[-2]}x{b.shape[-1]})")
    batch = _batch_shape(A._data, b)
    if not left and vector_case:
        raise RuntimeError("linalg.solve: Vector broadcasting of the left hand side is not supported for "
                           "left=False. In this case linalg.solve is equivalent to B / A.squeeze(-1)")
    no_half_kernel("lu_cpu", A)
    xp = array_module(A._device)
    a = xp.broadcast_to(A._data, batch + (n, n))
    b = xp.broadcast_to(b, batch + b.shape[-2:])
    try:
        # X A = B is A^T X^T = B^T: numpy's solve is for the left side only
        data = xp.linalg.solve(a, b) if left else xp.swapaxes(
            xp.linalg.solve(xp.swapaxes(a, -1, -2), xp.swapaxes(b, -1, -2)), -1, -2)
    except np.linalg.LinAlgError:
        raise_linalg_error("torch.linalg.solve", A._data, "getrf", _SINGULAR_SOLVE)
    if vector_case:
        data = data[..., 0]
    out = wrap(xp.ascontiguousarray(data), A)
    return record(out, LinalgSolveExBackward0, (A, B), saved=(A,), save_result=True, left=left,
                  vector_case=vector_case)
