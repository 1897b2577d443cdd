"""The initialisations the layers use (``torch/nn/init.py``): each fills its tensor in place under
``no_grad`` (so it works on parameters) and returns it."""
import math
import warnings

import numpy as np

from .. import _dtype
from .._device import canonical_device
from .._tensor import Tensor
from ..autograd.grad_mode import no_grad

__all__ = ["calculate_gain", "uniform_", "kaiming_uniform_"]
__seams__ = ("empty", "fill_uniform", "check_initialized", "calculate_gain")


# Seam: a layer's new parameter tensor; nnref/nn/init.py puts nnref.empty (every device, dtype)
def empty(size, device=None, dtype=None):
    if canonical_device(device).type != "cpu":
        raise NotImplementedError("the core makes parameters on the CPU only: import nnref")
    return Tensor._make(np.empty(size, (dtype or _dtype.get_default_dtype()).numpy))


# Seam: fills with U(a, b); nnref/nn/init.py puts Tensor.uniform_ (PyTorch's seeded numbers)
def fill_uniform(tensor, a, b, generator=None):
    tensor._data[...] = (generator or np.random.default_rng()).uniform(a, b, tensor.shape)
    return tensor


# Seam: nnref/nn/init.py puts the refusal of lazy modules' uninitialized parameters here
def check_initialized(function, tensor):
    pass


# Seam: a nonlinearity's gain; nnref/nn/init.py puts PyTorch's whole table (tanh, relu, selu ...)
def calculate_gain(nonlinearity, param=None):
    """``sqrt(2 / (1 + slope**2))``: the factor that keeps activations' variance through a leaky
    ReLU of negative slope ``param`` (default 0.01)."""
    if nonlinearity != "leaky_relu":
        raise NotImplementedError(f"the core's calculate_gain knows leaky_relu only, not "
                                  f"{nonlinearity!r}: import nnref for the others")
    negative_slope = 0.01 if param is None else param
    return math.sqrt(2.0 / (1 + negative_slope ** 2))


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill with samples from U(a, b)."""
    check_initialized(uniform_, tensor)
    with no_grad():
        return fill_uniform(tensor, a, b, generator)


def _calculate_fan_in_and_fan_out(tensor):
    """``(fan_in, fan_out)`` of a weight ``(out, in, *kernel)``: in/out times the kernel size."""
    if tensor.dim() < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    receptive_field_size = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive_field_size, tensor.shape[0] * receptive_field_size


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of ['fan_in', 'fan_out']")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """U(-bound, bound) with ``bound = gain * sqrt(3 / fan)`` (He et al., 2015); ``a`` is the
    slope of the leaky ReLU after the layer: the layers' ``a=sqrt(5)`` gives 1 / sqrt(fan_in)."""
    check_initialized(kaiming_uniform_, tensor)
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)
