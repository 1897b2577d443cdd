"""``nnref.nn.utils.parametrize``, ``nn.utils.parametrizations`` and the legacy hook-based
``nn.utils.weight_norm`` / ``spectral_norm`` against PyTorch: the same code run on both libraries
(same seeds, so the same weights and the same spectral-norm draws) gives the same values,
gradients of the originals, state_dict keys and values, reprs, errors and training losses."""
import copy
import importlib
import pickle
import warnings

import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")
LIBS = (nnref, torch)
CLOSE = dict(rtol=2e-5, atol=1e-6)


def _p(lib):
    return importlib.import_module(lib.__name__ + ".nn.utils.parametrize")


def _pz(lib):
    return importlib.import_module(lib.__name__ + ".nn.utils.parametrizations")


def _classes(lib):
    nn = lib.nn

    class Symmetric(nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()

    class Skew(nn.Module):
        def forward(self, X):
            A = X.triu(1)
            return A - A.transpose(-1, -2)

    class Double(nn.Module):  # no right_inverse
        def forward(self, X):
            return X * 2

    class RankOne(nn.Module):
        def forward(self, x, y):
            return x.unsqueeze(-1) @ y.unsqueeze(-2)

        def right_inverse(self, Z):
            return Z[:, 0].clone(), Z[0, :].clone()

    class First(nn.Module):  # changes the shape
        def forward(self, X):
            return X[0]

    class ToDouble(nn.Module):  # changes the dtype
        def forward(self, X):
            return X.double()

    class NotATensor(nn.Module):
        def forward(self, X):
            return 3

    return dict(Symmetric=Symmetric, Skew=Skew, Double=Double, RankOne=RankOne, First=First,
                ToDouble=ToDouble, NotATensor=NotATensor)


def _arrays(out):
    return {k: (v.detach().numpy() if hasattr(v, "detach") else v) for k, v in out.items()}


def _compare(f):
    ours, theirs = _arrays(f(nnref)), _arrays(f(torch))
    assert ours.keys() == theirs.keys()
    for k in ours:
        if isinstance(ours[k], np.ndarray):
            assert ours[k].dtype == theirs[k].dtype and ours[k].shape == theirs[k].shape, k
            np.testing.assert_allclose(ours[k], theirs[k], err_msg=k, **CLOSE)
        else:
            assert ours[k] == theirs[k], k


def _error(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001 - the type and message are what is compared
        return type(e).__name__, str(e)
    return None


def test_register_chain_assign_cache_and_remove():
    def run(lib):
        lib.manual_seed(0)
        P, C, out = _p(lib), _classes(lib), {}
        m = lib.nn.Linear(3, 3)
        w0 = m.weight
        P.register_parametrization(m, "weight", C["Symmetric"]())
        out["repr"] = repr(m)
        out["type"] = (type(m).__name__, P.type_before_parametrizations(m).__name__, P.is_parametrized(m),
                       P.is_parametrized(m, "weight"), P.is_parametrized(m, "bias"),
                       isinstance(m, lib.nn.Linear))
        out["same_original"] = m.parametrizations.weight.original is w0
        out["keys"] = list(m.state_dict().keys())
        out["names"] = [n for n, _ in m.named_parameters()]
        out["w"] = m.weight
        out["grad_fn"] = type(m.weight.grad_fn).__name__
        m(lib.randn(2, 3)).sum().backward()
        out["grad"] = m.parametrizations.weight.original.grad
        A = lib.randn(3, 3)
        m.weight = A + A.T
        out["assigned"], out["original"] = m.weight, m.parametrizations.weight.original
        P.register_parametrization(m, "weight", C["Double"]())
        out["repr2"], out["chain"] = repr(m), m.weight
        out["assign_error"] = _error(lambda: setattr(m, "weight", A))
        with P.cached():
            out["cached"] = m.weight is m.weight
        out["uncached"] = m.weight is m.weight
        out["state"] = m.state_dict()["parametrizations.weight.original"]
        P.remove_parametrizations(m, "weight", leave_parametrized=True)
        out["removed"] = (repr(m), type(m).__name__, m.weight is w0, type(m.weight).__name__)
        out["left"] = m.weight
        return out
    _compare(run)


def test_remove_unparametrized_and_several_tensors():
    def run(lib):
        lib.manual_seed(1)
        P, C, out = _p(lib), _classes(lib), {}
        m = lib.nn.Linear(3, 3)
        P.register_parametrization(m, "weight", C["Skew"]())
        P.register_parametrization(m, "bias", C["Double"]())
        out["repr"] = repr(m)
        P.remove_parametrizations(m, "weight", leave_parametrized=False)
        out["after_one"] = (repr(m), type(m).__name__)
        out["w"] = m.weight
        P.remove_parametrizations(m, "bias")
        out["after_both"] = type(m).__name__
        out["bias"] = m.bias
        r = lib.nn.Linear(4, 4)
        P.register_parametrization(r, "weight", C["RankOne"]())
        out["rank_one"] = (repr(r), list(r.state_dict().keys()))
        out["r_w"] = r.weight
        r(lib.randn(2, 4)).sum().backward()
        out["g0"] = r.parametrizations.weight.original0.grad
        out["g1"] = r.parametrizations.weight.original1.grad
        out["leave_false"] = _error(lambda: P.remove_parametrizations(r, "weight", leave_parametrized=False))
        P.remove_parametrizations(r, "weight")
        out["r_left"] = (type(r.weight).__name__, type(r).__name__)
        bn = lib.nn.BatchNorm1d(3)
        P.register_parametrization(bn, "running_mean", C["Double"]())
        out["buffer"] = (repr(bn), list(bn.state_dict().keys()))
        out["copy"] = repr(copy.deepcopy(bn))
        out["pickle"] = _error(lambda: pickle.dumps(bn))
        return out
    _compare(run)


def test_errors_have_pytorchs_types_and_messages():
    def run(lib):
        P, C, out = _p(lib), _classes(lib), {}
        for name in ("First", "ToDouble", "NotATensor"):
            out[name] = _error(lambda: P.register_parametrization(lib.nn.Linear(2, 2), "weight", C[name]()))
        out["missing"] = _error(lambda: P.register_parametrization(lib.nn.Linear(2, 2), "foo", C["Skew"]()))
        out["not_parametrized"] = _error(lambda: P.remove_parametrizations(lib.nn.Linear(2, 2), "weight"))
        m = lib.nn.Linear(2, 2)
        P.register_parametrization(m, "weight", C["Skew"]())
        for name in ("First", "ToDouble"):
            out["chained_" + name] = _error(lambda: P.register_parametrization(m, "weight", C[name]()))
        P.register_parametrization(m, "weight", C["First"](), unsafe=True)
        out["unsafe"] = (m.parametrizations.weight.unsafe, tuple(m.weight.shape))
        out["empty"] = _error(lambda: P.ParametrizationList([], lib.zeros(2)))
        return out
    _compare(run)


@pytest.mark.parametrize("build, dim", [("linear", 0), ("linear", None), ("linear", 1), ("conv2d", 1),
                                        ("conv2d", 0), ("conv1d", 2), ("conv1d", -1)])
def test_weight_norm_parametrization(build, dim):
    def run(lib):
        lib.manual_seed(2)
        P, out = _p(lib), {}
        module, x = {"linear": (lambda: lib.nn.Linear(4, 3), (2, 4)),
                     "conv2d": (lambda: lib.nn.Conv2d(2, 3, 3), (1, 2, 5, 5)),
                     "conv1d": (lambda: lib.nn.Conv1d(2, 3, 2), (1, 2, 5))}[build]
        m = _pz(lib).weight_norm(module(), dim=dim)
        out["repr"] = repr(m)
        out.update({"sd:" + k: v for k, v in m.state_dict().items()})
        out["w"] = m.weight
        out["grad_fn"] = type(m.weight.grad_fn).__name__
        (m(lib.randn(*x)) ** 2).sum().backward()
        out["g"] = m.parametrizations.weight.original0.grad
        out["v"] = m.parametrizations.weight.original1.grad
        P.remove_parametrizations(m, "weight")
        out["removed"] = m.weight
        return out
    _compare(run)


@pytest.mark.parametrize("build, kwargs", [("linear", {}), ("linear", {"n_power_iterations": 3, "dim": 1}),
                                           ("conv2d", {}), ("convt2d", {}), ("bias", {"name": "bias"})])
def test_spectral_norm_parametrization(build, kwargs):
    def run(lib):
        lib.manual_seed(3)
        P, out = _p(lib), {}
        module, x = {"linear": (lambda: lib.nn.Linear(5, 4), (2, 5)), "bias": (lambda: lib.nn.Linear(5, 4), (2, 5)),
                     "conv2d": (lambda: lib.nn.Conv2d(2, 3, 3), (1, 2, 5, 5)),
                     "convt2d": (lambda: lib.nn.ConvTranspose2d(2, 3, 3), (1, 2, 5, 5))}[build]
        m = _pz(lib).spectral_norm(module(), **kwargs)
        name = kwargs.get("name", "weight")
        out["repr"] = repr(m)
        out.update({"sd:" + k: v for k, v in m.state_dict().items()})
        out["w"] = getattr(m, name)
        (m(lib.randn(*x)) ** 2).sum().backward()
        out["g"] = m.parametrizations[name].original.grad
        out.update({"after:" + k: v for k, v in m.state_dict().items()})
        m.eval()
        out["eval"] = getattr(m, name)
        P.remove_parametrizations(m, name, leave_parametrized=False)
        out["removed"] = getattr(m, name)
        return out
    _compare(run)


def test_parametrization_errors():
    def run(lib):
        nn, out = lib.nn, {}
        out["dim"] = _error(lambda: _pz(lib).spectral_norm(nn.Linear(2, 2), dim=2))
        out["iters"] = _error(lambda: _pz(lib).spectral_norm(nn.Linear(2, 2), n_power_iterations=0))
        out["name"] = _error(lambda: _pz(lib).spectral_norm(nn.Linear(2, 2), "nope"))
        return out
    _compare(run)


def test_legacy_weight_norm_warns_and_matches():
    def run(lib):
        lib.manual_seed(4)
        nn, out = lib.nn, {}
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m = nn.utils.weight_norm(nn.Linear(4, 3))
        out["warnings"] = [(w.category.__name__, str(w.message)) for w in caught]
        out["repr"], out["names"] = repr(m), [n for n, _ in m.named_parameters()]
        out.update({"sd:" + k: v for k, v in m.state_dict().items()})
        (m(lib.randn(2, 4)) ** 2).sum().backward()
        out["w"], out["gg"], out["gv"] = m.weight, m.weight_g.grad, m.weight_v.grad
        out["twice"] = _error(lambda: nn.utils.weight_norm(m))
        nn.utils.remove_weight_norm(m)
        out["removed"] = (repr(m), [n for n, _ in m.named_parameters()])
        out["w_removed"] = m.weight
        out["again"] = _error(lambda: nn.utils.remove_weight_norm(m))
        # the legacy state_dict loads into the parametrization
        old = nn.utils.weight_norm(nn.Linear(3, 2), dim=None)
        new = _pz(lib).weight_norm(nn.Linear(3, 2), dim=None)
        out["load"] = repr(new.load_state_dict(old.state_dict()))
        out["loaded"] = new.weight
        return out
    _compare(run)


def test_legacy_spectral_norm_matches():
    def run(lib):
        lib.manual_seed(5)
        nn, out = lib.nn, {}
        m = nn.utils.spectral_norm(nn.Linear(5, 4))
        sd = m.state_dict()
        out["repr"], out["metadata"] = repr(m), dict(sd._metadata)
        out.update({"sd:" + k: v for k, v in sd.items()})
        for step in range(2):
            (m(lib.randn(2, 5)) ** 2).sum().backward()
        out["w"], out["u"], out["g"] = m.weight, m.weight_u, m.weight_orig.grad
        other = nn.utils.spectral_norm(nn.Linear(5, 4))
        out["load"] = repr(other.load_state_dict(m.state_dict()))
        out["twice"] = _error(lambda: nn.utils.spectral_norm(m))
        nn.utils.remove_spectral_norm(m)
        out["removed"] = (repr(m), list(m.state_dict().keys()))
        out["w_removed"] = m.weight
        out["again"] = _error(lambda: nn.utils.remove_spectral_norm(m))
        return out
    _compare(run)


@pytest.mark.parametrize("kind", ["symmetric", "weight_norm", "spectral_norm", "legacy"])
def test_training_loop(kind):
    def run(lib):
        lib.manual_seed(6)
        nn, out = lib.nn, {}
        model = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 2))
        if kind == "symmetric":
            _p(lib).register_parametrization(model[0], "weight", _classes(lib)["Symmetric"]())
        elif kind == "weight_norm":
            _pz(lib).weight_norm(model[0])
        elif kind == "spectral_norm":
            _pz(lib).spectral_norm(model[2])
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", FutureWarning)
                nn.utils.weight_norm(model[0])
            nn.utils.spectral_norm(model[2])
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        x, y = lib.randn(8, 4), lib.randn(8, 2)
        for step in range(5):
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
            out[f"loss{step}"] = loss
        out.update({"sd:" + k: v for k, v in model.state_dict().items()})
        return out
    _compare(run)


def test_weight_norm_gradcheck():
    from nnref._ops.weight_norm import weight_norm
    for dim in (0, 1, 2, -1):
        v = nnref.randn(3, 4, 2, dtype=nnref.float64, requires_grad=True)
        g = nnref.randn(*([3, 1, 1], [1, 4, 1], [1, 1, 2], [])[dim], dtype=nnref.float64, requires_grad=True)
        assert nnref.autograd.gradcheck(lambda a, b: weight_norm(a, b, dim), (v, g))
