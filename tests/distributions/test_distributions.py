"""nnref.distributions against torch.distributions: the same draws for the same seed (each
``sample``/``rsample`` makes PyTorch's random calls in PyTorch's order), equal ``log_prob``,
``entropy``, moments, ``cdf``/``icdf`` and their gradients, PyTorch's validation errors word for
word, reprs, ``expand`` and a REINFORCE loop printing the same losses."""
import numpy as np
import pytest

import nnref
import nnref.distributions as ND

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.exact  # bit for bit: run again per CPU capability (tests/capabilities.py)
TD = torch.distributions

DTYPES = ["float32", "float64"]
SAMPLE_SHAPES = [(), (3,), (2, 4), (17,)]


def _params(lib, dtype, *arrays, grad=True):
    """Leaf tensors of ``lib`` holding ``arrays`` in ``dtype`` (so both libraries start equal)."""
    return [lib.tensor(np.asarray(a), dtype=getattr(lib, dtype), requires_grad=grad) for a in arrays]


def _value(x):
    if isinstance(x, (torch.Tensor, nnref.Tensor)):
        return x.detach().numpy()
    return x


def _same(ours, theirs, exact=True):
    """Equal values, dtypes and shapes: exactly, or (``exact`` False, for gradients, where
    nnref's backward formulas may round the last bit differently) to a few units of the dtype's
    rounding, relative to the largest value."""
    assert type(ours).__name__ == type(theirs).__name__ or isinstance(ours, nnref.Tensor)
    if isinstance(theirs, torch.Tensor):
        assert str(ours.dtype) == str(theirs.dtype)
        assert tuple(ours.shape) == tuple(theirs.shape)
        a, b = _value(ours), _value(theirs)
        if exact:
            np.testing.assert_array_equal(a, b)
        else:
            eps = np.finfo(b.dtype).eps if b.dtype.kind == "f" else 0
            scale = np.abs(b[np.isfinite(b)]).max(initial=1.0)
            np.testing.assert_allclose(a, b, rtol=4 * eps, atol=4 * eps * scale)
    elif isinstance(theirs, (list, tuple)):
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _same(a, b, exact)
    else:
        assert ours == theirs


