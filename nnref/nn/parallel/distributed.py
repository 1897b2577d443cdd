"""``DistributedDataParallel``: one model per process, gradients averaged during backward.

Mirrors ``torch/nn/parallel/distributed.py`` and its C++ ``Reducer``
(``torch/csrc/distributed/c10d/reducer.cpp``), built from what a single process already has:

* construction broadcasts every parameter and buffer from rank 0, so all replicas start equal;
* each parameter gets a post-accumulate-grad hook; when ``AccumulateGrad`` has written
  ``.grad``, the hook copies ``grad / world_size`` into its slot of a flat *bucket*;
* a bucket whose every slot is filled is all-reduced (summed) with a non-blocking MPI request
  while backward goes on; buckets are launched in order, as PyTorch's ``next_bucket_``;
* once every bucket is launched, a callback queued on the autograd engine waits for the
  requests at the end of backward and copies each averaged slot back into ``.grad``.

Buckets: the first iteration uses one bucket holding every parameter (PyTorch's choice when
``find_unused_parameters=False``: the order gradients arrive in is not known yet); its
backward records that order, and the next forward rebuilds the buckets along it, the first
capped at ``_DEFAULT_FIRST_BUCKET_BYTES`` (1 MiB) and the others at ``bucket_cap_mb``.
With ``find_unused_parameters=True`` the buckets are made once, in reverse parameter order.
"""
import contextlib
import sys

import numpy as np

from ..modules.module import Module

__all__ = ["DistributedDataParallel"]

_DEFAULT_BUCKET_CAP_MB = 25
_MB_TO_BYTES = 1024 * 1024
_BROADCAST_BUCKET_SIZE = 250 * _MB_TO_BYTES  # int(250 * 1024 * 1024) in PyTorch


def _find_tensors(obj):
    """Every tensor inside ``obj`` (tuples, lists, dicts), as DDP's ``_find_tensors``."""
    from ...core._tensor import Tensor
    if isinstance(obj, Tensor):
        return [obj]
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _find_tensors(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in _find_tensors(o)]
    return []


def _broadcast_coalesced(tensors, pg, src):
    """Broadcast ``tensors`` from ``src``, one flat message per dtype of at most 250 MiB
    (``_broadcast_coalesced``)."""
    by_dtype = {}
    for t in tensors:
        by_dtype.setdefault(t._data.dtype, []).append(t)
    for group in by_dtype.values():
        start = 0
        while start < len(group):
            chunk, size = [], 0
            while start < len(group) and (not chunk or size + group[start]._data.nbytes <= _BROADCAST_BUCKET_SIZE):
                chunk.append(group[start])
                size += group[start]._data.nbytes
                start += 1
            flat = np.concatenate([t._data.ravel() for t in chunk])
            pg._comm.Bcast(flat.view(np.uint8), root=src)
            offset = 0
            for t in chunk:
                np.copyto(t._data, flat[offset:offset + t._data.size].reshape(t._data.shape))
                offset += t._data.size
                t._bump_version()


class _Bucket:
    """A flat buffer of gradients, one slot per parameter, all-reduced as one message."""

    __slots__ = ("indices", "buffer", "views", "pending", "work")

    def __init__(self, indices, params):
        self.indices = indices
        dtype = params[indices[0]]._data.dtype
        self.buffer = np.empty(sum(params[i]._data.size for i in indices), dtype)
        self.views, offset = [], 0
        for i in indices:
            shape = params[i]._data.shape
            self.views.append(self.buffer[offset:offset + params[i]._data.size].reshape(shape))
            offset += params[i]._data.size
        self.pending = len(indices)
        self.work = None


