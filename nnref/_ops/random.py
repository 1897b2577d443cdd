"""Random in-place fills and samplers: ``random_``, ``bernoulli_``, ``exponential_``,
``bernoulli``, ``multinomial`` (``uniform_``/``normal_`` live with the other in-place fills).

Each draws PyTorch's numbers from the CPU generator (``nnref._random``), in the
order of PyTorch's CPU kernels (``aten/src/ATen/native/cpu/DistributionTemplates.h``,
``aten/src/ATen/native/Distributions.cpp``).  A CUDA tensor draws from the device's
generator (CuPy's), as the factories do: the same distributions, other numbers.
"""
import numpy as np

from .. import _random
from ..core._device import array_module, to_host
from ..core._tensor import Tensor
from .inplace import _OverwrittenBackward, _overwrite


class RandomBackward0(_OverwrittenBackward):
    pass


class BernoulliBackward0(_OverwrittenBackward):
    pass


class ExponentialBackward0(_OverwrittenBackward):
    pass


def _device_generator(tensor, generator):
    """The generator of a CUDA tensor's device (CuPy's); a ``generator=``, which draws CPU
    numbers, is refused there as PyTorch refuses it."""
    if generator is not None:
        raise RuntimeError(f"Expected a '{tensor._device.type}' device type for generator but found 'cpu'")
    return _random.generator(tensor._device)


def _full_range(dtype):
    """``random_()``'s bounds [0, high) for ``dtype``: the integers a float holds exactly."""
    if dtype == np.bool_:
        return 2
    if dtype.kind == "f":
        return 2 ** (np.finfo(dtype).nmant + 1) + 1
    return int(np.iinfo(dtype).max) + 1


def random_(tensor, from_=None, to=None, *, generator=None, **kwargs):
    """``random_()``: integers over the dtype's range; ``random_(to)``/``random_(from, to)``: [from, to)."""
    from_ = kwargs.pop("from", from_)
    if kwargs:
        raise TypeError(f"random_() got an unexpected keyword argument {next(iter(kwargs))!r}")
    if from_ is None and to is not None:  # random_(to=n)
        from_ = 0
    data = tensor._data
    if tensor._device.type != "cpu":
        _device_generator(tensor, generator)
        low, high = (0, _full_range(data.dtype)) if from_ is None and to is None else (
            (0, from_) if to is None else (from_, to))
        samples = _random.randint_like(data, tensor._device, int(low), int(high))
        return _overwrite(tensor, samples.astype(data.dtype), RandomBackward0)
    gen = _random.cpu_generator(generator)
    if from_ is None and to is None:
        flat = _random.random_full(gen, data.size, data.dtype)
        return _overwrite(tensor, _random.in_memory_order(data, flat), RandomBackward0)
    if to is None:
        from_, to = 0, from_
    samples = _random.randint_like(data, tensor._device, int(from_), int(to), gen)
    return _overwrite(tensor, samples, RandomBackward0)


def bernoulli_(tensor, p=0.5, *, generator=None):
    """1 with probability ``p`` (a number, or a tensor broadcast to ``tensor``), else 0."""
    data = tensor._data
    xp = array_module(tensor._device)
    if isinstance(p, Tensor):
        probs = xp.broadcast_to(p.to(tensor._device)._data, data.shape)
        if probs.size and to_host((probs < 0).any() | (probs > 1).any()):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                               "(bernoulli's probabilities must lie in [0, 1])")
    elif not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_random._fmt(p)}")
    if tensor._device.type != "cpu":
        u = _device_generator(tensor, generator).random(data.shape)
        kept = u < (probs if isinstance(p, Tensor) else p)
        return _overwrite(tensor, kept.astype(data.dtype), BernoulliBackward0)
    gen = _random.cpu_generator(generator)
    if isinstance(p, Tensor):
        flat = _random.bernoulli_tensor(gen, _memory_ordered(probs, data))
    else:
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
    """``bernoulli(probs)``: a tensor of 0s and 1s, 1 where ``u < probs``, drawn into a
    contiguous tensor (PyTorch's ``empty_like(self, LEGACY_CONTIGUOUS_MEMORY_FORMAT)``: an
    expanded or transposed ``probs`` does not change the order of the draws)."""
    data = input._data
    out = Tensor._make(array_module(input._device).empty(data.shape, data.dtype), input._device)
    return bernoulli_(out, input if p is None else p, generator=generator)


