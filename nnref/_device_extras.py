"""The default device and ``with device(...)``, beyond the teaching core's ``device``
(``nnref/core/_device.py``): ``torch.set_default_device``/``get_default_device`` and the
``DeviceContext`` of ``torch/utils/_device.py``, and the dtypes a device cannot hold.
"""
from .core._device import CPU, device

__all__ = ["get_default_device", "set_default_device", "check_dtype_on_device"]

_default_device = None  # None: factories make CPU tensors
_entered = []  # the defaults that the open ``with device(...)`` blocks replaced, innermost last


def get_default_device():
    """The device factories use when given none (``torch.get_default_device``): CPU unless set."""
    return _default_device if _default_device is not None else CPU


def set_default_device(dev):
    """Make factories (``zeros``, ``tensor``, ``randn``, layers' parameters...) put new tensors on
    ``dev``; ``None`` goes back to the CPU (``torch.set_default_device``)."""
    global _default_device
    _default_device = None if dev is None else (dev if isinstance(dev, device) else device(dev))


def _enter(self):
    """``with device('meta'):`` makes it the default device of factories and layers inside the
    block, as a ``torch.device`` does (``torch/utils/_device.py``, ``DeviceContext``)."""
    _entered.append(_default_device)
    set_default_device(self)
    return self


def _exit(self, *exc):
    global _default_device
    _default_device = _entered.pop()
    return False


def check_dtype_on_device(dtype, dev):
    """CuPy has no bfloat16, so nnref's 'cuda' tensors cannot hold it (PyTorch's can)."""
    if dev.type == "cuda" and dtype.numpy.name == "bfloat16":
        raise TypeError("nnref's 'cuda' device cannot hold bfloat16: CuPy has no bfloat16 type. Use "
                        "float16 (t.half()) or float32 on the GPU, or keep bfloat16 tensors on the CPU.")


device.__enter__, device.__exit__ = _enter, _exit
