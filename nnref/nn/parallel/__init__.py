"""``nn.parallel`` (``torch/nn/parallel/__init__.py``): ``DistributedDataParallel``,
``DataParallel`` and ``data_parallel``.  Importing it needs no MPI."""
from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel

__all__ = ["DataParallel", "DistributedDataParallel", "data_parallel"]
