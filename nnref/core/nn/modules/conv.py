"""``nn.Conv2d`` and what convolutions share, ``_ConvNd`` (``torch/nn/modules/conv.py``)."""
import math

from .. import functional as F, init
from ..functional import _pair
from ..parameter import Parameter
from .module import Module

__all__ = ["Conv2d"]
__seams__ = ("pad",)


# Seam: padding_mode 'reflect', 'replicate', 'circular'; nnref/nn/modules/conv.py puts pad_2d
def pad(layer, input):
    raise NotImplementedError(f"the core pads with zeros only, not {layer.padding_mode!r}: import nnref")


class _ConvNd(Module):
    """What every convolution shares: parameters and their initialisation.  (``import nnref``
    adds PyTorch's argument checks and the repr, in ``nnref/nn/modules/conv.py``.)"""

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, kernel_size
        self.stride, self.padding, self.dilation = stride, padding, dilation
        self.transposed, self.output_padding = transposed, output_padding
        self.groups, self.padding_mode = groups, padding_mode
        # A transposed convolution's weight is the transpose of the convolution's it undoes.
        weight_shape = ((in_channels, out_channels // groups) if transposed
                        else (out_channels, in_channels // groups))
        self.weight = Parameter(init.empty((*weight_shape, *kernel_size), **factory_kwargs))
        if bias:
            self.bias = Parameter(init.empty(out_channels, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Weight from ``kaiming_uniform_(a=sqrt(5))``, i.e. U(-1/sqrt(fan_in), 1/sqrt(fan_in)),
        and the bias from the same range (``fan_in = in_channels / groups * KH * KW``)."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)


class Conv2d(_ConvNd):
    """2-D convolution (``F.conv2d``): input ``(N, C_in, H, W)`` or ``(C_in, H, W)``, weight
    ``(C_out, C_in / groups, KH, KW)``, output ``(N, C_out, H_out, W_out)``, with
    ``H_out = floor((H + 2 * padding - dilation * (KH - 1) - 1) / stride) + 1``."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, _pair(kernel_size), _pair(stride),
                         padding if isinstance(padding, str) else _pair(padding), _pair(dilation),
                         False, _pair(0), groups, bias, padding_mode, device=device, dtype=dtype)

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            # Pad with the input's own values first, then convolve without padding.
            return F.conv2d(pad(self, input), weight, bias, self.stride, 0, self.dilation,
                            self.groups)
        return F.conv2d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        # Checked here so that the error names the layer and the shape it wants.
        if input.dim() not in (3, 4) or input.shape[-3] != self.in_channels:
            raise RuntimeError(
                f"{self._get_name()}({self.extra_repr()}) expected input of shape "
                f"(N, {self.in_channels}, H, W) or ({self.in_channels}, H, W), but got input of "
                f"size: {list(input.shape)}")
        with F.naming_layer(self, input):
            return self._conv_forward(input, self.weight, self.bias)
