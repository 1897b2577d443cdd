"""Anomaly detection (``torch/autograd/anomaly_mode.py``): debug a backward pass that goes wrong.

While it is on, every node records the stack of the forward call that made it, and the engine
checks each node's gradients: a NaN raises ``RuntimeError("Function 'XBackward0' returned nan
values in its 0th output.")`` after a warning that shows where the forward made that node, as
PyTorch's engine does (``torch/csrc/autograd/engine.cpp``, ``python_anomaly_mode.cpp``).
"""
import traceback
import warnings

from ..core._naming import TorchNamed
from ..core._seams import install
from ..core.autograd import engine, graph

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled", "is_anomaly_check_nan_enabled",
           "set_anomaly_enabled"]


class _AnomalyState:
    enabled = False
    check_nan = True


def is_anomaly_enabled():
    """Whether anomaly detection is on (``torch.is_anomaly_enabled``)."""
    return _AnomalyState.enabled


def is_anomaly_check_nan_enabled():
    """Whether anomaly detection checks gradients for NaN (``torch.is_anomaly_check_nan_enabled``)."""
    return _AnomalyState.check_nan


def set_anomaly_enabled(enabled, check_nan=True):
    """Turn anomaly detection on or off (``torch.set_anomaly_enabled``): the core's graph and
    engine call the detector through their seams while it is on."""
    _AnomalyState.enabled, _AnomalyState.check_nan = bool(enabled), bool(check_nan)
    install(graph, "forward_watcher", _remember_forward if enabled else None)
    install(engine, "gradient_checker", check_gradients if enabled and check_nan else None)


class detect_anomaly(metaclass=TorchNamed):
    """``with detect_anomaly():``: anomaly detection inside the block (warns that it is on)."""

    def __init__(self, check_nan=True):
        self.prev, self.prev_check_nan = _AnomalyState.enabled, _AnomalyState.check_nan
        self.check_nan = check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime and "
                      "should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self):
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args):
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly(metaclass=TorchNamed):
    """``set_detect_anomaly(mode, check_nan=True)``: switch anomaly detection now, and back when
    used as a context manager (``torch.autograd.set_detect_anomaly``)."""

    def __init__(self, mode, check_nan=True):
        self.prev, self.prev_check_nan = _AnomalyState.enabled, _AnomalyState.check_nan
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self):
        pass

    def __exit__(self, *args):
        set_anomaly_enabled(self.prev, self.prev_check_nan)


def _remember_forward(node):
    """Keep on ``node`` the stack of the forward call making it, for the engine's NaN report."""
    node._anomaly_stack = "".join(traceback.format_stack()[:-3])


def check_gradients(node, grads):
    """Raise PyTorch's error when a node's gradient holds a NaN, after the warning that shows the
    forward stack recorded for the node."""
    for index, grad in enumerate(grads):
        if grad is not None and grad._dtype.is_floating_point and bool(grad.isnan().any()):
            name = type(node).__name__
            stack = getattr(node, "_anomaly_stack", None) or "(not recorded: the node was made " \
                "before anomaly detection was turned on)\n"
            warnings.warn(f"Error detected in {name}. Traceback of forward call that caused the "
                          f"error:\n{stack}", UserWarning, stacklevel=2)
            raise RuntimeError(f"Function '{name}' returned nan values in its {index}th output.")
