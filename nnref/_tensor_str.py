"""``nnref.set_printoptions``: the printing options of ``torch/_tensor_str.py``.

The teaching core prints tensors with PyTorch's default options (``nnref/core/_tensor_str.py``,
module globals it reads at each ``repr``); this sets them, as ``torch.set_printoptions`` does,
and gives ``Tensor.__repr__`` PyTorch's signature.
"""
import math

from .core import _tensor_str as options
from .core._tensor import bind

__all__ = ["set_printoptions"]

_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """``torch.set_printoptions``: digits after the point, the element count above which a tensor is
    summarised, the items kept at each edge then, the line width, a named ``profile`` ("default",
    "short", "full"), and ``sci_mode`` (True/False forces scientific notation on or off; None decides
    per tensor).  Like PyTorch's, every call sets ``sci_mode``, to None when it is not given."""
    if profile is not None:
        options.PRECISION, options.THRESHOLD, options.EDGEITEMS, options.LINEWIDTH = _PROFILES[profile]
    if precision is not None:
        options.PRECISION = precision
    if threshold is not None:
        options.THRESHOLD = threshold
    if edgeitems is not None:
        options.EDGEITEMS = edgeitems
    if linewidth is not None:
        options.LINEWIDTH = linewidth
    options.SCI_MODE = sci_mode


def _repr(self, *, tensor_contents=None):
    """``repr(t)`` with ``torch.Tensor.__repr__``'s signature (``torch/_tensor.py``)."""
    return options.tensor_repr(self)


bind(__repr__=_repr)
