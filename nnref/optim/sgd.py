"""``nnref.optim.sgd``: the public module of ``SGD`` (``torch/optim/sgd.py``).

``SGD`` is the teaching core's (``nnref/core/optim/sgd.py``), whose ``_update`` is PyTorch's
``_single_tensor_sgd`` in tensor ops.  Here the mirror adds what only the full package needs:
``fused=True``/``foreach=True`` take the update that writes into existing arrays
(``optim/_fused.py``), installed in the core's ``tuned_update`` seam; PyTorch's argument checks;
and ``__setstate__`` fills in the options that a state saved by an older version lacks.
"""
from ..core._seams import install
from ..core.optim import sgd as _core_sgd
from ..core.optim.sgd import SGD
from ._fused import sgd_update_
from .optimizer import Optimizer, _attach

__all__ = ["SGD"]

install(_core_sgd, "tuned_update", sgd_update_)
_core_init = SGD.__init__


def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
             maximize=False, foreach=None, differentiable=False, fused=None):
    """PyTorch's argument checks, then the core's ``SGD.__init__``."""
    if lr < 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")
    if momentum < 0.0:
        raise ValueError(f"Invalid momentum value: {momentum}")
    if weight_decay < 0.0:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")
    if differentiable:
        raise NotImplementedError("nnref's optimizers update in place under no_grad; "
                                  "differentiable=True is not supported")
    if nesterov and (momentum <= 0 or dampening != 0):
        raise ValueError("Nesterov momentum requires a momentum and zero dampening")
    _core_init(self, params, lr, momentum, dampening, weight_decay, nesterov, maximize=maximize,
               foreach=foreach, differentiable=differentiable, fused=fused)


def __setstate__(self, state):
    Optimizer.__setstate__(self, state)
    for group in self.param_groups:
        group.setdefault("nesterov", False)
        group.setdefault("maximize", False)
        group.setdefault("foreach", None)
        group.setdefault("differentiable", False)
        group.setdefault("fused", False)


_attach(SGD, __init__=__init__, __setstate__=__setstate__)
