"""``Optimizer``: the base class of every optimizer (``torch/optim/optimizer.py``).

An optimizer holds ``param_groups`` (a list of dicts: the tensors under
``'params'`` plus their hyper-parameters, filled in from ``defaults``) and
``state`` (a dict keyed by parameter: momentum buffers, Adam's moments...).
``state_dict()`` replaces every parameter by its position, so the result can
be saved and later loaded into a new optimizer over the same parameters.
"""
from collections import defaultdict
from copy import deepcopy
from itertools import chain
import warnings

from ..core._naming import TorchNamedABC
from .._creation import tensor
from ..core._device import array_module
from .._ops.blend import _lerp as blend_lerp
from .._ops.fused import fma
from ..core._tensor import Tensor
from ..core.autograd.grad_mode import enable_grad, no_grad

__all__ = ["Optimizer"]


class Optimizer(metaclass=TorchNamedABC):
    """Subclasses call ``super().__init__(params, defaults)`` and implement ``step()``."""

    def __init__(self, params, defaults):
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            "Tensors or dicts, but got " + params.type())
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)
        # Work arrays for the in-place updates, shared by all parameters of one shape and dtype.
        self._scratch_arrays = {}

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__dict__.setdefault("_scratch_arrays", {})

    def __reduce_ex__(self, protocol):
        """``pickle.dump(optimizer, f)`` fails at once (its state holds tensors): save the state_dict."""
        from ..serialization import _not_picklable_message
        raise TypeError(_not_picklable_message(self))

    def __copy__(self):
        new = type(self).__new__(type(self))
        new.__dict__.update(self.__dict__)
        return new

    def __deepcopy__(self, memo):
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        new.__setstate__(deepcopy(self.__getstate__(), memo))
        return new

    def __repr__(self):
        format_string = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += "\n"
            format_string += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += f"    {key}: {group[key]}\n"
        format_string += ")"
        return format_string

    def add_param_group(self, param_group):
        """Add a group of parameters (with its own hyper-parameters), e.g. when unfreezing layers."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but "
                            "the ordering of tensors in sets will change between runs. Please use a "
                            "list instead.")
        else:
            param_group["params"] = list(params)
        names = [p[0] for p in param_group["params"] if isinstance(p, tuple)]
        param_group["params"] = [p[1] if isinstance(p, tuple) else p for p in param_group["params"]]
        if names:
            if len(names) != len(param_group["params"]):
                raise ValueError("all optimizer params should be with/without names. Some param "
                                 "names are missing")
            param_group["param_names"] = names
        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + type(param).__module__ + "." + type(param).__name__)
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            param_group.setdefault(name, default)
        params = param_group["params"]
        if len(params) != len({id(p) for p in params}):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see github.com/pytorch/pytorch/issues/"
                          "40967 for more information", stacklevel=3)
        seen = {id(p) for group in self.param_groups for p in group["params"]}
        if any(id(p) in seen for p in params):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        """Reset every parameter's ``.grad``: to ``None`` (default) or to zeros in place."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if p.grad.grad_fn is not None:
                        p.grad.detach_()
                    else:
                        p.grad.requires_grad_(False)
                    p.grad.zero_()

    def step(self, closure=None):
        """Update the parameters once from their ``.grad``; ``closure`` (re-runs forward and
        backward, returns the loss) is for optimisers that need it. Each subclass defines it
        (``torch/optim/optimizer.py``)."""
        raise NotImplementedError

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
        from .adam import _step_dtype  # adam.py imports this module
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
        arrays = self._scratch_arrays.get(key)
        if arrays is None or len(arrays) < count:
            xp = array_module(param._device)
            arrays = self._scratch_arrays[key] = [xp.empty_like(array) for _ in range(count)]
        return arrays

    # -- saving and restoring --------------------------------------------------------------------
    def state_dict(self):
        """``{'state': {index: {...}}, 'param_groups': [{..., 'params': [index, ...]}]}``.

        Parameters are numbered in the order the groups list them; the tensors
        in ``state`` are the optimizer's own (not copies), as in PyTorch.
        """
        param_mappings = {}
        start_index = 0

        def pack_group(group):
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            param_mappings.update({id(p): i for i, p in enumerate(group["params"], start_index)
                                   if id(p) not in param_mappings})
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(param_mappings[id(k)] if isinstance(k, Tensor) else k): v
                        for k, v in self.state.items()}
        return {"state": packed_state, "param_groups": param_groups}

    def load_state_dict(self, state_dict):
        """Restore hyper-parameters and state saved by :meth:`state_dict` (same parameter layout).

        PyTorch's algorithm, made atomic: the optimizer's attributes are recorded
        first and restored if anything raises, so a failed load changes nothing.
        """
        attributes = dict(self.__dict__)
        try:
            self._load_state_dict_as_pytorch(state_dict)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(attributes)
            raise

    def _load_state_dict_as_pytorch(self, state_dict):
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


def _params_with_grad(group):
    """The group's parameters that received a gradient (the others are skipped, as in PyTorch)."""
    return [p for p in group["params"] if p.grad is not None]



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
