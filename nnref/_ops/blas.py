"""``beta * input + alpha * product`` ops (``addmv``, ``addr``, ``baddbmm``, ``addbmm``), ``vdot``,
``kron``, ``cross`` and ``dist``.

Mirrors ``aten/src/ATen/native/Blas.cpp`` (addmv), ``LinearAlgebra.cpp`` (addr, baddbmm, addbmm,
kron), ``Blas.cpp``'s ``vdot`` and ``Cross.cpp`` (``linalg_cross``).  Gradients are those of
``tools/autograd/derivatives.yaml``, written with nnref's ``mm``/``mv``/``bmm`` so that they
differentiate again; a broadcast ``input`` gets its gradient summed back by the engine.  With
``beta=0`` the input is ignored (a NaN in it does not reach the result), as in PyTorch.
``kron`` is PyTorch's composite: two ``_unsafe_view``s, a broadcast ``mul`` and a last
``_unsafe_view``, so its graph is PyTorch's.
"""
import builtins
import numbers
import warnings

import numpy as np

from ..core._device import array_module
from ..core._tensor import _wrap_dim
from ..core.autograd.graph import Node
from ._common import check_same_device, from_accumulator, record, wrap
from .linalg import _same_dtype, bmm, dot, mm, mv
from .shape import _unsafe_view

__all__ = ["addmv", "addr", "baddbmm", "addbmm", "vdot", "kron", "cross", "dist"]


def _check_scalars(input, beta, alpha):
    if not input._dtype.is_floating_point:
        for name, value in (("beta", beta), ("alpha", alpha)):
            if isinstance(value, float) or (isinstance(value, numbers.Real) and not isinstance(value, numbers.Integral)):
                raise RuntimeError(f"For integral input tensors, argument {name} must not be a floating point number.")


def _combine(name, input, product, beta, alpha, tensors):
    """``beta * input + alpha * product`` in the accumulation dtype, broadcast to the product's shape."""
    dtypes = [t._dtype for t in (input, *tensors)]
    if builtins.any(d is not dtypes[0] for d in dtypes):
        raise RuntimeError(f"{name} input tensors must have the same dtype, but got "
                           + ", ".join(d._legacy_name[:-6] for d in dtypes[:-1]) + f", and {dtypes[-1]._legacy_name[:-6]}")
    for t in tensors:
        check_same_device(input, t)
    if name == "addr":  # (the others truncate float scalars for integer tensors, as PyTorch does)
        _check_scalars(input, beta, alpha)
    xp = array_module(input._device)
    dtype = input._dtype
    accumulate = dtype._accumulate
    result = product.astype(accumulate, copy=False)
    if alpha != 1:
        result = result * accumulate.type(alpha)
    if beta != 0:
        try:
            bias = xp.broadcast_to(input._data.astype(accumulate, copy=False), result.shape)
        except ValueError:
            raise RuntimeError(f"The expanded size of the tensor ({result.shape[-1]}) must match the existing size "
                               f"({input._data.shape[-1]}) at non-singleton dimension {input._data.ndim - 1}.  Target "
                               f"sizes: {list(result.shape)}.  Tensor sizes: {list(input._data.shape)}") from None
        result = result + (bias if beta == 1 else bias * accumulate.type(beta))
    return from_accumulator(xp.ascontiguousarray(result, dtype=accumulate), dtype)


def _products(a, b, function):
    accumulate = a._dtype._accumulate
    return function(a._data.astype(accumulate, copy=False), b._data.astype(accumulate, copy=False))


def _scaled(grad, factor):
    return grad if factor == 1 else grad * factor


class AddmvBackward0(Node):
    def backward(self, grad):
        mat, vec = self.saved_tensors
        wants_self, wants_mat, wants_vec = self.needs_input_grad
        return (_scaled(grad, self.beta) if wants_self else None,
                _scaled(grad.unsqueeze(1) * vec, self.alpha) if wants_mat else None,
                _scaled(mv(mat.t(), grad), self.alpha) if wants_vec else None)


