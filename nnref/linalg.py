"""``nnref.linalg``: the linear-algebra namespace of ``torch.linalg`` (``torch/linalg/__init__.py``).

Norms (``vector_norm``, ``matrix_norm``, ``norm``), determinants (``det``, ``slogdet``), the
inverse and linear solves (``inv``, ``solve``), the Cholesky factorization and the singular
values (``cholesky``, ``svdvals``), and ``LinAlgError``.  Each is an op of ``nnref._ops``;
this module gathers them under PyTorch's names, with ``out=`` where PyTorch takes it.
"""
from ._namespace import public_dir
from ._ops.linalg_checks import LinAlgError
from ._ops.linalg_decompositions import cholesky, svdvals
from ._ops.linalg_determinants import det, slogdet
from ._ops.linalg_norms import matrix_norm, norm, vector_norm
from ._ops.linalg_solvers import inv, solve
from ._ops.out import with_out as _with_out

vector_norm, matrix_norm, norm, det, inv, solve, cholesky, svdvals = map(_with_out, (
    vector_norm, matrix_norm, norm, det, inv, solve, cholesky, svdvals))

__all__ = ["LinAlgError", "cholesky", "det", "inv", "matrix_norm", "norm", "slogdet", "solve", "svdvals",
           "vector_norm"]
__dir__ = public_dir(globals(), __all__)
