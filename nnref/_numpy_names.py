"""numpy's names for four arguments, which PyTorch's C++ argument parser also accepts.

``x.sum(axis=1)``, ``torch.cat(ts, axis=0)``, ``y.argmax(axis=1, keepdims=True)``: d2l and
numpy-minded code write them, and ``torch/csrc/utils/python_arg_parser.cpp``
(``numpy_compatibility_arg_names``) maps ``axis`` to ``dim``, ``keepdims`` to ``keepdim``,
``x``/``a``/``x1`` to ``input`` and ``x2`` to ``other`` for every function and method bound
from C++.  Functions PyTorch writes in Python (``Tensor.split``, ``Tensor.norm``,
``torch.unique``, ``torch.nn.functional``...) take only their own names, and are left alone.
"""
import functools
import inspect

__all__ = ["accept_numpy_names", "apply_to_namespace"]

_ALIASES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "a": "input", "x1": "input", "x2": "other"}

# Methods and functions PyTorch implements in Python (torch/_tensor.py, torch/functional.py).
PYTHON_LEVEL = {"split", "norm", "unique", "unique_consecutive", "unflatten", "tensordot", "einsum",
                "meshgrid", "cdist", "chain_matmul", "block_diag", "cartesian_prod", "broadcast_tensors",
                "atleast_1d", "atleast_2d", "atleast_3d", "stft", "istft", "lu", "align_to", "rename",
                "refine_names", "register_hook", "backward", "to", "type", "size"}


def accept_numpy_names(function):
    """``function``, also taking numpy's names for its ``dim``, ``keepdim``, ``input`` and ``other``
    arguments; ``function`` itself when it has none of them."""
    try:
        parameters = inspect.signature(function).parameters
    except (TypeError, ValueError):
        return function
    aliases = {alias: name for alias, name in _ALIASES.items()
               if name in parameters and alias not in parameters}
    if not aliases:
        return function

    @functools.wraps(function)
    def call(*args, **kwargs):
        if kwargs:
            for alias in aliases.keys() & kwargs.keys():
                kwargs[aliases[alias]] = kwargs.pop(alias)
        return function(*args, **kwargs)
    return call


_wrapped = {}  # id(function) -> (function, its wrapper): aliases (clip, clamp) stay one object


def apply_to_namespace(namespace, names):
    """Replace each function ``namespace[name]`` by :func:`accept_numpy_names` of it."""
    for name in names:
        function = namespace.get(name) if isinstance(namespace, dict) else getattr(namespace, name, None)
        if name in PYTHON_LEVEL or name.startswith("_") or not inspect.isfunction(function):
            continue
        if id(function) not in _wrapped:
            _wrapped[id(function)] = (function, accept_numpy_names(function))
        wrapped = _wrapped[id(function)][1]
        if wrapped is not function:
            if isinstance(namespace, dict):
                namespace[name] = wrapped
            else:
                setattr(namespace, name, wrapped)
