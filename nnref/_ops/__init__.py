"""The operations, and their binding to ``Tensor`` methods and operators.

PyTorch generates both ``torch.add(a, b)`` and ``a.add(b)`` from one
declaration (``native_functions.yaml``); here each op is a plain function whose
first argument is the tensor, so the same function serves as the method.
"""
import functools

from .._tensor import Tensor
from . import arithmetic, conversion, indexing, inplace, linalg, pointwise, reduction, shape, softmax
from . import random
from ._common import as_tensor


def _reflected(op):
    """``number <op> tensor`` for the commutative operators."""
    @functools.wraps(op)
    def method(self, other):
        return op(self, other)
    return method


def _inplace(op):
    @functools.wraps(op)
    def method(self, *args, **kwargs):
        return inplace.apply_inplace(self, op, *args, **kwargs)
    method.__name__ = op.__name__ + "_"
    return method


def _operator_inplace(op):
    """``a += b``: in place, like ``a.add_(b)``."""
    def method(self, other):
        return inplace.apply_inplace(self, op, other)
    return method


def _rpow(self, other):
    return arithmetic.pow(other, self)


def _rsub(self, other):
    return arithmetic.rsub(self, other)


def _rtruediv(self, other):
    return arithmetic.rdiv(self, other)


def _rfloordiv(self, other):
    return arithmetic.floor_divide(other, self)


def _rmod(self, other):
    return arithmetic.remainder(other, self)


def _rmatmul(self, other):
    return linalg.matmul(as_tensor(other, self), self)


_METHODS = {
    # arithmetic
    "add": arithmetic.add, "sub": arithmetic.sub, "mul": arithmetic.mul, "div": arithmetic.div,
    "pow": arithmetic.pow, "neg": arithmetic.neg, "reciprocal": arithmetic.reciprocal,
    "floor_divide": arithmetic.floor_divide, "remainder": arithmetic.remainder,
    "eq": arithmetic.eq, "ne": arithmetic.ne, "lt": arithmetic.lt, "le": arithmetic.le,
    "gt": arithmetic.gt, "ge": arithmetic.ge, "isclose": arithmetic.isclose,
    "allclose": arithmetic.allclose, "equal": arithmetic.equal,
    "__add__": arithmetic.add, "__radd__": _reflected(arithmetic.add),
    "__sub__": arithmetic.sub, "__rsub__": _rsub,
    "__mul__": arithmetic.mul, "__rmul__": _reflected(arithmetic.mul),
    "__truediv__": arithmetic.div, "__rtruediv__": _rtruediv,
    "__pow__": arithmetic.pow, "__rpow__": _rpow,
    "__floordiv__": arithmetic.floor_divide, "__rfloordiv__": _rfloordiv,
    "__mod__": arithmetic.remainder, "__rmod__": _rmod,
    "__matmul__": linalg.matmul, "__rmatmul__": _rmatmul,
    "__neg__": arithmetic.neg, "__pos__": lambda self: self,
    "__eq__": arithmetic.eq, "__ne__": arithmetic.ne, "__lt__": arithmetic.lt,
    "__le__": arithmetic.le, "__gt__": arithmetic.gt, "__ge__": arithmetic.ge,
    "__and__": arithmetic.bitwise_and, "__or__": arithmetic.bitwise_or,
    "__xor__": arithmetic.bitwise_xor, "__invert__": arithmetic.bitwise_not,
    "__iadd__": _operator_inplace(arithmetic.add), "__isub__": _operator_inplace(arithmetic.sub),
    "__imul__": _operator_inplace(arithmetic.mul), "__itruediv__": _operator_inplace(arithmetic.div),
    "__ifloordiv__": _operator_inplace(arithmetic.floor_divide),
    "__imod__": _operator_inplace(arithmetic.remainder),
    # pointwise
    "exp": pointwise.exp, "log": pointwise.log, "sqrt": pointwise.sqrt, "abs": pointwise.abs,
    "sin": pointwise.sin, "cos": pointwise.cos, "round": pointwise.round,
    "__abs__": pointwise.abs, "sign": pointwise.sign, "tanh": pointwise.tanh,
    "sigmoid": pointwise.sigmoid, "relu": pointwise.relu, "clamp": pointwise.clamp,
    "clip": pointwise.clamp, "maximum": pointwise.maximum, "minimum": pointwise.minimum,
    "masked_fill": pointwise.masked_fill,
    "where": lambda self, condition, other: pointwise.where(condition, self, other),
    # reductions
    "sum": reduction.sum, "mean": reduction.mean, "var": reduction.var, "std": reduction.std,
    "norm": reduction.norm, "max": reduction.max,
    "min": reduction.min, "amax": reduction.amax, "amin": reduction.amin,
    "argmax": reduction.argmax, "argmin": reduction.argmin, "sum_to_size": reduction.sum_to_size,
    "all": reduction.all, "any": reduction.any, "bincount": reduction.bincount,
    # matrices
    "matmul": linalg.matmul, "addmm": linalg.addmm, "mm": linalg.mm, "mv": linalg.mv, "bmm": linalg.bmm, "dot": linalg.dot,
    # shapes
    "view": shape.view, "reshape": shape.reshape, "flatten": shape.flatten,
    "squeeze": shape.squeeze, "unsqueeze": shape.unsqueeze, "transpose": shape.transpose,
    "permute": shape.permute, "t": shape.t, "expand": shape.expand, "expand_as": shape.expand_as,
    "unbind": shape.unbind, "clone": shape.clone, "contiguous": shape.contiguous, "is_contiguous": shape.is_contiguous,
    "view_as": lambda self, other: shape.view(self, other._data.shape),
    "reshape_as": lambda self, other: shape.reshape(self, other._data.shape),
    "T": property(shape.numpy_T), "mT": property(shape.matrix_T),
    "__getitem__": indexing.getitem, "__setitem__": indexing.setitem, "select": indexing.select, "narrow": indexing.narrow,
    "nonzero": indexing.nonzero,
    # softmax
    "softmax": softmax.softmax, "log_softmax": softmax.log_softmax,
    # in place
    "add_": _inplace(arithmetic.add), "sub_": _inplace(arithmetic.sub),
    "mul_": _inplace(arithmetic.mul), "div_": _inplace(arithmetic.div),
    "floor_divide_": _inplace(arithmetic.floor_divide), "remainder_": _inplace(arithmetic.remainder),
    "clamp_": _inplace(pointwise.clamp), "masked_fill_": _inplace(pointwise.masked_fill),
    "relu_": _inplace(pointwise.relu), "sigmoid_": _inplace(pointwise.sigmoid),
    "tanh_": _inplace(pointwise.tanh), "exp_": _inplace(pointwise.exp), "log_": _inplace(pointwise.log),
    "sqrt_": _inplace(pointwise.sqrt), "abs_": _inplace(pointwise.abs), "sin_": _inplace(pointwise.sin),
    "cos_": _inplace(pointwise.cos), "neg_": _inplace(arithmetic.neg), "pow_": _inplace(arithmetic.pow),
    "reciprocal_": _inplace(arithmetic.reciprocal),
    "zero_": inplace.zero_, "fill_": inplace.fill_, "copy_": inplace.copy_,
    "uniform_": inplace.uniform_, "normal_": inplace.normal_,
    "random_": random.random_, "bernoulli_": random.bernoulli_, "bernoulli": random.bernoulli,
    "exponential_": random.exponential_, "multinomial": random.multinomial,
}

