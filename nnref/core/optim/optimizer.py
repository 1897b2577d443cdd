"""``Optimizer``: the base class of every optimizer (``torch/optim/optimizer.py``, chapter 15).

It holds ``param_groups`` (dicts: the tensors under ``'params'`` and their hyper-parameters) and
``state`` (keyed by parameter: momentum buffers, Adam's moments ...).
"""
import functools
import warnings
from collections import OrderedDict, defaultdict
from copy import deepcopy
from itertools import chain

from .._naming import TorchNamedABC
from .._tensor import Tensor

__all__ = ["Optimizer"]

# Every optimizer's step hooks, which nnref/optim/optimizer.py's register_optimizer_step_* fill.
_global_optimizer_pre_hooks = OrderedDict()
_global_optimizer_post_hooks = OrderedDict()


class Optimizer(metaclass=TorchNamedABC):
    """Subclasses call ``super().__init__(params, defaults)`` and implement ``step()``."""

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._optimizer_step_pre_hooks = OrderedDict()
        self._optimizer_step_post_hooks = OrderedDict()
        self._patch_step_function()
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

    def _patch_step_function(self):
        """Wrap this class's ``step`` with the hook calls, once per class."""
        step = type(self).step
        if not getattr(step, "hooked", False):
            type(self).step = Optimizer.profile_hook_step(step)
            type(self).step.hooked = True

    @staticmethod
    def profile_hook_step(func):
        """``func`` (a ``step``) with the global and the optimizer's own pre and post hooks around it."""
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            self = args[0]
            for pre_hook in chain(_global_optimizer_pre_hooks.values(),
                                  self._optimizer_step_pre_hooks.values()):
                result = pre_hook(self, args, kwargs)
                if result is not None:
                    if isinstance(result, tuple) and len(result) == 2:
                        args, kwargs = result
                    else:
                        raise RuntimeError(f"{func} must return None or a tuple of (new_args, "
                                           f"new_kwargs), but got {result}.")
            out = func(*args, **kwargs)
            for post_hook in chain(self._optimizer_step_post_hooks.values(),
                                   _global_optimizer_post_hooks.values()):
                post_hook(self, args, kwargs)
            return out
        return wrapper

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
        # named_parameters() may be given: (name, tensor) pairs keep their names in 'param_names'.
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
        """Update the parameters from their ``.grad`` (``closure`` re-runs forward and backward)."""
        raise NotImplementedError

    def state_dict(self):
        """``{'state': {index: {...}}, 'param_groups': [{..., 'params': [index, ...]}]}``, numbered
        in the groups' order; ``state``'s tensors are the optimizer's own, as in PyTorch."""
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
        """Restore hyper-parameters and state saved by :meth:`state_dict`, atomically: the
        attributes are recorded first and restored if the load raises."""
        attributes = dict(self.__dict__)
        try:
            self._load_state_dict_as_pytorch(state_dict)
        except BaseException:
            self.__dict__.clear()
            self.__dict__.update(attributes)
            raise

    # nnref/optim/optimizer.py binds PyTorch's algorithm here (checks, casts, param_names).
    def _load_state_dict_as_pytorch(self, state_dict):
        """The saved state under this optimizer's parameters (matched by their numbers), and the
        saved hyper-parameters as the groups, each with its own ``'params'``."""
        saved_groups = deepcopy(state_dict["param_groups"])
        if [len(g["params"]) for g in self.param_groups] != [len(g["params"]) for g in saved_groups]:
            raise ValueError("loaded state dict does not match the optimizer's parameter groups")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in self.param_groups)))
        self.state = defaultdict(dict, {id_map.get(k, k): v for k, v in state_dict["state"].items()})
        for group, saved in zip(self.param_groups, saved_groups):
            saved["params"] = group["params"]
        self.param_groups = saved_groups


def _params_with_grad(group):
    """The group's parameters that received a gradient (the others are skipped, as in PyTorch)."""
    return [p for p in group["params"] if p.grad is not None]
