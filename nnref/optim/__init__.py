"""``nnref.optim``: optimizers and learning-rate schedulers (``torch/optim/__init__.py``).

The optimizers update ``param.data`` in place with numpy, following PyTorch's
single-tensor formulas step for step, so the same gradients give the same
parameters (to float rounding).
"""
from . import lr_scheduler
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "lr_scheduler"]


from .._namespace import public_dir as _public_dir  # noqa: E402

__dir__ = _public_dir(globals(), __all__)
