"""The operations, and their binding to ``Tensor`` methods and operators.

PyTorch generates both ``torch.add(a, b)`` and ``a.add(b)`` from one
declaration (``aten/src/ATen/native/native_functions.yaml``); here each op
is a plain function whose first argument is the tensor, so the same
function serves as the method.
"""
import functools

from ..core._tensor import Tensor
from . import _common, arithmetic, indexing, inplace, linalg, pointwise, reduction, shape, softmax
from ..core._ops import conversion
from . import random
from ._common import as_tensor


def _reflected(op):
    """``number <op> tensor`` for the commutative operators."""
    @functools.wraps(op)
    def method(self, other):
        return op(self, other)
    return method


def _inplace(op, apply=inplace.apply_inplace):
    @functools.wraps(op)
    def method(self, *args, **kwargs):
        return apply(self, op, *args, **kwargs)
    method.__name__ = op.__name__ + "_"
    return method


def _scan_inplace(op):
    """``cumsum_``/``cumprod_``: ``dtype=`` must be the tensor's own (PyTorch's in-place check)."""
    @functools.wraps(op)
    def method(self, dim, *, dtype=None):
        if dtype is not None and dtype is not self.dtype:
            raise RuntimeError(f"Bad in-place call: input tensor dtype {self.dtype._legacy_name[:-6].lower()} "
                               f"and output tensor dtype {dtype._legacy_name[:-6].lower()} should match")
        return inplace.apply_inplace(self, op, dim)
    method.__name__ = op.__name__ + "_"
    return method


def _shape_inplace(op):
    """``x.unsqueeze_(0)`` and the other in-place shape changes: ``x`` takes the view's shape and
    strides over the same memory.  PyTorch also rewrites the history of a tensor inside an
    autograd graph this way; nnref refuses that case (Differences page)."""
    @functools.wraps(op)
    def method(self, *args, **kwargs):
        from ..core.autograd.grad_mode import _GradState
        if self._inference and not _GradState.inference:
            inplace.check_writable(self)  # (its error: an inference tensor changed outside inference_mode)
        if _GradState.enabled and self.requires_grad:
            if self.grad_fn is None:
                raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                                   "operation.")
            raise NotImplementedError(f"nnref cannot change the shape of a tensor inside an autograd "
                                      f"graph in place ({op.__name__}_); PyTorch can. Write "
                                      f"x = x.{op.__name__}(...) instead.")
        self._data = op(self, *args, **kwargs)._data
        return self
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
    "__xor__": arithmetic.bitwise_xor, "__invert__": arithmetic.invert,
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
    "T": property(shape.numpy_T), "mT": property(shape.matrix_T), "mH": property(shape.matrix_H),
    "H": property(shape.conjugate_T), "adjoint": shape.adjoint, "conj": shape.conj,
    "resolve_conj": shape.conj, "resolve_neg": shape.conj, "conj_physical": shape.conj,
    "is_conj": shape.is_conj, "is_neg": shape.is_conj,
    "__getitem__": indexing.getitem, "__setitem__": indexing.setitem, "select": indexing.select, "narrow": indexing.narrow,
    "nonzero": indexing.nonzero,
    # softmax
    "softmax": softmax.softmax, "log_softmax": softmax.log_softmax,
    # in place
    "add_": inplace.add_, "sub_": _inplace(arithmetic.sub),
    "mul_": inplace.mul_, "div_": _inplace(arithmetic.div),
    "floor_divide_": _inplace(arithmetic.floor_divide), "remainder_": _inplace(arithmetic.remainder),
    "clamp_": _inplace(pointwise.clamp), "masked_fill_": _inplace(pointwise.masked_fill, inplace.apply_fill_),
    "relu_": _inplace(pointwise.relu), "sigmoid_": _inplace(pointwise.sigmoid),
    "tanh_": _inplace(pointwise.tanh), "exp_": _inplace(pointwise.exp), "log_": _inplace(pointwise.log),
    "sqrt_": _inplace(pointwise.sqrt), "abs_": _inplace(pointwise.abs), "sin_": _inplace(pointwise.sin),
    "cos_": _inplace(pointwise.cos), "neg_": _inplace(arithmetic.neg), "pow_": _inplace(arithmetic.pow),
    "reciprocal_": _inplace(arithmetic.reciprocal), "sign_": _inplace(pointwise.sign),
    "round_": _inplace(pointwise.round), "clip_": _inplace(pointwise.clamp),
    "addmm_": _inplace(linalg.addmm), "squeeze_": _shape_inplace(shape.squeeze),
    "unsqueeze_": _shape_inplace(shape.unsqueeze), "t_": _shape_inplace(shape.t),
    "transpose_": _shape_inplace(shape.transpose),
    "swapdims_": _shape_inplace(shape.transpose),
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
from ..core import _dtype  # noqa: E402
from . import einsum, predicates, reduce_ops, scatter, sorting, tensor_shape  # noqa: E402

