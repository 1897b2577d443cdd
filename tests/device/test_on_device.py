"""Device-parametrised tests: what must hold on any device, run on the device under test.

By default each test runs on the CPU and again on ``'cuda'`` served by the strict stand-in
for CuPy (``strictcuda.py``, see ``conftest.py``); with ``NNREF_TEST_DEVICE=cuda``
(``./dev.sh gpu``) every test here runs on the GPU instead.  The comparisons with the CPU
path (``needs_second_device``) run on the stand-in or the GPU: every op of the core's case
table, every layer of the nn table and a training run, each against the same code on the
CPU, to float32 tolerance.
"""
import copy
import io

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import nnref
from nnref import nn, optim

FLOAT32 = dict(rtol=1e-4, atol=1e-5)


def host(t):
    """A tensor's values as a numpy array, whatever its device."""
    return t.detach().cpu().numpy()


# -- making tensors there ---------------------------------------------------------------------------
FACTORIES = {
    "zeros": lambda d: nnref.zeros(2, 3, device=d),
    "ones": lambda d: nnref.ones(2, 3, dtype=nnref.float64, device=d),
    "full": lambda d: nnref.full((2,), 7, device=d),
    "eye": lambda d: nnref.eye(3, device=d),
    "arange": lambda d: nnref.arange(5, device=d),
    "linspace": lambda d: nnref.linspace(0, 1, 5, device=d),
    "tensor": lambda d: nnref.tensor([[1, 2], [3, 4]], device=d),
    "tensor float16": lambda d: nnref.tensor([0.5, 1.5], dtype=nnref.float16, device=d),
    "zeros_like": lambda d: nnref.zeros_like(nnref.ones(2, device=d)),
    "legacy": lambda d: nnref.FloatTensor([1.0, 2.0]).to(d),
}
EXPECTED = {
    "zeros": np.zeros((2, 3), np.float32), "ones": np.ones((2, 3)),
    "full": np.full(2, 7), "eye": np.eye(3, dtype=np.float32), "arange": np.arange(5),
    "linspace": np.linspace(0, 1, 5, dtype=np.float32), "tensor": np.array([[1, 2], [3, 4]]),
    "tensor float16": np.array([0.5, 1.5], np.float16), "zeros_like": np.zeros(2, np.float32),
    "legacy": np.array([1.0, 2.0], np.float32),
}


@pytest.mark.parametrize("name", FACTORIES)
def test_factories_make_tensors_on_the_device(device, name):
    t = FACTORIES[name](device)
    assert t.device == device and t.is_cuda == (device.type == "cuda")
    values = host(t)
    assert values.dtype == EXPECTED[name].dtype
    np.testing.assert_array_equal(values, EXPECTED[name])


@pytest.mark.parametrize("draw", [lambda d: nnref.rand(1000, device=d),
                                  lambda d: nnref.randn(1000, device=d),
                                  lambda d: nnref.randint(0, 10, (1000,), device=d)])
def test_manual_seed_reproduces_the_devices_random_numbers(device, draw):
    nnref.manual_seed(5)
    first = host(draw(device))
    nnref.manual_seed(5)
    again = host(draw(device))
    nnref.manual_seed(6)
    other = host(draw(device))
    np.testing.assert_array_equal(first, again)
    assert (first != other).any()
    assert first.std() > 0.1  # numbers, not a constant


def test_random_fills_and_dropout_stay_on_the_device(device):
    nnref.manual_seed(0)
    w = nnref.empty(200, 50, device=device)
    nn.init.kaiming_uniform_(w)
    nn.init.normal_(w[:100], 1.0, 0.1)
    values = host(w)
    assert w.device == device
    assert abs(values[:100].mean() - 1.0) < 0.01 and abs(values[100:].mean()) < 0.02
    dropped = nn.functional.dropout(nnref.ones(10_000, device=device), 0.25)
    assert dropped.device == device
    assert abs((host(dropped) == 0).mean() - 0.25) < 0.02


