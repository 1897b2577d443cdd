"""What a gradient hook may return, as PyTorch checks it (``check_result`` and
``check_single_result`` of ``torch/csrc/autograd/python_hook.cpp``): a tuple as long as the
gradients it replaces, each a tensor of the same dtype, device and size, or None.  Installed in
the seam ``check_hook_result`` of the teaching core's engine (``nnref/core/autograd/engine.py``),
which takes a hook's result as it is.
"""
from ..core._seams import install
from ..core._tensor import Tensor
from ..core.autograd import engine

__all__ = []


def _hook_name(hook):
    return getattr(hook, "__name__", None) or repr(hook)


def check_hook_result(hook, original, result):
    """A hook's replacement gradients: a tuple of the same length, each checked as one
    (``check_result``); the engine passes a tensor hook's gradient and result as 1-tuples."""
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(original):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has returned an incorrect number of values "
                           f"(got {len(result)}, but expected {len(original)})")
    for before, after in zip(original, result):
        _check_single_hook_result(hook, before, after)


def _check_single_hook_result(hook, original, result):
    """A hook may replace a gradient only by a tensor of the same dtype, device and size
    (``check_single_result`` / ``check_variable_result`` in ``python_hook.cpp``)."""
    if result is None:
        return
    if original is None:
        raise RuntimeError("can't replace a None gradient with a non-None value")
    if not isinstance(result, Tensor):
        raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
    name = _hook_name(hook)
    if result._dtype is not original._dtype:
        raise RuntimeError(f"hook '{name}' has changed the type of value (was {original.type()} got "
                           f"{result.type()})")
    if result._device != original._device:
        was = "CUDA tensor got CPU tensor" if original._device.type == "cuda" else "CPU tensor got CUDA tensor"
        raise RuntimeError(f"hook '{name}' has changed the type of value ({was})")
    if result._data.shape != original._data.shape:
        raise RuntimeError(f"hook '{name}' has changed the size of value")


install(engine, "check_hook_result", check_hook_result)
