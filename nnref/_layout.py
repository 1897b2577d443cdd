"""``torch.layout``: how a tensor's elements sit in memory, and the factories' ``layout=`` and
``pin_memory=`` keywords.

PyTorch's layouts are ``torch.strided`` (dense, with strides: every tensor nnref makes) and the
sparse ones (``torch.sparse_coo``, ``sparse_csr``...), which nnref does not have.  Mirrors
``torch/csrc/utils/tensor_layouts.cpp`` and the factory arguments of
``aten/src/ATen/native/native_functions.yaml``.
"""
import functools

from ._naming import TorchNamed

__all__ = ["layout", "strided"]


class layout(metaclass=TorchNamed):
    """A tensor layout; ``torch.strided`` is the only one nnref has."""
    _torch_name = "torch.layout"  # PyTorch's name (nnref/_naming.py)

    __slots__ = ("_name",)
    _by_name = {}

    def __new__(cls, name):
        if name not in cls._by_name:
            instance = super().__new__(cls)
            instance._name = name
            cls._by_name[name] = instance
        return cls._by_name[name]

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):  # pickles as the one instance of its name
        return (layout, (self._name,))


strided = layout("strided")


def tensor_layout(tensor):
    """``torch.strided``: nnref's tensors are all dense (``torch.Tensor.layout``,
    ``torch/csrc/utils/tensor_layouts.cpp``)."""
    return strided


def with_factory_keywords(factory):
    """``factory`` taking PyTorch's ``layout=`` (``None`` or ``torch.strided``) and
    ``pin_memory=`` keywords: page-locked memory as ``Tensor.pin_memory()`` gives it."""
    @functools.wraps(factory)
    def wrapper(*args, layout=None, pin_memory=False, **kwargs):
        if layout is not None and layout is not strided:
            raise NotImplementedError(f"{factory.__name__}(): nnref has only the strided layout "
                                      f"(torch.strided), not {layout!r}")
        if pin_memory:
            from . import accelerator
            if not accelerator.is_available():
                raise RuntimeError("pin_memory=True requires a CUDA or other accelerator backend; no "
                                   "pinned memory allocator is available on this system.")
        return factory(*args, **kwargs)
    return wrapper
