"""Matrix factorizations: ``torch.linalg.cholesky``.

Mirrors ``aten/src/ATen/native/BatchLinearAlgebra.cpp`` (``linalg_cholesky_ex``: LAPACK's
``potrf`` reads one triangle of ``A``, the lower one, or the upper one when ``upper=True``; a
matrix that is not positive-definite raises ``torch.linalg.LinAlgError`` naming the leading
minor).  The gradient is ``cholesky_backward`` of ``torch/csrc/autograd/FunctionsManual.cpp``,
written with nnref ops so that it differentiates again.  ``svdvals`` is with ``svd`` in
``linalg_spectral.py``.
"""
import numpy as np

from ..core._device import array_module
from ..core.autograd.graph import Node
from ._common import record, wrap
from .linalg import matmul
from .linalg_checks import check_floating, check_square, no_half_kernel, raise_linalg_error
from .linalg_solvers import solve
from .tensor_shape import tril

__all__ = ["cholesky"]

_NOT_POSITIVE_DEFINITE = ("The factorization could not be completed because the input is not positive-definite "
                          "(the leading minor of order {info} is not positive-definite).")


class LinalgCholeskyExBackward0(Node):
    """``cholesky_backward`` (Iain Murray, arXiv:1602.07527):
    ``gA = L^{-H} Phi(L^H gL) L^{-1}``, ``Phi`` taking the lower triangle with a halved diagonal,
    symmetrised."""

    def backward(self, grad):
        (L,) = self.saved_tensors
        if self.upper:
            L, grad = L.mT, grad.mT
        gA = tril(matmul(L.mT, grad))
        gA = 0.5 * (gA + tril(gA, -1).mT)
        # PyTorch's two triangular solves; a general solve gives the same values
        gA = solve(L.mT, gA)
        return (solve(L, gA, left=False),)


def cholesky(input, *, upper=False):
    """The Cholesky factor ``L`` (lower triangular, ``A = L L^H``) of each symmetric
    positive-definite matrix of ``A``; ``U = L^H`` when ``upper=True``
    (``torch.linalg.cholesky``, ``aten/src/ATen/native/BatchLinearAlgebra.cpp``; backward
    ``cholesky_backward`` of ``torch/csrc/autograd/FunctionsManual.cpp``). The parser names the
    matrix ``input``."""
    A = input
    check_square("linalg.cholesky", A)
    check_floating("linalg.cholesky", A)
    no_half_kernel("cholesky_cpu", A)
    xp = array_module(A._device)
    # numpy reads the lower triangle; upper=True reads the upper one, the lower one of A^T
    data = xp.swapaxes(A._data, -1, -2) if upper else A._data
    try:
        factor = xp.linalg.cholesky(data)
    except np.linalg.LinAlgError:
        raise_linalg_error("linalg.cholesky", data, "potrf", _NOT_POSITIVE_DEFINITE)
    out = wrap(xp.ascontiguousarray(xp.swapaxes(factor, -1, -2) if upper else factor), A)
    return record(out, LinalgCholeskyExBackward0, (A,), save_result=True, upper=upper)
