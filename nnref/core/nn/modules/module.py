"""``nn.Module``: the base class of every layer and model (``torch/nn/modules/module.py``).

The file follows PyTorch's section by section, with the same names, so a chapter can put the
two side by side: ``__init__`` creates the bookkeeping dicts; ``__setattr__``/``__getattr__``/
``__delattr__`` route attributes into them (``self.fc = Linear(...)`` registers a child);
``register_*`` and the ``named_*`` iterators read and write them; ``_apply`` converts every
tensor (``to``, ``float``); ``_call_impl`` is ``model(x)``, hooks around ``forward``;
``state_dict``/``load_state_dict`` save and restore parameters and buffers.  The class comes
first, the process-wide hooks and small helpers after it.

The mirror's ``nnref/nn/modules/module.py`` attaches the rest with :func:`bind` (``to_empty``,
``type``, the registration hooks, copying and the refusal to pickle, ...) and fills the seams.
"""
import functools
import itertools
import warnings
import weakref
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ..._device import device as _device_class
from ..._dtype import dtype as _dtype_class
from ..._layout import check_memory_format
from ..._naming import TorchNamedABC
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...utils.hooks import RemovableHandle
from ..parameter import Buffer, Parameter
from ._backward_hook import BackwardHook

__all__ = [
    "register_module_forward_pre_hook",
    "register_module_forward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_backward_hook",
    "register_module_full_backward_hook",
    "Module",
]

__seams__ = ("convert_state_dict", "load_snapshot", "warn_non_full_backward_hook")

# Seams: None in the plain core, filled by nnref/nn/modules/module.py.  ``convert_state_dict``
# turns a state_dict of PyTorch tensors into nnref's (the checkpoint code's converter);
# ``load_snapshot(module)`` records the model so that a failed load_state_dict can restore it
# (``_Snapshot``); ``warn_non_full_backward_hook(module, args, result, grad_fn)`` gives
# PyTorch's FutureWarnings where a legacy backward hook cannot see the module's gradients.
convert_state_dict = None
load_snapshot = None
warn_non_full_backward_hook = None


