"""``nnref.device`` and the one place that picks the array library for a device.

Mirrors ``torch.device`` (c10/core/Device.h).  A CPU tensor keeps its values in
a numpy array; a ``'cuda'`` tensor keeps them in a CuPy array; a ``'meta'`` tensor
keeps only a shape and a dtype (``nnref/_meta.py``).  Every other module asks
:func:`array_module` instead of testing the device itself.
"""
import importlib.machinery
import importlib.util
import os
import site
import sys

import numpy as np

from ._naming import TorchNamed
from ._meta import MetaArray, meta

__all__ = ["device", "array_module", "array_module_of", "to_host", "check_dtype_on_device", "cuda_unavailable_reason"]


# Device types PyTorch knows that nnref does not implement.
_PYTORCH_ONLY_DEVICES = {"mps", "xpu", "xla", "hpu", "mtia", "ipu", "privateuseone"}


class device(metaclass=TorchNamed):
    """Where a tensor's memory lives: ``device('cpu')``, ``device('cuda')``, ``device('cuda', 0)``,
    ``device('meta')`` (shapes and dtypes, no values).

    ``with device('meta'):`` makes it the default device of factories and layers inside the
    block, as a ``torch.device`` does (``torch/utils/_device.py``, ``DeviceContext``).
    """
    _torch_name = "torch.device"  # PyTorch's name (nnref/_naming.py)

    __slots__ = ("type", "index", "_previous")

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

    def __enter__(self):
        # A stack of previous defaults, so one device object may be entered again inside itself.
        previous = getattr(self, "_previous", None) or []
        previous.append(_default_device)
        self._previous = previous
        set_default_device(self)
        return self

    def __exit__(self, *exc):
        global _default_device
        _default_device = self._previous.pop()
        return False


CPU = device("cpu")
META = device("meta")


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


def canonical_device(spec):
    """Turn ``None``/str/int/device into a :class:`device`, raising a clear error for unusable CUDA."""
    if spec is None:
        return CPU
    if isinstance(spec, int):
        spec = device("cuda", spec)
    d = spec if isinstance(spec, device) else device(spec)
    if d.type == "cpu":
        return CPU  # CPU tensors never carry an index, as in PyTorch ('cpu:0' tensors say 'cpu')
    if d.type == "meta":
        return META  # as CPU: PyTorch's meta tensors say 'meta' whatever index was asked
    if d.index not in (None, 0):
        # CuPy allocates on its *current* GPU; keeping every tensor on GPU 0 keeps that right.
        raise RuntimeError(f"nnref's GPU path uses one GPU, cuda:0, but {d} was asked for. To run "
                           f"on another GPU, make it the only visible one: CUDA_VISIBLE_DEVICES={d.index}")
    reason = cuda_unavailable_reason()
    if reason is not None:
        raise RuntimeError(reason)
    return device("cuda", 0)


def check_dtype_on_device(dtype, dev):
    """CuPy has no bfloat16, so nnref's 'cuda' tensors cannot hold it (PyTorch's can)."""
    if dev.type == "cuda" and dtype.numpy.name == "bfloat16":
        raise TypeError("nnref's 'cuda' device cannot hold bfloat16: CuPy has no bfloat16 type. Use "
                        "float16 (t.half()) or float32 on the GPU, or keep bfloat16 tensors on the CPU.")


def array_module(dev):
    """numpy for CPU tensors, CuPy for CUDA tensors: the single switch between the two.

    Code that computes on a tensor's values calls ``xp = array_module(t.device)``
    (or :func:`array_module_of` on a raw array) and then ``xp.zeros``,
    ``xp.exp``, ... so the same lines run on either library, the idiom of the
    Python array API standard.
    """
    if dev.type == "cpu":
        return np
    if dev.type == "meta":
        return meta
    return _import_cupy()


def array_module_of(array):
    """The library that owns ``array``: numpy for numpy arrays and scalars, the meta namespace
    for meta arrays, else CuPy."""
    if isinstance(array, (np.ndarray, np.generic)):
        return np
    if isinstance(array, MetaArray):
        return meta
    return _import_cupy()


def has_values(array):
    """False for a meta array: value checks (index bounds, probabilities, ...) are skipped on
    'meta', as PyTorch's meta kernels skip them, since there is nothing to read."""
    return not isinstance(array, MetaArray)


def to_host(array):
    """``array`` as a numpy array: CUDA arrays are copied to host memory, numpy ones returned as
    they are; a meta array has nothing to copy (PyTorch's NotImplementedError)."""
    if isinstance(array, (np.ndarray, np.generic)):
        return array
    return array.get()


_default_device = None  # None: factories make CPU tensors


def get_default_device():
    """The device factories use when given none (``torch.get_default_device``): CPU unless set."""
    return _default_device if _default_device is not None else CPU


def set_default_device(dev):
    """Make factories (``zeros``, ``tensor``, ``randn``, layers' parameters...) put new tensors on
    ``dev``; ``None`` goes back to the CPU (``torch.set_default_device``)."""
    global _default_device
    _default_device = None if dev is None else (dev if isinstance(dev, device) else device(dev))
