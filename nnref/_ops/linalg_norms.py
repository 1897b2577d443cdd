"""``torch.linalg``'s norms: ``vector_norm``, ``matrix_norm`` and ``norm``, which picks one of them.

Mirrors ``aten/src/ATen/native/LinearAlgebra.cpp`` (``linalg_vector_norm``,
``linalg_matrix_norm``, ``linalg_norm``).  ``vector_norm`` is one op with one node,
``LinalgVectorNormBackward0``, whose derivative is ``norm_backward`` of
``torch/csrc/autograd/FunctionsManual.cpp`` (the kernel and node ``torch.norm`` already uses,
with PyTorch's subgradient 0 at a zero vector).  ``matrix_norm`` is PyTorch's composite, so its
graph is PyTorch's: ``'fro'`` is the vector 2-norm over both dims; 1 and inf are the
largest column (row) sum, a vector 1-norm then ``amax`` (``amin`` for -1 and -inf); 2, -2 and
``'nuc'`` take the singular values (``linalg_svdvals``).
"""
import builtins
import math
import numbers

from .. import _type_info
from ..core import _dtype
from ..core._device import array_module
from ..core._tensor import _wrap_dim
from ._common import from_accumulator, record, wrap
from .reduction import LinalgVectorNormBackward0, _vector_norm, amax, amin
from .linalg_spectral import svdvals
from .shape import permute

__all__ = ["vector_norm", "matrix_norm", "norm"]


def _check_dtype(name, input, dtype):
    """PyTorch's ``check_linalg_norm_dtype``: ``dtype`` must be a float no narrower than the input."""
    if dtype is None:
        return input._dtype
    dtype = _type_info.as_dtype(dtype)
    if not dtype.is_floating_point:
        raise RuntimeError(f"{name}: dtype should be floating point or complex, but got "
                           f"{dtype._legacy_name[:-6]}")
    if _dtype.promote_types(input._dtype, dtype) is not dtype:
        raise RuntimeError(f"{name}: the dtype of the input ({input._dtype._legacy_name[:-6]}) should be "
                           f"convertible without narrowing to the specified dtype ({dtype._legacy_name[:-6]})")
    return dtype


def _reduced_dims(dim, ndim):
    if dim is None or (isinstance(dim, (list, tuple)) and not dim):
        return tuple(range(ndim))
    dims = [_wrap_dim(d, ndim) for d in (dim if isinstance(dim, (list, tuple)) else (dim,))]
    for d in dims:
        if dims.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return tuple(sorted(dims)) if ndim else ()


def vector_norm(input, ord=2, dim=None, keepdim=False, *, dtype=None):
    """The vector ``ord``-norm of ``x`` over ``dim`` (every element by default):
    ``(sum |x|**ord) ** (1/ord)``, the largest (smallest) ``|x|`` for ``ord`` inf (-inf), the
    count of non-zeros for 0 (``torch.linalg.vector_norm``,
    ``aten/src/ATen/native/LinearAlgebra.cpp``; backward ``norm_backward`` of
    ``torch/csrc/autograd/FunctionsManual.cpp``). PyTorch's argument parser names the tensor
    ``input`` (its documentation ``x``, accepted as numpy's alias)."""
    x = input
    name = "linalg.vector_norm"
    if isinstance(ord, builtins.bool) or not isinstance(ord, numbers.Real):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' must be Number, not {type(ord).__name__}")
    if not x._dtype.is_floating_point:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{x._dtype._legacy_name[:-6]}")
    dtype = _check_dtype(name, x, dtype)
    ord = float(ord)
    dims = _reduced_dims(dim, x._data.ndim)
    if ord < 0 or ord == math.inf:  # min, max and 1/sum have no value on nothing
        if dim is None or (isinstance(dim, (list, tuple)) and not dim):
            if x._data.size == 0:
                raise RuntimeError(f"{name} cannot compute the {ord:g} norm on an empty tensor because the "
                                   "operation does not have an identity")
        else:
            for d in dims:
                if x._data.shape[d] == 0:
                    raise RuntimeError(f"{name} cannot compute the {ord:g} norm on the dimension {d}because "
                                       "this dimension is empty and the operation does not have an identity")
    xp = array_module(x._device)
    data = _vector_norm(x._data.astype(dtype._accumulate, copy=False), ord, dims, keepdim)
    out = wrap(from_accumulator(xp.asarray(data), dtype), x)
    return record(out, LinalgVectorNormBackward0, (x,), saved=(x,), save_result=True,
                  ord=int(ord) if ord.is_integer() else ord, dims=dims, keepdim=keepdim)


