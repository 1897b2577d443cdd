"""``DataLoader`` (``torch/utils/data/dataloader.py``): batches of samples, epoch after epoch.

Each ``iter(loader)`` first draws a 64-bit ``base_seed`` from the loader's generator
(the global one unless ``generator=`` is given), as PyTorch's ``_BaseDataLoaderIter``
does; then the batch sampler yields lists of indices (a ``RandomSampler`` draws its
own seed from the global generator when the first batch is asked for), the dataset
is read at those indices, and ``collate_fn`` makes the batch.  So a seeded program
draws the same random numbers in nnref and PyTorch, whatever it loads.

``num_workers > 0`` runs in the main process (with a warning): nnref has no worker
processes.
"""
import warnings

from ...core._naming import TorchNamed
from ... import _random, accelerator
from ...core import _dtype
from ..._creation import empty
from ...core._tensor import Tensor
from ...core.autograd.grad_mode import is_grad_enabled
from ._collate import default_collate, default_convert
from .dataset import Dataset, IterableDataset, TensorDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info"]


def get_worker_info():
    """``None``: nnref loads every batch in the main process."""
    return None


class _InfiniteConstantSampler(Sampler):
    def __iter__(self):
        while True:
            yield None


class DataLoader(metaclass=TorchNamed):
    """Iterate over ``dataset`` in batches (see the module docstring for the order of work)."""

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        if not (isinstance(dataset, Dataset) or hasattr(dataset, "__getitem__")
                or hasattr(dataset, "__iter__")):
            raise TypeError(f"DataLoader needs a dataset (an object with __getitem__ and __len__, "
                            f"or an IterableDataset), got {type(dataset).__name__}")
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; "
                             "use num_workers=0 to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set "
                             "prefetch_factor to None.")
        if prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if generator is not None and not isinstance(generator, _random.Generator):
            raise TypeError(f"generator must be a nnref.Generator, not {type(generator).__name__}")

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = "iterable"
            if shuffle not in (False, None):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = "map"
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:
            if self._dataset_kind == "iterable":
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        self.collate_fn = collate_fn or (default_collate if batch_sampler is not None
                                         else default_convert)
        self.persistent_workers = persistent_workers
        self.__initialized = True

    def __setattr__(self, attr, val):
        if getattr(self, "_DataLoader__initialized", False) and attr in (
                "batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after "
                             f"{self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        if self.pin_memory and self.pin_memory_device:
            warnings.warn(f"pin_memory_device is deprecated, the current accelerator will be used as "
                          f"the device,ignore pin_memory_device='{self.pin_memory_device}'.",
                          UserWarning, stacklevel=2)
        if self.pin_memory and not accelerator.is_available():
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then "
                          "device pinned memory won't be used.", UserWarning, stacklevel=2)
        if self.num_workers > 0:
            warnings.warn(f"nnref's DataLoader has no worker processes: num_workers="
                          f"{self.num_workers} loads the batches in the main process "
                          "(worker_init_fn is not called)", UserWarning, stacklevel=2)
        return _DataLoaderIter(self)

    def __len__(self):
        if self._dataset_kind == "iterable":
            length = len(self.dataset)
            if self.batch_size is not None:
                full, rest = divmod(length, self.batch_size)
                length = full if self.drop_last or not rest else full + 1
            return length
        return len(self._index_sampler)


class _DataLoaderIter:
    """One pass over a ``DataLoader``: PyTorch's ``_SingleProcessDataLoaderIter``."""

    def __init__(self, loader):
        self._dataset = loader.dataset
        self._collate_fn = loader.collate_fn
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._iterable = loader._dataset_kind == "iterable"
        self._index_sampler = loader._index_sampler
        self._sampler_iter = iter(self._index_sampler)
        # PyTorch draws the workers' base seed even without workers: one 64-bit number.
        self._base_seed = int(empty((), dtype=_dtype.int64).random_(generator=loader.generator)
                              .item())
        self._dataset_iter = iter(self._dataset) if self._iterable else None
        self._ended = False
        # Reading a TensorDataset by whole index arrays gives the batch default_collate would
        # build by stacking the samples one by one, without the Python loop.
        self._fast_tensors = (type(self._dataset) is TensorDataset and self._auto_collation
                              and self._collate_fn is default_collate
                              and all(t._device.type == "cpu" and t.dim() > 0
                                      for t in self._dataset.tensors))

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._index_sampler)

    def __next__(self):
        index = next(self._sampler_iter)
        if self._iterable:
            return self._next_from_stream(index)
        if not self._auto_collation:
            return self._collate_fn(self._dataset[index])
        if self._fast_tensors and not (is_grad_enabled()
                                       and any(t.requires_grad for t in self._dataset.tensors)):
            return [Tensor._make(t._data[index]) for t in self._dataset.tensors]
        getitems = getattr(self._dataset, "__getitems__", None)
        data = getitems(index) if callable(getitems) else [self._dataset[i] for i in index]
        return self._collate_fn(data)

    def _next_from_stream(self, index):
        if self._ended:
            raise StopIteration
        if not self._auto_collation:
            return self._collate_fn(next(self._dataset_iter))
        data = []
        for _ in index:
            try:
                data.append(next(self._dataset_iter))
            except StopIteration:
                self._ended = True
                break
        if not data or (self._drop_last and len(data) < len(index)):
            raise StopIteration
        return self._collate_fn(data)
