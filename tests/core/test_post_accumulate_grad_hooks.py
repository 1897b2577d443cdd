"""``Tensor.register_post_accumulate_grad_hook``: the hook sees the leaf after its ``.grad`` is
accumulated; the tutorial "optimizer step in the backward pass" trains as in PyTorch."""
import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")


def _order_of_calls(lib):
    x = lib.ones(2, requires_grad=True)
    calls = []
    handle = x.register_post_accumulate_grad_hook(lambda t: calls.append(("post", t.grad.tolist())))
    x.register_hook(lambda g: calls.append(("pre", g.tolist())))
    (x * 3).sum().backward()
    (x * 3).sum().backward()
    handle.remove()
    (x * 1).sum().backward()
    return calls


def test_hook_runs_after_accumulation_in_pytorchs_order():
    assert _order_of_calls(nnref) == _order_of_calls(torch)


def test_misuse_raises_pytorchs_errors():
    for lib in (torch, nnref):
        x = lib.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match="cannot be registered on non-leaf tensors"):
            (x * 2).register_post_accumulate_grad_hook(lambda t: None)
        with pytest.raises(RuntimeError, match="doesn't require gradient"):
            lib.ones(2).register_post_accumulate_grad_hook(lambda t: None)
        x.register_post_accumulate_grad_hook(lambda t: 5)
        with pytest.raises(TypeError, match="expected Variable, but hook returned 'int'"):
            (x * 1).sum().backward()


def _train_with_steps_in_backward(lib):
    lib.manual_seed(0)
    model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 2))
    optimizers = {p: lib.optim.SGD([p], lr=0.1, momentum=0.9) for p in model.parameters()}

    def step(parameter):
        optimizers[parameter].step()
        optimizers[parameter].zero_grad()

    for parameter in model.parameters():
        parameter.register_post_accumulate_grad_hook(step)
    data = lib.tensor(np.linspace(-1, 1, 24, dtype=np.float32).reshape(6, 4))
    for _ in range(3):
        model(data).pow(2).mean().backward()
    return [p.detach().numpy().copy() for p in model.parameters()]


def test_optimizer_step_in_backward_trains_as_pytorch():
    for ours, theirs in zip(_train_with_steps_in_backward(nnref), _train_with_steps_in_backward(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
