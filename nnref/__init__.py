"""nnref: a compact numpy re-implementation of PyTorch's tensors, autograd and ``nn.Module``.

``import nnref as torch`` runs the course's PyTorch code on numpy.  Each
module says which part of PyTorch it mirrors.
"""
from . import _cupy  # fills the core's device seams: 'cuda' on CuPy, 'meta'
from . import _ops  # binds the operations to Tensor's methods and operators
from . import _tensor_docs  # docstrings of the methods _ops binds without one
from . import _tensor_extras  # memory queries, predicates for what nnref lacks, copy.copy
from . import accelerator, amp, autograd, backends, cuda, distributed, utils, viz
from .amp import autocast
from ._creation import (BFloat16Tensor, BoolTensor, ByteTensor, CharTensor, DoubleTensor, FloatTensor,
                        HalfTensor, IntTensor, LongTensor, ShortTensor,
                        arange, as_tensor, asarray, empty, empty_like, eye, from_numpy, full, full_like,
                        linspace, normal, ones, ones_like, rand, rand_like, randint,
                        randint_like, randn, randn_like, randperm, tensor, zeros, zeros_like)
from ._device_extras import get_default_device, set_default_device
from .core._device import device
from .core._dtype import (bfloat16, bool, double, dtype, float, float16, float32, float64,
                          get_default_dtype, half, int, int8, int16, int32, int64, long,
                          promote_types, set_default_dtype, short, uint8)
from ._ops._common import torch_result_type as result_type
from ._ops.arithmetic import (add, allclose, div, eq, equal, floor_divide, ge, gt, isclose, le, lt,
                              mul, ne, neg, pow, reciprocal, remainder, rsub, sub)
from ._ops.indexing import narrow, nonzero, select
from ._ops.linalg import addmm, bmm, dot, matmul, mm, mv
from ._ops.pointwise import (abs, clamp, cos, exp, log, masked_fill, maximum, minimum, relu, round,
                             sigmoid, sign, sin, sqrt, tanh, where)
from ._ops.reduction import (all, amax, amin, any, argmax, argmin, bincount, max, mean, min, norm, std,
                             sum, var)
from ._ops.shape import (cat, clone, flatten, permute, reshape, squeeze, stack, t, transpose,
                         unbind, unsqueeze)
from ._ops.softmax import log_softmax, softmax
from ._ops.random import bernoulli, multinomial
from ._random import (Generator, default_generator, get_rng_state, initial_seed, manual_seed, seed,
                      set_rng_state)
from . import random  # noqa: E402 - torch.random.fork_rng, manual_seed, ...
from .core._tensor import Size, Tensor
from .core.autograd.grad_mode import (enable_grad, inference_mode, is_grad_enabled,
                                      is_inference_mode_enabled, no_grad, set_grad_enabled)

clip = clamp
divide, multiply, subtract = div, mul, sub
concat = concatenate = cat

__version__ = "0.1.0"


def is_tensor(obj):
    """True if ``obj`` is an :class:`nnref.Tensor` (a Parameter included): ``torch.is_tensor``
    of ``torch/__init__.py``."""
    return isinstance(obj, Tensor)


def numel(input):
    """The number of elements of ``input``, as ``input.numel()`` (``torch.numel``,
    ``aten/src/ATen/native/native_functions.yaml``)."""
    return input.numel()


def is_inference(input):
    """True for a tensor made inside ``inference_mode()`` (``torch.is_inference``,
    ``c10/core/TensorImpl.h``)."""
    return input.is_inference()

from .serialization import load, save
from ._ops.einsum import einsum
from ._ops.predicates import isfinite, isinf, isnan, isneginf, isposinf, isreal
from ._ops.reduce_ops import cumsum, logsumexp, prod
from ._ops.scatter import gather, scatter, scatter_add
from ._ops.sorting import argsort, sort, topk
from ._ops.tensor_shape import chunk, diagonal, split, split_with_sizes, tril, triu
from ._ops.elementwise import (acos, asin, atan, ceil, clamp_max, clamp_min, cosh, erf, expm1, floor, frac,
                               log1p, log2, log10, rsqrt, sinh, square, tan, trunc)
from ._ops.logical import count_nonzero, logical_and, logical_not, logical_or, logical_xor
from ._ops.reorder import flip, index_add, index_select, masked_select, roll, unique
from ._ops.blend import addcdiv, addcmul, atan2, hypot, lerp, nan_to_num, trace
from ._ops.composite import argwhere, diag, meshgrid, repeat_interleave, take_along_dim
arctan2 = atan2

