"""Smooth and hard activations, the gated linear unit, padding, normalisation and Unflatten against
PyTorch: values, dtypes, grad_fn names, reprs and errors, and first and second derivatives."""
import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")


def run(case, m):
    try:
        return shown(case(m, m.nn.functional))
    except Exception as exc:
        return ("raises", type(exc).__name__)


def shown(result):
    if isinstance(result, (tuple, list)):
        return [shown(r) for r in result]
    if isinstance(result, (nnref.Tensor, torch.Tensor)):
        return (np.round(result.detach().numpy().astype(np.float64), 5).tolist(), repr(result.dtype),
                type(result.grad_fn).__name__ if result.grad_fn is not None else None)
    return result


def row(m):
    return m.tensor([[-4.0, -1.0, 0.0, 0.5, 2.5, 25.0]], requires_grad=True)


CASES = {
    "relu6": lambda m, F: F.relu6(row(m) * 3),
    "logsigmoid": lambda m, F: F.logsigmoid(row(m) * 40),
    "softsign": lambda m, F: F.softsign(row(m)),
    "mish": lambda m, F: F.mish(row(m)),
    "mish_in_place": lambda m, F: F.mish(m.tensor([1.0, -1.0]), inplace=True),
    "mish_of_integers": lambda m, F: F.mish(m.tensor([1])),
    "hardswish": lambda m, F: F.hardswish(row(m)),
    "hardsigmoid": lambda m, F: F.hardsigmoid(row(m)),
    "glu": lambda m, F: (F.glu(row(m)), F.glu(m.arange(8.0).reshape(4, 2).requires_grad_(), 0)),
    "glu_odd_size": lambda m, F: F.glu(m.zeros(3)),
    "pad": lambda m, F: (F.pad(row(m), (1, 2)), F.pad(m.arange(6.0).reshape(1, 2, 3).requires_grad_(), (1, 0, -1, 2), value=7),
                         F.pad(m.arange(6.0).reshape(2, 3), (-1, -1)), F.pad(m.tensor([[1, 2]]), (1, 1), value=5)),
    "pad_odd_length": lambda m, F: F.pad(row(m), (1,)),
    "pad_too_long": lambda m, F: F.pad(m.zeros(3), (1, 1, 1, 1)),
    "pad_cropping_too_much": lambda m, F: F.pad(m.zeros(3), (-2, -2)),
    "normalize": lambda m, F: (F.normalize(m.arange(6.0).reshape(2, 3).requires_grad_()),
                               F.normalize(m.arange(6.0).reshape(2, 3), p=1, dim=0), F.normalize(m.zeros(2, 2))),
    "modules": lambda m, F: [repr(module) for module in (
        m.nn.Mish(), m.nn.Mish(inplace=True), m.nn.Hardswish(inplace=True), m.nn.Hardsigmoid(), m.nn.GLU(),
        m.nn.GLU(0), m.nn.LogSigmoid(), m.nn.Softsign(), m.nn.Unflatten(1, (2, 3)))],
    "module_outputs": lambda m, F: [module(m.arange(-3.0, 3.0).reshape(1, 6)) for module in (
        m.nn.Mish(), m.nn.Hardswish(), m.nn.Hardsigmoid(), m.nn.GLU(), m.nn.LogSigmoid(), m.nn.Softsign(),
        m.nn.Unflatten(1, (2, 3)))],
    "unflatten_bad_size": lambda m, F: m.nn.Unflatten(1, 6),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_pytorch(name):
    assert run(CASES[name], nnref) == run(CASES[name], torch)


DIFFERENTIABLE = {
    "logsigmoid": lambda F, t: F.logsigmoid(t), "softsign": lambda F, t: F.softsign(t),
    "mish": lambda F, t: F.mish(t), "hardswish": lambda F, t: F.hardswish(t), "glu": lambda F, t: F.glu(t),
    "normalize": lambda F, t: F.normalize(t), "pad": lambda F, t: F.pad(t, (1, -1, 2, 0), value=2.0),
}


@pytest.mark.parametrize("name", sorted(DIFFERENTIABLE))
def test_first_and_second_derivatives_match_pytorch(name):
    values = np.random.default_rng(1).standard_normal((2, 4)) * 3
    results = []
    for m in (torch, nnref):
        t = m.tensor(values, requires_grad=True)
        y = DIFFERENTIABLE[name](m.nn.functional, t)
        weights = m.tensor(np.arange(y.numel(), dtype=np.float64).reshape(tuple(y.shape)) + 1)
        (first,) = m.autograd.grad((y * weights).sum(), t, create_graph=True)
        # a linear op's gradient does not depend on its input: no second derivative to take
        second = m.autograd.grad((first * first).sum(), t)[0].numpy() if first.requires_grad else None
        results.append((first.detach().numpy(), second, type(y.grad_fn).__name__))
    (a_first, a_second, a_node), (b_first, b_second, b_node) = results
    assert a_node == b_node and (a_second is None) == (b_second is None)
    np.testing.assert_allclose(b_first, a_first, rtol=1e-10, atol=1e-12)
    if a_second is not None:
        np.testing.assert_allclose(b_second, a_second, rtol=1e-9, atol=1e-12)


def test_hardsigmoid_has_no_second_derivative_as_in_pytorch():
    for m in (torch, nnref):
        x = m.tensor([0.5, -4.0, 1.0], requires_grad=True)
        (first,) = m.autograd.grad(m.nn.functional.hardsigmoid(x).sum(), x, create_graph=True)
        assert first.requires_grad
        with pytest.raises(RuntimeError, match="derivative for aten::hardsigmoid_backward is not implemented"):
            m.autograd.grad(first.sum(), x)


def test_an_unknown_pad_mode_says_so():
    for m in (nnref, torch):
        with pytest.raises(NotImplementedError, match="Unrecognised padding mode foo"):
            m.nn.functional.pad(m.zeros(1, 2, 3), (1, 1), mode="foo")


def _group_norm_run(m, **kwargs):
    m.manual_seed(0)
    norm = m.nn.GroupNorm(3, 6, **kwargs)
    x = m.tensor(np.random.default_rng(3).standard_normal((2, 6, 3, 3)), dtype=m.float32, requires_grad=True)
    if norm.weight is not None:
        with m.no_grad():
            norm.weight.copy_(m.linspace(0.5, 1.5, 6))
    y = norm(x)
    y.pow(3).sum().backward()
    return repr(norm), [n for n, _ in norm.named_parameters()], y.detach().numpy(), x.grad.numpy(), \
        [p.grad.numpy() for p in norm.parameters()]


@pytest.mark.parametrize("kwargs", [{}, {"bias": False}, {"affine": False}, {"eps": 1e-3}])
def test_group_norm_matches_pytorch(kwargs):
    theirs, ours = _group_norm_run(torch, **kwargs), _group_norm_run(nnref, **kwargs)
    assert ours[:2] == theirs[:2]
    np.testing.assert_allclose(ours[2], theirs[2], atol=2e-5)
    np.testing.assert_allclose(ours[3], theirs[3], atol=2e-4)
    for a, b in zip(ours[4], theirs[4]):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=2e-4)


