"""``nnref.nn.functional``: the stateless functions that layers call (``torch/nn/functional.py``).

Each function checks its arguments the way PyTorch's does (same exception
types, messages that name the function and the shapes involved) and then
calls a core op or a kernel in :mod:`nnref._ops.native`.
"""
import math
import numbers
import warnings

import numpy as np

from .. import _random
from ..core import _dtype
from ..core._device import array_module
from .. import _meta
from .._ops import pointwise as _pointwise, shape as _shape, softmax as _softmax
from .._ops._common import broadcast_error, check_one_device, float_input, needs_grad
from .._ops.inplace import apply_inplace
from .._ops.out import with_out as _with_out
from .._ops import arithmetic as _arithmetic
from .._ops.linalg import addmm, matmul
from .._numpy_names import accept_numpy_names as _accept_numpy_names
from ..core._seams import install as _install
from ..core._tensor import Tensor
from ..core.nn import functional as _core_functional
from ..core.autograd.grad_mode import no_grad
from .._ops import (native as _native, native_activation as _native_activation,
                    native_conv as _native_conv, native_loss as _native_loss,
                    margin_loss as _margin_loss, multi_margin_loss as _multi_margin_loss,
                    native_pooling as _native_pooling, piecewise_activation as _piecewise,
                    pixel_shuffle as _pixel_shuffle, embedding_bag as _embedding_bag, pad_modes as _pad_modes,
                    smooth_activation as _smooth_activation, im2col as _im2col, unpool as _unpool,
                    upsample as _upsample,
                    pdist as _pdist)

__all__ = ["linear", "relu", "sigmoid", "tanh", "softmax", "log_softmax", "dropout",
           "conv2d", "max_pool2d", "max_pool2d_with_indices", "batch_norm", "layer_norm",
           "embedding", "mse_loss", "nll_loss", "cross_entropy", "binary_cross_entropy_with_logits"]


def _linear(input, weight, bias=None):
    """``input @ weight.T + bias``, recorded with the same nodes PyTorch records.

    A 2-D input with a bias is one fused ``addmm`` (``AddmmBackward0``); other
    inputs with a bias are flattened to 2-D around it; without a bias it is a
    plain ``matmul``.
    """
    if bias is not None and weight.dim() == 2:
        if input.dim() == 2:
            return addmm(bias, input, weight.t())
        rows = input.reshape(-1, input.shape[-1]) if input.dim() else input
        out = addmm(bias, rows, weight.t())
        return out.view(*input.shape[:-1], weight.shape[0])
    out = matmul(input, weight.t())
    return out if bias is None else out + bias


# --------------------------------------------------------------------------------------------
# Activations (torch/nn/functional.py: relu, softmax, log_softmax; sigmoid/tanh are torch's)
# --------------------------------------------------------------------------------------------

def _relu(input, inplace=False):
    """``max(x, 0)``; ``inplace=True`` overwrites ``input`` (still recorded as ``ReluBackward0``)."""
    if inplace:
        return apply_inplace(input, _pointwise.relu)
    return _pointwise.relu(input)


def sigmoid(input):
    """``1 / (1 + exp(-x))`` (PyTorch deprecates ``F.sigmoid`` for ``torch.sigmoid``; same op)."""
    return _pointwise.sigmoid(input)


def tanh(input):
    """The hyperbolic tangent, as :func:`nnref.tanh` (``torch.nn.functional.tanh``,
    ``torch/nn/functional.py``)."""
    return _pointwise.tanh(input)


def _softmax_dim(name, ndim, stacklevel):
    """The dimension PyTorch picks when none is given, with its deprecation warning."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to "
                  "include dim=X as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim``."""
    if dim is None:
        dim = _softmax_dim("softmax", input.dim(), _stacklevel)
    return _softmax.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """``x - logsumexp(x)`` along ``dim``."""
    if dim is None:
        dim = _softmax_dim("log_softmax", input.dim(), _stacklevel)
    return _softmax.log_softmax(input, dim, dtype=dtype)


def _dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)``.

    The scaling ("inverted dropout") keeps every activation's expected value
    unchanged, so evaluation needs no correction: outside training this returns
    ``input`` itself.  Like PyTorch on the CPU, the mask is applied with a
    multiplication, so the graph shows ``MulBackward0``.
    """
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input.numel() == 0:
        return input
    dtype = input._dtype.numpy
    if p == 1:
        noise = array_module(input._device).zeros(input._data.shape, dtype=dtype)
    else:
        noise = _dropout_noise(input._data, input._device, 1 - p).astype(dtype) / dtype.type(1 - p)
    mask = Tensor._make(noise, input._device)
    if inplace:
        return input.mul_(mask)
    return input * mask


def _dropout_noise(like, device, keep_probability):
    """PyTorch's ``noise.bernoulli_(1 - p)``: on the CPU its numbers (one double uniform per
    value, in memory order); a CUDA input gets a mask drawn on the device."""
    if device.type != "cpu":
        return _random.generator(device).random(like.shape) < keep_probability
    flat = _random.bernoulli_scalar(_random.default_generator, like.size, keep_probability)
    return _random.in_memory_order(like, flat)


def flatten(input, start_dim=0, end_dim=-1):
    """``torch.flatten``, offered here too because ``nn.Flatten`` is its module form."""
    return _shape.flatten(input, start_dim, end_dim)


# --------------------------------------------------------------------------------------------
# Convolution and pooling
# --------------------------------------------------------------------------------------------

def _pair(value, name="argument"):
    """``3 -> (3, 3)``; a 1-sequence repeats, a 2-sequence passes (``torch.nn.modules.utils._pair``)."""
    if isinstance(value, (tuple, list)):
        if len(value) == 1:
            return (int(value[0]),) * 2
        if len(value) != 2:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of 2 "
                               f"values to match the convolution dimensions, but got {name}={list(value)}")
        return tuple(int(v) for v in value)
    return (int(value), int(value))


def _conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution (cross-correlation) of ``(N, C, H, W)`` or ``(C, H, W)`` by ``(O, C/groups, KH, KW)``.

    ``padding`` is an int, a pair, ``'valid'`` (none) or ``'same'`` (output as
    large as the input; stride 1 only).
    """
    if input.dim() not in (3, 4):
        raise RuntimeError(f"Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input "
                           f"of size: {list(input.shape)}")
    check_one_device(input, weight, bias)
    unbatched = input.dim() == 3
    if unbatched:
        input = input.unsqueeze(0)
    padding = padding if isinstance(padding, str) else _pair(padding, "padding")
    out = _native.convolution(input, weight, bias, _pair(stride, "stride"), padding,
                              _pair(dilation, "dilation"), int(groups))
    return out.squeeze(0) if unbatched else out


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    """Max pooling that also returns where each maximum came from (flat index into ``H*W``)."""
    if input.dim() not in (3, 4) or input.numel() == 0:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    kernel = _pair(kernel_size, "kernel_size")
    stride = kernel if stride is None or (isinstance(stride, (tuple, list)) and not stride) \
        else _pair(stride, "stride")
    return _native.max_pool2d_with_indices(input, kernel, stride, _pair(padding, "padding"),
                                           _pair(dilation, "dilation"), ceil_mode)


def _max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                return_indices=False):
    """The largest value of each ``kernel_size`` window; ``stride`` defaults to ``kernel_size``."""
    output, indices = max_pool2d_with_indices(input, kernel_size, stride, padding, dilation,
                                              ceil_mode)
    return (output, indices) if return_indices else output


# --------------------------------------------------------------------------------------------
# Normalisation and embeddings
# --------------------------------------------------------------------------------------------

def _verify_batch_size(size):
    values_per_channel = size[0]
    for s in size[2:]:
        values_per_channel *= s
    if values_per_channel == 1:
        raise ValueError(f"Expected more than 1 value per channel when training, got input size "
                         f"{size}")


def _batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
                momentum=0.1, eps=1e-5):
    """Normalise each channel with batch statistics (training) or the running ones (evaluation).

    In training the running statistics, when given, are updated in place:
    ``running = (1 - momentum) * running + momentum * batch``, using the
    unbiased batch variance, while the output is normalised with the biased one.
    """
    if input.dim() < 2:
        raise RuntimeError(f"batch_norm expects an input with at least 2 dimensions (N, C, ...), "
                           f"got input of size {list(input.shape)}")
    check_one_device(input, running_mean, running_var, weight, bias)
    if training:
        _verify_batch_size(input.shape)
    return _native.native_batch_norm(input, weight, bias, running_mean, running_var, training,
                                     momentum, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Normalise over the last ``len(normalized_shape)`` dimensions of every sample."""
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (normalized_shape,)
    check_one_device(input, weight, bias)
    return _native.native_layer_norm(input, normalized_shape, weight, bias, eps)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Rows of ``weight`` picked by the integer tensor ``input``; output shape ``input.shape + (D,)``.

    ``padding_idx``'s row receives no gradient; ``max_norm`` first renormalises,
    in place, the rows that are looked up.
    """
    if padding_idx is not None:
        rows = weight.shape[0]
        if padding_idx > 0 and padding_idx >= rows or padding_idx < -rows:
            raise AssertionError("Padding_idx must be within num_embeddings")
        if padding_idx < 0:
            padding_idx = rows + padding_idx
    if sparse:
        raise NotImplementedError("nnref has no sparse tensors: use sparse=False")
    check_one_device(weight, input)
    if max_norm is not None:
        with no_grad():
            _native.embedding_renorm_(weight, input.contiguous(), max_norm, norm_type)
    return _native.embedding(weight, input, padding_idx, scale_grad_by_freq)


# --------------------------------------------------------------------------------------------
# Losses (torch/nn/functional.py)
# --------------------------------------------------------------------------------------------

def _legacy_reduction(size_average, reduce, reduction, stacklevel=3):
    """Turn the deprecated ``size_average``/``reduce`` flags into ``reduction``, warning as PyTorch
    (``stacklevel`` 4 from the exact versions that the core's functions call)."""
    if size_average is None and reduce is None:
        return _native.reduction_enum(reduction)
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use "
                  f"reduction='{reduction}' instead.", stacklevel=stacklevel)
    return reduction


