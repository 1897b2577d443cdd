"""``nnref.autograd.grad_mode`` (``torch/autograd/grad_mode.py``): the switches that decide
whether ops record a graph.  They live in the teaching core, ``nnref/core/autograd/grad_mode.py``;
here are PyTorch's decorator forms beyond a plain function (``torch/utils/_contextlib.py``): a
generator function, ``@no_grad`` and ``@inference_mode`` without parentheses, and a class
(deprecated), attached to the core's classes.
"""
import functools
import inspect
import sys
import warnings

from ..core.autograd.grad_mode import (_DecoratorContextManager, enable_grad, inference_mode,
                                       is_grad_enabled, is_inference_mode_enabled, no_grad,
                                       set_grad_enabled)

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled", "inference_mode",
           "is_inference_mode_enabled"]


def _wrap_generator(make_context, func):
    """Run each step of the generator ``func`` inside a fresh context (``_wrap_generator``).

    Its body runs in pieces, and the caller's code between them must run outside the mode, so
    every resumption (``send``, ``throw``, ``close``) gets its own context.  As in PyTorch, a
    decorated ``async def`` gets no such treatment: the mode is on only while the coroutine
    object is created.
    """
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


_decorate_function = _DecoratorContextManager.__call__


def _decorate(self, orig_func):
    """PyTorch's ``_DecoratorContextManager.__call__``: a class is still accepted, with a
    ``FutureWarning``, by wrapping its constructor; a generator function runs each step inside
    the mode; anything else goes to the core's plain decorator."""
    if inspect.isclass(orig_func):
        warnings.warn(
            "Decorating classes is deprecated and will be disabled in future versions. You "
            "should only decorate functions or methods. To preserve the current behavior of "
            "class decoration, you can directly decorate the `__init__` method and nothing "
            "else.", FutureWarning, stacklevel=2)
        func = lambda *args, **kwargs: orig_func(*args, **kwargs)  # noqa: E731
    else:
        func = orig_func
    if inspect.isgeneratorfunction(func):
        return _wrap_generator(self.clone, func)
    return _decorate_function(self, func)


def _no_param_new(cls, orig_func=None):
    """``@no_grad`` without parentheses (``_NoParamDecoratorContextManager.__new__``)."""
    if orig_func is None:
        return object.__new__(cls)
    return cls()(orig_func)


def _inference_mode_new(cls, mode=True):
    """``@inference_mode`` without parentheses (``inference_mode.__new__``)."""
    if isinstance(mode, bool):
        return object.__new__(cls)
    return cls()(mode)


_DecoratorContextManager.__call__ = _decorate
no_grad.__new__ = enable_grad.__new__ = staticmethod(_no_param_new)
inference_mode.__new__ = staticmethod(_inference_mode_new)
