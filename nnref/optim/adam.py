"""``nnref.optim.adam``: the public module of ``Adam`` (``torch/optim/adam.py``).

``Adam`` is the teaching core's (``nnref/core/optim/adam.py``), whose ``_update`` is PyTorch's
``_single_tensor_adam`` in tensor ops.  Here the mirror adds what only the full package needs:
``fused=True``/``foreach=True`` take the update that writes into existing arrays
(``optim/_fused.py``), installed in the core's ``tuned_update`` seam; PyTorch's argument checks;
and ``__setstate__`` upgrades an older version's state (missing options, ``step`` a number).
"""
from .._creation import tensor
from ..core._seams import install
from ..core._tensor import Tensor
from ..core.optim import adam as _core_adam
from ..core.optim.adam import Adam, _step_dtype
from ._fused import adam_update_
from .optimizer import Optimizer, _attach, _check_hyperparameters

__all__ = ["Adam"]

install(_core_adam, "tuned_update", adam_update_)
_core_init = Adam.__init__


def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0, amsgrad=False, *,
             foreach=None, maximize=False, capturable=False, differentiable=False, fused=None,
             decoupled_weight_decay=False):
    """PyTorch's argument checks, then the core's ``Adam.__init__``."""
    _check_hyperparameters(lr=lr, eps=eps, betas=betas, weight_decay=weight_decay)
    if differentiable:
        raise NotImplementedError("nnref's optimizers update in place under no_grad; "
                                  "differentiable=True is not supported")
    _core_init(self, params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
               maximize=maximize, capturable=capturable, differentiable=differentiable,
               fused=fused, decoupled_weight_decay=decoupled_weight_decay)


def __setstate__(self, state):
    Optimizer.__setstate__(self, state)
    for group in self.param_groups:
        group.setdefault("amsgrad", False)
        group.setdefault("maximize", False)
        group.setdefault("foreach", None)
        group.setdefault("capturable", False)
        group.setdefault("differentiable", False)
        group.setdefault("decoupled_weight_decay", False)
        group.setdefault("fused", None)
        for p in group["params"]:
            p_state = self.state.get(p, [])
            if len(p_state) != 0 and not isinstance(p_state["step"], Tensor):
                p_state["step"] = tensor(float(p_state["step"]), dtype=_step_dtype())


_attach(Adam, __init__=__init__, __setstate__=__setstate__)
