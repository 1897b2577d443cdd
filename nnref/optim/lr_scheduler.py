"""Learning-rate schedulers (``torch/optim/lr_scheduler.py``): the ``LRScheduler`` base and ``StepLR``.

A scheduler rewrites ``group['lr']`` of its optimizer each time ``step()``
is called (once per epoch, after ``optimizer.step()``).  It remembers each
group's starting rate as ``group['initial_lr']`` and its position in
``last_epoch``; ``state_dict()`` is everything but the optimizer.
"""
import functools
import warnings
import weakref

from .optimizer import Optimizer

__all__ = ["LRScheduler", "StepLR"]


class LRScheduler:
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
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The learning rates the last ``step()`` set, one per parameter group."""
        return self._last_lr

    def get_lr(self):
        raise NotImplementedError

    def step(self, epoch=None):
        if self._step_count == 1:
            if not getattr(self.optimizer.step, "_wrapped_by_lr_sched", False):
                warnings.warn("Seems like `optimizer.step()` has been overridden after learning "
                              "rate scheduler initialization. Please, make sure to call "
                              "`optimizer.step()` before `lr_scheduler.step()`.", UserWarning,
                              stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn("Detected call of `lr_scheduler.step()` before `optimizer.step()`. "
                              "In PyTorch 1.1.0 and later, you should call them in the opposite "
                              "order: `optimizer.step()` before `lr_scheduler.step()`.  Failure to "
                              "do this will result in PyTorch skipping the first value of the "
                              "learning rate schedule.", UserWarning, stacklevel=2)
        self._step_count += 1
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                warnings.warn("The epoch parameter in `scheduler.step()` was not necessary and is "
                              "being deprecated where possible. Please use `scheduler.step()` to "
                              "step the scheduler.", UserWarning, stacklevel=2)
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
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please use "
                          "`get_last_lr()`.", UserWarning, stacklevel=2)
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return [group["lr"] for group in self.optimizer.param_groups]
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size)
                for base_lr in self.base_lrs]
