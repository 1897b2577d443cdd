"""The base class of the probability distributions (``torch/distributions/distribution.py``).

A distribution has a ``batch_shape`` (independent parameter sets) and an ``event_shape`` (the
shape of one draw); ``sample(sample_shape)`` returns ``sample_shape + batch_shape +
event_shape``.  With validation on (the default, as PyTorch's: ``__debug__``) the parameters
are checked against ``arg_constraints`` when the distribution is built and values against
``support`` before ``log_prob``/``cdf``, raising PyTorch's ``ValueError`` word for word.
"""
import warnings

from ..core._naming import TorchNamedABC
from ..core._tensor import Size, Tensor
from ..core.autograd.grad_mode import no_grad
from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


class Distribution(metaclass=TorchNamedABC):
    """Abstract base of the probability distributions (``torch.distributions.Distribution``,
    ``torch/distributions/distribution.py``)."""

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument validation on or off for every distribution built afterwards
        without ``validate_args=``."""
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=Size(), event_shape=Size(), validate_args=None):
        self._batch_shape = batch_shape
        self._event_shape = event_shape
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(
                    f"{self.__class__} does not define `arg_constraints`. "
                    "Please set `arg_constraints = {}` or initialize the distribution "
                    "with `validate_args=False` to turn off validation.", stacklevel=2)
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue  # cannot be checked
                if param not in self.__dict__ and isinstance(getattr(type(self), param), lazy_property):
                    continue  # the other parameterisation was given: not built yet
                value = getattr(self, param)
                valid = constraint.check(value)
                if not bool(valid.all()):
                    raise ValueError(
                        f"Expected parameter {param} "
                        f"({type(value).__name__} of shape {tuple(value.shape)}) "
                        f"of distribution {repr(self)} "
                        f"to satisfy the constraint {repr(constraint)}, "
                        f"but found invalid values:\n{value}")
        super().__init__()

    def expand(self, batch_shape, _instance=None):
        """A new distribution whose parameters are ``expand``-ed to ``batch_shape`` (views, no
        copy and no new validation)."""
        raise NotImplementedError

    @property
    def batch_shape(self):
        """The shape over which the parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of a single draw (without batching)."""
        return self._event_shape

    @property
    def arg_constraints(self):
        """The constraint each tensor parameter satisfies, by parameter name."""
        raise NotImplementedError

    @property
    def support(self):
        """The constraint the values of the distribution satisfy."""
        raise NotImplementedError

    @property
    def mean(self):
        """The mean of the distribution."""
        raise NotImplementedError

    @property
    def mode(self):
        """The mode of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        """The variance of the distribution."""
        raise NotImplementedError

    @property
    def stddev(self):
        """The standard deviation of the distribution."""
        return self.variance.sqrt()

    def sample(self, sample_shape=Size()):
        """A draw of shape ``sample_shape + batch_shape + event_shape``, without gradient."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=Size()):
        """A reparameterised draw (differentiable in the parameters) of shape
        ``sample_shape + batch_shape + event_shape``."""
        raise NotImplementedError

    def sample_n(self, n):
        """``sample((n,))``, deprecated as in PyTorch."""
        warnings.warn("`sample_n(n)` will be deprecated. Use `sample((n,))` instead.",
                      FutureWarning, stacklevel=2)
        return self.sample(Size((n,)))

    def log_prob(self, value):
        """The log of the density or mass function at ``value``."""
        raise NotImplementedError

    def cdf(self, value):
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value):
        """The inverse cumulative distribution function at ``value``."""
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        """Every value of a discrete distribution along dimension 0, shape
        ``(cardinality,) + batch_shape + event_shape`` (batch dimensions of size 1 when
        ``expand=False``)."""
        raise NotImplementedError

    def entropy(self):
        """The entropy, of shape ``batch_shape``."""
        raise NotImplementedError

    def perplexity(self):
        """``exp(entropy())``."""
        return self.entropy().exp()

    def _extended_shape(self, sample_shape=Size()):
        """``sample_shape + batch_shape + event_shape``, as a Size."""
        return Size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value):
        """PyTorch's checks of a value given to ``log_prob``/``cdf``: a tensor, the event shape
        on the right, broadcastable with the batch shape, inside the support."""
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.size()) - len(self._event_shape)
        if tuple(value.size()[event_dim_start:]) != tuple(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: {value.size()} "
                             f"vs {self._event_shape}.")
        actual_shape = value.size()
        expected_shape = Size(tuple(self._batch_shape) + tuple(self._event_shape))
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual_shape} vs {expected_shape}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable "
                          "sample validation. Please initialize the distribution with "
                          "`validate_args=False` to turn off validation.", stacklevel=2)
            return
        valid = support.check(value)
        if not bool(valid.all()):
            raise ValueError(
                "Expected value argument "
                f"({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({repr(support)}) "
                f"of the distribution {repr(self)}, "
                f"but found invalid values:\n{value}")

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                "__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self):
        param_names = [k for k in self.arg_constraints if k in self.__dict__]
        args_string = ", ".join(
            f"{p}: {self.__dict__[p] if self.__dict__[p].numel() == 1 else self.__dict__[p].size()}"
            for p in param_names)
        return self.__class__.__name__ + "(" + args_string + ")"
