"""``nnref.utils.data`` against ``torch.utils.data``: same batches, same order, same random
numbers drawn from the global generator, same errors."""
import collections
import importlib
import warnings

import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")


def data_module(m):
    return importlib.import_module(m.__name__ + ".utils.data")


def as_plain(x):
    """Batches as nested Python values, so both libraries' results compare with ==."""
    if hasattr(x, "tolist") and hasattr(x, "dtype"):
        return (str(x.dtype).split(".")[-1], tuple(x.shape), x.tolist())
    if isinstance(x, dict):
        return {k: as_plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(as_plain(v) for v in x) if not hasattr(x, "_fields") else tuple(as_plain(v) for v in x)
    return x


def run_both(program):
    results = []
    for m in (torch, nnref):
        m.manual_seed(0)
        results.append(as_plain(program(m, data_module(m))))
    assert results[0] == results[1]
    return results[0]


def test_shuffled_epochs_draw_pytorchs_numbers():
    def program(m, data):
        X, y = m.randn(100, 3), m.randint(0, 2, (100,))
        loader = data.DataLoader(data.TensorDataset(X, y), batch_size=16, shuffle=True)
        seen = []
        for _ in range(3):
            seen.append([yb for _, yb in loader])
        # after the data loops the global generator is where PyTorch's is
        return seen, m.nn.Linear(3, 2).weight, m.rand(3)
    run_both(program)


@pytest.mark.parametrize("kwargs", [dict(batch_size=7), dict(batch_size=7, drop_last=True),
                                    dict(batch_size=32, shuffle=True, drop_last=True),
                                    dict(batch_size=None), dict(batch_size=1, shuffle=True)])
def test_batches_and_lengths(kwargs):
    def program(m, data):
        ds = data.TensorDataset(m.arange(50.0).reshape(25, 2), m.arange(25))
        loader = data.DataLoader(ds, **kwargs)
        return len(loader), list(loader), m.rand(1)
    run_both(program)


def test_loader_generator_and_samplers():
    def program(m, data):
        ds = data.TensorDataset(m.arange(30))
        g = m.Generator().manual_seed(5)
        a = list(data.DataLoader(ds, batch_size=4, shuffle=True, generator=g))
        b = list(data.DataLoader(ds, batch_size=4, sampler=data.RandomSampler(ds, replacement=True, num_samples=40)))
        c = list(data.BatchSampler(data.SequentialSampler(range(10)), 3, drop_last=False))
        d = list(data.SubsetRandomSampler([3, 5, 7, 9]))
        e = list(data.DataLoader(ds, batch_sampler=data.BatchSampler(data.RandomSampler(ds), 5, True)))
        return a, b, c, d, e, m.rand(2)
    run_both(program)


def test_random_split_lengths_and_fractions():
    def program(m, data):
        parts = data.random_split(range(10), [3, 7])
        fracs = data.random_split(range(30), [0.3, 0.3, 0.4], generator=m.Generator().manual_seed(42))
        odd = data.random_split(range(11), [0.5, 0.5])
        return [p.indices for p in parts], [list(p) for p in fracs], [len(p) for p in odd], m.rand(1)
    run_both(program)


def test_default_collate_of_tuples_dicts_numbers_and_namedtuples():
    Point = collections.namedtuple("Point", "x y")

    def program(m, data):
        samples = [{"a": i, "b": i / 2, "t": m.tensor([i, i + 1]), "n": np.float32(i),
                    "s": f"item{i}", "p": Point(i, [i, 2 * i])} for i in range(5)]
        return list(data.DataLoader(samples, batch_size=2)), data.default_collate([(1, 2.0), (3, 4.0)])
    run_both(program)


def test_concat_subset_and_iterable_datasets():
    class Stream(torch.utils.data.IterableDataset):
        pass

    def program(m, data):
        class Count(data.IterableDataset):
            def __iter__(self):
                return iter(range(11))
        ds = data.ConcatDataset([data.TensorDataset(m.arange(4)), data.TensorDataset(m.arange(10, 13))])
        sub = data.Subset(ds, [6, 0, 4])
        return (len(ds), [ds[i] for i in range(len(ds))], ds[-1], list(sub),
                list(data.DataLoader(Count(), batch_size=4)),
                list(data.DataLoader(Count(), batch_size=4, drop_last=True)),
                list(data.DataLoader(ds + data.TensorDataset(m.arange(2)), batch_size=5)))
    run_both(program)


def test_num_workers_runs_in_the_main_process_with_a_warning():
    loader = nnref.utils.data.DataLoader(nnref.utils.data.TensorDataset(nnref.arange(6)), batch_size=4, num_workers=2)
    with pytest.warns(UserWarning, match="main process"):
        batches = list(loader)
    assert [b[0].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5]]
    assert nnref.utils.data.get_worker_info() is None


def test_fast_tensor_path_keeps_default_collates_results():
    """The index-batched TensorDataset path gives what stacking the samples gives."""
    data = nnref.utils.data
    ds = data.TensorDataset(nnref.randn(20, 3, 2), nnref.arange(20))
    fast = list(data.DataLoader(ds, batch_size=6))
    slow = list(data.DataLoader(ds, batch_size=6, collate_fn=lambda b: data.default_collate(b)))
    for (xf, yf), (xs, ys) in zip(fast, slow):
        assert xf.dtype == xs.dtype and xf.shape == xs.shape and xf.tolist() == xs.tolist()
        assert yf.tolist() == ys.tolist() and xf.is_contiguous()
    w = nnref.ones(4, 2, requires_grad=True)
    (xb,) = next(iter(data.DataLoader(data.TensorDataset(w), batch_size=2)))
    assert xb.grad_fn is not None and type(xb.grad_fn).__name__ == "StackBackward0"


ERRORS = [
    lambda m, d: d.DataLoader(d.TensorDataset(m.arange(3)), batch_size=0),
    lambda m, d: d.DataLoader(d.TensorDataset(m.arange(3)), shuffle=True, sampler=d.SequentialSampler(range(3))),
    lambda m, d: d.DataLoader(d.TensorDataset(m.arange(3)), batch_sampler=[[0]], batch_size=2),
    lambda m, d: d.DataLoader(d.TensorDataset(m.arange(3)), num_workers=-1),
    lambda m, d: d.DataLoader(d.TensorDataset(m.arange(3)), batch_size=None, drop_last=True),
    lambda m, d: d.random_split(range(10), [3, 8]),
    lambda m, d: d.random_split(range(10), [1.5, -0.5]),
    lambda m, d: d.TensorDataset(m.zeros(3), m.zeros(4)),
    lambda m, d: list(d.DataLoader([m.zeros(2), m.zeros(3)], batch_size=2)),
    lambda m, d: list(d.DataLoader([object(), object()], batch_size=2)),
    lambda m, d: list(d.DataLoader([[1, 2], [3]], batch_size=2)),
    lambda m, d: d.RandomSampler(range(3), num_samples=0),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors_have_pytorchs_types(case):
    kinds = []
    for m in (torch, nnref):
        with pytest.raises(Exception) as info:
            ERRORS[case](m, data_module(m))
        kinds.append(type(info.value))
    assert kinds[0] is kinds[1]


def test_a_dataloader_over_a_non_dataset_says_what_it_needs():
    with pytest.raises(TypeError, match="needs a dataset"):
        nnref.utils.data.DataLoader(5)
