"""The kernels behind ``nn.functional`` that the core ops do not cover, each with its backward node.

Mirrors the ATen native kernels PyTorch dispatches to on the CPU
(``aten/src/ATen/native/Convolution.cpp``, ``DilatedMaxPool2d.cpp``,
``Normalization.cpp``, ``layer_norm.cpp``, ``Embedding.cpp``, ``LossNLL.cpp``,
``Loss.cpp``) and the formulas of ``tools/autograd/derivatives.yaml``.  Every
node carries PyTorch's class name, so ``loss.grad_fn`` chains read the same.

Everything is vectorised numpy: a convolution is im2col plus one matrix product per
block of samples (per sample in 1-D), pooling a running maximum over strided views.  The convolution's
backward is built from convolutions again, so it supports double backward as in
PyTorch; the other nodes compute their backward with numpy and are first-order only:
differentiating through them again (``create_graph=True``) raises instead of silently
returning zeros.  The losses whose backward is a short formula (``mse_loss``,
``binary_cross_entropy_with_logits``) build it from nnref ops and so support double
backward, as in PyTorch.
"""
from typing import NamedTuple

import numpy as np

from ..core import _dtype
from ..core._device import array_module_of
from .. import _meta
from ..core.autograd.grad_mode import _GradState, no_grad
from ..core.autograd.graph import Node
from ._common import needs_grad, record, wrap
from .cascade_sum import follows_aten_sum
from .nll_loss_sum import nll_cascade_sum
from .pointwise import clamp

__all__ = ["convolution", "convolution_backward", "pad_2d", "max_pool2d_with_indices", "native_batch_norm", "native_layer_norm",
           "embedding", "embedding_renorm_", "nll_loss_nd", "div_scalar", "mse_loss",
           "binary_cross_entropy_with_logits"]

_REDUCTIONS = ("none", "mean", "sum")


def reduction_enum(reduction):
    """``'none'``/``'mean'``/``'sum'`` checked the way ``torch.nn._reduction.get_enum`` does."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _wants(node):
    """Which inputs of ``node`` need a gradient (their edge leads somewhere)."""
    return tuple(edge[0] is not None for edge in node.next_functions)


class _NumpyBackward(Node):
    """A node whose backward is plain numpy: refuses to be differentiated again rather than lie.

    Under ``create_graph=True`` the gradients it returns must be differentiable with respect to
    the incoming gradient *and* to every saved tensor that requires grad (the input, for
    conv or batch norm); numpy can give neither, so it raises.  Nodes that can redo their
    backward with differentiable nnref ops override :meth:`differentiable_backward`.
    """

    differentiable_backward = None

    def apply(self, *grad_outputs):
        if _GradState.enabled and (
                any(g is not None and g.requires_grad for g in grad_outputs)
                or any(s is not None and s.tensor.requires_grad for s in self._saved or ())):
            if self.differentiable_backward is not None:
                return self.differentiable_backward(*grad_outputs)
            raise RuntimeError(
                f"nnref computes {self.name()} with numpy, so its gradient cannot be differentiated "
                "again (create_graph=True); PyTorch supports this double backward, nnref does not.")
        return super().apply(*grad_outputs)


_HALF_TYPES = (_dtype.float16.numpy, _dtype.bfloat16.numpy)


def _opmath(array):
    """float16/bfloat16 data in float32, the precision PyTorch's CPU kernels compute them in."""
    return array.astype(np.float32) if array.dtype in _HALF_TYPES else array


def _as(array, like):
    """``array`` in the dtype of the array ``like`` (the result of an ``_opmath`` computation)."""
    return array.astype(like.dtype, copy=False)


def _reduce(data, reduction):
    if reduction == "mean":
        if not data.size:
            return array_module_of(data).array(np.nan, dtype=data.dtype)
        return data.mean(dtype=data.dtype)
    if reduction == "sum":
        return data.sum(dtype=data.dtype)
    return data


def _floating(name, *tensors):
    for t in tensors:
        if t is not None and not t._dtype.is_floating_point:
            raise RuntimeError(f'"{name}" not implemented for \'{t._dtype._legacy_name[:-6]}\'; '
                               f"convert the input to a floating point dtype first, e.g. x.float()")


# --------------------------------------------------------------------------------------------
# Convolution: im2col in blocks of samples, one matrix product per block (2-D) or sample (1-D)
# --------------------------------------------------------------------------------------------

class _ConvParams(NamedTuple):
    """A convolution's geometry, resolved: one entry per spatial dim in each tuple, ``padding``'s a
    ``(before, after)`` pair (``((top, bottom), (left, right))`` in 2-D)."""
    stride: tuple
    padding: tuple
    dilation: tuple
    groups: int


# Patch columns materialised at a time. A whole batch's im2col matrix is C*KH*KW times the
# input (51 MB for the 20-channel 5x5 layer at batch 64, where PyTorch's whole training step
# peaks at 22 MB); blocks of samples this size bound that, and stay in cache between the copy
# and the product.
_COLUMN_BLOCK_BYTES = 4 << 20


def _windows(padded, kernel, stride, dilation):
    """View ``(N, C, H, W)`` as ``(N, C, OH, OW, KH, KW)`` patches, ``(N, C, L)`` as
    ``(N, C, L_out, K)``; no copy."""
    spans = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    xp = array_module_of(padded)
    view = xp.lib.stride_tricks.sliding_window_view(padded, spans, axis=tuple(range(2, padded.ndim)))
    return view[(slice(None), slice(None)) + tuple(slice(None, None, step) for step in stride + dilation)]


def _zero_pad(x, padding):
    """``x`` with ``padding`` (a ``(before, after)`` pair per spatial dim) zeros around its spatial
    dims: zeros and one copy, as ``np.pad`` takes up to three times as long on small inputs."""
    if not any(before or after for before, after in padding):
        return x
    xp = array_module_of(x)
    padded = xp.zeros(x.shape[:2] + tuple(size + before + after
                                          for size, (before, after) in zip(x.shape[2:], padding)),
                      dtype=x.dtype)
    padded[(slice(None), slice(None)) + tuple(slice(before, before + size)
                                              for size, (before, _) in zip(x.shape[2:], padding))] = x
    return padded


def _patches(x, kernel, conv):
    """The padded input's patches as a ``(C, KH, KW, N, OH, OW)`` view; no copy.

    Row ``(c, i, j)``, column ``(n, oy, ox)`` is Caffe's im2col matrix with the batch folded
    into the columns, so one product serves many samples and writes ``(O, N*OH*OW)`` rows.
    """
    return _windows(_zero_pad(x, conv.padding), kernel, conv.stride, conv.dilation).transpose(
        1, 4, 5, 0, 2, 3)


