"""The one-pass ``param += alpha * update`` (``nnref._ops.fused.add_scaled_``, the optimizers' and
``Tensor.add_``'s) matches the plain numpy expression."""
import numpy as np
import pytest

from nnref._ops import fused as _fused


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("use_blas", [True, False])
@pytest.mark.parametrize("with_work", [True, False])
def test_add_scaled_matches_numpy(dtype, use_blas, with_work, monkeypatch):
    if not use_blas:
        monkeypatch.setattr(_fused, "_AXPY", {})
    rng = np.random.default_rng(0)
    param = rng.standard_normal((7, 5)).astype(dtype)
    update = rng.standard_normal((7, 5)).astype(dtype)
    expected = param - dtype(0.01) * update
    memory = param.__array_interface__["data"][0]
    _fused.add_scaled_(param, -0.01, update, np.empty_like(param) if with_work else None)
    assert param.__array_interface__["data"][0] == memory  # updated in place
    tolerance = 1e-3 if dtype == np.float16 else 1e-6
    np.testing.assert_allclose(param, expected, rtol=tolerance, atol=tolerance)


def test_non_contiguous_update_takes_the_numpy_path():
    param = np.ones((4, 6), dtype=np.float32)
    update = np.arange(24, dtype=np.float32).reshape(6, 4).T  # a transposed view
    _fused.add_scaled_(param, -0.5, update, np.empty_like(param))
    np.testing.assert_allclose(param, 1 - 0.5 * update)
