"""``torch.linalg.solve_triangular`` for the left side, which ``MultivariateNormal`` needs and
nnref's ``linalg`` lacks (``aten/src/ATen/native/BatchLinearAlgebra.cpp``,
``linalg_solve_triangular``; gradient ``linalg_solve_triangular_forward_AD``'s adjoint in
``torch/csrc/autograd/FunctionsManual.cpp``).

numpy has no batched triangular solver, so the general batched solver computes ``X`` (the
triangle is exact, the result agrees with LAPACK's ``trsm`` to rounding).
"""
from ..core._device import array_module
from .._ops._common import record, wrap
from .._ops.linalg import matmul
from ..core.autograd.graph import Node


class LinalgSolveTriangularBackward0(Node):
    """``gB = A^{-T} gX`` (a triangular solve with the other triangle), ``gA = -gB X^T``
    restricted to ``A``'s triangle."""

    def backward(self, grad):
        A, X = self.saved_tensors
        wants_A, wants_B = self.needs_input_grad
        gB = solve_triangular(A.mT, grad, upper=not self.upper)
        gA = None
        if wants_A:
            gA = -matmul(gB, X.mT)
            gA = (gA.triu() if self.upper else gA.tril()).sum_to_size(A.shape)
        return gA, gB.sum_to_size(self.b_shape) if wants_B else None


def solve_triangular(A, B, *, upper):
    """``X`` with ``A X = B`` for triangular ``A`` (its other triangle is ignored), over
    broadcast batches."""
    xp = array_module(A._device)
    a = xp.triu(A._data) if upper else xp.tril(A._data)
    batch = xp.broadcast_shapes(a.shape[:-2], B._data.shape[:-2])
    a = xp.broadcast_to(a, batch + a.shape[-2:])
    b = xp.broadcast_to(B._data, batch + B._data.shape[-2:])
    out = wrap(xp.ascontiguousarray(xp.linalg.solve(a, b)), A)
    return record(out, LinalgSolveTriangularBackward0, (A, B), saved=(A,), save_result=True,
                  upper=upper, b_shape=B.shape)
