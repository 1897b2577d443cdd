"""What every op shares: dtype promotion, operand preparation, and the "record a node?" test.

Type promotion is the core's ``result_type`` (``nnref/core/_ops/arithmetic.py``), PyTorch's
``torch.result_type`` (aten/src/ATen/native/TypeProperties.cpp): dimensioned tensors outrank
zero-dim tensors, which outrank Python numbers, and a lower group only matters when it brings
a higher *category* (bool < int < float).
So ``int_tensor * 2.5`` is float32 and ``half_tensor * 2.0`` stays float16.
"""
import builtins
import importlib

import numpy as np

from ..core import _dtype
from .._half import through_float32
from ..core._device import array_module, array_module_of
from ..core._tensor import Tensor
from ..core.autograd.graph import Node
from ..autograd.anomaly_mode import _AnomalyState
from ..core._ops._common import needs_grad
from ..core._ops.arithmetic import _scalar_dtype, result_type  # noqa: F401 - the ops import result_type from here


def size_arguments(function, name, args, keyword):
    """A ``*size``-style parameter as PyTorch's argument parser reads it: ``f(2, 3)``,
    ``f((2, 3))`` or ``f(name=(2, 3))`` (``torch/csrc/utils/python_arg_parser.cpp``)."""
    if keyword is not None:
        if args:
            raise TypeError(f"{function}() got multiple values for argument '{name}'")
        args = (keyword,)
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        return tuple(args[0])
    return tuple(args)


def torch_result_type(*operands, tensor=None, other=None, scalar=None, scalar1=None, scalar2=None):
    """``torch.result_type``: the dtype an op on two operands computes in, the operands by position
    or under the names of PyTorch's overloads ``(tensor, other)``, ``(scalar, tensor)`` and
    ``(scalar1, scalar2)`` (the order does not matter to the result)."""
    operands = [*operands, *(v for v in (scalar, scalar1, tensor, other, scalar2) if v is not None)]
    if len(operands) != 2:
        raise TypeError("result_type() takes two operands: result_type(tensor, other), "
                        "result_type(scalar, tensor) or result_type(scalar1, scalar2)")
    return result_type(*operands)


torch_result_type.__name__ = torch_result_type.__qualname__ = "result_type"


def check_same_device(a, b):
    """PyTorch's rule: the tensors of one op share a device; only a 0-d CPU tensor may join
    another device's tensor, as a number would."""
    if a._device is b._device or a._device == b._device:
        return
    if (a._device.type == "cpu" and not a._data.ndim) or (b._device.type == "cpu" and not b._data.ndim):
        return
    if "meta" in (a._device.type, b._device.type):  # PyTorch's meta kernels word it this way
        raise RuntimeError(f"Tensor on device {b._device} is not on the expected device {a._device}!")
    raise RuntimeError(
        f"Expected all tensors to be on the same device, but found at least two devices, "
        f"{a._device} and {b._device}! Move one of them first, e.g. b.to(a.device).")


def check_one_device(*tensors):
    """:func:`check_same_device` over an op's tensor arguments (None for an absent optional one)."""
    first = None
    for t in tensors:
        if t is not None:
            if first is None:
                first = t
            else:
                check_same_device(first, t)


def operand_data(x, dtype):
    """The raw array (or numpy scalar) of a tensor or number, in ``dtype``.

    A 0-d numpy array becomes a numpy scalar: that is how a 0-d CPU tensor joins an op on
    a GPU tensor, as a number would (CuPy refuses numpy arrays, even 0-d ones).
    """
    if isinstance(x, Tensor):
        data = x._data
        if not data.ndim and type(data) is np.ndarray:
            data = data[()]
        return data if data.dtype == dtype.numpy else through_float32(data, dtype.numpy).astype(dtype.numpy)
    return dtype.numpy.type(through_float32(x, dtype.numpy))


def from_accumulator(data, dtype):
    """Round a result computed in ``dtype._accumulate`` (float32 for 16-bit floats) back to ``dtype``.

    Values beyond the 16-bit range become inf silently, as in PyTorch.
    """
    if dtype._accumulate is dtype.numpy:
        return data
    with np.errstate(over="ignore"):
        return data.astype(dtype.numpy)


