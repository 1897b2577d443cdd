"""``nnref.optim.adam``: the public module of ``Adam`` (``torch/optim/adam.py``).

``Adam`` is the teaching core's (``nnref/core/optim/adam.py``), whose ``_update`` is PyTorch's
``_single_tensor_adam`` in tensor ops.  Here the mirror adds what only the full package needs:
``fused=True``/``foreach=True`` take the update that writes into existing arrays
(``optim/_fused.py``), installed in the core's ``tuned_update`` seam; and ``__setstate__``
upgrades a state saved by an older version (missing options, ``step`` saved as a number).
"""
from .._creation import tensor
from ..core._seams import install
from ..core._tensor import Tensor
from ..core.optim import adam as _core_adam
from ..core.optim.adam import Adam, _step_dtype
from ._fused import adam_update_
from .optimizer import Optimizer, _attach

__all__ = ["Adam"]

install(_core_adam, "tuned_update", adam_update_)


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


_attach(Adam, __setstate__=__setstate__)