def _weighted_loss(elementwise, input, weight, reduction, mean_over_weights=True):
    """PyTorch 2.13's ``weight=`` of ``mse_loss``, ``l1_loss`` and ``huber_loss``
    (``torch/nn/functional.py``): the elementwise loss times ``weight``; ``'mean'`` divides by the
    sum of the weights (by the count for ``huber_loss``)."""
    if weight.shape != input.shape:
        raise ValueError("Weights and input must have the same size.")
    weighted = elementwise * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return weighted.sum()
    if reduction == "mean":
        return weighted.sum() / weight.sum() if mean_over_weights else weighted.mean()
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


def _mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error; a target of another shape is broadcast, with PyTorch's warning.
    ``weight`` (input's shape) weighs each element's error."""
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size "
                      f"({input.size()}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", stacklevel=3)
    reduction = _legacy_reduction(size_average, reduce, reduction, 4)
    check_one_device(input, target)
    if target.shape != input.shape:
        try:
            shape = np.broadcast_shapes(input._data.shape, target._data.shape)
        except ValueError:
            raise broadcast_error(input._data, target._data) from None
        input, target = input.expand(shape), target.expand(shape)
    if weight is not None:
        return _weighted_loss((input - target).pow(2), input, weight, reduction)
    return _native.mse_loss(input, target, reduction)


def _check_batch(input, target):
    if input.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.dim()})")
    if input.dim() != 1 and target.dim() and input.shape[0] != target.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0]}).")


def _nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
              reduction="mean"):
    """Negative log-likelihood of int64 class targets, given log-probabilities ``input``.

    Input ``(C)``, ``(N, C)`` or ``(N, C, d1, ...)``; targets ``()``, ``(N)`` or
    ``(N, d1, ...)``.  ``'mean'`` divides by the summed weights of the targets
    that are not ``ignore_index``.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction, 4)
    check_one_device(input, target, weight)
    _check_batch(input, target)
    if input.dim() > 2 and tuple(target.shape[1:]) != tuple(input.shape[2:]):
        raise RuntimeError(f"Expected target size {[input.shape[0], *input.shape[2:]]}, got "
                           f"{list(target.shape)}")
    if input.dim() == 3 or input.dim() > 4:
        # PyTorch's nll_loss_nd: fold the spatial dims into one so the 2-D kernel applies.
        n, c = input.shape[0], input.shape[1]
        out = _native.nll_loss_nd(input.contiguous().view(n, c, 1, -1),
                                  target.contiguous().view(n, 1, -1), weight, reduction,
                                  ignore_index)
        return out.view(target.shape) if reduction == "none" else out
    return _native.nll_loss_nd(input, target, weight, reduction, ignore_index)


def _cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                   reduction="mean", label_smoothing=0.0):
    """``nll_loss(log_softmax(input, class_dim), target)`` for int64 class targets.

    A floating point ``target`` with the input's shape holds class
    probabilities instead.  ``label_smoothing`` mixes the target with the
    uniform distribution: ``(1 - eps) * loss + eps * mean over classes``.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction, 4)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 0 if input.dim() == 1 else 1
    if target._dtype.is_floating_point and target.shape == input.shape:
        if ignore_index >= 0:  # ATen's cross_entropy_loss_prob_target
            raise RuntimeError("ignore_index is not supported for floating point target")
        return _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing,
                                            class_dim)
    _check_batch(input, target)
    log_probs = log_softmax(input, class_dim)
    loss = nll_loss(log_probs, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing == 0:
        return loss
    # aten's cross_entropy_loss_label_smoothing: blend with the loss against a uniform target.
    classes = input.shape[class_dim]
    if weight is not None:
        shape = [1] * input.dim()
        shape[class_dim] = classes
        log_probs = log_probs * weight.view(shape)
    smooth = -log_probs.sum(class_dim)
    ignored = target == ignore_index
    smooth = smooth.masked_fill(ignored, 0.0)
    if reduction == "mean":
        if weight is not None:
            kept = target._data[~ignored._data]
            smooth = smooth.sum() / float(weight._data[kept].sum())
        else:
            smooth = smooth.sum() / float((~ignored._data).sum())
    elif reduction == "sum":
        smooth = smooth.sum()
    return loss * (1 - label_smoothing) + smooth * (label_smoothing / classes)


def _cross_entropy_probabilities(input, target, weight, reduction, label_smoothing, class_dim):
    classes = input.shape[class_dim]
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    log_probs = log_softmax(input, class_dim)
    if weight is not None:
        shape = [1] * input.dim()
        shape[class_dim] = classes
        log_probs = log_probs * weight.view(shape)
    weighted = log_probs * target
    if reduction == "mean":
        return _native.div_scalar(-weighted.sum(), input.numel() // classes)
    if reduction == "sum":
        return -weighted.sum()
    return -weighted.sum(class_dim)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """Binary cross-entropy of ``sigmoid(input)`` against ``target``, computed from the logits.

    Working from logits (log-sigmoid written without ``exp`` overflow) is what
    makes this stable where ``sigmoid`` followed by a log would give ``inf``.
    ``pos_weight`` scales the positive term, per class.
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    check_one_device(input, target, weight, pos_weight)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.size()}) must be the same as input size "
                         f"({input.size()})")
    return _native.binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction)


# --------------------------------------------------------------------------------------------
# More activations, pooling, convolutions, dropout and losses (the PyTorch tutorials' layers)
# --------------------------------------------------------------------------------------------


__all__ += ["gelu", "leaky_relu", "leaky_relu_", "silu", "elu", "elu_", "softplus", "hardtanh",
            "hardtanh_", "relu_", "avg_pool2d", "adaptive_avg_pool2d", "adaptive_max_pool2d",
            "adaptive_max_pool2d_with_indices", "conv1d", "conv_transpose2d", "dropout1d",
            "dropout2d", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
            "kl_div", "one_hot"]


def _maybe_inplace(input, function, inplace, **options):
    """``function(input)``, or written into ``input`` with the in-place node's name."""
    if not inplace:
        return function(input, **options)
    apply_inplace(input, function, **options)
    node = input.grad_fn
    if node is not None and type(node) in _native_activation.INPLACE_NODES:
        node.__class__ = _native_activation.INPLACE_NODES[type(node)]
    return input


@_with_out
def gelu(input, *, approximate="none"):
    """``x * Phi(x)``; ``approximate='tanh'`` uses the tanh formula (GPT-2's)."""
    return _native_activation.gelu(input, approximate)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    """``x`` where positive, ``negative_slope * x`` elsewhere."""
    return _maybe_inplace(input, _native_activation.leaky_relu, inplace, negative_slope=negative_slope)


def leaky_relu_(input, negative_slope=0.01):
    """``leaky_relu`` in place (``torch.nn.functional.leaky_relu_``, ``torch/nn/functional.py``)."""
    return leaky_relu(input, negative_slope, inplace=True)


def silu(input, inplace=False):
    """``x * sigmoid(x)``."""
    return _maybe_inplace(input, _native_activation.silu, inplace)


def elu(input, alpha=1.0, inplace=False):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere."""
    return _maybe_inplace(input, _native_activation.elu, inplace, alpha=alpha)


def elu_(input, alpha=1.0, scale=1.0, input_scale=1.0):
    """``elu`` in place: PyTorch binds ``F.elu_`` to ATen's ``elu_``, which also takes the
    ``scale`` and ``input_scale`` SELU and CELU are built from (``native_functions.yaml``)."""
    return _maybe_inplace(input, _native_activation.elu, True, alpha=alpha, scale=scale,
                          input_scale=input_scale)


@_with_out
def softplus(input, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta x)) / beta``, linear where ``beta x > threshold``."""
    return _native_activation.softplus(input, beta, threshold)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """``x`` clamped to ``[min_val, max_val]``."""
    return _maybe_inplace(input, _native_activation.hardtanh, inplace, min_val=min_val,
                          max_val=max_val)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    """``hardtanh`` in place (``torch.nn.functional.hardtanh_``, ``torch/nn/functional.py``)."""
    return hardtanh(input, min_val, max_val, inplace=True)


def relu_(input):
    """``relu`` in place."""
    return relu(input, inplace=True)


