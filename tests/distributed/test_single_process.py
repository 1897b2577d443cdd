"""What needs no second process: imports without MPI, DataParallel on CPU, the sampler's split
and the bucket assignment, each compared with PyTorch."""
import subprocess
import sys

import numpy as np
import pytest

import nnref
import nnref.distributed as dist
from nnref.utils.data import DistributedSampler

from .launch import ROOT, _env

torch = pytest.importorskip("torch")


def test_imports_and_single_process_programs_need_no_mpi(tmp_path):
    """With mpi4py hidden, the packages import, DDP's module imports and DataParallel runs;
    only init_process_group fails, saying what to install."""
    program = tmp_path / "no_mpi.py"
    program.write_text(
        "import sys\n"
        "sys.modules['mpi4py'] = None  # as if it were not installed\n"
        "import torch, torch.nn as nn, torch.distributed as dist, torch.nn.parallel\n"
        "from torch.nn.parallel import DistributedDataParallel, DataParallel, data_parallel\n"
        "from torch.utils.data.distributed import DistributedSampler\n"
        "print(dist.is_available(), dist.is_initialized())\n"
        "print(DataParallel(nn.Linear(2, 3))(torch.ones(1, 2)).shape)\n"
        "try:\n"
        "    dist.init_process_group('mpi')\n"
        "except RuntimeError as e:\n"
        "    print('init:', e)\n")
    done = subprocess.run([sys.executable, str(ROOT / "tests/programs/_as_library.py"), "nnref",
                           str(program)], capture_output=True, text=True, env=_env(), timeout=60)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["True False", "torch.Size([1, 3])"]
    assert lines[2].startswith("init: nnref.distributed runs process groups on MPI through mpi4py")
    assert "pip install mpich mpi4py" in lines[2]


def test_uninitialized_group_errors_match_pytorch():
    for name in ("get_rank", "get_world_size", "barrier"):
        with pytest.raises(ValueError) as theirs:
            getattr(torch.distributed, name)()
        with pytest.raises(ValueError) as ours:
            getattr(dist, name)()
        assert str(ours.value) == str(theirs.value)
    assert dist.is_initialized() is torch.distributed.is_initialized() is False
    assert [(m.name, int(m)) for m in dist.ReduceOp.RedOpType] == \
        [(m.name, m.value) for m in torch.distributed.ReduceOp.RedOpType.__members__.values()]
    assert repr(dist.ReduceOp.AVG) == repr(torch.distributed.ReduceOp.AVG)
    assert str(dist.ReduceOp.MAX) == str(torch.distributed.ReduceOp.MAX)


def test_data_parallel_on_cpu_is_the_module():
    torch.manual_seed(0)
    theirs = torch.nn.DataParallel(torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU()))
    ours = nnref.nn.DataParallel(nnref.nn.Sequential(nnref.nn.Linear(3, 4), nnref.nn.ReLU()))
    ours.load_state_dict({k: nnref.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    assert list(ours.state_dict()) == list(theirs.state_dict())  # module.0.weight, ...
    assert repr(ours) == repr(theirs)
    assert ours.device_ids == theirs.device_ids == []
    x = torch.randn(5, 3)
    xs = nnref.tensor(x.numpy())
    assert (ours(xs).detach().numpy() == ours.module(xs).detach().numpy()).all()  # just the call
    assert (theirs(x) == theirs.module(x)).all()
    np.testing.assert_allclose(ours(xs).detach().numpy(), theirs(x).detach().numpy(), rtol=1e-6)
    with pytest.raises(RuntimeError) as expected:
        torch.nn.parallel.data_parallel(theirs.module, x)
    with pytest.raises(RuntimeError, match=str(expected.value)):
        nnref.nn.parallel.data_parallel(ours.module, nnref.tensor(x.numpy()))


@pytest.mark.parametrize("size", [0, 1, 7, 10, 64, 101])
@pytest.mark.parametrize("replicas", [1, 2, 3, 4, 8])
@pytest.mark.parametrize("shuffle,drop_last", [(True, False), (True, True), (False, False), (False, True)])
def test_distributed_sampler_matches_pytorch(size, replicas, shuffle, drop_last):
    for rank in range(replicas):
        ours = DistributedSampler(range(size), num_replicas=replicas, rank=rank, shuffle=shuffle,
                                  seed=3, drop_last=drop_last)
        theirs = torch.utils.data.DistributedSampler(range(size), num_replicas=replicas, rank=rank,
                                                     shuffle=shuffle, seed=3, drop_last=drop_last)
        for epoch in (0, 1, 5):
            ours.set_epoch(epoch)
            theirs.set_epoch(epoch)
            assert list(ours) == list(theirs) and len(ours) == len(theirs)


def test_distributed_sampler_rank_error_matches_pytorch():
    with pytest.raises(ValueError) as theirs:
        torch.utils.data.DistributedSampler(range(4), num_replicas=2, rank=2)
    with pytest.raises(ValueError, match=str(theirs.value).replace("[", r"\[")):
        DistributedSampler(range(4), num_replicas=2, rank=2)


@pytest.mark.parametrize("limits", [[1024 * 1024, 25 * 1024 * 1024], [200, 1000], [1], [10 ** 9]])
def test_bucket_assignment_matches_pytorch(limits):
    """The Reducer's bucketing, on shapes of several dtypes, in forward order and in a given
    (gradient-ready) order."""
    generator = torch.Generator().manual_seed(1)
    shapes = [tuple(torch.randint(1, 40, (int(torch.randint(1, 3, (), generator=generator)),),
                                  generator=generator).tolist()) for _ in range(30)]
    dtypes = [torch.float32, torch.float64, torch.float32, torch.float16] * 8
    theirs = [torch.empty(s, dtype=d) for s, d in zip(shapes, dtypes)]
    ours = [nnref.empty(s, dtype=getattr(nnref, str(d).split(".")[1])) for s, d in zip(shapes, dtypes)]
    assert dist._compute_bucket_assignment_by_size(ours, limits) == \
        torch.distributed._compute_bucket_assignment_by_size(theirs, limits, [False] * 30)
    order = torch.randperm(30, generator=generator).tolist()
    # (one dtype: with several, the order PyTorch lists the last buckets in is a hash map's)
    order = [i for i in order if theirs[i].dtype == torch.float32]
    assert dist._compute_bucket_assignment_by_size([ours[i] for i in order], limits, tensor_indices=order) == \
        torch.distributed._compute_bucket_assignment_by_size([theirs[i] for i in order], limits,
                                                             [], order)
    assert dist._DEFAULT_FIRST_BUCKET_BYTES == torch.distributed._DEFAULT_FIRST_BUCKET_BYTES


def _callback_order(lib):
    """What DDP relies on: a callback queued from a gradient hook runs after every leaf's
    ``.grad`` is written, once per backward."""
    events = []
    w = lib.ones(3, requires_grad=True)
    v = lib.ones(3, requires_grad=True)

    def hook(param):
        events.append(("accumulated", param is w))
        if len(events) == 1:
            lib.autograd.Variable._execution_engine.queue_callback(
                lambda: events.append(("callback", w.grad is not None and v.grad is not None)))

    w.register_post_accumulate_grad_hook(hook)
    v.register_post_accumulate_grad_hook(hook)
    (w * v).sum().backward()
    with pytest.raises(RuntimeError) as error:
        lib.autograd.Variable._execution_engine.queue_callback(lambda: None)
    return events, str(error.value)


def test_queue_callback_as_pytorch():
    assert _callback_order(nnref) == _callback_order(torch)