def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)`` (``torch.addmv``, ``aten/src/ATen/native/Blas.cpp``)."""
    if mat._data.ndim != 2 or vec._data.ndim != 1 or input._data.ndim > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input._data.ndim}, {mat._data.ndim}, "
                           f"{vec._data.ndim}")
    rows, columns = mat._data.shape
    if columns != vec._data.shape[0] or (input._data.ndim and input._data.shape[0] not in (1, rows)):
        raise RuntimeError(f"size mismatch, got input ({input._data.shape[0] if input._data.ndim else 1}), mat "
                           f"({rows}x{columns}), vec ({vec._data.shape[0]})")
    xp = array_module(input._device)
    data = _combine("addmv", input, _products(mat, vec, xp.matmul), beta, alpha, (mat, vec))
    out = wrap(data, input)
    return record(out, AddmvBackward0, (input, mat, vec), saved=(mat, vec), beta=beta, alpha=alpha)


class AddrBackward0(Node):
    def backward(self, grad):
        vec1, vec2 = self.saved_tensors
        wants_self, wants_vec1, wants_vec2 = self.needs_input_grad
        return (_scaled(grad, self.beta) if wants_self else None,
                _scaled(mv(grad, vec2), self.alpha) if wants_vec1 else None,
                _scaled(mv(grad.t(), vec1), self.alpha) if wants_vec2 else None)


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)`` (``torch.addr``,
    ``aten/src/ATen/native/LinearAlgebra.cpp``)."""
    for name, vec in (("vec1", vec1), ("vec2", vec2)):
        if vec._data.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {vec._data.ndim}-D")
    xp = array_module(input._device)
    data = _combine("addr", input, _products(vec1, vec2, xp.outer), beta, alpha, (vec1, vec2))
    out = wrap(data, input)
    return record(out, AddrBackward0, (input, vec1, vec2), saved=(vec1, vec2), beta=beta, alpha=alpha)


def _check_batches(input, batch1, batch2, summed):
    if batch1._data.ndim != 3 or batch2._data.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor" if batch1._data.ndim != 3 else "batch2 must be a 3D tensor")
    (b, n, m), (b2, m2, p) = batch1._data.shape, batch2._data.shape
    if b != b2:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got {b} and {b2}")
    if m != m2:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {m}] but got: "
                           f"[{b2}, {m2}].")


class BaddbmmBackward0(Node):
    def backward(self, grad):
        batch1, batch2 = self.saved_tensors
        wants_self, wants_1, wants_2 = self.needs_input_grad
        return (_scaled(grad, self.beta) if wants_self else None,
                _scaled(bmm(grad, batch2.transpose(1, 2)), self.alpha) if wants_1 else None,
                _scaled(bmm(batch1.transpose(1, 2), grad), self.alpha) if wants_2 else None)


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * bmm(batch1, batch2)`` (``torch.baddbmm``,
    ``aten/src/ATen/native/LinearAlgebra.cpp``)."""
    _check_batches(input, batch1, batch2, False)
    xp = array_module(input._device)
    data = _combine("baddbmm", input, _products(batch1, batch2, xp.matmul), beta, alpha, (batch1, batch2))
    out = wrap(data, input)
    return record(out, BaddbmmBackward0, (input, batch1, batch2), saved=(batch1, batch2), beta=beta, alpha=alpha)


class AddbmmBackward0(Node):
    def backward(self, grad):
        batch1, batch2 = self.saved_tensors
        wants_self, wants_1, wants_2 = self.needs_input_grad
        b, n, p = batch1.shape[0], grad.shape[0], grad.shape[1]
        every = grad.unsqueeze(0).expand(b, n, p)
        return (_scaled(grad, self.beta) if wants_self else None,
                _scaled(bmm(every, batch2.transpose(1, 2)), self.alpha) if wants_1 else None,
                _scaled(bmm(batch1.transpose(1, 2), every), self.alpha) if wants_2 else None)


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum over the batch of batch1[i] @ batch2[i]`` (``torch.addbmm``,
    ``aten/src/ATen/native/LinearAlgebra.cpp``)."""
    _check_batches(input, batch1, batch2, True)
    xp = array_module(input._device)
    product = _products(batch1, batch2, lambda a, b: xp.sum(xp.matmul(a, b), axis=0))
    data = _combine("addbmm", input, product, beta, alpha, (batch1, batch2))
    out = wrap(data, input)
    return record(out, AddbmmBackward0, (input, batch1, batch2), saved=(batch1, batch2), beta=beta, alpha=alpha)


class VdotBackward0(Node):
    def backward(self, grad):
        self_, other = self.saved_tensors
        wants_self, wants_other = self.needs_input_grad
        return (grad * other if wants_self else None, grad * self_ if wants_other else None)


