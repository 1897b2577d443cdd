"""``nnref.cuda``: is a GPU usable, how many, wait for it (``torch/cuda/__init__.py``).

The GPU path runs on CuPy; without CuPy or without a GPU these answer
"no" instead of raising, exactly like PyTorch on a CPU-only build.
"""
from .._cupy import _import_cupy, cuda_unavailable_reason
from ..core._device import device as Device

__all__ = ["is_available", "device_count", "synchronize", "manual_seed", "manual_seed_all", "get_device_name",
           "empty_cache", "memory_allocated", "amp"]


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
    """Seed the GPU's generator, not the CPU's (``torch.cuda.manual_seed``; ``nnref.manual_seed``
    seeds both); without a GPU nothing draws from it."""
    from .._random import manual_seed_cuda
    manual_seed_cuda(seed)


def manual_seed_all(seed):
    """Seed every GPU's generator (``torch.cuda.manual_seed_all``): nnref uses one GPU."""
    manual_seed(seed)


def empty_cache():
    """Give the GPU memory CuPy holds in its pool for reuse back to the driver
    (``torch.cuda.empty_cache``); nothing to do without a GPU."""
    if is_available():
        _import_cupy().get_default_memory_pool().free_all_blocks()


def memory_allocated(device=None):
    """Bytes of GPU memory held by tensors now: CuPy's pool in use; 0 without a GPU
    (``torch.cuda.memory_allocated``)."""
    if not is_available():
        return 0
    return _import_cupy().get_default_memory_pool().used_bytes()


from . import amp  # noqa: E402 - the deprecated torch.cuda.amp spellings
from .._namespace import public_dir as _public_dir  # noqa: E402

__dir__ = _public_dir(globals(), __all__)