class Module(metaclass=TorchNamedABC):
    """Base class for all neural network modules; your models subclass it.

    Assign layers as attributes in ``__init__`` (after ``super().__init__()``)
    and write ``forward``.  Submodules, parameters and buffers assigned this way
    are registered, so ``parameters()``, ``to()``, ``state_dict()`` and printing
    see the whole tree.
    """

    # Saved in state_dict metadata, so _load_from_state_dict can upgrade old checkpoints.
    _version = 1
    call_super_init = False

    def __init__(self, *args, **kwargs):
        if self.call_super_init is False and bool(kwargs):
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword argument "
                            f"'{next(iter(kwargs))}'")
        if self.call_super_init is False and bool(args):
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument but "
                            f"{len(args) + 1} were given")
        # object.__setattr__ skips Module.__setattr__, whose routing needs these very dicts.
        super().__setattr__("training", True)
        super().__setattr__("_parameters", {})
        super().__setattr__("_buffers", {})
        super().__setattr__("_non_persistent_buffers_set", set())
        super().__setattr__("_backward_pre_hooks", OrderedDict())
        super().__setattr__("_backward_hooks", OrderedDict())
        super().__setattr__("_is_full_backward_hook", None)
        super().__setattr__("_forward_hooks", OrderedDict())
        super().__setattr__("_forward_hooks_with_kwargs", OrderedDict())
        super().__setattr__("_forward_hooks_always_called", OrderedDict())
        super().__setattr__("_forward_pre_hooks", OrderedDict())
        super().__setattr__("_forward_pre_hooks_with_kwargs", OrderedDict())
        super().__setattr__("_state_dict_hooks", OrderedDict())
        super().__setattr__("_state_dict_pre_hooks", OrderedDict())
        super().__setattr__("_load_state_dict_pre_hooks", OrderedDict())
        super().__setattr__("_load_state_dict_post_hooks", OrderedDict())
        super().__setattr__("_modules", {})
        if self.call_super_init:
            super().__init__(*args, **kwargs)

    def forward(self, *input):
        """Define the computation of the module; every subclass overrides this.

        Call the module (``model(x)``), not ``model.forward(x)``: only the call runs the hooks.
        """
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function')

    # -- registering state ---------------------------------------------------------------
    def register_buffer(self, name, tensor, persistent=True):
        """Add a tensor that is state but not a parameter (BatchNorm's ``running_mean``).

        Buffers move with ``to()`` and, unless ``persistent=False``, are saved in
        ``state_dict()``.  ``tensor=None`` reserves the name.
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        elif not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {_typename(name)}")
        elif "." in name:
            raise KeyError('buffer name can\'t contain "."')
        elif name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        elif hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        elif tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        else:
            self._buffers[name] = _registered(_global_buffer_registration_hooks, self, name, tensor)
            if persistent:
                self._non_persistent_buffers_set.discard(name)
            else:
                self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        """Add a parameter (what ``self.name = Parameter(...)`` does); ``None`` reserves the name."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        elif not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {_typename(name)}")
        elif "." in name:
            raise KeyError('parameter name can\'t contain "."')
        elif name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        elif hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")

        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        elif param.grad_fn:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be "
                f"created explicitly. To express '{name}' as a function of another Tensor, compute "
                "the value in the forward() method.")
        else:
            self._parameters[name] = _registered(_global_parameter_registration_hooks, self, name,
                                                 param)

    def add_module(self, name, module):
        """Add a child module (what ``self.name = module`` does); ``None`` reserves the name."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{_typename(module)} is not a Module subclass")
        elif not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {_typename(name)}")
        elif hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        elif "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        elif name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = _registered(_global_module_registration_hooks, self, name, module)

    def register_module(self, name, module):
        """Alias for :meth:`add_module`."""
        self.add_module(name, module)

    def get_submodule(self, target):
        """The submodule at dotted path ``target`` (``"net_b.linear"``); ``""`` is ``self``."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target):
        """The parameter at dotted path ``target`` (``"net_b.linear.weight"``)."""
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """The buffer at dotted path ``target`` (``"bn.running_mean"``)."""
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
        buffer = getattr(mod, buffer_name)
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return buffer

    def get_extra_state(self):
        """Override (with :meth:`set_extra_state`) to save non-tensor state in ``state_dict``."""
        raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be "
                           "called: only subclasses that override it are asked for extra state.")

    def set_extra_state(self, state):
        """Override (with :meth:`get_extra_state`) to restore the state it returned."""
        raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be "
                           "called: only subclasses that override it are given extra state.")

    # -- converting every tensor ---------------------------------------------------------
    def _apply(self, fn, recurse=True):
        """Replace every parameter's and buffer's values by ``fn(tensor)``, children first.

        Parameters keep their identity: the converted values are swapped in
        through ``param.data`` (PyTorch's default), so an optimizer built
        before ``model.double()`` still holds the model's parameters.  Moving
        to or from ``'meta'`` makes new Parameters instead, as PyTorch does when
        the two tensor types are not shallow-copy compatible
        (``compute_should_use_set_data``).  Buffers are simply replaced.
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

    def cuda(self, device=None):
        """Move every parameter and buffer to the GPU (needs CuPy)."""
        return self._apply(lambda t: t.cuda(device))

    def cpu(self):
        """Move every parameter and buffer to the CPU."""
        return self._apply(lambda t: t.cpu())

    def float(self):
        """Cast floating point parameters and buffers to float32."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        """Cast floating point parameters and buffers to float64."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        """Cast floating point parameters and buffers to float16."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        """Cast floating point parameters and buffers to bfloat16."""
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to(self, *args, **kwargs):
        """Move and/or cast parameters and buffers.

        Four forms: ``to(device)``, ``to(dtype)``, ``to(device, dtype)``, ``to(tensor)``.

        Only floating point tensors change dtype (integer buffers such as
        ``num_batches_tracked`` keep theirs); every tensor moves to ``device``.
        """
        device, dtype, non_blocking = _parse_to(*args, **kwargs)
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError("nn.Module.to only accepts floating point or complex dtypes, but got "
                            f"desired dtype={dtype}")

        def convert(t):
            return t.to(device=device, dtype=dtype if t.is_floating_point() else None,
                        non_blocking=non_blocking)

        return self._apply(convert)

    # -- hooks ---------------------------------------------------------------------------
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

    def register_backward_hook(self, hook):
        """The deprecated (legacy) backward hook: ``hook(module, grad_input, grad_output)``.

        It is registered on the ``grad_fn`` of the module's output, that is on
        the *last* operation of ``forward``: for a module made of several
        operations, ``grad_input`` is that operation's input gradients, not the
        module's.  Use :meth:`register_full_backward_hook`.
        """
        if self._is_full_backward_hook is True:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a "
                               "single Module. Please use only one of them.")
        self._is_full_backward_hook = False
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        return handle

    def register_full_backward_hook(self, hook, prepend=False):
        """Run ``hook(module, grad_input, grad_output)``: the gradients of the module's inputs and outputs.

        A returned tuple replaces ``grad_input``.  If no input requires grad, the
        hook fires with the output gradients and ``grad_input`` all ``None``.
        """
        if self._is_full_backward_hook is False:
            raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a "
                               "single Module. Please use only one of them.")
        self._is_full_backward_hook = True
        handle = RemovableHandle(self._backward_hooks)
        self._backward_hooks[handle.id] = hook
        if prepend:
            self._backward_hooks.move_to_end(handle.id, last=False)
        return handle

    def _get_backward_hooks(self):
        """The (full, legacy) backward hooks that apply to this call: global ones first."""
        full_backward_hooks = []
        if _global_is_full_backward_hook is True:
            full_backward_hooks += _global_backward_hooks.values()
        if self._is_full_backward_hook is True:
            full_backward_hooks += self._backward_hooks.values()

        non_full_backward_hooks = []
        if _global_is_full_backward_hook is False:
            non_full_backward_hooks += _global_backward_hooks.values()
        if self._is_full_backward_hook is False:
            non_full_backward_hooks += self._backward_hooks.values()
        return full_backward_hooks, non_full_backward_hooks

    def _get_backward_pre_hooks(self):
        return [*_global_backward_pre_hooks.values(), *self._backward_pre_hooks.values()]

    # -- calling the module --------------------------------------------------------------
    def _call_impl(self, *args, **kwargs):
        """``module(*args)``: ``forward`` wrapped in the hooks, in PyTorch's order.

        1. forward pre-hooks, global then the module's (may replace the input);
        2. full backward hooks: wrap the inputs in an identity node;
        3. ``forward``;
        4. forward hooks, global then the module's (may replace the output);
        5. full backward hooks: wrap the outputs in an identity node;
        6. legacy backward hooks: registered on the output's ``grad_fn``.
        """
        # No hooks anywhere (the common case): nothing but a call to forward.
        if not (self._backward_hooks or self._backward_pre_hooks or self._forward_hooks
                or self._forward_pre_hooks or _global_backward_pre_hooks or _global_backward_hooks
                or _global_forward_hooks or _global_forward_pre_hooks):
            return self.forward(*args, **kwargs)

        result = None
        called_always_called_hooks = set()
        try:
            full_backward_hooks, non_full_backward_hooks = [], []
            backward_pre_hooks = []
            if self._backward_pre_hooks or _global_backward_pre_hooks:
                backward_pre_hooks = self._get_backward_pre_hooks()
            if self._backward_hooks or _global_backward_hooks:
                full_backward_hooks, non_full_backward_hooks = self._get_backward_hooks()

            ### BEGIN SOLUTION task=module.call_impl points=3 chapter=09_module_hooks
            for hook_id, hook in (*_global_forward_pre_hooks.items(),
                                  *self._forward_pre_hooks.items()):
                if hook_id in self._forward_pre_hooks_with_kwargs:
                    args_kwargs_result = hook(self, args, kwargs)
                    if args_kwargs_result is not None:
                        if isinstance(args_kwargs_result, tuple) and len(args_kwargs_result) == 2:
                            args, kwargs = args_kwargs_result
                        else:
                            raise RuntimeError(
                                "forward pre-hook must return None or a tuple of (new_args, "
                                f"new_kwargs), but got {args_kwargs_result}.")
                else:
                    args_result = hook(self, args)
                    if args_result is not None:
                        if not isinstance(args_result, tuple):
                            args_result = (args_result,)
                        args = args_result
            ### END SOLUTION

            bw_hook = None
            if full_backward_hooks or backward_pre_hooks:
                bw_hook = BackwardHook(self, full_backward_hooks, backward_pre_hooks)
                args = bw_hook.setup_input_hook(args)

            result = self.forward(*args, **kwargs)

            ### BEGIN SOLUTION task=module.call_impl
            for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                if (hook_id in self._forward_hooks_always_called
                        or hook_id in _global_forward_hooks_always_called):
                    called_always_called_hooks.add(hook_id)
                if (hook_id in self._forward_hooks_with_kwargs
                        or hook_id in _global_forward_hooks_with_kwargs):
                    hook_result = hook(self, args, kwargs, result)
                else:
                    hook_result = hook(self, args, result)
                if hook_result is not None:
                    result = hook_result
            ### END SOLUTION

            if bw_hook:
                if not isinstance(result, (Tensor, tuple)):
                    warnings.warn("For backward hooks to be called, module output should be a "
                                  f"Tensor or a tuple of Tensors but received {type(result)}",
                                  stacklevel=2)
                result = bw_hook.setup_output_hook(result)

            if non_full_backward_hooks:
                # The legacy hook sits on the grad_fn of the first output tensor, i.e. on the last
                # operation of forward: that is why it sees that operation's gradients only.
                var = result
                while not isinstance(var, Tensor):
                    if isinstance(var, dict):
                        var = next(v for v in var.values() if isinstance(v, Tensor))
                    else:
                        var = var[0]
                grad_fn = var.grad_fn
                if grad_fn is not None:
                    for hook in non_full_backward_hooks:
                        grad_fn.register_hook(_WrappedHook(hook, self))
                    if warn_non_full_backward_hook is not None:
                        warn_non_full_backward_hook(self, args, result, grad_fn)
            return result
        except Exception:
            # forward or a hook raised: still run the always_call forward hooks that have not run.
            for hook_id, hook in (*_global_forward_hooks.items(), *self._forward_hooks.items()):
                if hook_id in called_always_called_hooks or not (
                        hook_id in self._forward_hooks_always_called
                        or hook_id in _global_forward_hooks_always_called):
                    continue
                try:
                    if (hook_id in self._forward_hooks_with_kwargs
                            or hook_id in _global_forward_hooks_with_kwargs):
                        hook_result = hook(self, args, kwargs, result)
                    else:
                        hook_result = hook(self, args, result)
                    if hook_result is not None:
                        result = hook_result
                except Exception as e:
                    warnings.warn("module forward hook with ``always_call=True`` raised an exception "
                                  f"that was silenced as another error was raised in forward: {e}",
                                  stacklevel=2)
            raise

    __call__ = _call_impl

    # -- attribute routing ---------------------------------------------------------------
    def __getattr__(self, name):
        # Only reached when normal lookup fails: parameters, buffers and children live in dicts.
        if "_parameters" in self.__dict__:
            _parameters = self.__dict__["_parameters"]
            if name in _parameters:
                return _parameters[name]
        if "_buffers" in self.__dict__:
            _buffers = self.__dict__["_buffers"]
            if name in _buffers:
                return _buffers[name]
        if "_modules" in self.__dict__:
            modules = self.__dict__["_modules"]
            if name in modules:
                return modules[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        def remove_from(*dicts_or_sets):
            for d in dicts_or_sets:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules,
                        self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(self.__dict__, self._parameters, self._buffers,
                            self._non_persistent_buffers_set)
                modules[name] = _registered(_global_module_registration_hooks, self, name, value)
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                                    "(torch.nn.Module or None expected)")
                modules[name] = _registered(_global_module_registration_hooks, self, name, value)
            else:
                buffers = self.__dict__.get("_buffers")
                if isinstance(value, Buffer) or buffers is not None and name in buffers:
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                        "(torch.nn.Buffer, torch.Tensor or None expected)")
                    persistent = (value.persistent if isinstance(value, Buffer)
                                  else name not in self._non_persistent_buffers_set)
                    self.register_buffer(name, value, persistent)
                else:
                    super().__setattr__(name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    # -- state_dict ----------------------------------------------------------------------
    def register_state_dict_pre_hook(self, hook):
        """Run ``hook(module, prefix, keep_vars)`` before ``state_dict`` collects this module."""
        handle = RemovableHandle(self._state_dict_pre_hooks)
        self._state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_state_dict_post_hook(self, hook):
        """Run ``hook(module, state_dict, prefix, local_metadata)`` after ``state_dict``.

        The hook may edit the dict in place but must return None.
        """
        hook._from_public_api = True
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """Put this module's parameters and persistent buffers (not its children's) in ``destination``."""
        ### BEGIN SOLUTION task=module.save_to_state_dict points=2 chapter=10_state_dict
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE_KEY_SUFFIX] = self.get_extra_state()
        ### END SOLUTION

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """An ``OrderedDict`` of every parameter and persistent buffer, keyed by dotted name.

        Each module adds its own entries, then its children's under
        ``prefix + child_name + "."``.  Values are detached tensors sharing
        memory with the model (``keep_vars=True``: the parameters themselves).
        A parameter shared by two modules appears under both names.
        """
        if len(args) > 0:
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.state_dict for details.", FutureWarning, stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]

        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()

        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata

        for hook in self._state_dict_pre_hooks.values():
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            hook_result = hook(self, destination, prefix, local_metadata)
            if not getattr(hook, "_from_public_api", False):
                if hook_result is not None:
                    destination = hook_result
            elif hook_result is not None:
                raise RuntimeError("state_dict post-hook must return None")
        return destination

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        """Run a hook before this module's entries are loaded.

        The hook is called as ``hook(state_dict, prefix, local_metadata, strict,
        missing_keys, unexpected_keys, error_msgs)``, with the module in front if
        ``with_module``.
        """
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        self._load_state_dict_pre_hooks[handle.id] = _WrappedHook(hook,
                                                                  self if with_module else None)
        return handle

    def register_load_state_dict_pre_hook(self, hook):
        """Run ``hook(module, state_dict, prefix, local_metadata, strict, missing_keys,
        unexpected_keys, error_msgs)`` before this module's entries are loaded."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def register_load_state_dict_post_hook(self, hook):
        """Run ``hook(module, incompatible_keys)`` after this module and its children were checked.

        The hook may edit ``incompatible_keys.missing_keys``/``unexpected_keys``
        in place, which changes whether a strict load fails.
        """
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                              unexpected_keys, error_msgs):
        """Copy this module's own entries of ``state_dict`` into its parameters and buffers.

        Problems are appended to ``missing_keys``/``unexpected_keys``/``error_msgs``
        rather than raised, so ``load_state_dict`` can report them all at once.
        Subclasses override this to upgrade old checkpoints (``local_metadata["version"]``).
        """
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)

        persistent_buffers = {k: v for k, v in self._buffers.items()
                              if k not in self._non_persistent_buffers_set}
        local_name_params = itertools.chain(self._parameters.items(), persistent_buffers.items())
        local_state = {k: v for k, v in local_name_params if v is not None}
        assign_to_params_buffers = local_metadata.get("assign_to_params_buffers", False)

        for name, param in local_state.items():
            key = prefix + name
            if key in state_dict:
                input_param = state_dict[key]
                if not isinstance(input_param, Tensor):
                    error_msgs.append(f'While copying the parameter named "{key}", expected '
                                      "torch.Tensor or Tensor-like object from checkpoint but "
                                      f"received {type(input_param)}")
                    continue
                # Checkpoints from PyTorch 0.3 stored scalars as 1-element vectors.
                if (len(param.shape) == 0 and len(input_param.shape) == 1
                        and input_param.shape[0] == 1):
                    input_param = input_param[0]
                if input_param.shape != param.shape:
                    error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                                      f"{input_param.shape} from checkpoint, the shape in current "
                                      f"model is {param.shape}.")
                    continue
                try:
                    with no_grad():
                        if assign_to_params_buffers:
                            if isinstance(param, Parameter):
                                if not isinstance(input_param, Parameter):
                                    input_param = Parameter(input_param,
                                                            requires_grad=param.requires_grad)
                                else:
                                    input_param.requires_grad_(param.requires_grad)
                            setattr(self, name, input_param)
                        else:
                            param.copy_(input_param)
                except Exception as ex:
                    error_msgs.append(f'While copying the parameter named "{key}", whose '
                                      f"dimensions in the model are {param.size()} and whose "
                                      f"dimensions in the checkpoint are {input_param.size()}, "
                                      f"an exception occurred : {ex.args}.")
            elif strict:
                missing_keys.append(key)

        extra_state_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if getattr(self.__class__, "set_extra_state", Module.set_extra_state) \
                is not Module.set_extra_state:
            if extra_state_key in state_dict:
                self.set_extra_state(state_dict[extra_state_key])
            elif strict:
                missing_keys.append(extra_state_key)
        elif strict and (extra_state_key in state_dict):
            unexpected_keys.append(extra_state_key)

        if strict:
            for key in state_dict:
                if key.startswith(prefix) and key != extra_state_key:
                    input_name = key[len(prefix):].split(".", 1)
                    # A dotted remainder must belong to a child module.
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy parameters and buffers from ``state_dict`` into this module and its descendants.

        With ``strict=True`` the keys must match :meth:`state_dict`'s exactly;
        otherwise the missing and unexpected keys are only reported in the
        returned ``_IncompatibleKeys``.  A shape mismatch always fails.  With
        ``assign=True`` the checkpoint's tensors replace the module's (keeping
        each parameter's ``requires_grad``) instead of being copied into them.
        A state_dict of PyTorch tensors is converted through numpy first.

        The algorithm is PyTorch's, unchanged, so overrides of
        ``_load_from_state_dict`` and ``set_extra_state`` and the load hooks see
        and do what they do in PyTorch.  Unlike PyTorch, a load that raises
        changes nothing: every module's parameters, buffers, attributes and
        extra state are recorded first (``load_snapshot``) and restored if
        anything raises (PyTorch copies as it goes, so after its RuntimeError
        the model can be half loaded).  The record costs one copy of the
        parameters and buffers while the load runs.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        if convert_state_dict is not None:
            state_dict = convert_state_dict(state_dict)
        snapshot = None if load_snapshot is None else load_snapshot(self)
        try:
            return self._load_state_dict_as_pytorch(state_dict, strict, assign)
        except BaseException:
            if snapshot is not None:
                snapshot.restore()
            raise

    def _load_state_dict_as_pytorch(self, state_dict, strict, assign):
        """``torch.nn.Module.load_state_dict``'s body, line for line."""
        missing_keys, unexpected_keys, error_msgs = [], [], []

        # A copy, so that _load_from_state_dict may edit it.
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            if assign:
                local_metadata["assign_to_params_buffers"] = assign
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                         missing_keys, unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state_dict = {k: v for k, v in local_state_dict.items()
                                        if k.startswith(child_prefix)}
                    load(child, child_state_dict, child_prefix)

            # The hooks may edit missing_keys and unexpected_keys in place.
            incompatible_keys = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                out = hook(module, incompatible_keys)
                if out is not None:
                    raise AssertionError(
                        "Hooks registered with ``register_load_state_dict_post_hook`` are not expected "
                        "to return new values, if incompatible_keys need to be modified, it should be "
                        "done inplace.")

        load(self, state_dict)
        del load

        if strict:
            if len(unexpected_keys) > 0:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if len(missing_keys) > 0:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if len(error_msgs) > 0:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self.__class__.__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # -- walking the tree ----------------------------------------------------------------
    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        """Yield ``(dotted_name, member)`` for the members ``get_members_fn`` picks from each module.

        ``memo`` makes a tensor shared by several modules come out once, under
        its first name (unless ``remove_duplicate=False``).
        """
        ### BEGIN SOLUTION task=module.named_members points=2 chapter=07_walking_the_tree
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            members = get_members_fn(module)
            for k, v in members:
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                name = module_prefix + ("." if module_prefix else "") + k
                yield name, v
        ### END SOLUTION

    def parameters(self, recurse=True):
        """Every parameter (what an optimizer is given), each once."""
        for _name, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """``(dotted_name, parameter)`` pairs, in registration order, depth first."""
        yield from self._named_members(lambda module: module._parameters.items(), prefix=prefix,
                                       recurse=recurse, remove_duplicate=remove_duplicate)

    def buffers(self, recurse=True):
        """Every buffer (persistent or not), each once."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        """``(dotted_name, buffer)`` pairs, in registration order, depth first."""
        yield from self._named_members(lambda module: module._buffers.items(), prefix=prefix,
                                       recurse=recurse, remove_duplicate=remove_duplicate)

    def children(self):
        """The direct submodules."""
        for _name, module in self.named_children():
            yield module

    def named_children(self):
        """``(name, module)`` for each direct submodule; a module registered twice comes once."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self, remove_duplicate=True):
        """Every module of the tree, ``self`` first."""
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """``(dotted_name, module)`` for the whole tree, pre-order; ``self`` is named ``prefix``."""
        ### BEGIN SOLUTION task=module.named_modules points=2 chapter=07_walking_the_tree
        if memo is None:
            memo = set()
        if self not in memo:
            if remove_duplicate:
                memo.add(self)
            yield prefix, self
            for name, module in self._modules.items():
                if module is None:
                    continue
                submodule_prefix = prefix + ("." if prefix else "") + name
                yield from module.named_modules(memo, submodule_prefix, remove_duplicate)
        ### END SOLUTION

    # -- modes and gradients -------------------------------------------------------------
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
        if getattr(self, "_is_replica", False):
            warnings.warn(
                "Calling .zero_grad() from a module created with nn.DataParallel() has no effect. The "
                "parameters are copied (in a differentiable manner) from the original module. This "
                "means they are not leaf nodes in autograd and so don't accumulate gradients. If you "
                "need gradients in your forward method, consider using autograd.grad instead.",
                stacklevel=2)
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

    # -- printing ------------------------------------------------------------------------
    def _get_name(self):
        return self.__class__.__name__

    def extra_repr(self):
        """The module's own settings for ``print(model)`` (``Linear``: ``in_features=..., ...``)."""
        return ""

    def __repr__(self):
        # The extra repr and each child take one entry; children are indented under the parent.
        extra_lines = []
        extra_repr = self.extra_repr()
        if extra_repr:  # "".split("\n") would give [""]
            extra_lines = extra_repr.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = repr(module)
            mod_str = _addindent(mod_str, 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines

        main_str = self._get_name() + "("
        if lines:
            # A single line of settings and no children stays on one line: Linear(...)
            if len(extra_lines) == 1 and not child_lines:
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        main_str += ")"
        return main_str

    def __dir__(self):
        module_attrs = dir(self.__class__)
        attrs = list(self.__dict__.keys())
        parameters = list(self._parameters.keys())
        modules = list(self._modules.keys())
        buffers = list(self._buffers.keys())
        keys = module_attrs + attrs + parameters + modules + buffers
        # Names like "0" (Sequential's children) are not valid attribute names.
        keys = [key for key in keys if not key[0].isdigit()]
        return sorted(keys)


# Hooks common to every module, for debugging and profiling.  ``model(x)`` runs them before the
# module's own hooks of the same kind.
_global_backward_pre_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_is_full_backward_hook = None
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()
_global_forward_hooks_with_kwargs = OrderedDict()



def register_module_forward_pre_hook(hook):
    """Run ``hook(module, args)`` before every module's ``forward`` (before its own pre-hooks)."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook, *, with_kwargs=False, always_call=False):
    """Run ``hook(module, args, output)`` after every module's ``forward`` (before its own hooks)."""
    handle = RemovableHandle(_global_forward_hooks, extra_dict=[
        _global_forward_hooks_always_called, _global_forward_hooks_with_kwargs])
    _global_forward_hooks[handle.id] = hook
    if with_kwargs:
        _global_forward_hooks_with_kwargs[handle.id] = True
    if always_call:
        _global_forward_hooks_always_called[handle.id] = True
    return handle


def register_module_backward_hook(hook):
    """The deprecated (legacy) backward hook, for every module; prefer the full one."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is True:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a "
                           "global Module hook. Please use only one of them.")
    _global_is_full_backward_hook = False
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


def register_module_full_backward_pre_hook(hook):
    """Run ``hook(module, grad_output)`` for every module once its output gradients are known."""
    handle = RemovableHandle(_global_backward_pre_hooks)
    _global_backward_pre_hooks[handle.id] = hook
    return handle


def register_module_full_backward_hook(hook):
    """Run ``hook(module, grad_input, grad_output)`` for every module (before its own hooks)."""
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is False:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a "
                           "global Module hook. Please use only one of them.")
    _global_is_full_backward_hook = True
    handle = RemovableHandle(_global_backward_hooks)
    _global_backward_hooks[handle.id] = hook
    return handle


# Hooks that see (and may replace) whatever any module registers; the mirror's
# register_module_*_registration_hook functions fill them.
_global_module_registration_hooks = OrderedDict()
_global_parameter_registration_hooks = OrderedDict()
_global_buffer_registration_hooks = OrderedDict()



def _registered(hooks, module, name, value):
    """``value`` after the global registration ``hooks`` (each may return a replacement)."""
    for hook in hooks.values():
        output = hook(module, name, value)
        if output is not None:
            value = output
    return value

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"



class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it expected but missed, and the extra ones."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def _addindent(s_, numSpaces):
    """Indent every line but the first (so a child's repr nests inside its parent's)."""
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    s = [(numSpaces * " ") + line if line.strip() else "" for line in s]
    return first + "\n" + "\n".join(s)


def _typename(obj):
    """``torch.typename``: ``'torch.FloatTensor'`` for a tensor, else the qualified class name."""
    if isinstance(obj, Tensor):
        prefix = "torch." if obj.device.type == "cpu" else "torch.cuda."
        return prefix + obj.dtype._legacy_name
    module = getattr(obj, "__module__", "") or ""
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if qualname is None:
        module, qualname = obj.__class__.__module__ or "", obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


class _WrappedHook:
    """A hook that gets the module as its first argument, holding the module weakly.

    Legacy backward hooks live on a ``grad_fn`` that may outlive the module; a
    strong reference would keep the module alive as long as the graph.
    """

    def __init__(self, hook, module=None):
        self.hook = hook
        functools.update_wrapper(self, hook)
        self.with_module = module is not None
        if self.with_module:
            self.module = weakref.ref(module)

    def __call__(self, *args, **kwargs):
        if self.with_module:
            module = self.module()
            if module is None:
                raise RuntimeError("You are trying to call the hook of a dead Module!")
            return self.hook(module, *args, **kwargs)
        return self.hook(*args, **kwargs)


def _parse_to(*args, **kwargs):
    """Sort ``Module.to``'s arguments into ``(device, dtype, non_blocking)`` (``_C._nn._parse_to``).

    Accepted forms: ``to(device, dtype)``, ``to(dtype)``, ``to(tensor)``, each with an optional
    ``non_blocking`` after them, and the keywords ``device=``, ``dtype=``, ``non_blocking=``.
    """
    device = kwargs.pop("device", None)
    dtype = kwargs.pop("dtype", None)
    non_blocking = kwargs.pop("non_blocking", False)
    check_memory_format("to", kwargs.pop("memory_format", None))  # row-major is all nnref has
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    rest = list(args)
    if rest and isinstance(rest[0], Tensor):
        device, dtype = rest[0].device, rest[0].dtype
        rest.pop(0)
    elif rest and isinstance(rest[0], _dtype_class):
        dtype = rest.pop(0)
    elif rest and (rest[0] is None or isinstance(rest[0], (str, _device_class, int))) \
            and not isinstance(rest[0], bool):
        device = rest.pop(0)
        if rest and (rest[0] is None or isinstance(rest[0], _dtype_class)):
            dtype = rest.pop(0)
    if rest and isinstance(rest[0], bool):
        non_blocking = rest.pop(0)
    if rest:
        raise TypeError("to() received an invalid combination of arguments - got ("
                        + ", ".join(type(a).__name__ for a in args) + "), but expected one of: "
                        "(device, dtype, non_blocking), (dtype, non_blocking), "
                        "(tensor, non_blocking)")
    if isinstance(device, str):
        device = _device_class(device)  # checks the spelling now, as PyTorch does
    return device, dtype, non_blocking


def bind(cls, **methods):
    """Attach ``methods`` to ``cls`` (``Module`` or a core container), each under its keyword's name.

    The one way the mirror adds to the core's module classes, as ``nnref.core._tensor.bind``
    does for ``Tensor``: this file keeps what the notes teach, and the mirror's public module
    (``nnref/nn/modules/module.py``, ``container.py``) binds the rest when ``nnref`` is
    imported, so ``Module.cuda`` is there before a program runs.  Each method is named as if
    written in the class (``Module.cuda``).
    """
    for name, method in methods.items():
        method.__name__, method.__qualname__ = name, f"{cls.__qualname__}.{name}"
        setattr(cls, name, method)
