"""``nnref.functional``: PyTorch's ``torch.functional`` (``torch/functional.py``).

Not ``torch.nn.functional``: the module of that name gathers tensor functions written in Python
(``einsum``, ``meshgrid``, ``split``, ``norm``, ``unique``, ...), which programs sometimes import
from it.  Each name here is the same object as ``nnref.<name>``, as in PyTorch
(``torch.functional.norm is torch.norm``).  The signal-processing and randomized-factorization
functions nnref does not have (``stft``, ``istft``, ``lu``, ``pca_lowrank``, ``svd_lowrank``)
raise ``NotImplementedError`` saying so.
"""
import warnings

from ._namespace import public_dir
from ._ops.linalg_products import multi_dot

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors", "cartesian_prod",
           "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu", "norm", "meshgrid", "pca_lowrank",
           "split", "stft", "svd_lowrank", "tensordot", "unique", "unique_consecutive", "unravel_index"]


def chain_matmul(*matrices, out=None):
    """The product of the matrices, deprecated for ``torch.linalg.multi_dot`` with PyTorch's
    warning (``torch.chain_matmul``, ``aten/src/ATen/native/LinearAlgebra.cpp``)."""
    warnings.warn("torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
                  "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
                  "multiple parameters.", UserWarning, stacklevel=2)
    if len(matrices) == 1:
        if matrices[0].dim() != 2:
            raise RuntimeError(f"chain_matmul(): Tensor dimension is {matrices[0].dim()}, expected 2 instead.")
        result = matrices[0].clone()
    else:
        result = multi_dot(matrices)
    return result if out is None else out.resize_(result.shape).copy_(result)


def _not_in_nnref(name, what):
    def missing(*args, **kwargs):
        raise NotImplementedError(f"nnref does not implement torch.{name} ({what}); run this program on PyTorch")
    missing.__name__ = missing.__qualname__ = name
    missing.__doc__ = f"``torch.{name}`` ({what}): not in nnref; calling it raises ``NotImplementedError``."
    return missing


stft = _not_in_nnref("stft", "the short-time Fourier transform")
istft = _not_in_nnref("istft", "the inverse short-time Fourier transform")
lu = _not_in_nnref("lu", "the LU factorization")
pca_lowrank = _not_in_nnref("pca_lowrank", "randomized PCA")
svd_lowrank = _not_in_nnref("svd_lowrank", "the randomized low-rank SVD")


# The functions nnref's top level has too: the same objects, which the top level hands over with
# _take_shared once it has built them (it wraps its functions with out= and numpy's names after
# this module has loaded).
_SHARED = frozenset(__all__) - {"chain_matmul", "istft", "lu", "pca_lowrank", "stft", "svd_lowrank"}


def _take_shared(namespace):
    """Bind the shared names to ``namespace``'s objects (the ``nnref`` namespace's globals)."""
    globals().update({name: namespace[name] for name in _SHARED})


__dir__ = public_dir(globals(), __all__)
