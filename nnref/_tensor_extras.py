"""Tensor methods beyond the teaching core's: memory queries, PyTorch's predicates for layouts
and devices nnref does not have, and ``copy.copy``.  Bound onto the core's ``Tensor``
(``nnref/core/_tensor.py``) as every method defined outside it is, with ``bind``.
Mirrors ``torch/csrc/autograd/python_variable.cpp`` and ``c10/core/TensorImpl.h``.
"""
import numpy as np

from .core._tensor import bind

__all__ = []


def element_size(self):
    """The size of one element in bytes (``torch.Tensor.element_size``,
    ``c10/core/TensorImpl.h``)."""
    return self._dtype.itemsize


def data_ptr(self):
    """The address of the first element: numpy's ``ctypes.data`` (CuPy's ``data.ptr``), 0 when empty."""
    data = self._data
    if not data.size:
        return 0
    return data.ctypes.data if isinstance(data, np.ndarray) else data.data.ptr


def _never(self):
    """False: nnref's tensors are dense, unquantized, unnested and on the CPU, a CUDA GPU or
    ``meta`` (``torch.Tensor.is_sparse`` and its kin, ``torch/csrc/autograd/python_variable.cpp``)."""
    return False


def __copy__(self):
    """A new tensor over the same memory, with the same ``requires_grad`` (as ``copy.copy``)."""
    new = type(self)._make(self._data, self._device)
    new._requires_grad = self.requires_grad
    new.__dict__.update(self.__dict__)
    return new


bind(element_size=element_size, data_ptr=data_ptr, __copy__=__copy__,
     **dict.fromkeys(("is_sparse", "is_sparse_csr", "is_quantized", "is_mkldnn", "is_nested", "is_mps",
                      "is_xpu", "is_ipu", "is_xla", "is_vulkan", "is_mtia", "is_maia"), property(_never)))
