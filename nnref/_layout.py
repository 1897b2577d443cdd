"""``torch.layout``: PyTorch's layouts are ``torch.strided`` (dense, with strides: every tensor
nnref makes) and the sparse ones (``torch.sparse_coo``, ``sparse_csr``...), which nnref does not
have.  Mirrors ``torch/csrc/utils/tensor_layouts.cpp``; the factories' ``layout=`` is in
``nnref/_creation.py``, ``torch.memory_format`` in the core (``nnref/core/_layout.py``).
"""
from .core._layout import _Named

__all__ = ["layout", "strided"]


class layout(_Named):
    """A tensor layout; ``torch.strided`` is the only one nnref has."""
    _torch_name = "torch.layout"  # PyTorch's name (nnref/_naming.py)
    __slots__ = ()
    _by_name = {}


strided = layout("strided")


def tensor_layout(tensor):
    """``torch.strided``: nnref's tensors are all dense (``torch.Tensor.layout``,
    ``torch/csrc/utils/tensor_layouts.cpp``)."""
    return strided
