"""Gamma, Beta, Dirichlet and Poisson against torch.distributions: PyTorch's draws bit for bit
for the same seed (its rejection samplers run draw for draw, and the global stream is left where
PyTorch leaves it), ``log_prob``/``entropy``/moments/``mode`` and their gradients, the gamma and
Dirichlet draws' reparameterised gradients, supports, reprs, ``expand``, validation errors word
for word, and ``kl_divergence`` of every pair PyTorch registers among nnref's distributions."""
import numpy as np
import pytest

import nnref
import nnref.distributions as ND
from test_distributions import _params, _same

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.exact
TD = torch.distributions

DTYPES = ["float32", "float64"]
CONCENTRATIONS = [0.05, 0.3, 1.0, 2.5, 9.0, 40.0]


def _both(build, run, dtype="float32"):
    results = []
    for lib, D in ((torch, TD), (nnref, ND)):
        lib.manual_seed(11)
        dist, params = build(lib, D, dtype)
        results.append(run(dist, params, lib))
    return results


BUILDERS = {
    "gamma": lambda lib, D, dt: _with(D.Gamma, _params(lib, dt, CONCENTRATIONS, [1.0, 0.5, 2.0, 3.0, 0.1, 1.5])),
    "gamma_scalar": lambda lib, D, dt: (D.Gamma(0.7, 2.0), []),
    "gamma_broadcast": lambda lib, D, dt: _with(D.Gamma, _params(lib, dt, [[0.5], [3.0]], [1.0, 2.0, 0.25])),
    "beta": lambda lib, D, dt: _with(D.Beta, _params(lib, dt, [0.5, 2.0, 7.0, 0.2], [0.5, 3.0, 8.0, 1.5])),
    "beta_scalar": lambda lib, D, dt: (D.Beta(2.0, 0.6), []),
    "dirichlet": lambda lib, D, dt: _with(D.Dirichlet, _params(lib, dt, [[0.3, 1.0, 4.0], [2.0, 2.0, 0.8]])),
    "poisson": lambda lib, D, dt: _with(D.Poisson, _params(lib, dt, [0.0, 0.4, 3.0, 9.99, 10.0, 250.0])),
    "poisson_scalar": lambda lib, D, dt: (D.Poisson(4.5), []),
}
VALUES = {
    "gamma": lambda lib, dt: lib.tensor([0.2, 1.0, 3.0, 0.5, 12.0, 30.0], dtype=getattr(lib, dt)),
    "gamma_scalar": lambda lib, dt: lib.tensor([0.3, 2.0]),
    "gamma_broadcast": lambda lib, dt: lib.tensor([0.5, 1.5, 4.0], dtype=getattr(lib, dt)),
    "beta": lambda lib, dt: lib.tensor([0.1, 0.5, 0.45, 0.9], dtype=getattr(lib, dt)),
    "beta_scalar": lambda lib, dt: lib.tensor([0.25, 0.75]),
    "dirichlet": lambda lib, dt: lib.tensor([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]], dtype=getattr(lib, dt)),
    "poisson": lambda lib, dt: lib.tensor([0.0, 1.0, 2.0, 12.0, 9.0, 240.0], dtype=getattr(lib, dt)),
    "poisson_scalar": lambda lib, dt: lib.tensor([0.0, 5.0]),
}


def _with(make, params):
    return make(*params), params


def _close(ours, theirs):
    """Equal dtypes and shapes, values to 1e-5 (float32) or 1e-12 (float64) relative: nnref's
    lgamma, digamma and polygamma (SciPy's) round differently from PyTorch's in the last bits."""
    if isinstance(theirs, (list, tuple)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _close(a, b)
        return
    assert str(ours.dtype) == str(theirs.dtype) and tuple(ours.shape) == tuple(theirs.shape)
    b = theirs.detach().numpy()
    # float32 at 1e-4: PyTorch's own DEFAULT build (no AVX2) moves Poisson's log_prob by 3e-5 relative
    rtol = 1e-4 if b.dtype == np.float32 else 1e-12
    scale = np.abs(b[np.isfinite(b)]).max(initial=1)
    np.testing.assert_allclose(ours.detach().numpy(), b, rtol=rtol, atol=rtol * scale)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(), (3,), (2, 5)])
@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_samples_are_pytorchs_for_the_same_seed(name, shape, dtype):
    def run(dist, params, lib):
        draws = [dist.sample(shape), dist.sample(), dist.sample(shape)]
        if dist.has_rsample:
            draws += [dist.rsample(shape)]
        return draws + [lib.rand(2)]  # the global stream (and its cached normal) is left as PyTorch leaves it
    theirs, ours = _both(BUILDERS[name], run, dtype)
    _same(ours, theirs)