def exponential_(tensor, lambd=1.0, *, generator=None):
    """Samples of Exp(lambd): ``-log1p(-u) / lambd`` of a double uniform ``u``."""
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_random._fmt(lambd)}")
    data = tensor._data
    if tensor._device.type != "cpu":
        u = _device_generator(tensor, generator).random(data.shape)
        xp = array_module(tensor._device)
        return _overwrite(tensor, (-1.0 / lambd * xp.log1p(-u)).astype(data.dtype), ExponentialBackward0)
    flat = _random.exponential(_random.cpu_generator(generator), data.size, lambd)
    return _overwrite(tensor, _random.in_memory_order(data, flat.astype(data.dtype)),
                      ExponentialBackward0)


def multinomial(input, num_samples, replacement=False, *, generator=None):
    """Indices drawn from each row's (unnormalised) probabilities, as PyTorch's CPU kernel:
    without replacement (or one sample) ``argmax``/``topk`` of ``p / Exp(1)``; with replacement
    a binary search of one double uniform per sample in the normalised running sum."""
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    probs = input._data
    xp = array_module(input._device)
    if not np.issubdtype(probs.dtype, np.floating):
        raise RuntimeError("multinomial only supports floating-point dtypes for input")
    n_categories = probs.shape[-1]
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > n_categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    if to_host(~xp.isfinite(probs).all() | (probs < 0).any()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    rows = probs.reshape(-1, n_categories)
    if to_host((rows.sum(axis=1) == 0).any()):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    on_device = input._device.type != "cpu"
    gen = _device_generator(input, generator) if on_device else _random.cpu_generator(generator)
    if not replacement or num_samples == 1:
        q = (-xp.log1p(-gen.random(rows.shape)) if on_device
             else _random.exponential(gen, probs.size, 1.0).reshape(rows.shape)).astype(probs.dtype)
        ratio = rows / q
        if num_samples == 1:
            picked = ratio.argmax(axis=1)[:, None]
        else:
            picked = (xp.argsort(-ratio, axis=1) if on_device
                      else np.argsort(-ratio, axis=1, kind="stable"))[:, :num_samples]
    else:
        # PyTorch draws each row's uniforms in turn (row-major), then binary-searches them;
        # the same search, run for every draw at once
        cumulative = xp.cumsum(rows, axis=1)
        cumulative = cumulative / cumulative[:, -1:]
        shape = (rows.shape[0], num_samples)
        u = gen.random(shape) if on_device else gen._uniform(shape[0] * shape[1], np.float64).reshape(shape)
        picked = _lower_bound(xp, cumulative, u)
    picked = picked.astype(np.int64).reshape(probs.shape[:-1] + (num_samples,))
    return Tensor._make(picked, input._device)


def _lower_bound(xp, cumulative, u):
    """For each row of ``u``, the first index of the same row of ``cumulative`` that is
    ``>= u``: PyTorch's binary search (``multinomial_with_replacement_apply``), one halving
    step for all draws at a time."""
    n_categories = cumulative.shape[1]
    left = xp.zeros(u.shape, np.int64)
    right = xp.full(u.shape, n_categories, np.int64)
    while to_host((right > left).any()):
        active = right > left
        mid = left + (right - left) // 2
        below = xp.take_along_axis(cumulative, xp.minimum(mid, n_categories - 1), axis=1) < u
        left = xp.where(active & below, mid + 1, left)
        right = xp.where(active & ~below, mid, right)
    return left
