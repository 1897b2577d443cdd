"""``nn.utils.parametrize``: a tensor of a module computed on access from unconstrained originals
(``torch/nn/utils/parametrize.py``).

``register_parametrization(module, "weight", P())`` moves ``module.weight`` into
``module.parametrizations.weight.original`` (a ``ParametrizationList``) and swaps the module's
class for a subclass ``Parametrized<Class>`` that holds a property ``weight`` returning
``P()(original)``; assigning to ``module.weight`` runs ``right_inverse``.  The class is made per
module, so the property does not leak to other instances.  What nnref leaves out: TorchScript and
tracing (their checks), ``torch.__future__``'s swap of tensors (nnref always keeps the original
tensor's identity, PyTorch's default) and opaque objects in ``right_inverse``'s results.
"""
import collections
from collections.abc import Sequence
from contextlib import contextmanager

from ...core._tensor import Tensor
from ...core.autograd.grad_mode import no_grad
from ..modules.container import ModuleDict, ModuleList
from ..modules.module import Module
from ..parameter import Parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations",
           "transfer_parametrizations_and_params"]

_cache_enabled = 0
_cache = {}


@contextmanager
def cached():
    """Within the block, each parametrized tensor is computed once, on its first access, and
    reused (``torch.nn.utils.parametrize.cached``): for a weight read several times in a
    forward (a recurrent kernel, shared weights).  The cache is dropped when the outermost
    block exits."""
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module, name, X):
    if isinstance(X, Parameter):
        module.register_parameter(name, X)
    else:
        module.register_buffer(name, X)


