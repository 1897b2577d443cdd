"""The course notes' worked examples print exactly what PyTorch 2.x prints.

Each example is a function of the module (``torch`` or ``nnref``) that
prints; both runs are captured and compared after swapping the module name.
The expected PyTorch numbers are also written out, so the tests still say
something without PyTorch installed.
"""
import contextlib
import io

import pytest

import nnref


def printed(example, m):
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        example(m)
    return buffer.getvalue().replace("torch.", "nnref.")


def add_and_multiply(torch):
    """y = (x + w) * (w + 1) at x = 2, w = 1: dy/dw = (w + 1) + (x + w) = 5, dy/dx = w + 1 = 2."""
    x = torch.tensor(2.0, requires_grad=True)
    w = torch.tensor(1.0, requires_grad=True)
    a = torch.add(x, w)
    b = torch.add(w, 1)
    y = torch.mul(a, b)
    y.backward()
    print(w.grad)
    print(x.grad)
    print(x.is_leaf, w.is_leaf, a.is_leaf, b.is_leaf, y.is_leaf)
    print(y)
    print(a.grad_fn, y.grad_fn.name())
    print(x.grad_fn, a.requires_grad)


ADD_AND_MULTIPLY = """\
tensor(5.)
tensor(2.)
True True False False False
tensor(6., grad_fn=<MulBackward0>)
"""


def tensor_hooks(torch):
    """Gradients of z = x**2 + (y/2)*2 with backward, autograd.grad, retain_grad and hooks."""
    x = torch.tensor([2.], dtype=torch.float64, requires_grad=True)
    y = torch.tensor([6.], requires_grad=True)
    y_ = y / 2
    z = x ** 2 + y_ * 2
    print(z)

    z.backward(retain_graph=True)
    print(x.grad, y.grad)                        # 2x = 4, 2 * 1/2 = 1

    dz = torch.autograd.grad(z, [x, y], retain_graph=True)
    print(dz)                                    # autograd.grad leaves .grad alone
    print(x.grad, y.grad)

    y_.retain_grad()
    z.backward(retain_graph=True)                # accumulates: 8 and 2
    print(x.grad, y.grad, y_.grad)

    x.grad.zero_()
    y.grad.zero_()
    y_.grad.zero_()
    handle = y_.register_hook(lambda grad: grad * 4)
    z.backward(retain_graph=True)
    # The hook multiplies y_'s gradient (2) by 4; retain_grad runs after the hooks in
    # PyTorch 2.x, so y_.grad is 8 (it was 2 in PyTorch 1.x), and y.grad = 8 / 2 = 4.
    print(x.grad, y.grad, y_.grad)

    handle.remove()
    x.grad = None
    y.grad = None
    z.backward()
    print(x.grad, y.grad, y_.grad)               # the hook is gone: 4, 1, and 8 + 2 = 10


TENSOR_HOOKS = """\
tensor([10.], dtype=nnref.float64, grad_fn=<AddBackward0>)
tensor([4.], dtype=nnref.float64) tensor([1.])
(tensor([4.], dtype=nnref.float64), tensor([1.]))
tensor([4.], dtype=nnref.float64) tensor([1.])
tensor([8.], dtype=nnref.float64) tensor([2.]) tensor([2.])
tensor([4.], dtype=nnref.float64) tensor([4.]) tensor([8.])
tensor([4.], dtype=nnref.float64) tensor([1.]) tensor([10.])
"""


def hook_order(torch):
    """Several hooks on one tensor run in registration order, each seeing the last one's result."""
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.register_hook(lambda g: print("first", g) or g + 1)
    y.register_hook(lambda g: print("second", g))
    y.retain_grad()
    y.register_hook(lambda g: print("third", g) or g * 10)
    x.register_hook(lambda g: print("leaf", g))
    y.sum().backward()
    print(y.grad, x.grad)


HOOK_ORDER = """\
first tensor([1., 1.])
second tensor([2., 2.])
third tensor([2., 2.])
leaf tensor([60., 60.])
tensor([20., 20.]) tensor([60., 60.])
"""


@pytest.mark.parametrize("example, expected", [
    (add_and_multiply, ADD_AND_MULTIPLY),
    (tensor_hooks, TENSOR_HOOKS),
    (hook_order, HOOK_ORDER),
], ids=["add_and_multiply", "tensor_hooks", "hook_order"])
def test_example_prints_pytorch_numbers(example, expected):
    assert printed(example, nnref).startswith(expected)


@pytest.mark.parametrize("example", [add_and_multiply, tensor_hooks, hook_order],
                         ids=lambda f: f.__name__)
def test_example_prints_exactly_what_torch_prints(example):
    torch = pytest.importorskip("torch")
    ours = printed(example, nnref)
    theirs = printed(example, torch)
    # Node reprs carry memory addresses; compare them up to the address.
    import re
    strip = lambda text: re.sub(r" object at 0x[0-9a-f]+", " object", text)  # noqa: E731
    assert strip(ours) == strip(theirs)
