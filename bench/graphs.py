"""Small autograd workloads written once against the PyTorch API (``fw`` is ``nnref`` or ``torch``).

* :func:`small_graph`: 20 elementwise ops on a 4-element tensor; forward plus
  backward of it, divided by 20, is the framework's cost per op when the
  arithmetic itself is negligible (the per-op overhead).
* :func:`chain`: ``n`` elementwise ops in a row, for backward through a long
  graph (time, and peak memory as ``n`` grows).
"""
import numpy as np

SMALL_GRAPH_OPS = 20
CHAIN_WIDTH = 256  # elements of the tensor flowing down the chain


def small_graph(x):
    """20 elementwise ops (unary, binary with a scalar, binary with a tensor), then ``.sum()``."""
    a = x * 1.5           # 1
    b = a + 0.5           # 2
    c = b.tanh()          # 3
    d = c * x             # 4
    e = d - a             # 5
    f = e.sigmoid()       # 6
    g = f * f             # 7
    h = g + b             # 8
    i = h.exp()           # 9
    j = i / 3.0           # 10
    k = j.relu()          # 11
    m = k * c             # 12
    n = m + 0.25          # 13
    o = n.abs()           # 14
    p = -o                # 15
    q = p * 0.1           # 16
    r = q.tanh()          # 17
    s = r + x             # 18
    t = s * s             # 19
    u = t - 1.0           # 20
    return u.sum()


def small_graph_step(fw, x):
    """The timed unit: forward, backward, clear ``x.grad``."""
    def step():
        small_graph(x).backward()
        x.grad = None
    return step


def small_graph_input(fw):
    return fw.from_numpy(np.array([0.5, -1.0, 2.0, -0.25], dtype=np.float32)).requires_grad_()


def chain(x, n):
    """``n`` elementwise ops in a row (cycling ``* 1.01``, ``+ 0.01``, ``tanh``), then ``.sum()``."""
    y = x
    for i in range(n):
        r = i % 3
        if r == 0:
            y = y * 1.01
        elif r == 1:
            y = y + 0.01
        else:
            y = y.tanh()
    return y.sum()


def chain_input(fw, width=CHAIN_WIDTH):
    rng = np.random.default_rng(2)
    return fw.from_numpy(rng.standard_normal(width, dtype=np.float32)).requires_grad_()
