"""The pooling layers, ``nn.MaxPool2d``, ``nn.AvgPool1d``, ... (``torch/nn/modules/pooling.py``)."""
from .. import functional as F
from ._shape_errors import naming_layer
from .module import Module

__all__ = ["MaxPool2d"]


class _MaxPoolNd(Module):
    __constants__ = ["kernel_size", "stride", "padding", "dilation", "return_indices", "ceil_mode"]

    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.dilation = dilation
        self.return_indices = return_indices
        self.ceil_mode = ceil_mode

    def extra_repr(self):
        return ("kernel_size={kernel_size}, stride={stride}, padding={padding}"
                ", dilation={dilation}, ceil_mode={ceil_mode}".format(**self.__dict__))


class MaxPool2d(_MaxPoolNd):
    """The largest value in each ``kernel_size`` window of ``(N, C, H, W)`` or ``(C, H, W)``.

    ``stride`` defaults to ``kernel_size`` (non-overlapping windows);
    ``return_indices=True`` also returns each maximum's flat index in ``H*W``.
    """

    def forward(self, input):
        if input.dim() not in (3, 4) or input.numel() == 0:
            raise RuntimeError(f"{self._get_name()}({self.extra_repr()}) expected a non-empty 3D "
                               f"(C, H, W) or 4D (N, C, H, W) input, but got input of size: "
                               f"{list(input.shape)}")
        with naming_layer(self, input):
            return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                ceil_mode=self.ceil_mode, return_indices=self.return_indices)


__all__ += ["AvgPool2d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d"]


class AvgPool2d(Module):
    """The mean of each ``kernel_size`` window of ``(N, C, H, W)`` or ``(C, H, W)``.

    ``count_include_pad`` counts zero padding in the divisor; ``divisor_override``
    replaces the divisor altogether.
    """

    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
                     "divisor_override"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if (stride is not None) else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input):
        with naming_layer(self, input):
            return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                self.count_include_pad, self.divisor_override)


class _AdaptivePoolNd(Module):
    __constants__ = ["output_size"]

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool2d(_AdaptivePoolNd):
    """Average pooling to a fixed ``output_size`` whatever the input's size (``(1, 1)``: global average)."""

    def forward(self, input):
        with naming_layer(self, input):
            return F.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveMaxPool2d(_AdaptivePoolNd):
    """Max pooling to a fixed ``output_size``; ``return_indices=True`` also returns the positions."""

    __constants__ = ["output_size", "return_indices"]

    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input):
        with naming_layer(self, input):
            return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


__all__ += ["MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d", "AdaptiveMaxPool1d"]


class MaxPool1d(_MaxPoolNd):
    """The largest value in each ``kernel_size`` window of ``(N, C, L)`` or ``(C, L)``.

    ``stride`` defaults to ``kernel_size``; ``return_indices=True`` also returns each maximum's index in ``L``.
    """

    def forward(self, input):
        with naming_layer(self, input):
            return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                                ceil_mode=self.ceil_mode, return_indices=self.return_indices)


def _single(value):
    """``3 -> (3,)``; a sequence becomes a tuple (``torch.nn.modules.utils._single``)."""
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


class AvgPool1d(Module):
    """The mean of each ``kernel_size`` window of ``(N, C, L)`` or ``(C, L)``; ``count_include_pad``
    counts zero padding in the divisor."""

    __constants__ = ["kernel_size", "stride", "padding", "ceil_mode", "count_include_pad"]

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode = ceil_mode
        self.count_include_pad = count_include_pad

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"

    def forward(self, input):
        with naming_layer(self, input):
            return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                                self.count_include_pad)


class AdaptiveAvgPool1d(_AdaptivePoolNd):
    """Average pooling of ``(N, C, L)`` or ``(C, L)`` to a fixed length ``output_size``."""

    def forward(self, input):
        with naming_layer(self, input):
            return F.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveMaxPool1d(_AdaptivePoolNd):
    """Max pooling of ``(N, C, L)`` or ``(C, L)`` to a fixed length; ``return_indices=True`` also
    returns the positions."""

    __constants__ = ["output_size", "return_indices"]

    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input):
        with naming_layer(self, input):
            return F.adaptive_max_pool1d(input, self.output_size, self.return_indices)


__all__ += ["LPPool1d", "LPPool2d"]


class _LPPoolNd(Module):
    __constants__ = ["norm_type", "kernel_size", "stride", "ceil_mode"]

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size, self.stride, self.ceil_mode = norm_type, kernel_size, stride, ceil_mode

    def extra_repr(self):
        return "norm_type={norm_type}, kernel_size={kernel_size}, stride={stride}, ceil_mode={ceil_mode}".format(
            **self.__dict__)


class LPPool1d(_LPPoolNd):
    """The ``norm_type``-norm of each ``kernel_size`` window along the last dim (``inf``: max pooling)."""

    def forward(self, input):
        return F.lp_pool1d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(_LPPoolNd):
    """The ``norm_type``-norm of each ``kernel_size`` window of the last two dims (``inf``: max pooling)."""

    def forward(self, input):
        return F.lp_pool2d(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)


__all__ += ["MaxUnpool1d", "MaxUnpool2d"]


class _MaxUnpoolNd(Module):
    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool1d``: ``forward(input, indices, output_size=None)`` puts each value back at
    its index, zeros elsewhere."""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)

    def forward(self, input, indices, output_size=None):
        return F.max_unpool1d(input, indices, self.kernel_size, self.stride, self.padding, output_size)


def _pair_tuple(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value, value)


class MaxUnpool2d(_MaxUnpoolNd):
    """The partial inverse of ``MaxPool2d``: ``forward(input, indices, output_size=None)`` puts each value back at
    its index, zeros elsewhere."""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = _pair_tuple(kernel_size)
        self.stride = _pair_tuple(stride if stride is not None else kernel_size)
        self.padding = _pair_tuple(padding)

    def forward(self, input, indices, output_size=None):
        return F.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding, output_size)
