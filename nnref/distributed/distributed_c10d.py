"""Process groups and collectives over MPI (``torch/distributed/distributed_c10d.py``).

PyTorch moves tensors between processes with a backend (Gloo, NCCL or MPI, the
``ProcessGroup*`` classes of ``torch/csrc/distributed/c10d``); nnref has one, MPI, reached
through ``mpi4py``.  Each collective hands MPI the tensor's own numpy array (no copy when it
is contiguous) and a non-blocking request; ``async_op=True`` returns the request as a
``Work``, otherwise it is waited for at once.  Arguments are checked on every rank
before any message leaves, so a wrong size or dtype raises PyTorch's error instead of
leaving the other ranks blocked.

``mpi4py`` is imported by ``init_process_group`` only: programs that merely import
``torch.distributed`` (or DDP) run without MPI installed.
"""
import atexit
import enum
import sys
import warnings

import numpy as np

__all__ = ["Backend", "GroupMember", "ProcessGroup", "ReduceOp", "Work", "all_gather",
           "all_gather_into_tensor", "all_gather_single", "all_reduce", "barrier", "broadcast", "destroy_process_group",
           "gather", "get_backend", "get_rank", "get_world_size", "group", "init_process_group",
           "irecv", "is_available", "is_gloo_available", "is_initialized", "is_mpi_available",
           "is_nccl_available", "isend", "recv", "reduce", "reduce_scatter_single", "reduce_scatter_tensor", "scatter",
           "send"]

_NOT_INITIALIZED = ("Default process group has not been initialized, please make sure to call "
                    "init_process_group.")


class Backend(str):
    """A backend's lower-case name (``Backend("MPI") == "mpi"``)."""

    UNDEFINED, GLOO, NCCL, MPI = "undefined", "gloo", "nccl", "mpi"

    def __new__(cls, name):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        return str.__new__(cls, name.lower())


class RedOpType(enum.IntEnum):
    """``c10d::ReduceOp::RedOpType``: the numbers PyTorch gives them."""

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7
    PREMUL_SUM = 8

    def __str__(self):
        return f"RedOpType.{self.name}"


class ReduceOp:
    """``dist.ReduceOp.SUM`` and friends: members of ``RedOpType``, as in PyTorch."""

    RedOpType = RedOpType
    SUM, AVG, PRODUCT, MIN, MAX = RedOpType.SUM, RedOpType.AVG, RedOpType.PRODUCT, RedOpType.MIN, RedOpType.MAX
    BAND, BOR, BXOR, PREMUL_SUM = RedOpType.BAND, RedOpType.BOR, RedOpType.BXOR, RedOpType.PREMUL_SUM


# The numpy ufunc of each reduction: the user-defined MPI operation for dtypes MPI cannot
# reduce itself (bool, bfloat16) runs it.
_UFUNCS = {RedOpType.SUM: np.add, RedOpType.AVG: np.add, RedOpType.PRODUCT: np.multiply,
           RedOpType.MIN: np.minimum, RedOpType.MAX: np.maximum, RedOpType.BAND: np.bitwise_and,
           RedOpType.BOR: np.bitwise_or, RedOpType.BXOR: np.bitwise_xor}


class ProcessGroup:
    """A communicator: the ranks that take part in a collective (``c10d::ProcessGroup``).

    Holds a duplicate of ``MPI.COMM_WORLD``, so that messages of a program's own mpi4py calls
    never match nnref's.
    """

    def __init__(self, comm, backend):
        self._comm = comm
        self._backend = backend
        self._user_ops = {}

    def rank(self):
        """This process's rank in the group."""
        return self._comm.Get_rank()

    def size(self):
        """The number of processes in the group."""
        return self._comm.Get_size()

    def name(self):
        """The backend's name in capitals (``'MPI'``)."""
        return self._backend.upper()

    def _mpi_op(self, op, array):
        """MPI's operation for ``op`` on ``array``'s dtype, and the array as MPI should read it."""
        MPI = sys.modules["mpi4py.MPI"]
        if array.dtype.kind in "fiuc" and array.dtype.name != "bfloat16":
            native = {RedOpType.SUM: MPI.SUM, RedOpType.AVG: MPI.SUM, RedOpType.PRODUCT: MPI.PROD,
                      RedOpType.MIN: MPI.MIN, RedOpType.MAX: MPI.MAX, RedOpType.BAND: MPI.BAND,
                      RedOpType.BOR: MPI.BOR, RedOpType.BXOR: MPI.BXOR}[op]
            return native, array
        # One MPI element per numpy element (a contiguous type of itemsize bytes), so MPI never
        # splits an element when it cuts a long message into pieces.
        key = (op, array.dtype)
        if key not in self._user_ops:
            dtype, ufunc = array.dtype, _UFUNCS[op]
            element = MPI.BYTE.Create_contiguous(dtype.itemsize).Commit()

            def reduce(inbuf, inoutbuf, datatype):
                incoming = np.frombuffer(inbuf, dtype=dtype)
                inout = np.frombuffer(inoutbuf, dtype=dtype)
                ufunc(incoming, inout, out=inout)

            self._user_ops[key] = (MPI.Op.Create(reduce, commute=True), element)
        mpi_op, element = self._user_ops[key]
        return mpi_op, [array.view(np.uint8), array.size, element]

    def _free(self):
        for mpi_op, element in self._user_ops.values():
            mpi_op.Free()
            element.Free()
        self._comm.Free()


