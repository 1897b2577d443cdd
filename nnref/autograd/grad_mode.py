"""``nnref.autograd.grad_mode`` (``torch/autograd/grad_mode.py``): the switches that decide
whether ops record a graph.  They live in the teaching core, ``nnref/core/autograd/grad_mode.py``."""
from ..core.autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled,
                                       is_inference_mode_enabled, no_grad, set_grad_enabled)

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled"]