def test_moving_keeps_values_dtype_and_history(device):
    x = nnref.tensor([1.0, -2.0, 3.0], requires_grad=True)
    there = x.to(device)
    assert there.device == device and there.dtype is nnref.float32
    assert there.to(device) is there and there.to(there) is there  # no copy when nothing changes
    back = (there * there).sum()
    back.backward()
    assert x.grad.device == nnref.device("cpu")  # the gradient comes home through ToCopyBackward0
    np.testing.assert_array_equal(host(x.grad), [2.0, -4.0, 6.0])
    np.testing.assert_array_equal(host(there.cpu()), host(x))
    if device.type == "cuda":
        assert there.grad_fn.name() == "ToCopyBackward0"


def test_item_tolist_repr_and_numpy(device):
    t = nnref.tensor([1.5, 2.5], device=device)
    assert t.sum().item() == 4.0 and t.tolist() == [1.5, 2.5] and float(t[0]) == 1.5
    if device.type == "cuda":
        assert repr(t) == "tensor([1.5000, 2.5000], device='cuda:0')"
        assert t.type() == "torch.cuda.FloatTensor"
        with pytest.raises(TypeError, match=r"can't convert cuda:0 device type tensor to numpy.*\.cpu\(\)"):
            t.numpy()
    else:
        assert repr(t) == "tensor([1.5000, 2.5000])" and t.type() == "torch.FloatTensor"
        assert t.numpy() is t._data


def test_gradients_live_on_the_parameters_device(device):
    w = nnref.tensor([[1.0, 2.0], [3.0, 4.0]], device=device, requires_grad=True)
    b = nnref.zeros(2, device=device, requires_grad=True)
    x = nnref.tensor([[1.0, 1.0]], device=device)
    loss = (nn.functional.linear(x, w, b).relu() ** 2).mean() + 0.5 * w.sum()
    loss.backward()
    assert w.grad.device == device and b.grad.device == device
    np.testing.assert_allclose(host(w.grad), [[3.5, 3.5], [7.5, 7.5]])
    np.testing.assert_allclose(host(b.grad), [3.0, 7.0])


def test_mixing_devices_raises_on_a_gpu(device, needs_second_device):
    cpu, gpu = nnref.ones(3), nnref.ones(3, device=device)
    for mix in (lambda: cpu + gpu, lambda: gpu * cpu, lambda: nnref.cat([cpu, gpu]),
                lambda: nnref.ones(2, 3, device=device) @ nnref.ones(3),
                lambda: nn.Linear(3, 2).to(device)(cpu),
                lambda: nn.functional.cross_entropy(nnref.ones(2, 3, device=device), nnref.tensor([0, 1])),
                lambda: nn.functional.mse_loss(gpu, cpu)):
        with pytest.raises(RuntimeError, match="Expected all tensors to be on the same device"):
            mix()
    # a 0-d CPU tensor joins a GPU op as a number would, as in PyTorch
    scaled = gpu * nnref.tensor(2.0)
    assert scaled.device == device and host(scaled).tolist() == [2.0, 2.0, 2.0]


def test_a_gradient_on_the_wrong_device_is_refused(device, needs_second_device):
    class BackToTheCpu(nnref.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad.cpu() * 2

    x = nnref.ones(3, device=device, requires_grad=True)
    with pytest.raises(RuntimeError, match=f"expected device {device} but got cpu"):
        BackToTheCpu.apply(x).sum().backward()


def test_bfloat16_is_refused_on_a_gpu(device, needs_second_device):
    with pytest.raises(TypeError, match="bfloat16.*CuPy"):
        nnref.ones(2, dtype=nnref.bfloat16).to(device)


# -- modules, optimizers and checkpoints --------------------------------------------------------------
def two_layer_net():
    nnref.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))


