"""Hidden tests of ``linear.forward``: the student's layer against the reference and PyTorch."""
# ``expected`` is computed by the code under test here; the grader takes the right-hand side of
# every assert from its run of this file on the reference nnref (coursekit/checks.py).
import numpy as np

import nnref
import nnref.nn
from nnref.nn import Linear
from task_helpers import pytorch


def test_like_the_reference():
    nnref.manual_seed(0)
    cases = [((7, 3), True, nnref.float32), ((2, 3, 3), False, nnref.float64), ((3,), True, nnref.float32)]
    for shape, bias, dtype in cases:
        lin = Linear(3, 4, bias=bias, dtype=dtype)
        x = nnref.randn(*shape, dtype=dtype)
        expected = lin(x).detach().numpy()
        out = lin(x)
        assert out.dtype == dtype and out.shape == expected.shape
        assert np.allclose(out.detach().numpy(), expected, atol=1e-6)


def test_a_single_vector_and_pytorch():
    w = np.array([[0.5, -1.0], [2.0, 0.25], [0.0, 1.0]], dtype=np.float32)
    lin = Linear(2, 3)
    with nnref.no_grad():
        lin.weight.copy_(nnref.tensor(w))
        lin.bias.zero_()
    out = lin(nnref.tensor([1.0, 2.0]))
    assert out.shape == (3,) and np.allclose(out.detach().numpy(), w @ [1.0, 2.0])
    torch = pytorch()
    if torch is not None:
        theirs = torch.nn.functional.linear(torch.tensor([1.0, 2.0]), torch.tensor(w))
        assert np.allclose(out.detach().numpy(), theirs.numpy())


def test_graph_reaches_the_parameters():
    lin = Linear(2, 2)
    out = lin(nnref.ones(3, 2))
    assert out.requires_grad and out.grad_fn is not None
    out.pow(2).sum().backward()
    assert lin.weight.grad is not None and lin.bias.grad is not None
