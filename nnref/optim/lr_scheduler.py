"""Learning-rate schedulers (``torch/optim/lr_scheduler.py``): the ``LRScheduler`` base and the
schedules built on it, each computing its rates as PyTorch does (recursively from the current
``group['lr']`` where PyTorch does, so the printed digits agree).

A scheduler rewrites ``group['lr']`` of its optimizer each time ``step()``
is called (once per epoch, after ``optimizer.step()``).  It remembers each
group's starting rate as ``group['initial_lr']`` and its position in
``last_epoch``; ``state_dict()`` is everything but the optimizer.
"""
import functools
import math
import types
import warnings
import weakref
from bisect import bisect_right
from collections import Counter

from ..core._naming import TorchNamedABC
from .optimizer import Optimizer

__all__ = ["LRScheduler", "LambdaLR", "MultiplicativeLR", "StepLR", "MultiStepLR", "ConstantLR",
           "LinearLR", "ExponentialLR", "SequentialLR", "CosineAnnealingLR", "ChainedScheduler",
           "ReduceLROnPlateau", "CyclicLR", "CosineAnnealingWarmRestarts", "OneCycleLR",
           "PolynomialLR"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where "
    "possible. Please use `scheduler.step()` to step the scheduler. During the deprecation, if "
    "epoch is different from None, the closed form is used instead of the new chainable form, "
    "where available. Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose.")