def _pool_stride(stride, kernel):
    if stride is None or (isinstance(stride, (tuple, list)) and not stride):
        return kernel
    return _pair(stride, "stride")


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    """The mean of each ``kernel_size`` window; ``stride`` defaults to ``kernel_size``."""
    kernel = _pair(kernel_size, "kernel_size")
    return _native_pooling.avg_pool2d(input, kernel, _pool_stride(stride, kernel),
                                      _pair(padding, "padding"), ceil_mode, count_include_pad,
                                      divisor_override)


def adaptive_avg_pool2d(input, output_size):
    """Average pooling whose windows are chosen so the output is ``output_size`` (``None`` keeps a size)."""
    return _native_pooling.adaptive_avg_pool2d(input, output_size)


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    """``adaptive_max_pool2d`` that returns ``(output, indices)`` whatever ``return_indices``
    says (``torch/nn/functional.py``)."""
    return _native_pooling.adaptive_max_pool2d(input, output_size)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling whose windows are chosen so the output is ``output_size``."""
    output, indices = _native_pooling.adaptive_max_pool2d(input, output_size)
    return (output, indices) if return_indices else output


def _single(value, name):
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of 1 values "
                               f"to match the convolution dimensions, but got {name}={list(value)}")
        return (int(value[0]),)
    return (int(value),)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution (cross-correlation) of ``(N, C, L)`` or ``(C, L)`` by ``(O, C/groups, K)``."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input "
                           f"of size: {list(input.shape)}")
    check_one_device(input, weight, bias)
    unbatched = input.dim() == 2
    if unbatched:
        input = input.unsqueeze(0)
    padding = padding if isinstance(padding, str) else _single(padding, "padding")
    out = _native.convolution(input, weight, bias, _single(stride, "stride"), padding,
                              _single(dilation, "dilation"), int(groups))
    return out.squeeze(0) if unbatched else out


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 2-D convolution ("deconvolution"): upsamples ``(N, C_in, H, W)`` by
    ``(C_in, C_out/groups, KH, KW)``."""
    if input.dim() not in (3, 4):
        raise RuntimeError(f"Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but "
                           f"got input of size: {list(input.shape)}")
    check_one_device(input, weight, bias)
    unbatched = input.dim() == 3
    if unbatched:
        input = input.unsqueeze(0)
    out = _native_conv.conv_transpose2d(
        input, weight, bias, _pair(stride, "stride"), _pair(padding, "padding"),
        _pair(output_padding, "output_padding"), int(groups), _pair(dilation, "dilation"))
    return out.squeeze(0) if unbatched else out


def _feature_dropout(input, p, training, inplace):
    """Zero whole channels: one draw per ``(N, C)`` pair, broadcast over the spatial dims."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input.numel() == 0:
        return input
    shape = input._data.shape[:2] + (1,) * (input._data.ndim - 2)
    dtype = input._dtype.numpy
    if p == 1:
        noise = array_module(input._device).zeros(shape, dtype=dtype)
    else:
        template = array_module(input._device).empty(shape, dtype=dtype)
        noise = _dropout_noise(template, input._device, 1 - p).astype(dtype) / dtype.type(1 - p)
    mask = Tensor._make(noise, input._device)
    return input.mul_(mask) if inplace else input * mask


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of ``(N, C, L)`` or ``(C, L)`` with probability ``p``, scaling the rest."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. "
                           "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
                           "spatial dimension, a channel dimension, and an optional batch dimension "
                           "(i.e. 2D or 3D inputs).")
    unbatched = input.dim() == 2
    if unbatched:
        input = input.unsqueeze(0)
    out = _feature_dropout(input, p, training, inplace)
    return out.squeeze(0) if unbatched else out


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of ``(N, C, H, W)`` or ``(C, H, W)`` with probability ``p``, scaling the rest."""
    ndim = input.dim()
    if ndim not in (3, 4):
        warnings.warn(f"dropout2d: Received a {ndim}-D input to dropout2d, which is deprecated and will "
                      "result in an error in a future release. To retain the behavior and silence "
                      "this warning, please use dropout instead. Note that dropout2d exists to provide "
                      "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, "
                      "and an optional batch dimension (i.e. 3D or 4D inputs).", stacklevel=2)
    if ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
                      "dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
                      "is the channel dim. This behavior will change in a future release to interpret "
                      "the input as one without a batch dimension, i.e. shape (C, H, W). To maintain "
                      "the 1D channel-wise dropout behavior, please switch to using dropout1d "
                      "instead.", stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def _loss_operands(input, target, reduction, size_average=None, reduce=None):
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size "
                      f"({input.size()}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", stacklevel=3)
    check_one_device(input, target)
    if target.shape != input.shape:
        try:
            shape = np.broadcast_shapes(input._data.shape, target._data.shape)
        except ValueError:
            raise broadcast_error(input._data, target._data) from None
        input, target = input.expand(shape), target.expand(shape)
    return input, target, reduction


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean (or sum, or elementwise) absolute difference ``|input - target|``, each weighted by
    ``weight`` (input's shape) when given."""
    input, target, reduction = _loss_operands(input, target, reduction, size_average, reduce)
    loss = (input - target).abs()
    if weight is not None:
        return _weighted_loss(loss, input, weight, reduction)
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Squared error below ``beta`` (scaled by ``1/beta``), absolute error above it."""
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return l1_loss(input, target, size_average, reduce, reduction)
    input, target, reduction = _loss_operands(input, target, reduction, size_average, reduce)
    return _native_loss.smooth_l1_loss(input, target, reduction, beta)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Squared error below ``delta``, ``delta``-scaled absolute error above it."""
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    input, target, reduction = _loss_operands(input, target, reduction)
    if weight is not None:
        return _weighted_loss(_native_loss.huber_loss(input, target, "none", delta), input, weight,
                              reduction, mean_over_weights=False)
    return _native_loss.huber_loss(input, target, reduction, delta)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """``-(y log p + (1 - y) log(1 - p))`` for probabilities ``p`` (use the ``_with_logits`` form on logits)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input size "
                         f"({input.size()}) is deprecated. Please ensure they have the same size.")
    check_one_device(input, target, weight)
    if weight is not None and weight.shape != input.shape:
        weight = weight.expand(input.shape)
    return _native_loss.binary_cross_entropy(input, target, weight, reduction)


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """``target * (log(target) - input)`` summed as ``reduction`` says; ``input`` holds
    log-probabilities (and ``target`` too when ``log_target=True``)."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                      "support size.'batchmean' divides only by the batch size, and aligns with the KL "
                      "div math definition.'mean' will be changed to behave the same as 'batchmean' in "
                      "the next major release.", stacklevel=2)
    if reduction not in ("mean", "batchmean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    check_one_device(input, target)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = _xlogy_self(target) - target * input
    if reduction == "mean":
        return loss.mean()
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.dim() else loss.sum()
    return loss.sum() if reduction == "sum" else loss


def _xlogy_self(target):
    """``xlogy(target, target)``: ``target * log(target)``, 0 where the target is 0.

    PyTorch's CPU kernel rounds the product once from a precise log; computing it in
    float64 and rounding reproduces that.  A target that requires grad goes through the
    differentiable ops instead.
    """
    if needs_grad(target):
        return (target * _pointwise.log(target)).masked_fill(target == 0, 0.0)
    xp = array_module(target._device)
    data = target._data.astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        product = xp.where(data == 0, 0.0, data * xp.log(data))
    return Tensor._make(product.astype(target._dtype.numpy), target._device)


def one_hot(input, num_classes=-1):
    """``(..., num_classes)`` int64 tensor with a 1 at each value's position; ``-1`` infers the count."""
    if input._dtype.name != "int64":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor; convert "
                           "it with .long()")
    data = input._data
    if num_classes == -1:
        if not data.size:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(data.max()) + 1
    if data.size and _meta.has_values(data):
        if int(data.min()) < 0:
            raise RuntimeError("Class values must be non-negative.")
        if int(data.max()) >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
    xp = array_module(input._device)
    out = (data[..., None] == xp.arange(num_classes)).astype(np.int64)
    return Tensor._make(out, input._device)


# The public functions are the teaching core's (nnref/core/nn/functional.py); each hands its
# arguments to the exact version above, installed in the core's ``exact`` seam.
_install(_core_functional, "exact", {
    name: globals()["_" + name] for name in ("linear", "relu", "dropout", "conv2d", "max_pool2d",
                                             "batch_norm", "nll_loss", "cross_entropy", "mse_loss")})
linear = _with_out(_core_functional.linear)
relu, dropout, conv2d = _core_functional.relu, _core_functional.dropout, _core_functional.conv2d
max_pool2d, batch_norm = _core_functional.max_pool2d, _core_functional.batch_norm
nll_loss, cross_entropy = _core_functional.nll_loss, _core_functional.cross_entropy
mse_loss = _core_functional.mse_loss

from .._namespace import public_dir as _public_dir  # noqa: E402

# --------------------------------------------------------------------------------------------
# Smooth and hard activations, the gated linear unit, padding and normalisation
# --------------------------------------------------------------------------------------------

__all__ += ["relu6", "logsigmoid", "softsign", "mish", "hardswish", "hardsigmoid", "glu", "pad", "normalize"]