class _World:
    default_pg = None
    failed = False  # an uncaught exception (or the launcher's report of one): skip MPI_Finalize


class group:
    """``dist.group.WORLD``: the default process group once initialised."""

    WORLD = None


GroupMember = group


class Work:
    """A collective in flight (``c10d::Work``): ``wait()`` blocks until it is done.

    ``finish`` runs once the requests complete: it copies a non-contiguous tensor's result
    back, or divides by the world size for ``ReduceOp.AVG``.
    """

    def __init__(self, requests, finish=None, result=()):
        self._requests = list(requests)
        self._finish = finish
        self._result = list(result)
        self._done = False
        self._source = None

    def _complete(self, statuses=None):
        self._done = True
        if self._finish is not None:
            self._finish()
            self._finish = None

    def wait(self, timeout=None):
        """Block until the operation completes; returns True, as PyTorch's ``Work.wait``."""
        if not self._done:
            MPI = sys.modules["mpi4py.MPI"]
            status = MPI.Status()
            if len(self._requests) == 1:
                self._requests[0].Wait(status)
                self._source = status.Get_source()
            else:
                MPI.Request.Waitall(self._requests)
            self._complete()
        return True

    def is_completed(self):
        """True once every request has finished (polls MPI, which also lets it progress)."""
        if not self._done:
            MPI = sys.modules["mpi4py.MPI"]
            if MPI.Request.Testall(self._requests):
                self._complete()
        return self._done

    def is_success(self):
        """True once completed (MPI reports a failed transfer by aborting the job instead)."""
        return self.is_completed()

    def exception(self):
        """None: an MPI error stops every rank rather than being stored here."""
        return None

    def result(self):
        """The output tensors of the collective."""
        self.wait()
        return self._result

    def source_rank(self):
        """The rank a ``recv`` from any source got its message from."""
        self.wait()
        return self._source

    def synchronize(self):
        """The same as ``wait()`` for CPU tensors."""
        self.wait()


def _mpi():
    """mpi4py's ``MPI`` module, imported on first need."""
    try:
        import mpi4py
    except ImportError:
        raise RuntimeError(
            "nnref.distributed runs process groups on MPI through mpi4py, which is not installed "
            "here. Install it with MPICH: pip install mpich mpi4py (`./dev.sh test` does), then "
            "launch with `python -m nnref.distributed.run -n 2 script.py`.") from None
    if "mpi4py.MPI" not in sys.modules:
        # mpi4py would call MPI_Finalize at every exit; MPI_Finalize waits for the other ranks,
        # so a rank leaving with an error would hang in it while they block in a collective.
        # nnref finalizes only a clean exit (MPICH then removes its shared-memory segment);
        # after an error the process just ends, and mpiexec stops the others at once.
        mpi4py.rc.finalize = False
        atexit.register(_finalize_at_exit)
        previous_hook = sys.excepthook

        def excepthook(*args):
            _World.failed = True
            previous_hook(*args)
        sys.excepthook = excepthook
    from mpi4py import MPI
    return MPI


def _finalize_at_exit():
    MPI = sys.modules.get("mpi4py.MPI")
    if not _World.failed and MPI is not None and MPI.Is_initialized() and not MPI.Is_finalized():
        MPI.Finalize()


def is_available():
    """True: the package is there (MPI is needed only to create a process group)."""
    return True


