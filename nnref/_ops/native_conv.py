"""``conv_transpose1d`` and ``conv_transpose2d``, the transposed convolutions beside ``conv1d`` and
``conv2d`` (both ``convolution`` of :mod:`._native`, ``at::convolution``).

* ``conv_transpose1d`` is ``conv_transpose2d`` on a height-1 image: it runs on ``(N, C, 1, L)``
  views, and the gradients it returns are reshaped back, so the graph shows one
  ``ConvolutionBackward0`` whose inputs are the 1-D tensors.
* ``conv_transpose2d`` is the input-gradient of ``conv2d`` used as a forward pass:
  every input pixel scatters ``weight``-shaped copies of itself onto a larger output
  (``W^T @ x`` columns, then col2im).  Its own backward is therefore a plain
  convolution (im2col of the output gradient, then one matrix product).
"""
from ..core._device import array_module_of
from ..core._tensor import Tensor
from ._common import needs_grad, record, wrap
from ._first_order import FirstOrderBackward
from .native import _as, _opmath, _wants

__all__ = ["conv_transpose1d", "conv_transpose2d"]


class ConvolutionBackward0(FirstOrderBackward):
    """The node of ``conv_transpose1d`` and ``conv_transpose2d`` (PyTorch names them so)."""

    def backward(self, grad):
        if getattr(self, "inner", None) is None:
            return _conv_transpose2d_backward(self, grad)
        # conv_transpose1d: the 2-D node's gradients, reshaped to the 1-D tensors.
        grad_input, grad_weight, grad_bias = self.inner.backward(wrap(grad._data[:, :, None, :], grad))
        return (None if grad_input is None else wrap(grad_input._data[:, :, 0, :], grad),
                None if grad_weight is None else wrap(grad_weight._data[:, :, 0, :], grad),
                grad_bias)


def _leaf_view(tensor, data, wanted):
    """A fresh tensor on ``data`` (a reshaped view), requiring grad when its original needs one."""
    if tensor is None:
        return None
    view = Tensor._make(data, tensor._device)
    if wanted:
        view.requires_grad_(True)
    return view


# --------------------------------------------------------------------------------------------
# Transposed convolution: W^T @ x, then col2im
# --------------------------------------------------------------------------------------------

def _col2im(columns, channels, canvas, kernel, stride, dilation, in_hw):
    """Sum ``(N, C*KH*KW, H*W)`` columns onto a ``canvas``-sized image, one kernel offset at a time."""
    xp = array_module_of(columns)
    n = columns.shape[0]
    (kh, kw), (sh, sw), (dh, dw), (h, w) = kernel, stride, dilation, in_hw
    patches = columns.reshape(n, channels, kh, kw, h, w)
    image = xp.zeros((n, channels) + tuple(canvas), dtype=columns.dtype)
    for i in range(kh):
        rows = slice(i * dh, i * dh + sh * (h - 1) + 1, sh)
        for j in range(kw):
            cols = slice(j * dw, j * dw + sw * (w - 1) + 1, sw)
            image[:, :, rows, cols] += patches[:, :, i, j]
    return image


def _im2col(image, kernel, stride, dilation, out_hw):
    """``(N, C*KH*KW, OH*OW)`` patches of ``image`` (the windows ``_col2im`` scattered to)."""
    xp = array_module_of(image)
    (kh, kw), (sh, sw), (dh, dw), (oh, ow) = kernel, stride, dilation, out_hw
    n, c = image.shape[:2]
    columns = xp.empty((n, c, kh, kw, oh, ow), dtype=image.dtype)
    for i in range(kh):
        for j in range(kw):
            columns[:, :, i, j] = image[:, :, i * dh:i * dh + sh * (oh - 1) + 1:sh,
                                        j * dw:j * dw + sw * (ow - 1) + 1:sw]
    return columns.reshape(n, c * kh * kw, oh * ow)


