"""``nnref.nn.modules.module`` (``torch/nn/modules/module.py``): ``Module`` lives in the
teaching core (``nnref/core/nn/modules/module.py``, with ``_apply.py``, ``_hooks.py`` and
``_state_dict.py`` beside it); this public module re-exports it with the process-wide hooks and
adds what the notes do not teach, attached with the core's ``bind``: ``register_module``,
``get_buffer``, ``cuda``, ``cpu``, ``half``, ``double``, ``bfloat16``, ``type`` and ``to_empty``, the
hooks of every module (``register_module_*``), the deprecated ``register_backward_hook``, the
registration of state_dict and load_state_dict hooks, copying and the refusal to pickle,
DataParallel's replicas, ``state_dict``'s deprecated positional form, and a
``load_state_dict`` around the core's that converts PyTorch tensors and, with a snapshot,
changes nothing when the load fails.  It fills the core's seams: the legacy backward hooks'
registration and FutureWarnings (``module.py``) and ``Module.to``'s argument parser
(``_apply.py``).
"""
import copy
import functools
import itertools
import sys
import warnings
import weakref
from collections.abc import Mapping

from ..._state_transfer import _not_picklable_message, convert_torch_tensors
from ...core._device import device as _device_class
from ...core._dtype import dtype as _dtype_class
from ..._layout import check_memory_format
from ...core._seams import install
from ...core._tensor import Tensor
from ...core.autograd import engine as _engine
from ...core.nn.modules import _apply, _backward_hook, _hooks, _state_dict
from ...core.nn.modules import module as _core
from ...core.nn.modules._state_dict import _EXTRA_STATE_KEY_SUFFIX, _IncompatibleKeys  # noqa: F401
from ...core.nn.modules.module import (  # noqa: F401 - this module's public and shared names
    Module, _addindent, _global_backward_hooks, _global_backward_pre_hooks,
    _global_buffer_registration_hooks, _global_forward_hooks, _global_forward_hooks_always_called,
    _global_forward_hooks_with_kwargs, _global_forward_pre_hooks, _global_module_registration_hooks,
    _global_parameter_registration_hooks, _registered, bind)
from ...core.utils.hooks import RemovableHandle
from ..parameter import is_lazy

__all__ = [
    "register_module_forward_pre_hook",
    "register_module_forward_hook",
    "register_module_full_backward_pre_hook",
    "register_module_backward_hook",
    "register_module_full_backward_hook",
    "register_module_module_registration_hook",
    "register_module_parameter_registration_hook",
    "register_module_buffer_registration_hook",
    "Module",
]


def _registration_hook(hooks, hook):
    handle = RemovableHandle(hooks)
    hooks[handle.id] = hook
    return handle


# The same hooks for every module, for debugging and profiling: ``model(x)`` runs them before
# the module's own hooks of the same kind.
def register_module_forward_pre_hook(hook):
    """Run ``hook(module, args)`` before every module's ``forward`` (before its own pre-hooks)."""
    return _registration_hook(_global_forward_pre_hooks, hook)


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


# Whether the global backward hooks are full (True) or legacy (False) ones: the first
# registration decides, as in PyTorch.
_global_is_full_backward_hook = None


def _claim_global_backward_hooks(full):
    global _global_is_full_backward_hook
    if _global_is_full_backward_hook is (not full):
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks as a "
                           "global Module hook. Please use only one of them.")
    _global_is_full_backward_hook = full


def register_module_backward_hook(hook):
    """The deprecated (legacy) backward hook, for every module; prefer the full one."""
    _claim_global_backward_hooks(full=False)
    return _registration_hook(_global_backward_hooks, hook)


def register_module_full_backward_pre_hook(hook):
    """Run ``hook(module, grad_output)`` for every module once its output gradients are known."""
    return _registration_hook(_global_backward_pre_hooks, hook)


def register_module_full_backward_hook(hook):
    """Run ``hook(module, grad_input, grad_output)`` for every module (before its own hooks)."""
    _claim_global_backward_hooks(full=True)
    return _registration_hook(_global_backward_hooks, hook)


def register_module_module_registration_hook(hook):
    """Run ``hook(module, name, submodule)`` whenever any module registers a child; a returned
    module replaces it (``torch.nn.modules.module.register_module_module_registration_hook``)."""
    return _registration_hook(_global_module_registration_hooks, hook)


