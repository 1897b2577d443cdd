"""``nnref.autograd``: reverse-mode differentiation (``torch/autograd/__init__.py``).

``backward`` accumulates gradients into leaves' ``.grad``; ``grad`` returns
them instead.  Both hand the real work to :func:`engine.run_backward`.
"""
import warnings

from .._device import array_module_of
from . import graph
from .engine import run_backward
from .function import Function, FunctionCtx, once_differentiable
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                        no_grad, set_grad_enabled)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck
from .variable import Variable
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from . import profiler  # torch.autograd.profiler.profile and record_function

__all__ = ["Variable", "Function", "detect_anomaly", "set_detect_anomaly", "backward", "grad", "gradcheck", "gradgradcheck", "no_grad",
           "enable_grad", "set_grad_enabled", "inference_mode", "anomaly_mode", "function", "grad_mode", "graph",
           "variable", "functional"]


def _as_list(x):
    if x is None:
        return None
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _root_gradients(outputs, grad_outputs):
    """The gradient each root starts with: ``1`` for scalars, else it must be given."""
    from .._tensor import Tensor  # _tensor imports autograd
    grads = _as_list(grad_outputs) or [None] * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"grad can be implicitly created only for scalar outputs: got "
                           f"{len(grads)} gradients for {len(outputs)} outputs")
    result = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if not out.requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a "
                               "grad_fn. Did you forget requires_grad=True on an input, or compute "
                               "it under no_grad()?")
        if g is None:
            if out._data.size != 1:
                raise RuntimeError(
                    "grad can be implicitly created only for scalar outputs; this output has shape "
                    f"{list(out.shape)}. Pass gradient= (a tensor of that shape, e.g. "
                    "torch.ones_like(out)) or reduce it first (out.sum()).")
            g = Tensor._make(array_module_of(out._data).ones_like(out._data), out._device)
        elif g._data.shape != out._data.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {g.shape} and "
                               f"output[{i}] has a shape of {out.shape}.")
        result.append(g)
    return result


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate the gradients of ``tensors`` into the ``.grad`` of the leaves (or of ``inputs``)."""
    outputs = _as_list(tensors)
    roots = _root_gradients(outputs, grad_tensors)
    if retain_graph is None:
        retain_graph = create_graph
    if create_graph:
        warnings.warn(
            "Using backward() with create_graph=True will create a reference cycle between the "
            "parameter and its gradient which can cause a memory leak. We recommend using "
            "autograd.grad when creating the graph to avoid this. If you have to use this function, "
            "make sure to reset the .grad fields of your parameters to None after use to break the "
            "cycle and avoid the leak.", UserWarning, stacklevel=2)
    inputs = _as_list(inputs)
    if inputs is not None and not inputs:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    for tensor in inputs or ():
        if tensor.grad_fn is not None:
            tensor.retain_grad()  # a non-leaf input gets its .grad the way retain_grad gives it
    run_backward(outputs, roots, retain_graph, create_graph, inputs=inputs, accumulate_grad=True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, materialize_grads=False):
    """d(outputs)/d(inputs), returned as a tuple; ``.grad`` fields are left alone."""
    outputs, inputs = _as_list(outputs), _as_list(inputs)
    for i, t in enumerate(inputs):
        if not t.requires_grad:
            raise RuntimeError(f"One of the differentiated Tensors (input {i}) does not require grad")
    roots = _root_gradients(outputs, grad_outputs)
    if retain_graph is None:
        retain_graph = create_graph
    allow_unused = materialize_grads if allow_unused is None else allow_unused
    captured = run_backward(outputs, roots, retain_graph, create_graph, inputs=inputs,
                            accumulate_grad=False)
    results = []
    for i, (t, g) in enumerate(zip(inputs, captured)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(
                    f"One of the differentiated Tensors (input {i}) appears to not have been used "
                    "in the graph. Set allow_unused=True if this is the desired behavior.")
            if materialize_grads:
                from .._creation import zeros_like
                g = zeros_like(t)
        results.append(g)
    return tuple(results)


from .._namespace import public_dir as _public_dir  # noqa: E402

__dir__ = _public_dir(globals(), __all__)

from . import functional  # noqa: E402 - torch.autograd.functional, built on grad above