def test_module_to_keeps_parameter_identity_and_the_optimizer_works(device):
    net = two_layer_net()
    params = list(net.parameters())
    sgd = optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
    assert net.to(device) is net
    assert all(a is b for a, b in zip(params, net.parameters()))
    assert all(p.device == device for p in net.parameters())
    x = nnref.randn(5, 4, device=device)
    y = nnref.tensor([0, 1, 2, 1, 0], device=device)
    losses = []
    for _ in range(5):
        sgd.zero_grad()
        loss = nn.functional.cross_entropy(net(x), y)
        loss.backward()
        sgd.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]
    assert all(sgd.state[p]["momentum_buffer"].device == device for p in params)
    assert net.cpu() is net and all(p.device.type == "cpu" for p in params)


def test_checkpoint_moves_between_devices_with_map_location(device):
    """The notes' checkpoint round trip: save on one device, load onto another."""
    net = two_layer_net().to(device)
    adam = optim.Adam(net.parameters(), lr=0.01)
    nn.functional.mse_loss(net(nnref.ones(2, 4, device=device)), nnref.zeros(2, 3, device=device)).backward()
    adam.step()
    buffer = io.BytesIO()
    nnref.save({"model": net.state_dict(), "optimizer": adam.state_dict()}, buffer)

    buffer.seek(0)
    on_cpu = nnref.load(buffer, map_location="cpu")
    assert {t.device.type for t in on_cpu["model"].values()} == {"cpu"}
    buffer.seek(0)
    mapped = nnref.load(buffer, map_location={str(device): "cpu"})
    assert {t.device.type for t in mapped["model"].values()} == {"cpu"}
    buffer.seek(0)
    as_saved = nnref.load(buffer)
    assert {t.device for t in as_saved["model"].values()} == {device}

    fresh = two_layer_net()
    fresh.load_state_dict(on_cpu["model"])
    fresh.to(device)
    for (name, p), q in zip(net.named_parameters(), fresh.parameters()):
        np.testing.assert_array_equal(host(p), host(q), err_msg=name)
    back = io.BytesIO()
    nnref.save(fresh.state_dict(), back)
    back.seek(0)
    reloaded = nnref.load(back, map_location=device)
    assert all(t.device == device for t in reloaded.values())


# -- the GPU against the CPU path ---------------------------------------------------------------------
class _OnDevice:
    """``nnref`` with ``tensor(...)`` creating on the device, for op cases that build index tensors."""

    def __init__(self, device):
        self._device = device

    def tensor(self, data, **kwargs):
        return nnref.tensor(data, device=self._device, **kwargs)

    def __getattr__(self, name):
        return getattr(nnref, name)


def _run_case(module, arrays, f, v, device):
    inputs = [nnref.tensor(a, dtype=nnref.float32, device=device, requires_grad=True) for a in arrays]
    out = f(module, *inputs)
    out.backward(nnref.tensor(v, dtype=out.dtype, device=device))
    return out, inputs


def test_every_op_on_the_gpu_matches_the_cpu_path(device, needs_second_device):
    from core_helpers import graph_signature
    from core_op_cases import CASES

    @settings(max_examples=5, deadline=None, derandomize=True,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(data=st.data())
    def check(name, data):
        rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), label="seed"))
        arrays, f = CASES[name](data.draw, rng)
        arrays = [np.asarray(a, dtype=np.float64) for a in arrays]
        with nnref.no_grad():
            shape = f(nnref, *(nnref.tensor(a) for a in arrays)).shape
        v = rng.standard_normal(shape)
        cpu_out, cpu_inputs = _run_case(nnref, arrays, f, v, nnref.device("cpu"))
        out, inputs = _run_case(_OnDevice(device), arrays, f, v, device)
        assert out.device == device, name
        assert graph_signature(out.grad_fn, inputs) == graph_signature(cpu_out.grad_fn, cpu_inputs)
        np.testing.assert_allclose(host(out), host(cpu_out), **FLOAT32, err_msg=name)
        for t, c in zip(inputs, cpu_inputs):
            assert t.grad.device == device, name
            np.testing.assert_allclose(host(t.grad), host(c.grad), **FLOAT32, err_msg=name)

    failures = []
    for name in sorted(CASES):
        try:
            check(name)
        except Exception as exc:  # collect them all: one GPU run should show every broken op
            failures.append(f"{name}: {type(exc).__name__}: {str(exc)[:300]}")
    assert not failures, f"{len(failures)} of {len(CASES)} ops differ on {device}:\n" + "\n".join(failures)