# name -> (build(lib, D, dtype) -> (distribution, parameters), value(lib, dtype) -> a point of the support)
BUILDERS = {
    "normal": (lambda lib, D, dt: _with(D.Normal, _params(lib, dt, [0.5, -1.0, 2.0], [1.0, 0.3, 2.5])),
               lambda lib, dt: lib.tensor([0.2, -0.7, 4.0], dtype=getattr(lib, dt))),
    "normal_scalar": (lambda lib, D, dt: (D.Normal(0.5, 2.0), []),
                      lambda lib, dt: lib.tensor([0.2, 1.0], dtype=lib.get_default_dtype())),
    "normal_broadcast": (lambda lib, D, dt: _with(D.Normal, _params(lib, dt, [[0.1], [0.4]], [1.0, 2.0, 0.5])),
                         lambda lib, dt: lib.tensor([0.3, -0.2, 0.9], dtype=getattr(lib, dt))),
    "categorical_probs": (lambda lib, D, dt: _with(lambda p: D.Categorical(probs=p),
                                                   _params(lib, dt, [[0.1, 0.2, 0.7], [0.5, 0.25, 0.25]])),
                          lambda lib, dt: lib.tensor([2, 0])),
    "categorical_logits": (lambda lib, D, dt: _with(lambda l: D.Categorical(logits=l),
                                                    _params(lib, dt, [[0.3, -1.2, 2.0, 0.1]] * 3)),
                           lambda lib, dt: lib.tensor([[3, 0, 1], [2, 2, 2]])),
    "categorical_unnormalised": (lambda lib, D, dt: _with(lambda p: D.Categorical(p),
                                                          _params(lib, dt, [3.0, 1.0, 0.5, 2.0, 1.0])),
                                 lambda lib, dt: lib.tensor([4, 0, 3])),
    "bernoulli_probs": (lambda lib, D, dt: _with(lambda p: D.Bernoulli(probs=p),
                                                 _params(lib, dt, [0.1, 0.5, 0.93, 0.3])),
                        lambda lib, dt: lib.tensor([1.0, 0.0, 1.0, 1.0], dtype=getattr(lib, dt))),
    "bernoulli_logits": (lambda lib, D, dt: _with(lambda l: D.Bernoulli(logits=l),
                                                  _params(lib, dt, [[-2.0, 0.0, 1.5], [0.4, 3.0, -0.1]])),
                         lambda lib, dt: lib.tensor([0.0, 1.0, 1.0], dtype=getattr(lib, dt))),
    "bernoulli_scalar": (lambda lib, D, dt: (D.Bernoulli(0.3), []),
                         lambda lib, dt: lib.tensor(1.0)),
    "uniform": (lambda lib, D, dt: _with(D.Uniform, _params(lib, dt, [0.0, -2.0, 1.5], [1.0, 3.0, 1.75])),
                lambda lib, dt: lib.tensor([0.25, 2.5, 1.6], dtype=getattr(lib, dt))),
    "uniform_scalar": (lambda lib, D, dt: (D.Uniform(-1.0, 3.0), []),
                       lambda lib, dt: lib.tensor([0.0, 2.5])),
    "exponential": (lambda lib, D, dt: _with(D.Exponential, _params(lib, dt, [0.5, 1.0, 4.0])),
                    lambda lib, dt: lib.tensor([0.3, 2.0, 0.0], dtype=getattr(lib, dt))),
    "exponential_scalar": (lambda lib, D, dt: (D.Exponential(2.5), []),
                           lambda lib, dt: lib.tensor([0.3, 1.0])),
    "laplace": (lambda lib, D, dt: _with(D.Laplace, _params(lib, dt, [0.0, -1.5, 2.0], [1.0, 0.2, 3.0])),
                lambda lib, dt: lib.tensor([0.5, -1.0, -4.0], dtype=getattr(lib, dt))),
    "independent_normal": (lambda lib, D, dt: _with(
        lambda loc, scale: D.Independent(D.Normal(loc, scale), 1),
        _params(lib, dt, [[0.0, 1.0, -1.0], [2.0, 0.5, 0.1]], [[1.0, 0.5, 2.0], [0.3, 1.0, 1.5]])),
        lambda lib, dt: lib.tensor([0.1, 0.2, 0.3], dtype=getattr(lib, dt))),
    "independent_bernoulli": (lambda lib, D, dt: _with(
        lambda p: D.Independent(D.Bernoulli(probs=p), 2), _params(lib, dt, [[0.2, 0.7], [0.5, 0.9]])),
        lambda lib, dt: lib.tensor([[1.0, 0.0], [1.0, 1.0]], dtype=getattr(lib, dt))),
    "one_hot_categorical": (lambda lib, D, dt: _with(lambda p: D.OneHotCategorical(probs=p),
                                                     _params(lib, dt, [[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]])),
                            lambda lib, dt: lib.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], dtype=getattr(lib, dt))),
    "one_hot_straight_through": (lambda lib, D, dt: _with(lambda l: D.OneHotCategoricalStraightThrough(logits=l),
                                                          _params(lib, dt, [0.5, -1.0, 2.0, 0.0])),
                                 lambda lib, dt: lib.tensor([0.0, 0.0, 1.0, 0.0], dtype=getattr(lib, dt))),
    "mvn_covariance": (lambda lib, D, dt: _with(
        lambda loc, cov: D.MultivariateNormal(loc, covariance_matrix=cov @ cov.mT + lib.eye(3, dtype=cov.dtype)),
        _params(lib, dt, [[0.1, -0.2, 0.3], [1.0, 0.0, -1.0]], [[1.0, 0.3, 0.0], [0.2, 0.8, 0.1], [0.0, 0.4, 0.6]])),
        lambda lib, dt: lib.tensor([[0.5, 0.0, 0.2], [1.0, 1.0, -1.0]], dtype=getattr(lib, dt))),
    "mvn_scale_tril": (lambda lib, D, dt: _with(
        lambda loc, L: D.MultivariateNormal(loc, scale_tril=L.tril() + 2 * lib.eye(2, dtype=L.dtype)),
        _params(lib, dt, [0.5, -0.5], [[[0.3, 0.0], [0.7, 0.2]], [[1.0, 0.0], [-0.4, 0.5]]])),
        lambda lib, dt: lib.tensor([[0.0, 1.0]], dtype=getattr(lib, dt))),
    "mvn_precision": (lambda lib, D, dt: _with(
        lambda loc, P: D.MultivariateNormal(loc, precision_matrix=P @ P.mT + lib.eye(3, dtype=P.dtype)),
        _params(lib, dt, [0.0, 1.0, 2.0], [[1.0, 0.0, 0.5], [0.2, 1.5, 0.0], [0.3, 0.1, 0.7]])),
        lambda lib, dt: lib.tensor([0.2, 0.8, 2.5], dtype=getattr(lib, dt))),
}
WITH_CDF = ("normal", "uniform", "exponential", "laplace")


