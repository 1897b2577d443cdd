"""nnref's teaching core: what the course teaches, in PyTorch's names and files.

A learner reads it in an afternoon, in the order of ``READING_ORDER`` (the book's "Reading
nnref" page lists it with each file's size).  It imports nothing outside itself; the rest of
nnref, the *mirror*, builds on it: more operations and layers, and PyTorch's exact behaviour,
put into the core's seams (``_seams.py``) when ``nnref`` is imported.
"""
# The files that bind methods onto Tensor (``_tensor.bind``), so a core tensor has them.
from . import _tensor_str, _views  # noqa: F401 - __repr__, the view refresh
from .autograd import engine, function  # noqa: F401 - backward
from ._ops import conversion  # noqa: F401 - to

# The core's files in the order a reader meets them: what a tensor is made of, the tensor,
# the graph and the engine that runs it backward, the operations, nn.Module, then the optimizers.
READING_ORDER = (
    "_dtype.py", "_device.py", "_layout.py", "_naming.py",
    "autograd/grad_mode.py", "utils/hooks.py", "autograd/graph.py", "_tensor.py", "_tensor_str.py",
    "autograd/engine.py", "_views.py", "autograd/function.py",
    "_ops/_common.py", "_ops/conversion.py",
    "nn/parameter.py", "nn/modules/_backward_hook.py", "nn/modules/module.py", "nn/modules/container.py",
    "optim/optimizer.py", "optim/sgd.py", "optim/adam.py",
    "_seams.py",
)