# PyTorch's other names for views and ops above (the Tensor methods of ``_ops``).
(broadcast_to, movedim, moveaxis, swapaxes, swapdims, unflatten, ravel, tile, outer, ger, negative,
 positive) = (Tensor.broadcast_to, Tensor.movedim, Tensor.moveaxis, Tensor.swapaxes, Tensor.swapdims,
              Tensor.unflatten, Tensor.ravel, Tensor.tile, Tensor.outer, Tensor.ger, Tensor.negative,
              Tensor.positive)


from ._tensor_str import set_printoptions  # noqa: E402


def is_floating_point(input):
    """True for float16, bfloat16, float32 and float64 tensors (``torch.is_floating_point``,
    ``aten/src/ATen/native/TypeProperties.cpp``)."""
    return input.is_floating_point()

from math import e, inf, nan, pi  # noqa: E402 - torch.inf and friends are Python floats too


# The functions that take out= in PyTorch (the Tensor methods do not).
from ._ops.out import with_out as _with_out  # noqa: E402

(add, sub, mul, div, pow, neg, remainder, floor_divide, addmm, cumsum, exp, log, sqrt, abs, sin, cos, tanh,
 sigmoid, clamp, maximum, minimum, cat, stack) = map(_with_out, (
    add, sub, mul, div, pow, neg, remainder, floor_divide, addmm, cumsum, exp, log, sqrt, abs, sin, cos,
    tanh, sigmoid, clamp, maximum, minimum, cat, stack))
# Reductions and matrix products: PyTorch does not check their out= against the inputs, nor, for
# those whose kernel writes out directly, out's own shared elements.
bmm, mv, dot, sum, prod, amax, amin = (
    _with_out(f, overlap="unchecked", internal="unchecked") for f in (bmm, mv, dot, sum, prod, amax, amin))
matmul, mm, mean, logsumexp = (_with_out(f, overlap="unchecked") for f in (matmul, mm, mean, logsumexp))
all, any = (_with_out(f, overlap="unchecked", internal="unchecked", out_dtypes=(bool, uint8)) for f in (all, any))
(log1p, expm1, log2, log10, rsqrt, square, tan, sinh, cosh, asin, acos, atan, erf, floor, ceil, trunc,
 frac) = map(_with_out, (log1p, expm1, log2, log10, rsqrt, square, tan, sinh, cosh, asin, acos, atan, erf,
                         floor, ceil, trunc, frac))
arcsin, arccos, arctan, fix = asin, acos, atan, trunc
clip = clamp
divide, multiply, subtract = div, mul, sub
concat = concatenate = cat


from ._ops.cumulative import cummax, cummin  # noqa: E402
from ._ops.cumulative import cumprod, logcumsumexp  # noqa: E402
cumprod, logcumsumexp = map(_with_out, (cumprod, logcumsumexp))
from ._ops.special import (digamma, erfc, erfinv, exp2, lgamma, logaddexp, logaddexp2,  # noqa: E402
                           logit, polygamma, sinc, xlogy)
from ._ops.signs import copysign, heaviside, sgn, signbit  # noqa: E402
from ._ops.binary import float_power, fmax, fmin, fmod  # noqa: E402
from ._ops.elementwise import acosh, asinh, atanh, deg2rad, rad2deg  # noqa: E402
(digamma, erfc, erfinv, exp2, lgamma, logaddexp, logaddexp2, logit, polygamma, sinc, xlogy, copysign,
 heaviside, sgn, signbit, float_power, fmax, fmin, fmod, acosh, asinh, atanh, deg2rad, rad2deg) = map(
    _with_out, (digamma, erfc, erfinv, exp2, lgamma, logaddexp, logaddexp2, logit, polygamma, sinc, xlogy,
                copysign, heaviside, sgn, signbit, float_power, fmax, fmin, fmod, acosh, asinh, atanh,
                deg2rad, rad2deg))
arccosh, arcsinh, arctanh, absolute = acosh, asinh, atanh, abs
true_divide = _with_out(Tensor.true_divide)
greater, greater_equal, less, less_equal, not_equal = map(_with_out, (gt, ge, lt, le, ne))
from ._ops.order_statistics import kthvalue, median, mode, nanmedian  # noqa: E402
from ._ops.reduce_more import aminmax, nanmean, nansum, std_mean, var_mean  # noqa: E402
nanmean = _with_out(nanmean, overlap="unchecked")
nansum = _with_out(nansum, overlap="unchecked", internal="unchecked")
from ._ops.shape_composites import (atleast_1d, atleast_2d, atleast_3d, broadcast_tensors,  # noqa: E402
                                    column_stack, diff, dsplit, dstack, fliplr, flipud, hsplit, hstack,
                                    rot90, tensor_split, vsplit, vstack)
