"""``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``: the switch that decides whether ops record a graph.

Mirrors ``torch/autograd/grad_mode.py``.  Each works as a context manager and as a decorator.
"""
import functools

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled"]


class _GradState:
    enabled = True
    inference = False


def is_grad_enabled():
    """True when new operations record backward nodes."""
    return _GradState.enabled


class _GradModeContext:
    _target = True

    def __enter__(self):
        self._previous = _GradState.enabled
        _GradState.enabled = self._target

    def __exit__(self, *exc):
        _GradState.enabled = self._previous
        return False

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return func(*args, **kwargs)
        return wrapper


class _NoParamDecorator(_GradModeContext):
    """Also usable as a bare decorator, ``@no_grad`` without parentheses (as in PyTorch 2.x)."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecorator):
    """Operations inside produce results with ``requires_grad=False`` and no ``grad_fn``."""
    _target = False


class enable_grad(_NoParamDecorator):
    """Turn recording back on inside a ``no_grad`` block."""
    _target = True


class set_grad_enabled(_GradModeContext):
    """``set_grad_enabled(False)`` acts at once (like PyTorch) and also works as a context manager."""

    def __init__(self, mode):
        self._previous = _GradState.enabled
        self._target = bool(mode)
        _GradState.enabled = self._target

    def __enter__(self):
        _GradState.enabled = self._target

    def __call__(self, func):
        mode = self._target
        _GradState.enabled = self._previous

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with set_grad_enabled(mode):
                return func(*args, **kwargs)
        return wrapper


def is_inference_mode_enabled():
    """True inside ``inference_mode()``."""
    return _GradState.inference


class inference_mode:
    """``no_grad`` for inference: ops inside record nothing; ``inference_mode(False)`` records again.

    Works as a context manager and as a decorator, with or without parentheses.  PyTorch
    also makes the tensors created inside *inference tensors*, which autograd later refuses
    to save for backward (a RuntimeError) and which cannot be changed in place outside the
    mode; nnref does not create inference tensors, so it accepts such code where PyTorch
    would raise.
    """

    def __new__(cls, mode=True):
        if callable(mode):  # @inference_mode without parentheses
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode=True):
        self.mode = bool(mode)

    def __enter__(self):
        self._previous = _GradState.enabled, _GradState.inference
        _GradState.enabled, _GradState.inference = not self.mode, self.mode

    def __exit__(self, *exc):
        _GradState.enabled, _GradState.inference = self._previous
        return False

    def __call__(self, func):
        mode = self.mode

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with inference_mode(mode):
                return func(*args, **kwargs)
        return wrapper
