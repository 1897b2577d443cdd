"""``torch.layout`` and ``torch.memory_format``: how a tensor's elements sit in memory.

PyTorch's layouts are ``torch.strided`` (dense, with strides: every tensor nnref makes) and the
sparse ones (``torch.sparse_coo``, ``sparse_csr``...), which nnref does not have; the factories'
``layout=`` is in ``nnref/_creation.py`` (``torch/csrc/utils/tensor_layouts.cpp``).

PyTorch's memory formats are ``torch.contiguous_format`` (row-major), ``torch.preserve_format``
(keep the input's strides) and the channels-last orders, which only change the speed of some GPU
kernels. nnref's tensors are row-major: the first two are accepted, the channels-last ones raise
(``c10/core/MemoryFormat.h``, ``torch/csrc/utils/tensor_memoryformats.cpp``). The teaching core
has no memory formats: the methods that take ``memory_format=`` are bound here, in the mirror.
"""
from .core._naming import TorchNamed

__all__ = ["layout", "strided", "memory_format", "contiguous_format", "preserve_format", "channels_last",
           "channels_last_3d"]


class _Named(metaclass=TorchNamed):
    """One instance per name, printed and pickled as that name (``torch.contiguous_format``)."""

    __slots__ = ("_name",)

    def __new__(cls, name):
        if name not in cls._by_name:
            instance = super().__new__(cls)
            instance._name = name
            cls._by_name[name] = instance
        return cls._by_name[name]

    def __repr__(self):
        return f"torch.{self._name}"

    def __reduce__(self):  # pickles as the one instance of its name
        return (type(self), (self._name,))


class memory_format(_Named):
    """A memory format (``torch.memory_format``): ``torch.contiguous_format``, ``preserve_format``,
    ``channels_last``, ``channels_last_3d``."""
    _torch_name = "torch.memory_format"  # PyTorch's name (nnref/_naming.py)
    __slots__ = ()
    _by_name = {}


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")


def check_memory_format(function, value):
    """``value`` when nnref can honour it (None, ``preserve_format``, ``contiguous_format``)."""
    if value is None or value is preserve_format or value is contiguous_format:
        return value
    if not isinstance(value, memory_format):
        raise TypeError(f"{function}(): argument 'memory_format' must be torch.memory_format, not "
                        f"{type(value).__name__}")
    raise NotImplementedError(f"{function}(): nnref lays tensors out row-major only "
                              f"(torch.contiguous_format), not {value!r}; drop memory_format=, the "
                              f"values are the same (channels-last only speeds up some GPU kernels)")


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