def _sample_blocks(samples, bytes_per_sample, data, block_bytes=None):
    """Slices of the batch, each as many samples as fit in ``block_bytes`` (``_COLUMN_BLOCK_BYTES``
    unless given; at least one sample); one slice on 'meta', where the columns take no memory."""
    block_bytes = _COLUMN_BLOCK_BYTES if block_bytes is None else block_bytes
    step = max(1, block_bytes // bytes_per_sample) if _meta.has_values(data) else max(samples, 1)
    return [slice(start, min(start + step, samples)) for start in range(0, samples, step)]


def _columns(patches, block, groups):
    """A block's im2col matrix ``(G, C/G*KH*KW, samples*OH*OW)``: the one copy im2col makes."""
    return patches[:, :, :, block].reshape(groups, patches.shape[0] // groups * patches.shape[1]
                                           * patches.shape[2], -1)


def _grad_rows(grad, block, groups):
    """A block's output gradient ``(N, O, OH, OW)`` as ``(G, O/G, samples*OH*OW)``, like a product's."""
    return grad[block].transpose(1, 0, 2, 3).reshape(groups, grad.shape[1] // groups, -1)


def _conv_forward(x, w, conv):
    """``(N, C, H, W)`` by ``(O, C/G, KH, KW)`` to ``(N, O, OH, OW)``: per block of samples,
    ``weight (G, O/G, K) @ columns (G, K, samples*OH*OW)``."""
    xp = array_module_of(x)
    patches = _patches(x, w.shape[2:], conv)
    c, kh, kw, n, oh, ow = patches.shape
    weights = w.reshape(conv.groups, w.shape[0] // conv.groups, -1)
    out = xp.empty((n, w.shape[0], oh, ow), dtype=xp.result_type(x, w))
    for block in _sample_blocks(n, c * kh * kw * oh * ow * x.itemsize, x):
        product = xp.matmul(weights, _columns(patches, block, conv.groups))
        out[block] = product.reshape(w.shape[0], -1, oh, ow).transpose(1, 0, 2, 3)
    return out


def _conv_weight_grad(x, grad, weight_shape, conv):
    """d out / d weight: the sum over samples of ``grad_rows @ columns^T``, one product per block."""
    xp = array_module_of(x)
    patches = _patches(x, weight_shape[2:], conv)
    c, kh, kw, n, oh, ow = patches.shape
    groups = conv.groups
    grad_weight = xp.zeros((groups, weight_shape[0] // groups, c // groups * kh * kw), dtype=grad.dtype)
    for block in _sample_blocks(n, c * kh * kw * oh * ow * x.itemsize, x):
        grad_weight += xp.matmul(_grad_rows(grad, block, groups),
                                 _columns(patches, block, groups).transpose(0, 2, 1))
    return grad_weight.reshape(weight_shape)


def _conv_input_grad(grad, w, input_shape, conv):
    """d out / d input: per block, the patch gradients ``weight^T @ grad``, added back onto the
    pixels each patch was copied from (col2im): one strided add per kernel offset, no np.add.at."""
    xp = array_module_of(grad)
    n, c, h, width = input_shape
    out_channels, _, kh, kw = w.shape
    oh, ow = grad.shape[2:]
    (top, bottom), (left, right) = conv.padding
    (sh, sw), (dh, dw) = conv.stride, conv.dilation
    groups = conv.groups
    weights_t = w.reshape(groups, out_channels // groups, -1).transpose(0, 2, 1)
    grad_input = xp.empty(input_shape, dtype=grad.dtype)
    for block in _sample_blocks(n, c * kh * kw * oh * ow * grad.itemsize, grad):
        # Samples innermost here, (G, O/G, OH*OW*samples): then each add below runs over rows of
        # OW * samples contiguous numbers rather than many short rows of OW.
        samples_last = xp.ascontiguousarray(grad[block].transpose(1, 2, 3, 0))
        d_patches = xp.matmul(weights_t, samples_last.reshape(groups, out_channels // groups, -1))
        d_patches = d_patches.reshape(c, kh, kw, oh, ow, -1)
        padded = xp.zeros((c, h + top + bottom, width + left + right, d_patches.shape[-1]),
                          dtype=grad.dtype)
        for i in range(kh):
            rows = slice(i * dh, i * dh + sh * (oh - 1) + 1, sh)
            for j in range(kw):
                cols = slice(j * dw, j * dw + sw * (ow - 1) + 1, sw)
                padded[:, rows, cols] += d_patches[:, i, j]
        grad_input[block] = padded[:, top:top + h, left:left + width].transpose(3, 0, 1, 2)
    return grad_input


# A 1-D signal is convolved sample by sample, as ``slow_conv2d`` convolves its frames (one im2col
# and one product per sample, ``aten/src/ATen/native/ConvolutionMM2d.cpp``): with the batch kept
# outside the columns, the input, output and gradients are used in their own (N, C, L) layouts.
# Folding the batch into the columns, as the 2-D kernel does, costs a transposed copy of each, and
# its one (O, C*K) @ (C*K, N*L_out) product, whose operands outgrow the cache, runs slower than N
# small ones: Conv1d(16, 32, 5) on (32, 16, 128) took 1.9x PyTorch's time that way, 1.15x this way.
#
# _CONV1D_BLOCK_BYTES: the 1-D kernel's columns at a time. Its products are per sample, so a block
# only bounds memory: small blocks cost nothing, stay in the L2 cache between the copy and the
# product, and keep a step's temporaries small enough that glibc does not return the heap's top
# to the system after every step (to page-fault it in again on the next: twice as slow with the
# example's one 1.3 MB block).
_CONV1D_BLOCK_BYTES = 512 << 10


def _conv1d_windows(x, kernel_size, conv):
    """The padded input's windows as an ``(N, C, K, L_out)`` view; no copy. Sample ``n``'s
    ``(C*K, L_out)`` slice is its im2col matrix: row ``(c, k)`` holds channel ``c`` at kernel offset
    ``k`` of every window (``unfolded2d_copy``); a reshape of a block of samples copies it."""
    windows = _windows(_zero_pad(x, conv.padding), (kernel_size,), conv.stride, conv.dilation)
    return windows.transpose(0, 1, 3, 2)


def _conv1d_forward(x, w, conv):
    """``(N, C, L)`` by ``(O, C/G, K)`` to ``(N, O, L_out)``: per sample ``weight (G, O/G, C/G*K) @
    columns (G, C/G*K, L_out)``, written straight into the output's rows."""
    xp = array_module_of(x)
    windows = _conv1d_windows(x, w.shape[2], conv)
    n, c, kernel_size, length_out = windows.shape
    stacks = (conv.groups, w.shape[0] // conv.groups)
    weights = w.reshape(stacks + (-1,))
    out = xp.empty((n, w.shape[0], length_out), dtype=x.dtype)
    for block in _sample_blocks(n, c * kernel_size * length_out * x.itemsize, x, _CONV1D_BLOCK_BYTES):
        columns = windows[block].reshape(-1, conv.groups, c // conv.groups * kernel_size, length_out)
        xp.matmul(weights, columns, out=out[block].reshape(columns.shape[:1] + stacks + (length_out,)))
    return out


def _conv1d_weight_grad(x, grad, weight_shape, conv):
    """d out / d weight: per sample ``columns (C/G*K, L_out) @ grad^T (L_out, O/G)``, summed over the
    batch. ``slow_conv2d`` accumulates the transpose, ``grad @ columns^T``; numpy's product with a
    transposed right operand runs at 60% speed, so the gradient is transposed (a copy of the
    output's size) and the small result back instead."""
    xp = array_module_of(x)
    out_channels, cg, kernel_size = weight_shape
    windows = _conv1d_windows(x, kernel_size, conv)
    n, c, _, length_out = windows.shape
    groups = conv.groups
    grad_weight = xp.zeros((groups, cg * kernel_size, out_channels // groups), dtype=grad.dtype)
    for block in _sample_blocks(n, c * kernel_size * length_out * x.itemsize, x, _CONV1D_BLOCK_BYTES):
        columns = windows[block].reshape(-1, groups, cg * kernel_size, length_out)
        rows_t = grad[block].reshape(columns.shape[0], groups, -1, length_out).transpose(0, 1, 3, 2)
        grad_weight += xp.matmul(columns, xp.ascontiguousarray(rows_t)).sum(axis=0)
    return grad_weight.transpose(0, 2, 1).reshape(weight_shape)


def _conv1d_input_grad(grad, w, input_shape, conv):
    """d out / d input: per sample the patch gradients ``weight^T @ grad``, added back onto the
    positions each patch was copied from (col2im, ``unfolded2d_acc``): one strided add per
    kernel offset."""
    xp = array_module_of(grad)
    n, c, length = input_shape
    out_channels, _, kernel_size = w.shape
    (left, right), = conv.padding
    (stride,), (dilation,) = conv.stride, conv.dilation
    length_out = grad.shape[2]
    weights_t = w.reshape(conv.groups, out_channels // conv.groups, -1).transpose(0, 2, 1)
    padded = xp.zeros((n, c, left + length + right), dtype=grad.dtype)
    for block in _sample_blocks(n, c * kernel_size * length_out * grad.itemsize, grad, _CONV1D_BLOCK_BYTES):
        rows = grad[block].reshape(-1, conv.groups, out_channels // conv.groups, length_out)
        d_patches = xp.matmul(weights_t, rows).reshape(-1, c, kernel_size, length_out)
        for k in range(kernel_size):
            start = k * dilation
            padded[block, :, start:start + stride * (length_out - 1) + 1:stride] += d_patches[:, :, k]
    return xp.ascontiguousarray(padded[:, :, left:left + length])


class _ConvKernels(NamedTuple):
    """The three kernels of a convolution of one spatial rank."""
    forward: object
    weight_grad: object
    input_grad: object


# The kernels by the number of dims of the input: (N, C, L) and (N, C, H, W).
_KERNELS = {3: _ConvKernels(_conv1d_forward, _conv1d_weight_grad, _conv1d_input_grad),
            4: _ConvKernels(_conv_forward, _conv_weight_grad, _conv_input_grad)}


class ConvolutionBackward0(Node):
    """d conv for (input, weight, bias), computed by ``convolution_backward``, itself differentiable."""

    def backward(self, grad):
        input, weight = self.saved_tensors
        return convolution_backward(grad, input, weight, self.conv, _wants(self))


class ConvolutionBackwardBackward0(Node):
    """The derivatives of ``convolution_backward``'s three results, convolutions once more
    (``_convolution_double_backward`` in ``torch/csrc/autograd/FunctionsManual.cpp``).

    The convolution is bilinear in (input, weight), so with gg* the gradients arriving at
    (grad_input, grad_weight, grad_bias)::

        d grad_output = conv(gg_input, weight) + conv(input, gg_weight) + gg_bias
        d input       = grad_input  of conv(., gg_weight) for grad_output
        d weight      = grad_weight of conv(gg_input, .)  for grad_output
    """

    def backward(self, gg_input, gg_weight, gg_bias):
        grad, input, weight = self.saved_tensors
        wants_grad, wants_input, wants_weight = _wants(self)
        d_grad = d_input = d_weight = None
        if wants_grad:
            terms = []
            if gg_input is not None:
                terms.append(_convolve(gg_input, weight, None, self.conv))
            if gg_weight is not None:
                terms.append(_convolve(input, gg_weight, None, self.conv))
            if gg_bias is not None:
                terms.append(gg_bias.reshape((1, -1) + (1,) * (grad.dim() - 2)).expand(*grad.shape))
            d_grad = sum(terms[1:], terms[0])
        if wants_input and gg_weight is not None:
            d_input = convolution_backward(grad, input, gg_weight, self.conv, (True, False, False))[0]
        if wants_weight and gg_input is not None:
            d_weight = convolution_backward(grad, gg_input, weight, self.conv, (False, True, False))[1]
        return d_grad, d_input, d_weight

    def _zeros_for_output(self, index):
        """None: like PyTorch's formula, a result that received no gradient adds no term (so an
        input whose only path runs through it keeps ``.grad`` None, as in PyTorch)."""
        return None


def convolution_backward(grad, input, weight, conv, output_mask):
    """``(grad_input, grad_weight, grad_bias)`` of a convolution, each where ``output_mask`` asks
    (``at::convolution_backward``). ``input`` only lends its shape when ``grad_weight`` is not
    asked for, ``weight`` likewise for ``grad_input``. With grad mode on the results hang off one
    ``ConvolutionBackwardBackward0`` node, so ``create_graph=True`` differentiates through them."""
    wants_input, wants_weight, wants_bias = output_mask
    g = _opmath(grad._data)
    kernels = _KERNELS[g.ndim]
    results = [None, None, None]
    if wants_input:
        results[0] = kernels.input_grad(g, _opmath(weight._data), input._data.shape, conv)
    if wants_weight:
        results[1] = kernels.weight_grad(_opmath(input._data), g, weight._data.shape, conv)
    if wants_bias:
        # The batch first, in long contiguous adds, then each channel's plane: reducing all the
        # axes at once, numpy runs one short loop per (sample, channel) plane, up to 2.5x slower.
        results[2] = g.sum(axis=0).sum(axis=tuple(range(1, g.ndim - 1)))
    outputs = tuple(None if r is None else wrap(_as(r, grad._data), grad) for r in results)
    sources = (grad, input if wants_weight else None, weight if wants_input else None)
    if needs_grad(*sources):
        node = ConvolutionBackwardBackward0(sources, sources, conv=conv, num_outputs=3)
        for index, out in enumerate(outputs):
            if out is not None:
                out.grad_fn, out._output_nr = node, index
    return outputs


class _IndexPadBackward(_NumpyBackward):
    """Sum the gradient of every padded position back onto the input position it copies."""

    def backward(self, grad):
        rows, cols = self.row_map, self.col_map  # one-hot (padded, original) matrices
        summed = rows.T @ (_opmath(grad._data) @ cols)
        return (wrap(array_module_of(summed).ascontiguousarray(_as(summed, grad._data)), grad),)


class ReflectionPad2DBackward0(_IndexPadBackward):
    pass


class ReplicationPad2DBackward0(_IndexPadBackward):
    pass


class CopySlices(_IndexPadBackward):
    """PyTorch builds circular padding from slice copies; its graph's top node has this name."""

    def name(self):
        return "torch::autograd::CopySlices"


_PAD_MODES = {"reflect": ("reflect", ReflectionPad2DBackward0),
              "replicate": ("edge", ReplicationPad2DBackward0),
              "circular": ("wrap", CopySlices)}


def pad_2d(input, pads, mode):
    """Pad the last two dims of ``(N, C, H, W)`` or ``(C, H, W)`` by ``((top, bottom), (left, right))``
    with the input's own values: mirrored (``'reflect'``), repeated edge (``'replicate'``) or
    wrapped (``'circular'``), the non-zero padding modes of ``Conv2d``."""
    numpy_mode, node_class = _PAD_MODES[mode]
    x = input._data
    xp = array_module_of(x)
    maps = []
    for dim, (before, after) in zip((x.ndim - 2, x.ndim - 1), pads):
        size = x.shape[dim]
        if mode == "reflect" and max(before, after) >= size:
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding "
                               f"input dimension, but got: padding ({before}, {after}) at dimension "
                               f"{dim} of input {list(x.shape)}")
        if mode == "circular" and max(before, after) > size:
            raise RuntimeError("Padding value causes wrapping around more than once.")
        index = xp.pad(xp.arange(size), (before, after), mode=numpy_mode)
        maps.append((index, (index[:, None] == xp.arange(size)).astype(_opmath(x[:0]).dtype)))
    (row_index, row_map), (col_index, col_map) = maps
    out = wrap(x[..., row_index[:, None], col_index], input)
    return record(out, node_class, (input,), row_map=row_map, col_map=col_map)


def _conv_padding(padding, kernel, dilation, stride):
    """A ``(before, after)`` pair per spatial dim (``(top, bottom), (left, right)`` in 2-D) from one
    int per dim or ``'same'``/``'valid'``."""
    if isinstance(padding, str):
        if padding == "valid":
            return tuple((0, 0) for _ in kernel)
        if padding != "same":
            raise ValueError(f"Invalid padding string '{padding}', should be one of "
                             "{'valid', 'same'}")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        # An even kernel cannot be centred: the extra row/column of padding goes at the end.
        pads = []
        for k, d in zip(kernel, dilation):
            total = d * (k - 1)
            pads.append((total // 2, total - total // 2))
        return tuple(pads)
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    return tuple((p, p) for p in padding)


def convolution(input, weight, bias, stride, padding, dilation, groups):
    """1-D or 2-D cross-correlation of a batched ``(N, C, L)`` or ``(N, C, H, W)`` input
    (``at::convolution``); ``stride`` and ``dilation`` have one entry per spatial dim."""
    x, w = input._data, weight._data
    dims = len(stride)
    if w.ndim != dims + 2:
        raise RuntimeError(f"Expected {dims + 2}-dimensional weight for conv{dims}d, but got "
                           f"{w.ndim}-dimensional weight of size {list(w.shape)}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    out_channels, cg = w.shape[:2]
    kernel = w.shape[2:]
    if x.shape[1] != cg * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(w.shape)}, expected input{list(x.shape)} "
            f"to have {cg * groups} channels, but got {x.shape[1]} channels instead")
    if out_channels < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {list(w.shape)} instead")
    if out_channels % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at "
                           f"dimension 0, but got weight of size {list(w.shape)} instead")
    _floating(f"conv{dims}d", input)
    if input._dtype is not weight._dtype:
        raise RuntimeError(f"Input type ({input._dtype.name}) and weight type "
                           f"({weight._dtype.name}) should be the same")
    if bias is not None:
        if bias._dtype is not input._dtype:
            raise RuntimeError(f"Input type ({input._dtype.name}) and bias type "
                               f"({bias._dtype.name}) should be the same")
        if bias._data.shape != (out_channels,):
            raise RuntimeError(f"Given weight of size {list(w.shape)}, expected bias to be 1-dimensional "
                               f"with {out_channels} elements, but got bias of size {list(bias.shape)} "
                               "instead")
    pads = _conv_padding(padding, kernel, dilation, stride)
    spans = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    padded = [size + before + after for size, (before, after) in zip(x.shape[2:], pads)]
    if any(size < span for size, span in zip(padded, spans)):
        raise RuntimeError(
            f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
            f"({' x '.join(map(str, spans))}). Kernel size can't be greater than actual input size")

    return _convolve(input, weight, bias, _ConvParams(tuple(stride), pads, tuple(dilation), groups))


def _convolve(input, weight, bias, conv):
    """The convolution of checked arguments, recording ``ConvolutionBackward0``."""
    x = _opmath(input._data)
    out = _KERNELS[x.ndim].forward(x, _opmath(weight._data), conv)
    if bias is not None:
        out += _opmath(bias._data).reshape((1, -1) + (1,) * (x.ndim - 2))
    result = wrap(_as(out, input._data), input)
    return record(result, ConvolutionBackward0, (input, weight, bias), saved=(input, weight),
                  conv=conv)


# --------------------------------------------------------------------------------------------
# Max pooling: a running max over the kernel offsets
# --------------------------------------------------------------------------------------------

def _pool_output_size(size, kernel, pad, stride, dilation, ceil_mode):
    """``pooling_output_shape`` from ``aten/src/ATen/native/Pool.h``."""
    numerator = size + 2 * pad - dilation * (kernel - 1) - 1 + (stride - 1 if ceil_mode else 0)
    out = numerator // stride + 1
    # With ceil_mode the last window must still start inside the input or its left padding.
    if ceil_mode and (out - 1) * stride >= size + pad:
        out -= 1
    return out


class MaxPool2DWithIndicesBackward0(_NumpyBackward):
    """The gradient goes to the position each window picked (summed where windows overlap)."""

    def backward(self, grad):
        n, c, h, w = self.self_sizes
        g = grad._data.reshape(n, c, *grad._data.shape[-2:])
        xp = array_module_of(g)
        input_shape = self._input_metadata[0][0]  # (C, H, W) when the input was unbatched
        if self.tiles is not None:
            # Non-overlapping windows tile the input: view it as (N, C, OH, KH, OW, KW) and drop
            # each window's gradient on the offset it picked, one strided write per offset.
            (kh, kw), (oh, ow) = self.tiles, g.shape[-2:]
            summed = xp.zeros((n, c, h, w), dtype=g.dtype)
            tiles = summed[:, :, :oh * kh, :ow * kw].reshape(n, c, oh, kh, ow, kw)
            for i in range(kh):
                for j in range(kw):
                    tiles[:, :, :, i, :, j] = xp.where(self.offsets == i * kw + j, g, 0)
            return (wrap(summed.reshape(input_shape), grad),)
        # Offset each plane's indices so one bincount scatters the whole batch.
        plane_offsets = (xp.arange(n * c, dtype=np.int64) * (h * w)).reshape(n, c, 1, 1)
        flat = (self.indices + plane_offsets).ravel()
        summed = xp.bincount(flat, weights=g.ravel(), minlength=n * c * h * w)
        return (wrap(summed.astype(g.dtype, copy=False).reshape(input_shape), grad),)


def _window_max(x, kernel, stride, dilation, out_size):
    """Each window's largest value and its offset ``i * KW + j`` in the window, by a running max
    over the KH*KW kernel offsets, each a strided view of ``x``: no copied stack of windows.
    The first maximum wins, but a NaN replaces anything, even an earlier NaN, as in PyTorch's
    kernel (``if ((val > maxval) || std::isnan(val))`` in ``aten/src/ATen/native/cpu/MaxPoolKernel.cpp``)."""
    xp = array_module_of(x)
    (kh, kw), (sh, sw), (dh, dw), (oh, ow) = kernel, stride, dilation, out_size
    floating = xp.issubdtype(x.dtype, xp.floating)
    values = offsets = None
    for i in range(kh):
        for j in range(kw):
            candidate = x[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh, j * dw:j * dw + sw * (ow - 1) + 1:sw]
            if values is None:
                values, offsets = candidate.copy(), xp.zeros(candidate.shape, dtype=np.int64)
                continue
            better = candidate > values
            if floating:
                better |= xp.isnan(candidate)
            # Offsets only grow in this scan, so max(offsets, k * better) is k exactly where better
            # (a masked copy is several times slower); a NaN on either side stays in the maximum.
            xp.maximum(offsets, xp.multiply(better, i * kw + j, dtype=np.int64), out=offsets)
            xp.maximum(values, candidate, out=values)
    if floating and _meta.has_values(values):  # a fix-up of values: nothing to fix on 'meta'
        _first_zero_sign(values, offsets, x, kw, stride, dilation)
    return values, offsets


def _first_zero_sign(values, offsets, x, kw, stride, dilation):
    """Where a window's maximum is zero, take the picked element itself: ``maximum`` may return
    either of 0.0 and -0.0 on a tie, PyTorch returns the element at the first maximum."""
    xp = array_module_of(values)
    flat_values = values.reshape(-1)
    at = xp.flatnonzero(flat_values == 0)
    if not at.size:
        return
    oh, ow = values.shape[2:]
    planes, cell = xp.divmod(at, oh * ow)
    row, col = xp.divmod(cell, ow)
    i, j = xp.divmod(offsets.reshape(-1)[at], kw)
    flat_values[at] = x.reshape(-1, *x.shape[2:])[planes, row * stride[0] + i * dilation[0],
                                                  col * stride[1] + j * dilation[1]]


def max_pool2d_with_indices(input, kernel, stride, padding, dilation, ceil_mode):
    """Largest value of each window of a ``(N, C, H, W)`` or ``(C, H, W)`` input, and its flat
    index into ``H*W``."""
    unbatched = input._data.ndim == 3
    x = input._data[None] if unbatched else input._data
    xp = array_module_of(x)
    n, c, h, w = x.shape
    for k, s, p, d in zip(kernel, stride, padding, dilation):
        if k <= 0 or s <= 0 or d <= 0:
            raise RuntimeError(f"max_pool2d: kernel_size, stride and dilation must be greater than "
                               f"zero, but got kernel_size={list(kernel)}, stride={list(stride)}, "
                               f"dilation={list(dilation)}")
        if p < 0 or p > ((k - 1) * d + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    oh = _pool_output_size(h, kernel[0], padding[0], stride[0], dilation[0], ceil_mode)
    ow = _pool_output_size(w, kernel[1], padding[1], stride[1], dilation[1], ceil_mode)
    if oh < 1 or ow < 1:
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: "
                           f"({c}x{oh}x{ow}). Output size is too small")
    # Pad with the lowest value so padding never wins; ceil_mode may need extra room at the end.
    bottom = max(0, (oh - 1) * stride[0] + dilation[0] * (kernel[0] - 1) + 1 - h - padding[0])
    right = max(0, (ow - 1) * stride[1] + dilation[1] * (kernel[1] - 1) + 1 - w - padding[1])
    lowest = -np.inf if input._dtype.is_floating_point else np.iinfo(x.dtype).min
    if padding[0] or padding[1] or bottom or right:
        x = xp.pad(x, ((0, 0), (0, 0), (padding[0], bottom), (padding[1], right)),
                   constant_values=lowest)
    values, best = _window_max(x, kernel, stride, dilation, (oh, ow))
    rows = (xp.arange(oh) * stride[0] - padding[0]).reshape(oh, 1) + (best // kernel[1]) * dilation[0]
    cols = (xp.arange(ow) * stride[1] - padding[1]) + (best % kernel[1]) * dilation[1]
    indices = (rows * w + cols).astype(np.int64, copy=False)
    out = wrap(values[0] if unbatched else values, input)
    if needs_grad(input):
        tiled = tuple(kernel) == tuple(stride) and not any(padding) and tuple(dilation) == (1, 1) \
            and not bottom and not right
        out.grad_fn = MaxPool2DWithIndicesBackward0(
            (input,), indices=indices, self_sizes=(n, c, h, w),
            tiles=tuple(kernel) if tiled else None, offsets=best if tiled else None)
    return out, wrap(indices[0] if unbatched else indices, input)


# --------------------------------------------------------------------------------------------
# Normalisation
# --------------------------------------------------------------------------------------------

def _normalized_grad(g, x_hat, invstd, axes):
    """d/dx of ``(x - mean) * invstd`` given ``g`` = upstream gradient times the scale."""
    return invstd * (g - g.mean(axis=axes, keepdims=True)
                     - x_hat * (g * x_hat).mean(axis=axes, keepdims=True))


class NativeBatchNormBackward0(_NumpyBackward):
    """Gradients for (input, weight, bias) of batch norm, with batch or running statistics."""

    def backward(self, grad):
        input, weight = self.saved_tensors
        wants_input, wants_weight, wants_bias = _wants(self)
        g, axes, shape = _opmath(grad._data), self.axes, self.param_shape
        x_hat = (_opmath(input._data) - self.mean) * self.invstd
        grad_input = grad_weight = grad_bias = None
        if wants_input:
            scaled = g if weight is None else g * _opmath(weight._data).reshape(shape)
            if self.training:
                grad_input = _normalized_grad(scaled, x_hat, self.invstd, axes)
            else:  # the statistics are constants, so the map is affine in x
                grad_input = scaled * self.invstd
            grad_input = wrap(_as(grad_input, grad._data), grad)
        if wants_weight:
            grad_weight = wrap(_as((g * x_hat).sum(axis=axes), grad._data), grad)
        if wants_bias:
            grad_bias = wrap(_as(g.sum(axis=axes), grad._data), grad)
        return grad_input, grad_weight, grad_bias


    def differentiable_backward(self, grad):
        """The same formulas with nnref ops, statistics recomputed from the input, so that the
        gradients can be differentiated again (PyTorch's ``NativeBatchNormBackwardBackward0``)."""
        input, weight = self.saved_tensors
        wants_input, wants_weight, wants_bias = _wants(self)
        dims, shape = self.axes, self.param_shape
        if self.training:
            mean = input.mean(dim=dims, keepdim=True)
            invstd = 1 / (((input - mean) ** 2).mean(dim=dims, keepdim=True) + self.eps).sqrt()
        else:
            mean, invstd = wrap(_as(self.mean, input._data), input), wrap(_as(self.invstd, input._data), input)
        x_hat = (input - mean) * invstd
        scaled = grad if weight is None else grad * weight.reshape(shape)
        if not wants_input:
            grad_input = None
        elif self.training:
            grad_input = _normalized_grad_tensor(scaled, x_hat, invstd, dims)
        else:
            grad_input = scaled * invstd
        return (grad_input, (grad * x_hat).sum(dim=dims) if wants_weight else None,
                grad.sum(dim=dims) if wants_bias else None)


def _normalized_grad_tensor(g, x_hat, invstd, dims):
    """:func:`_normalized_grad` with nnref ops (differentiable)."""
    return invstd * (g - g.mean(dim=dims, keepdim=True)
                     - x_hat * (g * x_hat).mean(dim=dims, keepdim=True))


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """Normalise each channel (dim 1) over all other dims; update running stats when training."""
    channels = input._data.shape[1]
    for name, t in (("weight", weight), ("bias", bias), ("running_mean", running_mean),
                    ("running_var", running_var)):
        if t is not None and t._data.size != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t._data.size}")
    _floating("batch_norm", input)
    x = _opmath(input._data)
    axes = (0,) + tuple(range(2, x.ndim))
    shape = (1, channels) + (1,) * (x.ndim - 2)
    if training:
        mean = x.mean(axis=axes, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)  # biased: what normalises
        if running_mean is not None or running_var is not None:
            count = x.size // channels
            with no_grad():
                if running_mean is not None:
                    _running_update(running_mean, mean, momentum)
                if running_var is not None:
                    # The running estimate uses the unbiased variance (Bessel's correction).
                    _running_update(running_var, var * (count / max(count - 1, 1)), momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
        mean = _as(_opmath(running_mean._data).reshape(shape), x)
        var = _as(_opmath(running_var._data).reshape(shape), x)
    invstd = _as(1 / array_module_of(var).sqrt(var + eps), x)
    y = (x - mean) * invstd
    if weight is not None:
        y = y * _opmath(weight._data).reshape(shape)
    if bias is not None:
        y = y + _opmath(bias._data).reshape(shape)
    out = wrap(_as(y, input._data), input)
    return record(out, NativeBatchNormBackward0, (input, weight, bias), saved=(input, weight),
                  axes=axes, param_shape=shape, training=training, mean=mean, invstd=invstd,
                  eps=eps)


def _running_update(buffer, batch_value, momentum):
    """``buffer = (1 - momentum) * buffer + momentum * batch_value``, in place."""
    data = buffer._data
    data *= 1 - momentum
    data += _as(momentum * batch_value.reshape(data.shape), data)
    buffer._bump_version()


class NativeLayerNormBackward0(_NumpyBackward):
    def backward(self, grad):
        input, weight = self.saved_tensors
        wants_input, wants_weight, wants_bias = _wants(self)
        g, axes = _opmath(grad._data), self.axes
        x_hat = (_opmath(input._data) - self.mean) * self.invstd
        leading = tuple(range(g.ndim - len(axes)))
        grad_input = grad_weight = grad_bias = None
        if wants_input:
            scaled = g if weight is None else g * _opmath(weight._data)
            grad_input = wrap(_as(_normalized_grad(scaled, x_hat, self.invstd, axes), grad._data),
                              grad)
        if wants_weight:
            grad_weight = wrap(_as((g * x_hat).sum(axis=leading), grad._data), grad)
        if wants_bias:
            grad_bias = wrap(_as(g.sum(axis=leading), grad._data), grad)
        return grad_input, grad_weight, grad_bias


    def differentiable_backward(self, grad):
        """The same formulas with nnref ops (``NativeLayerNormBackwardBackward0`` in PyTorch)."""
        input, weight = self.saved_tensors
        wants_input, wants_weight, wants_bias = _wants(self)
        dims = self.axes
        leading = tuple(range(grad.dim() - len(dims)))
        mean = input.mean(dim=dims, keepdim=True)
        invstd = 1 / (((input - mean) ** 2).mean(dim=dims, keepdim=True) + self.eps).sqrt()
        x_hat = (input - mean) * invstd
        scaled = grad if weight is None else grad * weight
        return (_normalized_grad_tensor(scaled, x_hat, invstd, dims) if wants_input else None,
                (grad * x_hat).sum(dim=leading) if wants_weight else None,
                grad.sum(dim=leading) if wants_bias else None)


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """Normalise over the trailing ``normalized_shape`` dims of each sample."""
    shape = input._data.shape
    normalized_shape = tuple(normalized_shape)
    k = len(normalized_shape)
    if k == 0 or len(shape) < k or shape[len(shape) - k:] != normalized_shape:
        expected = ", ".join(["*"] + [str(s) for s in normalized_shape])
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input with "
                           f"shape [{expected}], but got input of size{list(shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and t._data.shape != normalized_shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got "
                               f"{name} of shape {list(t.shape)} and normalized_shape = "
                               f"{list(normalized_shape)}")
    _floating("layer_norm", input)
    x = _opmath(input._data)
    axes = tuple(range(x.ndim - k, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    invstd = _as(1 / array_module_of(var).sqrt(var + eps), x)
    y = (x - mean) * invstd
    if weight is not None:
        y = y * _opmath(weight._data)
    if bias is not None:
        y = y + _opmath(bias._data)
    out = wrap(_as(y, input._data), input)
    return record(out, NativeLayerNormBackward0, (input, weight, bias), saved=(input, weight),
                  axes=axes, mean=mean, invstd=invstd, eps=eps)


# --------------------------------------------------------------------------------------------
# Embedding
# --------------------------------------------------------------------------------------------

def _check_indices(indices, name):
    if indices._dtype not in (_dtype.int64, _dtype.int32):
        raise RuntimeError(f"Expected tensor for argument #1 'indices' to have one of the following "
                           f"scalar types: Long, Int; but got {indices.type()} instead (while "
                           f"checking arguments for {name})")


class EmbeddingBackward0(_NumpyBackward):
    """Rows of the weight gradient are sums of the output gradients that read them."""

    def backward(self, grad):
        indices = self.indices.ravel()
        xp = array_module_of(indices)
        g = _opmath(grad._data).reshape(indices.size, -1)
        if self.scale_grad_by_freq:
            counts = xp.bincount(indices, minlength=self.num_weights)
            g = g / counts[indices, None].astype(g.dtype)
        if self.padding_idx is not None:
            g = xp.where((indices == self.padding_idx)[:, None], g.dtype.type(0), g)
        grad_weight = xp.zeros((self.num_weights, g.shape[1]), dtype=g.dtype)
        xp.add.at(grad_weight, indices, g)
        return (wrap(_as(grad_weight, grad._data), grad),)


def embedding(weight, indices, padding_idx, scale_grad_by_freq):
    """``weight[indices]``: one row of ``weight`` per index (``at::embedding``)."""
    _check_indices(indices, "embedding")
    if weight._data.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    idx = indices._data
    if idx.size and _meta.has_values(idx) and (idx.min() < 0 or idx.max() >= weight._data.shape[0]):
        raise IndexError("index out of range in self")
    out = wrap(array_module_of(idx).take(weight._data, idx, axis=0), weight)
    if needs_grad(weight):
        out.grad_fn = EmbeddingBackward0((weight,), indices=idx.copy(),
                                         num_weights=weight._data.shape[0], padding_idx=padding_idx,
                                         scale_grad_by_freq=scale_grad_by_freq)
    return out


def embedding_renorm_(weight, indices, max_norm, norm_type):
    """Shrink, in place, every looked-up row whose ``norm_type``-norm exceeds ``max_norm``."""
    _check_indices(indices, "embedding_renorm_")
    xp = array_module_of(indices._data)
    rows = xp.unique(indices._data)
    if rows.size == 0:
        return weight
    if rows.min() < 0 or rows.max() >= weight._data.shape[0]:
        raise IndexError("index out of range in self")
    data = weight._data
    norms = xp.linalg.norm(data[rows].astype(np.float64), ord=norm_type, axis=1)
    too_long = norms > max_norm
    # PyTorch's kernel adds 1e-7 to the norm, so renormalised rows end just below max_norm.
    scale = (max_norm / (norms[too_long] + 1e-7)).astype(data.dtype)
    data[rows[too_long]] *= scale[:, None]
    weight._bump_version()
    return weight


# --------------------------------------------------------------------------------------------
# Losses
# --------------------------------------------------------------------------------------------

class NllLossBackward0(_NumpyBackward):
    """``-weight[target]`` times the incoming gradient at each target's log-probability."""

    def backward(self, grad):
        g = _opmath(grad._data)
        xp = array_module_of(g)
        if self.reduction == "mean" and _meta.has_values(g) and self.total_weight == 0:  # every target ignored
            return (wrap(xp.zeros(self._input_metadata[0][0], dtype=grad._data.dtype), grad),)
        if self.reduction == "none":
            scale = g * self.picked_weight
        elif self.reduction == "mean":
            scale = self.picked_weight * (g / self.total_weight)
        else:
            scale = self.picked_weight * g
        grad_input = xp.zeros(self.self_sizes, dtype=g.dtype)
        values = -_as(scale, g)
        if self.ignored is not None:  # PyTorch leaves an ignored target's row at +0
            values = xp.where(self.ignored, values.dtype.type(0), values)
        _pick_classes(grad_input, self.safe_target, values)
        # A 1-D input was computed as a batch of one.
        return (wrap(_as(grad_input, grad._data).reshape(self._input_metadata[0][0]), grad),)


class NllLoss2DBackward0(NllLossBackward0):
    """The same computation; PyTorch names it so for inputs with spatial dims."""


def _pick_classes(array, classes, values=None):
    """``array[n, classes[n], ...]`` along dim 1, or write ``values`` there when given.

    Plain integer indexing for the usual ``(N, C)`` case (``take_along_axis`` costs several
    Python-level numpy calls per use); ``take/put_along_axis`` for spatial ``(N, C, d...)``.
    """
    xp = array_module_of(array)
    if array.ndim == 2:
        rows = xp.arange(array.shape[0])
        if values is None:
            return array[rows, classes]
        array[rows, classes] = values
        return None
    if values is None:
        return xp.take_along_axis(array, xp.expand_dims(classes, 1), axis=1)[:, 0]
    values = xp.broadcast_to(values, classes.shape)  # a number when every target weighs 1
    xp.put_along_axis(array, xp.expand_dims(classes, 1), xp.expand_dims(values, 1), axis=1)
    return None


def _summed_losses(losses, picked_weight, weighted, ignored, in_aten_order):
    """The losses of the targets added up, and their total weight: in ``nll_loss``'s own order
    (``nll_loss_sum.py``) where nnref follows it, float32 and float64 on the CPU."""
    xp = array_module_of(losses)
    dtype = losses.dtype.type
    if not in_aten_order:
        total = picked_weight.sum(dtype=losses.dtype) if weighted or ignored is not None else dtype(losses.size)
        return losses.sum(dtype=losses.dtype), total
    kept = None if ignored is None else xp.nonzero(~ignored.reshape(-1))[0]  # their flat positions

    def in_order(values):
        flat = values.reshape(-1)
        return nll_cascade_sum(flat if kept is None else flat[kept], kept)

    total = in_order(picked_weight) if weighted else dtype(losses.size if kept is None else kept.size)
    return in_order(losses), total


def nll_loss_nd(input, target, weight, reduction, ignore_index):
    """Negative log-likelihood of class-index targets for ``(C)``, ``(N, C)`` or ``(N, C, d1, ...)``."""
    x, t = _opmath(input._data), target._data
    xp = array_module_of(x)
    if target._dtype is _dtype.uint8 and x.ndim > 2:  # nll_loss2d's kernel reads int64 alone
        raise RuntimeError("expected scalar type Long but found Byte: class labels must be int64 "
                           "(torch.long) indices; convert with target.long()")
    if target._dtype is _dtype.uint8:  # nll_loss's 1-d and 2-d kernel reads Byte targets too
        t = t.astype(np.int64)
    elif target._dtype is not _dtype.int64:
        raise RuntimeError(
            f"expected target dtype to be Long or Byte, but got {target._dtype._legacy_name[:-6]}: "
            "class labels must be int64 (torch.long) indices, not "
            f"{target._dtype.name}; build them with torch.tensor(labels, dtype=torch.int64) or "
            "convert with target.long()")
    if x.ndim == 1:
        if t.ndim != 0:
            raise RuntimeError(f"0D target tensor expected for 1D input, but got target of size "
                               f"{list(t.shape)}")
        x, t = x[None], t[None]
    elif x.ndim == 2 and t.ndim != 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    elif x.ndim > 2 and t.shape != x.shape[:1] + x.shape[2:]:
        raise RuntimeError(f"size mismatch (got input: {list(x.shape)}, target: {list(t.shape)})")
    classes = x.shape[1]
    if weight is not None and weight._data.size != classes:
        raise RuntimeError(f"weight tensor should be defined either for all {classes} classes or "
                           f"no classes but got weight tensor of shape: {list(weight.shape)}")
    if not _meta.has_values(t) or (t.size and 0 <= t.min() and t.max() < classes
                             and not 0 <= ignore_index < classes):
        # The common case, told by two reductions: every target is a class, none is ignored.
        safe, ignored = t, None
    else:
        ignored = t == ignore_index
        bad = ~ignored & ((t < 0) | (t >= classes))
        if bad.any():
            raise IndexError(f"Target {t[bad][0]} is out of bounds.")
        safe = xp.where(ignored, 0, t)
    picked = _pick_classes(x, safe)
    if weight is None and ignored is None:  # every target weighs 1: a number, not an array of ones
        picked_weight, losses = x.dtype.type(1), -picked
    else:
        if weight is None:  # every target that is not ignored weighs 1
            picked_weight = (~ignored).astype(x.dtype)
        else:
            class_weight = weight._data.astype(x.dtype, copy=False)
            picked_weight = (class_weight[safe] if ignored is None
                             else xp.where(ignored, x.dtype.type(0), class_weight[safe]))
        losses = -picked_weight * picked
        if ignored is not None:  # an ignored target's loss is written as +0 (-0 * x can be -0)
            losses = xp.where(ignored, x.dtype.type(0), losses)
    total_weight = None  # what 'mean' divides by
    if reduction == "none":
        data = losses.reshape(target._data.shape)
    else:
        in_aten_order = follows_aten_sum(x) and x.dtype == input._data.dtype
        data, total_weight = _summed_losses(losses, picked_weight, weight is not None, ignored, in_aten_order)
        if reduction == "mean":
            with np.errstate(invalid="ignore", divide="ignore"):  # all ignored: 0/0 = nan, as PyTorch
                data = data / total_weight
    out = wrap(_as(xp.asarray(data), input._data), input)
    if needs_grad(input):
        node_class = NllLoss2DBackward0 if input._data.ndim > 2 else NllLossBackward0
        out.grad_fn = node_class((input,), reduction=reduction, self_sizes=x.shape,
                                 safe_target=safe, picked_weight=picked_weight,
                                 total_weight=total_weight, ignored=ignored)
    return out


class DivBackward1(Node):
    """d(x / number) = grad / number: PyTorch's node when C++ code divides by a scalar."""

    def backward(self, grad):
        return (grad / self.other,)


def div_scalar(input, other):
    """``input / other`` for a Python number, recorded as ATen's ``div(Tensor, Scalar)``."""
    out = wrap((input._data / input._dtype.numpy.type(other)).astype(input._data.dtype, copy=False),
               input)
    return record(out, DivBackward1, (input,), other=other)


class MseLossBackward0(Node):
    """d mse = 2 (input - target) grad / count, for input and (negated) for target."""

    def backward(self, grad):
        input, target = self.saved_tensors
        wants_input, wants_target = _wants(self)
        scale = 2.0 / self.count if self.reduction == "mean" else 2.0
        grad_input = (input - target) * (grad * scale)
        return (grad_input if wants_input else None, -grad_input if wants_target else None)


def mse_loss(input, target, reduction):
    """Mean (or sum, or none) of squared differences of two same-shaped tensors."""
    _floating("mse_loss", input, target)
    diff = _opmath(input._data) - _opmath(target._data)
    xp = array_module_of(diff)
    out = wrap(_as(xp.asarray(_reduce(diff * diff, reduction)), input._data), input)
    return record(out, MseLossBackward0, (input, target), saved=(input, target),
                  reduction=reduction, count=diff.size)


class BinaryCrossEntropyWithLogitsBackward0(Node):
    """d/dx = (lw * sigmoid(x) - pw * t) * w;  d/dt = -(x + (pw - 1) log sigmoid(x)) * w."""

    def backward(self, grad):
        input, target, weight, pos_weight = self.saved_tensors
        wants_input, wants_target = _wants(self)
        scale = grad / self.count if self.reduction == "mean" else grad
        if weight is not None:
            scale = scale * weight
        grad_input = grad_target = None
        if wants_input:
            if pos_weight is None:
                grad_input = (input.sigmoid() - target) * scale
            else:
                log_weight = (pos_weight - 1) * target + 1
                grad_input = (log_weight * input.sigmoid() - pos_weight * target) * scale
        if wants_target:
            grad_target = -input
            if pos_weight is not None:
                grad_target = grad_target - (pos_weight - 1) * _log_sigmoid_tensor(input)
            grad_target = grad_target * scale
        return grad_input, grad_target


def _log_sigmoid(x):
    # log(sigmoid(x)) = -(max(-x, 0) + log1p(exp(-|x|))): never overflows, never log(0).
    xp = array_module_of(x)
    return -(xp.maximum(-x, 0) + xp.log1p(xp.exp(-xp.abs(x))))


def _log_sigmoid_tensor(input):
    """log sigmoid(x) = -(max(-x, 0) + log(1 + exp(-|x|))) from nnref ops, so it stays differentiable."""
    return -(clamp(-input, min=0) + ((-input.abs()).exp() + 1).log())


def binary_cross_entropy_with_logits(input, target, weight, pos_weight, reduction):
    """``-[pw t log sigmoid(x) + (1 - t) log(1 - sigmoid(x))]``, computed without overflow."""
    _floating("binary_cross_entropy_with_logits", input, target)
    x, t = _opmath(input._data), _opmath(target._data)
    log_sig = _log_sigmoid(x)
    if pos_weight is None:
        losses = (1 - t) * x - log_sig
    else:
        losses = (1 - t) * x - ((_opmath(pos_weight._data) - 1) * t + 1) * log_sig
    if weight is not None:
        losses = losses * _opmath(weight._data)
    out = wrap(_as(array_module_of(x).asarray(_reduce(_as(losses, x), reduction)), input._data),
               input)
    return record(out, BinaryCrossEntropyWithLogitsBackward0, (input, target),
                  saved=(input, target, weight, pos_weight), reduction=reduction, count=losses.size)