def _conv_transpose2d_backward(node, grad):
    """d conv_transpose = (conv2d(grad, W), x @ im2col(grad)^T summed over the batch, sum(grad))."""
    input, weight = node.saved_tensors
    wants_input, wants_weight, wants_bias = _wants(node)
    g = _opmath(grad._data)
    xp = array_module_of(g)
    (top, left), groups = node.padding, node.groups
    n, cout = g.shape[:2]
    cin, h, w = input._data.shape[1:]
    canvas = xp.zeros((n, cout) + node.canvas, dtype=g.dtype)
    canvas[:, :, top:top + g.shape[2], left:left + g.shape[3]] = g
    columns = _im2col(canvas, node.kernel, node.stride, node.dilation, (h, w))
    columns = columns.reshape(n, groups, -1, h * w)  # (N, G, Cout/G*K, H*W)
    grad_input = grad_weight = grad_bias = None
    if wants_input:
        w_mat = _opmath(weight._data).reshape(groups, cin // groups, -1)
        grad_input = xp.matmul(w_mat, columns).reshape(n, cin, h, w)
        grad_input = wrap(_as(grad_input, grad._data), grad)
    if wants_weight:
        x = _opmath(input._data).reshape(n, groups, cin // groups, h * w)
        per_sample = xp.matmul(x, columns.transpose(0, 1, 3, 2))
        grad_weight = wrap(_as(per_sample.sum(axis=0).reshape(weight._data.shape), grad._data), grad)
    if wants_bias:
        grad_bias = wrap(_as(g.sum(axis=(0, 2, 3)), grad._data), grad)
    return grad_input, grad_weight, grad_bias


def conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation):
    """Transposed 2-D convolution of a batched ``(N, C_in, H, W)`` input by ``(C_in, C_out/groups, KH, KW)``.

    ``H_out = (H - 1) * stride - 2 * padding + dilation * (KH - 1) + output_padding + 1``.
    """
    x, w = input._data, weight._data
    if w.ndim != 4:
        raise RuntimeError(f"Expected 4-dimensional weight for conv_transpose2d, but got "
                           f"{w.ndim}-dimensional weight of size {list(w.shape)}")
    if x.shape[1] != w.shape[0]:
        raise RuntimeError(f"Given transposed=1, weight of size {list(w.shape)}, expected "
                           f"input{list(x.shape)} to have {w.shape[0]} channels, but got {x.shape[1]} "
                           "channels instead")
    if groups <= 0 or w.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at "
                           f"dimension 0, but got weight of size {list(w.shape)} instead")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if any(p < 0 for p in padding) or any(p < 0 for p in output_padding):
        raise RuntimeError("negative padding is not supported")
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        raise RuntimeError(
            f"output padding must be smaller than either stride or dilation, but got "
            f"output_padding_height: {output_padding[0]} output_padding_width: {output_padding[1]} "
            f"stride_height: {stride[0]} stride_width: {stride[1]} dilation_height: {dilation[0]} "
            f"dilation_width: {dilation[1]}")
    if not input._dtype.is_floating_point:
        raise RuntimeError(f'"conv_transpose2d" not implemented for \'{input._dtype._legacy_name[:-6]}\'; '
                           "convert the input to a floating point dtype first, e.g. x.float()")
    if input._dtype is not weight._dtype:
        raise RuntimeError(f"Input type ({input._dtype.name}) and weight type ({weight._dtype.name}) "
                           "should be the same")
    n, cin, h, wd = x.shape
    cout_g, kh, kw = w.shape[1:]
    cout = cout_g * groups
    if bias is not None and bias._data.shape != (cout,):
        raise RuntimeError(f"Given transposed=1, weight of size {list(w.shape)}, expected bias to be "
                           f"1-dimensional with {cout} elements, but got bias of size "
                           f"{list(bias.shape)} instead")
    kernel = (kh, kw)
    full = [(size - 1) * s + d * (k - 1) + 1 + op
            for size, s, d, k, op in zip((h, wd), stride, dilation, kernel, output_padding)]
    oh, ow = full[0] - 2 * padding[0], full[1] - 2 * padding[1]
    if oh <= 0 or ow <= 0:
        raise RuntimeError(f"Given input size per channel: ({h} x {wd}). Calculated output size per "
                           f"channel: ({oh} x {ow}). Output size is too small")
    xp = array_module_of(x)
    data, wdata = _opmath(x), _opmath(w)
    # (G, Cout/G*K, Cin/G) @ (N, G, Cin/G, H*W) -> (N, G, Cout/G*K, H*W) columns.
    w_t = wdata.reshape(groups, cin // groups, -1).transpose(0, 2, 1)
    columns = xp.matmul(w_t, data.reshape(n, groups, cin // groups, h * wd))
    image = _col2im(columns.reshape(n, -1, h * wd), cout, full, kernel, stride, dilation, (h, wd))
    out = image[:, :, padding[0]:padding[0] + oh, padding[1]:padding[1] + ow]
    if bias is not None:
        out = out + _opmath(bias._data).reshape(1, cout, 1, 1)
    result = wrap(_as(xp.ascontiguousarray(out), x), input)
    if needs_grad(input, weight, bias):
        result.grad_fn = ConvolutionBackward0((input, weight, bias), (input, weight),
                                              kernel=kernel, stride=tuple(stride),
                                              dilation=tuple(dilation), groups=groups,
                                              padding=tuple(padding), canvas=tuple(full))
    return result


def conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation):
    """Transposed 1-D convolution of a batched ``(N, C_in, L)`` input by ``(C_in, C_out/groups, K)``: the 2-D
    kernel on a height of 1, recorded as one ``ConvolutionBackward0`` as in PyTorch."""
    x, w = input._data, weight._data
    if w.ndim != 3:
        raise RuntimeError(f"Expected {w.ndim}-dimensional input for {w.ndim}-dimensional weight {list(w.shape)}, but "
                           f"got 3-dimensional input of size {list(x.shape)} instead")
    record = needs_grad(input, weight, bias)
    parts = [_leaf_view(input, x[:, :, None, :], record and input.requires_grad),
             _leaf_view(weight, w[:, :, None, :], record and weight.requires_grad),
             _leaf_view(bias, None if bias is None else bias._data,
                        record and bias is not None and bias.requires_grad)]
    try:
        inner = conv_transpose2d(parts[0], parts[1], parts[2], (1, stride[0]), (0, padding[0]),
                                 (0, output_padding[0]), groups, (1, dilation[0]))
    except RuntimeError as exc:  # name the 1-D shapes, not the 2-D views
        raise RuntimeError(str(exc).replace(str(list(parts[1].shape)), str(list(w.shape)))
                           .replace(str(list(parts[0].shape)), str(list(x.shape)))) from None
    out = wrap(inner._data[:, :, 0, :], input)
    if record:
        out.grad_fn = ConvolutionBackward0((input, weight, bias), inner=inner.grad_fn)
        inner.grad_fn = None
    return out
