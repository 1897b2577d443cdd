"""``nn.Linear`` (``torch/nn/modules/linear.py``)."""
import math

from ..._tensor import Tensor
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module

__all__ = ["Linear"]


class Linear(Module):
    """``y = x @ weight.T + bias``, with ``weight`` of shape ``(out_features, in_features)``:
    input ``(*, in_features)``, output ``(*, out_features)``."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(init.empty((out_features, in_features), **factory_kwargs))
        if bias:
            self.bias = Parameter(init.empty(out_features, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Weight and bias from U(-1/sqrt(in_features), 1/sqrt(in_features)): ``kaiming_uniform_``
        with ``a=sqrt(5)`` has gain sqrt(2 / (1 + 5)), so its bound sqrt(3) * gain / sqrt(fan_in)
        is exactly 1 / sqrt(fan_in); the bias uses the same bound."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        ### BEGIN SOLUTION task=linear.forward points=1 chapter=06_module_anatomy
        if not isinstance(input, Tensor):
            raise TypeError(f"linear(): argument 'input' (position 1) must be Tensor, not "
                            f"{type(input).__name__}")
        weight = self.weight  # one lookup: parameters are found through Module.__getattr__
        # Checked here so the error names the layer; PyTorch only says "shapes cannot be multiplied".
        if input.dim() == 0 or input.shape[-1] != weight.shape[-1]:
            raise RuntimeError(
                f"{self._get_name()}({self.extra_repr()}) expected an input of shape "
                f"(*, {weight.shape[-1]}), i.e. {weight.shape[-1]} features in the last "
                f"dimension, but got an input of shape {list(input.shape)}")
        return F.linear(input, weight, self.bias)
        ### END SOLUTION

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")