def test_group_norm_errors_are_pytorchs():
    for call in (lambda m: m.nn.GroupNorm(4, 6), lambda m: m.nn.functional.group_norm(m.zeros(2, 6), 4)):
        outcomes = []
        for m in (torch, nnref):
            try:
                call(m)
            except Exception as exc:
                outcomes.append(type(exc).__name__)
        assert outcomes[0] == outcomes[1]


@pytest.mark.parametrize("options", [{"is_causal": True}, {"mask": "bool", "scale": 0.3}, {"mask": "float"},
                                     {}])
def test_scaled_dot_product_attention_matches_pytorch(options):
    values = np.random.default_rng(4).standard_normal((2, 3, 4, 5)).astype(np.float32)
    results = []
    for m in (torch, nnref):
        q = m.tensor(values, requires_grad=True)
        kwargs = {k: v for k, v in options.items() if k != "mask"}
        if options.get("mask") == "bool":
            kwargs["attn_mask"] = m.ones(4, 4, dtype=m.bool).tril()
        elif options.get("mask") == "float":
            kwargs["attn_mask"] = m.linspace(-1, 1, 16).reshape(4, 4)
        out = m.nn.functional.scaled_dot_product_attention(q, q * 0.5, q.flip(-1), **kwargs)
        out.pow(2).sum().backward()
        results.append((out.detach().numpy(), q.grad.numpy()))
    np.testing.assert_allclose(results[1][0], results[0][0], atol=2e-6)
    np.testing.assert_allclose(results[1][1], results[0][1], atol=2e-5)


