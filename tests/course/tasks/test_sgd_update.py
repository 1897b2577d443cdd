"""Task ``sgd.update``: ``SGD._update`` (chapter 15, Training).

``step()`` calls ``_update(p, group)`` for every parameter ``p`` that has a
gradient, under ``no_grad``; ``group`` holds the hyperparameters (``lr``,
``momentum``, ``dampening``, ``weight_decay``, ``nesterov``, ``maximize``).
``_update`` changes ``p`` in place (the optimizer and the model share the
same Parameter object), following PyTorch's ``_single_tensor_sgd``::

    g = -grad if maximize else grad
    g = g + weight_decay * p                     (if weight_decay)
    buf = g  (first step)  or  momentum * buf + (1 - dampening) * g
    g = g + momentum * buf  if nesterov  else  buf   (if momentum)
    p = p - lr * g

The momentum buffer is a tensor kept in ``self.state[p]["momentum_buffer"]``.
"""
import numpy as np
import pytest

import nnref
import nnref.nn
import nnref.optim
from task_helpers import require_pytorch

START = [np.array([[1.0, -2.0], [0.5, 3.0]], dtype=np.float32), np.array([0.25, -1.5], dtype=np.float32)]
GRADS = [[np.array([[0.5, 1.0], [-1.0, 2.0]], dtype=np.float32), np.array([1.0, -0.5], dtype=np.float32)],
         [np.array([[-0.25, 0.5], [1.5, -1.0]], dtype=np.float32), np.array([0.5, 0.5], dtype=np.float32)],
         [np.array([[1.0, 0.0], [0.0, -2.0]], dtype=np.float32), np.array([-1.0, 2.0], dtype=np.float32)]]
CONFIGS = [dict(lr=0.1),
           dict(lr=0.1, momentum=0.9),
           dict(lr=0.05, momentum=0.8, dampening=0.3),
           dict(lr=0.1, momentum=0.9, nesterov=True),
           dict(lr=0.1, weight_decay=0.01),
           dict(lr=0.1, momentum=0.5, weight_decay=0.1, maximize=True)]


def by_hand(lr, momentum=0.0, dampening=0.0, weight_decay=0.0, nesterov=False, maximize=False):
    params, buffers = [p.copy() for p in START], [None, None]
    for grads in GRADS:
        for i, grad in enumerate(grads):
            g = -grad if maximize else grad.copy()
            if weight_decay:
                g = g + weight_decay * params[i]
            if momentum:
                buffers[i] = g.copy() if buffers[i] is None else momentum * buffers[i] + (1 - dampening) * g
                g = g + momentum * buffers[i] if nesterov else buffers[i]
            params[i] = params[i] - lr * g
    return params, buffers


def run(lib, **config):
    params = [lib.nn.Parameter(lib.tensor(p.copy())) for p in START]
    optimizer = lib.optim.SGD(params, **config)
    for grads in GRADS:
        for p, g in zip(params, grads):
            p.grad = lib.tensor(g.copy())
        optimizer.step()
    return params, optimizer


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_matches_the_formula(config):
    params, optimizer = run(nnref, **config)
    expected, buffers = by_hand(**config)
    for p, e, buf in zip(params, expected, buffers):
        assert np.allclose(p.detach().numpy(), e, atol=1e-6)
        if buf is not None:
            assert np.allclose(optimizer.state[p]["momentum_buffer"].numpy(), buf, atol=1e-6)


def test_updates_the_parameters_in_place():
    layer = nnref.nn.Linear(2, 2)
    weight = layer.weight
    optimizer = nnref.optim.SGD(layer.parameters(), lr=1.0)
    layer(nnref.ones(1, 2)).sum().backward()
    before = weight.detach().clone()
    optimizer.step()
    assert layer.weight is weight
    assert np.allclose(weight.detach().numpy(), before.numpy() - 1.0, atol=1e-6)


def test_parameters_without_gradient_are_left_alone():
    a, b = nnref.nn.Parameter(nnref.ones(2)), nnref.nn.Parameter(nnref.ones(2))
    optimizer = nnref.optim.SGD([a, b], lr=0.5, momentum=0.9)
    a.grad = nnref.ones(2)
    optimizer.step()
    assert a.tolist() == [0.5, 0.5] and b.tolist() == [1.0, 1.0]
    assert b not in optimizer.state or "momentum_buffer" not in optimizer.state[b]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: ",".join(f"{k}={v}" for k, v in c.items()))
def test_same_as_pytorch(config):
    torch = require_pytorch()
    ours, _ = run(nnref, **config)
    theirs, _ = run(torch, **config)
    for a, b in zip(ours, theirs):
        assert np.allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-6)
