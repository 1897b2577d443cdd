"""``nnref.optim.optimizer``: the public module of ``Optimizer`` (``torch/optim/optimizer.py``).

The class itself is the teaching core's (``nnref/core/optim/optimizer.py``: param_groups, state,
``zero_grad``, step hooks, ``state_dict``/``load_state_dict``).  What only the full package needs
is written here as plain functions and attached to that class by :func:`_attach` when
``nnref.optim`` is imported: PyTorch's ``load_state_dict`` algorithm (over the core's plain one),
the registration of step hooks (per optimizer and global), the refusal to pickle an optimizer,
``copy``/``deepcopy`` and ``__setstate__``, and the
helpers the other optimizers of this package (NAdam, RAdam, RMSprop, ...) share: the step loop of
the single-tensor optimizers, state made lazily, old-state upgrades, scratch arrays of the
speed-tuned updates, the constructors' range checks, and ``lerp``/``addcmul`` on raw arrays
rounded as PyTorch's kernels round them.
"""
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain

from .._creation import tensor
from .._state_transfer import _not_picklable_message
from .._ops.blend import _lerp as blend_lerp
from .._ops.fused import fma
from ..core._device import array_module
from ..core._tensor import Tensor
from ..core.autograd.grad_mode import enable_grad, no_grad
from ..core.optim.adam import _step_dtype
from ..core.optim.optimizer import (Optimizer, _global_optimizer_post_hooks,
                                    _global_optimizer_pre_hooks, _params_with_grad)
from ..core.utils.hooks import RemovableHandle

__all__ = ["Optimizer", "register_optimizer_step_pre_hook", "register_optimizer_step_post_hook"]


def register_optimizer_step_pre_hook(hook):
    """``hook(optimizer, args, kwargs)`` runs before every optimizer's ``step``; it may return
    ``(new_args, new_kwargs)``.  Returns a handle whose ``remove()`` unregisters it."""
    handle = RemovableHandle(_global_optimizer_pre_hooks)
    _global_optimizer_pre_hooks[handle.id] = hook
    return handle


def register_optimizer_step_post_hook(hook):
    """``hook(optimizer, args, kwargs)`` runs after every optimizer's ``step``."""
    handle = RemovableHandle(_global_optimizer_post_hooks)
    _global_optimizer_post_hooks[handle.id] = hook
    return handle


def _attach(cls, **methods):
    """Give the core class ``cls`` the mirror's ``methods``, each under its keyword's name (as
    ``nnref.core._tensor.bind`` does for ``Tensor``): the core file stays what the notes teach."""
    for name, method in methods.items():
        method.__qualname__ = f"{cls.__name__}.{name}"
        setattr(cls, name, method)


def __repr__(self):
    """What ``print(optimizer)`` shows: each parameter group's hyper-parameters, sorted by name
    (``torch/optim/optimizer.py``)."""
    format_string = self.__class__.__name__ + " ("
    for i, group in enumerate(self.param_groups):
        format_string += "\n"
        format_string += f"Parameter Group {i}\n"
        for key in sorted(group.keys()):
            if key != "params":
                format_string += f"    {key}: {group[key]}\n"
    format_string += ")"
    return format_string


def __reduce_ex__(self, protocol):
    """``pickle.dump(optimizer, f)`` fails at once (its state holds tensors): save the state_dict."""
    raise TypeError(_not_picklable_message(self))


def __getstate__(self):
    return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}


def __copy__(self):
    new = type(self).__new__(type(self))
    new.__dict__.update(self.__dict__)
    return new


def __deepcopy__(self, memo):
    new = type(self).__new__(type(self))
    memo[id(self)] = new
    new.__setstate__(deepcopy(self.__getstate__(), memo))
    return new


def __setstate__(self, state):
    """An optimizer restored by ``copy``/``pickle``: its attributes, and step hooks wrapped
    around its class's ``step`` (``torch/optim/optimizer.py``)."""
    self.__dict__.update(state)
    # A state saved before step hooks existed lacks them (PyTorch's __setstate__ too).
    self.__dict__.setdefault("_optimizer_step_pre_hooks", OrderedDict())
    self.__dict__.setdefault("_optimizer_step_post_hooks", OrderedDict())
    self._patch_step_function()