def _conversion(dtype):
    """``Tensor.byte()`` and the like: ``self.to(dtype, memory_format=...)``."""
    def convert(self, *, memory_format=None):
        return self.to(dtype, memory_format=memory_format)
    convert.__doc__ = f"``self.to({dtype})``."
    return convert


def _split_method(self, split_size, dim=0):
    """``Tensor.split(split_size, dim=0)``: ``torch.split`` under the method's own parameter
    name (``torch/_tensor.py``; the function calls it ``split_size_or_sections``)."""
    return tensor_shape.split(self, split_size, dim)


_TUTORIAL_METHODS = {
    "gather": scatter.gather, "scatter": scatter.scatter, "scatter_add": scatter.scatter_add,
    "scatter_": _inplace(scatter.scatter), "scatter_add_": _inplace(scatter.scatter_add),
    "prod": reduce_ops.prod, "cumsum": reduce_ops.cumsum, "logsumexp": reduce_ops.logsumexp,
    "cumsum_": _scan_inplace(reduce_ops.cumsum),
    "sort": sorting.sort, "argsort": sorting.argsort, "topk": sorting.topk,
    "split": _split_method, "chunk": tensor_shape.chunk, "repeat": tensor_shape.repeat,
    "diagonal": tensor_shape.diagonal, "tril": tensor_shape.tril, "triu": tensor_shape.triu,
    "tril_": _inplace(tensor_shape.tril), "triu_": _inplace(tensor_shape.triu),
    "isnan": predicates.isnan, "isinf": predicates.isinf, "isfinite": predicates.isfinite,
    "isposinf": predicates.isposinf, "isneginf": predicates.isneginf, "isreal": predicates.isreal,
    "split_with_sizes": tensor_shape.split_with_sizes,
    "relu_": _inplace(pointwise.relu),
    "byte": _conversion(_dtype.uint8), "char": _conversion(_dtype.int8), "short": _conversion(_dtype.int16),
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

# Reordering and picking, truth values, and PyTorch's other names for views and ops above.
from . import logical, reorder  # noqa: E402


def _movedim(input, source, destination):
    """``movedim``/``moveaxis``: the permutation that puts dims ``source`` at ``destination``."""
    ndim = input._data.ndim
    source = (source,) if isinstance(source, int) else tuple(source)
    destination = (destination,) if isinstance(destination, int) else tuple(destination)
    if len(source) != len(destination):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({list(source)} dims) "
                           f"should contain the same number of dims as destination ({list(destination)} dims)")
    source = [d % ndim if ndim else 0 for d in source]
    destination = [d % ndim if ndim else 0 for d in destination]
    order = [d for d in range(ndim) if d not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return shape.permute(input, order)


def _unflatten(input, dim, sizes):
    """``unflatten``: dim ``dim`` split into ``sizes`` (one of them may be -1), as a view."""
    dim = dim % input._data.ndim if input._data.ndim else 0
    new = list(input._data.shape[:dim]) + list(sizes) + list(input._data.shape[dim + 1:])
    return shape.view(input, new)


def _tile(input, *args, dims=None):
    """``tile``: ``repeat`` with missing leading dims counted as 1."""
    dims = _common.size_arguments("tile", "dims", args, dims)
    dims = (1,) * (input._data.ndim - len(dims)) + dims
    return tensor_shape.repeat(input, dims)


def _outer(input, vec2):
    """``outer`` (``ger``): ``input[i] * vec2[j]``; a composite of reshape and mul, as in PyTorch."""
    if input._data.ndim != 1 or vec2._data.ndim != 1:
        raise RuntimeError(f"outer: expected 1-D vectors, got {input._data.ndim}-D and {vec2._data.ndim}-D")
    return arithmetic.mul(shape.reshape(input, (-1, 1)), vec2)


def _swapaxes(input, axis0, axis1):
    """``swapaxes``: ``transpose`` under numpy's name, with PyTorch's parameter names for it."""
    return shape.transpose(input, axis0, axis1)


def _ravel(input):
    """``ravel``: the elements as one dimension (a view where the strides allow it)."""
    return shape.reshape(input, (-1,))


def _positive(input):
    """``positive``: ``input`` itself (PyTorch returns ``self`` for non-bool tensors)."""
    return input


_MORE_METHODS = {
    **{name: getattr(reorder, name) for name in reorder.__all__},
    "index_add_": _inplace(reorder.index_add),
    **{name: getattr(logical, name) for name in logical.__all__},
    "logical_and_": _inplace(logical.logical_and), "logical_or_": _inplace(logical.logical_or),
    "logical_xor_": _inplace(logical.logical_xor), "logical_not_": _inplace(logical.logical_not),
    "broadcast_to": shape.broadcast_to, "movedim": _movedim, "moveaxis": _movedim,
    "swapaxes": _swapaxes, "swapaxes_": _shape_inplace(_swapaxes), "swapdims": shape.transpose, "unflatten": _unflatten,
    "ravel": _ravel, "tile": _tile, "outer": _outer, "ger": _outer,
    "negative": arithmetic.neg, "negative_": _inplace(arithmetic.neg), "positive": _positive,
    "ndimension": lambda self: self._data.ndim,
    "is_cpu": property(lambda self: self._device.type == "cpu"),
    "itemsize": property(lambda self: self._dtype.itemsize),
    "nbytes": property(lambda self: self._dtype.itemsize * int(self._data.size)),
}
for _name, _function in _MORE_METHODS.items():
    setattr(Tensor, _name, _function)

__all__ += ["logical", "reorder"]

from . import blend, composite  # noqa: E402

for _name in blend.__all__ + ["take_along_dim", "argwhere", "repeat_interleave", "diag"]:
    setattr(Tensor, _name, getattr(blend, _name, None) or getattr(composite, _name))
for _name in ("atan2", "hypot", "lerp", "addcmul", "addcdiv", "nan_to_num"):
    setattr(Tensor, _name + "_", _inplace(getattr(blend, _name)))
Tensor.arctan2, Tensor.arctan2_ = blend.atan2, _inplace(blend.atan2)

__all__ += ["blend", "composite"]

# Running ops beside cumsum, and more of PyTorch's ops (each module names the ATen file it mirrors).
from . import cumulative  # noqa: E402

for _name in cumulative.__all__:
    setattr(Tensor, _name, getattr(cumulative, _name))
Tensor.cumprod_ = _scan_inplace(cumulative.cumprod)

__all__ += ["cumulative"]

from . import binary, signs, special  # noqa: E402

_NO_IN_PLACE = {"signbit", "fmax", "fmin", "logaddexp", "logaddexp2", "float_power"}
_MORE_OPS = {name: getattr(module, name) for module in (binary, signs, special) for name in module.__all__}
_MORE_OPS.update(polygamma=special._polygamma_method,  # Tensor.polygamma(n): n comes second
                 arccosh=elementwise.acosh, arcsinh=elementwise.asinh, arctanh=elementwise.atanh,
                 absolute=pointwise.abs, divide=arithmetic.div, multiply=arithmetic.mul,
                 subtract=arithmetic.sub, true_divide=arithmetic.true_divide)
for _name, _function in _MORE_OPS.items():
    setattr(Tensor, _name, _function)
    if _name not in _NO_IN_PLACE:
        setattr(Tensor, _name + "_", _inplace(_function))
Tensor.float_power_ = binary.float_power_
Tensor.greater, Tensor.greater_equal, Tensor.less, Tensor.less_equal, Tensor.not_equal = (
    arithmetic.gt, arithmetic.ge, arithmetic.lt, arithmetic.le, arithmetic.ne)

__all__ += ["binary", "signs", "special"]

from . import order_statistics  # noqa: E402

for _name in order_statistics.__all__:
    setattr(Tensor, _name, getattr(order_statistics, _name))

__all__ += ["order_statistics"]

from . import reduce_more  # noqa: E402

for _name in ("aminmax", "nansum", "nanmean", "renorm"):
    setattr(Tensor, _name, getattr(reduce_more, _name))
Tensor.renorm_ = _inplace(reduce_more.renorm)

__all__ += ["reduce_more"]

from . import shape_composites  # noqa: E402

for _name in ("tensor_split", "hsplit", "vsplit", "dsplit", "fliplr", "flipud", "rot90", "diff", "unique_consecutive",
              "narrow_copy"):
    setattr(Tensor, _name, getattr(shape_composites, _name))

__all__ += ["shape_composites"]

from . import blas  # noqa: E402

for _name in blas.__all__:
    setattr(Tensor, _name, getattr(blas, _name))
for _name in ("addmv", "addr", "baddbmm", "addbmm"):
    setattr(Tensor, _name + "_", _inplace(getattr(blas, _name)))

__all__ += ["blas"]

from . import index_ops  # noqa: E402

for _name in index_ops.__all__:
    setattr(Tensor, _name, getattr(index_ops, _name))
Tensor.index_copy_ = _inplace(index_ops.index_copy)
Tensor.index_fill_ = _inplace(index_ops.index_fill, inplace.apply_fill_)
Tensor.masked_scatter_ = _inplace(index_ops.masked_scatter, index_ops.apply_masked_scatter_)

__all__ += ["index_ops"]

from . import scatter_reduce as _scatter_reduce  # noqa: E402

Tensor.scatter_reduce = _scatter_reduce.scatter_reduce
Tensor.scatter_reduce_ = _inplace(_scatter_reduce.scatter_reduce)

from . import index_factories, searching  # noqa: E402

Tensor.bitwise_and, Tensor.bitwise_or, Tensor.bitwise_xor, Tensor.bitwise_not = (
    arithmetic.bitwise_and, arithmetic.bitwise_or, arithmetic.bitwise_xor, arithmetic.bitwise_not)
for _name in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not"):
    setattr(Tensor, _name + "_", _inplace(getattr(arithmetic, _name)))
Tensor.__rand__, Tensor.__ror__, Tensor.__rxor__ = (_reflected(arithmetic.bitwise_and), _reflected(arithmetic.bitwise_or),
                                                    _reflected(arithmetic.bitwise_xor))
Tensor.__iand__, Tensor.__ior__, Tensor.__ixor__ = (_operator_inplace(arithmetic.bitwise_and),
                                                    _operator_inplace(arithmetic.bitwise_or),
                                                    _operator_inplace(arithmetic.bitwise_xor))

__all__ += ["index_factories", "searching"]

from . import compare_inplace  # noqa: E402

for _name in compare_inplace.__all__:
    setattr(Tensor, _name, getattr(compare_inplace, _name))
(Tensor.greater_, Tensor.greater_equal_, Tensor.less_, Tensor.less_equal_, Tensor.not_equal_) = (
    compare_inplace.gt_, compare_inplace.ge_, compare_inplace.lt_, compare_inplace.le_, compare_inplace.ne_)

__all__ += ["compare_inplace"]

from . import diagonal_builders  # noqa: E402

for _name in ("diag_embed", "diagflat", "msort"):
    setattr(Tensor, _name, getattr(diagonal_builders, _name))

__all__ += ["diagonal_builders"]

from . import integration  # noqa: E402

__all__ += ["integration"]

from . import histograms  # noqa: E402

Tensor.histc = histograms.histc
Tensor.histogram = histograms.histogram
__all__ += ["histograms"]

from . import float_parts  # noqa: E402

Tensor.frexp, Tensor.ldexp, Tensor.ldexp_ = float_parts.frexp, float_parts.ldexp, _inplace(float_parts.ldexp,
                                                                         inplace.apply_inplace_from_copies)
__all__ += ["float_parts"]

from . import correlation  # noqa: E402

Tensor.cov, Tensor.corrcoef = correlation.cov, correlation.corrcoef
__all__ += ["correlation"]

from . import queries  # noqa: E402

Tensor.is_nonzero, Tensor.is_same_size = queries.is_nonzero, queries.is_same_size
Tensor.is_signed, Tensor.is_complex, Tensor.get_device = queries.is_signed, queries.is_complex, queries.get_device
Tensor.is_pinned, Tensor.pin_memory = queries.is_pinned, queries.pin_memory
__all__ += ["queries"]

from . import tensordot  # noqa: E402

Tensor.inner = tensordot.inner
__all__ += ["tensordot"]

from . import linalg_decompositions, linalg_determinants, linalg_norms, linalg_solvers, linalg_spectral  # noqa: E402

Tensor.det, Tensor.logdet, Tensor.inverse = linalg_determinants.det, linalg_determinants.logdet, linalg_solvers.inverse
Tensor.slogdet = linalg_determinants.torch_slogdet
Tensor.svd = linalg_spectral.torch_svd
__all__ += ["linalg_decompositions", "linalg_determinants", "linalg_norms", "linalg_solvers"]

from . import quantile  # noqa: E402

Tensor.quantile, Tensor.nanquantile = quantile.quantile, quantile.nanquantile
__all__ += ["quantile"]

Tensor.unfold = tensor_shape.unfold

from .._creation import new as _legacy_new  # noqa: E402
Tensor.new = _legacy_new
