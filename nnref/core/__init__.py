"""nnref's teaching core: what the course teaches, in PyTorch's names and files.

A learner reads it in the order of ``READING_ORDER`` (the book's "Reading nnref" page gives
each file's size).  It imports nothing outside itself; the rest of nnref, the *mirror*, builds
on it and puts PyTorch's exact behaviour into its seams (``_seams.py``) when imported.
"""
from . import _tensor_str, _views  # noqa: F401 - files that bind Tensor methods (_tensor.bind)
from ._ops import arithmetic, conversion, inplace, linalg, pointwise, reduction, shape, softmax  # noqa: F401
from .autograd import engine, function  # noqa: F401
from .nn.modules import _apply, _hooks, _state_dict  # noqa: F401 - files that bind Module methods

# What a tensor is made of, the tensor, its graph and engine, the operations, nn, then optim.
READING_ORDER = (
    "_dtype.py", "_device.py", "_naming.py",
    "autograd/grad_mode.py", "utils/hooks.py", "autograd/graph.py", "_tensor.py", "_tensor_str.py",
    "autograd/engine.py", "_views.py", "autograd/function.py",
    "_ops/_common.py", "_ops/arithmetic.py", "_ops/shape.py", "_ops/reduction.py", "_ops/linalg.py",
    "_ops/pointwise.py", "_ops/softmax.py", "_ops/inplace.py", "_ops/conversion.py",
    "nn/parameter.py", "nn/modules/_backward_hook.py", "nn/modules/module.py", "nn/modules/_apply.py",
    "nn/modules/_hooks.py", "nn/modules/_state_dict.py", "nn/modules/container.py",
    "nn/init.py", "nn/functional.py", "nn/modules/linear.py", "nn/modules/conv.py",
    "nn/modules/dropout.py", "nn/modules/batchnorm.py", "nn/modules/loss.py",
    "optim/optimizer.py", "optim/sgd.py", "optim/adam.py",
    "_seams.py",
)