def _load_state_dict_as_pytorch(self, state_dict):
    """PyTorch's ``Optimizer.load_state_dict`` (``torch/optim/optimizer.py``), bound over the core's
    plain version: the groups' sizes checked with PyTorch's texts, each state tensor cast to its
    parameter's floating dtype and device (``step`` kept as saved), ``param_names`` kept."""
    state_dict = state_dict.copy()
    groups = self.param_groups
    saved_groups = deepcopy(state_dict["param_groups"])
    if len(groups) != len(saved_groups):
        raise ValueError("loaded state dict has a different number of parameter groups")
    if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
        raise ValueError("loaded state dict contains a parameter group that doesn't match the "
                         "size of optimizer's group")
    id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                      chain.from_iterable(g["params"] for g in groups)))

    def cast(param, value, key=None):
        """State tensors take the parameter's floating dtype and device; ``step`` stays as is."""
        if isinstance(value, Tensor):
            if key == "step":
                return value
            if param.is_floating_point():
                return value.to(dtype=param.dtype, device=param.device)
            return value.to(device=param.device)
        if isinstance(value, dict):
            return {k: cast(param, v, key=k) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(cast(param, v) for v in value)
        return value

    state = defaultdict(dict)
    for k, v in state_dict["state"].items():
        if k in id_map:
            param = id_map[k]
            state[param] = cast(param, v)
        else:
            state[k] = v

    def update_group(group, new_group):
        new_group["params"] = group["params"]
        if "param_names" in group and "param_names" not in new_group:
            new_group["param_names"] = group["param_names"]
        return new_group

    param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
    self.__setstate__({"state": state, "param_groups": param_groups})


def register_step_pre_hook(self, hook):
    """``hook(optimizer, args, kwargs)`` runs before this optimizer's ``step``; it may return
    ``(new_args, new_kwargs)``.  Returns a handle whose ``remove()`` unregisters it."""
    handle = RemovableHandle(self._optimizer_step_pre_hooks)
    self._optimizer_step_pre_hooks[handle.id] = hook
    return handle


def register_step_post_hook(self, hook):
    """``hook(optimizer, args, kwargs)`` runs after this optimizer's ``step``."""
    handle = RemovableHandle(self._optimizer_step_post_hooks)
    self._optimizer_step_post_hooks[handle.id] = hook
    return handle


def _step_each_param(self, closure, tensors="params and state_steps",
                     devices="['cuda', 'xpu', 'hpu', 'privateuseone', 'xla']",
                     check_all_first=False):
    """The ``step()`` of the single-tensor optimizers (``torch/optim/nadam.py``, ``radam.py``,
    ...): ``closure()``'s loss; then, without gradient, for each parameter with a gradient,
    its state made by ``self._init_state(p, group, state)`` on the first step, the
    capturable check with that optimizer's texts, and ``self._update(p, group, state)``.
    ``check_all_first``: Adadelta makes every state and checks every parameter of a group
    before updating any."""
    loss = self._evaluate(closure)
    with no_grad():
        for group in self.param_groups:
            params = _params_with_grad(group)
            if check_all_first:
                for p in params:
                    self._lazy_state(p, group)
                for p in params:
                    _check_capturable(p, group, tensors, devices)
                for p in params:
                    self._update(p, group, self.state[p])
            else:
                for p in params:
                    state = self._lazy_state(p, group)
                    _check_capturable(p, group, tensors, devices)
                    self._update(p, group, state)
    return loss


def _lazy_state(self, p, group):
    """``p``'s state, filled by the optimizer's ``_init_state`` when still empty."""
    state = self.state[p]
    if len(state) == 0:
        self._init_state(p, group, state)
    return state


def _setstate_groups(self, scalar_keys=("step",), on_param_device=False, **group_defaults):
    """What each optimizer's ``__setstate__`` does after ``Optimizer.__setstate__``
    (``torch/optim/nadam.py``, ``radam.py``, ...): the group options that a state saved by
    an older version lacks take their defaults (in the order given), and the scalar state
    saved as numbers (``scalar_keys``) becomes 0-d tensors of the default float dtype, on
    the parameter's device with ``on_param_device`` (ASGD)."""
    for group in self.param_groups:
        for key, value in group_defaults.items():
            group.setdefault(key, value)
        for p in group["params"]:
            p_state = self.state.get(p, [])
            if len(p_state) == 0:
                continue
            device = p.device if on_param_device else None
            for key in scalar_keys:
                if not isinstance(p_state[key], Tensor):
                    p_state[key] = tensor(float(p_state[key]), dtype=_step_dtype(),
                                          device=device)


def _evaluate(self, closure):
    """``closure()`` with gradients on (it usually runs forward and backward), or None."""
    if closure is None:
        return None
    with enable_grad():
        return closure()


def _scratch(self, param, count):
    """``count`` work arrays like ``param``'s values (shape, dtype, device), reused across steps
    and parameters."""
    array = param._data
    key = (param._device, array.shape, array.dtype.str)
    scratch_arrays = self.__dict__.setdefault("_scratch_arrays", {})  # made on first use
    arrays = scratch_arrays.get(key)
    if arrays is None or len(arrays) < count:
        xp = array_module(param._device)
        arrays = scratch_arrays[key] = [xp.empty_like(array) for _ in range(count)]
    return arrays


_attach(Optimizer, __setstate__=__setstate__, _load_state_dict_as_pytorch=_load_state_dict_as_pytorch,
        __repr__=__repr__, __reduce_ex__=__reduce_ex__, __getstate__=__getstate__,
        __copy__=__copy__, __deepcopy__=__deepcopy__,
        register_step_pre_hook=register_step_pre_hook, register_step_post_hook=register_step_post_hook,
        _step_each_param=_step_each_param, _lazy_state=_lazy_state,
        _setstate_groups=_setstate_groups, _evaluate=_evaluate, _scratch=_scratch)


# The messages of the range checks, for the hyper-parameters that must not be negative.
_NON_NEGATIVE = {"lr": "learning rate", "eps": "epsilon value", "weight_decay": "weight_decay value",
                 "momentum_decay": "momentum_decay value"}


def _check_hyperparameters(**values):
    """The range checks that each of PyTorch's optimizer constructors writes out
    (``torch/optim/nadam.py``, ``radam.py``, ...), with PyTorch's messages, made in the order
    the keywords are given."""
    for name, value in values.items():
        if name == "lr" and isinstance(value, Tensor) and value.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if name in _NON_NEGATIVE:
            if not 0.0 <= value:
                raise ValueError(f"Invalid {_NON_NEGATIVE[name]}: {value}")
        elif name == "betas":
            for i in (0, 1):
                if not 0.0 <= value[i] < 1.0:
                    raise ValueError(f"Invalid beta parameter at index {i}: {value[i]}")
        elif name == "rho":
            if not 0.0 <= value <= 1.0:
                raise ValueError(f"Invalid rho value: {value}")
        elif name == "etas":
            if not 0.0 < value[0] < 1.0 < value[1]:
                raise ValueError(f"Invalid eta values: {value[0]}, {value[1]}")
        else:
            raise TypeError(f"_check_hyperparameters has no check for {name!r}")


def _lerp(start, end, weight):
    """``start.lerp(end, weight)`` on arrays as PyTorch's CPU kernel computes it: from the nearer
    end, in one fused multiply-add where the CPU has them (``nnref._ops.fused``), so the digits
    agree for any weight."""
    return blend_lerp(start, end, start.dtype.type(weight))


def _addcmul(start, tensor1, tensor2, value):
    """``start.addcmul(tensor1, tensor2, value=value)`` on arrays as PyTorch's CPU kernel computes
    it: ``start + (value * tensor1) * tensor2`` in one fused multiply-add where the CPU has them
    (``nnref._ops.fused``)."""
    return fma(start.dtype.type(value) * tensor1, tensor2, start)


def _check_capturable(p, group, tensors="params and state_steps",
                      devices="['cuda', 'xpu', 'hpu', 'privateuseone', 'xla']"):
    """``capturable=True`` (CUDA-graph capture) needs the parameters on an accelerator: on the
    CPU, PyTorch's step fails with this error; on a GPU the step is the same arithmetic."""
    if group["capturable"] and p.device.type == "cpu":
        raise AssertionError(f"If capturable=True, {tensors} must be on supported devices: "
                             f"{devices}.")


def _no_differentiable(differentiable):
    if differentiable:
        raise NotImplementedError("nnref's optimizers update in place with numpy; "
                                  "differentiable=True is not supported")
