"""Datasets (``torch/utils/data/dataset.py``): what a ``DataLoader`` reads samples from.

A map-style ``Dataset`` answers ``len(ds)`` and ``ds[i]``; an ``IterableDataset``
is a stream that only answers ``iter(ds)``.
"""
import bisect
import itertools
import math
import warnings

from ...core._naming import TorchNamedABC
from ... import _random
from ...core._tensor import Tensor

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "Subset",
           "ConcatDataset", "ChainDataset", "random_split"]


class Dataset(metaclass=TorchNamedABC):
    """A map-style dataset: subclasses define ``__getitem__(index)`` (and usually ``__len__``)."""

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """A dataset that is a stream: subclasses define ``__iter__``; ``DataLoader`` takes no
    sampler or shuffle for it (there is no index to sample)."""

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Sample ``i`` is ``tuple(t[i] for t in tensors)``; every tensor has the same first size."""

    def __init__(self, *tensors):
        for t in tensors:
            if not isinstance(t, Tensor):
                raise TypeError(f"TensorDataset expects tensors, got {type(t).__name__}; "
                                "convert with nnref.tensor(...) first")
        if tensors and any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Sample ``i`` is ``(d[i] for d in datasets)`` as a tuple (positional datasets) or a dict
    (keyword datasets); all have the same length (``torch/utils/data/dataset.py``)."""

    def __init__(self, *args, **kwargs):
        if args:
            if kwargs:
                # PyTorch's message, its missing space included
                raise ValueError("Supported either ``tuple``- (via ``args``) or"
                                 "``dict``- (via ``kwargs``) like input/output, but both types "
                                 "are given.")
            self._length = len(args[0])
            if any(self._length != len(dataset) for dataset in args):
                raise ValueError("Size mismatch between datasets")
            self.datasets = args
        elif kwargs:
            datasets = list(kwargs.values())
            self._length = len(datasets[0])
            if any(self._length != len(dataset) for dataset in datasets):
                raise ValueError("Size mismatch between datasets")
            self.datasets = kwargs
        else:
            raise ValueError("At least one dataset should be passed")

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: dataset[index] for k, dataset in self.datasets.items()}
        return tuple(dataset[index] for dataset in self.datasets)

    def __getitems__(self, indices):
        """A batch of samples, read with each dataset's own ``__getitems__`` where it has one
        (``torch/utils/data/dataset.py``)."""
        named = self.datasets if isinstance(self.datasets, dict) else dict(enumerate(self.datasets))
        columns = {k: self._column(dataset, indices) for k, dataset in named.items()}
        if isinstance(self.datasets, dict):
            return [{k: column[i] for k, column in columns.items()} for i in range(len(indices))]
        return [tuple(column[i] for column in columns.values()) for i in range(len(indices))]

    @staticmethod
    def _column(dataset, indices):
        if callable(getattr(dataset, "__getitems__", None)):
            items = dataset.__getitems__(indices)
            if len(items) != len(indices):
                raise ValueError("Nested dataset's output size mismatch."
                                 f" Expected {len(indices)}, got {len(items)}")
            return items
        return [dataset[idx] for idx in indices]

    def __len__(self):
        return self._length


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order."""

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__([self.indices[idx] for idx in indices])
        return [self.dataset[self.indices[idx]] for idx in indices]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    """Several map-style datasets one after the other."""

    @staticmethod
    def cumsum(sequence):
        """The running totals of the datasets' lengths, which place an index in its dataset
        (``torch/utils/data/dataset.py``)."""
        return list(itertools.accumulate(len(e) for e in sequence))

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if len(self.datasets) == 0:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx = len(self) + idx
        dataset_idx = bisect.bisect_right(self.cumulative_sizes, idx)
        sample_idx = idx if dataset_idx == 0 else idx - self.cumulative_sizes[dataset_idx - 1]
        return self.datasets[dataset_idx][sample_idx]


class ChainDataset(IterableDataset):
    """Several ``IterableDataset`` streams one after the other; ``stream_a + stream_b`` makes
    one (``torch/utils/data/dataset.py``)."""

    def __init__(self, datasets):
        super().__init__()
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield from d

    def __len__(self):
        total = 0
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            total += len(d)
        return total


def random_split(dataset, lengths, generator=None):
    """Split ``dataset`` into non-overlapping ``Subset``s of the given lengths (or fractions
    summing to 1), by one ``randperm`` of the whole dataset, as PyTorch does."""
    lengths = list(lengths)
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        subset_lengths = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            subset_lengths.append(math.floor(len(dataset) * frac))
        remainder = len(dataset) - sum(subset_lengths)
        for i in range(remainder):  # the leftovers go round-robin, one each
            subset_lengths[i % len(subset_lengths)] += 1
        lengths = subset_lengths
        for i, length in enumerate(lengths):
            if length == 0:
                warnings.warn(f"Length of split at index {i} is 0. "
                              f"This might result in an empty dataset.", stacklevel=2)
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    from ..._creation import randperm
    indices = randperm(sum(lengths), generator=generator or _random.default_generator).tolist()
    return [Subset(dataset, indices[offset - length:offset])
            for offset, length in zip(itertools.accumulate(lengths), lengths)]
