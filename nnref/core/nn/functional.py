"""The functions the MLP and the CNN train with (``torch/nn/functional.py``, chapter 13).
``linear``, ``relu`` and ``cross_entropy`` are made of Tensor ops; the others are numpy forwards
with a node named like PyTorch's, whose docstring gives the derivative."""
import contextlib

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .._ops._common import record
from .._tensor import Tensor
from ..autograd.graph import Node
from . import init

__all__ = ["linear", "relu", "dropout", "conv2d", "max_pool2d", "batch_norm", "nll_loss",
           "cross_entropy", "mse_loss"]
__seams__ = ("exact", "naming_layer")

# Seam: {name: exact version}; nnref/nn/functional.py puts PyTorch's kernels, arguments and errors
exact = {}


# Seam: names the layer in its shape errors; nnref/nn/modules/_shape_errors.py puts naming_layer
def naming_layer(layer, *inputs):
    return contextlib.nullcontext()


def _refuse(function, what):
    raise NotImplementedError(f"the core's {function} takes no {what}: import nnref for that")


def linear(input, weight, bias=None):
    """``input @ weight.T + bias``, a matmul and an add (``import nnref``: one ``addmm``)."""
    if exact:
        return exact["linear"](input, weight, bias)
    out = input.matmul(weight.t())
    return out if bias is None else out + bias


def relu(input, inplace=False):
    """``max(input, 0)`` (``ReluBackward0``); ``inplace=True`` overwrites ``input``."""
    if exact:
        return exact["relu"](input, inplace)
    return input.relu_() if inplace else input.relu()


def dropout(input, p=0.5, training=True, inplace=False):
    """In training, zero each element with probability ``p`` and scale the others by ``1 / (1 - p)``,
    which keeps each value's expectation: evaluation returns ``input`` itself.  The mask multiplies
    (``MulBackward0``); its numbers come from ``init.fill_uniform``."""
    if exact:
        return exact["dropout"](input, p, training, inplace)
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    dtype = input._data.dtype
    keep = init.fill_uniform(Tensor._make(np.empty(input.shape, dtype)), 0.0, 1.0)._data >= p
    mask = Tensor._make(keep.astype(dtype) / dtype.type(1 - p) if p < 1 else keep.astype(dtype))
    return input.mul_(mask) if inplace else input * mask


def _pair(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value, value)


def _windows(x, kernel_size, stride, padding, fill=0):
    """im2col as a view: ``(N, C, H_out, W_out, KH, KW)``, every window the kernel visits."""
    (ph, pw), (sh, sw) = padding, stride
    padded = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)), constant_values=fill)
    return sliding_window_view(padded, tuple(kernel_size), axis=(2, 3))[:, :, ::sh, ::sw], padded.shape


class ConvolutionBackward0(Node):
    """``out[n,o,y,x] = sum_{c,i,j} window[n,c,y,x,i,j] * weight[o,c,i,j] + bias[o]``, so
    ``grad_weight[o,c,i,j] = sum_{n,y,x} grad[n,o,y,x] * window[n,c,y,x,i,j]``,
    ``grad_bias[o] = sum_{n,y,x} grad[n,o,y,x]``, and ``grad_input`` adds ``grad * weight`` back
    onto every input element each window read (col2im)."""

    def backward(self, grad):
        input, weight = self.saved_tensors
        g, w = grad._data, weight._data
        windows, padded_shape = _windows(input._data, w.shape[2:], self.stride, self.padding)
        grad_weight = np.einsum("noyx,ncyxij->ocij", g, windows, optimize=True)
        cols = np.einsum("noyx,ocij->ncyxij", g, w, optimize=True)
        grad_padded = np.zeros(padded_shape, g.dtype)
        (sh, sw), (oh, ow) = self.stride, g.shape[2:]
        for i in range(w.shape[2]):  # one strided slice per kernel position, not per element
            for j in range(w.shape[3]):
                grad_padded[:, :, i:i + sh * oh:sh, j:j + sw * ow:sw] += cols[..., i, j]
        (ph, pw), (h, wd) = self.padding, input.shape[2:]
        grads = (Tensor._make(grad_padded[:, :, ph:ph + h, pw:pw + wd]), Tensor._make(grad_weight))
        return grads + ((Tensor._make(g.sum((0, 2, 3))),) if self.has_bias else ())


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D cross-correlation of ``(N, C, H, W)`` by ``(O, C, KH, KW)``, plus ``bias[o]``:
    ``H_out = (H + 2 * padding - KH) // stride + 1``."""
    if exact:
        return exact["conv2d"](input, weight, bias, stride, padding, dilation, groups)
    if _pair(dilation) != (1, 1) or groups != 1 or isinstance(padding, str) or input.dim() != 4:
        _refuse("conv2d", "dilation, groups, padding string or unbatched input")
    stride, padding = _pair(stride), _pair(padding)
    windows, _ = _windows(input._data, weight.shape[2:], stride, padding)
    out = np.einsum("ncyxij,ocij->noyx", windows, weight._data, optimize=True)
    if bias is not None:
        out = out + bias._data[:, None, None]
    out = Tensor._make(np.ascontiguousarray(out))
    inputs = (input, weight) if bias is None else (input, weight, bias)
    return record(out, ConvolutionBackward0, inputs, (input, weight), stride=stride,
                  padding=padding, has_bias=bias is not None)


