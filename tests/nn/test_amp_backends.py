"""``nnref.amp`` (GradScaler, autocast's disabled form), ``nnref.cuda.amp``'s deprecated spellings,
``nnref.backends`` and the CUDA seeding/memory calls, against PyTorch: each step of a scaled
training run (scales, skipped steps, weights, state_dicts) and every warning and error text."""

import math

import pytest

import nnref
from nn_compare import outcome_and_warnings

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.exact  # bit for bit: run again per CPU capability (tests/capabilities.py)


@pytest.mark.parametrize("expression", [
    "lib.cuda.amp.GradScaler(enabled=False).is_enabled()", "lib.amp.GradScaler('cuda').is_enabled()",
    "lib.amp.GradScaler('cpu', growth_factor=1.0)", "lib.amp.GradScaler('cpu', backoff_factor=1.0)",
    "lib.amp.GradScaler(enabled=False).state_dict()", "lib.amp.GradScaler('cpu').load_state_dict({})",
    "lib.amp.GradScaler('cpu').state_dict()", "lib.amp.GradScaler('cpu').get_scale()",
    "lib.amp.GradScaler(enabled=False).get_scale()", "lib.amp.GradScaler('cpu').scale(3)",
    "lib.autocast('cpu', enabled=False).__enter__() is not None", "type(lib.autocast(device_type='cuda')).__name__",
    "lib.autocast(3)", "lib.cuda.amp.autocast(enabled=False) is not None",
    "lib.amp.autocast('cuda', enabled=False)(lambda: 5)()",
    "(lib.backends.mps.is_available(), lib.backends.mps.is_built(), lib.backends.cudnn.deterministic, "
    "lib.backends.cudnn.benchmark, lib.backends.cudnn.enabled, lib.backends.cudnn.is_available(), "
    "lib.backends.cudnn.version(), lib.backends.cuda.matmul.allow_tf32)",
    "(lib.cuda.memory_allocated(), lib.cuda.empty_cache(), lib.cuda.manual_seed_all(1))",
])
def test_same_results_warnings_and_errors(expression):
    if nnref.cuda.is_available():
        pytest.skip("compares with a CPU-only PyTorch")
    ours = outcome_and_warnings(lambda: eval(expression, {"lib": nnref}))
    theirs = outcome_and_warnings(lambda: eval(expression, {"lib": torch}))
    assert ours == theirs


def test_enabled_autocast_is_refused_with_what_to_do():
    with pytest.raises(NotImplementedError, match="enabled=False"):
        nnref.autocast("cpu", dtype=nnref.bfloat16)


def test_cudnn_flags_keep_what_a_program_sets():
    import nnref.backends.cudnn as cudnn
    saved = (cudnn.deterministic, cudnn.benchmark)
    try:
        cudnn.deterministic, cudnn.benchmark = True, True
        assert nnref.backends.cudnn.deterministic and nnref.backends.cudnn.benchmark
    finally:
        cudnn.deterministic, cudnn.benchmark = saved


def _assert_same(ours, theirs, where="run"):
    """Equal structure, equal decisions (scales, skipped steps, state_dicts, errors, warnings);
    floats within 1e-5 relative or 1e-6 absolute: the two libraries' matrix products add in
    different orders, and which order PyTorch's BLAS takes depends on the CPU (a weight gradient
    near 3e-4, the difference of larger products, moved by 2e-8 between AVX-512 and AVX2)."""
    if isinstance(theirs, float) and isinstance(ours, float):
        assert math.isclose(ours, theirs, rel_tol=1e-5, abs_tol=1e-6), f"{where}: {ours} != {theirs}"
    elif isinstance(theirs, (list, tuple)):
        assert type(ours) is type(theirs) and len(ours) == len(theirs), f"{where}: {ours!r} != {theirs!r}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            _assert_same(a, b, f"{where}[{i}]")
    elif isinstance(theirs, dict):
        assert list(ours) == list(theirs), f"{where}: keys {list(ours)} != {list(theirs)}"
        for key in theirs:
            _assert_same(ours[key], theirs[key], f"{where}[{key!r}]")
    else:
        assert type(ours) is type(theirs) and ours == theirs, f"{where}: {ours!r} != {theirs!r}"


def _scaled_training(lib):
    """Six steps with a CPU GradScaler: growth every 2 clean steps, an overflow at step 3."""
    seen = []
    lib.manual_seed(0)
    model = lib.nn.Linear(3, 1)
    opt = lib.optim.SGD(model.parameters(), lr=0.1)
    scaler = lib.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2)
    x, y = lib.randn(4, 3), lib.randn(4, 1)
    for step in range(6):
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        if step == 3:
            loss = loss * float("inf")
        scaled = scaler.scale(loss)
        seen.append((type(scaled.grad_fn).__name__, scaled.item()))
        scaled.backward()
        if step == 1:
            scaler.unscale_(opt)
            seen.append(outcome_and_warnings(lambda: scaler.unscale_(opt)))
            seen.append(model.weight.grad.tolist())
        seen.append(scaler.step(opt))
        seen.append(outcome_and_warnings(lambda: scaler.step(opt)))
        scaler.update()
        seen.append((scaler.get_scale(), scaler.state_dict(), model.weight.tolist()))
    scaler.update(1024.0)
    resumed = lib.amp.GradScaler("cpu")
    resumed.load_state_dict(scaler.state_dict())
    seen.append((scaler.get_scale(), resumed.state_dict()))
    seen.append(outcome_and_warnings(lambda: lib.amp.GradScaler("cpu").step(opt)))
    return seen


def test_a_scaled_training_run_matches_torch_step_for_step():
    _assert_same(_scaled_training(nnref), _scaled_training(torch))


def test_cuda_seeding_leaves_the_cpu_stream_alone():
    draws = {}
    for lib in (nnref, torch):
        lib.manual_seed(5)
        first = lib.randn(2)
        lib.cuda.manual_seed_all(7)
        lib.cuda.manual_seed(7)
        draws[lib.__name__] = (first.tolist(), lib.randn(2).tolist())
    assert draws["nnref"] == draws["torch"]
    nnref.manual_seed(5)
    assert nnref.randn(2).tolist() == draws["nnref"][0]
    assert nnref.randn(2).tolist() == draws["nnref"][1]
