"""``nnref.distributed``: PyTorch's ``torch.distributed`` on MPI.

Importing this package needs nothing beyond numpy; ``init_process_group`` imports
``mpi4py`` and joins every process that ``mpiexec`` (or ``python -m nnref.distributed.run``)
started.  The collectives live in ``.distributed_c10d``; the bucket assignment of
``DistributedDataParallel``'s reducer in ``._reducer_buckets``.
"""
from ._reducer_buckets import _DEFAULT_FIRST_BUCKET_BYTES, _compute_bucket_assignment_by_size
from .distributed_c10d import (Backend, GroupMember, ProcessGroup, ReduceOp, Work, _get_default_group,
                               all_gather, all_gather_into_tensor, all_gather_single, all_reduce, barrier, broadcast,
                               destroy_process_group, gather, get_backend, get_rank, get_world_size,
                               group, init_process_group, irecv, is_available, is_gloo_available,
                               is_initialized, is_mpi_available, is_nccl_available, isend, recv,
                               reduce, reduce_scatter_single, reduce_scatter_tensor, scatter, send)
from .distributed_c10d import __all__  # noqa: F401
