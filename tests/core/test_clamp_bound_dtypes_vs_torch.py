"""``clamp_min``/``clamp_max`` promote like ``clamp``: an integer tensor with a float bound gives
floats, a float16 bound tensor joins the promotion, a bool tensor refuses number bounds
(``aten/src/ATen/native/TensorCompare.cpp``).  nnref once converted the bound to the input's dtype:
``clamp_min(tensor([1, 2]), 1.5)`` gave ``[1, 2]`` where PyTorch gives ``[1.5, 2.0]``."""
import itertools

import pytest

import nnref

torch = pytest.importorskip("torch")

DTYPES = ["int64", "uint8", "int32", "bool", "float16", "bfloat16", "float32", "float64"]
BOUNDS = [1, 1.5, -1, True, 300, (1.5, "float32"), ((1.5, 0.5, 2.5, 1.0), "float64"), (2, "int64"),
          ((1, 2, 0, 5), "int32"), (0.5, "float16"), (True, "bool")]


def outcome(lib, call, dtype, bound):
    x = lib.tensor([0, 1, 2, 3], dtype=getattr(lib, dtype))
    if isinstance(bound, tuple):
        bound = lib.tensor(list(bound[0]) if isinstance(bound[0], tuple) else bound[0],
                           dtype=getattr(lib, bound[1]))
    try:
        result = call(lib, x, bound)
    except Exception as error:  # noqa: BLE001 - the type and text are what is compared
        return type(error).__name__, str(error).splitlines()[0]
    return str(result.dtype), result.tolist()


CALLS = {
    "torch.clamp_min": lambda lib, x, b: lib.clamp_min(x, b),
    "torch.clamp_max": lambda lib, x, b: lib.clamp_max(x, b),
    "Tensor.clamp_min": lambda lib, x, b: x.clamp_min(b),
    "Tensor.clamp_max": lambda lib, x, b: x.clamp_max(b),
    "torch.clamp(min=)": lambda lib, x, b: lib.clamp(x, min=b),
    "torch.clamp(max=)": lambda lib, x, b: lib.clamp(x, max=b),
}


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_one_sided_clamps_promote_as_pytorchs(call, dtype):
    found = {bound: (outcome(torch, CALLS[call], dtype, bound), outcome(nnref, CALLS[call], dtype, bound))
             for bound in BOUNDS}
    differ = {bound: pair for bound, pair in found.items() if pair[0] != pair[1]}
    assert not differ, differ


@pytest.mark.parametrize("kind, bounds", [("clamp_min", dict(min=True)), ("clamp_max", dict(max=False)),
                                          ("clamp", dict(min=False, max=True))])
def test_a_bool_tensor_refuses_number_bounds(kind, bounds):
    for lib in (torch, nnref):
        with pytest.raises(NotImplementedError, match=f'"{kind}_scalar_cpu" not implemented for \'Bool\''):
            lib.clamp(lib.tensor([True, False]), **bounds)


@pytest.mark.parametrize("name, bound", itertools.product(["clamp_min", "clamp_max"], [1.5, "tensor"]))
def test_an_integer_input_and_a_float_bound_keep_the_bounds_gradient(name, bound):
    grads = []
    for lib in (torch, nnref):
        x = lib.tensor([0, 1, 2, 3])
        b = lib.tensor([1.5, 0.5, 2.5, 1.0], requires_grad=True) if bound == "tensor" else bound
        out = getattr(lib, name)(x, b)
        if bound == "tensor":
            out.sum().backward()
            grads.append((type(out.grad_fn).__name__, b.grad.tolist()))
        else:
            grads.append((out.dtype.is_floating_point, out.requires_grad))
    assert grads[0] == grads[1]
