"""``nn.Linear`` (the teaching core's, ``nnref/core/nn/modules/linear.py``), ``nn.LazyLinear``,
``nn.Bilinear`` and ``nn.Identity`` (``torch/nn/modules/linear.py``)."""
import math

from ..._creation import empty
from ...core.nn.modules.linear import Linear
from .. import functional as F, init
from ...core.autograd.grad_mode import no_grad
from ..parameter import Parameter, UninitializedParameter
from .lazy import LazyModuleMixin
from .module import Module

__all__ = ["Identity", "Linear"]

# TorchScript's constants, as PyTorch declares them (the core's class leaves them out).
Linear.__constants__ = ["in_features", "out_features"]


class Identity(Module):
    """Returns its input unchanged; takes (and ignores) any constructor arguments.

    Useful as a placeholder, e.g. to cut the classifier off a network.
    """

    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


__all__ += ["LazyLinear"]


class LazyLinear(LazyModuleMixin, Linear):
    """A ``Linear`` whose ``in_features`` is read from the first input's last dimension.

    Until then ``weight`` and ``bias`` are ``UninitializedParameter`` objects (no shape,
    no values); the first ``forward`` materialises and initialises them exactly as
    ``Linear`` would, and the module becomes a ``Linear``.
    """

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__(0, 0, False)  # no bias yet: it would be replaced at once
        self.weight = UninitializedParameter(**factory_kwargs)
        self.out_features = out_features
        if bias:
            self.bias = UninitializedParameter(**factory_kwargs)

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        """On the first ``forward``: take ``in_features`` from the input's last dimension,
        materialise the weight and bias and initialise them (``torch/nn/modules/linear.py``)."""
        if self.has_uninitialized_params():
            with no_grad():
                self.in_features = input.shape[-1]
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


__all__ += ["Bilinear"]


class Bilinear(Module):
    """``y = x1^T A x2 + b``: one learned ``(in1_features, in2_features)`` matrix per output feature."""

    __constants__ = ["in1_features", "in2_features", "out_features"]

    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in1_features, self.in2_features, self.out_features = in1_features, in2_features, out_features
        self.weight = Parameter(empty((out_features, in1_features, in2_features), device=device, dtype=dtype))
        if bias:
            self.bias = Parameter(empty(out_features, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Weight and bias uniform in ``[-1/sqrt(in1_features), 1/sqrt(in1_features)]``
        (``torch/nn/modules/linear.py``)."""
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self):
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")