def _maybe_set(dest, src):
    """``dest.set_(src)``: ``dest`` takes ``src``'s values (and storage) and keeps its identity,
    so an optimizer holding ``dest`` still updates the module."""
    dest.data = src
    dest._bump_version()


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, in registration order, and the original tensor(s) they
    are applied to: ``original``, or ``original0``, ``original1``, ... when the first
    parametrization's ``right_inverse`` returns a sequence (``torch.nn.utils.parametrize.
    ParametrizationList``).  Made by :func:`register_parametrization`, not by users."""

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")

        super().__init__(modules)
        self.unsafe = unsafe

        original_shape = original.shape
        original_dtype = original.dtype

        # The originals are right_inverse of the tensor, last parametrization first; one without
        # right_inverse (or whose right_inverse raises NotImplementedError) is taken as the identity.
        with no_grad():
            new = original
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    try:
                        new = module.right_inverse(new)
                    except NotImplementedError:
                        pass

        if not isinstance(new, Tensor) and not isinstance(new, Sequence):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                             f"Got {type(new).__name__}")

        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)

        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                                 f"original.dtype: {original.dtype}\n"
                                 f"right_inverse(original).dtype: {new.dtype}")
            if original.device != new.device:
                raise ValueError("When `right_inverse` outputs one tensor, it may not change the device.\n"
                                 f"original.device: {original.device}\n"
                                 f"right_inverse(original).device: {new.device}")
            # The original tensor object stays, so an optimizer built before still holds it.
            with no_grad():
                _maybe_set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, originali in enumerate(new):
                if not isinstance(originali, Tensor):
                    raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                                     "(list, tuple...). "
                                     f"Got element {i} of the sequence with type {type(originali).__name__}.")
                # New tensors: the user adds them to the optimizer (PyTorch documents this).
                if isinstance(original, Parameter):
                    originali = Parameter(originali, original.requires_grad)
                originali.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", originali)

        if not self.unsafe:
            # forward(right_inverse(original)) must live where original does.
            Z = self()
            if not isinstance(Z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(Z).__name__}.")
            if Z.dtype != original_dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the tensor, "
                                 "unless `unsafe` flag is enabled.\n"
                                 f"unparametrized dtype: {original_dtype}\n"
                                 f"parametrized dtype: {Z.dtype}")
            if Z.shape != original_shape:
                raise ValueError("Registering a parametrization may not change the shape of the tensor, "
                                 "unless `unsafe` flag is enabled.\n"
                                 f"unparametrized shape: {original_shape}\n"
                                 f"parametrized shape: {Z.shape}")

    def right_inverse(self, value):
        """Store ``value`` as the originals: each parametrization's ``right_inverse``, last
        registered first; what ``module.weight = value`` runs."""
        with no_grad():
            for module in reversed(self):
                if hasattr(module, "right_inverse"):
                    value = module.right_inverse(value)
                else:
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement "
                                       "right_inverse.")
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(f"The tensor returned by `right_inverse` has dtype {value.dtype} "
                                     f"while `original` has dtype {self.original.dtype}")
                _maybe_set(self.original, value)
            else:
                if not isinstance(value, collections.abc.Sequence):
                    raise ValueError("'right_inverse' must return a sequence of tensors. "
                                     f"Got {type(value).__name__}.")
                if len(value) != self.ntensors:
                    raise ValueError("'right_inverse' must return a sequence of tensors of length "
                                     f"{self.ntensors}. Got a sequence of length {len(value)}.")
                for i, tensor in enumerate(value):
                    original_i = getattr(self, f"original{i}")
                    if not isinstance(tensor, Tensor):
                        raise ValueError("'right_inverse' must return a sequence of tensors "
                                         f"or reference-type opaques. Got element {i} of type "
                                         f"{type(tensor).__name__}.")
                    if original_i.dtype != tensor.dtype:
                        raise ValueError(f"Tensor {i} returned by `right_inverse` has dtype {tensor.dtype} "
                                         f"while `original{i}` has dtype {original_i.dtype}")
                    _maybe_set(original_i, tensor)

    def forward(self):
        """The parametrized tensor: the first parametrization of the originals, then each next one."""
        if self.is_tensor:
            x = self[0](self.original)
        else:
            originals = (getattr(self, f"original{i}") for i in range(self.ntensors))
            x = self[0](*originals)
        # Only the integer-named children are parametrizations.
        curr_idx = 1
        while hasattr(self, str(curr_idx)):
            x = self[curr_idx](x)
            curr_idx += 1
        return x


def _inject_new_class(module):
    """Give ``module`` a class of its own, ``Parametrized<Class>``, to hold the properties."""
    cls = module.__class__

    def getstate(self):
        raise RuntimeError("Serialization of parametrized modules is only supported through state_dict(). See:\n"
                           "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
                           "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")

    def reduce_ex(self, protocol):
        # nnref's Module refuses pickling in __reduce_ex__, before __getstate__ is asked; pickling
        # a parametrized module raises PyTorch's RuntimeError, as there.
        getstate(self)

    # nn.Module defines __deepcopy__, so deepcopy of the new class needs nothing more.
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,),
                            {"__getstate__": getstate, "__reduce_ex__": reduce_ex})


def _inject_property(module, tensor_name):
    """Add to the module's own class the property ``tensor_name``: the parametrization's value on
    reading (cached inside :func:`cached`), its ``right_inverse`` on assignment."""
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_cached_parametrization(parametrization):
        key = (id(module), tensor_name)
        tensor = _cache.get(key)
        if tensor is None:
            tensor = parametrization()
            _cache[key] = tensor
        return tensor

    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if _cache_enabled:
            return get_cached_parametrization(parametrization)
        return parametrization()

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Make ``module.<tensor_name>`` the output of ``parametrization`` applied to the original
    parameter or buffer, which moves to ``module.parametrizations.<tensor_name>.original``
    (``torch.nn.utils.parametrize.register_parametrization``).

    A second registration on the same name chains: the new parametrization is applied to the
    output of the previous ones.  ``right_inverse``, when the parametrization has one, gives the
    original's initial value and makes ``module.<tensor_name> = X`` possible; returning a tuple
    registers ``original0``, ``original1``, ...  Unless ``unsafe``, the parametrization may not
    change the tensor's dtype or shape.  Returns ``module``.
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        # forward and right_inverse must map the space of module.<tensor_name> onto itself.
        if not unsafe:
            Y = getattr(module, tensor_name)
            X = parametrization(Y)
            if not isinstance(X, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(X).__name__}.")
            if X.dtype != Y.dtype:
                raise ValueError("Registering a parametrization may not change the dtype of the tensor, "
                                 "unless the `unsafe` flag is enabled.\n"
                                 f"module.{tensor_name}.dtype: {Y.dtype}\n"
                                 f"parametrization(module.{tensor_name}).dtype: {X.dtype}")
            if X.shape != Y.shape:
                raise ValueError("Registering a parametrization may not change the shape of the tensor, "
                                 "unless the `unsafe` flag is enabled.\n"
                                 f"module.{tensor_name}.shape: {Y.shape}\n"
                                 f"parametrization(module.{tensor_name}).shape: {X.shape}")
            if hasattr(parametrization, "right_inverse"):
                try:
                    Z = parametrization.right_inverse(X)
                except NotImplementedError:
                    pass
                else:
                    if not isinstance(Z, Tensor):
                        raise ValueError("parametrization.right_inverse must return a tensor. "
                                         f"Got: {type(Z).__name__}")
                    if Z.dtype != Y.dtype:
                        raise ValueError("The tensor returned by parametrization.right_inverse must have the "
                                         f"same dtype as module.{tensor_name}, unless the `unsafe` flag is "
                                         f"enabled.\nmodule.{tensor_name}.dtype: {Y.dtype}\n"
                                         f"returned dtype: {Z.dtype}")
                    if Z.shape != Y.shape:
                        raise ValueError("The tensor returned by parametrization.right_inverse must have the "
                                         f"same shape as module.{tensor_name}, unless the `unsafe` flag is "
                                         f"enabled.\nmodule.{tensor_name}.shape: {Y.shape}\n"
                                         f"returned shape: {Z.shape}")
        module.parametrizations[tensor_name].append(parametrization)
        # Once unsafe, the list stays unsafe.
        module.parametrizations[tensor_name].unsafe |= unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        # Made before anything changes, so its errors leave the module as it was.
        parametrizations = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = parametrizations
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` has a parametrization on ``tensor_name`` (on any tensor when ``None``)
    (``torch.nn.utils.parametrize.is_parametrized``)."""
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Undo :func:`register_parametrization` on ``tensor_name`` (all of its chain)
    (``torch.nn.utils.parametrize.remove_parametrizations``).

    With ``leave_parametrized=True`` the tensor keeps its current parametrized value, written
    into the original tensor object (so optimizers still hold it); with ``False`` it goes back
    to the original, which needs a single original tensor.  The module gets its class back once
    nothing of it is parametrized.  Returns ``module``.
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")

    parametrizations = module.parametrizations[tensor_name]
    if parametrizations.is_tensor:
        original = parametrizations.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
            with no_grad():
                _maybe_set(original, t)
    else:
        if leave_parametrized:
            # Not under no_grad: whether an original requires grad decides Parameter or buffer.
            t = getattr(module, tensor_name)
            original = Parameter(t) if t.requires_grad else t
        else:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                             "that is parametrized in terms of a sequence of tensors.")

    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]

    _register_parameter_or_buffer(module, tensor_name, original)

    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    """The module's class before any parametrization (``Linear`` for a ``ParametrizedLinear``)
    (``torch.nn.utils.parametrize.type_before_parametrizations``)."""
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Register ``from_module``'s parametrizations (of ``tensor_name``, or all) on ``to_module``
    and give it the same originals, creating the parameter there if it is missing
    (``torch.nn.utils.parametrize.transfer_parametrizations_and_params``).  Returns ``to_module``."""
    if is_parametrized(from_module):
        parameters_to_transfer = from_module.parametrizations if tensor_name is None else [tensor_name]
        for parameter_name in parameters_to_transfer:
            if not hasattr(to_module, parameter_name):
                setattr(to_module, parameter_name, Parameter(getattr(from_module, parameter_name)))
            for param_func in from_module.parametrizations[parameter_name]:
                register_parametrization(to_module, parameter_name, param_func)
            # The originals are original, or original0, original1, ...
            if hasattr(from_module.parametrizations[parameter_name], "original"):
                to_module.parametrizations[parameter_name].original = \
                    from_module.parametrizations[parameter_name].original
            else:
                num = 0
                orig_num = "original" + str(num)
                while hasattr(from_module.parametrizations[parameter_name], orig_num):
                    setattr(to_module.parametrizations[parameter_name], orig_num,
                            getattr(from_module.parametrizations[parameter_name], orig_num))
                    num = num + 1
                    orig_num = "original" + str(num)
    return to_module
