"""``nnref.compile`` and ``nnref.compiler``: PyTorch's compiler entry points, run eagerly.

Mirrors ``torch.compile`` (``torch/__init__.py``), ``OptimizedModule``
(``torch/_dynamo/eval_frame.py``) and ``torch.compiler`` (``torch/compiler/__init__.py``).
PyTorch's compiler captures Python bytecode into a graph and generates fused kernels; the
results are the eager results (up to float rounding of the fused kernels).  nnref has no
graph capture, so a compiled module or function runs eagerly, and what a program can see
of the compiler is PyTorch's: ``compile(model)`` returns an ``OptimizedModule`` whose only
child is ``_orig_mod`` (so its ``state_dict`` keys start with ``_orig_mod.``), attribute
reads and writes go through to the model, and bad options raise PyTorch's errors.  A custom
backend (a callable that would receive the captured graph) cannot be honoured and is refused.
"""
import functools

from .nn.modules.module import Module

__all__ = ["compile", "OptimizedModule", "is_compiling", "is_dynamo_compiling", "reset", "disable"]

_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")
# The names ``torch._dynamo.list_backends()`` (plus its debug backends) accepts.
_BACKENDS = ("inductor", "eager", "aot_eager", "aot_eager_decomp_partition", "cudagraphs", "openxla",
             "tvm", "onnxrt")


class InvalidBackend(RuntimeError):
    """A backend name the compiler does not know (``torch._dynamo.exc.InvalidBackend``)."""


class OptimizedModule(Module):
    """What ``compile(module)`` returns: ``module`` as its child ``_orig_mod``, called through it
    (``torch._dynamo.eval_frame.OptimizedModule``); here the call runs eagerly."""

    _opt_mod_attributes = {"_orig_mod", "forward", "__dict__", "_super_module_initialized"}

    def __init__(self, mod):
        object.__setattr__(self, "_orig_mod", mod)
        self._super_module_initialized = False
        super().__init__()
        self._super_module_initialized = True
        self._orig_mod = mod  # registers the child: state_dict keys start with "_orig_mod."
        self.forward = mod.__call__  # the model's own hooks run inside, as in PyTorch

    def __len__(self):
        if hasattr(self._orig_mod, "__len__"):
            return len(self._orig_mod)
        raise TypeError(f"{type(self._orig_mod).__name__} does not support len()")

    @property
    def training(self):
        """The model's training flag: the wrapper has none of its own."""
        return self._orig_mod.training

    @training.setter
    def training(self, value):
        if self._super_module_initialized:
            self._orig_mod.training = value

    def __getattr__(self, name):
        if name == "_orig_mod":
            return self._modules["_orig_mod"]
        return getattr(self._orig_mod, name)

    def __setattr__(self, name, value):
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            return super().__setattr__(name, value)
        return setattr(self._orig_mod, name, value)

    def __delattr__(self, name):
        if hasattr(type(self), name) or name in OptimizedModule._opt_mod_attributes:
            return super().__delattr__(name)
        return delattr(self._orig_mod, name)

    def __dir__(self):
        own = self._orig_mod.__dir__()
        return own + [name for name in super().__dir__() if name not in own]


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None, options=None,
            disable=False):
    """``model`` (a module or a function) ready to be called as compiled, run eagerly by nnref
    (``torch.compile``, ``torch/__init__.py``).  ``compile(**options)`` is a decorator."""
    if model is None:
        return lambda fn: compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                  options=options, disable=disable)
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at "
                           "the same time.")
    if mode is not None and mode not in _MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_MODES)}")
    if callable(backend):
        raise NotImplementedError(
            "nnref.compile cannot call a custom backend: PyTorch hands it the FX graph that "
            "TorchDynamo captures from the bytecode, and nnref captures no graph (it runs the model "
            "eagerly). Use a named backend such as 'inductor' or 'eager', or call the model directly.")
    if backend not in _BACKENDS:
        raise InvalidBackend(f"Invalid backend: {backend!r}, see `torch._dynamo.list_backends()` for "
                           f"available backends.")
    if disable:
        return model
    _turn_off_distribution_validation()
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    if isinstance(model, Module):
        return OptimizedModule(model)

    @functools.wraps(model)
    def compiled(*args, **kwargs):
        return model(*args, **kwargs)
    return compiled


@functools.cache
def _turn_off_distribution_validation():
    """What TorchDynamo's ``TorchPatcher.patch`` does once per process, when the first
    compilation is set up (``torch/_dynamo/eval_frame.py``): distributions stop checking their
    arguments by default, so a program that compiles anything builds them as on PyTorch."""
    from .distributions import Distribution
    Distribution.set_default_validate_args(False)


def is_compiling():
    """False: nnref never traces a program (``torch.compiler.is_compiling``)."""
    return False


def is_dynamo_compiling():
    """False: nnref never traces a program (``torch.compiler.is_dynamo_compiling``)."""
    return False


def reset():
    """Clear the compiler's caches; nnref keeps none (``torch.compiler.reset``)."""


def disable(fn=None, recursive=True, *, reason=None):
    """Mark ``fn`` as not to be compiled (``torch.compiler.disable``); nnref compiles nothing, so
    ``fn`` is returned as it is (a decorator without ``fn``)."""
    if fn is None:
        return lambda f: f
    return fn
