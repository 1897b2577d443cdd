"""Products of ``torch.linalg``: ``vecdot``, ``multi_dot`` and ``matrix_power``.

Each is a composite of nnref ops, as in PyTorch (``aten/src/ATen/native/LinearAlgebra.cpp``:
``linalg_vecdot``, ``multi_dot_impl``, ``linalg_matrix_power_impl``), so their values come from
the same products in the same order and their gradients are those of ``mul``/``sum`` and
``mm``, under the same ``grad_fn`` names.
"""
from .. import _creation
from .linalg import matmul, mm
from .blas import vdot
from .linalg_checks import check_floating, check_square
from .linalg_solvers import inv

__all__ = ["matrix_power", "multi_dot", "vecdot"]


def vecdot(x, y, *, dim=-1):
    """The dot product of the vectors of ``x`` and ``y`` along ``dim``, broadcasting the other
    dims: ``(x.conj() * y).sum(dim)``, or ``vdot`` for two vectors (``torch.linalg.vecdot``)."""
    check_floating("linalg.vecdot", x)
    if x._dtype is not y._dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
                           f"{x._dtype._legacy_name[:-6]} and y of type {y._dtype._legacy_name[:-6]} instead")
    if x.dim() == 1 and y.dim() == 1:
        return vdot(x, y)  # PyTorch's fast path (VdotBackward0)
    return (x.conj() * y).sum(dim)


def _chain_order(shapes):
    """The split points of the cheapest parenthesisation (CLRS's matrix-chain order, as
    ``matrix_chain_order`` of ``LinearAlgebra.cpp``; ties keep the first split)."""
    dims = [shapes[0][0]] + [shape[1] for shape in shapes]
    n = len(shapes)
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = None
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if cost[i][j] is None or q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def _chain_product(matrices, split, i, j):
    if i == j:
        return matrices[i]
    k = split[i][j]
    return mm(_chain_product(matrices, split, i, k), _chain_product(matrices, split, k + 1, j))


def multi_dot(tensors):
    """The product of two or more matrices in the order that costs the fewest multiplications;
    the first may be a row vector and the last a column vector (``torch.linalg.multi_dot``)."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first_ndim, last_ndim = tensors[0].dim(), tensors[-1].dim()
    if first_ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first_ndim}D")
    if last_ndim not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last_ndim}D")
    for i, t in enumerate(tensors[1:-1], 1):
        if t.dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
    for i, t in enumerate(tensors[1:], 1):
        if t._dtype is not tensors[0]._dtype:
            raise RuntimeError(f"multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                               f"{tensors[0]._dtype._legacy_name[:-6]} and tensor {i} is "
                               f"{t._dtype._legacy_name[:-6]}")
    matrices = list(tensors)
    if first_ndim == 1:
        matrices[0] = matrices[0].unsqueeze(0)
    if last_ndim == 1:
        matrices[-1] = matrices[-1].unsqueeze(-1)
    for i in range(1, n):
        if matrices[i - 1].shape[1] != matrices[i].shape[0]:
            raise RuntimeError(f"multi_dot(): tensors {i - 1} and {i} with shapes {list(matrices[i - 1].shape)} "
                               f"and {list(matrices[i].shape)} cannot be multiplied")
    if n == 2:
        result = mm(matrices[0], matrices[1])
    elif n == 3:
        a, b = matrices[0].shape[0], matrices[1].shape[0]
        c, d = matrices[2].shape
        if a * c * (b + d) > b * d * (a + c):
            result = mm(matrices[0], mm(matrices[1], matrices[2]))
        else:
            result = mm(mm(matrices[0], matrices[1]), matrices[2])
    else:
        result = _chain_product(matrices, _chain_order([m.shape for m in matrices]), 0, n - 1)
    # PyTorch views the product to the output's shape in every case (a ViewBackward0 on top)
    shape = (() if first_ndim == 1 and last_ndim == 1 else (-1,) if first_ndim == 1 or last_ndim == 1
             else result.shape)
    return result.view(shape)


def matrix_power(input, n):
    """``input`` multiplied by itself ``n`` times, by repeated squaring; ``n = 0`` gives identities and
    a negative ``n`` powers the inverse (``torch.linalg.matrix_power``)."""
    check_square("linalg.matrix_power", input)
    if n == 0:  # identities, still in input's graph (CopyBackwards), as PyTorch's
        return input.clone().copy_(_creation.eye(input.shape[-1], dtype=input.dtype, device=input.device).expand_as(input))
    if n == -1:
        return inv(input)
    if n < 0:
        input, n = inv(input), -n
    if n == 1:
        return input.clone()
    if n == 2:
        return matmul(input, input)
    if n == 3:
        return matmul(matmul(input, input), input)
    power = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        power = input if power is None else matmul(power, power)
        if bit:
            result = power if result is None else matmul(result, power)
    return result
