"""Weight initialisation schemes (``torch/nn/init.py``): same formulas, defaults and errors.

Every function fills its tensor in place under ``no_grad`` (so it works on
parameters that require grad) and returns it.  The numbers are PyTorch's: after
the same ``manual_seed`` (or with an equally seeded ``generator=``) every
initialisation gives PyTorch's values.
"""
import math
import numbers
import warnings

from .._creation import arange, empty, empty_like, eye, randperm
from .._ops.pointwise import where
from .._ops.shape import stack
from ..core.autograd.grad_mode import no_grad
from .parameter import _USE_MESSAGE, is_lazy
from ..core._seams import install
from ..core.nn import init as _core_init
from ..core.nn.init import (  # noqa: F401 - the core's, the public ones
    _calculate_correct_fan, _calculate_fan_in_and_fan_out, kaiming_uniform_, uniform_)

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_", "zeros_",
           "eye_", "dirac_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
           "orthogonal_", "sparse_", "uniform", "normal", "constant", "xavier_uniform", "xavier_normal",
           "kaiming_uniform", "kaiming_normal"]


def calculate_gain(nonlinearity, param=None):
    """The factor that keeps activations' variance through ``nonlinearity``: 1 for linear/conv/
    sigmoid, 5/3 tanh, sqrt(2) relu, sqrt(2 / (1 + slope**2)) leaky_relu (slope ``param``,
    default 0.01), 3/4 selu.  PyTorch's table, installed over the core's (leaky_relu only)."""
    if nonlinearity in ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                        "conv_transpose2d", "conv_transpose3d", "sigmoid"):
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif isinstance(param, numbers.Real) and not isinstance(param, bool):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _refuse_uninitialized(function, tensor):
    """PyTorch's ``uniform_``, ``normal_``, ``constant_`` and ``kaiming_uniform_`` first offer a
    tensor subclass its ``__torch_function__``; an uninitialized parameter's refuses there, naming
    the function, before any shape is read (the others fail later, on the first method they call)."""
    if is_lazy(tensor):
        raise ValueError(_USE_MESSAGE.format(where=f" in {function!r}", cls=type(tensor).__name__))


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill with samples from N(mean, std**2)."""
    _refuse_uninitialized(normal_, tensor)
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """N(mean, std**2) restricted to ``[a, b]``, drawn by rejection as PyTorch 2.13 draws it.

    When most of the mass lies inside (``p > 0.3``) the normal is drawn and every value out of
    bounds is redrawn from a whole new normal tensor until none is left; otherwise candidates
    come uniformly from ``[a, b]`` and are accepted with probability ``pdf / pdf(mode)``.  The
    same draws in the same order as PyTorch's, so a seeded call gives its values.
    """

    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    if tensor.is_meta:
        return tensor  # PyTorch's in-place draws on 'meta' change nothing, and no retry can be decided
    with no_grad():
        if norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std) > 0.3:
            # the bounds as the tensor's dtype holds them, so the mask agrees with its values
            lo, hi = (tensor.new_tensor(bound, device="cpu").item() for bound in (a, b))
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                mask = (result < lo) | (result > hi)
                if not mask.any():
                    break
                result = where(mask, empty_like(result).normal_(mean, std, generator=generator), result)
            if tensor is not result:
                tensor.copy_(result)
            return tensor
        log_peak = -0.5 * ((max(a, min(mean, b)) - mean) / std) ** 2
        candidates, accept = empty_like(tensor), empty_like(tensor)
        tensor.uniform_(a, b, generator=generator)
        candidates.copy_(tensor)
        candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)  # log pdf / pdf(mode)
        pending = accept.uniform_(generator=generator).log_().gt(candidates)
        if pending.any():
            result = tensor
            while True:
                candidates.uniform_(a, b, generator=generator)
                result = where(pending, candidates, result)
                candidates.sub_(mean).div_(std).pow_(2).mul_(-0.5).sub_(log_peak)
                pending = where(pending, accept.uniform_(generator=generator).log_().gt(candidates), pending)
                if not pending.any():
                    break
            tensor.copy_(result)
        return tensor


def constant_(tensor, val):
    """Fill with the number ``val``."""
    _refuse_uninitialized(constant_, tensor)
    with no_grad():
        return tensor.fill_(val)


def ones_(tensor):
    """Fill with ones."""
    with no_grad():
        return tensor.fill_(1.0)


def zeros_(tensor):
    """Fill with zeros."""
    with no_grad():
        return tensor.zero_()


def eye_(tensor):
    """The identity matrix in a 2-d tensor (ones on the main diagonal of a rectangle too)."""
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        tensor.copy_(eye(*tensor.shape, dtype=tensor.dtype, device=tensor.device))
    return tensor


def dirac_(tensor, groups=1):
    """A convolution weight that passes its input through: 1 at the kernel's centre, channel to
    channel, within each of ``groups`` groups; 0 elsewhere."""
    dimensions = tensor.dim()
    if dimensions not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = tensor.shape
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_chans_per_grp = sizes[0] // groups
    min_dim = min(out_chans_per_grp, sizes[1])
    with no_grad():
        tensor.zero_()
        channel = arange(min_dim, device=tensor.device)
        outputs = (arange(groups, device=tensor.device) * out_chans_per_grp).unsqueeze(1) + channel
        centre = tuple(size // 2 for size in sizes[2:])
        tensor[(outputs.reshape(-1), channel.repeat(groups)) + centre] = 1
    return tensor


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """U(-a, a) with ``a = gain * sqrt(6 / (fan_in + fan_out))`` (Glorot & Bengio, 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std  # a uniform on [-a, a] has standard deviation a / sqrt(3)
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """N(0, std**2) with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """N(0, std**2) with ``std = gain / sqrt(fan)``."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix (Saxe et al., 2013), over the trailing dimensions flattened.

    The same normal draws as PyTorch, then a QR factorisation made unique by the signs of
    ``R``'s diagonal.  The factorisation is numpy's (CuPy's on the GPU) LAPACK call, not the
    one PyTorch links, so the values agree with PyTorch's to float rounding, not bit for bit.
    """
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    from ..core._device import array_module_of
    from .._ops._common import wrap
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flattened = empty((rows, cols), dtype=tensor.dtype, device=tensor.device).normal_(
        0, 1, generator=generator)._data
    if rows < cols:
        flattened = flattened.T
    xp = array_module_of(flattened)
    q, r = xp.linalg.qr(flattened)
    q *= xp.sign(xp.diagonal(r))  # make Q unique: arxiv.org/abs/math-ph/0609050
    if rows < cols:
        q = q.T
    with no_grad():
        tensor.view(rows, cols).copy_(wrap(xp.ascontiguousarray(q), tensor))
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """N(0, std**2) with ``ceil(sparsity * rows)`` zeros in each column (Martens, 2010).

    As in PyTorch, the zeros' rows come from one ``randperm`` per column drawn from the global
    generator, whatever ``generator`` says.
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = math.ceil(sparsity * rows)
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        if cols:
            zero_rows = stack([randperm(rows)[:num_zeros] for _ in range(cols)], dim=1)
            tensor[zero_rows.to(tensor.device), arange(cols, device=tensor.device)] = 0
    return tensor


def _make_deprecate(method):
    """PyTorch's old names without the underscore: they warn, then call the new one."""
    new_name = method.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
                      FutureWarning, stacklevel=2)
        return method(*args, **kwargs)

    deprecated_init.__doc__ = f"Deprecated: use ``nn.init.{new_name}``."
    deprecated_init.__name__ = deprecated_init.__qualname__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)


from .._namespace import public_dir as _public_dir  # noqa: E402

__dir__ = _public_dir(globals(), __all__)


def _fill_uniform(tensor, a, b, generator=None):
    """``Tensor.uniform_``: PyTorch's numbers from its (seeded) generator."""
    return tensor.uniform_(a, b, generator=generator)


install(_core_init, "empty", empty)
install(_core_init, "fill_uniform", _fill_uniform)
install(_core_init, "check_initialized", _refuse_uninitialized)
install(_core_init, "calculate_gain", calculate_gain)
