"""Module-level API the tutorials use: ``Sequential * n`` and ``+``, the global registration
hooks, and the device API (``torch.accelerator``, default device), against PyTorch."""
import pytest

import nnref

torch = pytest.importorskip("torch")


def _structure(lib):
    block = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.ReLU())
    tripled = block * 3
    left = 2 * block
    joined = block + lib.nn.Sequential(lib.nn.Tanh())
    grown = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.ReLU())
    grown *= 2
    return block, tripled, left, joined, grown


def test_sequential_repetition_and_concatenation_match_pytorch():
    ours, theirs = _structure(nnref), _structure(torch)
    for a, b in zip(ours, theirs):
        assert repr(a) == repr(b)
    block, tripled = ours[0], ours[1]
    assert tripled[0] is block[0] and tripled[2] is block[0]  # the same modules, shared weights
    assert len(list(tripled.parameters())) == 2  # parameters() deduplicates shared ones
    assert ours[4][2] is ours[4][0]


@pytest.mark.parametrize("factor, error", [(0, ValueError), (-1, ValueError), (1.5, TypeError)])
def test_sequential_bad_factor_raises_pytorchs_error(factor, error):
    with pytest.raises(error):
        torch.nn.Sequential(torch.nn.ReLU()) * factor
    with pytest.raises(error, match="multiplication factor|unsupported operand"):
        nnref.nn.Sequential(nnref.nn.ReLU()) * factor


def _registrations(lib):
    seen = []
    module_hooks = lib.nn.modules.module
    handles = [
        module_hooks.register_module_module_registration_hook(
            lambda m, name, value: seen.append(("module", type(m).__name__, name, type(value).__name__))),
        module_hooks.register_module_parameter_registration_hook(
            lambda m, name, value: seen.append(("parameter", type(m).__name__, name, tuple(value.shape)))),
        module_hooks.register_module_buffer_registration_hook(
            lambda m, name, value: seen.append(("buffer", type(m).__name__, name, tuple(value.shape)))),
    ]
    try:
        model = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.BatchNorm1d(2))
        model.extra = lib.nn.ReLU()
        model.register_buffer("scale", lib.ones(1))
    finally:
        for handle in handles:
            handle.remove()
    lib.nn.Linear(1, 1)  # removed hooks no longer run
    return seen


def test_global_registration_hooks_see_what_pytorchs_see():
    ours, theirs = _registrations(nnref), _registrations(torch)
    assert ours == theirs
    assert {kind for kind, *_ in ours} == {"module", "parameter", "buffer"}


def test_registration_hook_may_replace_the_value():
    replacements = []

    def swap(module, name, value):
        if name == "bias":
            replacements.append(nnref.nn.Parameter(nnref.zeros(value.shape)))
            return replacements[-1]
        return None
    handle = nnref.nn.modules.module.register_module_parameter_registration_hook(swap)
    try:
        layer = nnref.nn.Linear(2, 3)
    finally:
        handle.remove()
    assert layer.bias is replacements[0]


def test_accelerator_answers_as_pytorch_on_a_cpu_machine():
    if nnref.cuda.is_available():
        pytest.skip("this machine has a GPU")
    assert nnref.accelerator.is_available() is torch.accelerator.is_available() is False
    assert nnref.accelerator.device_count() == torch.accelerator.device_count() == 0
    assert nnref.accelerator.current_accelerator(check_available=True) is None
    with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is available"):
        nnref.accelerator.current_device_index()
    # The tutorials' device line:
    device = (nnref.accelerator.current_accelerator().type if nnref.accelerator.is_available()
              else "cpu")
    assert nnref.zeros(2, device=device).device == nnref.device("cpu")


def test_default_device_round_trip():
    assert nnref.get_default_device() == nnref.device("cpu")
    nnref.set_default_device("cpu")
    try:
        assert nnref.get_default_device() == nnref.device("cpu")
        assert nnref.ones(2).device.type == "cpu"
    finally:
        nnref.set_default_device(None)
    assert repr(nnref.get_default_device()) == repr(torch.get_default_device()).replace("torch", "nnref")
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        nnref.set_default_device("tpu")


def test_pytorch_only_device_is_refused_clearly():
    with pytest.raises(RuntimeError, match="PyTorch's 'mps' device is not part of nnref"):
        nnref.empty(2, 3, device="mps")
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda, meta device type"):
        nnref.device("mps")
