"""``nnref.linalg``: the linear-algebra namespace of ``torch.linalg`` (``torch/linalg/__init__.py``).

Norms (``vector_norm``, ``matrix_norm``, ``norm``), determinants (``det``, ``slogdet``), the
inverse and linear solves (``inv``, ``solve``), the Cholesky factorization and the singular
values (``cholesky``, ``svdvals``), products (``matmul``, ``cross``, ``vecdot``, ``multi_dot``,
``matrix_power``), the factorizations tutorials call (``eigh``, ``eigvalsh``, ``svd``, ``qr``,
``pinv``, ``lstsq``, ``matrix_rank``), and ``LinAlgError``.  Each is an op of ``nnref._ops``;
this module gathers them under PyTorch's names, with ``out=`` where PyTorch takes it.
"""
from ._namespace import public_dir
from ._ops.linalg_checks import LinAlgError
from ._ops.linalg_decompositions import cholesky
from ._ops.linalg_determinants import det, slogdet
from ._ops.linalg_norms import matrix_norm, norm, vector_norm
from ._ops.linalg_products import matrix_power, multi_dot, vecdot
from ._ops.linalg_spectral import eigh, eigvalsh, lstsq, matrix_rank, pinv, qr, svd, svdvals
from ._ops import blas as _blas
from ._ops.linalg import matmul
from ._ops.linalg_solvers import inv, solve
from ._ops.out import with_out as _with_out



def cross(input, other, *, dim=-1):
    """The cross product of the 3-vectors of ``input`` and ``other`` along ``dim`` (the last by
    default, where ``torch.cross`` looks for a dim of size 3), batch dims broadcast
    (``torch.linalg.cross``, ``aten/src/ATen/native/Cross.cpp``)."""
    return _blas.cross(input, other, dim=dim)


(vector_norm, matrix_norm, norm, det, inv, solve, cholesky, svdvals, cross, matmul, vecdot, multi_dot,
 matrix_power, eigvalsh, matrix_rank, pinv) = map(_with_out, (
    vector_norm, matrix_norm, norm, det, inv, solve, cholesky, svdvals, cross, matmul, vecdot, multi_dot,
    matrix_power, eigvalsh, matrix_rank, pinv))

__all__ = ["LinAlgError", "cholesky", "cross", "det", "eigh", "eigvalsh", "inv", "lstsq", "matmul", "matrix_norm",
           "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve", "svd", "svdvals",
           "vecdot", "vector_norm"]
__dir__ = public_dir(globals(), __all__)