class LRScheduler(metaclass=TorchNamedABC):
    """The base of the schedulers: ``step()`` sets each parameter group's ``lr`` to what
    ``get_lr()`` says for the next epoch (``torch/optim/lr_scheduler.py``)."""

    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(f"param 'initial_lr' is not specified in param_groups[{i}] when "
                                   "resuming scheduler with last_epoch >= 0; load the optimizer's "
                                   "state_dict first")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._wrap_optimizer_step()
        self._initial_step()

    def _wrap_optimizer_step(self):
        """Mark the optimizer when its ``step`` runs, to warn if the scheduler steps first."""
        step = self.optimizer.step
        if getattr(step, "_wrapped_by_lr_sched", False):
            return
        optimizer_ref = weakref.ref(self.optimizer)
        func = step.__func__

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            optimizer = optimizer_ref()
            optimizer._opt_called = True
            return func.__get__(optimizer, optimizer.__class__)(*args, **kwargs)

        wrapper._wrapped_by_lr_sched = True
        self.optimizer.step = wrapper

    def _initial_step(self):
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self):
        """Every attribute except the optimizer (so it can be saved next to the optimizer's)."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict):
        """Restore the attributes ``state_dict()`` returned (``torch/optim/lr_scheduler.py``)."""
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The learning rates the last ``step()`` set, one per parameter group."""
        return self._last_lr

    def get_lr(self):
        """The learning rates of the current ``last_epoch``, one per parameter group; each
        scheduler defines it, ``step()`` calls it (``torch/optim/lr_scheduler.py``)."""
        raise NotImplementedError

    def step(self, epoch=None):
        """Advance ``last_epoch`` by one and write the new rates into the optimizer's
        ``param_groups``; call it after ``optimizer.step()`` (``torch/optim/lr_scheduler.py``)."""
        if self._step_count == 1:
            if not getattr(self.optimizer.step, "_wrapped_by_lr_sched", False):
                warnings.warn("Seems like `optimizer.step()` has been overridden after learning "
                              "rate scheduler initialization. Please, make sure to call "
                              "`optimizer.step()` before `lr_scheduler.step()`. See more details at "
                              "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                              UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
                              "In PyTorch 1.1.0 and later, you should call them in the opposite "
                              "order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to "
                              "do this will result in PyTorch skipping the first value of the "
                              "learning rate schedule. See more details at "
                              "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                              UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        """Move to the next epoch (or to ``epoch``, by the closed form where there is one) and
        write the rates; ``SequentialLR`` calls it directly at a milestone, without warnings."""
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                values = (self._get_closed_form_lr() if hasattr(self, "_get_closed_form_lr")
                          else self.get_lr())
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]


class StepLR(LRScheduler):
    """Multiply every group's learning rate by ``gamma`` every ``step_size`` epochs.

    With ``lr=0.05, step_size=30, gamma=0.1``: 0.05 for epochs 0-29, 0.005 for
    30-59, 0.0005 for 60-89, ...
    """

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return [group["lr"] for group in self.optimizer.param_groups]
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size)
                for base_lr in self.base_lrs]


def _warn_get_lr_called_within_step(scheduler):
    if not scheduler._get_lr_called_within_step:
        warnings.warn("To get the last learning rate computed by the scheduler, please use "
                      "`get_last_lr()`.", UserWarning, stacklevel=3)


def _lambdas_per_group(optimizer, lr_lambda):
    """One function for every parameter group, or the list given with one per group."""
    if not isinstance(lr_lambda, (list, tuple)):
        return [lr_lambda] * len(optimizer.param_groups)
    if len(lr_lambda) != len(optimizer.param_groups):
        raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}")
    return list(lr_lambda)


def _current_lrs(optimizer):
    return [group["lr"] for group in optimizer.param_groups]


class LambdaLR(LRScheduler):
    """``lr = initial_lr * lr_lambda(epoch)``, one function for all groups or one per group."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas_per_group(optimizer, lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self):
        """Everything but the optimizer; functions are not saved, callable objects' ``__dict__`` is."""
        state = {key: value for key, value in self.__dict__.items()
                 if key not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        """Restore the state; the ``lr_lambda`` functions stay those given to the constructor (a
        callable object gets its saved attributes back), as in ``torch/optim/lr_scheduler.py``."""
        lr_lambdas = state_dict.pop("lr_lambdas")
        self.__dict__.update(state_dict)
        state_dict["lr_lambdas"] = lr_lambdas  # leave the caller's dict as it was
        for fn, saved in zip(self.lr_lambdas, lr_lambdas):
            if saved is not None:
                fn.__dict__.update(saved)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        return [base_lr * lmbda(self.last_epoch) for lmbda, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class MultiStepLR(LRScheduler):
    """Multiply the rate by ``gamma`` at each epoch listed in ``milestones``."""

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        if self.last_epoch not in self.milestones:
            return _current_lrs(self.optimizer)
        return [group["lr"] * self.gamma ** self.milestones[self.last_epoch]
                for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        milestones = sorted(self.milestones.elements())
        return [base_lr * self.gamma ** bisect_right(milestones, self.last_epoch)
                for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the rate by ``gamma`` every epoch."""

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        if self._is_initial:  # resuming from a checkpoint: do not step ahead of itself
            return _current_lrs(self.optimizer)
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** self.last_epoch for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Follow half a cosine from the initial rate down to ``eta_min`` over ``T_max`` epochs
    (then back up: the schedule is periodic).  Computed recursively, as PyTorch does, so that
    changes made to ``group['lr']`` by other code carry through."""

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        groups = self.optimizer.param_groups
        if self._is_initial:
            return _current_lrs(self.optimizer)
        if self._step_count == 1 and self.last_epoch > 0:
            return [self.eta_min + (base_lr - self.eta_min)
                    * (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                    for base_lr in self.base_lrs]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [group["lr"] + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                    for base_lr, group in zip(self.base_lrs, groups)]
        return [(1 + math.cos(math.pi * self.last_epoch / self.T_max))
                / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
                * (group["lr"] - self.eta_min) + self.eta_min for group in groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base_lr - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base_lr in self.base_lrs]


class ReduceLROnPlateau(LRScheduler):
    """Multiply the rate by ``factor`` once a metric (``step(val_loss)``) has stopped improving
    for ``patience`` epochs; then wait ``cooldown`` epochs before watching again."""

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got {len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _current_lrs(self.optimizer)
        self._init_is_better(mode=mode, threshold=threshold, threshold_mode=threshold_mode)
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def step(self, metrics, epoch=None):
        """Record this epoch's ``metrics`` (e.g. the validation loss) and reduce the rate if due."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0  # bad epochs during the cooldown do not count
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _current_lrs(self.optimizer)

    def _reduce_lr(self):
        if len(self.optimizer.param_groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(self.optimizer.param_groups)}) "
                    f"differs from when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), "
                    "usually due to a new param group being added to the optimizer. Please modify "
                    "the `min_lrs` field to match the length of the `optimizer` param groups.")
            self.min_lrs = [self.default_min_lr] * len(self.optimizer.param_groups)
        for i, group in enumerate(self.optimizer.param_groups):
            old_lr = float(group["lr"])
            new_lr = max(old_lr * self.factor, self.min_lrs[i])
            if old_lr - new_lr > self.eps:
                group["lr"] = new_lr

    @property
    def in_cooldown(self):
        """True while the cooldown after a reduction lasts (``torch/optim/lr_scheduler.py``)."""
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min" and self.threshold_mode == "abs":
            return a < best - self.threshold
        if self.mode == "max" and self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in {"min", "max"}:
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in {"rel", "abs"}:
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode = mode
        self.threshold = threshold
        self.threshold_mode = threshold_mode

    def load_state_dict(self, state_dict):
        """Restore the state and the comparison ``mode`` and threshold it implies
        (``torch/optim/lr_scheduler.py``)."""
        self.__dict__.update(state_dict)
        self._init_is_better(mode=self.mode, threshold=self.threshold,
                             threshold_mode=self.threshold_mode)


def _format_param(name, optimizer, param):
    """One value per parameter group (a list must already have one)."""
    if isinstance(param, (list, tuple)):
        if len(param) != len(optimizer.param_groups):
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. {name} has "
                             f"{len(param)} values, param_groups has {len(optimizer.param_groups)}.")
        return list(param)
    return [param] * len(optimizer.param_groups)


class OneCycleLR(LRScheduler):
    """The 1cycle policy: warm the rate up from ``max_lr / div_factor`` to ``max_lr`` over
    ``pct_start`` of the steps, then anneal it to ``initial_lr / final_div_factor``; momentum
    (or Adam's beta1) cycles the opposite way.  Step it after every batch."""

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85,
                 max_momentum=0.95, div_factor=25.0, final_div_factor=1e4, three_phase=False,
                 last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError(f"Expected positive integer steps_per_epoch, but got {steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        warm_end = float(pct_start * self.total_steps) - 1
        if three_phase:
            self._schedule_phases = [
                {"end_step": warm_end, "start_lr": "initial_lr", "end_lr": "max_lr",
                 "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": float(2 * pct_start * self.total_steps) - 2, "start_lr": "max_lr",
                 "end_lr": "initial_lr", "start_momentum": "base_momentum",
                 "end_momentum": "max_momentum"},
                {"end_step": self.total_steps - 1, "start_lr": "initial_lr", "end_lr": "min_lr",
                 "start_momentum": "max_momentum", "end_momentum": "max_momentum"}]
        else:
            self._schedule_phases = [
                {"end_step": warm_end, "start_lr": "initial_lr", "end_lr": "max_lr",
                 "start_momentum": "max_momentum", "end_momentum": "base_momentum"},
                {"end_step": self.total_steps - 1, "start_lr": "max_lr", "end_lr": "min_lr",
                 "start_momentum": "base_momentum", "end_momentum": "max_momentum"}]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ["cos", "linear"]:
            raise ValueError(f"anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        max_lrs = _format_param("max_lr", self.optimizer, max_lr)
        if last_epoch == -1:
            for max_lr_, group in zip(max_lrs, self.optimizer.param_groups):
                group["initial_lr"] = max_lr_ / div_factor
                group["max_lr"] = max_lr_
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if self.cycle_momentum:
            if "momentum" not in self.optimizer.defaults and "betas" not in self.optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` "
                                 "option enabled")
            self.use_beta1 = "betas" in self.optimizer.defaults
            max_momentums = _format_param("max_momentum", optimizer, max_momentum)
            base_momentums = _format_param("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for high, low, group in zip(max_momentums, base_momentums, optimizer.param_groups):
                    if self.use_beta1:
                        group["betas"] = (high, *group["betas"][1:])
                    else:
                        group["momentum"] = high
                    group["max_momentum"] = high
                    group["base_momentum"] = low
        super().__init__(optimizer, last_epoch)

    def _anneal_func(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        lrs = []
        step_num = self.last_epoch
        if step_num > self.total_steps:
            raise ValueError(f"Tried to step {step_num} times. The specified number of total steps "
                             f"is {self.total_steps}")
        for group in self.optimizer.param_groups:
            start_step = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end_step = phase["end_step"]
                if step_num <= end_step or i == len(self._schedule_phases) - 1:
                    pct = (step_num - start_step) / (end_step - start_step)
                    computed_lr = self._anneal_func(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    if self.cycle_momentum:
                        computed_momentum = self._anneal_func(
                            group[phase["start_momentum"]], group[phase["end_momentum"]], pct)
                    break
                start_step = phase["end_step"]
            lrs.append(computed_lr)
            if self.cycle_momentum:
                if self.use_beta1:
                    group["betas"] = (computed_momentum, *group["betas"][1:])
                else:
                    group["momentum"] = computed_momentum
        return lrs


class MultiplicativeLR(LRScheduler):
    """Multiply each group's current rate by ``lr_lambda(epoch)`` every epoch (recursive, unlike
    ``LambdaLR``, which scales the initial rate) (``torch/optim/lr_scheduler.py``)."""

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        self.lr_lambdas = _lambdas_per_group(optimizer, lr_lambda)
        for fn in self.lr_lambdas:
            if not callable(fn):
                raise TypeError(f"lr_lambda should be a function, but got {type(fn).__name__}")
        super().__init__(optimizer, last_epoch)

    state_dict = LambdaLR.state_dict
    load_state_dict = LambdaLR.load_state_dict

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        if self._is_initial:
            return _current_lrs(self.optimizer)
        return [group["lr"] * lmbda(self.last_epoch)
                for lmbda, group in zip(self.lr_lambdas, self.optimizer.param_groups)]


class ConstantLR(LRScheduler):
    """Scale the rate by ``factor`` for the first ``total_iters`` epochs, then restore it
    (``torch/optim/lr_scheduler.py``)."""

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor = factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return _current_lrs(self.optimizer)
        return [group["lr"] * (1.0 / self.factor) for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * (self.factor + (self.last_epoch >= self.total_iters) * (1 - self.factor))
                for base_lr in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale the rate by a factor going linearly from ``start_factor`` to ``end_factor`` over
    ``total_iters`` epochs: the usual warmup (``torch/optim/lr_scheduler.py``).  Recursive, as
    PyTorch computes it: each epoch multiplies the current rate by the ratio of two factors."""

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 and "
                             "less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _current_lrs(self.optimizer)
        return [group["lr"] * (1.0 + (self.end_factor - self.start_factor)
                               / (self.total_iters * self.start_factor
                                  + (self.last_epoch - 1) * (self.end_factor - self.start_factor)))
                for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * (self.start_factor + (self.end_factor - self.start_factor)
                           * min(self.total_iters, self.last_epoch) / self.total_iters)
                for base_lr in self.base_lrs]


def _check_schedulers(owner, optimizer, schedulers):
    """The checks ``SequentialLR`` and ``ChainedScheduler`` make of the schedulers they drive."""
    for index, scheduler in enumerate(schedulers):
        if not hasattr(scheduler, "optimizer"):
            raise TypeError(f"{type(owner).__name__} at index {index} should have `optimizer` as "
                            "its attribute.")
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(f"{type(owner).__name__} does not support `ReduceLROnPlateau` "
                             "scheduler as it requires additional kwargs to be specified when "
                             f"calling `step`, but got one at index {index} in the given "
                             "schedulers sequence.")
        if optimizer != scheduler.optimizer:
            raise ValueError(f"{type(owner).__name__} expects all schedulers to belong to the same "
                             f"optimizer, but got scheduler {type(scheduler).__name__} at index "
                             f"{index} has {scheduler.optimizer}, which is different from "
                             f"{type(optimizer).__name__}.")


def _state_dict_with_schedulers(scheduler):
    """Everything but the optimizer, with the driven schedulers saved as their state_dicts."""
    state = {key: value for key, value in scheduler.__dict__.items()
             if key not in ("optimizer", "_schedulers")}
    state["_schedulers"] = [s.state_dict() for s in scheduler._schedulers]
    return state


def _load_state_dict_with_schedulers(scheduler, state_dict):
    schedulers = state_dict.pop("_schedulers")
    scheduler.__dict__.update(state_dict)
    state_dict["_schedulers"] = schedulers  # leave the caller's dict as it was
    for s, saved in zip(scheduler._schedulers, schedulers):
        s.load_state_dict(saved)


class SequentialLR(LRScheduler):
    """Run ``schedulers[0]`` until ``milestones[0]``, then ``schedulers[1]`` (restarted at its
    epoch 0), and so on: e.g. ``LinearLR`` warmup followed by ``CosineAnnealingLR``
    (``torch/optim/lr_scheduler.py``)."""

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler, but got no "
                             "scheduler.")
        _check_schedulers(self, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be one "
                             "more than the number of milestone points, but got number of "
                             f"schedulers {len(schedulers)} and the number of milestones to be "
                             f"equal to {len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # The schedulers' constructors each took a step: start again from the initial rates.
        for group in self.optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self.recursive_undo()
        idx = bisect_right(self._milestones, 0)
        self._schedulers[idx]._initial_step()
        self._last_lr = schedulers[idx].get_last_lr()

    def recursive_undo(self, sched=None):
        """Take back the initial step each (nested) scheduler made in its constructor
        (``torch/optim/lr_scheduler.py``)."""
        scheds = self if sched is None else sched
        if hasattr(scheds, "_schedulers"):
            for s in scheds._schedulers:
                self.recursive_undo(s)
        elif hasattr(scheds, "last_epoch"):
            scheds.last_epoch -= 1

    def step(self):
        """Step the scheduler of the current stage; at a milestone, start the next one at its
        epoch 0 (by its closed form where it has one)."""
        self.last_epoch += 1
        idx = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[idx]
        if idx > 0 and self._milestones[idx - 1] == self.last_epoch:
            scheduler._update_lr(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    def state_dict(self):
        """Everything but the optimizer; the schedulers as their own state_dicts."""
        return _state_dict_with_schedulers(self)

    def load_state_dict(self, state_dict):
        """Restore the state and each scheduler's (``torch/optim/lr_scheduler.py``)."""
        _load_state_dict_with_schedulers(self, state_dict)


class PolynomialLR(LRScheduler):
    """Decay the rate to 0 over ``total_iters`` epochs as ``(1 - epoch / total_iters) ** power``
    (``torch/optim/lr_scheduler.py``)."""

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters = total_iters
        self.power = power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        if self._is_initial or self.last_epoch > self.total_iters:
            return _current_lrs(self.optimizer)
        decay_factor = ((1.0 - self.last_epoch / self.total_iters)
                        / (1.0 - (self.last_epoch - 1) / self.total_iters)) ** self.power
        return [group["lr"] * decay_factor for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * (1.0 - min(self.total_iters, self.last_epoch) / self.total_iters)
                ** self.power for base_lr in self.base_lrs]


class ChainedScheduler(LRScheduler):
    """Step several schedulers together each epoch, so their factors multiply
    (``torch/optim/lr_scheduler.py``)."""

    def __init__(self, schedulers, optimizer=None):
        if len(schedulers) < 1:
            raise ValueError(f"{type(self).__name__} expects at least one scheduler to be chained, "
                             "but got no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(self, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _current_lrs(self._schedulers[-1].optimizer)

    def step(self):
        """Step every scheduler, in order."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = _current_lrs(self._schedulers[-1].optimizer)

    def state_dict(self):
        """Everything but the optimizer; the schedulers as their own state_dicts."""
        return _state_dict_with_schedulers(self)

    def load_state_dict(self, state_dict):
        """Restore the state and each scheduler's (``torch/optim/lr_scheduler.py``)."""
        _load_state_dict_with_schedulers(self, state_dict)


class CyclicLR(LRScheduler):
    """Cycle the rate between ``base_lr`` and ``max_lr`` (triangle waves, halved each cycle with
    ``'triangular2'``, damped by ``gamma ** iteration`` with ``'exp_range'``); momentum (or
    Adam's beta1) cycles the opposite way.  Step it after every batch
    (``torch/optim/lr_scheduler.py``)."""

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode="triangular", gamma=1.0, scale_fn=None, scale_mode="cycle",
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = _format_param("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = _format_param("max_lr", optimizer, max_lr)
        step_size_up = float(step_size_up)
        step_size_down = float(step_size_down) if step_size_down is not None else step_size_up
        self.total_size = step_size_up + step_size_down
        self.step_ratio = step_size_up / self.total_size
        if mode not in ["triangular", "triangular2", "exp_range"] and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode = mode
        self.gamma = gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with `cycle_momentum` "
                                 "option enabled")
            self.use_beta1 = "betas" in self.optimizer.defaults
            self.base_momentums = _format_param("base_momentum", optimizer, base_momentum)
            self.max_momentums = _format_param("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for high, low, group in zip(self.max_momentums, self.base_momentums,
                                            optimizer.param_groups):
                    if self.use_beta1:
                        group["betas"] = (high, *group["betas"][1:])
                    else:
                        group["momentum"] = high
                    group["max_momentum"] = high
                    group["base_momentum"] = low
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self):
        if self._scale_fn_custom is not None:
            return
        if self.mode == "triangular":
            self._scale_fn_ref = self._triangular_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "triangular2":
            self._scale_fn_ref = self._triangular2_scale_fn
            self.scale_mode = "cycle"
        elif self.mode == "exp_range":
            self._scale_fn_ref = functools.partial(self._exp_range_scale_fn, self.gamma)
            self.scale_mode = "iterations"

    def scale_fn(self, x):
        """The amplitude factor at cycle (or iteration) ``x``: the given ``scale_fn`` or the
        mode's (``torch/optim/lr_scheduler.py``)."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        return self._scale_fn_ref(x)

    @staticmethod
    def _triangular_scale_fn(x):
        return 1.0

    @staticmethod
    def _triangular2_scale_fn(x):
        return 1 / (2.0 ** (x - 1))

    @staticmethod
    def _exp_range_scale_fn(gamma, x):
        return gamma ** x

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            scale_factor = x / self.step_ratio
        else:
            scale_factor = (x - 1) / (self.step_ratio - 1)
        position = cycle if self.scale_mode == "cycle" else self.last_epoch
        # scale_fn is called once per group and value, as PyTorch does (a callable may count)
        lrs = [base_lr + (max_lr - base_lr) * scale_factor * self.scale_fn(position)
               for base_lr, max_lr in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            momentums = [max_momentum
                         - (max_momentum - base_momentum) * scale_factor * self.scale_fn(position)
                         for base_momentum, max_momentum in zip(self.base_momentums,
                                                                self.max_momentums)]
            for group, momentum in zip(self.optimizer.param_groups, momentums):
                if self.use_beta1:
                    group["betas"] = (momentum, *group["betas"][1:])
                else:
                    group["momentum"] = momentum
        return lrs

    def state_dict(self):
        """Everything but the optimizer and the scale function (a callable object's
        ``__dict__`` is kept), as in ``torch/optim/lr_scheduler.py``."""
        state = super().state_dict()
        state.pop("_scale_fn_ref", None)
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = None
        if fn is not None and not isinstance(fn, types.FunctionType):
            state["_scale_fn_custom"] = fn.__dict__.copy()
        return state

    def load_state_dict(self, state_dict):
        """Restore the state; the scale function stays the one given to the constructor."""
        fn = state_dict.pop("_scale_fn_custom")
        super().load_state_dict(state_dict)
        if fn is not None:
            self._scale_fn_custom.__dict__.update(fn)
        self._init_scale_fn()


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing from the initial rate to ``eta_min`` over ``T_0`` epochs, then a restart;
    each period ``T_mult`` times longer than the last (SGDR).  ``step(epoch)`` takes fractional
    epochs, for stepping after every batch (``torch/optim/lr_scheduler.py``)."""

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type "
                             f"{type(eta_min)}")
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        _warn_get_lr_called_within_step(self)
        return [self.eta_min + (base_lr - self.eta_min)
                * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2 for base_lr in self.base_lrs]

    def step(self, epoch=None):
        """Advance one epoch, or jump to ``epoch`` (a float for a fraction of an epoch).  Unlike
        the other schedulers it warns about neither the call order nor ``epoch``, as in PyTorch."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur % self.T_i
                self.T_i = self.T_i * self.T_mult
        else:
            if epoch < 0:
                raise ValueError(f"Expected non-negative epoch, but got {epoch}")
            if epoch >= self.T_0:
                if self.T_mult == 1:
                    self.T_cur = epoch % self.T_0
                else:
                    n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                    self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                    self.T_i = self.T_0 * self.T_mult ** n
            else:
                self.T_i = self.T_0
                self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = _current_lrs(self.optimizer)


from .._namespace import public_dir as _public_dir  # noqa: E402

__dir__ = _public_dir(globals(), __all__)
