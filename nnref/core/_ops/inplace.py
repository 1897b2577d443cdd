"""In-place ops (``add_``, ``mul_``, ``copy_``, ``zero_``, ...) and ``clone``: what optimizers,
initialisers and ``load_state_dict`` write with (``aten/src/ATen/native/BinaryOps.cpp``,
``Fill.cpp``, ``Copy.cpp``).  Each is its out-of-place op written back (``_write``, chapter 05).
``import nnref`` binds ``nnref/_ops/inplace.py``'s: PyTorch's dtype rules, overlap checks, ``out=``.
"""
from .._device import array_module_of
from .._tensor import Tensor, bind
from .._views import check_inplace, rebase_history
from ..autograd.graph import Node
from ._common import needs_grad, record
from .arithmetic import add, div, mul, sub

__all__ = ["add_", "sub_", "mul_", "div_", "lerp_", "addcmul_", "addcdiv_", "copy_", "zero_",
           "fill_", "new_zeros", "clone"]


def _snapshot(tensor):
    """The tensor's values in new memory, at the same place in the graph."""
    copy = Tensor._make(tensor._data.copy(), tensor._device)
    copy._grad_fn, copy._output_nr, copy._requires_grad = tensor.grad_fn, tensor._output_nr, tensor._requires_grad
    return copy


def _write(tensor, compute, *others):
    """``tensor`` set in place to ``compute(old tensor)``, recorded as that op's node."""
    recording = needs_grad(tensor, *others)
    if recording:
        check_inplace(tensor)
    result = compute(_snapshot(tensor) if recording else tensor)
    tensor._data[...] = result._data  # numpy casts to the tensor's dtype
    tensor._bump_version()
    if recording and result.grad_fn is not None:
        rebase_history(tensor, result.grad_fn)
    return tensor


def add_(self, other, *, alpha=1):
    return _write(self, lambda old: add(old, other, alpha=alpha), other)


def sub_(self, other, *, alpha=1):
    return _write(self, lambda old: sub(old, other, alpha=alpha), other)


def mul_(self, other):
    return _write(self, lambda old: mul(old, other), other)


def div_(self, other):
    return _write(self, lambda old: div(old, other), other)


def lerp_(self, end, weight):
    """``self + weight * (end - self)``: Adam's running mean of the gradients."""
    return _write(self, lambda old: add(old, mul(sub(end, old), weight)), end)


def addcmul_(self, tensor1, tensor2, *, value=1):
    """``self + value * tensor1 * tensor2``: Adam's running mean of squared gradients."""
    return _write(self, lambda old: add(old, mul(tensor1, tensor2), alpha=value), tensor1, tensor2)


def addcdiv_(self, tensor1, tensor2, *, value=1):
    """``self + value * tensor1 / tensor2``: Adam's step."""
    return _write(self, lambda old: add(old, div(tensor1, tensor2), alpha=value), tensor1, tensor2)


class ZeroBackward0(Node):
    """The old values were overwritten: no gradient flows back to them."""
    def backward(self, grad):
        return (grad * 0,)


class FillBackward2(ZeroBackward0):
    """``fill_(number)``: as ``zero_``."""


def _fill(self, value, node_class):
    """``self`` set to ``value`` everywhere, recorded as ``node_class`` (its old values get no gradient)."""
    def filled(old):
        data = array_module_of(old._data).full_like(old._data, value)
        return record(Tensor._make(data, old._device), node_class, (old,))
    return _write(self, filled)


def zero_(self):
    return _fill(self, 0, ZeroBackward0)


def fill_(self, value):
    return _fill(self, value, FillBackward2)


def new_zeros(self, size):
    """Zeros of ``self``'s dtype and device (an optimizer's fresh state): ``import nnref`` binds
    ``nnref/_creation.py``'s, with PyTorch's other argument forms."""
    data = array_module_of(self._data).zeros(tuple(size), self._data.dtype)
    return Tensor._make(data, self._device)


class CopyBackwards(Node):
    """``dst.copy_(src)``: the old ``dst`` gets no gradient, ``src`` gets all of it."""
    def name(self):
        return "torch::autograd::CopyBackwards"

    def backward(self, grad):
        return grad * 0, grad


def copy_(self, src):
    """``src``'s values, broadcast and converted, written into ``self``."""
    def copied(old):
        data = array_module_of(old._data).broadcast_to(src._data, old._data.shape)
        return record(Tensor._make(data, old._device), CopyBackwards, (old, src))
    return _write(self, copied, src)


class CloneBackward0(Node):
    """d clone(a) = grad."""
    def backward(self, grad):
        return (grad,)


def clone(self):
    """A copy in new memory, in the graph, in ``self``'s memory order: ``import nnref`` binds
    ``nnref/_ops/shape.py:clone``, which also takes ``memory_format=``."""
    data = array_module_of(self._data).array(self._data, copy=True)
    return record(Tensor._make(data, self._device), CloneBackward0, (self,))


bind(add_=add_, sub_=sub_, mul_=mul_, div_=div_, lerp_=lerp_, addcmul_=addcmul_, addcdiv_=addcdiv_,
     copy_=copy_, zero_=zero_, fill_=fill_, new_zeros=new_zeros, clone=clone, __iadd__=add_, __isub__=sub_,
     __imul__=mul_, __itruediv__=div_)
