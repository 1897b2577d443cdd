"""``Module``'s state_dict methods: save and restore parameters and buffers
(``torch/nn/modules/module.py``, its ``state_dict`` section; chapter 10), bound onto ``Module``.

The mirror (``nnref/nn/modules/module.py``) binds the hooks' registration and a
``load_state_dict`` around this one that takes PyTorch's tensors and undoes a failed load.
"""
import itertools
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

from ...autograd.grad_mode import no_grad
from ..parameter import Parameter
from ..._tensor import Tensor
from .module import Module, bind

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What ``load_state_dict`` returns: the keys it expected but missed, and the extra ones."""

    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


def get_extra_state(self):
    """Override (with :meth:`set_extra_state`) to save non-tensor state in ``state_dict``."""
    raise RuntimeError("Reached a code path in Module.get_extra_state() that should never be "
                       "called: only subclasses that override it are asked for extra state.")


def set_extra_state(self, state):
    """Override (with :meth:`get_extra_state`) to restore the state it returned."""
    raise RuntimeError("Reached a code path in Module.set_extra_state() that should never be "
                       "called: only subclasses that override it are given extra state.")


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


def state_dict(self, *, destination=None, prefix="", keep_vars=False):
    """An ``OrderedDict`` of every parameter and persistent buffer, keyed by dotted name.

    Values are detached tensors sharing memory with the model (``keep_vars=True``: the
    parameters themselves); a parameter shared by two modules appears under both names.
    """
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


def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                          unexpected_keys, error_msgs):
    """Copy this module's own entries of ``state_dict`` into its parameters and buffers.

    Problems are appended to the lists rather than raised, so ``load_state_dict`` reports them
    all at once.  Subclasses override this to upgrade old checkpoints (``local_metadata``).
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
    if type(self).set_extra_state is not Module.set_extra_state:
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

    With ``strict=True`` the keys must match :meth:`state_dict`'s exactly; otherwise the
    missing and unexpected keys are only reported.  A shape mismatch always fails.  With
    ``assign=True`` the checkpoint's tensors replace the module's instead of being copied.
    """
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
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


bind(Module, get_extra_state=get_extra_state, set_extra_state=set_extra_state,
     _save_to_state_dict=_save_to_state_dict, state_dict=state_dict,
     _load_from_state_dict=_load_from_state_dict, load_state_dict=load_state_dict)
