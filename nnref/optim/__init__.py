"""``nnref.optim``: optimizers and learning-rate schedulers (``torch/optim/__init__.py``).

The optimizers update ``param.data`` in place with numpy, following PyTorch's
single-tensor formulas step for step, so the same gradients give the same
parameters (to float rounding).
"""
from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamax import Adamax
from .adamw import AdamW
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "NAdam", "RAdam", "Adamax",
           "Adadelta", "ASGD", "Rprop", "LBFGS", "lr_scheduler"]


from .._namespace import public_dir as _public_dir  # noqa: E402

__dir__ = _public_dir(globals(), __all__)
