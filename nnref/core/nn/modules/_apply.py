"""What ``Module`` does to its whole tree: convert every tensor, set the mode, reset gradients
(``torch/nn/modules/module.py``, the ``_apply``, ``to`` and ``train`` sections; chapters 08, 11).

Functions bound onto ``Module`` under PyTorch's names.  ``_apply(fn)`` is the one walk that
converts; the mirror (``nnref/nn/modules/module.py``) binds ``cuda``, ``half``, ... on it.
"""
from ..._dtype import dtype as _dtype_class
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ..parameter import Parameter
from .module import Module, bind

__seams__ = ("_parse_to",)


def _apply(self, fn, recurse=True):
    """Replace every parameter's and buffer's values by ``fn(tensor)``, children first.

    Parameters keep their identity (``param.data = ...``), so an optimizer built before
    ``model.double()`` still holds them; to or from ``'meta'`` they are new Parameters, as in
    PyTorch's ``compute_should_use_set_data``.  Buffers are simply replaced.
    """
    if recurse:
        for module in self.children():
            module._apply(fn)

    for key, param in self._parameters.items():
        if param is None:
            continue
        # Parameters are graph leaves: converting them must not be recorded.
        with no_grad():
            param_applied = fn(param)
        param_grad = param.grad
        in_place = param.is_meta == param_applied.is_meta
        if in_place:
            param.data = param_applied
            out_param = param
        else:
            out_param = Parameter(param_applied, param.requires_grad)
            self._parameters[key] = out_param
        if param_grad is not None:
            with no_grad():
                grad_applied = fn(param_grad)
            if in_place:
                param_grad.data = grad_applied
            else:
                out_param.grad = grad_applied.requires_grad_(param_grad.requires_grad)

    for key, buf in self._buffers.items():
        if buf is not None:
            self._buffers[key] = fn(buf)
    return self


def apply(self, fn):
    """Call ``fn(module)`` on every submodule (children first, post-order) and then on ``self``.

    The usual use is initialisation: ``model.apply(init_weights)``.
    """
    for module in self.children():
        module.apply(fn)
    fn(self)
    return self


def float(self):
    """Cast floating point parameters and buffers to float32."""
    return self._apply(lambda t: t.float() if t.is_floating_point() else t)


def to(self, *args, **kwargs):
    """Move and/or cast parameters and buffers: ``to(device)``, ``to(dtype)``, ``to(tensor)``, ...

    Only floating point tensors change dtype (``num_batches_tracked`` keeps its int64).
    """
    device, dtype, non_blocking = _parse_to(*args, **kwargs)
    if dtype is not None and not dtype.is_floating_point:
        raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got "
                        f"desired dtype={dtype}")

    def convert(t):
        return t.to(device=device, dtype=dtype if t.is_floating_point() else None,
                    non_blocking=non_blocking)

    return self._apply(convert)


def train(self, mode=True):
    """Set ``training`` on this module and every descendant (Dropout and BatchNorm read it)."""
    if not isinstance(mode, bool):
        raise ValueError("training mode is expected to be boolean")
    self.training = mode
    for module in self.children():
        module.train(mode)
    return self


def eval(self):
    """``train(False)``.  It does not turn off gradient recording; use ``no_grad`` for that."""
    return self.train(False)


def requires_grad_(self, requires_grad=True):
    """Set ``requires_grad`` on every parameter (freeze with ``False``)."""
    for p in self.parameters():
        p.requires_grad_(requires_grad)
    return self


def zero_grad(self, set_to_none=True):
    """Reset the gradients of every parameter: to ``None`` (default) or to zeros in place."""
    for p in self.parameters():
        if p.grad is not None:
            if set_to_none:
                p.grad = None
            else:
                if p.grad.grad_fn is not None:
                    p.grad.detach_()
                else:
                    p.grad.requires_grad_(False)
                p.grad.zero_()


# Seam: Module.to's (device, dtype, non_blocking); nnref/nn/modules/module.py puts PyTorch's parser.
def _parse_to(*args, device=None, dtype=None, non_blocking=False):
    for arg in args:
        if isinstance(arg, Tensor):
            device, dtype = arg.device, arg.dtype
        elif isinstance(arg, _dtype_class):
            dtype = arg
        else:
            device = arg
    return device, dtype, non_blocking


bind(Module, _apply=_apply, apply=apply, float=float, to=to, train=train, eval=eval,
     requires_grad_=requires_grad_, zero_grad=zero_grad)
