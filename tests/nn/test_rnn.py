"""nn.RNN, nn.LSTM and nn.GRU against PyTorch: parameter names, order and initial values after the
same seed, outputs, final states and gradients, reprs, errors and warnings."""
import warnings

import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.exact  # bit for bit: run again per CPU capability (tests/capabilities.py)

CONFIGS = [("LSTM", {}), ("GRU", {}), ("RNN", {}), ("RNN", {"nonlinearity": "relu"}),
           ("LSTM", {"num_layers": 2, "batch_first": True}), ("GRU", {"bidirectional": True}),
           ("LSTM", {"bidirectional": True, "num_layers": 2}), ("RNN", {"bias": False, "batch_first": True}),
           ("GRU", {"num_layers": 3, "bidirectional": True, "batch_first": True})]


def run(m, cls, kwargs, x_values, hx=None):
    m.manual_seed(0)
    module = getattr(m.nn, cls)(3, 4, **kwargs)
    state = {k: v.numpy().copy() for k, v in module.state_dict().items()}
    x = m.tensor(x_values, dtype=m.float32, requires_grad=True)
    out, h = module(x) if hx is None else module(x, hx(m))
    finals = list(h) if isinstance(h, tuple) else [h]
    (out.pow(2).sum() + sum(f.sum() for f in finals)).backward()
    return {"repr": repr(module), "state": state, "out": out.detach().numpy(), "finals": [f.detach().numpy() for f in finals],
            "x_grad": x.grad.numpy(), "grads": [p.grad.numpy() for p in module.parameters()],
            "final_node": type(finals[0].grad_fn).__name__}


@pytest.mark.parametrize("cls, kwargs", CONFIGS, ids=[f"{c}-{'-'.join(f'{k}={v}' for k, v in kw.items())}" for c, kw in CONFIGS])
def test_matches_pytorch(cls, kwargs):
    x_values = np.random.default_rng(0).standard_normal((5, 2, 3))
    theirs, ours = run(torch, cls, kwargs, x_values), run(nnref, cls, kwargs, x_values)
    assert ours["repr"] == theirs["repr"]
    assert list(ours["state"]) == list(theirs["state"])
    for key in theirs["state"]:  # the same initial weights, bit for bit, after manual_seed
        np.testing.assert_array_equal(ours["state"][key], theirs["state"][key], err_msg=key)
    np.testing.assert_allclose(ours["out"], theirs["out"], atol=2e-6)
    for a, b in zip(ours["finals"], theirs["finals"]):
        np.testing.assert_allclose(a, b, atol=2e-6)
    np.testing.assert_allclose(ours["x_grad"], theirs["x_grad"], atol=2e-5)
    for a, b in zip(ours["grads"], theirs["grads"]):
        np.testing.assert_allclose(a, b, atol=2e-5)
    assert ours["final_node"] == theirs["final_node"] == "StackBackward0"


def test_unbatched_input_with_given_states():
    x_values = np.random.default_rng(1).standard_normal((4, 3))
    states = lambda m: (m.ones(1, 4) * 0.1, m.ones(1, 4) * -0.2)  # noqa: E731
    theirs, ours = run(torch, "LSTM", {}, x_values, states), run(nnref, "LSTM", {}, x_values, states)
    assert ours["out"].shape == theirs["out"].shape == (4, 4)
    np.testing.assert_allclose(ours["out"], theirs["out"], atol=2e-6)
    np.testing.assert_allclose(ours["finals"][1], theirs["finals"][1], atol=2e-6)


@pytest.mark.parametrize("call", [
    lambda m: m.nn.LSTM(3, 4)(m.zeros(2, 2, 2, 3)), lambda m: m.nn.GRU(3, 4)(m.zeros(5, 2, 2)),
    lambda m: m.nn.GRU(3, 4)(m.zeros(5, 2, 3), m.zeros(1, 3, 4)), lambda m: m.nn.RNN(3, 4, nonlinearity="gelu"),
    lambda m: m.nn.LSTM(3, 4, dropout=1.5), lambda m: m.nn.GRU(3, 0), lambda m: m.nn.RNN(3, 4)(m.zeros(5, 3), m.zeros(1, 1, 4)),
])
def test_errors_are_pytorchs(call):
    def outcome(m):
        try:
            call(m)
        except Exception as exc:
            return type(exc).__name__, str(exc)
        return None
    assert outcome(nnref) == outcome(torch)


def test_dropout_with_one_layer_warns():
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nnref.nn.LSTM(3, 4, dropout=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        nnref.nn.LSTM(3, 4, num_layers=2, dropout=0.5)


def test_projections_are_refused_with_a_way_out():
    with pytest.raises(NotImplementedError, match="proj_size"):
        nnref.nn.LSTM(3, 4, proj_size=2)


def test_a_state_dict_moves_between_the_libraries():
    theirs = torch.nn.GRU(3, 4, num_layers=2, bidirectional=True)
    ours = nnref.nn.GRU(3, 4, num_layers=2, bidirectional=True)
    ours.load_state_dict({k: nnref.tensor(v.numpy()) for k, v in theirs.state_dict().items()})
    x = np.random.default_rng(2).standard_normal((6, 1, 3)).astype(np.float32)
    np.testing.assert_allclose(ours(nnref.tensor(x))[0].detach().numpy(), theirs(torch.tensor(x))[0].detach().numpy(),
                               atol=2e-6)
