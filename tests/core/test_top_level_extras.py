"""Top-level functions programs call beside the core ops: ``asarray``, ``unravel_index``,
``isposinf``/``isneginf``/``isreal``, and ``nn.functional``'s at ``torch.*``, against PyTorch."""
import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")


def test_asarray_shares_copies_and_refuses_as_pytorch():
    results = []
    for lib in (torch, nnref):
        array = np.array([1.0, 2.0], np.float32)
        shared, copied = lib.asarray(array), lib.asarray(array, copy=True)
        array[0] = 9.0
        x = lib.ones(2)
        with pytest.raises(ValueError, match="can't alias tensor with dtype 'Float' into dtype 'Double'"):
            lib.asarray(array, copy=False, dtype=lib.float64)
        results.append((shared.tolist(), copied.tolist(), lib.asarray(x) is x, lib.asarray(x, copy=True) is x,
                        str(lib.asarray([1, 2]).dtype), str(lib.asarray(x, dtype=lib.float64).dtype),
                        lib.asarray([0.5], requires_grad=True).requires_grad))
    assert results[0] == results[1]


@pytest.mark.parametrize("indices, shape", [([4, 7, 8, -1], (2, 4)), (5, (3, 2)), ([[1, 5]], (2, 3)),
                                            ([1], ()), ([0, 3], 4)])
def test_unravel_index_wraps_as_pytorch(indices, shape):
    ours = nnref.unravel_index(nnref.tensor(indices), shape)
    theirs = torch.unravel_index(torch.tensor(indices), shape)
    assert [t.tolist() for t in ours] == [t.tolist() for t in theirs]
    assert all(t.dtype == nnref.int64 for t in ours)


def test_unravel_index_errors_as_pytorch():
    for lib in (torch, nnref):
        with pytest.raises(TypeError, match="expected 'indices' to be integer dtype"):
            lib.unravel_index(lib.tensor([1.0]), (2,))
        with pytest.raises(ValueError, match="'shape' cannot have negative values"):
            lib.unravel_index(lib.tensor([1]), (2, -1))


@pytest.mark.parametrize("name", ["isposinf", "isneginf", "isreal"])
def test_infinity_and_real_predicates(name):
    for data in ([1.0, float("inf"), -float("inf"), float("nan")], [1, 2]):
        assert getattr(nnref, name)(nnref.tensor(data)).tolist() == getattr(torch, name)(torch.tensor(data)).tolist()


@pytest.mark.parametrize("call", ["conv2d(x4, w4, None, 1, 1)", "conv1d(x3, w3)", "max_pool2d(x4, 2)",
                                  "avg_pool1d(x3, 2)", "adaptive_avg_pool1d(x3, 3)", "layer_norm(x3, (6,))",
                                  "group_norm(x4, 1)", "selu(x3)", "celu(x3, 0.5)", "threshold(x3, 0.1, -1.0)",
                                  "hardshrink(x3, 0.3)", "pdist(x3[0])", "prelu(x3, w1)",
                                  "pixel_shuffle(x4, 1)", "dropout(x3, 0.5, False)", "row_stack([x3[0], x3[0]])"])
def test_functional_at_the_top_level(call):
    rng = np.random.default_rng(0)
    arrays = {"x4": rng.standard_normal((1, 2, 4, 4)), "w4": rng.standard_normal((3, 2, 3, 3)),
              "x3": rng.standard_normal((2, 2, 6)), "w3": rng.standard_normal((3, 2, 3)), "w1": np.array([0.25])}
    outs = [eval(f"lib.{call}", {"lib": lib, **{k: lib.tensor(v.astype(np.float32)) for k, v in arrays.items()}})  # noqa: S307
            for lib in (torch, nnref)]
    np.testing.assert_allclose(outs[1].numpy(), outs[0].numpy(), rtol=1e-5, atol=1e-6)
