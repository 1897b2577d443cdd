"""CuPy, the array library of nnref's ``'cuda'`` device, found and checked once per process.

The core's device file (``nnref/core/_device.py``) knows only the CPU; this module fills its
seams for ``'cuda'`` (and ``nnref/_meta.py`` for ``'meta'``) when ``nnref`` is imported.
"""
import importlib.machinery
import importlib.util
import os
import site
import sys

from .core import _device
from .core._ops import conversion
from .core._seams import install
from ._device_extras import check_dtype_on_device
from ._half import through_float32
from ._meta import MetaArray, meta

__all__ = ["cuda_unavailable_reason"]


def _import_cupy():
    """CuPy, imported the first time a CUDA array is met; None when it is not installed.

    CuPy is looked for only in site-packages (and the folders named in
    ``NNREF_CUPY_SITE``), never in the current directory: a ``cupy.py`` lying
    next to a notebook or a downloaded checkpoint must not run.
    """
    global _cupy
    if _cupy is None:
        cupy = sys.modules.get("cupy")
        if cupy is None:
            spec = importlib.machinery.PathFinder.find_spec("cupy", _cupy_search_path())
            if spec is None:
                return None
            cupy = importlib.util.module_from_spec(spec)
            sys.modules["cupy"] = cupy
            try:
                spec.loader.exec_module(cupy)
            except ImportError:
                del sys.modules["cupy"]
                return None
            except BaseException:
                del sys.modules["cupy"]
                raise
        _cupy = cupy
    return _cupy


def _cupy_search_path():
    folders = site.getsitepackages() + [site.getusersitepackages()]
    folders += [f for f in os.environ.get("NNREF_CUPY_SITE", "").split(os.pathsep) if f]
    return [f for f in folders if os.path.isabs(f)]


_cupy = None


def cuda_unavailable_reason():
    """None when CuPy and a GPU are usable, else a sentence saying which is missing and how to fix it.

    Asked once per process, as PyTorch asks the driver once: GPUs do not come and go.
    """
    global _cuda_answer
    if _cuda_answer is _UNASKED:
        _cuda_answer = _ask_cuda()
    return _cuda_answer


_UNASKED = object()
_cuda_answer = _UNASKED


def _ask_cuda():
    cupy = _import_cupy()
    if cupy is None:
        return ("nnref's 'cuda' device needs CuPy, which is not installed. Install the wheel that "
                "matches your CUDA version, e.g. `pip install cupy-cuda12x` (or `pip install -e .[gpu]`), "
                "or keep tensors on the CPU.")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # CuPy raises its own CUDARuntimeError when no driver is present
        return f"CuPy is installed but cannot reach a GPU ({exc}). Keep tensors on the CPU."
    if count == 0:
        return "CuPy is installed but this machine has no CUDA GPU. Keep tensors on the CPU."
    return None


def _library_of_device(dev):
    return meta if dev.type == "meta" else _import_cupy()


def _library_of_array(array):
    return meta if isinstance(array, MetaArray) else _import_cupy()


def _other_device(dev):
    """The core's ``canonical_device`` for 'meta' and 'cuda': every CUDA tensor is on cuda:0,
    raising a clear error for an unusable GPU."""
    if dev.type == "meta":
        return _META  # as CPU: PyTorch's meta tensors say 'meta' whatever index was asked
    if dev.index not in (None, 0):
        # CuPy allocates on its *current* GPU; keeping every tensor on GPU 0 keeps that right.
        raise RuntimeError(f"nnref's GPU path uses one GPU, cuda:0, but {dev} was asked for. To run "
                           f"on another GPU, make it the only visible one: CUDA_VISIBLE_DEVICES={dev.index}")
    reason = cuda_unavailable_reason()
    if reason is not None:
        raise RuntimeError(reason)
    return _device.device("cuda", 0)


_META = _device.device("meta")


def _move(data, dtype, dev):
    """``data`` copied to ``dev``, the step of ``to`` between two memories (``to_copy``,
    ``nnref/core/_ops/conversion.py``), with a double bound for float16 rounded to float32 first."""
    check_dtype_on_device(dtype, dev)
    if dev.type == "cpu":
        return through_float32(_device.to_host(data), dtype.numpy)
    xp = _device.array_module(dev)
    if dev.type == "meta":
        return xp.asarray(data)  # only the shape and dtype go to meta
    with xp.cuda.Device(dev.index):
        return through_float32(xp.asarray(data), dtype.numpy)


install(_device, "library_of_device", _library_of_device)
install(_device, "library_of_array", _library_of_array)
install(_device, "other_device", _other_device)
install(conversion, "move", _move)