def test_every_layer_on_the_gpu_matches_the_cpu_path(device, needs_second_device):
    from test_layers import LAYERS
    rng = np.random.default_rng(0)
    failures = []
    for name, (build, shape) in LAYERS.items():
        try:
            nnref.manual_seed(0)
            cpu_layer = build(nn)
            layer = build(nn)
            layer.load_state_dict(cpu_layer.state_dict())
            layer.to(device)
            x = rng.standard_normal(shape).astype(np.float32)
            v = rng.standard_normal(copy.deepcopy(cpu_layer)(nnref.tensor(x)).shape)  # copy: keep the stats
            results = []
            for module, d in ((cpu_layer, nnref.device("cpu")), (layer, device)):
                inp = nnref.tensor(x, device=d, requires_grad=True)
                out = module(inp)
                out.backward(nnref.tensor(v, dtype=out.dtype, device=d))
                results.append([out, inp.grad] + [p.grad for p in module.parameters()]
                               + list(module.buffers()))
            for ours, reference in zip(results[1], results[0]):
                assert ours.device == device
                np.testing.assert_allclose(host(ours), host(reference), **FLOAT32)
        except Exception as exc:
            failures.append(f"{name}: {type(exc).__name__}: {str(exc)[:300]}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("make_optimizer", [
    lambda params: optim.SGD(params, lr=0.05, momentum=0.9, weight_decay=1e-4),
    lambda params: optim.Adam(params, lr=0.01),
    lambda params: optim.AdamW(params, lr=0.01),
], ids=["SGD momentum", "Adam", "AdamW"])
def test_training_on_the_gpu_follows_the_cpu_loss_curve(device, needs_second_device, make_optimizer):
    from test_training import digits_like_dataset
    images, labels = digits_like_dataset()
    curves = []
    for d in (nnref.device("cpu"), device):
        nnref.manual_seed(0)
        model = nn.Sequential(nn.Flatten(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10)).to(d)
        optimizer = make_optimizer(model.parameters())
        x_all, y_all = nnref.tensor(images, device=d), nnref.tensor(labels, device=d)
        losses = []
        for step in range(20):
            start = (step * 64) % len(images)
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x_all[start:start + 64]), y_all[start:start + 64])
            loss.backward()
            optimizer.step()
            losses.append(loss.item())
        curves.append(losses)
    np.testing.assert_allclose(curves[1], curves[0], rtol=1e-4)


def test_random_fills_and_samplers_draw_on_the_device(device):
    """bernoulli, exponential_, random_ and multinomial keep the distributions PyTorch draws
    on every device; a CUDA tensor refuses a CPU ``generator=``, as PyTorch does."""
    nnref.manual_seed(0)
    t = nnref.empty(20_000, device=device)
    assert abs(host(t.bernoulli_(0.25)).mean() - 0.25) < 0.02
    assert abs(host(nnref.bernoulli(nnref.full((20_000,), 0.75, device=device))).mean() - 0.75) < 0.02
    assert abs(host(t.exponential_(2.0)).mean() - 0.5) < 0.02
    assert set(np.unique(host(t.random_(3, 6))).tolist()) == {3.0, 4.0, 5.0}
    probs = nnref.tensor([[0.1, 0.0, 0.9], [0.5, 0.5, 0.0]], device=device)
    drawn = nnref.multinomial(probs, 10_000, replacement=True)
    assert drawn.device == device
    assert abs((host(drawn[0]) == 2).mean() - 0.9) < 0.02 and not (host(drawn[1]) == 2).any()
    order = host(nnref.multinomial(probs, 2))
    assert (order[0] != 1).all() and sorted(order[1].tolist()) == [0, 1]
    if device.type != "cpu":
        with pytest.raises(RuntimeError, match="Expected a 'cuda' device type for generator but found 'cpu'"):
            t.bernoulli_(0.5, generator=nnref.Generator())