class _Reducer:
    """PyTorch's ``Reducer``: buckets, per-iteration accounting, launch and finalize."""

    def __init__(self, params, bucket_indices, pg, bucket_bytes_cap, first_bucket_bytes_cap,
                 find_unused_parameters):
        self.params = params
        self.pg = pg
        self.bucket_bytes_cap = bucket_bytes_cap
        self.first_bucket_bytes_cap = first_bucket_bytes_cap
        self.find_unused_parameters = find_unused_parameters
        self.expect_autograd_hooks = False
        self.require_finalize = False
        self.has_rebuilt_bucket = False
        self.rebuilt_param_indices = []
        self.ready = np.zeros(len(params), bool)
        self.local_used = np.zeros(len(params), np.int32)
        self.unused_parameters = []
        self.has_marked_unused_parameters = False
        self.num_buckets_reduced = 0
        self._initialize_buckets(bucket_indices)

    def _initialize_buckets(self, bucket_indices):
        self.buckets = [_Bucket(indices, self.params) for indices in bucket_indices]
        self.location = {}
        for b, bucket in enumerate(self.buckets):
            for slot, i in enumerate(bucket.indices):
                self.location[i] = (b, slot)

    def _should_rebuild_buckets(self):
        return not self.find_unused_parameters and not self.has_rebuilt_bucket

    # -- forward side --------------------------------------------------------------------------
    def ensure_prior_reduction_finished(self):
        if not self.require_finalize:
            return
        missing = " ".join(str(i) for i in np.flatnonzero(~self.ready))
        raise RuntimeError(
            "Expected to have finished reduction in the prior iteration before starting a new one. "
            "This error indicates that your module has parameters that were not used in producing "
            "loss. You can enable unused parameter detection by passing the keyword argument "
            "`find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, and by \n"
            "making sure all `forward` function outputs participate in calculating loss. \n"
            "If you already have done the above, then the distributed data parallel module wasn't "
            "able to locate the output tensors in the return value of your module's `forward` "
            "function. Please include the loss function and the structure of the return value of "
            "`forward` of your module when reporting this issue (e.g. list, dict, iterable).\n"
            f"Parameter indices which did not receive grad for rank {self.pg.rank()}: {missing}\n"
            " In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either "
            "INFO or DETAIL to print out information about which particular parameters did not "
            "receive gradient on this rank as part of this error")

    def rebuild_buckets(self):
        """Re-bucket along the order gradients arrived in the first iteration (rank 0's order,
        broadcast so every rank agrees); True if that happened now."""
        self.ensure_prior_reduction_finished()
        if not self._should_rebuild_buckets() or not self.rebuilt_param_indices:
            return False
        from ...distributed import _compute_bucket_assignment_by_size
        order = self.rebuilt_param_indices
        bucket_indices, _ = _compute_bucket_assignment_by_size(
            [self.params[i] for i in order], [self.first_bucket_bytes_cap, self.bucket_bytes_cap],
            tensor_indices=order)
        bucket_indices = self.pg._comm.bcast(bucket_indices, root=0)  # sync_bucket_indices
        self._initialize_buckets(bucket_indices)
        self.has_rebuilt_bucket = True
        self.rebuilt_param_indices = []
        return True

    def prepare_for_backward(self, outputs):
        """Reset the accounting; with ``find_unused_parameters`` find the parameters the
        outputs do not depend on (a walk of their autograd graph)."""
        self.expect_autograd_hooks = True
        self.require_finalize = True
        self.ready[:] = False
        self.local_used[:] = 0
        self.next_bucket = 0
        for bucket in self.buckets:
            bucket.pending = len(bucket.indices)
            bucket.work = None
        self.has_marked_unused_parameters = False
        if not self.find_unused_parameters:
            return
        reached = set()
        seen = set()
        stack = [t.grad_fn for t in outputs if t.grad_fn is not None]
        stack += [t._grad_accumulator() for t in outputs if t.grad_fn is None and t.requires_grad]
        while stack:
            node = stack.pop()
            if node in seen:
                continue
            seen.add(node)
            variable = getattr(node, "variable", None)
            if variable is not None:
                reached.add(id(variable))
            stack.extend(child for child, _ in node.next_functions if child is not None)
        self.unused_parameters = [i for i, p in enumerate(self.params) if id(p) not in reached]

    # -- backward side: the hooks --------------------------------------------------------------
    def autograd_hook(self, index):
        if not self.expect_autograd_hooks:
            return
        if 0 < self.next_bucket < len(self.buckets):
            # MPI moves a non-blocking message only inside MPI calls: a test now and then lets
            # the buckets already launched travel while backward computes the rest.
            sys.modules["mpi4py.MPI"].Request.Testall([b.work for b in self.buckets[:self.next_bucket]])
        if self.find_unused_parameters:
            self.local_used[index] = 1
            if not self.has_marked_unused_parameters:
                self.has_marked_unused_parameters = True
                for unused in self.unused_parameters:
                    self.mark_variable_ready(unused)
        self.mark_variable_ready(index)

    def mark_variable_ready(self, index):
        if self.ready[index]:
            raise RuntimeError(
                f"Expected to mark a variable ready only once. This error is caused by one of the "
                f"following reasons: 1) Use of a module parameter outside the `forward` function. "
                f"Please make sure model parameters are not shared across multiple concurrent "
                f"forward-backward passes. or try to use _set_static_graph() as a workaround if "
                f"this module graph does not change during training loop.2) Reused parameters in "
                f"multiple reentrant backward passes. Parameter at index {index} has been marked "
                f"as ready twice.")
        self.ready[index] = True
        if self._should_rebuild_buckets():
            self.rebuilt_param_indices.append(index)
        b, slot = self.location[index]
        bucket = self.buckets[b]
        grad = self.params[index]._grad
        if grad is not None:
            # copy_grad_to_bucket: divide while copying, one pass over the gradient.
            np.multiply(grad._data, 1.0 / self.pg.size(), out=bucket.views[slot])
        else:
            bucket.views[slot][...] = 0
        bucket.pending -= 1
        if bucket.pending == 0:
            self.mark_bucket_ready(b)

    def mark_bucket_ready(self, b):
        if b > self.next_bucket:
            return  # launched once the buckets before it are
        MPI = sys.modules["mpi4py.MPI"]
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].pending == 0:
            bucket = self.buckets[self.next_bucket]
            bucket.work = self.pg._comm.Iallreduce(MPI.IN_PLACE, bucket.buffer, MPI.SUM)
            self.next_bucket += 1
            self.num_buckets_reduced = self.next_bucket
        if self.next_bucket == len(self.buckets):
            if self.find_unused_parameters:
                self.local_used_work = self.pg._comm.Iallreduce(MPI.IN_PLACE, self.local_used, MPI.MAX)
            from ...autograd._engine import queue_callback
            queue_callback(self.finalize_backward)

    def finalize_backward(self):
        """Wait for every bucket, then write the averages into ``.grad`` (a parameter unused on
        every rank keeps its ``.grad`` untouched, as in PyTorch)."""
        from ...core._tensor import Tensor
        MPI = sys.modules["mpi4py.MPI"]
        self.expect_autograd_hooks = False
        self.require_finalize = False
        MPI.Request.Waitall([bucket.work for bucket in self.buckets])
        if self.find_unused_parameters:
            self.local_used_work.Wait()
        for bucket in self.buckets:
            for slot, index in enumerate(bucket.indices):
                if self.find_unused_parameters and not self.local_used[index]:
                    continue
                param = self.params[index]
                if param._grad is None:
                    param.grad = Tensor._make(bucket.views[slot].copy(), param._device)
                else:
                    np.copyto(param._grad._data, bucket.views[slot])
                    param._grad._bump_version()


