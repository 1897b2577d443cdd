"""Random in-place fills and samplers: ``random_``, ``bernoulli_``, ``exponential_``,
``bernoulli``, ``multinomial`` (``uniform_``/``normal_`` live with the other in-place fills).

Each draws PyTorch's numbers from the CPU generator (``nnref._random``), in the
order of PyTorch's CPU kernels (``aten/src/ATen/native/cpu/DistributionTemplates.h``,
``aten/src/ATen/native/Distributions.cpp``).
"""
import numpy as np

from .. import _random
from .._tensor import Tensor
from .inplace import _OverwrittenBackward, _overwrite


class RandomBackward0(_OverwrittenBackward):
    pass


class BernoulliBackward0(_OverwrittenBackward):
    pass


class ExponentialBackward0(_OverwrittenBackward):
    pass


def _cpu_only(tensor, name):
    if tensor._device.type != "cpu":
        raise NotImplementedError(f"{name} draws from PyTorch's CPU generator only; call it on a "
                                  f"CPU tensor and move the result with .to({str(tensor._device)!r})")


def random_(tensor, from_=None, to=None, *, generator=None, **kwargs):
    """``random_()``: integers over the dtype's range; ``random_(to)``/``random_(from, to)``: [from, to)."""
    from_ = kwargs.pop("from", from_)
    if kwargs:
        raise TypeError(f"random_() got an unexpected keyword argument {next(iter(kwargs))!r}")
    _cpu_only(tensor, "random_")
    gen = _random.cpu_generator(generator)
    data = tensor._data
    if from_ is None and to is None:
        flat = _random.random_full(gen, data.size, data.dtype)
        return _overwrite(tensor, _random.in_memory_order(data, flat), RandomBackward0)
    if to is None:
        from_, to = 0, from_
    samples = _random.randint_like(data, tensor._device, int(from_), int(to), gen)
    return _overwrite(tensor, samples, RandomBackward0)


def bernoulli_(tensor, p=0.5, *, generator=None):
    """1 with probability ``p`` (a number, or a tensor broadcast to ``tensor``), else 0."""
    _cpu_only(tensor, "bernoulli_")
    gen = _random.cpu_generator(generator)
    data = tensor._data
    if isinstance(p, Tensor):
        probs = np.broadcast_to(p._data, data.shape)
        if probs.size and (probs.min() < 0 or probs.max() > 1):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                               "(bernoulli's probabilities must lie in [0, 1])")
        flat = _random.bernoulli_tensor(gen, _memory_ordered(probs, data))
    else:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_random._fmt(p)}")
        flat = _random.bernoulli_scalar(gen, data.size, p)
    return _overwrite(tensor, _random.in_memory_order(data, flat.astype(data.dtype)),
                      BernoulliBackward0)


def _memory_ordered(values, template):
    """``values`` (shaped like ``template``) read in ``template``'s memory order."""
    if template.ndim < 2 or template.flags.c_contiguous:
        return np.ascontiguousarray(values).reshape(-1)
    axes = sorted(range(template.ndim), key=lambda a: -abs(template.strides[a]))
    return np.ascontiguousarray(np.transpose(values, axes)).reshape(-1)


def bernoulli(input, p=None, *, generator=None):
    """``bernoulli(probs)``: a tensor of 0s and 1s, 1 where ``u < probs``."""
    out = Tensor._make(np.empty_like(input._data), input._device)
    return bernoulli_(out, input if p is None else p, generator=generator)


def exponential_(tensor, lambd=1.0, *, generator=None):
    """Samples of Exp(lambd): ``-log1p(-u) / lambd`` of a double uniform ``u``."""
    _cpu_only(tensor, "exponential_")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_random._fmt(lambd)}")
    data = tensor._data
    flat = _random.exponential(_random.cpu_generator(generator), data.size, lambd)
    return _overwrite(tensor, _random.in_memory_order(data, flat.astype(data.dtype)),
                      ExponentialBackward0)


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Indices drawn from each row's (unnormalised) probabilities, as PyTorch's CPU kernel:
    without replacement (or one sample) ``argmax``/``topk`` of ``p / Exp(1)``; with replacement
    a binary search of one double uniform per sample in the normalised running sum."""
    _cpu_only(input, "multinomial")
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    probs = input._data
    if not np.issubdtype(probs.dtype, np.floating):
        raise RuntimeError("multinomial only supports floating-point dtypes for input")
    n_categories = probs.shape[-1]
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > n_categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if not np.all(np.isfinite(probs)) or (probs < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    rows = probs.reshape(-1, n_categories)
    if (rows.sum(axis=1) == 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    gen = _random.cpu_generator(generator)
    if not replacement or num_samples == 1:
        q = _random.exponential(gen, probs.size, 1.0).astype(probs.dtype).reshape(rows.shape)
        ratio = rows / q
        if num_samples == 1:
            picked = ratio.argmax(axis=1)[:, None]
        else:
            picked = np.argsort(-ratio, axis=1, kind="stable")[:, :num_samples]
    else:
        picked = np.empty((rows.shape[0], num_samples), np.int64)
        for i, row in enumerate(rows):
            cumulative = np.cumsum(row)
            cumulative = cumulative / cumulative[-1]
            u = gen._uniform(num_samples, np.float64)
            picked[i] = np.searchsorted(cumulative, u, side="left")
    picked = picked.astype(np.int64).reshape(probs.shape[:-1] + (num_samples,))
    return Tensor._make(picked, input._device)
