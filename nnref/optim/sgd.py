"""``nnref.optim.sgd``: the public module of ``SGD`` (``torch/optim/sgd.py``).

``SGD`` is the teaching core's (``nnref/core/optim/sgd.py``), whose ``_update`` is PyTorch's
``_single_tensor_sgd`` in tensor ops.  Here the mirror adds what only the full package needs:
``fused=True``/``foreach=True`` take the update that writes into existing arrays
(``optim/_fused.py``), installed in the core's ``tuned_update`` seam; and ``__setstate__`` fills
in the options that a state saved by an older version lacks.
"""
from ..core._seams import install
from ..core.optim import sgd as _core_sgd
from ..core.optim.sgd import SGD
from ._fused import sgd_update_
from .optimizer import Optimizer, _attach

__all__ = ["SGD"]

install(_core_sgd, "tuned_update", sgd_update_)


def __setstate__(self, state):
    Optimizer.__setstate__(self, state)
    for group in self.param_groups:
        group.setdefault("nesterov", False)
        group.setdefault("maximize", False)
        group.setdefault("foreach", None)
        group.setdefault("differentiable", False)
        group.setdefault("fused", False)


_attach(SGD, __setstate__=__setstate__)
