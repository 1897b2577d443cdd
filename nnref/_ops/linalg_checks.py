"""What every ``torch.linalg`` function checks first, and the error it raises when LAPACK fails.

Mirrors ``aten/src/ATen/native/LinearAlgebraUtils.h`` (``checkIsMatrix``, ``squareCheckInputs``,
``checkFloatingOrComplex``) and ``BatchLinearAlgebra.cpp``'s ``_linalg_check_errors``, which
turns LAPACK's ``info`` into ``torch.linalg.LinAlgError`` naming the failing batch element.
numpy's own ``LinAlgError`` says only "Singular matrix": the failing element and LAPACK's
``info`` (the zero pivot, the leading minor) are found again here, on the error path only.
"""
import numpy as np

from ..core._naming import TorchNamed
from ..core._device import to_host

__all__ = ["LinAlgError"]


class LinAlgError(RuntimeError, metaclass=TorchNamed):
    """A linear-algebra routine failed on its input (a singular matrix, a matrix that is not
    positive-definite): ``torch.linalg.LinAlgError`` (``torch/csrc/Exceptions.h``), a
    ``RuntimeError`` as in PyTorch."""
    _torch_name = "torch._C._LinAlgError"  # PyTorch's name (nnref/_naming.py)


def check_is_matrix(name, A, arg="A"):
    if A._data.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor {arg} must have at least 2 dimensions.")


def check_square(name, A, arg="A"):
    check_is_matrix(name, A, arg)
    rows, columns = A._data.shape[-2:]
    if rows != columns:
        raise RuntimeError(f"{name}: {arg} must be batches of square matrices, but they are {rows} by "
                           f"{columns} matrices")


def check_floating(name, A, low_precision=True):
    """PyTorch's ``checkFloatingOrComplex``: integers are refused, and 16-bit floats too where
    the LAPACK routine has no 16-bit kernel (``low_precision=False``)."""
    if not A._dtype.is_floating_point:
        raise RuntimeError(f"{name}: Expected a floating point or complex tensor as input. Got "
                           f"{A._dtype._legacy_name[:-6]}")
    if not low_precision and A._dtype.itemsize < 4:
        raise RuntimeError(f"{name}: Low precision dtypes not supported. Got {A._dtype._legacy_name[:-6]}")


def no_half_kernel(kernel, A):
    """PyTorch reaches LAPACK's kernel (``lu_cpu``, ``cholesky_cpu``) with a 16-bit float and has none."""
    if A._dtype.itemsize < 4:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{A._dtype._legacy_name[:-6]}\'')


def _lapack(routine, matrix):
    from scipy.linalg import lapack  # the error path only: numpy does not return LAPACK's info
    function = lapack.get_lapack_funcs(routine, (matrix,))
    # potrf reads the lower triangle, as numpy's cholesky (and PyTorch's, upper=False) does
    return function(matrix, lower=1)[-1] if routine == "potrf" else function(matrix)[-1]


def first_failure(data, routine):
    """``(batch index, LAPACK info)`` of the first matrix of ``data`` (``..., n, n``) on which
    ``routine`` (``getrf``, ``potrf``) fails, or None."""
    matrices = to_host(data)
    matrices = matrices.reshape((-1,) + matrices.shape[-2:])
    for index, matrix in enumerate(matrices):
        info = _lapack(routine, matrix.astype(np.float64 if matrix.dtype == np.float64 else np.float32))
        if info > 0:
            return index, int(info)
    return None


def raise_linalg_error(name, data, routine, message):
    """PyTorch's LinAlgError for the first failing matrix of ``data``: ``message`` formatted with
    LAPACK's ``info``, prefixed with ``(Batch element i): `` for a batch."""
    found = first_failure(data, routine) or (0, 1)
    batch = f"(Batch element {found[0]}): " if data.ndim > 2 else ""
    raise LinAlgError(f"{name}: {batch}{message.format(info=found[1])}") from None
