"""Hidden tests of ``sgd.update``: the student's update against the reference and PyTorch."""
# ``expected`` is computed by the code under test here; the grader takes the right-hand side of
# every assert from its run of this file on the reference nnref (coursekit/checks.py).
import itertools

import numpy as np

import nnref
import nnref.nn
from nnref.optim import SGD
from task_helpers import pytorch

rng = np.random.default_rng(0)
STARTS = [rng.standard_normal(s) for s in [(3, 2), (4,), ()]]
GRADS = [[rng.standard_normal(s.shape) for s in STARTS] for _ in range(4)]


def run(lib, dtype, **config):
    params = [lib.nn.Parameter(lib.tensor(s.astype(dtype))) for s in STARTS]
    optimizer = lib.optim.SGD(params, **config)
    for grads in GRADS:
        for p, g in zip(params, grads):
            p.grad = lib.tensor(g.astype(dtype))
        optimizer.step()
    return [p.detach().numpy().copy() for p in params]


def configs():
    for momentum, dampening, nesterov, decay, maximize in itertools.product(
            (0.0, 0.9), (0.0, 0.2), (False, True), (0.0, 0.05), (False, True)):
        if nesterov and (momentum == 0 or dampening != 0):
            continue
        yield dict(lr=0.03, momentum=momentum, dampening=dampening, nesterov=nesterov,
                   weight_decay=decay, maximize=maximize)


def test_like_the_reference_and_pytorch():
    torch = pytorch()
    for config in configs():
        for dtype in (np.float32, np.float64):
            expected = run(nnref, dtype, **config)
            ours = run(nnref, dtype, **config)
            for a, b in zip(ours, expected):
                assert a.dtype == b.dtype and np.allclose(a, b, atol=1e-6), config
            if torch is not None:
                theirs = run(torch, dtype, **config)
                for a, b in zip(ours, theirs):
                    assert np.allclose(a, b, atol=1e-5), config


def test_a_step_is_an_in_place_change():
    p = nnref.nn.Parameter(nnref.ones(2))
    p.grad = nnref.ones(2)
    version = p._version
    SGD([p], lr=0.1).step()
    assert p._version > version
