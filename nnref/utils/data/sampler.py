"""Samplers (``torch/utils/data/sampler.py``): the order in which a ``DataLoader`` visits indices.

``RandomSampler`` draws one 64-bit seed from the global generator each epoch
(unless given its own generator) and shuffles with ``randperm`` on a generator
seeded with it, exactly as PyTorch does: that is why shuffling changes what
later ``rand``/``randn`` calls return.
"""
import itertools
import numbers

from ...core._naming import TorchNamedABC
from ... import _random
from ..._creation import as_tensor, empty, randint, randperm
from ..._ops.random import multinomial
from ...core import _dtype

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]


class Sampler(metaclass=TorchNamedABC):
    """Base class: subclasses define ``__iter__`` over indices (and usually ``__len__``)."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, 2, ... ``len(data_source) - 1``."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _fresh_seed():
    """``int(torch.empty((), dtype=torch.int64).random_().item())``: one 64-bit draw."""
    return int(empty((), dtype=_dtype.int64).random_().item())


class RandomSampler(Sampler):
    """A shuffled order: one ``randperm`` per pass (or ``randint`` with replacement)."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement="
                            f"{self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        """How many indices one pass draws: ``num_samples`` if given, else the dataset's length
        (``torch/utils/data/sampler.py``)."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        if self.generator is None:
            generator = _random.Generator().manual_seed(_fresh_seed())
        else:
            generator = self.generator
        if self.replacement:
            for _ in range(self.num_samples // 32):
                yield from randint(high=n, size=(32,), dtype=_dtype.int64, generator=generator).tolist()
            yield from randint(high=n, size=(self.num_samples % 32,), dtype=_dtype.int64,
                               generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from randperm(n, generator=generator).tolist()
            yield from randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order (one ``randperm`` per pass)."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights`` (with
    replacement by default): one ``multinomial`` draw per pass, from ``generator`` or the global
    generator, so the indices are PyTorch's for the same seed (``torch/utils/data/sampler.py``)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if (not isinstance(num_samples, int) or isinstance(num_samples, bool)
                or num_samples <= 0):
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got "
                             f"replacement={replacement}")
        weights_tensor = as_tensor(weights, dtype=_dtype.double)
        if len(weights_tensor.shape) != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        rand_tensor = multinomial(self.weights, self.num_samples, self.replacement,
                                  generator=self.generator)
        yield from iter(rand_tensor.tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups another sampler's indices into lists of ``batch_size`` (the last one shorter
    unless ``drop_last``)."""

    def __init__(self, sampler, batch_size, drop_last):
        if (not isinstance(batch_size, numbers.Integral) or isinstance(batch_size, bool)
                or batch_size <= 0):
            raise ValueError(f"batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        sampler_iter = iter(self.sampler)
        if self.drop_last:
            for batch in zip(*[sampler_iter] * self.batch_size):
                yield [*batch]
        else:
            batch = [*itertools.islice(sampler_iter, self.batch_size)]
            while batch:
                yield batch
                batch = [*itertools.islice(sampler_iter, self.batch_size)]

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