def relu6(input, inplace=False):
    """``min(max(x, 0), 6)``: ``hardtanh(x, 0, 6)``, as PyTorch computes it."""
    return hardtanh(input, 0.0, 6.0, inplace)


@_with_out
def logsigmoid(input):
    """``log(sigmoid(x))``, without overflow."""
    return _smooth_activation.logsigmoid(input)


def softsign(input):
    """``x / (1 + |x|)``; a composite in PyTorch too (its node is ``DivBackward0``)."""
    return input / (input.abs() + 1)


def mish(input, inplace=False):
    """``x * tanh(softplus(x))``."""
    return _maybe_inplace(input, _smooth_activation.mish, inplace)


def hardswish(input, inplace=False):
    """``x * relu6(x + 3) / 6``."""
    return _maybe_inplace(input, _smooth_activation.hardswish, inplace)


def hardsigmoid(input, inplace=False):
    """``relu6(x + 3) / 6``."""
    return _maybe_inplace(input, _smooth_activation.hardsigmoid, inplace)


def glu(input, dim=-1):
    """The first half of ``dim`` times the sigmoid of the second half."""
    return _smooth_activation.glu(input, dim)


def pad(input, pad, mode="constant", value=None):
    """Pad (or, with negative sizes, crop) the last dims: ``pad = (left, right, top, bottom, ...)``.

    ``mode`` ``'constant'`` (with ``value``), or, for the last 1, 2 or 3 dims of an input with 1 or 2 more,
    ``'reflect'`` (mirrored), ``'replicate'`` (the edge repeated) or ``'circular'`` (wrapped around).
    """
    modes = ("constant", "reflect", "replicate", "circular")
    if mode not in modes:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    # aten/src/ATen/native/PadNd.cpp (_pad_enum) checks before constant_pad_nd, in its own words
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) > 2 * input.dim():
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.dim()}")
    if mode != "constant":
        if value is not None and value != 0:
            raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
        k = len(pad) // 2
        if k not in (1, 2, 3) or input.dim() not in (k + 1, k + 2):
            raise NotImplementedError(
                f"Padding size {len(pad)} is not supported for {input.dim()}D input tensor.\nSupported combinations "
                "for non-constant padding:\n  - 2D or 3D input: padding size = 2 (pads last dimension)\n  - 3D or 4D "
                "input: padding size = 4 (pads last 2 dimensions)\n  - 4D or 5D input: padding size = 6 (pads last 3 "
                "dimensions)")
        if mode == "circular":
            return _pad_modes.pad_circular(input, pad)
        return _pad_modes.pad_by_index(input, pad, mode)
    return _smooth_activation.constant_pad_nd(input, pad, 0 if value is None else value)


# torch.div as the namespace builds it (out=, numpy's names): normalize(out=) writes through it
_div = _accept_numpy_names(_with_out(_arithmetic.div))


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input`` divided by its ``p``-norm along ``dim`` (at least ``eps``); a composite, as in PyTorch."""
    denominator = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return _div(input, denominator, out=out)


__all__ += ["group_norm", "scaled_dot_product_attention"]


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Normalise each sample's channels in ``num_groups`` groups (over the channels and positions of
    a group), then scale and shift per channel.

    Computed as a layer norm of each group followed by the per-channel affine, so autograd records
    ``NativeLayerNormBackward0`` and the affine's nodes where PyTorch records ``NativeGroupNormBackward0``.
    """
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.dim()}")
    batch, channels = input.shape[0], input.shape[1]
    if channels % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input "
                           f"of shape {input.shape} and num_groups={num_groups}")
    check_one_device(input, weight, bias)
    grouped = input.reshape(batch, num_groups, -1)
    out = layer_norm(grouped, (grouped.shape[-1],), eps=eps).view(input.shape)
    affine = (1, channels) + (1,) * (input.dim() - 2)
    if weight is not None:
        out = out * weight.reshape(affine)
    if bias is not None:
        out = out + bias.reshape(affine)
    return out


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, *, scale=None,
                                 enable_gqa=False):
    """``softmax(query @ key^T * scale + mask) @ value`` over the last two dims (PyTorch's math path).

    A boolean ``attn_mask`` says where to attend (True); a float one is added to the scores.
    PyTorch's CPU kernel records its fused node; nnref records the math path's nodes.
    """
    if enable_gqa:
        raise NotImplementedError("nnref's scaled_dot_product_attention has no enable_gqa: repeat the key and "
                                  "value heads with repeat_interleave first")
    length, source = query.shape[-2], key.shape[-2]
    factor = 1.0 / (query.shape[-1] ** 0.5) if scale is None else scale
    scores = matmul(query, key.transpose(-2, -1)) * factor
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set when "
                               "is_causal=True")
        from .._creation import ones
        attn_mask = ones(length, source, dtype=_dtype.bool, device=query.device).tril()
    if attn_mask is not None:
        if attn_mask._dtype.name == "bool":
            scores = scores.masked_fill(attn_mask.logical_not(), float("-inf"))
        else:
            scores = scores + attn_mask
    weights = softmax(scores, dim=-1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, training=True)
    return matmul(weights, value)


__all__ += ["cosine_similarity", "pairwise_distance"]


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """The cosine of the angle between ``x1`` and ``x2`` along ``dim`` (broadcast), as ATen computes it:
    each divided by its norm first (clamped to ``eps`` without recording it), then the product summed."""
    shape = tuple(np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape)))
    x1, x2 = x1.broadcast_to(shape), x2.broadcast_to(shape)
    norm1 = x1.norm(2, dim, keepdim=True).clone()
    norm2 = x2.norm(2, dim, keepdim=True).clone()
    with no_grad():
        norm1.clamp_min_(eps)
        norm2.clamp_min_(eps)
    return ((x1 / norm1) * (x2 / norm2)).sum(dim)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """The ``p``-norm of ``x1 - x2 + eps`` over the last dimension."""
    from .._ops.reduction import LinalgVectorNormBackward0, NormBackward1
    dim = -1 if max(x1.dim(), x2.dim()) > 0 else 0
    out = (x1 - x2 + eps).norm(p, dim, keepdim=keepdim)
    if type(out.grad_fn) is LinalgVectorNormBackward0:
        out.grad_fn.__class__ = NormBackward1  # ATen calls at::norm here: PyTorch records this name
    return out


