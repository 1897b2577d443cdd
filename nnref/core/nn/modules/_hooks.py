"""``Module``'s hooks: registering them on one module (``torch/nn/modules/module.py``, its
hook sections).

PyTorch keeps these methods in ``module.py`` with the rest of ``Module``; here they are a file
of their own so that each file is one a learner reads at a sitting.  Each ``register_*`` puts
the hook in one of the dicts ``Module.__init__`` made and returns a handle that removes it;
``Module._call_impl`` in ``module.py`` runs them.  The methods are written as functions and
attached to ``Module`` with :func:`bind`, under the same names.  The hooks of every module
(``register_module_*``, filling the process-wide dicts at the end of ``module.py``) and the
deprecated ``register_backward_hook`` are the mirror's (``nnref/nn/modules/module.py``).
"""
from ...utils.hooks import RemovableHandle
from .module import Module, _global_backward_hooks, _global_backward_pre_hooks, bind


def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
    """Run ``hook(module, args)`` before ``forward``; a returned value replaces ``args``.

    With ``with_kwargs=True`` the hook is ``hook(module, args, kwargs)`` and
    may return a new ``(args, kwargs)`` pair.
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
    """The (full, legacy) backward hooks that apply to this call: global ones first.

    Every hook the core registers is a full one; the mirror (``nnref/nn/modules/module.py``)
    binds the version that also sorts out the deprecated ``register_backward_hook``'s.
    """
    return [*_global_backward_hooks.values(), *self._backward_hooks.values()], []


def _get_backward_pre_hooks(self):
    return [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]


bind(Module, register_forward_pre_hook=register_forward_pre_hook,
     register_forward_hook=register_forward_hook,
     register_full_backward_pre_hook=register_full_backward_pre_hook,
     register_full_backward_hook=register_full_backward_hook,
     _get_backward_hooks=_get_backward_hooks, _get_backward_pre_hooks=_get_backward_pre_hooks)
