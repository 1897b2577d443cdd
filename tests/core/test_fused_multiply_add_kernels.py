"""PyTorch's CPU kernels for ``addcmul`` and ``lerp`` round once (a fused multiply-add, in the
op-math type: float32 for 16-bit floats); nnref reproduces that, so their results and the
optimizers built on them (Adamax, RAdam exactly; Adam and NAdam up to PyTorch's float32
``sqrt``, which is not correctly rounded on AVX512 machines) agree with PyTorch bit for bit."""
import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.exact  # bit for bit: run again per CPU capability (tests/capabilities.py)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int64"])
@pytest.mark.parametrize("value", [0.37, -1.5, 3])
def test_addcmul_matches_torch_bit_for_bit(dtype, value):
    rng = np.random.default_rng(3)
    arrays = [rng.standard_normal(3000) * (10 if dtype == "int64" else 1) for _ in range(3)]
    if dtype == "int64":
        arrays, value = [a.astype(np.int64) for a in arrays], int(value)
    results = []
    for lib in (torch, nnref):
        a, b, c = (lib.tensor(x).to(getattr(lib, dtype)) for x in arrays)
        results.append([lib.addcmul(a, b, c, value=value).float().numpy(),
                        lib.addcmul(a[:1].reshape(()), b, c[:5].reshape(5, 1), value=value).float().numpy(),
                        a.clone().addcmul_(b, c, value=value).float().numpy()])
    for ours, theirs in zip(results[1], results[0]):
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("name", ["Adamax", "RAdam"])
@pytest.mark.parametrize("betas", [(0.3, 0.999), (0.9, 0.999)])
def test_optimizers_on_lerp_and_addcmul_match_torch_bit_for_bit(name, betas):
    rng = np.random.default_rng(0)
    start = rng.standard_normal(500).astype(np.float32)
    grads = [rng.standard_normal(500).astype(np.float32) for _ in range(8)]
    finals = []
    for lib in (torch, nnref):
        p = lib.nn.Parameter(lib.tensor(start.copy()))
        opt = getattr(lib.optim, name)([p], lr=0.01, betas=betas)
        for g in grads:
            p.grad = lib.tensor(g.copy())
            opt.step()
        finals.append(p.detach().numpy().copy())
    np.testing.assert_array_equal(finals[1], finals[0])


@pytest.mark.parametrize("fused", [False, True])
def test_adam_moments_match_torch_bit_for_bit(fused):
    """exp_avg (lerp) and exp_avg_sq (mul + addcmul) are PyTorch's to the bit; the step then divides
    by PyTorch's sqrt, which rounds differently on some CPUs (the Differences page)."""
    rng = np.random.default_rng(1)
    start = rng.standard_normal(2000).astype(np.float32)
    grads = [rng.standard_normal(2000).astype(np.float32) for _ in range(3)]
    moments = []
    for lib in (torch, nnref):
        p = lib.nn.Parameter(lib.tensor(start.copy()))
        opt = lib.optim.Adam([p], lr=0.01, betas=(0.3, 0.99), **({"fused": fused} if lib is nnref else {}))
        p.grad = lib.tensor(grads[0].copy())
        opt.step()
        state = opt.state[p]
        moments.append((state["exp_avg"].numpy().copy(), state["exp_avg_sq"].numpy().copy()))
    for ours, theirs in zip(moments[1], moments[0]):
        np.testing.assert_array_equal(ours, theirs)
