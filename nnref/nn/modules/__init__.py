"""The layers of ``nnref.nn``, one file per family as in ``torch/nn/modules/``."""
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .linear import Identity, Linear
from .module import Module

__all__ = ["Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
           "Identity", "Linear"]