def test_many_gamma_draws_are_pytorchs():
    """Thousands of draws over concentrations small and large: every acceptance branch of
    Marsaglia and Tsang's method, and the boost below 1."""
    def run(dist, params, lib):
        return [dist.sample((300,)), lib.randn(3)]
    for dtype in DTYPES:
        theirs, ours = _both(lambda lib, D, dt: (D.Gamma(lib.tensor(CONCENTRATIONS * 4, dtype=getattr(lib, dt)),
                                                         1.0), []), run, dtype)
        _same(ours, theirs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_scores_moments_and_their_gradients_are_pytorchs(name, dtype):
    def run(dist, params, lib):
        value = VALUES[name](lib, dtype)
        out = {"log_prob": dist.log_prob(value), "mean": dist.mean, "variance": dist.variance,
               "stddev": dist.stddev, "mode": dist.mode}
        if name.startswith("poisson"):  # PyTorch's Poisson has no entropy (no carrier measure)
            with pytest.raises(NotImplementedError):
                dist.entropy()
        else:
            out["entropy"] = dist.entropy()
        if dist.has_rsample:  # the implicit reparameterisation gradient of the draws
            out["rsample"] = dist.rsample((2,))
        finite = [t for t in out.values() if t.requires_grad]
        grads = []
        if finite:
            total = sum((t * lib.linspace(-1, 1, t.numel(), dtype=t.dtype).reshape(t.shape))
                        .nan_to_num(0.0, 0.0, 0.0).sum() for t in finite)
            grads = lib.autograd.grad(total, params)
        return [out, list(grads)]
    (theirs, theirs_grads), (ours, ours_grads) = _both(BUILDERS[name], run, dtype)
    assert sorted(ours) == sorted(theirs)
    for key in theirs:
        _close(ours[key], theirs[key])
        assert ours[key].requires_grad == theirs[key].requires_grad, key
        if theirs[key].grad_fn is not None:
            assert type(ours[key].grad_fn).__name__ == type(theirs[key].grad_fn).__name__, key
    _close(ours_grads, theirs_grads)


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_shapes_support_and_reprs_are_pytorchs(name):
    def run(dist, params, lib):
        out = [repr(dist), dist.batch_shape, dist.event_shape, repr(dist.support), dist.support.is_discrete,
               dist.support.event_dim, dist.has_rsample, dist.has_enumerate_support,
               sorted(dist.arg_constraints), [repr(c) for c in dist.arg_constraints.values()]]
        wide = dist.expand((4,) + tuple(dist.batch_shape))
        out += [repr(wide), wide.batch_shape, type(wide).__name__]
        return out, wide.log_prob(wide.sample())
    (theirs, theirs_scores), (ours, ours_scores) = _both(BUILDERS[name], run)
    assert [str(x) for x in ours] == [str(x) for x in theirs]
    _close(ours_scores, theirs_scores)


INVALID = [
    lambda lib, D: D.Gamma(lib.tensor([1.0, -1.0]), 1.0),
    lambda lib, D: D.Gamma(1.0, 0.0),
    lambda lib, D: D.Gamma(lib.tensor([2.0]), lib.tensor([1.0])).log_prob(lib.tensor([-0.5])),
    lambda lib, D: D.Beta(lib.tensor([0.0]), lib.tensor([1.0])),
    lambda lib, D: D.Beta(1.0, -2.0),
    lambda lib, D: D.Beta(2.0, 2.0).log_prob(lib.tensor([1.5])),
    lambda lib, D: D.Dirichlet(lib.tensor(1.0)),
    lambda lib, D: D.Dirichlet(lib.tensor([1.0, -1.0])),
    lambda lib, D: D.Dirichlet(lib.tensor([1.0, 2.0])).log_prob(lib.tensor([0.5, 0.6])),
    lambda lib, D: D.Poisson(lib.tensor([-1.0])),
    lambda lib, D: D.Poisson(lib.tensor([2.0])).log_prob(lib.tensor([0.5])),
    lambda lib, D: D.Poisson(lib.tensor([2.0])).log_prob(lib.tensor([-1.0])),
]


@pytest.mark.parametrize("index", range(len(INVALID)))
def test_validation_errors_are_pytorchs_word_for_word(index):
    def error(lib, D):
        try:
            INVALID[index](lib, D)
        except (ValueError, TypeError) as caught:
            return type(caught).__name__, str(caught)
        return None
    theirs = error(torch, TD)
    assert theirs is not None and error(nnref, ND) == theirs


@pytest.mark.parametrize("dtype", DTYPES)
def test_many_dirichlet_draw_gradients_are_pytorchs(dtype):
    """Beta draws over small, mixed and large concentrations reach every branch of
    ``dirichlet_grad_one`` (near 0, near 1, both large, the rational correction)."""
    rng = np.random.default_rng(5)
    a, b = (np.concatenate([rng.uniform(0.05, 3, 60), rng.uniform(6.5, 60, 60), rng.uniform(0.1, 20, 60)])
            for _ in range(2))

    def run(dist, params, lib):
        draws = dist.rsample((3,))
        weights = lib.linspace(-1, 1, draws.numel(), dtype=draws.dtype).reshape(draws.shape)
        return [draws] + list(lib.autograd.grad((draws * weights).sum(), params))
    theirs, ours = _both(lambda lib, D, dt: _with(D.Beta, _params(lib, dt, a, b)), run, dtype)
    _same(ours[0], theirs[0])
    _close(ours[1:], theirs[1:])


def _second_derivative(lib, D, name):
    """What a second derivative through a reparameterised draw gives: Gamma's first derivative is
    recorded (``grad * _standard_gamma_grad(alpha, x)``) and its own derivative is not implemented;
    Beta's and Dirichlet's first derivatives are not recorded at all."""
    lib.manual_seed(3)
    a = lib.tensor([0.4, 1.5, 9.0], requires_grad=True)
    dist = {"gamma": lambda: D.Gamma(a, lib.ones(3)), "beta": lambda: D.Beta(a, a.detach() + 1),
            "dirichlet": lambda: D.Dirichlet(a)}[name]()
    (first,) = lib.autograd.grad(dist.rsample().sum(), a, create_graph=True)
    chain = [type(first.grad_fn).__name__ if first.grad_fn else None]
    if first.grad_fn is not None:
        chain += [type(f).__name__ if f else None for f, _ in first.grad_fn.next_functions]
    try:  # the learner's case: the derivative inside a loss that also depends on `a` directly
        (second,) = lib.autograd.grad((first * first).sum() + a.sum(), a)
    except (RuntimeError, NotImplementedError) as caught:
        return chain, type(caught).__name__, str(caught)
    return chain, second.tolist()


@pytest.mark.parametrize("name", ["gamma", "beta", "dirichlet"])
def test_second_derivatives_through_draws_are_pytorchs(name):
    """Gamma raises (nnref once returned the loss's other term alone, silently); Beta and
    Dirichlet treat the first derivative as a constant, as PyTorch does."""
    theirs = _second_derivative(torch, TD, name)
    assert _second_derivative(nnref, ND, name) == theirs


def test_what_nnref_cannot_do_says_so():
    concentration = nnref.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(NotImplementedError, match="gammainc"):
        ND.Gamma(concentration, 1.0).cdf(nnref.tensor([1.0, 1.0]))


KL_PAIRS = {
    "dirichlet_dirichlet": lambda lib, D, a, b: (D.Dirichlet(a.exp().reshape(2, 2)),
                                                 D.Dirichlet(b.exp().reshape(2, 2))),
    "gamma_gamma": lambda lib, D, a, b: (D.Gamma(a.exp(), b.exp()), D.Gamma(b.exp(), a.exp() + 1)),
    "beta_beta": lambda lib, D, a, b: (D.Beta(a.exp(), b.exp()), D.Beta(b.exp(), a.exp() + 1)),
    "poisson_poisson": lambda lib, D, a, b: (D.Poisson(a.exp()), D.Poisson(b.exp())),
    "bernoulli_poisson": lambda lib, D, a, b: (D.Bernoulli(logits=a), D.Poisson(b.exp())),
    "beta_exponential": lambda lib, D, a, b: (D.Beta(a.exp(), b.exp()), D.Exponential(b.exp())),
    "beta_gamma": lambda lib, D, a, b: (D.Beta(a.exp(), b.exp()), D.Gamma(b.exp(), a.exp())),
    "beta_normal": lambda lib, D, a, b: (D.Beta(a.exp(), b.exp()), D.Normal(b, a.exp())),
    "beta_uniform": lambda lib, D, a, b: (D.Beta(a.exp(), b.exp()), D.Uniform(b - 1, b + 1)),
    "exponential_beta": lambda lib, D, a, b: (D.Exponential(a.exp()), D.Beta(a.exp(), b.exp())),
    "exponential_gamma": lambda lib, D, a, b: (D.Exponential(a.exp()), D.Gamma(b.exp(), a.exp())),
    "gamma_beta": lambda lib, D, a, b: (D.Gamma(a.exp(), b.exp()), D.Beta(a.exp(), b.exp())),
    "gamma_exponential": lambda lib, D, a, b: (D.Gamma(a.exp(), b.exp()), D.Exponential(a.exp())),
    "gamma_normal": lambda lib, D, a, b: (D.Gamma(a.exp(), b.exp()), D.Normal(b, a.exp())),
    "gamma_uniform": lambda lib, D, a, b: (D.Gamma(a.exp(), b.exp()), D.Uniform(b - 1, b + 1)),
    "laplace_beta": lambda lib, D, a, b: (D.Laplace(a, b.exp()), D.Beta(a.exp(), b.exp())),
    "laplace_gamma": lambda lib, D, a, b: (D.Laplace(a, b.exp()), D.Gamma(a.exp(), b.exp())),
    "normal_beta": lambda lib, D, a, b: (D.Normal(a, b.exp()), D.Beta(a.exp(), b.exp())),
    "normal_gamma": lambda lib, D, a, b: (D.Normal(a, b.exp()), D.Gamma(a.exp(), b.exp())),
    "poisson_bernoulli": lambda lib, D, a, b: (D.Poisson(a.exp()), D.Bernoulli(logits=b)),
    "uniform_beta": lambda lib, D, a, b: (D.Uniform(a.sigmoid() * 0.5, a.sigmoid() * 0.5 + 0.3),
                                          D.Beta(a.exp(), b.exp())),
    "uniform_beta_outside": lambda lib, D, a, b: (D.Uniform(a - 2, a + 1), D.Beta(a.exp(), b.exp())),
    "uniform_gamma": lambda lib, D, a, b: (D.Uniform(a.exp(), a.exp() + 1), D.Gamma(b.exp(), a.exp())),
    "uniform_gamma_outside": lambda lib, D, a, b: (D.Uniform(a - 2, a + 1), D.Gamma(b.exp(), a.exp())),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("pair", sorted(KL_PAIRS))
def test_kl_divergence_of_pytorchs_registered_pairs(pair, dtype):
    results = []
    for lib, D in ((torch, TD), (nnref, ND)):
        a, b = _params(lib, dtype, [0.3, -0.8, 1.2, 0.1], [-0.2, 0.5, 0.4, 0.9])
        p, q = KL_PAIRS[pair](lib, D, a, b)
        kl = D.kl_divergence(p, q)
        grads = lib.autograd.grad(kl.nan_to_num(0.0, 0.0, 0.0).sum(), [a, b], allow_unused=True) \
            if kl.requires_grad else []
        results.append([kl] + [g for g in grads if g is not None])
    _close(results[1], results[0])


def test_every_registered_pair_among_nnrefs_distributions_is_registered():
    # (other tests register pairs of their own subclasses in both registries: compare nnref's classes only)
    names = set(ND.__all__)

    def pairs(registry):
        return {(p.__name__, q.__name__) for p, q in registry if p.__name__ in names and q.__name__ in names}
    assert pairs(ND.kl._KL_REGISTRY) == pairs(TD.kl._KL_REGISTRY)


def test_torch_poisson_is_pytorchs():
    def run(lib):
        lib.manual_seed(2)
        rate = lib.tensor([0.5, 4.0, 30.0], requires_grad=True)
        draws = lib.poisson(rate)
        (grad,) = lib.autograd.grad(draws.sum(), rate)
        seeded = lib.poisson(lib.tensor([3.0, 12.0], dtype=lib.float64), generator=lib.Generator().manual_seed(1))
        with pytest.raises(NotImplementedError) as integers:
            lib.poisson(lib.tensor([1, 2]))
        return [draws, grad, seeded], type(draws.grad_fn).__name__, str(integers.value)
    (ours, ours_node, ours_error), (theirs, theirs_node, theirs_error) = run(nnref), run(torch)
    _same(ours, theirs)
    assert (ours_node, ours_error) == (theirs_node, theirs_error)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_draws_as_pytorch(dtype):
    """PyTorch's gamma and Dirichlet kernels refuse 16-bit floats; its Poisson kernel takes them."""
    def run(lib):
        lib.manual_seed(4)
        rate = lib.tensor([0.5, 3.0], dtype=getattr(lib, dtype))
        draws = lib.poisson(rate)
        out = [draws.float(), str(draws.dtype)]  # (as float32: numpy has no bfloat16)
        for draw in (lambda: lib.distributions.Gamma(rate, 1.0).sample(),
                     lambda: lib.distributions.Dirichlet(rate).sample()):
            with pytest.raises(NotImplementedError) as refused:
                draw()
            out.append(str(refused.value))
        return out
    ours, theirs = run(nnref), run(torch)
    _same(ours[0], theirs[0])
    assert ours[1:] == theirs[1:]