column_stack, diff, dstack, hstack, vstack = map(_with_out, (column_stack, diff, dstack, hstack, vstack))
from ._ops.blas import addbmm, addmv, addr, baddbmm, cross, kron, vdot  # noqa: E402
addbmm, addmv, addr, baddbmm, cross, kron = map(_with_out, (addbmm, addmv, addr, baddbmm, cross, kron))
vdot = _with_out(vdot, overlap="unchecked", internal="unchecked")
from ._ops.blas import dist  # noqa: E402
from ._ops.tensordot import inner, tensordot  # noqa: E402
inner, tensordot = (_with_out(f, overlap="unchecked") for f in (inner, tensordot))
from ._ops.integration import cumulative_trapezoid, trapezoid, trapz  # noqa: E402
from ._ops.histograms import histc, histogram  # noqa: E402
histc = _with_out(histc, overlap="unchecked", internal="unchecked")
from ._ops.cdist import cdist  # noqa: E402
from ._ops.float_parts import frexp, ldexp  # noqa: E402
ldexp = _with_out(ldexp)
from ._ops.correlation import corrcoef, cov  # noqa: E402
from ._ops.index_ops import diagonal_scatter  # noqa: E402
from ._ops.reduce_more import renorm  # noqa: E402
renorm = _with_out(renorm)
from ._ops.shape_composites import narrow_copy  # noqa: E402
from ._ops.queries import (broadcast_shapes, can_cast, get_device, is_complex, is_nonzero,  # noqa: E402
                          is_same_size, is_signed)
narrow_copy = _with_out(narrow_copy, overlap="copied")
from ._ops.index_ops import index_copy, index_fill, masked_scatter, select_scatter, slice_scatter, take  # noqa: E402
index_copy, take = map(_with_out, (index_copy, take))
slice_scatter = _with_out(slice_scatter, overlap="copied")
from ._ops.scatter_reduce import scatter_reduce  # noqa: E402
scatter_reduce = _with_out(scatter_reduce)
addcmul, addcdiv, lerp, where, index_select, gather = map(_with_out, (addcmul, addcdiv, lerp, where,
                                                                    index_select, gather))
softmax, log_softmax = (_with_out(f, overlap="copied") for f in (softmax, log_softmax))
from ._ops.searching import bucketize, isin, searchsorted  # noqa: E402
from ._ops.index_factories import tril_indices, triu_indices, unravel_index  # noqa: E402
from ._ops.diagonal_builders import block_diag, diag_embed, diagflat, msort  # noqa: E402
from ._creation import logspace  # noqa: E402
msort, logspace = _with_out(msort), _with_out(logspace)
from ._ops.binary import gcd, lcm  # noqa: E402
from ._ops.shape_composites import cartesian_prod, unique_consecutive  # noqa: E402
gcd, lcm = _with_out(gcd), _with_out(lcm)
from ._ops.arithmetic import bitwise_and, bitwise_not, bitwise_or, bitwise_xor  # noqa: E402
(bucketize, isin, searchsorted, bitwise_and, bitwise_not, bitwise_or, bitwise_xor) = map(_with_out, (
    bucketize, isin, searchsorted, bitwise_and, bitwise_not, bitwise_or, bitwise_xor))


def relu_(input):
    """``relu`` in place: ``input.relu_()`` (``torch.relu_``,
    ``aten/src/ATen/native/Activation.cpp``)."""
    return input.relu_()

from ._type_info import finfo, iinfo  # noqa: E402
from .autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled, set_anomaly_enabled  # noqa: E402
from ._ops.shape import adjoint, conj, is_conj  # noqa: E402
resolve_conj = resolve_neg = conj_physical = conj
is_neg = is_conj
from ._settings import (are_deterministic_algorithms_enabled, get_deterministic_debug_mode,  # noqa: E402
                        get_float32_matmul_precision, get_num_interop_threads, get_num_threads,
                        is_deterministic_algorithms_warn_only_enabled, set_deterministic_debug_mode,
                        set_float32_matmul_precision, set_num_interop_threads, set_num_threads,
                        use_deterministic_algorithms)


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False):
    """A 0-d tensor holding the number ``s``, in the default dtype unless ``dtype`` is given
    (``torch.scalar_tensor``, ``aten/src/ATen/native/TensorFactories.cpp``)."""
    return full((), s, dtype=dtype or get_default_dtype(), device=device, requires_grad=requires_grad)