def vdot(input, other):
    """The dot product of two 1-d tensors (the first conjugated, which changes nothing for real
    tensors) (``torch.vdot``, ``aten/src/ATen/native/Blas.cpp``)."""
    if input._data.ndim == 1 and other._data.ndim == 1 and input._dtype is not other._dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{input._dtype._legacy_name[:-6]} and {other._dtype._legacy_name[:-6]}")
    out = dot(input.detach(), other.detach())
    return record(out, VdotBackward0, (input, other), saved=(input, other))


def kron(input, other):
    """The Kronecker product: every element of ``input`` times all of ``other``, as blocks
    (``torch.kron``, ``aten/src/ATen/native/LinearAlgebra.cpp``)."""
    ndim = builtins.max(input._data.ndim, other._data.ndim)
    pad_self, pad_other = ndim - input._data.ndim, ndim - other._data.ndim
    a_shape, b_shape, result_shape = [], [], []
    for i in range(ndim):
        a = input._data.shape[i - pad_self] if i >= pad_self else 1
        b = other._data.shape[i - pad_other] if i >= pad_other else 1
        a_shape += [a, 1]
        b_shape += [1, b]
        result_shape.append(a * b)
    from .arithmetic import mul
    return _unsafe_view(mul(_unsafe_view(input, a_shape), _unsafe_view(other, b_shape)), result_shape)


class LinalgCrossBackward0(Node):
    def backward(self, grad):
        self_, other = self.saved_tensors
        wants_self, wants_other = self.needs_input_grad
        return (cross(other, grad, dim=self.dim) if wants_self else None,
                cross(grad, self_, dim=self.dim) if wants_other else None)


def cross(input, other, dim=None):
    """The cross product of 3-vectors along ``dim`` (with ``dim=None``, the first dim of size 3,
    with PyTorch's deprecation warning); batch dims broadcast (``torch.cross``,
    ``aten/src/ATen/native/Cross.cpp``)."""
    if input._data.ndim != other._data.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    _same_dtype("linalg.cross", input, other)
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the "
                      "dim explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to "
                      "agree with that of linalg.cross in a future release.", UserWarning, stacklevel=2)
        dim = next((d for d, size in enumerate(np.broadcast_shapes(input._data.shape, other._data.shape))
                    if size == 3), None)
        if dim is None:
            raise RuntimeError("no dimension of size 3 in input")
    given, dim = dim, _wrap_dim(dim, input._data.ndim)
    if input._data.shape[dim] != 3 or other._data.shape[dim] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {given} must have length 3. Got "
                           f"{input._data.shape[dim]} and {other._data.shape[dim]}")
    xp = array_module(input._device)
    try:
        data = xp.cross(input._data, other._data, axis=dim)
    except ValueError:
        from ._common import broadcast_error
        raise broadcast_error(input._data, other._data) from None
    out = wrap(xp.ascontiguousarray(data), input)
    return record(out, LinalgCrossBackward0, (input, other), saved=(input, other), dim=dim)


class DistBackward0(Node):
    """``norm_backward`` of ``input - other`` (the same for ``other``, negated)."""

    def backward(self, grad):
        from .reduction import norm_backward
        self_, other, result = self.saved_tensors
        difference = self_ - other
        grad_self = norm_backward(grad, difference, result, self.p, tuple(range(difference._data.ndim)), False)
        if grad_self is None:  # p = 0: no gradient; PyTorch's node fails negating it for ``other``
            if self.needs_input_grad[1]:
                raise RuntimeError("Expected a proper Tensor but got None (or an undefined Tensor in C++) for "
                                   "argument #0 'self'")
            return None, None
        return grad_self, -grad_self


def dist(input, other, p=2):
    """The p-norm of ``input - other`` (broadcast), a 0-d tensor (``torch.dist``,
    ``aten/src/ATen/native/Distance.cpp``)."""
    from ._common import broadcast_error, result_type
    from .reduction import _vector_norm
    check_same_device(input, other)
    dtype = result_type(input, other)
    if not dtype.is_floating_point:
        raise RuntimeError(f"norm(): input dtype should be either floating point or complex. Got "
                           f"{dtype._legacy_name[:-6]} instead.")
    a = input._data.astype(dtype._accumulate, copy=False)
    b = other._data.astype(dtype._accumulate, copy=False)
    try:
        difference = a - b
    except ValueError:
        raise broadcast_error(input._data, other._data) from None
    xp = array_module(input._device)
    with np.errstate(over="ignore"):
        data = _vector_norm(difference, p, tuple(range(difference.ndim)), False)
    out = wrap(from_accumulator(xp.asarray(data), dtype), input)
    return record(out, DistBackward0, (input, other), saved=(input, other), save_result=True, p=p)
