"""The layers of ``nnref.nn``, one file per family as in ``torch/nn/modules/``."""
from .activation import LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .batchnorm import BatchNorm1d, BatchNorm2d
from .container import ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential
from .conv import Conv2d
from .dropout import Dropout
from .flatten import Flatten
from .linear import Identity, Linear
from .loss import BCEWithLogitsLoss, CrossEntropyLoss, MSELoss, NLLLoss
from .module import Module
from .normalization import LayerNorm
from .pooling import MaxPool2d
from .sparse import Embedding

__all__ = [
    "Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
    "Identity", "Linear", "Conv2d", "MaxPool2d", "ReLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax",
    "Dropout", "BatchNorm1d", "BatchNorm2d", "LayerNorm", "Embedding", "Flatten",
    "MSELoss", "CrossEntropyLoss", "NLLLoss", "BCEWithLogitsLoss",
]
