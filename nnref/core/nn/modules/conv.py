"""``nn.Conv2d`` and what convolutions share, ``_ConvNd`` (``torch/nn/modules/conv.py``)."""
import contextlib
import math

from .. import functional as F, init
from ..parameter import Parameter
from .module import Module

__all__ = ["Conv2d"]
__seams__ = ("naming_layer", "pad")


def _no_layer_named(layer, *inputs):
    return contextlib.nullcontext()


# Seam: a context naming the layer in a shape error; nnref/nn/modules/_shape_errors.py puts
# naming_layer here; none in the core.
naming_layer = _no_layer_named


# Seam: pads with the input's own values (padding_mode 'reflect', 'replicate', 'circular');
# nnref/nn/modules/conv.py puts native.pad_2d here; the core pads with zeros only.
def pad(input, pairs, mode):
    raise NotImplementedError(f"the core's Conv2d pads with zeros only, not {mode!r}: import nnref")


def _pair(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value, value)


class _ConvNd(Module):
    """What every convolution shares: argument checks, parameters, initialisation, repr."""

    __constants__ = ["stride", "padding", "dilation", "groups", "padding_mode", "output_padding",
                     "in_channels", "out_channels", "kernel_size"]

    def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation,
                 transposed, output_padding, groups, bias, padding_mode, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_padding_strings = {"same", "valid"}
        if isinstance(padding, str):
            if padding not in valid_padding_strings:
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 f"{valid_padding_strings}")
            if padding == "same" and any(s != 1 for s in stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
        valid_padding_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_padding_modes:
            raise ValueError(f"padding_mode must be one of {valid_padding_modes}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels, self.kernel_size = in_channels, out_channels, kernel_size
        self.stride, self.padding, self.dilation = stride, padding, dilation
        self.transposed, self.output_padding = transposed, output_padding
        self.groups, self.padding_mode = groups, padding_mode
        # A transposed convolution maps out_channels back to in_channels: its weight is the
        # (in, out / groups) transpose of the convolution it undoes.
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

    def extra_repr(self):
        s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
        if self.padding != (0,) * len(self.padding):
            s += ", padding={padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += ", dilation={dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += ", output_padding={output_padding}"
        if self.groups != 1:
            s += ", groups={groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += ", padding_mode={padding_mode}"
        return s.format(**self.__dict__)


class Conv2d(_ConvNd):
    """2-D convolution: input ``(N, C_in, H, W)`` or ``(C_in, H, W)``, weight
    ``(C_out, C_in / groups, KH, KW)``, output ``(N, C_out, H_out, W_out)``.

    ``H_out = floor((H + 2 * padding - dilation * (KH - 1) - 1) / stride) + 1``.
    ``padding_mode`` ``'reflect'``, ``'replicate'`` or ``'circular'`` pads with the input's own
    values instead of zeros.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, _pair(kernel_size), _pair(stride),
                         padding if isinstance(padding, str) else _pair(padding), _pair(dilation),
                         False, _pair(0), groups, bias, padding_mode, device=device, dtype=dtype)

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            # Pad with the input's own values first, then convolve without padding.
            padded = pad(input, self._padding_pairs(), self.padding_mode)
            return F.conv2d(padded, weight, bias, self.stride, 0, self.dilation, self.groups)
        return F.conv2d(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def _padding_pairs(self):
        """``((top, bottom), (left, right))``; ``'same'`` puts an odd extra pixel at the end."""
        if self.padding == "valid":
            return (0, 0), (0, 0)
        if self.padding == "same":
            totals = [d * (k - 1) for d, k in zip(self.dilation, self.kernel_size)]
            return tuple((t // 2, t - t // 2) for t in totals)
        return tuple((p, p) for p in self.padding)

    def forward(self, input):
        # Checked here so that the error names the layer and the shape it wants.
        if input.dim() not in (3, 4) or input.shape[-3] != self.in_channels:
            raise RuntimeError(
                f"{self._get_name()}({self.extra_repr()}) expected input of shape "
                f"(N, {self.in_channels}, H, W) or ({self.in_channels}, H, W), but got input of "
                f"size: {list(input.shape)}")
        with naming_layer(self, input):
            return self._conv_forward(input, self.weight, self.bias)
