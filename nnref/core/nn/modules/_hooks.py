"""``Module``'s hooks: registering them on one module (``torch/nn/modules/module.py``, its
hook sections; chapter 09), bound onto ``Module`` under PyTorch's names.

Each ``register_*`` puts the hook in a dict ``Module.__init__`` made and returns a handle that
removes it; ``Module._call_impl`` runs them.
"""
from ...utils.hooks import RemovableHandle
from .module import Module, _global_backward_hooks, _global_backward_pre_hooks, bind


def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
    """Run ``hook(module, args)`` before ``forward``; a returned value replaces ``args``.

    ``with_kwargs=True``: ``hook(module, args, kwargs)``, which may return new ``(args, kwargs)``.
    """
    handle = RemovableHandle(self._forward_pre_hooks,
                             extra_dict=self._forward_pre_hooks_with_kwargs)
    self._forward_pre_hooks[handle.id] = hook
    if with_kwargs:
        self._forward_pre_hooks_with_kwargs[handle.id] = True
    if prepend:
        self._forward_pre_hooks.move_to_end(handle.id, last=False)
    return handle


def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
    """Run ``hook(module, args, output)`` after ``forward``; a returned value replaces the output.

    ``with_kwargs=True`` gives ``hook(module, args, kwargs, output)``;
    ``always_call=True`` runs the hook even when ``forward`` raised.
    """
    handle = RemovableHandle(self._forward_hooks, extra_dict=[
        self._forward_hooks_with_kwargs, self._forward_hooks_always_called])
    self._forward_hooks[handle.id] = hook
    if with_kwargs:
        self._forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        self._forward_hooks_always_called[handle.id] = True
    if prepend:
        self._forward_hooks.move_to_end(handle.id, last=False)
    return handle


def register_full_backward_pre_hook(self, hook, prepend=False):
    """Run ``hook(module, grad_output)`` when the gradients of the module's outputs are known.

    A returned tuple replaces ``grad_output`` for the rest of backward.
    """
    handle = RemovableHandle(self._backward_pre_hooks)
    self._backward_pre_hooks[handle.id] = hook
    if prepend:
        self._backward_pre_hooks.move_to_end(handle.id, last=False)
    return handle


def register_full_backward_hook(self, hook, prepend=False):
    """Run ``hook(module, grad_input, grad_output)``: the gradients of the module's inputs and outputs.

    A returned tuple replaces ``grad_input``.  If no input requires grad, the
    hook fires with the output gradients and ``grad_input`` all ``None``.
    """
    self._is_full_backward_hook = True  # the mirror's legacy register_backward_hook checks it
    handle = RemovableHandle(self._backward_hooks)
    self._backward_hooks[handle.id] = hook
    if prepend:
        self._backward_hooks.move_to_end(handle.id, last=False)
    return handle


def _get_backward_hooks(self):
    """This call's (full, legacy) backward hooks, global first; the mirror's sorts out legacy."""
    return [*_global_backward_hooks.values(), *self._backward_hooks.values()], []


def _get_backward_pre_hooks(self):
    return [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]


bind(Module, register_forward_pre_hook=register_forward_pre_hook,
     register_forward_hook=register_forward_hook,
     register_full_backward_pre_hook=register_full_backward_pre_hook,
     register_full_backward_hook=register_full_backward_hook,
     _get_backward_hooks=_get_backward_hooks, _get_backward_pre_hooks=_get_backward_pre_hooks)
