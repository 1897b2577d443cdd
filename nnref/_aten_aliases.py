"""``torch.*`` functions whose signature is ATen's rather than ``torch.nn.functional``'s.

``torch.dropout``, ``torch.layer_norm`` and ``torch.group_norm`` are the ATen operators bound
directly (``aten/src/ATen/native/native_functions.yaml``): ``dropout(input, p, train)`` has no
defaults and calls its flag ``train``; the norms take a trailing cuDNN flag that changes nothing on
the CPU. ``torch.norm`` is ``torch/functional.py``'s, with ``out`` before ``dtype`` by position.
"""
from .nn import functional as F
from ._ops import reduction
from ._ops.out import with_out

__all__ = ["dropout", "layer_norm", "group_norm", "norm", "selu", "celu", "threshold", "max_pool1d", "max_pool2d"]


def dropout(input, p, train):
    """``torch.dropout``: :func:`nnref.nn.functional.dropout` with ATen's parameters (ATen checks
    ``p`` with a RuntimeError, where ``F.dropout`` raises ValueError)."""
    if not 0 <= p <= 1:
        raise RuntimeError(f"dropout probability has to be between 0 and 1, but got {p:g}")
    return F.dropout(input, p, train)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    """``torch.layer_norm``: :func:`nnref.nn.functional.layer_norm` (``cudnn_enable`` picks a GPU
    kernel in PyTorch; the result is the same)."""
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """``torch.group_norm``: :func:`nnref.nn.functional.group_norm` (``cudnn_enabled`` as in
    :func:`layer_norm`)."""
    return F.group_norm(input, num_groups, weight, bias, eps)


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``torch.max_pool1d``: ATen's, the values only (``F.max_pool1d``'s ``return_indices=True`` is
    ``max_pool1d_with_indices`` there); an empty ``stride`` means ``kernel_size``."""
    return F.max_pool1d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``torch.max_pool2d``: as :func:`max_pool1d`, in two dimensions."""
    return F.max_pool2d(input, kernel_size, stride or None, padding, dilation, ceil_mode)


def selu(input):
    """``torch.selu``: ATen's, without ``F.selu``'s ``inplace``."""
    return F.selu(input)


def celu(input, alpha=1.0):
    """``torch.celu``: ATen's, without ``F.celu``'s ``inplace``."""
    return F.celu(input, alpha)


def threshold(input, threshold, value):
    """``torch.threshold``: ATen's, without ``F.threshold``'s ``inplace``."""
    return F.threshold(input, threshold, value)


def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """``torch.norm`` (``torch/functional.py``): the deprecated norm, ``out`` fifth by position."""
    return with_out(reduction.norm)(input, p, dim, keepdim, dtype=dtype, out=out)
