"""``cov`` and ``corrcoef``: the covariance and correlation matrices of the rows of a matrix
(variables) over its columns (observations).

Mirrors ``aten/src/ATen/native/Correlation.cpp`` step by step (means, centring, ``mm`` with the
transpose, ``true_divide`` by the normalisation, ``squeeze``; ``corrcoef`` divides by the standard
deviations and clips to [-1, 1]), so the autograd graph has PyTorch's nodes.
"""
import warnings

from ..core import _dtype

__all__ = ["cov", "corrcoef"]


def _weights(name, weights, observations, integral):
    if weights._data.ndim > 1:
        raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got {weights._data.ndim} dimensions")
    if weights.numel() != observations:
        raise RuntimeError(f"cov(): expected {name} to have the same numel as there are observations in the input but "
                           f"got {weights.numel()} != {observations}")
    if integral and weights._dtype.is_floating_point:
        raise RuntimeError(f"cov(): expected {name} to have integral dtype but got {name} with "
                           f"{weights._dtype._legacy_name[:-6]} dtype")
    if not integral and not weights._dtype.is_floating_point:
        raise RuntimeError(f"cov(): expected {name} to have floating point dtype but got {name} with "
                           f"{weights._dtype._legacy_name[:-6]} dtype")
    if bool((weights < 0).any()):
        raise RuntimeError(f"cov(): {name} cannot be negative")


def cov(input, *, correction=1, fweights=None, aweights=None):
    """The covariance matrix of the variables in the rows of ``input`` (a 1-d input is one
    variable), with frequency weights ``fweights`` and observation weights ``aweights``
    (``torch.cov``, ``aten/src/ATen/native/Correlation.cpp``)."""
    from .._creation import tensor
    if input._data.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an input with "
                           f"{input._data.ndim} dimensions")
    if input._dtype is _dtype.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    rows = input.view(1, -1) if input._data.ndim < 2 else input
    observations = rows.shape[1]
    weights = None
    if fweights is not None:
        _weights("fweights", fweights, observations, True)
        weights = fweights
    if aweights is not None:
        _weights("aweights", aweights, observations, False)
        weights = aweights if weights is None else weights * aweights
    total = weights.sum() if weights is not None else tensor(observations, dtype=_dtype.int64, device=input.device)
    if weights is not None and not bool(total != 0):
        raise RuntimeError("cov(): weights sum to zero, can't be normalized")
    mean = (rows * weights if weights is not None else rows).sum(1) / total
    if weights is not None and aweights is not None and correction != 0:
        norm = total - correction * (weights * aweights).sum() / total
    else:
        norm = total - correction
    if bool(norm <= 0):
        warnings.warn("cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of "
                      "observations.", UserWarning, stacklevel=2)
        norm = norm * 0
    centred = rows - mean.unsqueeze(1)
    from .linalg import mm
    product = mm(centred, (centred * weights if weights is not None else centred).t())
    from .arithmetic import div
    return div(product, norm).squeeze()


def corrcoef(input):
    """The Pearson correlation coefficients of the variables in the rows of ``input``: ``cov``
    divided by the standard deviations, clipped to [-1, 1] (``torch.corrcoef``,
    ``aten/src/ATen/native/Correlation.cpp``)."""
    if input._data.ndim > 2:
        raise RuntimeError(f"corrcoef(): expected input to have two or fewer dimensions but got an input with "
                           f"{input._data.ndim} dimensions")
    c = cov(input)
    if not c._data.ndim:
        return c / c
    deviation = c.diagonal().sqrt()
    c = c / deviation.view(-1, 1)
    c = c / deviation.view(1, -1)
    return c.clamp(-1, 1)


