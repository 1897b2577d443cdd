"""``out=`` on every top-level and ``nn.functional`` function that takes it in PyTorch (``F.gelu``,
``F.linear``... are C++ bindings there): found by asking PyTorch which of nnref's public functions accept ``out=`` for one or two float tensors, then calling nnref's
the same way; the Differences page names the few nnref refuses (pairs of results, ``normal``)."""
import warnings

import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")

DOCUMENTED = {"max", "min", "normal", "conj_physical"}


def _takes_out_in_pytorch(function, args):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            function(*args, out=torch.empty(4))
        return True
    except Exception:  # noqa: BLE001 - any refusal means "not this way"
        return False


@pytest.mark.parametrize("namespace, minimum_checked", [("", 100), ("nn.functional", 5)],
                         ids=["torch", "torch.nn.functional"])
def test_every_function_pytorch_gives_out_has_it(namespace, minimum_checked):
    ours_module, theirs_module = nnref, torch
    for part in filter(None, namespace.split(".")):
        ours_module, theirs_module = getattr(ours_module, part), getattr(theirs_module, part)
    x = torch.rand(4) + 0.5
    checked, refused = 0, []
    for name in sorted(dir(ours_module)):
        ours, theirs = getattr(ours_module, name), getattr(theirs_module, name, None)
        if name.startswith("_") or isinstance(ours, type) or not callable(ours) or theirs is None:
            continue
        args = next((a for a in ((x,), (x, x)) if _takes_out_in_pytorch(theirs, a)), None)
        if args is None:
            continue
        expected = torch.empty(4)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs(*args, out=expected)
            out = nnref.empty(4)
            try:
                returned = ours(*[nnref.tensor(a.numpy()) for a in args], out=out)
            except TypeError as error:
                if "out" in str(error):
                    refused.append(name)
                    continue
                raise
        assert returned is out, name
        np.testing.assert_allclose(out.numpy().astype(float), expected.numpy().astype(float),
                                   rtol=1e-6, err_msg=name)
        checked += 1
    assert set(refused) <= DOCUMENTED, sorted(set(refused) - DOCUMENTED)
    assert checked > minimum_checked


def test_every_in_place_method_beside_an_out_of_place_one_exists():
    names = [n for n in dir(torch.Tensor) if n.endswith("_") and not n.startswith("_")
             and hasattr(nnref.Tensor, n[:-1])]
    assert len(names) > 100
    assert [n for n in names if not hasattr(nnref.Tensor, n)] == ["conj_physical_"]


@pytest.mark.parametrize("call", ["unsqueeze_(0)", "squeeze_()", "t_()", "transpose_(0, 1)",
                                  "swapaxes_(1, 0)", "swapdims_(0, 1)", "sign_()", "round_()",
                                  "clip_(-1, 1)", "cumsum_(0)", "hypot_(other)", "addmm_(a, b)"])
def test_in_place_methods_change_the_tensor_as_pytorch(call):
    data = np.array([[-1.5, 0.25, 3.0], [2.5, -0.0, 0.5]], dtype=np.float32)
    results = []
    for lib in (torch, nnref):
        x = lib.tensor(data.reshape(2, 3) if "t_" not in call else data[:, :2])
        view = x[0]
        env = {"x": x, "other": lib.ones_like(x), "a": lib.ones(x.shape[0], 4), "b": lib.ones(4, x.shape[1])}
        returned = eval(f"x.{call}", env)  # noqa: S307 - the calls listed above
        results.append((returned is x, tuple(x.shape), x.numpy().copy(), view.numpy().copy()))
    (same_t, shape_t, values_t, view_t), (same_n, shape_n, values_n, view_n) = results
    assert same_t and same_n and shape_n == shape_t
    np.testing.assert_array_equal(values_n, values_t)
    np.testing.assert_array_equal(view_n, view_t)