def _with(make, params):
    return make(*params), params


def _both(name, dtype, run):
    """``run(distribution, parameters, value, lib)`` for torch, then for nnref, same seeds."""
    build, value = BUILDERS[name]
    results = []
    for lib, D in ((torch, TD), (nnref, ND)):
        lib.manual_seed(7)
        dist, params = build(lib, D, dtype)
        results.append(run(dist, params, value(lib, dtype), lib))
    return results


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", SAMPLE_SHAPES)
@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_samples_are_pytorchs_for_the_same_seed(name, shape, dtype):
    def run(dist, params, value, lib):
        draws = [dist.sample(shape), dist.sample(), dist.sample(shape)]
        if dist.has_rsample:
            draws += [dist.rsample(shape), dist.rsample()]
        return draws + [lib.rand(2)]  # the global stream is left where PyTorch leaves it
    theirs, ours = _both(name, dtype, run)
    # Laplace maps PyTorch's uniform draws through log1p, whose float32 result nnref may round
    # differently in the last bit; every other family's draws are PyTorch's bit for bit
    _same(ours, theirs, exact=not name.startswith(("laplace", "mvn")))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_scores_moments_and_their_gradients_are_pytorchs(name, dtype):
    def run(dist, params, value, lib):
        out = {"log_prob": dist.log_prob(value), "entropy": dist.entropy(), "mean": dist.mean,
               "variance": dist.variance, "stddev": dist.stddev, "perplexity": dist.perplexity()}
        if name.startswith(WITH_CDF):
            out["cdf"] = dist.cdf(value)
            out["icdf"] = dist.icdf(lib.linspace(0.1, 0.9, value.shape[-1], dtype=value.dtype))
        if dist.has_rsample:
            out["rsample"] = dist.rsample((2,))
        finite = [t for t in out.values() if t.requires_grad]
        grads = []
        if finite:
            total = sum((t * lib.linspace(-1, 1, t.numel(), dtype=t.dtype).reshape(t.shape))
                        .nan_to_num(0.0, 0.0, 0.0).sum() for t in finite)
            grads = lib.autograd.grad(total, params)
        return [out, list(grads)]
    (theirs, theirs_grads), (ours, ours_grads) = _both(name, dtype, run)
    assert sorted(ours) == sorted(theirs)
    for key in theirs:
        # nnref's float32 exp/log/sqrt/sigmoid and float64 erf may differ from PyTorch's SIMD
        # kernels in the last bit: the values are compared to the dtype's rounding
        _same(ours[key], theirs[key], exact=False)
        assert ours[key].requires_grad == theirs[key].requires_grad, key
        if theirs[key].grad_fn is not None:
            assert type(ours[key].grad_fn).__name__ == type(theirs[key].grad_fn).__name__, key
    _same(ours_grads, theirs_grads, exact=False)


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_shapes_support_modes_and_reprs_are_pytorchs(name):
    def run(dist, params, value, lib):
        out = [repr(dist), dist.batch_shape, dist.event_shape, repr(dist.support),
               dist.support.is_discrete, dist.support.event_dim, dist.has_rsample,
               dist.has_enumerate_support]
        try:
            out.append(dist.mode)
        except NotImplementedError as error:
            out.append(str(error))
        if dist.has_enumerate_support:
            out += [dist.enumerate_support(), dist.enumerate_support(expand=False)]
        wide = dist.expand((5,) + tuple(dist.batch_shape))
        out += [repr(wide), wide.batch_shape, type(wide).__name__]
        wide_scores = wide.log_prob(wide.sample())
        return out, wide_scores
    (theirs, theirs_scores), (ours, ours_scores) = _both(name, "float32", run)
    assert [str(x) for x in ours] == [str(x) for x in theirs]
    _same([x for x in ours if isinstance(x, nnref.Tensor)],
          [x for x in theirs if isinstance(x, torch.Tensor)])
    _same(ours_scores, theirs_scores, exact=False)


