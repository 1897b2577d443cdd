"""``nnref.device`` and the one place that picks the array library for a device.

Mirrors ``torch.device`` (c10/core/Device.h).  A CPU tensor keeps its values in a numpy array;
the core knows the CPU, and the mirror adds ``'cuda'`` (CuPy arrays) and ``'meta'`` (a shape and
a dtype) through the seams below, the default device and ``with device(...)``
(``nnref/_device_extras.py``).  Every other module asks :func:`array_module`.
"""
import numpy as np

from ._naming import TorchNamed

__all__ = ["device", "array_module", "array_module_of", "to_host"]
__seams__ = ("library_of_device", "library_of_array", "other_device")


# Device types PyTorch knows that nnref does not implement.
_PYTORCH_ONLY_DEVICES = {"mps", "xpu", "xla", "hpu", "mtia", "ipu", "privateuseone"}


class device(metaclass=TorchNamed):
    """Where a tensor lives: ``device('cpu')``, ``device('cuda', 0)``, ``device('meta')``."""
    _torch_name = "torch.device"  # PyTorch's name (nnref/_naming.py)

    __slots__ = ("type", "index")

    def __init__(self, type_or_string, index=None):
        if isinstance(type_or_string, device):
            self.type, self.index = type_or_string.type, type_or_string.index
            return
        text = str(type_or_string)
        kind, colon, number = text.partition(":")
        if kind not in ("cpu", "cuda", "meta"):
            hint = (f" (PyTorch's '{kind}' device is not part of nnref; use 'cpu', 'meta', or 'cuda' "
                    f"with CuPy)" if kind in _PYTORCH_ONLY_DEVICES else "")
            raise RuntimeError(
                f"Expected one of cpu, cuda, meta device type at start of device string: {text}{hint}")
        if colon:
            if index is not None:
                raise RuntimeError(f"type (string) must not include an index because index was "
                                   f"passed explicitly: {text}")
            if not number.isdigit() or number != str(int(number)):  # 'cuda:', 'cuda:x', 'cuda:01'
                raise RuntimeError(f"Invalid device string: '{text}'")
            index = int(number)
        self.type, self.index = kind, index

    def __eq__(self, other):
        # Like torch.device, a device never equals a string: compare t.device.type == "cpu".
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        index = "" if self.index is None else f", index={self.index}"
        return f"device(type='{self.type}'{index})"


CPU = device("cpu")


# Seams: the mirror's 'cuda' (CuPy, nnref/_cupy.py) and 'meta' (nnref/_meta.py) devices.
def library_of_device(dev):
    """The array library of a device other than the CPU."""
    raise RuntimeError(f"nnref's core runs on the CPU only; `import nnref` adds the '{dev.type}' device")


def library_of_array(array):
    """The array library of an array that is not numpy's."""
    raise TypeError(f"nnref's core holds numpy arrays only, not {type(array).__name__}")


def other_device(dev):
    """The device tensors asked for on ``dev``, a device other than the CPU, are made on."""
    raise RuntimeError(f"nnref's core runs on the CPU only; `import nnref` adds the '{dev.type}' device")


def canonical_device(spec):
    """Turn ``None``/str/int/device into a :class:`device` (an int is a CUDA index)."""
    if spec is None:
        return CPU
    if isinstance(spec, int):
        spec = device("cuda", spec)
    d = spec if isinstance(spec, device) else device(spec)
    if d.type == "cpu":
        return CPU  # CPU tensors never carry an index, as in PyTorch ('cpu:0' tensors say 'cpu')
    return other_device(d)


def array_module(dev):
    """numpy for CPU tensors, CuPy for CUDA tensors: code calls ``xp = array_module(t.device)``,
    then ``xp.zeros``, ``xp.exp``..., so the same lines run on either (the array API's idiom)."""
    if dev.type == "cpu":
        return np
    return library_of_device(dev)


def array_module_of(array):
    """The library that owns ``array``: numpy for numpy arrays and scalars, else the mirror's."""
    if isinstance(array, (np.ndarray, np.generic)):
        return np
    return library_of_array(array)


def to_host(array):
    """``array`` as a numpy array: CUDA arrays are copied to host memory (a meta one raises)."""
    if isinstance(array, (np.ndarray, np.generic)):
        return array
    return array.get()
