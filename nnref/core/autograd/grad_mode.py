"""``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``: the switch that decides whether ops record a graph.

Mirrors ``torch/autograd/grad_mode.py`` and ``torch/utils/_contextlib.py``.  Each
works as a context manager and as a decorator.  A decorated *generator*
function runs every step of its body (up to each ``yield``) inside the mode,
and the caller's code between steps outside it, as PyTorch's
``_wrap_generator`` does.  Like PyTorch, a decorated ``async def`` gets no such
treatment: the mode is on only while the coroutine object is created.
"""
import functools
import inspect
import sys
import warnings

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


def _wrap_generator(make_context, func):
    """Run each step of the generator ``func`` inside a fresh context (``_wrap_generator``)."""
    @functools.wraps(func)
    def generator_context(*args, **kwargs):
        gen = func(*args, **kwargs)
        try:
            with make_context():
                response = gen.send(None)
            while True:
                try:
                    request = yield response
                except GeneratorExit:
                    with make_context():
                        gen.close()
                    raise
                except BaseException:
                    with make_context():
                        response = gen.throw(*sys.exc_info())
                else:
                    with make_context():
                        response = gen.send(request)
        except StopIteration as stop:
            return stop.value
    return generator_context


def _context_decorator(make_context, func):
    if inspect.isclass(func):
        raise RuntimeError(
            "Cannot decorate classes; it is ambiguous whether or not only the constructor or all "
            "methods should have the context manager applied; additionally, decorating a class at "
            "definition-site will prevent use of the identifier as a conventional type.  To "
            "specify which methods to decorate, decorate each of them individually.")
    if inspect.isgeneratorfunction(func):
        return _wrap_generator(make_context, func)

    @functools.wraps(func)
    def decorate_context(*args, **kwargs):
        with make_context():
            return func(*args, **kwargs)
    return decorate_context


class _DecoratorContextManager(metaclass=TorchNamed):
    """A context manager that also decorates functions and generator functions."""

    def __call__(self, orig_func):
        if inspect.isclass(orig_func):
            warnings.warn(
                "Decorating classes is deprecated and will be disabled in future versions. You "
                "should only decorate functions or methods. To preserve the current behavior of "
                "class decoration, you can directly decorate the `__init__` method and nothing "
                "else.", FutureWarning, stacklevel=2)
            func = lambda *args, **kwargs: orig_func(*args, **kwargs)  # noqa: E731
        else:
            func = orig_func
        return _context_decorator(self.clone, func)

    def clone(self):
        """A fresh context of the same kind, for each call of a decorated function."""
        return self.__class__()


class _NoParamDecoratorContextManager(_DecoratorContextManager):
    """Also usable as a bare decorator, ``@no_grad`` without parentheses (as in PyTorch 2.x)."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecoratorContextManager):
    """Operations inside produce results with ``requires_grad=False`` and no ``grad_fn``."""

    def __enter__(self):
        self.prev = _GradState.enabled
        _GradState.enabled = False

    def __exit__(self, *exc):
        _GradState.enabled = self.prev
        return False


class enable_grad(_NoParamDecoratorContextManager):
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

    Works as a context manager and as a decorator, with or without parentheses.
    """

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # @inference_mode without parentheses

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
