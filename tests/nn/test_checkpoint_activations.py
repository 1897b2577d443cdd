"""``nnref.utils.checkpoint`` against ``torch.utils.checkpoint``: both variants give PyTorch's
node names, outputs, input and parameter gradients, the same random stream afterwards (the
recomputation replays the forward's dropout mask), and PyTorch's warnings and errors."""
import importlib

import pytest

import nnref
from nn_compare import outcome_and_warnings

torch = pytest.importorskip("torch")




def _rounded(values):
    return [round(v, 5) for v in values]


def _checkpointed_block(lib, reentrant):
    cp = importlib.import_module(lib.__name__ + ".utils.checkpoint")
    nn = lib.nn
    lib.manual_seed(0)
    block = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.3), nn.Linear(8, 2))
    x = lib.randn(3, 4, requires_grad=True)
    options = {} if reentrant is None else {"use_reentrant": reentrant}
    y, warned = outcome_and_warnings(lambda: cp.checkpoint(block, x, **options))
    y.pow(2).sum().backward()
    after = lib.rand(1).item()
    z, warned_sequential = outcome_and_warnings(lambda: cp.checkpoint_sequential(block, 2, x, **options))
    return [type(y.grad_fn).__name__, _rounded(y.flatten().tolist()), warned, _rounded(x.grad.flatten().tolist()),
            _rounded(block[0].weight.grad.flatten().tolist()), round(after, 6), type(z.grad_fn).__name__,
            _rounded(z.flatten().tolist()), warned_sequential]


@pytest.mark.parametrize("reentrant", [None, True, False])
def test_checkpointed_block_matches_torch(reentrant):
    assert _checkpointed_block(nnref, reentrant) == _checkpointed_block(torch, reentrant)


@pytest.mark.parametrize("expression", [
    "cp.checkpoint(lambda t: t * 2, lib.ones(2), use_reentrant=True).requires_grad",
    "cp.checkpoint(lambda t: t * 2, lib.ones(2), use_reentrant=True, foo=1)",
    "cp.checkpoint(lambda t: t * 2, lib.ones(2), use_reentrant=True, debug=True)",
    "cp.checkpoint_sequential([lambda t: t + 1], 1, lib.ones(2), use_reentrant=True, foo=2)",
    "cp.detach_variable([lib.ones(1)])",
    "cp.checkpoint(lambda t, k: t * k, lib.ones(2, requires_grad=True), k=3, use_reentrant=False).tolist()",
])
def test_warnings_and_errors_match_torch(expression):
    def run(lib):
        cp = importlib.import_module(lib.__name__ + ".utils.checkpoint")
        return outcome_and_warnings(lambda: eval(expression, {"lib": lib, "cp": cp}))
    assert run(nnref) == run(torch)
