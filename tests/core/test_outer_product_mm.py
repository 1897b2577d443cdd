"""A matrix product with an inner size of 1 (a weight's gradient at batch 1) takes its own route,
``linalg._outer``; it must give PyTorch's values bit for bit, in PyTorch's row-major layout."""
import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.exact  # bit for bit: run again per CPU capability (tests/capabilities.py)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "float16"])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "strided"])
def test_outer_product_matches_pytorch(dtype, layout):
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((7, 1)) * 5).astype(dtype)
    b = (rng.standard_normal((1, 18)) * 5).astype(dtype)
    if layout == "transposed":  # a column that is a transposed row, as grad.t() in backward
        a = np.ascontiguousarray(a.T).T
    elif layout == "strided":
        b = b[:, ::2]
    ours = nnref.mm(nnref.from_numpy(a), nnref.from_numpy(np.array(b)))
    theirs = torch.mm(torch.from_numpy(a), torch.from_numpy(np.array(b)))
    assert ours.dtype == getattr(nnref, dtype) and ours._data.flags.c_contiguous
    assert np.array_equal(ours.numpy(), theirs.numpy())


def test_batch_one_weight_gradient_matches_pytorch():
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((1, 9)).astype("float32"), rng.standard_normal((5, 9)).astype("float32")
    grads = []
    for lib in (nnref, torch):
        weight = lib.tensor(w, requires_grad=True)
        (lib.from_numpy(x) @ weight.t()).pow(2).sum().backward()
        grads.append(weight.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6)


@pytest.mark.parametrize("rows, columns", [(0, 5), (3, 0), (0, 0)])
def test_empty_outer_product_matches_pytorch(rows, columns):
    results = []
    for lib in (nnref, torch):
        a = lib.ones(rows, 1, requires_grad=True)
        b = lib.ones(1, columns, requires_grad=True)
        out = lib.mm(a, b)
        out.sum().backward()
        results.append((tuple(out.shape), a.grad.tolist(), b.grad.tolist()))
    assert results[0] == results[1]
