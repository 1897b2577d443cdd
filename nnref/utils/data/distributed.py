"""``DistributedSampler`` (``torch/utils/data/distributed.py``): each rank's share of a dataset.

The (shuffled) index list is padded by repeating its start until it divides evenly, or cut
with ``drop_last``, and rank r takes every ``num_replicas``-th index from r.  The shuffle is
``randperm`` on a fresh generator seeded with ``seed + epoch``, PyTorch's CPU stream, so every
rank (and PyTorch itself) draws the same permutation.
"""
import math

from ..._creation import randperm
from ..._random import Generator
from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """``DistributedSampler(dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
    drop_last=False)``; ``num_replicas``/``rank`` default to the process group's."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        from ... import distributed as dist
        if num_replicas is None:
            num_replicas = dist.get_world_size()
        if rank is None:
            rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        if self.drop_last and len(self.dataset) % self.num_replicas != 0:
            # Drop the tail so that every rank gets the same number of samples.
            self.num_samples = math.ceil((len(self.dataset) - self.num_replicas) / self.num_replicas)
        else:
            self.num_samples = math.ceil(len(self.dataset) / self.num_replicas)
        self.total_size = self.num_samples * self.num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        if self.shuffle:
            g = Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = randperm(len(self.dataset), generator=g).tolist()
        else:
            indices = list(range(len(self.dataset)))
        if not self.drop_last:
            padding_size = self.total_size - len(indices)
            if padding_size <= len(indices):
                indices += indices[:padding_size]
            else:
                indices += (indices * math.ceil(padding_size / len(indices)))[:padding_size]
        else:
            indices = indices[:self.total_size]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Shuffle differently in the next pass (call it at the start of every epoch, on every
        rank with the same ``epoch``)."""
        self.epoch = epoch
