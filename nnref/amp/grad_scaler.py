"""``GradScaler`` (``torch/amp/grad_scaler.py``): loss scaling for float16 training.

``scale(loss)`` multiplies by the current scale; ``unscale_``/``step`` divide the gradients
back and skip the optimizer step if any gradient is inf or NaN; ``update`` halves the scale
after such a step and doubles it after ``growth_interval`` clean ones
(``torch._amp_update_scale_``).  Disabled (or asked for 'cuda' without a GPU, with
PyTorch's warning) every method passes straight through.
"""
import enum
import warnings
from collections import defaultdict

from .._cupy import cuda_unavailable_reason
from ..core._naming import TorchNamed
from ..core import _dtype
from .._creation import full, zeros
from ..core._tensor import Tensor
from ..core.autograd.grad_mode import no_grad

__all__ = ["GradScaler", "OptState"]


class OptState(enum.Enum):
    """Where an optimizer is between two ``update()`` calls."""
    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler(metaclass=TorchNamed):
    """Scales losses and unscales gradients around ``optimizer.step`` (``torch.amp.GradScaler``)."""

    def __init__(self, device="cuda", init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled and cuda_unavailable_reason() is not None:
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                          UserWarning, stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None  # made on the first scale(), on the loss's device
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def is_enabled(self):
        """Whether the scaler scales (``GradScaler.is_enabled``)."""
        return self._enabled

    def scale(self, outputs):
        """``outputs`` (a tensor, or nested lists/tuples of tensors) times the current scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            if self._scale is None:
                self._scale = full((), self._init_scale, dtype=_dtype.float32, device=outputs.device)
                self._growth_tracker = full((), self._init_growth_tracker, dtype=_dtype.int32,
                                            device=outputs.device)
            return outputs * self._scale.to(device=outputs.device)
        if isinstance(outputs, (list, tuple)):
            scaled = [self.scale(output) for output in outputs]
            return type(outputs)(scaled)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _check_scale_growth_tracker(self, funcname):
        fix = "This may indicate your script did not use scaler.scale(loss or outputs) earlier in the iteration."
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        return self._scale, self._growth_tracker

    def unscale_(self, optimizer):
        """Divide ``optimizer``'s gradients by the scale, in place, noting whether any is inf/NaN."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = zeros((), dtype=_dtype.float32, device=self._scale.device)
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    if param.grad.dtype is _dtype.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    # torch._amp_foreach_non_finite_check_and_unscale_
                    if not bool(param.grad.isfinite().all()):
                        found_inf.fill_(1.0)
                    param.grad.mul_(inv_scale)
        state["found_inf_per_device"][str(self._scale.device)] = found_inf
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """Unscale (if not done yet) and run ``optimizer.step`` unless a gradient was inf/NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        retval = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None):
        """Back off after an overflow, grow after ``growth_interval`` clean steps (or set ``new_scale``)."""
        if not self._enabled:
            return
        scale, tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                          "torch.FloatTensor with requires_grad=False.")
                if new_scale.device.type != self._device or new_scale.numel() != 1 or new_scale.requires_grad:
                    raise AssertionError(reason)
                scale.copy_(new_scale)
        else:
            found_infs = [found for state in self._per_optimizer_states.values()
                          for found in state["found_inf_per_device"].values()]
            if not found_infs:
                raise AssertionError("No inf checks were recorded prior to update.")
            # torch._amp_update_scale_ (aten/src/ATen/native/cpu/AmpGradScalerKernels.cpp)
            if sum(found.item() for found in found_infs):
                scale.mul_(self._backoff_factor)
                tracker.fill_(0)
            else:
                successful = tracker.item() + 1
                if successful == self._growth_interval:
                    grown = scale * self._growth_factor
                    if bool(grown.isfinite()):
                        scale.copy_(grown)
                    tracker.fill_(0)
                else:
                    tracker.fill_(successful)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def get_scale(self):
        """The current scale as a Python float (1.0 when disabled)."""
        if self._enabled:
            return self._init_scale if self._scale is None else self._scale.item()
        return 1.0

    def get_growth_factor(self):
        """The factor the scale grows by after ``growth_interval`` clean steps."""
        return self._growth_factor

    def set_growth_factor(self, new_factor):
        """Set the factor the scale grows by."""
        self._growth_factor = new_factor

    def get_backoff_factor(self):
        """The factor the scale shrinks by after an overflow."""
        return self._backoff_factor

    def set_backoff_factor(self, new_factor):
        """Set the factor the scale shrinks by."""
        self._backoff_factor = new_factor

    def get_growth_interval(self):
        """How many clean steps in a row grow the scale."""
        return self._growth_interval

    def set_growth_interval(self, new_interval):
        """Set how many clean steps in a row grow the scale."""
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if self._enabled:
            return self._init_growth_tracker if self._growth_tracker is None else self._growth_tracker.item()
        return 0

    def state_dict(self):
        """The scale and its schedule, ``{}`` when disabled (``GradScaler.state_dict``)."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict):
        """Restore what :meth:`state_dict` returned (``GradScaler.load_state_dict``)."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved from a "
                               "disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])
