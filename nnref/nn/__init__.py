"""``nnref.nn``: modules, parameters and the functional API (``torch/nn/__init__.py``).

``from nnref import nn`` gives the same names as ``from torch import nn``:
``nn.Module``, ``nn.Parameter``, the layers and containers, ``nn.functional``
and ``nn.init``.
"""
from . import functional, init, modules, parallel, parameter, utils
from .modules import *  # noqa: F403 - the layers are nn's public API
from .modules import __all__ as _modules_all
from .parallel import DataParallel
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter

__all__ = ["Parameter", "Buffer", "UninitializedParameter", "UninitializedBuffer", "DataParallel", "functional", "init", "modules", "parallel", "parameter", "utils", *_modules_all]


from .._namespace import public_dir as _public_dir  # noqa: E402

__dir__ = _public_dir(globals(), __all__)
