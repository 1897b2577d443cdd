"""Lazy modules (``nn.LazyLinear``, ``nn.LazyConv2d``) and ``UninitializedParameter``, against
PyTorch: reprs before and after the first forward, state_dict, optimizers, errors."""
import copy

import pytest

import nnref

torch = pytest.importorskip("torch")


def _model(lib):
    return lib.nn.Sequential(lib.nn.LazyLinear(8), lib.nn.ReLU(), lib.nn.LazyLinear(2))


def test_lazy_model_materialises_on_first_forward_like_pytorch():
    for lib in (nnref, torch):
        model = _model(lib)
        before = repr(model)
        assert model[0].has_uninitialized_params()
        assert [type(p).__name__ for p in model.parameters()] == ["UninitializedParameter"] * 4
        model(lib.ones(3, 5))
        after = repr(model)
        assert [tuple(p.shape) for p in model.parameters()] == [(8, 5), (8,), (2, 8), (2,)]
        assert type(model[0]).__name__ == "Linear" and not hasattr(model[0], "_initialize_hook")
        if lib is torch:
            assert (before, after) == ours
        else:
            ours = (before, after)


def test_lazy_conv2d_becomes_conv2d():
    ours, theirs = nnref.nn.LazyConv2d(4, 3, padding=1), torch.nn.LazyConv2d(4, 3, padding=1)
    assert repr(ours) == repr(theirs)
    assert tuple(ours(nnref.ones(2, 3, 6, 6)).shape) == tuple(theirs(torch.ones(2, 3, 6, 6)).shape)
    assert repr(ours) == repr(theirs)
    assert tuple(ours.weight.shape) == (4, 3, 3, 3)
    with pytest.raises(RuntimeError, match="Expected 3D \\(unbatched\\) or 4D \\(batched\\) input"):
        nnref.nn.LazyConv2d(4, 3)(nnref.ones(6, 6))


def test_uninitialized_parameter_refuses_use_with_pytorchs_errors():
    layer = nnref.nn.LazyLinear(3)
    assert repr(layer.weight) == "<UninitializedParameter>"
    assert layer.weight.dtype is nnref.float32 and layer.weight.requires_grad
    with pytest.raises(RuntimeError, match="Can't access the shape of an uninitialized parameter"):
        layer.weight.shape
    for use in (lambda w: w + 1, lambda w: w.sum(), lambda w: w.numel(),
                lambda w: sum(p.numel() for p in layer.parameters())):
        with pytest.raises(ValueError, match="Call `forward` with a dummy batch to initialize"):
            use(layer.weight)
    their = torch.nn.LazyLinear(3)
    with pytest.raises(ValueError):
        their.weight.numel()


def test_state_dict_of_a_lazy_module_and_loading_materialises():
    ours, theirs = nnref.nn.LazyLinear(3), torch.nn.LazyLinear(3)
    assert {k: repr(v) for k, v in ours.state_dict().items()} == \
        {k: repr(v) for k, v in theirs.state_dict().items()}
    source = nnref.nn.Linear(4, 3)
    ours.load_state_dict(source.state_dict())
    assert type(ours).__name__ == "LazyLinear"  # still lazy until forward, as in PyTorch
    assert ours.weight.tolist() == source.weight.tolist()
    assert ours(nnref.ones(1, 4)).tolist() == source(nnref.ones(1, 4)).tolist()
    assert type(ours).__name__ == "Linear"


def test_optimizer_built_before_the_first_forward_keeps_working():
    layer = nnref.nn.LazyLinear(2)
    optimizer = nnref.optim.SGD(layer.parameters(), lr=0.5)
    layer(nnref.ones(4, 3)).sum().backward()
    before = layer.weight.detach().clone()
    optimizer.step()
    assert optimizer.param_groups[0]["params"][0] is layer.weight
    assert nnref.allclose(layer.weight - before, nnref.full((2, 3), -2.0))


def test_lazy_module_copies_and_uninitialized_buffer():
    layer = copy.deepcopy(nnref.nn.LazyLinear(3))
    assert layer.has_uninitialized_params()
    buffer = nnref.nn.UninitializedBuffer()
    assert repr(buffer) == repr(torch.nn.UninitializedBuffer())
    buffer.materialize((2, 2))
    assert type(buffer) is nnref.Tensor and tuple(buffer.shape) == (2, 2)


def test_a_failed_load_leaves_a_lazy_module_uninitialised():
    # PyTorch materialises the parameters before it reports the bad key; nnref's load is atomic,
    # so the module is exactly as before (the Differences page says so).
    layer = nnref.nn.LazyLinear(3)
    state = {"weight": nnref.ones(3, 2), "bias": nnref.zeros(3), "surplus": nnref.zeros(1)}
    with pytest.raises(RuntimeError, match="Unexpected key"):
        layer.load_state_dict(state)
    assert layer.has_uninitialized_params()
    assert type(layer.weight) is nnref.nn.parameter.UninitializedParameter
    layer.load_state_dict({"weight": nnref.ones(3, 2), "bias": nnref.zeros(3)})
    assert not layer.has_uninitialized_params() and layer(nnref.ones(1, 2)).tolist() == [[2.0] * 3]


def test_a_lazy_module_moves_and_casts_before_its_first_forward():
    ours, theirs = nnref.nn.LazyLinear(4).double(), torch.nn.LazyLinear(4).double()
    assert type(ours.weight).__name__ == type(theirs.weight).__name__ == "UninitializedParameter"
    assert str(ours.weight.dtype) == str(theirs.weight.dtype)
    ours(nnref.ones(2, 3, dtype=nnref.float64))
    assert ours.weight.dtype is nnref.float64 and ours.weight.shape == (4, 3)
    assert ours.to("cpu").weight.device.type == "cpu"