# (constructor or call on a distribution of D) -> PyTorch raises ValueError; the message must match
INVALID = [
    lambda lib, D: D.Normal(lib.tensor([0.0, 1.0]), lib.tensor([1.0, -2.0])),
    lambda lib, D: D.Normal(lib.tensor([float("nan")]), lib.tensor([1.0])),
    lambda lib, D: D.Normal(0.0, 0.0),
    lambda lib, D: D.Normal("a", 1.0),
    lambda lib, D: D.Categorical(probs=lib.tensor([0.5, -0.1, 0.6])),
    lambda lib, D: D.Categorical(probs=lib.tensor(0.5)),
    lambda lib, D: D.Categorical(logits=lib.tensor(0.5)),
    lambda lib, D: D.Categorical(),
    lambda lib, D: D.Categorical(probs=lib.tensor([0.5, 0.5]), logits=lib.tensor([0.0, 0.0])),
    lambda lib, D: D.Categorical(logits=lib.tensor([[0.0, float("nan")]])),
    lambda lib, D: D.Bernoulli(lib.tensor([0.5, 1.5])),
    lambda lib, D: D.Bernoulli(),
    lambda lib, D: D.Uniform(lib.tensor([0.0, 2.0]), lib.tensor([1.0, 1.0])),
    lambda lib, D: D.Uniform(1.0, 1.0),
    lambda lib, D: D.Normal(lib.tensor([0.0, 1.0]), 1.0).log_prob(lib.tensor([1.0, 2.0, 3.0])),
    lambda lib, D: D.Normal(lib.tensor([0.0, 1.0]), 1.0).log_prob([1.0, 2.0]),
    lambda lib, D: D.Normal(0.0, 1.0).log_prob(lib.tensor(float("nan"))),
    lambda lib, D: D.Categorical(lib.tensor([0.2, 0.8])).log_prob(lib.tensor([0, 2])),
    lambda lib, D: D.Categorical(lib.tensor([0.2, 0.8])).log_prob(lib.tensor([0.5])),
    lambda lib, D: D.Bernoulli(lib.tensor([0.2, 0.8])).log_prob(lib.tensor([1.0, 0.5])),
    lambda lib, D: D.Uniform(0.0, 1.0).log_prob(lib.tensor([1.5])),
    lambda lib, D: D.Uniform(0.0, 1.0).cdf(lib.tensor([-0.5])),
    lambda lib, D: D.Distribution.set_default_validate_args(2),
    lambda lib, D: D.Exponential(lib.tensor([1.0, 0.0])),
    lambda lib, D: D.Exponential(1.0).log_prob(lib.tensor([-1.0])),
    lambda lib, D: D.Laplace(lib.tensor([0.0]), lib.tensor([-1.0])),
    lambda lib, D: D.Independent(D.Normal(lib.zeros(3), 1.0), 2),
    lambda lib, D: D.Independent(D.Normal(lib.zeros(3, 2), 1.0), 1).log_prob(lib.zeros(3)),
    lambda lib, D: D.Independent(D.Bernoulli(lib.full((2, 2), 0.5)), 1).log_prob(lib.full((2, 2), 0.5)),
    lambda lib, D: D.OneHotCategorical(lib.tensor([0.5, -0.5, 1.0])),
    lambda lib, D: D.OneHotCategorical(lib.tensor([0.5, 0.5])).log_prob(lib.tensor([1.0, 1.0])),
    lambda lib, D: D.MultivariateNormal(lib.zeros(2), covariance_matrix=lib.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda lib, D: D.MultivariateNormal(lib.zeros(2), covariance_matrix=lib.tensor([[1.0, 0.5], [0.0, 1.0]])),
    lambda lib, D: D.MultivariateNormal(lib.zeros(2), scale_tril=lib.tensor([[1.0, 0.5], [0.0, 1.0]])),
    lambda lib, D: D.MultivariateNormal(lib.zeros(2), scale_tril=lib.tensor([[-1.0, 0.0], [0.0, 1.0]])),
    lambda lib, D: D.MultivariateNormal(lib.zeros(2), lib.eye(2), scale_tril=lib.eye(2)),
    lambda lib, D: D.MultivariateNormal(lib.zeros(2)),
    lambda lib, D: D.MultivariateNormal(lib.tensor(0.0), lib.eye(1)),
    lambda lib, D: D.MultivariateNormal(lib.zeros(2), lib.ones(2)),
    lambda lib, D: D.MultivariateNormal(lib.zeros(2), scale_tril=lib.ones(2)),
    lambda lib, D: D.MultivariateNormal(lib.zeros(2), precision_matrix=lib.ones(2)),
    lambda lib, D: D.MultivariateNormal(lib.zeros(2), lib.eye(2)).log_prob(lib.zeros(3)),
]


def _error(call, lib, D):
    try:
        call(lib, D)
    except (ValueError, TypeError) as error:
        return type(error).__name__, str(error)
    return None


@pytest.mark.parametrize("index", range(len(INVALID)))
def test_validation_errors_are_pytorchs_word_for_word(index):
    theirs = _error(INVALID[index], torch, TD)
    ours = _error(INVALID[index], nnref, ND)
    assert theirs is not None
    assert ours == theirs


def test_validation_can_be_turned_off_per_instance_and_by_default():
    for lib, D in ((torch, TD), (nnref, ND)):
        scale = lib.tensor([1.0, -2.0])
        off = D.Normal(lib.tensor([0.0, 0.0]), scale, validate_args=False)
        assert off.log_prob(lib.tensor([1.0, 2.0, 3.0]).reshape(3, 1)).shape == (3, 2)
        D.Distribution.set_default_validate_args(False)
        try:
            assert D.Normal(0.0, -1.0)._validate_args is False
            assert D.Normal(0.0, 1.0, validate_args=True)._validate_args is True
        finally:
            D.Distribution.set_default_validate_args(True)
        with pytest.raises(ValueError):
            D.Normal(0.0, -1.0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_lazy_parameters_keep_pytorchs_graph(dtype):
    """``Categorical(logits=...)`` normalises with ``logsumexp``; ``probs`` is computed on first
    access (``softmax``) and stored; ``Bernoulli(probs=...).logits`` clamps then takes log-odds."""
    out = []
    for lib, D in ((torch, TD), (nnref, ND)):
        logits, = _params(lib, dtype, [[1.0, -2.0, 0.5], [0.0, 0.0, 30.0]])
        probs, = _params(lib, dtype, [0.0, 0.25, 1.0])
        c = D.Categorical(logits=logits)
        b = D.Bernoulli(probs=probs)
        values = [c.logits, c.probs, c.param_shape, b.logits, b.probs, "probs" in c.__dict__]
        out.append(values + [type(c.probs.grad_fn).__name__, type(b.logits.grad_fn).__name__,
                             lib.autograd.grad(c.probs[:, 0].sum() + b.logits[1], [logits, probs])])
    _same(out[1], out[0])


def test_sample_n_warns_as_pytorch():
    for lib, D in ((torch, TD), (nnref, ND)):
        lib.manual_seed(1)
        with pytest.warns(FutureWarning, match=r"`sample_n\(n\)` will be deprecated"):
            draw = D.Normal(0.0, 1.0).sample_n(3)
        assert tuple(draw.shape) == (3,)


def test_reinforce_loop_prints_pytorchs_losses(capsys):
    """A policy network gives action probabilities; the sampled action's ``log_prob`` times the
    (normalised) return is the loss: PyTorch's REINFORCE example, 6 episodes of 5 steps.  The
    draws are PyTorch's exactly; the losses drift in the last float32 bit (nnref's softmax
    exp and std round differently), so they are printed to 4 decimals."""
    printed = []
    for lib, D in ((torch, TD), (nnref, ND)):
        lib.manual_seed(543)
        policy = lib.nn.Sequential(lib.nn.Linear(4, 16), lib.nn.ReLU(), lib.nn.Dropout(0.2),
                                   lib.nn.Linear(16, 3), lib.nn.Softmax(dim=-1))
        optimizer = lib.optim.Adam(policy.parameters(), lr=1e-2)
        for episode in range(6):
            state = lib.randn(4)
            log_probs, rewards = [], []
            for _ in range(5):
                m = D.Categorical(policy(state))
                action = m.sample()
                log_probs.append(m.log_prob(action))
                rewards.append(float(action.item() == 1) - 0.1 * state.sum().item())
                state = lib.randn(4) + 0.1 * action
            returns, running = [], 0.0
            for r in reversed(rewards):
                running = r + 0.99 * running
                returns.insert(0, running)
            returns = lib.tensor(returns)
            returns = (returns - returns.mean()) / (returns.std() + 1e-6)
            loss = lib.stack([-lp * r for lp, r in zip(log_probs, returns)]).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            print(f"episode {episode}: loss {loss.item():.4f} entropy {m.entropy().item():.4f}")
        printed.append(capsys.readouterr().out)
    assert printed[1] == printed[0]
    assert printed[0].count("loss") == 6


@pytest.mark.parametrize("layout", ["expanded", "transposed"])
def test_bernoulli_of_a_non_contiguous_tensor_draws_in_pytorchs_order(layout):
    """``torch.bernoulli`` draws into a contiguous result whatever the layout of ``probs``
    (``Bernoulli.sample`` passes ``probs.expand(shape)``)."""
    draws = []
    for lib in (torch, nnref):
        probs = lib.tensor([[0.1, 0.5, 0.9], [0.4, 0.95, 0.45]])
        probs = probs.expand(6, 2, 3) if layout == "expanded" else probs.T
        lib.manual_seed(7)
        draws.append(lib.bernoulli(probs))
    _same(draws[1], draws[0])


# (p, q) pairs of PyTorch's registered KL functions among nnref's distributions
KL_PAIRS = {
    "normal_normal": lambda lib, D, a, b: (D.Normal(a, b.exp()), D.Normal(b, a.exp())),
    "bernoulli_bernoulli": lambda lib, D, a, b: (D.Bernoulli(logits=a), D.Bernoulli(probs=b.sigmoid())),
    "bernoulli_edges": lambda lib, D, a, b: (D.Bernoulli(lib.tensor([0.0, 0.3, 1.0, 0.5], dtype=a.dtype)),
                                             D.Bernoulli(lib.tensor([0.2, 0.0, 0.5, 1.0], dtype=a.dtype))),
    "categorical_categorical": lambda lib, D, a, b: (D.Categorical(logits=a.reshape(2, 2)),
                                                     D.Categorical(probs=b.exp().reshape(2, 2))),
    "categorical_zeros": lambda lib, D, a, b: (D.Categorical(lib.tensor([0.0, 0.5, 0.5], dtype=a.dtype)),
                                               D.Categorical(lib.tensor([0.5, 0.0, 0.5], dtype=a.dtype))),
    "one_hot_one_hot": lambda lib, D, a, b: (D.OneHotCategorical(logits=a), D.OneHotCategorical(logits=b)),
    "uniform_uniform": lambda lib, D, a, b: (D.Uniform(a - 2, a + 1), D.Uniform(b - 3, b + 2)),
    "exponential_exponential": lambda lib, D, a, b: (D.Exponential(a.exp()), D.Exponential(b.exp())),
    "laplace_laplace": lambda lib, D, a, b: (D.Laplace(a, b.exp()), D.Laplace(b, a.exp())),
    "exponential_normal": lambda lib, D, a, b: (D.Exponential(a.exp()), D.Normal(b, a.exp())),
    "exponential_uniform": lambda lib, D, a, b: (D.Exponential(a.exp()), D.Uniform(b - 1, b + 1)),
    "laplace_normal": lambda lib, D, a, b: (D.Laplace(a, b.exp()), D.Normal(b, a.exp())),
    "laplace_exponential": lambda lib, D, a, b: (D.Laplace(a, b.exp()), D.Exponential(a.exp())),
    "normal_laplace": lambda lib, D, a, b: (D.Normal(a, b.exp()), D.Laplace(b, a.exp())),
    "normal_uniform": lambda lib, D, a, b: (D.Normal(a, b.exp()), D.Uniform(b - 1, b + 1)),
    "uniform_normal": lambda lib, D, a, b: (D.Uniform(a - 2, a + 1), D.Normal(b, a.exp())),
    "uniform_exponential": lambda lib, D, a, b: (D.Uniform(a.exp() - 0.5, a.exp() + 1), D.Exponential(b.exp())),
    "independent_independent": lambda lib, D, a, b: (D.Independent(D.Normal(a.reshape(2, 2), 1.0), 1),
                                                     D.Independent(D.Normal(b.reshape(2, 2), 2.0), 1)),
    "mvn_mvn": lambda lib, D, a, b: (
        D.MultivariateNormal(a[:2], scale_tril=lib.eye(2, dtype=a.dtype) + b.reshape(2, 2).tril(-1)),
        D.MultivariateNormal(b[:2], covariance_matrix=lib.eye(2, dtype=a.dtype) * 2 + 0.5)),
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
        results.append([kl, [g if g is not None else "none" for g in grads]])
    _same(results[1], results[0], exact=False)


def test_exponential_family_kl_uses_bregman_divergence_as_pytorch():
    """A Normal subclass has no registered pair of its own: the (Normal, Normal) function is
    the most specific; two ExponentialFamily subclasses fall back on the Bregman divergence."""
    out = []
    for lib, D in ((torch, TD), (nnref, ND)):
        class Sub(D.Normal):
            pass
        loc, = _params(lib, "float64", [0.5, -0.3])
        bregman = D.kl.__dict__["_kl_expfamily_expfamily"](D.Normal(0.2, 0.7), D.Normal(loc, 1.5))
        out.append([D.kl_divergence(Sub(loc, 2.0), D.Normal(0.0, 1.0)), bregman,
                    lib.autograd.grad(bregman.sum(), [loc])[0]])
    _same(out[1], out[0], exact=False)


def test_register_kl_dispatch_ambiguity_and_missing_pairs_as_pytorch():
    messages = []
    for lib, D in ((torch, TD), (nnref, ND)):
        class A(D.Normal):
            pass

        class B(D.Normal):
            pass

        @D.register_kl(A, D.Normal)
        def _kl_a(p, q):
            return lib.tensor(1.0)

        @D.register_kl(D.Normal, B)
        def _kl_b(p, q):
            return lib.tensor(2.0)
        with pytest.warns(RuntimeWarning) as caught:
            first = D.kl_divergence(A(0.0, 1.0), B(0.0, 1.0))
        with pytest.raises(NotImplementedError) as missing:
            D.kl_divergence(D.Normal(0.0, 1.0), D.Categorical(lib.tensor([0.5, 0.5])))
        with pytest.raises(NotImplementedError) as cross:
            D.kl_divergence(D.Normal(0.0, 1.0), D.Bernoulli(0.5))
        messages.append([str(caught[0].message), first.item(), str(missing.value), str(cross.value),
                         D.kl_divergence(A(0.0, 1.0), D.Normal(0.0, 1.0)).item()])
    assert messages[1] == messages[0]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("rows,categories,draws", [(1, 1, 5), (1, 2, 2), (5, 7, 33), (64, 100, 3),
                                                   (3, 1000, 50)])
def test_many_draws_per_row_are_pytorchs(rows, categories, draws, dtype):
    """``Categorical.sample((n,))`` with n > 1 is ``multinomial(..., replacement=True)``: one
    uniform per draw, row after row, binary-searched in the normalised running sum (rows with
    zero-probability categories make plateaus the search must skip as PyTorch's does)."""
    out = []
    for lib, D in ((torch, TD), (nnref, ND)):
        lib.manual_seed(11)
        probs = lib.rand(rows, categories, dtype=getattr(lib, dtype))
        probs = probs * (probs > 0.3)
        probs[:, -1] += 0.01
        out.append([D.Categorical(probs).sample((draws,)), lib.multinomial(probs, draws, True),
                    lib.rand(3, dtype=getattr(lib, dtype))])
    _same(out[1], out[0])