def _matrix_dims(A, dim, dtype, low_precision=True):
    """PyTorch's ``_linalg_matrix_norm_checks``: a matrix, two different dims, a float dtype."""
    name = "linalg.matrix_norm"
    if A._data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    if not A._dtype.is_floating_point:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{A._dtype._legacy_name[:-6]}")
    if not low_precision and A._dtype.itemsize < 4:
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {A._dtype._legacy_name[:-6]}")
    dims = list(dim) if isinstance(dim, (list, tuple)) else [dim]
    if len(dims) != 2:
        raise RuntimeError(f"{name}: dim must be a 2-tuple. Got {' '.join(str(d) for d in dims)}")
    dims = [_wrap_dim(d, A._data.ndim) for d in dims]
    if dims[0] == dims[1]:
        raise RuntimeError(f"{name}: dims must be different. Got ({dims[0]}, {dims[1]})")
    return dims, _check_dtype(name, A, dtype)


def _backshift(first, second, ndim):
    """The permutation that moves dims ``first`` and ``second`` to the end (``create_dim_backshift_permutation``)."""
    return [d for d in range(ndim) if d not in (first, second)] + [first, second]


def _singular_value_norm(A, dims, keepdim, dtype, reduce):
    """``reduce`` over the singular values of the matrices in ``dims`` (ord 2, -2, 'nuc')."""
    A = A if dtype is A._dtype else A.to(dtype)
    permutation = _backshift(dims[0], dims[1], A._data.ndim)
    result = reduce(svdvals(permute(A, permutation)))
    if keepdim:
        reverse = [permutation.index(d) for d in range(len(permutation))]
        result = permute(result.unsqueeze(-1).unsqueeze(-1), reverse)
    return result


def matrix_norm(input, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """The matrix norm of the matrices of ``A`` in dims ``dim``: ``'fro'`` (Frobenius), ``'nuc'``
    (sum of singular values), 1 / -1 (largest / smallest column sum of ``|A|``), inf / -inf (row
    sum), 2 / -2 (largest / smallest singular value) (``torch.linalg.matrix_norm``,
    ``aten/src/ATen/native/LinearAlgebra.cpp``). The parser names the tensor ``input``."""
    A = input
    name = "linalg.matrix_norm"
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"{name}: Order {ord} not supported.")
        dims, dtype = _matrix_dims(A, dim, dtype)
        if ord == "fro":
            return vector_norm(A, 2, dims, keepdim, dtype=dtype)
        return _singular_value_norm(A, dims, keepdim, dtype, lambda s: s.sum(-1))
    order = float(ord)
    if abs(order) not in (1.0, 2.0, math.inf):
        raise RuntimeError(f"{name}: Order {order:g} not supported.")
    dims, dtype = _matrix_dims(A, dim, dtype, low_precision=abs(order) != 2)
    if abs(order) == 2:
        reduce = (lambda s: amax(s, -1)) if order > 0 else (lambda s: amin(s, -1))
        return _singular_value_norm(A, dims, keepdim, dtype, reduce)
    if abs(order) == math.inf:  # the inf norm is the 1 norm of the transposed matrix
        dims.reverse()
    if not keepdim and dims[0] < dims[1]:  # the first reduction removes a dim before the second
        dims[1] -= 1
    sums = vector_norm(A, 1.0, [dims[0]], keepdim, dtype=dtype)
    return amax(sums, dims[1], keepdim) if order > 0 else amin(sums, dims[1], keepdim)


def norm(input, ord=None, dim=None, keepdim=False, *, dtype=None):
    """A vector norm or a matrix norm, as ``ord`` and ``dim`` say: a matrix norm when ``dim``
    has two dims (or ``A`` is 2-D and no ``dim`` is given) and ``ord`` is given, else the
    vector 2-norm or ``ord``-norm (``torch.linalg.norm``,
    ``aten/src/ATen/native/LinearAlgebra.cpp``). The parser names the tensor ``input``."""
    A = input
    dims = None if dim is None else (list(dim) if isinstance(dim, (list, tuple)) else [dim])
    if dims is not None:
        if len(dims) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {dims}")
    elif ord is not None and A._data.ndim not in (1, 2):
        raise RuntimeError("linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                           f"Got {A._data.ndim}D.")
    if isinstance(ord, str) or (ord is not None and (len(dims) == 2 if dims is not None else A._data.ndim == 2)):
        return matrix_norm(A, ord, dims if dims is not None else (0, 1), keepdim, dtype=dtype)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype)