__all__ += ["interpolate"]


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize the spatial dims of ``(N, C, L)``, ``(N, C, H, W)`` or ``(N, C, D, H, W)`` to ``size`` or by
    ``scale_factor`` (``torch.nn.functional.interpolate``, ``torch/nn/functional.py``).

    Modes ``nearest``, ``nearest-exact``, ``linear`` (3-D), ``bilinear`` (4-D), ``trilinear`` (5-D) and
    ``area`` (adaptive average pooling, 3-D and 4-D) as in PyTorch; ``bicubic``, ``lanczos`` and
    ``antialias=True`` raise ``NotImplementedError`` (see "Differences from PyTorch").
    """
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | "
                             "bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    spatial = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != spatial:
                raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input "
                                 f"with spatial dimensions of {list(input.shape[2:])} and output size of {size}. "
                                 "Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "
                                 "(o1, o2, ...,oK) format.")
            if not all(isinstance(s, numbers.Integral) for s in size):
                raise TypeError("expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                                f"Tuple[int, int, int], but got size with types {[type(s) for s in size]}")
            sizes = [int(s) for s in size]
        else:
            sizes = [int(size)] * spatial
        scales = [None] * spatial
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)):
            if len(scale_factor) != spatial:
                raise ValueError(f"Input and scale_factor must have the same number of spatial dimensions, but got "
                                 f"input with spatial dimensions of {list(input.shape[2:])} and scale_factor of "
                                 f"shape {scale_factor}. Please provide input tensor in (N, C, d1, d2, ...,dK) "
                                 "format and scale_factor in (s1, s2, ...,sK) format.")
            scales = [float(s) for s in scale_factor]
        else:
            scales = [float(scale_factor)] * spatial
        # ATen's compute_output_size: the product in double, truncated.
        sizes = [int(input.shape[2 + k] * scales[k]) for k in range(spatial)]
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if recompute_scale_factor or mode == "area":
        scales = [None] * spatial  # the kernel then uses in/out, as if size had been given
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.dim() == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                         "4-D tensor as input")
    linear = {"linear": 1, "bilinear": 2, "trilinear": 3}
    if mode in ("nearest", "nearest-exact") and spatial in (1, 2, 3):
        return _smooth_activation.upsample_nearest(input, sizes, scales, exact=mode == "nearest-exact")
    if mode == "area" and spatial in (1, 2):
        return (adaptive_avg_pool1d if spatial == 1 else adaptive_avg_pool2d)(input, sizes)
    if mode in linear and spatial == linear[mode]:
        if antialias:
            raise NotImplementedError("nnref's bilinear interpolation has no antialias filter (PyTorch's "
                                      "_upsample_bilinear2d_aa); call it with antialias=False, or blur first")
        return _upsample_linear(input, sizes, align_corners, scales, mode)
    if mode in linear and spatial in (1, 2, 3):
        wanted = {1: "3D", 2: "4D", 3: "5D"}[linear[mode]]
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs {wanted} input")
    if mode in ("bicubic", "lanczos", "area") and spatial in (1, 2, 3):
        raise NotImplementedError(f"nnref's interpolate has no mode={mode!r} for {input.dim()}-D inputs; use "
                                  "'bilinear' (or 'area' on 3-D and 4-D inputs)")
    raise NotImplementedError("Input Error: Only 3D, 4D and 5D input Tensors supported"
                              f" (got {input.dim()}D) for the modes: nearest | linear | bilinear | bicubic | "
                              f"trilinear | lanczos | area | nearest-exact (got {mode})")


def _upsample_linear(input, sizes, align_corners, scales, mode):
    """The checks of the kernels behind the linear modes, then :func:`nnref._ops.upsample.upsample_linear`."""
    if not input._dtype.is_floating_point:
        if mode == "bilinear" and input._dtype.numpy == np.uint8:
            raise NotImplementedError("nnref's bilinear interpolation takes floating-point inputs (PyTorch's uint8 "
                                      "kernel rounds its own fixed-point weights); convert with x.float()")
        kernel = "upsample_bilinear2d_channels_last" if mode == "bilinear" else "compute_indices_weights_linear"
        float_input(kernel, input)
    return _upsample.upsample_linear(input, sizes, align_corners, scales)


# --------------------------------------------------------------------------------------------
# PReLU, SELU, CELU, threshold, the shrink functions and softmin (torch/nn/functional.py)
# --------------------------------------------------------------------------------------------

__all__ += ["prelu", "selu", "selu_", "celu", "celu_", "threshold", "threshold_", "hardshrink", "softshrink",
            "tanhshrink", "softmin"]

_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _maybe_inplace_piecewise(input, function, inplace, **options):
    """:func:`_maybe_inplace` for the kernels of :mod:`nnref._ops.piecewise_activation`."""
    if not inplace:
        return function(input, **options)
    apply_inplace(input, function, **options)
    node = input.grad_fn
    if node is not None and type(node) in _piecewise.INPLACE_NODES:
        node.__class__ = _piecewise.INPLACE_NODES[type(node)]
    return input


def prelu(input, weight):
    """``x`` where positive, ``weight * x`` elsewhere; ``weight`` holds 1 value or one per channel
    (``torch.nn.functional.prelu``, ``torch/nn/functional.py``)."""
    check_one_device(input, weight)
    return _piecewise.prelu(input, weight)


def selu(input, inplace=False):
    """``scale * elu(x, alpha)`` with the self-normalising constants (Klambauer et al., 2017)."""
    return _maybe_inplace(input, _native_activation.elu, inplace, alpha=_SELU_ALPHA, scale=_SELU_SCALE)


def selu_(input):
    """``selu`` in place (``torch.nn.functional.selu_``, ``torch/nn/functional.py``)."""
    return selu(input, inplace=True)


def celu(input, alpha=1.0, inplace=False):
    """``max(0, x) + min(0, alpha * (exp(x / alpha) - 1))``."""
    return _maybe_inplace_piecewise(input, _piecewise.celu, inplace, alpha=alpha)


def celu_(input, alpha=1.0):
    """``celu`` in place (``torch.nn.functional.celu_``, ``torch/nn/functional.py``)."""
    return celu(input, alpha, inplace=True)


def threshold(input, threshold, value, inplace=False):
    """``value`` where ``x <= threshold``, else ``x``."""
    return _maybe_inplace_piecewise(input, _piecewise.threshold, inplace, threshold=threshold, value=value)


def threshold_(input, threshold, value):
    """``threshold`` in place (``torch.nn.functional.threshold_``, ``torch/nn/functional.py``)."""
    return _maybe_inplace_piecewise(input, _piecewise.threshold, True, threshold=threshold, value=value)


@_with_out
def hardshrink(input, lambd=0.5):
    """``0`` where ``|x| <= lambd``, else ``x``."""
    return _piecewise.hardshrink(input, lambd)


@_with_out
def softshrink(input, lambd=0.5):
    """``x`` moved ``lambd`` towards 0, and 0 where ``|x| <= lambd``."""
    return _piecewise.softshrink(input, lambd)


def tanhshrink(input):
    """``x - tanh(x)``; a composite in PyTorch too (its node is ``SubBackward0``)."""
    return input - input.tanh()


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-x)`` along ``dim``."""
    if dim is None:
        dim = _softmax_dim("softmin", input.dim(), _stacklevel)
    return _softmax.softmax(-input, dim, dtype=dtype)


# --------------------------------------------------------------------------------------------
# 1-d pooling: the 2-d kernels on an input with a height of 1, as ATen computes them
# --------------------------------------------------------------------------------------------

__all__ += ["max_pool1d", "max_pool1d_with_indices", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d",
            "adaptive_max_pool1d_with_indices"]


def _one_int(value, function, name):
    """``3`` or ``(3,)`` -> ``3``, with ATen's message for a longer sequence."""
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise RuntimeError(f"{function}() argument '{name}' should contain one int (got {len(value)})")
        return int(value[0])
    return int(value)


def _check_2_to_3_dims(input, function):
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for {function})")


def _max_pool1d_size(value, name):
    if isinstance(value, (tuple, list)):
        if len(value) != 1:
            raise RuntimeError(f"max_pool1d() {name} must be an int, list of ints or tuple of ints of size 1 but "
                               f"got size {len(value)}")
        return int(value[0])
    return int(value)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=True):
    """Max pooling of ``(N, C, L)`` or ``(C, L)`` that also returns where each maximum came from
    (``torch.nn.functional.max_pool1d_with_indices``, ``torch/nn/functional.py``)."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{list(input.shape)}")
    if not input._dtype.is_floating_point:
        raise NotImplementedError(f'"max_pool1d_impl" not implemented for \'{input._dtype._legacy_name[:-6]}\'; '
                                  "convert the input with .float()")
    kernel = _max_pool1d_size(kernel_size, "kernel_size")
    step = kernel if stride is None or (isinstance(stride, (tuple, list)) and not stride) else \
        _max_pool1d_size(stride, "stride")
    pad, dil = _max_pool1d_size(padding, "padding"), _max_pool1d_size(dilation, "dilation")
    if kernel <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {kernel}")
    if step <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {step}")
    if pad < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {pad}")
    if pad > kernel // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got padding={pad} "
                           f"and kernel_size={kernel}")
    if dil <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {dil}")
    length = input.shape[-1]
    span = length + 2 * pad - dil * (kernel - 1) - 1
    out = (-(-span // step) if ceil_mode else span // step) + 1
    if ceil_mode and (out - 1) * step >= length + pad:
        out -= 1
    if out < 1:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")
    output, indices = _native.max_pool2d_with_indices(input.unsqueeze(-2), (1, kernel), (1, step), (0, pad),
                                                      (1, dil), ceil_mode)
    return output.squeeze(-2), indices.squeeze(-2)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """The largest value of each ``kernel_size`` window along the last dim; ``stride`` defaults to ``kernel_size``."""
    output, indices = max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (output, indices) if return_indices else output


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """The mean of each ``kernel_size`` window along the last dim; ``stride`` defaults to ``kernel_size``."""
    _check_2_to_3_dims(input, "avg_pool1d")
    kernel = _one_int(kernel_size, "avg_pool1d", "kernel_size")
    step = kernel if stride is None or (isinstance(stride, (tuple, list)) and not stride) else \
        _one_int(stride, "avg_pool1d", "stride")
    pad = _one_int(padding, "avg_pool1d", "padding")
    out = _native_pooling.avg_pool2d(input.unsqueeze(-2), (1, kernel), (1, step), (0, pad), ceil_mode,
                                     count_include_pad, None)
    return out.squeeze(-2)


def adaptive_avg_pool1d(input, output_size):
    """Average pooling whose windows are chosen so the last dim becomes ``output_size``."""
    _check_2_to_3_dims(input, "adaptive_avg_pool1d")
    size = _one_int(output_size, "adaptive_avg_pool1d", "output_size")
    return _native_pooling.adaptive_avg_pool2d(input.unsqueeze(-2), (1, size)).squeeze(-2)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    """``adaptive_max_pool1d`` that returns ``(output, indices)`` whatever ``return_indices``
    says (``torch/nn/functional.py``)."""
    _check_2_to_3_dims(input, "adaptive_max_pool1d")
    size = _one_int(output_size, "adaptive_max_pool1d", "output_size")
    output, indices = _native_pooling.adaptive_max_pool2d(input.unsqueeze(-2), (1, size))
    return output.squeeze(-2), indices.squeeze(-2)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max pooling whose windows are chosen so the last dim becomes ``output_size``."""
    output, indices = adaptive_max_pool1d_with_indices(input, output_size)
    return (output, indices) if return_indices else output


__all__ += ["pixel_shuffle", "pixel_unshuffle"]


def pixel_shuffle(input, upscale_factor):
    """``(*, C r^2, H, W) -> (*, C, H r, W r)``: each group of ``r^2`` channels becomes an ``r x r`` block
    (``torch.nn.functional.pixel_shuffle``, ``torch/nn/functional.py``)."""
    return _pixel_shuffle.pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input, downscale_factor):
    """``(*, C, H r, W r) -> (*, C r^2, H, W)``, the inverse of :func:`pixel_shuffle`
    (``torch.nn.functional.pixel_unshuffle``, ``torch/nn/functional.py``)."""
    return _pixel_shuffle.pixel_unshuffle(input, downscale_factor)


