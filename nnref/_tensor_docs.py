"""Docstrings of the ``Tensor`` methods that ``_ops`` binds without one of their own.

PyTorch attaches its Tensor methods' docstrings the same way, after the methods exist
(``torch/_tensor_docs.py``, ``add_docstr_all``).  Here that is needed for the methods
written as lambdas in ``_ops/__init__.py`` and for the in-place forms made by wrapping
an op (``exp_`` from ``exp``), which would otherwise show the docstring of the op they
wrap.  A name that does not exist is skipped: the API reference's test
(tests/book/test_api_reference.py) reports any public method left without a docstring.
"""
from .core._tensor import Tensor

_DOCS = {
    "byte": "``self.to(nnref.uint8)`` (``torch.Tensor.byte``, ``torch/_tensor_docs.py``).",
    "char": "``self.to(nnref.int8)`` (``torch.Tensor.char``, ``torch/_tensor_docs.py``).",
    "short": "``self.to(nnref.int16)`` (``torch.Tensor.short``, ``torch/_tensor_docs.py``).",
    "is_cpu": "True if the tensor lives on the CPU (``torch.Tensor.is_cpu``, "
              "``torch/csrc/autograd/python_variable.cpp``).",
    "itemsize": "The size of one element in bytes, as ``element_size()`` "
                "(``torch.Tensor.itemsize``, ``torch/csrc/autograd/python_variable.cpp``).",
    "nbytes": "The bytes the elements take: ``numel() * itemsize`` (``torch.Tensor.nbytes``, "
              "``torch/csrc/autograd/python_variable.cpp``).",
    "ndimension": "The number of dimensions, as ``dim()`` (``torch.Tensor.ndimension``, "
                  "``torch/_tensor_docs.py``).",
    "positive": "The tensor itself, as ``+x`` (``torch.positive``, "
                "``aten/src/ATen/native/UnaryOps.cpp``).",
    "ravel": "The elements as one dimension: a view when it can be, like ``reshape(-1)`` "
             "(``torch.ravel``, ``aten/src/ATen/native/TensorShape.cpp``).",
    "reshape_as": "``self.reshape(other.shape)`` (``torch.Tensor.reshape_as``, "
                  "``aten/src/ATen/native/TensorShape.cpp``).",
    "view_as": "``self.view(other.shape)``: a view with ``other``'s shape "
               "(``torch.Tensor.view_as``, ``aten/src/ATen/native/TensorShape.cpp``).",
    "where": "``self.where(condition, other)`` is ``nnref.where(condition, self, other)`` "
             "(``torch.Tensor.where``, ``aten/src/ATen/native/TensorCompare.cpp``).",
}


def _add_docstrings():
    for name, doc in _DOCS.items():
        member = Tensor.__dict__.get(name)
        if member is not None:
            member.__doc__ = doc
    for name, member in list(Tensor.__dict__.items()):
        base = name[:-1]
        if (name.endswith("_") and not name.startswith("_") and hasattr(member, "__wrapped__")
                and base in Tensor.__dict__):
            member.__doc__ = (f"In-place version of :meth:`nnref.Tensor.{base}` "
                              f"(``torch.Tensor.{name}``, ``torch/_tensor_docs.py``).")


_add_docstrings()
