"""``nnref.cuda``: is a GPU usable, how many, wait for it (``torch/cuda/__init__.py``).

The GPU path runs on CuPy; without CuPy or without a GPU these answer
"no" instead of raising, exactly like PyTorch on a CPU-only build.
"""
from ._device import _import_cupy, cuda_unavailable_reason, device as Device

__all__ = ["is_available", "device_count", "synchronize", "manual_seed", "get_device_name"]


def is_available():
    """True when CuPy is installed and sees at least one CUDA GPU."""
    return cuda_unavailable_reason() is None


def device_count():
    """How many GPUs CuPy sees; 0 without CuPy or a GPU (``torch.cuda.device_count`` of
    ``torch/cuda/__init__.py``)."""
    if not is_available():
        return 0
    return _import_cupy().cuda.runtime.getDeviceCount()


def _index(device):
    if device is None:
        return 0
    if isinstance(device, int):
        return device
    return Device(device).index or 0


def synchronize(device=None):
    """Wait until all queued GPU work has finished (timing GPU code needs this)."""
    if is_available():
        _import_cupy().cuda.Device(_index(device)).synchronize()


def get_device_name(device=None):
    """The name of GPU ``device`` (an index or a device, default 0); raises without a GPU, as
    ``torch.cuda.get_device_name`` of ``torch/cuda/__init__.py``."""
    if not is_available():
        raise RuntimeError(cuda_unavailable_reason())
    return _import_cupy().cuda.runtime.getDeviceProperties(_index(device))["name"].decode()


def manual_seed(seed):
    """Seed the GPU generator (``nnref.manual_seed`` already does both)."""
    from ._random import manual_seed as seed_all
    seed_all(seed)


from ._namespace import public_dir as _public_dir  # noqa: E402

__dir__ = _public_dir(globals(), __all__)
