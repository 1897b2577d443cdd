"""Determinants: ``torch.linalg.det``, ``torch.linalg.slogdet`` and ``torch.logdet``.

Mirrors ``aten/src/ATen/native/BatchLinearAlgebra.cpp`` (``linalg_det``, ``linalg_slogdet``)
and ``LinearAlgebra.cpp``'s ``logdet``, PyTorch's composite ``where(sign == -1, nan,
logabsdet)`` (so its node is ``WhereBackward0`` over ``LinalgSlogdetBackward0``).  The
gradients are ``linalg_det_backward`` and ``slogdet_backward`` of
``torch/csrc/autograd/FunctionsManual.cpp``: ``grad * det * A^{-H}`` and
``grad_logabsdet * A^{-H}`` (a real sign has no gradient), computed as PyTorch does under grad
mode, ``linalg_solve(A^H, scale * I)``, so that they differentiate again.  At an exactly
singular matrix PyTorch 2.13's ``det`` gradient is 0 (not the cofactor matrix), and so is nnref's.
"""
from collections import namedtuple


from ..core._device import array_module
from ..core.autograd.graph import Node
from ._common import needs_grad, record, wrap
from .linalg_checks import check_floating, check_square, no_half_kernel
from .linalg_solvers import solve
from .pointwise import where

__all__ = ["det", "slogdet", "logdet"]


def _return_type(name):
    cls = namedtuple(name, ["sign", "logabsdet"])
    cls.__repr__ = lambda self: (f"torch.return_types.{name}(\nsign={self.sign!r},\n"
                                 f"logabsdet={self.logabsdet!r})")
    return cls


linalg_slogdet_result = _return_type("linalg_slogdet")
slogdet_result = _return_type("slogdet")


def _adjoint_inverse_times(A, scale):
    """``A^{-H} * scale`` for each matrix, as PyTorch computes it: ``linalg_solve(A^H, scale * I)``."""
    xp = array_module(A._device)
    eye = wrap(xp.eye(A._data.shape[-1], dtype=A._data.dtype), A)
    return solve(A.mT, scale.unsqueeze(-1).unsqueeze(-1) * eye)


class LinalgDetBackward0(Node):
    def backward(self, grad):
        A, det = self.saved_tensors
        singular = det == 0.0
        if singular._data.any():
            # PyTorch's gradient is 0 at an exactly singular matrix (det * A^{-H} with det = 0):
            # solve with the identity in their place, then scale by det = 0
            xp = array_module(A._device)
            eye = wrap(xp.eye(A._data.shape[-1], dtype=A._data.dtype), A)
            A = where(singular.unsqueeze(-1).unsqueeze(-1), eye, A)
        return (_adjoint_inverse_times(A, grad * det),)


def det(A):
    """The determinant of each square matrix of ``A`` (``torch.linalg.det``,
    ``aten/src/ATen/native/BatchLinearAlgebra.cpp``; backward ``linalg_det_backward`` of
    ``torch/csrc/autograd/FunctionsManual.cpp``)."""
    check_square("linalg.det", A)
    check_floating("linalg.det", A)
    no_half_kernel("lu_cpu", A)
    xp = array_module(A._device)
    out = wrap(xp.asarray(xp.linalg.det(A._data)), A)
    return record(out, LinalgDetBackward0, (A,), saved=(A,), save_result=True)


class LinalgSlogdetBackward0(Node):
    num_outputs = 2

    def backward(self, grad_sign, grad_logabsdet):
        (A,) = self.saved_tensors
        if grad_logabsdet is None:  # a real sign is piecewise constant
            return (None,)
        return (_adjoint_inverse_times(A, grad_logabsdet),)

    def _zeros_for_output(self, index):
        return None


def _slogdet(name, A, result_type):
    check_square(name, A)
    check_floating(name, A, low_precision=False)
    xp = array_module(A._device)
    sign, logabsdet = xp.linalg.slogdet(A._data)
    sign, logabsdet = wrap(xp.asarray(sign), A), wrap(xp.asarray(logabsdet), A)
    if needs_grad(A):
        node = LinalgSlogdetBackward0((A,), (A,))
        sign.grad_fn, logabsdet.grad_fn = node, node
        sign._output_nr, logabsdet._output_nr = 0, 1
    return result_type(sign, logabsdet)


def slogdet(A):
    """``(sign, logabsdet)``: the sign of each determinant of ``A`` and the log of its absolute
    value, exact where ``det`` would under- or overflow (``torch.linalg.slogdet``,
    ``aten/src/ATen/native/BatchLinearAlgebra.cpp``; backward ``slogdet_backward`` of
    ``torch/csrc/autograd/FunctionsManual.cpp``)."""
    return _slogdet("linalg.slogdet", A, linalg_slogdet_result)


def torch_slogdet(input):
    """``(sign, logabsdet)`` as :func:`nnref.linalg.slogdet`, as a ``torch.return_types.slogdet``
    (``torch.slogdet``, ``aten/src/ATen/native/BatchLinearAlgebra.cpp``)."""
    return _slogdet("linalg.slogdet", input, slogdet_result)


def torch_det(input):
    """``torch.det``: :func:`det` (``torch.linalg.det``) under the name ``input`` PyTorch's
    ``torch`` namespace gives its argument (``linalg.det`` calls it ``A``)."""
    return det(input)


torch_slogdet.__name__ = torch_slogdet.__qualname__ = "slogdet"
torch_det.__name__ = torch_det.__qualname__ = "det"


def logdet(input):
    """The log of each determinant of ``input``: NaN for a negative determinant, -inf for a zero
    one (``torch.logdet``, ``aten/src/ATen/native/LinearAlgebra.cpp``: ``where(sign == -1, nan,
    logabsdet)``)."""
    check_square("logdet", input)
    check_floating("logdet", input, low_precision=False)
    sign, logabsdet = _slogdet("linalg.slogdet", input, linalg_slogdet_result)
    return where(sign == -1.0, float("nan"), logabsdet)
