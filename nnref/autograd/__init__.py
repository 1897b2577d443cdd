"""``nnref.autograd``: reverse-mode differentiation (``torch/autograd/__init__.py``).

``backward`` and ``grad`` (in the core, ``nnref/core/autograd/engine.py``) hand the work
to the engine; this namespace adds the mirror's tools around them: gradcheck, anomaly
detection, the profiler and ``autograd.functional``.
"""
from ..core.autograd.engine import backward, grad
from . import function, grad_mode, graph  # the public modules, over the core's
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                        no_grad, set_grad_enabled)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .variable import Variable
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from . import profiler  # torch.autograd.profiler.profile and record_function
from . import _hook_checks  # noqa: F401 - PyTorch's checks of what a hook returns, in the engine's seam
from . import _engine  # noqa: F401 - queue_callback and PyTorch's checks of a node's gradients, in the engine's seams

__all__ = ["Variable", "Function", "detect_anomaly", "set_detect_anomaly", "backward", "grad", "gradcheck", "gradgradcheck", "no_grad",
           "enable_grad", "set_grad_enabled", "inference_mode", "anomaly_mode", "function", "grad_mode", "graph",
           "variable", "functional"]


from .._namespace import public_dir as _public_dir  # noqa: E402

__dir__ = _public_dir(globals(), __all__)

from . import functional  # noqa: E402 - torch.autograd.functional, built on grad above
