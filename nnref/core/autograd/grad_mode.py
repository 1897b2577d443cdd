"""The grad modes, which decide whether ops record a graph: ``no_grad``, ``enable_grad``, ...

Mirrors ``torch/autograd/grad_mode.py`` and ``torch/utils/_contextlib.py``: each is a context
manager and a function decorator; the mirror adds PyTorch's other decorator forms
(``nnref/autograd/grad_mode.py``).
"""
import functools

from .._naming import TorchNamed

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled"]


class _GradState:
    enabled = True
    inference = False


def is_grad_enabled():
    """True when new operations record backward nodes."""
    return _GradState.enabled


def is_inference_mode_enabled():
    """True inside ``inference_mode()``."""
    return _GradState.inference


class _DecoratorContextManager(metaclass=TorchNamed):
    """A context manager that also decorates functions."""

    def __call__(self, func):
        """``@no_grad()``: each call of ``func`` runs inside a fresh context (``clone``)."""
        @functools.wraps(func)
        def decorate_context(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return decorate_context

    def clone(self):
        """A fresh context of the same kind, for each call of a decorated function."""
        return self.__class__()


class no_grad(_DecoratorContextManager):
    """Operations inside produce results with ``requires_grad=False`` and no ``grad_fn``."""

    def __enter__(self):
        self.prev = _GradState.enabled
        _GradState.enabled = False

    def __exit__(self, *exc):
        _GradState.enabled = self.prev
        return False


class enable_grad(_DecoratorContextManager):
    """Turn recording back on inside a ``no_grad`` block."""

    def __enter__(self):
        self.prev = _GradState.enabled
        _GradState.enabled = True

    def __exit__(self, *exc):
        _GradState.enabled = self.prev
        return False


class set_grad_enabled(_DecoratorContextManager):
    """``set_grad_enabled(False)`` acts at once (like PyTorch) and also works as a context manager
    or a decorator (which restores the mode it found, so the decorated function alone has it)."""

    def __init__(self, mode):
        self.prev = _GradState.enabled
        self.mode = bool(mode)
        _GradState.enabled = self.mode

    def __call__(self, orig_func):
        _GradState.enabled = self.prev  # as a decorator it must not have changed the mode
        return super().__call__(orig_func)

    def __enter__(self):
        _GradState.enabled = self.mode

    def __exit__(self, *exc):
        _GradState.enabled = self.prev
        return False

    def clone(self):
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """``no_grad`` for inference: ops inside record nothing, and the tensors they make are
    *inference tensors* (``t.is_inference()``), which autograd refuses to save for backward and
    which cannot be changed in place outside the mode.  ``inference_mode(False)`` records again.
    """

    def __init__(self, mode=True):
        self.mode = mode

    def __enter__(self):
        self._previous = _GradState.enabled, _GradState.inference
        _GradState.enabled, _GradState.inference = not self.mode, self.mode

    def __exit__(self, *exc):
        _GradState.enabled, _GradState.inference = self._previous
        return False

    def clone(self):
        return self.__class__(self.mode)
