"""``nn.MaxPool2d`` (``torch/nn/modules/pooling.py``)."""
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