SIMILARITIES = {
    "cosine": lambda m, a, b: m.nn.functional.cosine_similarity(a, b),
    "cosine_broadcast": lambda m, a, b: m.nn.functional.cosine_similarity(a, b[0], dim=1),
    "cosine_of_zeros": lambda m, a, b: m.nn.functional.cosine_similarity(a, b * 0, dim=0),
    "cosine_module": lambda m, a, b: m.nn.CosineSimilarity(dim=0)(a, b),
    "distance": lambda m, a, b: m.nn.functional.pairwise_distance(a, b),
    "distance_module_p1": lambda m, a, b: m.nn.PairwiseDistance(p=1.0, keepdim=True)(a, b),
    "distance_of_vectors": lambda m, a, b: m.nn.functional.pairwise_distance(a[0], b[0]),
    "distance_p3": lambda m, a, b: m.nn.functional.pairwise_distance(a, b, p=3),
}


@pytest.mark.parametrize("name", sorted(SIMILARITIES))
def test_similarities_match_pytorch_to_the_second_derivative(name):
    values = np.random.default_rng(0).standard_normal((2, 3, 4))
    results = []
    for m in (torch, nnref):
        a, b = m.tensor(values[0], requires_grad=True), m.tensor(values[1], requires_grad=True)
        y = SIMILARITIES[name](m, a, b)
        first = m.autograd.grad((y * y).sum(), (a, b), create_graph=True)
        (second,) = m.autograd.grad((first[0] * first[0]).sum() + first[1].sum(), a)
        results.append([y.detach().numpy(), first[0].detach().numpy(), first[1].detach().numpy(), second.numpy(),
                        type(y.grad_fn).__name__])
    theirs, ours = results
    assert ours[4] == theirs[4]
    for a, b in zip(ours[:4], theirs[:4]):
        np.testing.assert_allclose(a, b, atol=1e-7)


RESIZES = {
    "double": lambda m, x: m.nn.functional.interpolate(x, scale_factor=2),
    "to_size": lambda m, x: m.nn.functional.interpolate(x, size=(3, 5)),
    "fractional": lambda m, x: m.nn.functional.interpolate(x, scale_factor=1.5),
    "per_dim": lambda m, x: m.nn.functional.interpolate(x, scale_factor=(0.5, 1.7)),
    "one_d_down": lambda m, x: m.nn.functional.interpolate(x[:, :, 0], scale_factor=0.5),
    "one_d_size": lambda m, x: m.nn.functional.interpolate(x[:, :, 1], size=7),
    "module": lambda m, x: m.nn.Upsample(scale_factor=2)(x),
    "recomputed": lambda m, x: m.nn.functional.interpolate(x, scale_factor=1.5, recompute_scale_factor=True),
    "odd_factor": lambda m, x: m.nn.functional.interpolate(x, scale_factor=2.3),
}


@pytest.mark.parametrize("name", sorted(RESIZES))
def test_nearest_interpolation_matches_pytorch_to_the_second_derivative(name):
    values = np.random.default_rng(0).standard_normal((2, 3, 4, 6))
    results = []
    for m in (torch, nnref):
        x = m.tensor(values, requires_grad=True)
        y = RESIZES[name](m, x)
        (first,) = m.autograd.grad((y * y * 1.5).sum(), x, create_graph=True)
        (second,) = m.autograd.grad((first * first).sum(), x)
        results.append([y.detach().numpy(), first.detach().numpy(), second.numpy(), type(y.grad_fn).__name__])
    theirs, ours = results
    assert ours[3] == theirs[3] and ours[0].shape == theirs[0].shape
    for a, b in zip(ours[:3], theirs[:3]):
        np.testing.assert_allclose(a, b, atol=1e-10)


@pytest.mark.parametrize("call", [lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 2, 2)),
                                  lambda m: m.nn.functional.interpolate(m.zeros(1, 1, 2, 2), size=3, scale_factor=2),
                                  lambda m: repr(m.nn.Upsample(scale_factor=2)) + repr(m.nn.Upsample(size=(4, 4)))])
def test_interpolate_errors_and_reprs_are_pytorchs(call):
    def outcome(m):
        try:
            return call(m)
        except Exception as exc:
            return type(exc).__name__, str(exc)
    assert outcome(nnref) == outcome(torch)


def test_other_interpolation_modes_say_so():
    with pytest.raises(NotImplementedError, match="nnref's interpolate has no mode='bicubic'"):
        nnref.nn.functional.interpolate(nnref.zeros(1, 1, 2, 2), scale_factor=2, mode="bicubic")