def is_mpi_available():
    """True if mpi4py can be imported (``dist.is_mpi_available``)."""
    import importlib.util
    return importlib.util.find_spec("mpi4py") is not None


def is_gloo_available():
    """False: nnref has no Gloo; ``backend="gloo"`` runs on MPI (see ``init_process_group``)."""
    return False


def is_nccl_available():
    """False: nnref has no NCCL (no GPU collectives)."""
    return False


def is_initialized():
    """True once ``init_process_group`` has run (and ``destroy_process_group`` has not)."""
    return _World.default_pg is not None


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Join the default process group: every process of ``mpiexec -n N`` (``init_process_group``).

    MPI assigns ranks and the world size, so ``init_method``, ``store`` and ``timeout`` have
    nothing to do; ``world_size``/``rank`` are ignored with PyTorch's warning for
    ``backend="mpi"``.  ``backend="gloo"`` (and ``None``, PyTorch's default on CPU) run on MPI
    too, the same collectives on CPU tensors; there ``world_size``/``rank``, if given, must be
    what MPI says, or the program was not started the way it expects.
    """
    if _World.default_pg is not None:
        raise ValueError("trying to initialize the default process group twice!")
    name = Backend(backend if backend is not None else "gloo")
    for part in name.split(","):  # "cpu:gloo,cuda:nccl"
        part = part.split(":")[-1]
        if part not in ("mpi", "gloo", "nccl"):
            raise ValueError(f"Invalid backend: '{part}'")
        if part == "nccl" and "," not in name:
            raise RuntimeError("nnref.distributed has no NCCL backend: its collectives run on MPI "
                               "with CPU tensors; use backend='mpi' (or 'gloo').")
    MPI = _mpi()
    world = MPI.COMM_WORLD
    if name == "mpi":
        if world_size != -1 or rank != -1:
            warnings.warn(f"For MPI backend, world_size ({world_size}) and rank ({rank}) are ignored "
                          "since they are assigned by the MPI runtime.", stacklevel=2)
    elif (world_size not in (-1, None) and world_size != world.Get_size()) or (
            rank not in (-1, None) and rank != world.Get_rank()):
        raise ValueError(
            f"init_process_group(world_size={world_size}, rank={rank}) but MPI started this process "
            f"as rank {world.Get_rank()} of {world.Get_size()}: nnref's process groups are made by "
            f"the MPI launcher, so start the program with `python -m nnref.distributed.run -n "
            f"{world_size if world_size not in (-1, None) else 2} script.py` (or mpiexec) and let it "
            f"assign ranks.")
    _World.default_pg = ProcessGroup(world.Dup(), "mpi" if name == "mpi" else name)
    group.WORLD = _World.default_pg


def destroy_process_group(group=None):
    """Leave the default group (or free ``group``); MPI itself stays up for a later init."""
    pg = _World.default_pg if group is None else group
    if pg is None:
        raise ValueError(_NOT_INITIALIZED)
    pg._free()
    if pg is _World.default_pg:
        _World.default_pg = None
        globals()["group"].WORLD = None


def _get_default_group():
    if _World.default_pg is None:
        raise ValueError(_NOT_INITIALIZED)
    return _World.default_pg


def _group(group):
    return _get_default_group() if group is None else group


def get_rank(group=None):
    """This process's rank (0 .. world_size - 1)."""
    return _group(group).rank()


def get_world_size(group=None):
    """The number of processes in the group."""
    return _group(group).size()


def get_backend(group=None):
    """The group's backend name: ``'mpi'``, or the name it was asked for (``'gloo'``)."""
    return _group(group)._backend


# -- argument checks: every rank runs them before anything is sent ---------------------------
def _check_single_tensor(param, param_name):
    from ..core._tensor import Tensor
    if not isinstance(param, Tensor):
        raise TypeError(f"""Invalid function argument. Expected parameter `{param_name}` of type torch.Tensor
             but got {type(param)} instead.""")
    if param._device.type != "cpu":
        raise RuntimeError(f"nnref.distributed moves CPU tensors only (MPI reads host memory); "
                           f"`{param_name}` is on {param._device}: pass `{param_name}.cpu()` and copy "
                           f"the result back.")


def _check_tensor_list(param, param_name):
    from ..core._tensor import Tensor
    if not isinstance(param, list):
        raise TypeError(f"""Invalid function argument. Expected parameter `{param_name}` of type List[torch.Tensor]
             but got {type(param)} instead.""")
    if not all(isinstance(p, Tensor) for p in param):
        raise TypeError(f"""Invalid function argument. Expected parameter `{param_name}` of type List[torch.Tensor]
             but got {type(param)} with elements of type {[type(p) for p in param]}.""")
    for p in param:
        _check_single_tensor(p, param_name)


def _check_op(op):
    if op not in _UFUNCS:
        raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.ReduceOp``.")


def _check_root(pg, rank, what):
    if not isinstance(rank, int) or not 0 <= rank < pg.size():
        raise RuntimeError(f"ProcessGroupMPI::{what}: invalid root rank: {rank}")


def _check_list(pg, what, tensors, like, name="output tensor list"):
    """PyTorch's checks of a list of per-rank tensors against ``like``."""
    if len(tensors) != pg.size():
        raise RuntimeError(f"ProcessGroupMPI::{what}: invalid {name} at index 0 (expected length "
                           f"{pg.size()}, got {len(tensors)})")
    for index, t in enumerate(tensors):
        if t._dtype is not like._dtype:
            raise RuntimeError(f"ProcessGroupMPI::{what}: invalid tensor type at index {index} "
                               f"(expected {like._dtype}, got {t._dtype})")
        if t.shape != like.shape:
            raise RuntimeError(f"ProcessGroupMPI::{what}: invalid tensor size at index {index} "
                               f"(expected {_sizes(like)}, got {_sizes(t)})")


def _sizes(t):
    return "(" + ", ".join(str(s) for s in t.shape) + ")"


def _contiguous(tensor):
    """The tensor's own array when it is C-contiguous (MPI writes into it directly), else a
    contiguous copy to be copied back when the operation has finished."""
    data = tensor._data
    if data.flags["C_CONTIGUOUS"]:
        return data, None
    copy = np.ascontiguousarray(data)
    return copy, lambda: np.copyto(data, copy)


def _buf(array):
    """An array as MPI reads it: bfloat16 and other dtypes MPI lacks travel as raw bytes."""
    if array.dtype.kind in "fiucb" and array.dtype.name != "bfloat16":
        return array
    return array.view(np.uint8)


def _run(work, async_op):
    if async_op:
        return work
    work.wait()
    return None


def _then(*steps):
    steps = [s for s in steps if s is not None]
    if not steps:
        return None

    def finish():
        for step in steps:
            step()
    return finish


def _bump(*tensors):
    def bump():
        for t in tensors:
            t._bump_version()
    return bump


# -- collectives --------------------------------------------------------------------------------
def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copy ``tensor`` from rank ``src`` into the same tensor on every rank."""
    _check_single_tensor(tensor, "tensor")
    pg = _group(group)
    src = _root(src, group_src)
    _check_root(pg, src, "broadcast")
    data, back = _contiguous(tensor)
    request = pg._comm.Ibcast(_buf(data), root=src)
    return _run(Work([request], _then(back, _bump(tensor)), [tensor]), async_op)


def _root(rank, group_rank):
    if rank is None and group_rank is None:
        raise ValueError("Either global or group rank must be specified")
    return rank if rank is not None else group_rank


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` over all ranks in place (``ReduceOp.AVG``: the sum divided by the size)."""
    _check_single_tensor(tensor, "tensor")
    _check_op(op)
    pg = _group(group)
    _check_avg(op, tensor)
    data, back = _contiguous(tensor)
    mpi_op, buf = pg._mpi_op(op, data)
    request = pg._comm.Iallreduce(sys.modules["mpi4py.MPI"].IN_PLACE, buf, mpi_op)
    return _run(Work([request], _then(_average(op, data, pg), back, _bump(tensor)), [tensor]), async_op)


def _check_avg(op, tensor):
    if op == ReduceOp.AVG and not (tensor.is_floating_point() or tensor.is_complex()):
        raise RuntimeError(f"ReduceOp.AVG of {tensor._dtype} tensors: nnref averages by dividing the "
                           f"sum, which an integer tensor cannot hold; all_reduce with ReduceOp.SUM "
                           f"and divide as you need.")


def _average(op, data, pg):
    if op != ReduceOp.AVG:
        return None
    return lambda: np.divide(data, pg.size(), out=data)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Reduce ``tensor`` over all ranks into rank ``dst``'s tensor."""
    _check_single_tensor(tensor, "tensor")
    _check_op(op)
    pg = _group(group)
    dst = _root(dst, group_dst)
    _check_root(pg, dst, "reduce")
    _check_avg(op, tensor)
    data, back = _contiguous(tensor)
    mpi_op, buf = pg._mpi_op(op, data)
    MPI = sys.modules["mpi4py.MPI"]
    if pg.rank() == dst:
        request = pg._comm.Ireduce(MPI.IN_PLACE, buf, mpi_op, root=dst)
        finish = _then(_average(op, data, pg), back, _bump(tensor))
    else:
        request = pg._comm.Ireduce(buf, None, mpi_op, root=dst)
        finish = None
    return _run(Work([request], finish, [tensor]), async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Every rank's ``tensor`` into ``tensor_list[rank]``, on every rank."""
    _check_tensor_list(tensor_list, "tensor_list")
    _check_single_tensor(tensor, "tensor")
    dtypes = {t._dtype for t in tensor_list} | {tensor._dtype}
    if len(dtypes) > 1:
        first, other = tensor._dtype, next(d for d in (t._dtype for t in tensor_list) if d is not tensor._dtype)
        raise ValueError(f"Invalid usage of tensors with different dtypesFound {first} and  {other}")
    pg = _group(group)
    _check_list(pg, "allgather", tensor_list, tensor)
    data = np.ascontiguousarray(tensor._data)
    gathered = np.empty((pg.size(),) + data.shape, data.dtype)
    request = pg._comm.Iallgather(_buf(data), _buf(gathered))

    def finish():
        for t, part in zip(tensor_list, gathered):
            np.copyto(t._data, part)
            t._bump_version()
    return _run(Work([request], finish, tensor_list), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Deprecated in PyTorch 2.13 for ``all_gather_single`` (same call, with its warning)."""
    warnings.warn("`torch.distributed.all_gather_into_tensor` is deprecated. Please use "
                  "`torch.distributed.all_gather_single` instead.", FutureWarning, stacklevel=2)
    return all_gather_single(output_tensor, input_tensor, group, async_op)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Deprecated in PyTorch 2.13 for ``reduce_scatter_single`` (same call, with its warning)."""
    warnings.warn("`torch.distributed.reduce_scatter_tensor` is deprecated. Please use "
                  "`torch.distributed.reduce_scatter_single` instead.", FutureWarning, stacklevel=2)
    return reduce_scatter_single(output, input, op, group, async_op)


def all_gather_single(output_tensor, input_tensor, group=None, async_op=False):
    """Every rank's ``input_tensor`` one after the other in ``output_tensor`` (first dimension
    ``world_size`` times the input's, or a leading dimension of ``world_size``)."""
    _check_single_tensor(input_tensor, "input_tensor")
    _check_single_tensor(output_tensor, "output_tensor")
    pg = _group(group)
    _check_flat(pg, "allgather", output_tensor, input_tensor)
    data = np.ascontiguousarray(input_tensor._data)
    out, back = _contiguous(output_tensor)
    request = pg._comm.Iallgather(_buf(data), _buf(out))
    return _run(Work([request], _then(back, _bump(output_tensor)), [output_tensor]), async_op)


def _check_flat(pg, what, big, small):
    """``big`` holds ``world_size`` pieces shaped like ``small`` (gloo's chunk check)."""
    if big._dtype is not small._dtype:
        raise RuntimeError(f"ProcessGroupMPI::{what}: invalid tensor type at index 0 (expected "
                           f"{small._dtype}, got {big._dtype})")
    size = pg.size()
    stacked = big.dim() == small.dim() + 1 and big.shape[0] == size and big.shape[1:] == small.shape
    concatenated = (big.dim() == small.dim() and big.dim() > 0 and big.shape[0] == size * small.shape[0]
                    and big.shape[1:] == small.shape[1:])
    if not (stacked or concatenated or (small.dim() == 0 and big.shape == (size,))):
        raise RuntimeError(f"ProcessGroupMPI::{what}: the tensor of shape {_sizes(big)} must hold "
                           f"{size} (world size) tensors of shape {_sizes(small)}: concatenated "
                           f"along dim 0, or stacked on a new first dim")


def reduce_scatter_single(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``input`` over ranks and give rank r the r-th of its ``world_size`` pieces."""
    _check_single_tensor(output, "output")
    _check_single_tensor(input, "input")
    _check_op(op)
    pg = _group(group)
    _check_flat(pg, "reduce_scatter", input, output)
    _check_avg(op, output)
    data = np.ascontiguousarray(input._data)
    out, back = _contiguous(output)
    mpi_op, send = pg._mpi_op(op, data)
    _, receive = pg._mpi_op(op, out)
    request = pg._comm.Ireduce_scatter_block(send, receive, mpi_op)
    return _run(Work([request], _then(_average(op, out, pg), back, _bump(output)), [output]), async_op)


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Every rank's ``tensor`` into ``gather_list`` on rank ``dst`` (default 0)."""
    _check_single_tensor(tensor, "tensor")
    if gather_list:
        _check_tensor_list(gather_list, "gather_list")
    else:
        gather_list = []
    pg = _group(group)
    dst = 0 if dst is None and group_dst is None else _root(dst, group_dst)
    _check_root(pg, dst, "gather")
    if pg.rank() == dst:
        if not gather_list:
            raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
        _check_list(pg, "gather", gather_list, tensor)
    elif gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    data = np.ascontiguousarray(tensor._data)
    if pg.rank() != dst:
        return _run(Work([pg._comm.Igather(_buf(data), None, root=dst)]), async_op)
    gathered = np.empty((pg.size(),) + data.shape, data.dtype)
    request = pg._comm.Igather(_buf(data), _buf(gathered), root=dst)

    def finish():
        for t, part in zip(gather_list, gathered):
            np.copyto(t._data, part)
            t._bump_version()
    return _run(Work([request], finish, gather_list), async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """Rank ``src``'s ``scatter_list[r]`` into ``tensor`` on rank r (``src`` default 0)."""
    _check_single_tensor(tensor, "tensor")
    if scatter_list:
        _check_tensor_list(scatter_list, "scatter_list")
    else:
        scatter_list = []
    pg = _group(group)
    src = 0 if src is None and group_src is None else _root(src, group_src)
    _check_root(pg, src, "scatter")
    if pg.rank() == src:
        if not scatter_list:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        _check_list(pg, "scatter", scatter_list, tensor, name="input tensor list")
        pieces = np.stack([np.ascontiguousarray(t._data) for t in scatter_list]) if tensor.dim() else \
            np.array([t._data for t in scatter_list], dtype=tensor._data.dtype)
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    else:
        pieces = None
    out, back = _contiguous(tensor)
    request = pg._comm.Iscatter(None if pieces is None else _buf(pieces), _buf(out), root=src)
    return _run(Work([request], _then(back, _bump(tensor)), [tensor]), async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Wait until every rank has reached this barrier."""
    return _run(Work([_group(group)._comm.Ibarrier()]), async_op)


def _check_peer(pg, peer, what):
    if peer == pg.rank():
        raise ValueError(f"Invalid {what} rank: {what} rank should not be the same as the rank of "
                         f"the current process.")
    if not isinstance(peer, int) or not 0 <= peer < pg.size():
        raise ValueError(f"Invalid {what} rank: {peer} is not a rank of this group "
                         f"(0 .. {pg.size() - 1}).")


def isend(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Send ``tensor`` to rank ``dst`` without waiting; returns a ``Work``."""
    _check_single_tensor(tensor, "tensor")
    pg = _group(group)
    dst = _root(dst, group_dst)
    _check_peer(pg, dst, "destination")
    data = np.ascontiguousarray(tensor._data)
    return Work([pg._comm.Isend(_buf(data), dest=dst, tag=tag)])


def irecv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into ``tensor`` from rank ``src`` (any rank when None) without waiting."""
    _check_single_tensor(tensor, "tensor")
    pg = _group(group)
    src = src if src is not None else group_src
    if src is not None:
        _check_peer(pg, src, "source")
    MPI = sys.modules["mpi4py.MPI"]
    out, back = _contiguous(tensor)
    request = pg._comm.Irecv(_buf(out), source=MPI.ANY_SOURCE if src is None else src, tag=tag)
    return Work([request], _then(back, _bump(tensor)), [tensor])


def send(tensor, dst=None, group=None, tag=0, group_dst=None):
    """Send ``tensor`` to rank ``dst``; returns when MPI has taken the buffer."""
    isend(tensor, dst, group, tag, group_dst).wait()


def recv(tensor, src=None, group=None, tag=0, group_src=None):
    """Receive into ``tensor``; returns the sender's rank."""
    work = irecv(tensor, src, group, tag, group_src)
    work.wait()
    return work._source