class MaxPool2DWithIndicesBackward0(Node):
    """Each output's gradient goes to the input element that was its window's maximum
    (``indices``, flat into ``H * W``); an element that was the maximum of several windows gets
    their sum, the others 0."""

    def backward(self, grad):
        n, c, h, w = self.input_shape
        grad_input = np.zeros((n, c, h * w), grad._data.dtype)
        np.add.at(grad_input, (np.arange(n)[:, None, None], np.arange(c)[None, :, None],
                               self.indices.reshape(n, c, -1)), grad._data.reshape(n, c, -1))
        return (Tensor._make(grad_input.reshape(n, c, h, w)),)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """The largest value of each ``kernel_size`` window (``stride`` defaults to ``kernel_size``)
    of a ``(N, C, H, W)`` input; with ``return_indices``, also where it was (flat into ``H * W``)."""
    if exact:
        return exact["max_pool2d"](input, kernel_size, stride, padding, dilation, ceil_mode,
                                   return_indices)
    if _pair(dilation) != (1, 1) or ceil_mode or input.dim() != 4:
        _refuse("max_pool2d", "dilation, ceil_mode or unbatched input")
    kernel = _pair(kernel_size)
    (sh, sw), (ph, pw) = _pair(stride or kernel), _pair(padding)
    windows, _ = _windows(input._data, kernel, (sh, sw), (ph, pw), fill=-np.inf)
    n, c, oh, ow, kh, kw = windows.shape
    flat = windows.reshape(n, c, oh, ow, kh * kw)
    k = flat.argmax(-1)  # the first maximum of each window, as PyTorch picks
    rows = np.arange(oh)[:, None] * sh + k // kw - ph
    indices = rows * input.shape[3] + np.arange(ow) * sw + k % kw - pw
    out = record(Tensor._make(np.take_along_axis(flat, k[..., None], -1)[..., 0]),
                 MaxPool2DWithIndicesBackward0, (input,), input_shape=input.shape, indices=indices)
    return (out, Tensor._make(indices.astype(np.int64))) if return_indices else out


