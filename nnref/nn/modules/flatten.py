"""``nn.Flatten`` (``torch/nn/modules/flatten.py``)."""
from ..._ops.shape import flatten
from ._shape_errors import naming_layer
from .module import Module

__all__ = ["Flatten"]


class Flatten(Module):
    """Merge dims ``start_dim..end_dim`` into one; by default keeps the batch dim: ``(N, *) -> (N, -1)``."""

    __constants__ = ["start_dim", "end_dim"]

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input):
        with naming_layer(self, input):
            return flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self):
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
