"""``im2col`` and ``col2im`` (``F.unfold`` and ``F.fold``): sliding blocks out of an image and summed back in,
each the other's backward (``aten/src/ATen/native/Im2Col.cpp``, ``Col2Im.cpp``, ``im2col_shape_check.h``;
``derivatives.yaml``: ``im2col`` -> ``col2im(grad)``, ``col2im`` -> ``im2col(grad)``).
"""
from ..core._device import array_module
from ..core.autograd.graph import Node
from ._common import float_input, record, wrap

__all__ = ["im2col", "col2im"]


def _check_sizes(kernel, dilation, padding, stride):
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = kernel, dilation, padding, stride
    if kh <= 0 or kw <= 0:
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: {kh} kernel_width: {kw}")
    if sh <= 0 or sw <= 0:
        raise RuntimeError(f"stride should be greater than zero, but got stride_height: {sh} stride_width: {sw}")
    if dh <= 0 or dw <= 0:
        raise RuntimeError(f"dilation should be greater than zero, but got dilation_height: {dh} dilation_width: {dw}")
    if ph < 0 or pw < 0:
        raise RuntimeError(f"padding should be non-negative, but got pad_height: {ph} pad_width: {pw}")


def _blocks(size, kernel, dilation, padding, stride):
    return tuple((size[i] + 2 * padding[i] - (dilation[i] * (kernel[i] - 1) + 1)) // stride[i] + 1 for i in (0, 1))


def _index(xp, blocks, kernel, dilation, stride):
    """Row and column of the padded image that each (ki, kj, bi, bj) reads, shaped to broadcast."""
    rows = (xp.arange(kernel[0])[:, None] * dilation[0] + xp.arange(blocks[0])[None, :] * stride[0])
    cols = (xp.arange(kernel[1])[:, None] * dilation[1] + xp.arange(blocks[1])[None, :] * stride[1])
    return rows[:, None, :, None], cols[None, :, None, :]


class Im2ColBackward0(Node):
    def backward(self, grad):
        return (col2im(grad, self.size, self.kernel, self.dilation, self.padding, self.stride),)


class Col2ImBackward0(Node):
    def backward(self, grad):
        return (im2col(grad, self.kernel, self.dilation, self.padding, self.stride),)


def im2col(input, kernel, dilation, padding, stride):
    """``(N, C, H, W)`` or ``(C, H, W)`` -> ``(N, C * kh * kw, L)``: every ``kernel`` block, flattened, one column
    per block position (``L`` of them, row by row)."""
    _check_sizes(kernel, dilation, padding, stride)
    ndim = input.dim()
    if ndim < 3:
        raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}], but got 2)")
    if ndim > 4 or any(s == 0 for s in input.shape[ndim - 3:]):
        raise RuntimeError(f"Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    float_input("im2col_out_cpu", input)
    size = tuple(input.shape[-2:])
    blocks = _blocks(size, kernel, dilation, padding, stride)
    if blocks[0] < 1 or blocks[1] < 1:
        raise RuntimeError(f"Given input with spatial size {size}, kernel_size={tuple(kernel)}, "
                           f"dilation={tuple(dilation)}, padding={tuple(padding)}, calculated shape of the array of "
                           f"sliding blocks as {blocks}, but its components must be at least one.")
    xp = array_module(input._device)
    x = input._data
    batched = x.ndim == 4
    if not batched:
        x = x[None]
    n, c = x.shape[:2]
    padded = xp.pad(x, ((0, 0), (0, 0), (padding[0], padding[0]), (padding[1], padding[1])))
    rows, cols = _index(xp, blocks, kernel, dilation, stride)
    data = padded[:, :, rows, cols].reshape(n, c * kernel[0] * kernel[1], blocks[0] * blocks[1])
    if not batched:
        data = data[0]
    return record(wrap(data, input), Im2ColBackward0, (input,), size=size, kernel=tuple(kernel),
                  dilation=tuple(dilation), padding=tuple(padding), stride=tuple(stride))


def col2im(input, output_size, kernel, dilation, padding, stride):
    """``(N, C * kh * kw, L)`` or ``(C * kh * kw, L)`` -> ``(N, C, H, W)``: each column's block added back at its
    position (overlapping blocks sum)."""
    ndim = input.dim()
    if ndim not in (2, 3) or any(s == 0 for s in input.shape[ndim - 2:]):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    _check_sizes(kernel, dilation, padding, stride)
    float_input("col2im_out_cpu", input)
    per_block = kernel[0] * kernel[1]
    channels_blocks, length = input.shape[-2], input.shape[-1]
    if channels_blocks % per_block:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product of kernel_size, but "
                           f"got input.size(1)={channels_blocks} and kernel_size={tuple(kernel)}.")
    size = tuple(output_size)
    blocks = _blocks(size, kernel, dilation, padding, stride)
    if blocks[0] * blocks[1] != length:
        raise RuntimeError(f"Given output_size={size}, kernel_size={tuple(kernel)}, dilation={tuple(dilation)}, "
                           f"padding={tuple(padding)}, stride={tuple(stride)}, expected size of input's dimension 2 "
                           f"to match the calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
                           f"{blocks[0] * blocks[1]}, but got input.size(2)={length}.")
    if blocks[0] < 1 or blocks[1] < 1:
        raise RuntimeError(f"Given output_size={size}, kernel_size={tuple(kernel)}, dilation={tuple(dilation)}, "
                           f"padding={tuple(padding)}, stride={tuple(stride)}, calculated shape of the array of "
                           f"sliding blocks as {blocks}, which is too small (non-positive)")
    xp = array_module(input._device)
    x = input._data
    batched = x.ndim == 3
    if not batched:
        x = x[None]
    n, c = x.shape[0], channels_blocks // per_block
    blocks_data = x.reshape(n, c, kernel[0], kernel[1], blocks[0], blocks[1])
    rows, cols = _index(xp, blocks, kernel, dilation, stride)
    rows, cols = xp.broadcast_arrays(rows, cols)
    height, width = size[0] + 2 * padding[0], size[1] + 2 * padding[1]
    summed = xp.zeros((height, width, n, c), dtype=x.dtype)
    xp.add.at(summed, (rows, cols), blocks_data.transpose(2, 3, 4, 5, 0, 1))
    data = summed.transpose(2, 3, 0, 1)[:, :, padding[0]:padding[0] + size[0], padding[1]:padding[1] + size[1]]
    data = xp.ascontiguousarray(data)
    if not batched:
        data = data[0]
    return record(wrap(data, input), Col2ImBackward0, (input,), kernel=tuple(kernel), dilation=tuple(dilation),
                  padding=tuple(padding), stride=tuple(stride))