class NativeBatchNormBackward0(Node):
    """With ``x_hat = (x - mean) * invstd`` and ``y = weight * x_hat + bias`` per channel:
    ``grad_bias = sum(g)``, ``grad_weight = sum(g * x_hat)`` over all but the channel dim, and
    ``grad_input = weight * invstd * (g - mean(g) - x_hat * mean(g * x_hat))`` in training (the
    batch statistics depend on ``x``), ``weight * invstd * g`` in evaluation."""

    def backward(self, grad):
        g, x_hat, axes, shape = grad._data, self.x_hat, self.axes, self.shape
        scale = self.invstd if self.weight is None else self.invstd * self.weight
        if self.training:
            g = g - g.mean(axes).reshape(shape) - x_hat * (g * x_hat).mean(axes).reshape(shape)
        grads = (Tensor._make(g * scale.reshape(shape)),)
        if self.weight is not None:
            grads += (Tensor._make((grad._data * x_hat).sum(axes)),)
        return grads + ((Tensor._make(grad._data.sum(axes)),) if self.has_bias else ())


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Normalise each channel (dim 1) by the batch's mean and biased variance in training, by
    ``running_mean``/``running_var`` in evaluation, then scale by ``weight``, shift by ``bias``.
    Training updates the running statistics in place, with the unbiased variance:
    ``running = (1 - momentum) * running + momentum * batch``."""
    if exact:
        return exact["batch_norm"](input, running_mean, running_var, weight, bias, training,
                                   momentum, eps)
    x = input._data
    axes, shape = (0, *range(2, x.ndim)), (1, -1) + (1,) * (x.ndim - 2)
    if training:
        mean, var = x.mean(axes), x.var(axes)
        if running_mean is not None:
            count = x.size // x.shape[1]
            running_mean._data[...] = (1 - momentum) * running_mean._data + momentum * mean
            running_var._data[...] = ((1 - momentum) * running_var._data
                                      + momentum * var * count / (count - 1))
    else:
        mean, var = running_mean._data, running_var._data
    invstd = 1 / np.sqrt(var + eps)
    x_hat = (x - mean.reshape(shape)) * invstd.reshape(shape)
    y = x_hat if weight is None else x_hat * weight._data.reshape(shape)
    out = Tensor._make(y if bias is None else y + bias._data.reshape(shape))
    inputs = tuple(t for t in (input, weight, bias) if t is not None)
    return record(out, NativeBatchNormBackward0, inputs, x_hat=x_hat, invstd=invstd,
                  weight=None if weight is None else weight._data, has_bias=bias is not None,
                  training=training, axes=axes, shape=shape)


class NllLossBackward0(Node):
    """``loss = -sum_n input[n, target[n]] / count`` (``count`` = the targets kept, 1 for
    ``'sum'``): ``grad_input[n, target[n]] = -grad / count``, 0 elsewhere."""

    def backward(self, grad):
        grad_input = np.zeros(self.input_shape, grad._data.dtype)
        grad_input[self.rows, self.target] = -grad._data / self.count
        return (Tensor._make(grad_input),)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """The negative log-likelihood of class indices ``target`` (``N``) under log-probabilities
    ``input`` (``N, C``); targets equal to ``ignore_index`` count for nothing."""
    if exact:
        return exact["nll_loss"](input, target, weight, size_average, ignore_index, reduce,
                                 reduction)
    if weight is not None or size_average is not None or reduce is not None or input.dim() != 2 \
            or reduction not in ("mean", "sum"):
        _refuse("nll_loss", f"weight, size_average, reduce, reduction={reduction!r} or 1-D input")
    kept = target._data != ignore_index
    rows, classes = np.arange(len(kept))[kept], target._data[kept]
    count = len(rows) if reduction == "mean" else 1
    out = Tensor._make(np.asarray(-input._data[rows, classes].sum() / count))
    return record(out, NllLossBackward0, (input,), input_shape=input.shape, rows=rows,
                  target=classes, count=count)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """``nll_loss(log_softmax(input, 1), target)``: the loss of raw scores (logits)."""
    if exact:
        return exact["cross_entropy"](input, target, weight, size_average, ignore_index,
                                      reduce, reduction, label_smoothing)
    if label_smoothing:
        _refuse("cross_entropy", "label_smoothing")
    return nll_loss(input.log_softmax(1), target, weight, size_average, ignore_index, reduce,
                    reduction)


class MseLossBackward0(Node):
    """``loss = sum((input - target)^2) / count`` (``count`` = the elements for ``'mean'``, 1 for
    ``'sum'``): ``grad_input = 2 * (input - target) * grad / count``, ``grad_target`` its negative."""

    def backward(self, grad):
        input, target = self.saved_tensors
        d = 2 * (input._data - target._data) * grad._data / self.count
        return Tensor._make(d), Tensor._make(-d)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """The mean (or sum) of the squared differences of two tensors of the same shape."""
    if exact:
        return exact["mse_loss"](input, target, size_average, reduce, reduction, weight)
    if weight is not None or size_average is not None or reduce is not None \
            or input.shape != target.shape or reduction not in ("mean", "sum"):
        _refuse("mse_loss", f"weight, size_average, reduce, reduction={reduction!r} or broadcasting")
    d = input._data - target._data
    out = Tensor._make(np.asarray((d * d).mean() if reduction == "mean" else (d * d).sum()))
    return record(out, MseLossBackward0, (input, target), (input, target),
                  count=d.size if reduction == "mean" else 1)
