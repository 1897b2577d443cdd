"""Task ``linear.forward``: ``Linear.forward`` (chapter 06, Anatomy of nn.Module).

``Linear(in_features, out_features)(input)`` is ``input @ weight.T + bias``
for an input of shape ``(*, in_features)`` (any number of leading
dimensions), without the bias when the layer has none (``bias=False``
registers it as ``None``).  Gradients must reach ``weight``, ``bias`` and the
input, so build the result from tensor operations (``F.linear`` is one).  An
input whose last dimension is not ``in_features`` raises ``RuntimeError``.
"""
import numpy as np
import pytest

import nnref
import nnref.nn
from task_helpers import require_pytorch

W = np.array([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0]], dtype=np.float32)
B = np.array([0.25, -0.75], dtype=np.float32)
X = np.arange(12, dtype=np.float32).reshape(4, 3) / 4


def layer(lib, bias=True):
    lin = lib.nn.Linear(3, 2, bias=bias)
    with lib.no_grad():
        lin.weight.copy_(lib.tensor(W))
        if bias:
            lin.bias.copy_(lib.tensor(B))
    return lin


def test_values():
    out = layer(nnref)(nnref.tensor(X))
    assert out.shape == (4, 2)
    assert np.allclose(out.detach().numpy(), X @ W.T + B, atol=1e-6)


def test_without_bias():
    out = layer(nnref, bias=False)(nnref.tensor(X))
    assert np.allclose(out.detach().numpy(), X @ W.T, atol=1e-6)


def test_leading_dimensions():
    x = np.linspace(-1, 1, 2 * 5 * 3, dtype=np.float32).reshape(2, 5, 3)
    out = layer(nnref)(nnref.tensor(x))
    assert out.shape == (2, 5, 2)
    assert np.allclose(out.detach().numpy(), x @ W.T + B, atol=1e-6)


def test_gradients():
    lin = layer(nnref)
    x = nnref.tensor(X, requires_grad=True)
    lin(x).sum().backward()
    assert np.allclose(lin.weight.grad.numpy(), np.tile(X.sum(0), (2, 1)), atol=1e-5)
    assert lin.bias.grad.tolist() == [4.0, 4.0]
    assert np.allclose(x.grad.numpy(), np.tile(W.sum(0), (4, 1)), atol=1e-6)


def test_wrong_input_size():
    with pytest.raises(RuntimeError) as info:
        layer(nnref)(nnref.ones(4, 5))
    assert not isinstance(info.value, NotImplementedError)


def test_same_as_pytorch():
    torch = require_pytorch()
    ours = layer(nnref)(nnref.tensor(X)).detach().numpy()
    theirs = layer(torch)(torch.tensor(X)).detach().numpy()
    assert np.allclose(ours, theirs, atol=1e-6)