def register_module_parameter_registration_hook(hook):
    """Run ``hook(module, name, param)`` whenever any module registers a parameter; a returned
    parameter replaces it."""
    return _registration_hook(_global_parameter_registration_hooks, hook)


def register_module_buffer_registration_hook(hook):
    """Run ``hook(module, name, tensor)`` whenever any module registers a buffer; a returned
    tensor replaces it."""
    return _registration_hook(_global_buffer_registration_hooks, hook)


# -- Module's methods beyond the notes, bound below ------------------------------------------
# An alias, the buffer lookup and the conversions the notes do not use (the core's _apply.py
# has float and to).
def register_module(self, name, module):
    """Alias for :meth:`add_module`."""
    self.add_module(name, module)


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


def cuda(self, device=None):
    """Move every parameter and buffer to the GPU (needs CuPy)."""
    return self._apply(lambda t: t.cuda(device))


def cpu(self):
    """Move every parameter and buffer to the CPU."""
    return self._apply(lambda t: t.cpu())


def half(self):
    """Cast floating point parameters and buffers to float16."""
    return self._apply(lambda t: t.half() if t.is_floating_point() else t)


def double(self):
    """Cast floating point parameters and buffers to float64."""
    return self._apply(lambda t: t.double() if t.is_floating_point() else t)


def bfloat16(self):
    """Cast floating point parameters and buffers to bfloat16."""
    return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)


def to_empty(self, *, device, recurse=True):
    """Move every parameter and buffer to ``device`` without copying their values: new,
    uninitialised storage (zeros in nnref), as ``torch.nn.Module.to_empty``
    (``torch/nn/modules/module.py``).  The way out of ``'meta'``: build a model there, then
    ``model.to_empty(device='cpu')`` and initialise it (``reset_parameters()``)."""
    from ..._creation import empty_like
    return self._apply(lambda t: empty_like(t, device=device), recurse=recurse)


def _type(self, dst_type):
    """Cast every parameter and buffer to ``dst_type`` (a dtype or a type name)."""
    return self._apply(lambda t: t.type(dst_type))


# -- the deprecated (legacy) backward hook, bound below ---------------------------------------
# The core registers full backward hooks only; PyTorch keeps this one for old code (chapter 09
# shows why it misleads), and the core's ``_call_impl`` reaches it through its seam
# ``register_legacy_backward_hooks``.
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
    """The core's ``register_full_backward_hook``, refused on a module with legacy hooks."""
    if self._is_full_backward_hook is False:
        raise RuntimeError("Cannot use both regular backward hooks and full backward hooks on a "
                           "single Module. Please use only one of them.")
    return _hooks.register_full_backward_hook(self, hook, prepend)


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


def _register_legacy_backward_hooks(module, hooks, args, result):
    """Step 6 of ``_call_impl``: put the legacy ``hooks`` on the ``grad_fn`` of the output."""
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
        for hook in hooks:
            grad_fn.register_hook(_WrappedHook(hook, module))
        _maybe_warn_non_full_backward_hook(module, args, result, grad_fn)


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


def _maybe_warn_non_full_backward_hook(self, inputs, result, grad_fn):
    """Warn, as PyTorch does, when a legacy backward hook cannot see the module's gradients
    (``_register_legacy_backward_hooks`` calls it)."""
    if not isinstance(result, Tensor):
        if not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
            warnings.warn("Using non-full backward hooks on a Module that does not return a "
                          "single Tensor or a tuple of Tensors is deprecated and will be removed "
                          "in future versions. This hook will be missing some of the grad_output. "
                          "Please use register_full_backward_hook to get the documented behavior.",
                          FutureWarning, stacklevel=2)
            return
    else:
        result = (result,)

    if not isinstance(inputs, Tensor):
        if not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
            warnings.warn("Using non-full backward hooks on a Module that does not take as "
                          "input a single Tensor or a tuple of Tensors is deprecated and will be "
                          "removed in future versions. This hook will be missing some of the "
                          "grad_input. Please use register_full_backward_hook to get the "
                          "documented behavior.", FutureWarning, stacklevel=2)
            return
    else:
        inputs = (inputs,)

    out_grad_fn = {r.grad_fn for r in result if r.grad_fn is not None}
    if len(out_grad_fn) == 0 or (len(out_grad_fn) == 1 and grad_fn not in out_grad_fn):
        warnings.warn("Using a non-full backward hook when outputs are nested in python data "
                      "structure is deprecated and will be removed in future versions. This hook "
                      "will be missing some grad_output.", FutureWarning, stacklevel=2)
    elif len(out_grad_fn) > 1:
        warnings.warn("Using a non-full backward hook when outputs are generated by different "
                      "autograd Nodes is deprecated and will be removed in future versions. This "
                      "hook will be missing some grad_output. Please use "
                      "register_full_backward_hook to get the documented behavior.",
                      FutureWarning, stacklevel=2)
    else:
        inputs_grad_fn = {i.grad_fn for i in inputs if i.grad_fn is not None}
        next_functions = {n[0] for n in grad_fn.next_functions}
        if inputs_grad_fn != next_functions:
            warnings.warn("Using a non-full backward hook when the forward contains multiple "
                          "autograd Nodes is deprecated and will be removed in future versions. "
                          "This hook will be missing some grad_input. Please use "
                          "register_full_backward_hook to get the documented behavior.",
                          FutureWarning, stacklevel=2)