def running(scan, data, axis, dtype, device):
    """``scan`` (``xp.cumsum``/``xp.cumprod``) of ``data`` along ``axis`` as ATen's scans do it.

    The input is cast to the result's ``dtype`` first, then the running value is carried in
    ``acc_type<T, is_cuda>`` (``aten/src/ATen/AccumulateType.h``) and each output rounded to
    ``dtype``: on the CPU, double for float32 and float64, float for the 16-bit floats, int64 for
    integers; on a GPU, float for every float type but double.
    """
    if dtype is _dtype.bool:
        raise NotImplementedError(f'"{scan.__name__}_out_cpu" not implemented for \'Bool\'')
    with np.errstate(over="ignore", invalid="ignore"):
        source = through_float32(data, dtype.numpy).astype(dtype.numpy, copy=False)
        if dtype.is_floating_point and not (device.type == "cuda" and dtype.itemsize <= 4):
            carried = np.dtype(np.float64) if dtype.itemsize >= 4 else np.dtype(np.float32)
        else:
            carried = dtype._accumulate
        result = scan(source, axis=axis, dtype=carried)
        return result if result.dtype == dtype.numpy else result.astype(dtype.numpy)


def float_data(t):
    """``t``'s array, promoted to the default float dtype if it holds integers (exp, log, ...)."""
    if t._dtype.is_floating_point:
        return t._data
    return t._data.astype(_dtype.get_default_dtype().numpy)


def broadcast_error(a, b):
    """Turn numpy's broadcasting ValueError into PyTorch's RuntimeError, naming the dimension."""
    sa, sb = tuple(a.shape), tuple(b.shape)  # arrays or numpy scalars
    for i in range(1, builtins.max(len(sa), len(sb)) + 1):
        x = sa[-i] if i <= len(sa) else 1
        y = sb[-i] if i <= len(sb) else 1
        if x != y and x != 1 and y != 1:
            return RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) at "
                f"non-singleton dimension {builtins.max(len(sa), len(sb)) - i}; shapes "
                f"{list(sa)} and {list(sb)} cannot be broadcast together")
    return RuntimeError(f"shapes {list(sa)} and {list(sb)} cannot be broadcast together")


def float_input(name, input):
    """``input``'s array, or PyTorch's "not implemented for 'Long'" error for a kernel (``name``)
    that only has floating-point versions."""
    if not input._dtype.is_floating_point:
        raise NotImplementedError(f'"{name}" not implemented for \'{input._dtype._legacy_name[:-6]}\'; '
                                  "convert the input to a floating point dtype first, e.g. x.float()")
    return input._data


def special_function(name, x, *args):
    """``scipy.special.<name>(*args, x)`` (``cupyx.scipy.special`` on the GPU), in ``x``'s dtype:
    numpy has no erf, gamma functions or their kin."""
    module = "scipy.special" if array_module_of(x) is np else "cupyx.scipy.special"
    try:
        special = importlib.import_module(module)
    except ImportError:
        raise RuntimeError(f"{name} needs {module}: install SciPy (pip install scipy)") from None
    with np.errstate(all="ignore"):
        return getattr(special, name)(*args, x).astype(x.dtype, copy=False)


def record(out, node_class, inputs, saved=(), *, save_result=False, **fields):
    """Give ``out`` the backward node ``node_class(inputs, saved, **fields)`` when autograd
    records this op (:func:`needs_grad`), and return ``out``: what PyTorch's generated op code
    does with ``collect_next_edges`` and ``set_history`` (``torch/csrc/autograd/functions/utils.h``).

    ``saved`` are the tensors the derivative reads (their versions are noted, so a later
    in-place change is caught); ``save_result`` saves ``out`` itself (``exp``, ``tanh`` and
    ``relu`` reuse their result); ``fields`` are the plain values it needs.
    """
    if needs_grad(*inputs):
        node = node_class(inputs, saved)
        if fields:
            if _AnomalyState.enabled:
                fields["_anomaly_stack"] = node._anomaly_stack
            node.__dict__ = fields  # this call's own dict, so no copy (as Node.__init__ does)
        if save_result:
            node.save_result(out)
        out.grad_fn = node
    return out


def wrap(data, like):
    """A new result tensor on ``like``'s device."""
    return Tensor._make(data, like._device)


def as_tensor(x, like):
    """Numbers become 0-d tensors on ``like``'s device (for ops that need a tensor on both sides)."""
    if isinstance(x, Tensor):
        return x
    return Tensor._make(array_module(like._device).asarray(x, dtype=_scalar_dtype(x).numpy), like._device)


class NotImplemented(Node):  # noqa: A001 - PyTorch's name, shown as grad_fn=<NotImplemented>
    """The node of an op PyTorch defines no derivative for (``functions/basic_ops.h``).

    The result still requires grad, as in PyTorch; backward through it raises.
    """

    def __init__(self, op, inputs):
        super().__init__(tuple(t for t in inputs if t is not None and t.requires_grad))
        self.op = op

    def name(self):
        return "torch::autograd::NotImplemented"

    def backward(self, *grad_outputs):
        raise RuntimeError(f"derivative for aten::{self.op} is not implemented")