class DistributedDataParallel(Module):
    """Data parallelism across processes: wrap the model, train as usual, gradients are averaged.

    ``DistributedDataParallel(module, broadcast_buffers=True, process_group=None,
    bucket_cap_mb=None, find_unused_parameters=False)``; the other arguments of PyTorch's
    constructor are accepted at their defaults and refused otherwise.
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 init_sync=True, process_group=None, bucket_cap_mb=None, find_unused_parameters=False,
                 check_reduction=False, gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None,
                 mixed_precision=None, device_mesh=None, skip_all_reduce_unused_params=False,
                 bucket_cap_mb_list=None, batched_grad_copy=False):
        super().__init__()
        from ... import distributed as dist
        from ..modules.lazy import LazyModuleMixin
        unsupported = {"gradient_as_bucket_view": gradient_as_bucket_view, "static_graph": static_graph,
                       "delay_all_reduce_named_params": delay_all_reduce_named_params,
                       "param_to_hook_all_reduce": param_to_hook_all_reduce,
                       "mixed_precision": mixed_precision, "device_mesh": device_mesh,
                       "skip_all_reduce_unused_params": skip_all_reduce_unused_params,
                       "bucket_cap_mb_list": bucket_cap_mb_list}
        for name, value in unsupported.items():
            if value:
                raise NotImplementedError(f"nnref's DistributedDataParallel does not implement "
                                          f"{name}={value!r}; leave it at its default.")
        if any(isinstance(m, LazyModuleMixin) and m.has_uninitialized_params() for m in module.modules()):
            raise RuntimeError("Modules with uninitialized parameters can't be used with "
                               "`DistributedDataParallel`. Run a dummy forward pass to correctly "
                               "initialize the modules")
        if not any(p.requires_grad for p in module.parameters()):
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have "
                               "any parameter that requires a gradient.")
        devices = {p.device for p in module.parameters()}
        if device_ids is not None or output_device is not None:
            raise ValueError(
                f"DistributedDataParallel device_ids and output_device arguments only work with "
                f"single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                f"{device_ids}, output_device {output_device}, and module parameters {devices}.")
        if any(d.type != "cpu" for d in devices):
            raise RuntimeError("nnref's DistributedDataParallel runs CPU modules only (its "
                               "collectives move host memory through MPI); move the module to 'cpu'.")
        self.module = module
        self.process_group = dist._get_default_group() if process_group is None else process_group
        self.device_ids = None
        self.output_device = None
        self.dim = dim
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.gradient_as_bucket_view = False
        self.static_graph = False
        self.parameters_to_ignore = set(getattr(module, "_ddp_params_and_buffers_to_ignore", ()))
        self._module_parameters = [p for n, p in module.named_parameters()
                                   if n not in self.parameters_to_ignore]
        self.modules_buffers = [b for n, b in module.named_buffers() if n not in self.parameters_to_ignore]
        self.bucket_bytes_cap = int((bucket_cap_mb if bucket_cap_mb is not None else _DEFAULT_BUCKET_CAP_MB)
                                    * _MB_TO_BYTES)
        first_cap = dist._DEFAULT_FIRST_BUCKET_BYTES if bucket_cap_mb is None else self.bucket_bytes_cap

        self._verify_param_shape_across_processes()
        if init_sync:
            _broadcast_coalesced(self._module_parameters + self.modules_buffers, self.process_group, 0)

        parameters = [p for p in self._module_parameters if p.requires_grad]
        if find_unused_parameters:
            limits = [first_cap, self.bucket_bytes_cap] if first_cap < self.bucket_bytes_cap \
                else [self.bucket_bytes_cap]
        else:
            limits = [sys.maxsize]
        bucket_indices, _ = dist._compute_bucket_assignment_by_size(parameters, limits)
        self.reducer = _Reducer(parameters, list(reversed(bucket_indices)), self.process_group,
                                self.bucket_bytes_cap, first_cap, find_unused_parameters)
        self._hook_handles = [p.register_post_accumulate_grad_hook(_AutogradHook(self.reducer, i))
                              for i, p in enumerate(parameters)]

    def _verify_param_shape_across_processes(self):
        shapes = [(tuple(p.shape), str(p.dtype)) for p in self._module_parameters]
        every = self.process_group._comm.allgather(shapes)
        for rank, theirs in enumerate(every):
            if len(theirs) != len(shapes):
                raise RuntimeError(f"DDP expects same model across all ranks, but Rank "
                                   f"{self.process_group.rank()} has {len(shapes)} params, while rank "
                                   f"{rank} has inconsistent {len(theirs)} params.")
            for i, (mine, other) in enumerate(zip(shapes, theirs)):
                if mine != other:
                    raise RuntimeError(f"DDP expects same model across all ranks, but Rank "
                                       f"{self.process_group.rank()} has parameter {i} of shape "
                                       f"{list(mine[0])} ({mine[1]}), while rank {rank} has "
                                       f"{list(other[0])} ({other[1]}).")

    def forward(self, *inputs, **kwargs):
        from ...core.autograd.grad_mode import is_grad_enabled
        grad_enabled = is_grad_enabled()
        if grad_enabled and self.require_backward_grad_sync:
            # PyTorch's logger takes its figures here, before the rebuild: they lag one step.
            self._logging_data = self._bucket_figures()
        if grad_enabled:
            self.reducer.rebuild_buckets()
        if self.require_forward_param_sync and self.broadcast_buffers and self.modules_buffers:
            _broadcast_coalesced(self.modules_buffers, self.process_group, 0)
        output = self.module(*inputs, **kwargs)
        if grad_enabled and self.require_backward_grad_sync:
            self.require_forward_param_sync = True
            self.reducer.prepare_for_backward(_find_tensors(output) if self.find_unused_parameters else [])
        else:
            self.require_forward_param_sync = False
        return output

    @contextlib.contextmanager
    def no_sync(self):
        """Inside, backward accumulates local gradients without communicating (gradient
        accumulation); the first backward after it averages everything accumulated."""
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def _get_ddp_logging_data(self):
        """The bucket figures PyTorch's logger reports (sizes in bytes, indices per bucket), as
        taken by the last forward that prepared a backward."""
        return dict(getattr(self, "_logging_data", None) or self._bucket_figures())

    def _bucket_figures(self):
        sizes = ", ".join(str(b.buffer.nbytes) for b in self.reducer.buckets)
        indices = ", ".join(" ".join(str(i) for i in b.indices) for b in self.reducer.buckets)
        data = {"bucket_cap_bytes": self.bucket_bytes_cap, "has_rebuilt_buckets": int(self.reducer.has_rebuilt_bucket),
                "num_buckets_reduced": self.reducer.num_buckets_reduced}
        if self.reducer.has_rebuilt_bucket:
            data.update(rebuilt_bucket_sizes=sizes, rebuilt_per_bucket_param_indices=indices)
        else:
            data.update(bucket_sizes=sizes)
        return data


class _AutogradHook:
    """The post-accumulate-grad hook of parameter ``index`` (a class, so the reducer is not
    captured by a closure cell that pickling or printing would trip over)."""

    __slots__ = ("reducer", "index")

    def __init__(self, reducer, index):
        self.reducer, self.index = reducer, index

    def __call__(self, param):
        self.reducer.autograd_hook(self.index)