# -- state_dict's deprecated positional form and the all-or-nothing load, bound below -------
def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
    """The core's ``state_dict``, also taking PyTorch's deprecated positional form
    ``state_dict(destination, prefix, keep_vars)`` (with its FutureWarning)."""
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
    return _state_dict.state_dict(self, destination=destination, prefix=prefix,
                                  keep_vars=keep_vars)


def load_state_dict(self, state_dict, strict=True, assign=False):
    """The core's ``load_state_dict`` (PyTorch's algorithm, unchanged), taking PyTorch tensors
    and changing nothing when it raises.

    A state_dict of PyTorch tensors is converted through numpy first.  Unlike
    PyTorch, a load that raises changes nothing: every module's parameters,
    buffers, attributes and extra state are recorded first (``_Snapshot``)
    and restored if anything raises (PyTorch copies as it goes, so after its
    RuntimeError the model can be half loaded).  The record costs one copy of
    the parameters and buffers while the load runs.
    """
    if isinstance(state_dict, Mapping):  # anything else gets the core's TypeError
        state_dict = convert_torch_tensors(state_dict)
    snapshot = _Snapshot(self)
    try:
        return _state_dict.load_state_dict(self, state_dict, strict, assign)
    except BaseException:
        snapshot.restore()
        raise


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


def _stacklevel_of_backward_call():
    """The ``stacklevel`` of the line that called ``.backward()``, for a warning from a hook.

    PyTorch's hook warns with ``stacklevel=5``: three frames above its engine's entry
    (``backward``, ``Tensor.backward``, the caller).  The frames between a hook and the
    engine's entry (its seam ``run_pass``: the mirror's wrapper of ``run_backward``) are counted
    rather than fixed, so engine changes cannot shift it.
    """
    entry = _engine.run_pass.__code__
    level, frame = 1, sys._getframe(1)  # the hook, which calls warnings.warn
    while frame is not None and frame.f_code is not entry:
        level, frame = level + 1, frame.f_back
    return level + 3


def _register_state_dict_hook(self, hook):
    """Run ``hook(module, state_dict, prefix, local_metadata)`` after ``state_dict``.

    The older, private form of :meth:`register_state_dict_post_hook`: at
    the root module, a dict the hook returns replaces the result.
    """
    if getattr(hook, "_from_public_api", False):
        raise RuntimeError("Cannot register the same function as the state dict post hook that "
                           "was previously registered via register_state_dict_post_hook")
    handle = RemovableHandle(self._state_dict_hooks)
    self._state_dict_hooks[handle.id] = hook
    return handle


def __reduce_ex__(self, protocol):
    """``pickle.dump(model, f)`` fails at once, saying how to save the weights instead.

    PyTorch pickles the module (its class by name, its tensors by value);
    nnref's tensors go into a pickle only inside a checkpoint archive
    (``nnref.save(model, path)``, loaded with ``weights_only=False``), so a bare
    pickle of a model could not be loaded, and the loss would only show at load time.
    """
    raise TypeError(_not_picklable_message(self))


def __copy__(self):
    new = type(self).__new__(type(self))
    new.__dict__.update(self.__dict__)
    return new


def __deepcopy__(self, memo):
    new = type(self).__new__(type(self))
    memo[id(self)] = new
    new.__dict__.update(copy.deepcopy(self.__dict__, memo))
    return new


