"""``nn.Conv2d`` (the teaching core's, ``nnref/core/nn/modules/conv.py``), ``nn.Conv1d``,
``nn.ConvTranspose2d`` and the rest (``torch/nn/modules/conv.py``)."""
from ..._ops import native as _native
from .. import functional as F
from ...core.autograd.grad_mode import no_grad
from ..parameter import UninitializedParameter
from .lazy import LazyModuleMixin
from ._shape_errors import naming_layer
from ...core._seams import install
from ...core.nn.modules import conv as _core_conv
from ...core.nn.modules.conv import Conv2d, _ConvNd, _pair
from ...core.nn.modules.module import bind

__all__ = ["Conv2d"]

_core_init = _ConvNd.__init__


def __init__(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
             output_padding, groups, bias, padding_mode, device=None, dtype=None):
    """PyTorch's argument checks, then the core's ``_ConvNd.__init__``."""
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
    _core_init(self, in_channels, out_channels, kernel_size, stride, padding, dilation, transposed,
               output_padding, groups, bias, padding_mode, device=device, dtype=dtype)


def _padding_pairs(self):
    """``((top, bottom), (left, right))``; ``'same'`` puts an odd extra pixel at the end."""
    if self.padding == "valid":
        return (0, 0), (0, 0)
    if self.padding == "same":
        totals = [d * (k - 1) for d, k in zip(self.dilation, self.kernel_size)]
        return tuple((t // 2, t - t // 2) for t in totals)
    return tuple((p, p) for p in self.padding)


def _pad(layer, input):
    """Pads with the input's own values (``padding_mode`` reflect, replicate or circular)."""
    return _native.pad_2d(input, layer._padding_pairs(), layer.padding_mode)


def extra_repr(self):
    s = "{in_channels}, {out_channels}, kernel_size={kernel_size}, stride={stride}"
    for name, plain in (("padding", 0), ("dilation", 1), ("output_padding", 0)):
        if getattr(self, name) != (plain,) * len(getattr(self, name)):
            s += f", {name}={{{name}}}"
    if self.groups != 1:
        s += ", groups={groups}"
    if self.bias is None:
        s += ", bias=False"
    if self.padding_mode != "zeros":
        s += ", padding_mode={padding_mode}"
    return s.format(**self.__dict__)


bind(_ConvNd, __init__=__init__, extra_repr=extra_repr)
# TorchScript's constants, as PyTorch declares them (the core's class leaves them out).
_ConvNd.__constants__ = ["stride", "padding", "dilation", "groups", "padding_mode",
                         "output_padding", "in_channels", "out_channels", "kernel_size"]
bind(Conv2d, _padding_pairs=_padding_pairs)
install(_core_conv, "pad", _pad)


__all__ += ["Conv1d", "ConvTranspose2d"]


def _single(value):
    return tuple(value) if isinstance(value, (tuple, list)) else (value,)


class Conv1d(_ConvNd):
    """1-D convolution: input ``(N, C_in, L)`` or ``(C_in, L)``, weight ``(C_out, C_in / groups, K)``.

    ``L_out = floor((L + 2 * padding - dilation * (K - 1) - 1) / stride) + 1``.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
        super().__init__(in_channels, out_channels, _single(kernel_size), _single(stride),
                         padding if isinstance(padding, str) else _single(padding),
                         _single(dilation), False, _single(0), groups, bias, padding_mode,
                         device=device, dtype=dtype)

    def forward(self, input):
        if input.dim() not in (2, 3) or input.shape[-2] != self.in_channels:
            raise RuntimeError(
                f"{self._get_name()}({self.extra_repr()}) expected input of shape "
                f"(N, {self.in_channels}, L) or ({self.in_channels}, L), but got input of size: "
                f"{list(input.shape)}")
        if self.padding_mode != "zeros":
            raise NotImplementedError(f"nnref's Conv1d supports padding_mode='zeros' only, not "
                                      f"{self.padding_mode!r}")
        with naming_layer(self, input):
            return F.conv1d(input, self.weight, self.bias, self.stride, self.padding,
                            self.dilation, self.groups)


class ConvTranspose2d(_ConvNd):
    """Transposed 2-D convolution, the layer that upsamples in decoders and GANs.

    Weight ``(C_in, C_out / groups, KH, KW)``;
    ``H_out = (H - 1) * stride - 2 * padding + dilation * (KH - 1) + output_padding + 1``.
    ``forward(input, output_size=...)`` picks the ``output_padding`` that reaches that size.
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        super().__init__(in_channels, out_channels, _pair(kernel_size), _pair(stride),
                         _pair(padding), _pair(dilation), True, _pair(output_padding), groups, bias,
                         padding_mode, device=device, dtype=dtype)

    def _output_padding(self, input, output_size):
        """The ``output_padding`` that makes the output ``output_size`` (``_ConvTransposeNd``'s)."""
        if output_size is None:
            return self.output_padding
        output_size = list(output_size)[-2:]
        if len(output_size) != 2:
            raise ValueError(f"ConvTranspose2D: for {input.dim()}D input, output_size must have 2 or "
                             f"{input.dim()} elements (got {len(output_size)})")
        paddings = []
        for d in range(2):
            size = input.shape[input.dim() - 2 + d]
            smallest = ((size - 1) * self.stride[d] - 2 * self.padding[d]
                        + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            largest = smallest + self.stride[d] - 1
            if not smallest <= output_size[d] <= largest:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes range "
                                 f"from {[smallest, smallest]} to {[largest, largest]} (for an input "
                                 f"of {list(input.shape[2:])})")
            paddings.append(output_size[d] - smallest)
        return tuple(paddings)

    def forward(self, input, output_size=None):
        if input.dim() not in (3, 4) or input.shape[-3] != self.in_channels:
            raise RuntimeError(
                f"{self._get_name()}({self.extra_repr()}) expected input of shape "
                f"(N, {self.in_channels}, H, W) or ({self.in_channels}, H, W), but got input of "
                f"size: {list(input.shape)}")
        output_padding = self._output_padding(input, output_size)
        with naming_layer(self, input):
            return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                      output_padding, self.groups, self.dilation)


__all__ += ["ConvTranspose1d"]


class ConvTranspose1d(_ConvNd):
    """Transposed 1-D convolution: weight ``(C_in, C_out / groups, K)``;
    ``L_out = (L - 1) * stride - 2 * padding + dilation * (K - 1) + output_padding + 1``.
    ``forward(input, output_size=...)`` picks the ``output_padding`` that reaches that length."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {self.__class__.__name__}')
        super().__init__(in_channels, out_channels, _single(kernel_size), _single(stride), _single(padding),
                         _single(dilation), True, _single(output_padding), groups, bias, padding_mode,
                         device=device, dtype=dtype)

    def _output_padding(self, input, output_size):
        """The ``output_padding`` that makes the output ``output_size`` (``_ConvTransposeNd``'s)."""
        if output_size is None:
            return self.output_padding
        output_size = list(output_size)
        if len(output_size) == input.dim():
            output_size = output_size[-1:]
        if len(output_size) != 1:
            raise ValueError(f"ConvTranspose1D: for {input.dim()}D input, output_size must have 1 or {input.dim()} "
                             f"elements (got {len(output_size)})")
        smallest = ((input.shape[-1] - 1) * self.stride[0] - 2 * self.padding[0]
                    + self.dilation[0] * (self.kernel_size[0] - 1) + 1)
        largest = smallest + self.stride[0] - 1
        if not smallest <= output_size[0] <= largest:
            raise ValueError(f"requested an output size of {output_size}, but valid sizes range from [{smallest}] to "
                             f"[{largest}] (for an input of {input.shape[-1:]})")
        return (output_size[0] - smallest,)

    def forward(self, input, output_size=None):
        if input.dim() not in (2, 3) or input.shape[-2] != self.in_channels:
            raise RuntimeError(
                f"{self._get_name()}({self.extra_repr()}) expected input of shape (N, {self.in_channels}, L) or "
                f"({self.in_channels}, L), but got input of size: {list(input.shape)}")
        output_padding = self._output_padding(input, output_size)
        with naming_layer(self, input):
            return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding, output_padding,
                                      self.groups, self.dilation)


__all__ += ["LazyConv1d", "LazyConv2d", "LazyConvTranspose1d", "LazyConvTranspose2d"]


class _LazyConvXdMixin(LazyModuleMixin):
    """What the lazy convolutions share (``_LazyConvXdMixin`` of ``torch/nn/modules/conv.py``):
    ``in_channels`` is read from the first input, then the weight is materialised in the eager
    layer's shape and initialised as the eager layer initialises it."""

    _dims = 2  # spatial dims of the eager layer

    def _lazy_init(self, out_channels, bias, factory_kwargs):
        self.weight = UninitializedParameter(**factory_kwargs)
        self.out_channels = out_channels
        if bias:
            self.bias = UninitializedParameter(**factory_kwargs)

    def reset_parameters(self):
        """Initialise as the eager layer once ``in_channels`` is known."""
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        """On the first ``forward``: take ``in_channels`` from the input, materialise the weight and
        bias and initialise them."""
        if self.has_uninitialized_params():
            batched = self._dims + 2
            if input.dim() not in (batched - 1, batched):
                raise RuntimeError(f"Expected {batched - 1}D (unbatched) or {batched}D (batched) input to "
                                   f"{self.__class__.__name__}, but got input of size: {input.shape}")
            self.in_channels = input.shape[1] if input.dim() == batched else input.shape[0]
            if self.in_channels % self.groups != 0:
                raise ValueError("in_channels must be divisible by groups")
            # A transposed convolution's weight is (in, out / groups, *k), a plain one's (out, in / groups, *k).
            channels = ((self.in_channels, self.out_channels // self.groups) if self.transposed
                        else (self.out_channels, self.in_channels // self.groups))
            with no_grad():
                self.weight.materialize((*channels, *self.kernel_size))
                if self.bias is not None:
                    self.bias.materialize((self.out_channels,))
                self.reset_parameters()


class LazyConv1d(_LazyConvXdMixin, Conv1d):
    """A ``Conv1d`` whose ``in_channels`` is read from the first input (``input.shape[-2]``)."""

    cls_to_become = Conv1d
    _dims = 1

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=True,
                 padding_mode="zeros", device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode,
                         **factory_kwargs)
        self._lazy_init(out_channels, bias, factory_kwargs)


class LazyConv2d(_LazyConvXdMixin, Conv2d):
    """A ``Conv2d`` whose ``in_channels`` is read from the first input (``input.shape[-3]``)."""

    cls_to_become = Conv2d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                 bias=True, padding_mode="zeros", device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False, padding_mode,
                         **factory_kwargs)
        self._lazy_init(out_channels, bias, factory_kwargs)


class LazyConvTranspose1d(_LazyConvXdMixin, ConvTranspose1d):
    """A ``ConvTranspose1d`` whose ``in_channels`` is read from the first input."""

    cls_to_become = ConvTranspose1d
    _dims = 1

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         **factory_kwargs)
        self._lazy_init(out_channels, bias, factory_kwargs)


class LazyConvTranspose2d(_LazyConvXdMixin, ConvTranspose2d):
    """A ``ConvTranspose2d`` whose ``in_channels`` is read from the first input."""

    cls_to_become = ConvTranspose2d

    def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
                 dilation=1, padding_mode="zeros", device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False, dilation, padding_mode,
                         **factory_kwargs)
        self._lazy_init(out_channels, bias, factory_kwargs)
