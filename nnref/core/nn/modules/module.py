"""``nn.Module``: the base class of every layer and model (``torch/nn/modules/module.py``).

Section by section as PyTorch's file, taught in chapters 06 (registering), 07 (walking the
tree) and 09 (``_call_impl``).  The rest of ``Module`` is bound onto the class from
``_apply.py``, ``_hooks.py`` and ``_state_dict.py``; the mirror binds what the notes do not teach.
"""
import warnings
from collections import OrderedDict

from ..._naming import TorchNamedABC
from ..._tensor import Tensor
from ..parameter import Parameter
from ._backward_hook import BackwardHook

__all__ = ["Module"]

__seams__ = ("register_legacy_backward_hooks", "_typename")

# Seam: None here; nnref/nn/modules/module.py puts register_backward_hook's grad_fn hooks there.
register_legacy_backward_hooks = None


class Module(metaclass=TorchNamedABC):
    """Base class for all neural network modules; your models subclass it.

    Assign layers as attributes in ``__init__`` (after ``super().__init__()``) and write
    ``forward``.  Submodules, parameters and buffers assigned this way are registered, so
    ``parameters()``, ``to()``, ``state_dict()`` and printing see the whole tree.
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
        """Add state that is not a parameter (BatchNorm's ``running_mean``); None reserves the name.

        Buffers move with ``to()`` and, unless ``persistent=False``, are saved in ``state_dict()``.
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

    # -- calling the module --------------------------------------------------------------
    def _call_impl(self, *args, **kwargs):
        """``module(*args)``: ``forward`` wrapped in the hooks, in PyTorch's order.

        1. forward pre-hooks, global then the module's (may replace the input);
        2. full backward hooks: wrap the inputs in an identity node;
        3. ``forward``;
        4. forward hooks, global then the module's (may replace the output);
        5. full backward hooks: wrap the outputs in an identity node;
        6. legacy backward hooks (the mirror's): registered on the output's ``grad_fn``.
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
                register_legacy_backward_hooks(self, non_full_backward_hooks, args, result)
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
                if isinstance(d, dict):
                    d.pop(name, None)
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
                # nn.Buffer(t) (the mirror's, nnref/nn/parameter.py) returns t marked _is_buffer.
                is_buffer = isinstance(value, Tensor) and getattr(value, "_is_buffer", False)
                if is_buffer or buffers is not None and name in buffers:
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                                        "(torch.nn.Buffer, torch.Tensor or None expected)")
                    persistent = (value.persistent if is_buffer
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

    # -- walking the tree ----------------------------------------------------------------
    def _named_members(self, get_members_fn, prefix="", recurse=True, remove_duplicate=True):
        """Yield ``(dotted_name, member)`` for the members ``get_members_fn`` picks from each module.

        ``memo`` gives a tensor shared by several modules once, under its first name.
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

    # -- printing ------------------------------------------------------------------------
    def _get_name(self):
        return self.__class__.__name__

    def extra_repr(self):
        """The module's own settings for ``print(model)`` (``Linear``: ``in_features=..., ...``)."""
        return ""

    def __repr__(self):
        # The extra repr and each child take one entry; children are indented under the parent.
        extra_repr = self.extra_repr()
        extra_lines = extra_repr.split("\n") if extra_repr else []  # "".split("\n") is [""]
        child_lines = ["(" + key + "): " + _addindent(repr(module), 2)
                       for key, module in self._modules.items()]
        lines = extra_lines + child_lines

        main_str = self._get_name() + "("
        if len(extra_lines) == 1 and not child_lines:
            main_str += extra_lines[0]  # a single line of settings stays inline: Linear(...)
        elif lines:
            main_str += "\n  " + "\n  ".join(lines) + "\n"
        return main_str + ")"

    def __dir__(self):
        keys = [*dir(self.__class__), *self.__dict__, *self._parameters, *self._modules,
                *self._buffers]
        # Names like "0" (Sequential's children) are not valid attribute names.
        return sorted(key for key in keys if not key[0].isdigit())


# Every module's hooks (the mirror's register_module_*_hook): run before the module's own.
_global_backward_pre_hooks = OrderedDict()
_global_backward_hooks = OrderedDict()
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()
_global_forward_hooks_with_kwargs = OrderedDict()


# Hooks that see (and may replace) what any module registers (register_module_*_registration_hook).
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


def _addindent(s_, numSpaces):
    """Indent every line but the first (so a child's repr nests inside its parent's)."""
    first, *rest = s_.split("\n")
    return "\n".join([first] + [numSpaces * " " + line if line.strip() else "" for line in rest])


# Seam: a value's type name in error texts; nnref/nn/modules/module.py puts torch.typename there.
def _typename(obj):
    return type(obj).__qualname__


def bind(cls, **methods):
    """Attach ``methods`` to ``cls`` as if written in its body (as ``_tensor.bind`` for Tensor)."""
    for name, method in methods.items():
        method.__name__, method.__qualname__ = name, f"{cls.__qualname__}.{name}"
        setattr(cls, name, method)