def zero_grad(self, set_to_none=True):
    """The core's ``zero_grad``, after PyTorch's warning on a DataParallel replica."""
    if getattr(self, "_is_replica", False):
        warnings.warn(
            "Calling .zero_grad() from a module created with nn.DataParallel() has no effect. The "
            "parameters are copied (in a differentiable manner) from the original module. This "
            "means they are not leaf nodes in autograd and so don't accumulate gradients. If you "
            "need gradients in your forward method, consider using autograd.grad instead.",
            stacklevel=2)
    _apply.zero_grad(self, set_to_none)


def _replicate_for_data_parallel(self):
    """A shallow copy for one device of DataParallel: shares children and buffers, no parameters."""
    replica = self.__new__(type(self))
    replica.__dict__ = self.__dict__.copy()
    replica._parameters = {}
    replica._buffers = replica._buffers.copy()
    replica._modules = replica._modules.copy()
    replica._is_replica = True
    return replica


bind(Module, register_module=register_module, get_buffer=get_buffer, cuda=cuda, cpu=cpu,
     half=half, double=double, bfloat16=bfloat16, to_empty=to_empty, type=_type,
     register_backward_hook=register_backward_hook, _get_backward_hooks=_get_backward_hooks,
     register_full_backward_hook=register_full_backward_hook,
     state_dict=state_dict, load_state_dict=load_state_dict,
     _maybe_warn_non_full_backward_hook=_maybe_warn_non_full_backward_hook,
     register_state_dict_pre_hook=register_state_dict_pre_hook,
     register_state_dict_post_hook=register_state_dict_post_hook,
     _register_load_state_dict_pre_hook=_register_load_state_dict_pre_hook,
     register_load_state_dict_pre_hook=register_load_state_dict_pre_hook,
     register_load_state_dict_post_hook=register_load_state_dict_post_hook,
     _register_state_dict_hook=_register_state_dict_hook, __reduce_ex__=__reduce_ex__,
     __copy__=__copy__, __deepcopy__=__deepcopy__,
     zero_grad=zero_grad, _replicate_for_data_parallel=_replicate_for_data_parallel)


class _Snapshot:
    """Everything ``load_state_dict`` may change in a module tree, recorded so it can be put back.

    Per module: its attributes (a shallow copy of ``__dict__``), the contents of
    its ``_parameters``/``_buffers``/``_modules`` dicts (``assign=True`` and
    overrides rebind entries) and, where ``get_extra_state`` is overridden, a
    deep copy of the extra state.  Per tensor: its array, a copy of its values
    and its version, so only tensors that were written to are restored (and
    their version bumped, as for any in-place change).
    """

    def __init__(self, root):
        self.modules = []
        self.tensors = {}
        for module in root.modules():
            extra = _NO_EXTRA_STATE
            if type(module).get_extra_state is not Module.get_extra_state \
                    and type(module).set_extra_state is not Module.set_extra_state:
                try:
                    extra = copy.deepcopy(module.get_extra_state())
                except Exception:
                    extra = _NO_EXTRA_STATE  # attributes are still restored below
            self.modules.append((module, dict(module.__dict__), dict(module._parameters),
                                 dict(module._buffers), dict(module._modules), extra))
            for t in itertools.chain(module._parameters.values(), module._buffers.values()):
                if t is not None and id(t) not in self.tensors:
                    # An uninitialised (lazy) tensor has no values; loading materialises it,
                    # which changes its class and gives it an array, both undone by restore().
                    values = None if is_lazy(t) else t._data.copy()
                    self.tensors[id(t)] = (t, type(t), t._data, values, t._version_counter[0])

    def restore(self):
        for module, attributes, parameters, buffers, modules, extra in self.modules:
            if extra is not _NO_EXTRA_STATE:
                try:
                    module.set_extra_state(extra)
                except Exception:
                    pass  # the attributes below are what the module held before the load
            module.__dict__.clear()
            module.__dict__.update(attributes)
            for live, saved in ((module._parameters, parameters), (module._buffers, buffers),
                                (module._modules, modules)):
                live.clear()
                live.update(saved)
        for t, cls, array, values, version in self.tensors.values():
            if values is None:
                t._data, t.__class__ = array, cls
            elif t._data is not array or t._version_counter[0] != version:
                t._data = array
                array[...] = values
                t._bump_version()


_NO_EXTRA_STATE = object()

install(_core, "register_legacy_backward_hooks", _register_legacy_backward_hooks)
install(_core, "_typename", _typename)  # torch.typename in the registration errors
install(_apply, "_parse_to", _parse_to)  # every form of Module.to, PyTorch's error texts
install(_backward_hook, "_stacklevel_of_backward_call", _stacklevel_of_backward_call)
