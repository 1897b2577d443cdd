"""``nnref.accelerator``: the device-agnostic accelerator API of current PyTorch tutorials
(``torch/accelerator/__init__.py``).

nnref's one accelerator is CUDA through CuPy, so these answer for ``nnref.cuda``.
The tutorials' idiom works unchanged::

    device = torch.accelerator.current_accelerator().type if torch.accelerator.is_available() else "cpu"
"""
from . import cuda
from ._cupy import _import_cupy
from .core._device import device as _device

__all__ = ["is_available", "current_accelerator", "device_count", "current_device_index",
           "synchronize"]


def is_available():
    """True when an accelerator (for nnref: a CUDA GPU with CuPy) can be used."""
    return cuda.is_available()


def device_count():
    """How many accelerator devices there are (0 without one)."""
    return cuda.device_count()


def current_accelerator(check_available=False):
    """``device(type='cuda')`` when nnref has a GPU path (CuPy is installed), else None.

    As in PyTorch, that says what the installation supports; with ``check_available=True``
    a GPU must also be usable right now.
    """
    if _import_cupy() is None or (check_available and not cuda.is_available()):
        return None
    return _device("cuda")


def current_device_index():
    """The index of the current accelerator device (always 0: nnref uses one GPU)."""
    if not cuda.is_available():
        raise RuntimeError("Cannot access accelerator device when none is available.")
    return 0


def synchronize(device=None):
    """Wait for the accelerator's queued work to finish (no-op without one)."""
    cuda.synchronize(device)


from ._namespace import public_dir as _public_dir  # noqa: E402

__dir__ = _public_dir(globals(), __all__)