from . import linalg  # noqa: E402 - torch.linalg.vector_norm, det, solve, ...
from ._ops.linalg_determinants import logdet, torch_det as det, torch_slogdet as slogdet  # noqa: E402
from ._ops.linalg_solvers import inverse  # noqa: E402
from ._ops.linalg_spectral import torch_svd as svd  # noqa: E402
from .distributions._samplers import poisson  # noqa: E402
poisson = _with_out(poisson)
inverse = _with_out(inverse)
from ._ops.quantile import nanquantile, quantile  # noqa: E402

# PyTorch's factory keywords layout= and pin_memory=, and torch.strided.
from ._layout import (channels_last, channels_last_3d, contiguous_format, layout, memory_format,  # noqa: E402
                      preserve_format, strided, tensor_layout as _tensor_layout)
from ._creation import with_factory_keywords as _with_factory_keywords  # noqa: E402
(arange, empty, empty_like, eye, full, full_like, linspace, logspace, ones, ones_like, rand, rand_like,
 randint, randint_like, randn, randn_like, randperm, zeros, zeros_like, scalar_tensor) = map(
    _with_factory_keywords, (arange, empty, empty_like, eye, full, full_like, linspace, logspace, ones,
                             ones_like, rand, rand_like, randint, randint_like, randn, randn_like,
                             randperm, zeros, zeros_like, scalar_tensor))
Tensor.layout = property(_tensor_layout)

# The other functions that take out= in PyTorch: comparisons, logical ops, std/var/norm, ...
(eq, ne, gt, ge, lt, le, logical_and, logical_or, logical_xor, logical_not, sign, round, reciprocal,
 negative, hypot, atan2, clamp_min, clamp_max, nan_to_num, outer, std, var, diag) = map(_with_out, (
    eq, ne, gt, ge, lt, le, logical_and, logical_or, logical_xor, logical_not, sign, round, reciprocal,
    negative, hypot, atan2, clamp_min, clamp_max, nan_to_num, outer, std, var, diag))
arctan2, ger = atan2, outer

# Last, because both build on everything above: `import nnref as torch; torch.nn.Linear` works.
from . import nn, optim  # noqa: E402
from . import distributions  # noqa: E402 - torch.distributions, built on nn.functional
from . import testing  # noqa: E402 - torch.testing.assert_close
from . import compiler  # noqa: E402 - torch.compile and torch.compiler, run eagerly
from .compiler import compile  # noqa: E402

cosine_similarity, pairwise_distance = nn.functional.cosine_similarity, nn.functional.pairwise_distance
# nn.functional's that PyTorch also has at the top level with the same leading arguments
(conv1d, conv2d, conv_transpose1d, conv_transpose2d, avg_pool1d,
 adaptive_avg_pool1d, prelu, hardshrink, pdist, bilinear, pixel_shuffle, pixel_unshuffle, channel_shuffle) = (
    getattr(nn.functional, _name) for _name in (
        "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "avg_pool1d", "adaptive_avg_pool1d",
        "prelu", "hardshrink", "pdist", "bilinear", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle"))
# ... and those whose torch.* signature is ATen's (dropout(input, p, train), norm's out= ...)
from ._aten_aliases import (celu, dropout, group_norm, layer_norm, max_pool1d, max_pool2d, norm, selu,  # noqa: E402
                            threshold)
row_stack = vstack

# Last of all: numpy's names (axis=, keepdims=) for the functions and methods PyTorch binds from C++.
# ... and PyTorch's TypeError for a number where every overload of a torch.* function takes a Tensor.
from ._numpy_names import apply_to_namespace as _apply_numpy_names  # noqa: E402
from . import _tensor_only  # noqa: E402
_apply_numpy_names(globals(), [name for name in list(globals()) if not name[0].isupper()], _tensor_only.SIGNATURES)
_apply_numpy_names(Tensor, [name for name in list(vars(Tensor))], _tensor_only.METHOD_SIGNATURES, methods=True)
_apply_numpy_names(linalg, linalg.__all__, _tensor_only.LINALG_SIGNATURES)

# torch.functional (the tensor functions PyTorch writes in Python, the same objects as here) and
# torch.onnx (imports; export() explains why nnref cannot), torch.profiler.
from . import functional, onnx, profiler  # noqa: E402
from .functional import chain_matmul  # noqa: E402
functional._take_shared(globals())