for _name, _function in _METHODS.items():
    setattr(Tensor, _name, _function)

__all__ = ["arithmetic", "conversion", "indexing", "inplace", "linalg", "pointwise", "reduction",
           "shape", "softmax"]

# The ops the PyTorch tutorials use beyond the core ones, bound the same way.
from .. import _dtype  # noqa: E402
from . import einsum, predicates, reduce_ops, scatter, sorting, tensor_shape  # noqa: E402

_TUTORIAL_METHODS = {
    "gather": scatter.gather, "scatter": scatter.scatter, "scatter_add": scatter.scatter_add,
    "scatter_": _inplace(scatter.scatter), "scatter_add_": _inplace(scatter.scatter_add),
    "prod": reduce_ops.prod, "cumsum": reduce_ops.cumsum, "logsumexp": reduce_ops.logsumexp,
    "sort": sorting.sort, "argsort": sorting.argsort, "topk": sorting.topk,
    "split": tensor_shape.split, "chunk": tensor_shape.chunk, "repeat": tensor_shape.repeat,
    "diagonal": tensor_shape.diagonal, "tril": tensor_shape.tril, "triu": tensor_shape.triu,
    "tril_": _inplace(tensor_shape.tril), "triu_": _inplace(tensor_shape.triu),
    "isnan": predicates.isnan, "isinf": predicates.isinf, "isfinite": predicates.isfinite,
    "relu_": _inplace(pointwise.relu),
    "byte": lambda self: self.to(_dtype.uint8), "char": lambda self: self.to(_dtype.int8),
    "short": lambda self: self.to(_dtype.int16),
}

for _name, _function in _TUTORIAL_METHODS.items():
    setattr(Tensor, _name, _function)

__all__ += ["einsum", "predicates", "reduce_ops", "scatter", "sorting", "tensor_shape"]

# More elementwise math, each with its in-place form, under PyTorch's names and aliases.
from . import elementwise  # noqa: E402

_ELEMENTWISE = {name: getattr(elementwise, name) for name in elementwise.__all__}
_ELEMENTWISE.update(arcsin=elementwise.asin, arccos=elementwise.acos, arctan=elementwise.atan,
                    fix=elementwise.trunc)
for _name, _function in _ELEMENTWISE.items():
    setattr(Tensor, _name, _function)
    setattr(Tensor, _name + "_", _inplace(_function))

__all__ += ["elementwise"]
