"""``WeightedRandomSampler``, ``StackDataset`` and ``ChainDataset`` against ``torch.utils.data``:
the same indices for the same seed (and the same later random numbers), batches through a
``DataLoader``, and PyTorch's errors."""
import numpy as np
import pytest

import nnref
from nnref.utils import data

torch = pytest.importorskip("torch")
from torch.utils import data as tdata  # noqa: E402

WEIGHTS = [0.1, 0.9, 0.4, 0.7, 3.0, 0.0, 1.2, 0.05]


def _lib_data(lib):
    return data if lib is nnref else tdata


@pytest.mark.parametrize("replacement, num_samples", [(True, 1), (True, 5), (True, 50),
                                                      (True, 1000), (False, 1), (False, 4),
                                                      (False, 7)])
@pytest.mark.parametrize("weights", [WEIGHTS, np.array(WEIGHTS) * 3, "tensor"])
def test_weighted_sampler_draws_pytorchs_indices_for_the_same_seed(replacement, num_samples,
                                                                   weights):
    def run(lib):
        w = lib.tensor(WEIGHTS, dtype=lib.float32) if isinstance(weights, str) else weights
        lib.manual_seed(7)
        sampler = _lib_data(lib).WeightedRandomSampler(w, num_samples, replacement=replacement)
        passes = [list(sampler), list(sampler)]  # a new draw each pass
        return passes, lib.rand(3).tolist(), len(sampler), str(sampler.weights.dtype)
    ours, theirs = run(nnref), run(torch)
    assert ours[0] == theirs[0]
    assert ours[1] == theirs[1]  # the global stream moved on by as much as PyTorch's
    assert ours[2] == theirs[2] == num_samples
    assert ours[3].replace("nnref", "torch") == theirs[3] == "torch.float64"


def test_weighted_sampler_with_its_own_generator_leaves_the_global_stream_alone():
    def run(lib):
        lib.manual_seed(0)
        generator = lib.Generator().manual_seed(11)
        sampler = _lib_data(lib).WeightedRandomSampler(WEIGHTS, 20, generator=generator)
        return list(sampler), list(sampler), lib.rand(2).tolist()
    assert run(nnref) == run(torch)


def test_weighted_sampler_in_a_dataloader_gives_pytorchs_batches():
    def run(lib):
        lib.manual_seed(3)
        x = lib.arange(16.0).reshape(8, 2)
        y = lib.arange(8)
        d = _lib_data(lib)
        loader = d.DataLoader(d.TensorDataset(x, y), batch_size=3,
                              sampler=d.WeightedRandomSampler(WEIGHTS, 10))
        return [[xb.tolist(), yb.tolist()] for _ in range(2) for xb, yb in loader]
    assert run(nnref) == run(torch)


def _error(build):
    try:
        build()
    except Exception as exc:  # noqa: BLE001 - the type and message are what is compared
        return type(exc).__name__, str(exc)
    return None


@pytest.mark.parametrize("kwargs", [dict(weights=WEIGHTS, num_samples=0),
                                    dict(weights=WEIGHTS, num_samples=2.0),
                                    dict(weights=WEIGHTS, num_samples=True),
                                    dict(weights=WEIGHTS, num_samples=3, replacement=1),
                                    dict(weights=[[1.0, 2.0]], num_samples=3)])
def test_weighted_sampler_errors_match_pytorch(kwargs):
    ours = _error(lambda: data.WeightedRandomSampler(**kwargs))
    theirs = _error(lambda: tdata.WeightedRandomSampler(**kwargs))
    assert ours is not None and ours == theirs


def test_weighted_sampler_draw_errors_match_pytorch():
    def run(lib, weights, n, replacement):
        return _error(lambda: list(_lib_data(lib).WeightedRandomSampler(weights, n, replacement)))
    # (with replacement and several samples PyTorch words a negative weight differently, "invalid
    # multinomial distribution (encountering probability entry < 0)"; nnref's multinomial,
    # nnref/_ops/random.py, gives its general message there)
    for weights, n, replacement in [([1.0, -1.0], 2, False), ([1.0, 2.0], 3, False),
                                    ([0.0, 0.0], 1, True), ([float("inf"), 1.0], 1, True)]:
        ours, theirs = run(nnref, weights, n, replacement), run(torch, weights, n, replacement)
        assert ours is not None and ours == theirs


class _Squares:
    """A map-style dataset without ``__getitems__``."""

    def __init__(self, lib, n):
        self.lib, self.n = lib, n

    def __getitem__(self, i):
        return self.lib.tensor(float(i * i))

    def __len__(self):
        return self.n


def _stack(lib, kind):
    d = _lib_data(lib)
    images = d.TensorDataset(lib.arange(12.0).reshape(6, 2))
    labels = d.Subset(d.TensorDataset(lib.arange(10)), [9, 8, 7, 6, 5, 4])  # has __getitems__
    if kind == "tuple":
        return d.StackDataset(images, labels, _Squares(lib, 6))
    return d.StackDataset(image=images, label=labels, square=_Squares(lib, 6))


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_plain(v) for v in value)
    return value.tolist() if hasattr(value, "tolist") else value


@pytest.mark.parametrize("kind", ["tuple", "dict"])
def test_stack_dataset_items_batches_and_loader_match_pytorch(kind):
    def run(lib):
        ds = _stack(lib, kind)
        loader = _lib_data(lib).DataLoader(ds, batch_size=4)
        return (len(ds), _plain(ds[2]), _plain(ds.__getitems__([5, 0, 3])),
                [_plain(batch) for batch in loader])
    assert run(nnref) == run(torch)


def test_stack_dataset_errors_match_pytorch():
    for build in [lambda d, lib: d.StackDataset(),
                  lambda d, lib: d.StackDataset(_Squares(lib, 3), _Squares(lib, 4)),
                  lambda d, lib: d.StackDataset(a=_Squares(lib, 3), b=_Squares(lib, 2)),
                  lambda d, lib: d.StackDataset(_Squares(lib, 3), b=_Squares(lib, 3))]:
        ours, theirs = _error(lambda: build(data, nnref)), _error(lambda: build(tdata, torch))
        assert ours is not None and ours == theirs


def _streams(lib):
    d = _lib_data(lib)

    class Counting(d.IterableDataset):
        def __init__(self, start, stop):
            self.start, self.stop = start, stop

        def __iter__(self):
            return iter(lib.arange(self.start, self.stop))

        def __len__(self):
            return self.stop - self.start
    return d, Counting


def test_chain_dataset_and_adding_streams_match_pytorch():
    def run(lib):
        d, Counting = _streams(lib)
        chained = d.ChainDataset([Counting(0, 3), Counting(10, 12)])
        added = Counting(0, 2) + Counting(5, 7)
        loader = d.DataLoader(chained, batch_size=2)
        return (type(added).__name__, [v.item() for v in chained], [v.item() for v in added],
                len(chained), [b.tolist() for b in loader])
    assert run(nnref) == run(torch)


def test_chain_dataset_refuses_map_style_datasets_like_pytorch():
    def run(lib):
        d, Counting = _streams(lib)
        chained = d.ChainDataset([Counting(0, 2), _Squares(lib, 2)])
        return _error(lambda: list(chained)), _error(lambda: len(chained))
    ours, theirs = run(nnref), run(torch)
    assert ours == theirs and ours[0] == ("AssertionError", "ChainDataset only supports IterableDataset")