__all__ += ["instance_norm", "rms_norm"]


def _verify_spatial_size(size):
    values = 1
    for s in size[2:]:
        values *= s
    if values == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {size}")


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    """Normalise each channel of each sample over its positions, then scale and shift per channel.

    As ATen's ``instance_norm``: batch norm of the input viewed as ``(1, N * C, ...)``, with the weight,
    bias and running statistics repeated ``N`` times; the running statistics, when given, become the
    mean over the batch of the updated copies.
    """
    if use_input_stats:
        _verify_spatial_size(input.size())
    if (running_mean is None) != (running_var is None):  # ATen's instance_norm
        raise ValueError("running_mean and running_var must either both be None or neither be None")
    if not use_input_stats and (running_mean is None or running_var is None):
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    check_one_device(input, running_mean, running_var, weight, bias)
    batch, channels = input.shape[0], input.shape[1]
    shape = (1, batch * channels) + tuple(input.shape[2:])

    def repeated(t):
        return None if t is None else t.repeat(batch)

    for name, t in (("weight", weight), ("bias", bias), ("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name} should contain {batch * channels} elements not {batch * t.numel()}")
    mean_, var_ = repeated(running_mean), repeated(running_var)
    out = _native.native_batch_norm(input.contiguous().view(shape), repeated(weight), repeated(bias), mean_, var_,
                                    use_input_stats, momentum, eps)
    with no_grad():
        if running_mean is not None:
            running_mean.copy_(mean_.view(batch, channels).mean(0))
        if running_var is not None:
            running_var.copy_(var_.view(batch, channels).mean(0))
    return out.view(input.shape)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """Divide by the root mean square over the last ``len(normalized_shape)`` dims, then scale by ``weight``.

    A composite, as PyTorch's CPU path: ``x * rsqrt(mean(x^2) + eps) * weight`` (``MulBackward0``);
    ``eps=None`` is the dtype's machine epsilon, and 16-bit inputs are computed in float32.
    """
    if isinstance(normalized_shape, numbers.Integral):
        normalized_shape = (normalized_shape,)
    normalized_shape = [int(s) for s in normalized_shape]
    if not normalized_shape:
        raise RuntimeError(f"Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           f"element, but got normalized_shape = {normalized_shape}")
    if weight is not None and list(weight.shape) != normalized_shape:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{list(weight.shape)} and normalized_shape = {normalized_shape}")
    k = len(normalized_shape)
    if input.dim() < k or list(input.shape[input.dim() - k:]) != normalized_shape:
        expected = "*" + ", ".join(str(s) for s in normalized_shape)
        raise RuntimeError(f"Given normalized_shape={normalized_shape}, expected input with shape [{expected}], but "
                           f"got input of size{list(input.shape)}")
    if not input._dtype.is_floating_point:
        raise NotImplementedError(f'"rms_norm" not implemented for \'{input._dtype._legacy_name[:-6]}\'; '
                                  "convert the input with .float()")
    check_one_device(input, weight)
    upcast = input._dtype in (_dtype.float16, _dtype.bfloat16)
    x = input.float() if upcast else input
    epsilon = float(np.finfo(x._dtype.numpy).eps) if eps is None else eps
    dims = tuple(range(-k, 0))
    result = x.mul(x.pow(2).mean(dims, keepdim=True).add_(epsilon).rsqrt()).type_as(input)
    return result if weight is None else result.mul(weight)


# --------------------------------------------------------------------------------------------
# Margin, embedding and likelihood losses (ATen's composites in aten/src/ATen/native/Loss.cpp,
# PyTorch's Python ones in torch/nn/functional.py)
# --------------------------------------------------------------------------------------------

__all__ += ["margin_ranking_loss", "soft_margin_loss", "cosine_embedding_loss", "hinge_embedding_loss",
            "triplet_margin_loss", "poisson_nll_loss", "gaussian_nll_loss", "multilabel_soft_margin_loss"]


from .._creation import ones_like, zeros_like  # noqa: E402


def _apply_loss_reduction(loss, reduction):
    """ATen's ``apply_loss_reduction``: ``mean()`` or ``sum()`` of the elementwise loss, or the loss."""
    if reduction == "mean":
        return loss.mean()
    return loss.sum() if reduction == "sum" else loss


def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``: ``target`` 1 says ``input1`` should rank higher, -1 lower."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    check_one_device(input1, input2, target)
    return _apply_loss_reduction((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``log(1 + exp(-target * input))`` for targets of 1 or -1 (a two-class logistic loss)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    check_one_device(input, target)
    if target.shape != input.shape:
        try:
            shape = np.broadcast_shapes(input._data.shape, target._data.shape)
        except ValueError:
            raise broadcast_error(input._data, target._data) from None
        input, target = input.expand(shape), target.expand(shape)
    return _margin_loss.soft_margin_loss(input, target, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None, reduction="mean"):
    """``1 - cos(x1, x2)`` where ``target`` is 1, ``max(0, cos(x1, x2) - margin)`` where it is -1."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    dim = target.dim()
    if dim not in (0, 1):
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if dim == 1 and (input1.dim() != 2 or input2.dim() != 2):
        raise RuntimeError(f"1D target tensor expects 2D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    if dim == 0 and (input1.dim() != 1 or input2.dim() != 1):
        raise RuntimeError(f"0D target tensor expects 1D input tensors, but found inputs with sizes "
                           f"{list(input1.shape)} and {list(input2.shape)}.")
    check_one_device(input1, input2, target)
    epsilon = 1e-12
    prod_sum = (input1 * input2).sum(dim)
    mag_square1 = (input1 * input1).sum(dim) + epsilon
    mag_square2 = (input2 * input2).sum(dim) + epsilon
    cos = prod_sum / (mag_square1 * mag_square2).sqrt()
    zeros = zeros_like(cos)
    positive = _pointwise.where(target == 1, 1 - cos, zeros)
    negative = _pointwise.where(target == -1, (cos - margin).clamp_min(0), zeros)
    return _apply_loss_reduction(positive + negative, reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1 (``input`` a distance)."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    check_one_device(input, target)
    zeros = zeros_like(input)
    output_margin = _pointwise.where(target != 1, (margin - input).clamp_min(0), zeros)
    output_self = _pointwise.where(target != -1, input, zeros)
    return _apply_loss_reduction(output_margin + output_self, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    """``max(0, d(anchor, positive) - d(anchor, negative) + margin)``, ``d`` the ``p``-norm distance;
    ``swap`` uses the smaller of ``d(anchor, negative)`` and ``d(positive, negative)``."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.dim(), positive.dim(), negative.dim()
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D inputs")
    check_one_device(anchor, positive, negative)
    dist_pos = pairwise_distance(anchor, positive, p, eps)
    dist_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        dist_neg = _pointwise.minimum(dist_neg, pairwise_distance(positive, negative, p, eps))
    return _apply_loss_reduction((margin + dist_pos - dist_neg).clamp_min(0), reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    """Negative log-likelihood of ``target`` counts under a Poisson distribution of rate ``exp(input)``
    (``log_input=True``) or ``input``; ``full`` adds Stirling's approximation of ``log(target!)``."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    check_one_device(input, target)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        with np.errstate(divide="ignore", invalid="ignore"):
            stirling = target * target.log() - target + 0.5 * (2 * math.pi * target).log()
        loss = loss + stirling.masked_fill(target <= 1, 0)
    return _apply_loss_reduction(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Negative log-likelihood of ``target`` under normal distributions of mean ``input`` and variance
    ``var`` (one per element, or one per sample broadcast over the last dim); ``var`` is clamped to ``eps``."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = var.unsqueeze(-1)
        elif input.dim() == var.dim() and sum(y for x, y in zip(input.size(), var.size()) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    check_one_device(input, target, var)
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _apply_loss_reduction(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """Binary cross-entropy of each class's logit, averaged over the classes (last dim): multi-label
    classification with ``target`` of 0s and 1s."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    check_one_device(input, target, weight)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.shape[class_dim]
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


# --------------------------------------------------------------------------------------------
# Bilinear, 3-d and alpha dropout, local response normalisation
# --------------------------------------------------------------------------------------------

__all__ += ["bilinear", "dropout3d", "alpha_dropout", "feature_alpha_dropout", "local_response_norm"]


def bilinear(input1, input2, weight, bias=None):
    """``y_o = x1^T W_o x2 + b_o`` for every output feature ``o`` (``weight`` is ``(out, in1, in2)``).

    Checked as ATen's ``bilinear``; computed as one contraction of the flattened inputs, then reshaped
    (``ViewBackward0``) and, with a bias, added to it (``AddBackward0``), the nodes PyTorch shows.
    """
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}")
    for i in range(input1.dim() - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: got {input1.shape[i]} "
                               f"and {input2.shape[i]}")
    if weight.dim() >= 2 and input1.shape[-1] != weight.shape[1]:
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got {input1.shape[-1]} but expected "
                           f"{weight.shape[1]}")
    if weight.dim() != 3:
        raise RuntimeError(f"bilinear(): expected a 3-D weight (out_features, in1_features, in2_features), got a "
                           f"{weight.dim()}-D one")
    if input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got {input2.shape[-1]} but expected "
                           f"{weight.shape[2]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got {bias.shape[0]} but expected "
                           f"{weight.shape[0]}")
    check_one_device(input1, input2, weight, bias)
    from .._ops.einsum import einsum
    output_size = tuple(input1.shape[:-1]) + (weight.shape[0],)
    flat1 = input1.reshape(-1, input1.shape[-1])
    flat2 = input2.reshape(-1, input2.shape[-1])
    output = einsum("bi,oij,bj->bo", flat1, weight, flat2).reshape(output_size)
    return output if bias is None else output + bias


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of ``(N, C, D, H, W)`` or ``(C, D, H, W)`` with probability ``p``, scaling the rest."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    ndim = input.dim()
    if ndim not in (4, 5):
        warnings.warn(f"dropout3d: Received a {ndim}-D input to dropout3d, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use dropout "
                      "instead. Note that dropout3d exists to provide channel-wise dropout on inputs with 3 spatial "
                      "dimensions, a channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs).",
                      stacklevel=2)
    batched = ndim == 5
    if not batched:
        input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _feature_dropout(input, p, training, inplace)
    if not batched:
        result = result.squeeze_(0) if inplace else result.squeeze(0)
    return result


_SELU_DROPOUT_ALPHA = 1.7580993408473766  # -scale * alpha of SELU: the value SELU saturates to


def _alpha_dropout(input, p, training, inplace, feature):
    """ATen's ``_dropout_impl`` with ``alpha_dropout``: dropped values set to SELU's saturation value, then an
    affine map ``a x + b`` that keeps the mean and variance; the same draws as PyTorch's (``bernoulli_``)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or input.numel() == 0:
        return input
    xp = array_module(input._device)
    dtype = input._dtype.numpy
    if p == 1:
        zero = Tensor._make(xp.zeros((), dtype=dtype), input._device)
        return input.mul_(zero) if inplace else input * zero
    if feature:
        if input.dim() < 2:
            raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
        shape = input._data.shape[:2] + (1,) * (input._data.ndim - 2)
    else:
        shape = input._data.shape
    keep = _dropout_noise(xp.empty(shape, dtype=dtype), input._device, 1 - p).astype(dtype)
    a = 1.0 / math.sqrt((_SELU_DROPOUT_ALPHA * _SELU_DROPOUT_ALPHA * p + 1) * (1 - p))
    b = (keep - dtype.type(1)) * dtype.type(_SELU_DROPOUT_ALPHA * a) + dtype.type(_SELU_DROPOUT_ALPHA * a * p)
    keep *= dtype.type(a)
    noise, shift = Tensor._make(keep, input._device), Tensor._make(b, input._device)
    if inplace:
        return input.mul_(noise).add_(shift)
    return (input * noise).add_(shift)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for self-normalising networks (with ``SELU``): keeps the inputs' mean and variance.
    Note ``training=False`` by default, as in PyTorch."""
    return _alpha_dropout(input, p, training, inplace, feature=False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole channels (dim 1).  Note ``training=False`` by default, as in PyTorch."""
    return _alpha_dropout(input, p, training, inplace, feature=True)


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """Divide each value by ``(k + alpha * mean of the squares of the size neighbouring channels) ** beta``
    (AlexNet's normalisation); a composite, as in PyTorch (its node is ``DivBackward0``)."""
    dim = input.dim()
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality                          input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    div = input.mul(input)
    if dim == 3:
        div = div.unsqueeze(1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
    else:
        # PyTorch pools (size, 1, 1) windows of a 5-D view; a (size, 1) window over the positions
        # flattened into one dim averages the same values.
        sizes = input.size()
        div = div.view(sizes[0], 1, sizes[1], -1)
        div = pad(div, (0, 0, size // 2, (size - 1) // 2))
        div = avg_pool2d(div, (size, 1), stride=1).squeeze(1)
        div = div.view(sizes)
    div = div.mul(alpha).add(k).pow(beta)
    return input / div


__all__ += ["embedding_bag"]


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """The sum, mean or max of the embedding rows of each bag: ``input`` 2-D (one bag per row) or 1-D with
    ``offsets`` (where each bag starts); empty bags give zeros, ``padding_idx`` entries are left out."""
    if weight._dtype.name == "int64" and input.is_floating_point():
        warnings.warn("Argument order of nn.functional.embedding_bag was changed. Usage `embedding_bag(weight, "
                      "input, ...)` is deprecated, and should now be `embedding_bag(input, weight, ...)`.", stacklevel=2)
        weight, input = input, weight
    if per_sample_weights is not None and input.size() != per_sample_weights.size():
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is not None, then it must "
                         f"have the same shape as the input ({input.shape})")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.dim()}")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             f"fixed length sequences. However, found offsets of type {type(offsets)}")
        from .._creation import arange
        offsets = arange(0, input.numel(), input.shape[1], dtype=input.dtype, device=input.device)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.dim()}")
    if mode == "max":
        if scale_grad_by_freq:
            raise ValueError("max mode does not support scaling the gradient by the frequency")
        if sparse:
            raise ValueError("max mode does not support sparse weights")
    elif mode not in ("sum", "mean"):
        raise ValueError("mode has to be one of sum, mean or max")
    if sparse:
        raise NotImplementedError("nnref has no sparse tensors: use sparse=False")
    check_one_device(input, weight, offsets, per_sample_weights)
    if max_norm is not None:
        with no_grad():
            _native.embedding_renorm_(weight, input.contiguous(), max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    if scale_grad_by_freq:
        raise NotImplementedError("nnref's embedding_bag has no scale_grad_by_freq: PyTorch 2.13's CPU gradient divides "
                                  "every row by the count of the smallest index in the input (not by each row's own "
                                  "count), and nnref will not silently compute another gradient; scale the gradient "
                                  "yourself, or use F.embedding (whose scale_grad_by_freq is right) and reduce the bags")
    if include_last_offset and offsets.numel() and int(offsets[-1]) != input.numel():
        raise RuntimeError(f"embedding_bag: with include_last_offset=True the last offset must be the input's length "
                           f"({input.numel()}), got {int(offsets[-1])} (PyTorch's CPU modes disagree on the elements "
                           "past it: 'sum' leaves them out, 'mean' counts them, 'max' pools them)")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    return _embedding_bag.embedding_bag(weight, input, offsets, mode, per_sample_weights, include_last_offset,
                                        padding_idx, scale_grad_by_freq)


__all__ += ["multi_margin_loss", "multilabel_margin_loss", "triplet_margin_with_distance_loss", "lp_pool1d",
            "lp_pool2d"]


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
    """The multi-class hinge loss: ``sum_{j != y} max(0, margin - x[y] + x[j]) ** p / C`` (``p`` 1 or 2),
    each sample's term scaled by ``weight[y]``."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    check_one_device(input, target, weight)
    return _multi_margin_loss.multi_margin_loss(input, target, p, margin, weight, reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """The multi-label hinge loss: every target class's score should beat every other class's by 1;
    ``target`` holds each sample's class indices, ended by -1 if fewer than ``C``."""
    reduction = _legacy_reduction(size_average, reduce, reduction)
    check_one_device(input, target)
    return _multi_margin_loss.multilabel_margin_loss(input, target, reduction)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None, margin=1.0, swap=False,
                                      reduction="mean"):
    """``max(0, d(anchor, positive) - d(anchor, negative) + margin)`` with any distance function ``d``
    (default :func:`pairwise_distance`)."""
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.dim(), positive.dim(), negative.dim()
    if not (a_dim == p_dim and p_dim == n_dim):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D inputs")
    if distance_function is None:
        distance_function = pairwise_distance
    dist_pos = distance_function(anchor, positive)
    dist_neg = distance_function(anchor, negative)
    if swap:
        dist_neg = _pointwise.minimum(dist_neg, distance_function(positive, negative))
    loss = (margin + dist_pos - dist_neg).clamp_min(0)
    if reduction == "sum":
        return loss.sum()
    return loss.mean() if reduction == "mean" else loss


def _lp_pool_finish(out, norm_type, window):
    return (out.sign() * relu(out.abs())).mul(window).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The ``norm_type``-norm of each window along the last dim: ``(sum x^p) ** (1/p)``; ``inf`` is max pooling."""
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return max_pool1d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -max_pool1d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool1d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _lp_pool_finish(out, norm_type, kernel_size)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """The ``norm_type``-norm of each window of the last two dims; ``inf`` is max pooling."""
    kw, kh = _pair(kernel_size)
    if isinstance(norm_type, (int, float)):
        if norm_type == float("inf"):
            return max_pool2d(input.abs(), kernel_size, stride, 0, 1, ceil_mode)
        if norm_type == -float("inf"):
            return -max_pool2d(-input.abs(), kernel_size, stride, 0, 1, ceil_mode)
    out = avg_pool2d(input.pow(norm_type), kernel_size, stride, 0, ceil_mode)
    return _lp_pool_finish(out, norm_type, kw * kh)


__all__ += ["unfold", "fold"]


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding blocks of ``(N, C, H, W)`` as columns: ``(N, C * kh * kw, L)``, ``L`` the number of block positions
    (``torch.nn.functional.unfold``, ``torch/nn/functional.py``)."""
    return _im2col.im2col(input, _pair(kernel_size), _pair(dilation), _pair(padding), _pair(stride))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """The inverse arrangement of :func:`unfold`: columns ``(N, C * kh * kw, L)`` summed back into
    ``(N, C, *output_size)``, overlapping blocks added (``torch.nn.functional.fold``, ``torch/nn/functional.py``)."""
    return _im2col.col2im(input, _pair(output_size), _pair(kernel_size), _pair(dilation), _pair(padding),
                          _pair(stride))


__all__ += ["max_unpool1d", "max_unpool2d", "channel_shuffle", "native_channel_shuffle"]


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    input_size = input.size()
    default_size = [(input_size[-len(kernel_size) + d] - 1) * stride[d] + kernel_size[d] - 2 * padding[d]
                    for d in range(len(kernel_size))]
    if output_size is None:
        ret = default_size
    else:
        if len(output_size) == len(kernel_size) + 2:
            output_size = output_size[2:]
        if len(output_size) != len(kernel_size):
            raise ValueError(f"output_size should be a sequence containing {len(kernel_size)} or {len(kernel_size) + 2} "
                             f"elements, but it has a length of '{len(output_size)}'")
        for d in range(len(kernel_size)):
            min_size, max_size = default_size[d] - stride[d], default_size[d] + stride[d]
            if not (min_size < output_size[d] < max_size):
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {min_size} and '
                                 f'{max_size})')
        ret = output_size
    for d in range(len(kernel_size)):
        if ret[d] < 0:
            raise ValueError(f"max_unpooling: output_size must contain non-negative spatial dimensions, but got "
                             f"output_size[{d}]={ret[d]}")
    return ret


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool1d``: each value put back at its index, zeros elsewhere."""
    kernel = _single(kernel_size, "kernel_size")
    step = _single(stride, "stride") if stride is not None else kernel
    output_size = _unpool_output_size(input, kernel, step, _single(padding, "padding"), output_size)
    output_size = list(output_size) + [1]
    return _unpool.max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), output_size).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool2d``: each value put back at its index (in ``H*W``), zeros elsewhere."""
    kernel = _pair(kernel_size, "kernel_size")
    step = _pair(stride, "stride") if stride is not None else kernel
    output_size = _unpool_output_size(input, kernel, step, _pair(padding, "padding"), output_size)
    check_one_device(input, indices)
    return _unpool.max_unpool2d(input, indices, output_size)


def channel_shuffle(input, groups):
    """Divide the channels of ``(N, C, *)`` into ``groups`` and interleave them (ShuffleNet)
    (``torch.nn.functional.channel_shuffle``, ``torch/nn/functional.py``)."""
    return _unpool.channel_shuffle(input, groups)


def native_channel_shuffle(input, groups):
    """:func:`channel_shuffle` with no derivative, as PyTorch's: backpropagating through it raises
    (``torch.nn.functional.native_channel_shuffle``, ``torch/nn/functional.py``)."""
    return _unpool.native_channel_shuffle(input, groups)


__all__ += ["rrelu", "rrelu_"]


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Randomized leaky ReLU: in training each non-positive value gets a slope drawn from ``U(lower, upper)``
    (PyTorch's numbers from the same seed on the CPU), else the slope ``(lower + upper) / 2``.
    Note ``training=False`` by default, as in PyTorch."""
    return _maybe_inplace_piecewise(input, _piecewise.rrelu, inplace, lower=lower, upper=upper, training=training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """``rrelu`` in place: ATen's ``rrelu_``, which also takes a ``generator``
    (``native_functions.yaml``)."""
    if generator is not None and training:
        raise NotImplementedError("nnref's rrelu_ draws its slopes from the default generator only; "
                                  "seed it with torch.manual_seed instead of passing generator=")
    return rrelu(input, lower, upper, training, inplace=True)


__all__ += ["gumbel_softmax"]


def gumbel_softmax(logits, tau=1, hard=False, eps=1e-10, dim=-1):
    """A sample of the Gumbel-softmax (concrete) distribution: ``softmax((logits + g) / tau)``, ``g`` Gumbel noise
    drawn as PyTorch draws it (``-log`` of ``exponential_``); ``hard=True`` returns the one-hot of the sample with
    the soft sample's gradient (straight-through)."""
    from .._creation import empty_like
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -empty_like(logits).exponential_().log()
    gumbels = (logits + gumbels) / tau
    y_soft = gumbels.softmax(dim)
    if hard:
        index = y_soft.max(dim, keepdim=True)[1]
        y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
        return y_hard - y_soft.detach() + y_soft
    return y_soft


__all__ += ["upsample", "upsample_nearest", "upsample_bilinear"]


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated name of :func:`interpolate`, with PyTorch's warning (``torch.nn.functional.upsample``,
    ``torch/nn/functional.py``)."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """Deprecated: :func:`interpolate` with ``mode='nearest'``, with PyTorch's warning
    (``torch.nn.functional.upsample_nearest``, ``torch/nn/functional.py``)."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """Deprecated: :func:`interpolate` with ``mode='bilinear'`` and ``align_corners=True``, with PyTorch's
    warning (``torch.nn.functional.upsample_bilinear``, ``torch/nn/functional.py``)."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


__all__ += ["conv_transpose1d"]


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    """Transposed 1-D convolution: upsamples ``(N, C_in, L)`` by ``(C_in, C_out/groups, K)``;
    ``L_out = (L - 1) * stride - 2 * padding + dilation * (K - 1) + output_padding + 1``."""
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2D (unbatched) or 3D (batched) input to conv_transpose1d, but got input of "
                           f"size: {list(input.shape)}")
    check_one_device(input, weight, bias)
    unbatched = input.dim() == 2
    if unbatched:
        input = input.unsqueeze(0)
    out = _native_conv.conv_transpose1d(input, weight, bias, _single(stride, "stride"), _single(padding, "padding"),
                                        _single(output_padding, "output_padding"), int(groups),
                                        _single(dilation, "dilation"))
    return out.squeeze(0) if unbatched else out


__all__ += ["pdist"]


def pdist(input, p=2):
    """The ``p``-norm distance between every pair of rows of a 2-D input (the upper triangle of
    ``cdist(input, input)``, row by row) (``torch.nn.functional.pdist``, ``torch/nn/functional.py``)."""
    return _pdist.pdist(input, p)


__all__ += ["grid_sample", "affine_grid"]

_ALIGN_CORNERS_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since "
                          "1.3.0. Please specify align_corners=True if the old behavior is desired. See the "
                          "documentation of grid_sample for details.")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """The values of ``input`` at the normalised positions ``grid`` (``x, y`` in ``[-1, 1]``),
    interpolated by ``mode`` with ``padding_mode`` outside (``torch.nn.functional.grid_sample``,
    ``torch/nn/functional.py``; the kernel in ``nnref/_ops/grid_sample.py``)."""
    from .._ops import grid_sample as _grid_sample
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', "
                         f"but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or "
                         f"'reflection', but got: '{padding_mode}'")
    if align_corners is None:
        warnings.warn(_ALIGN_CORNERS_WARNING, stacklevel=2)
        align_corners = False
    _grid_sample.check_grid_sampler(input, grid)
    ndim = 4 if input.dim() == 4 else 5  # ATen's grid_sampler takes the 3-D kernel for anything but 4-D
    if input.dim() != ndim or grid.dim() != ndim:
        raise RuntimeError(f"grid_sampler(): expected {ndim}D input and grid with same number of dimensions, "
                           f"but got input with sizes {_grid_sample._shape(input)} and grid with sizes "
                           f"{_grid_sample._shape(grid)}")
    if input.dim() == 5:
        if mode == "bicubic":
            raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
        return _grid_sample.grid_sampler_3d(input, grid, mode, padding_mode, bool(align_corners))
    return _grid_sample.grid_sampler_2d(input, grid, mode, padding_mode, bool(align_corners))


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of the affine maps ``theta`` (``(N, 2, 3)`` or ``(N, 3, 4)``) over an output
    of ``size`` (``torch.nn.functional.affine_grid``, ``torch/nn/functional.py``)."""
    from .._ops import grid_sample as _grid_sample
    if align_corners is None:
        warnings.warn(_ALIGN_CORNERS_WARNING, stacklevel=2)
        align_corners = False
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    if len(size) == 4:
        if theta.dim() != 3 or theta.shape[-2] != 2 or theta.shape[-1] != 3:
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {size}. "
                             f"Got {theta.shape}.")
        spatial_size = size[-2:]
    elif len(size) == 5:
        if theta.dim() != 3 or theta.shape[-2] != 3 or theta.shape[-1] != 4:
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {size}. "
                             f"Got {theta.shape}.")
        spatial_size = size[-3:]
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {size}.")
    if align_corners and min(spatial_size) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids when "
                      "align_corners=True. This is not an intended use case of affine_grid. See the "
                      "documentation of affine_grid for details.", stacklevel=2)
    elif min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    return _grid_sample.affine_grid_generator(theta, size, bool(align_corners))


__dir__ = _public_dir(globals(), __all__)
