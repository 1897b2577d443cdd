"""``nnref.compile`` against ``torch.compile``: the wrapper a program sees (type, repr, state_dict
keys, attribute pass-through, training mode, options and their errors) is PyTorch's, and the
compiled module computes what the module computes.  PyTorch's calls use ``backend="eager"``
where a call is made, so the test needs no C compiler."""
import subprocess
import sys

import pytest

import nnref

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _distribution_validation_restored():
    """The first compilation turns distributions' argument checks off for the whole process, in
    PyTorch (``TorchPatcher.patch``) and so in nnref: later tests get back the default they had."""
    before = [lib.distributions.Distribution._validate_args for lib in (nnref, torch)]
    yield
    for lib, value in zip((nnref, torch), before):
        lib.distributions.Distribution.set_default_validate_args(value)


def _model(lib):
    lib.manual_seed(0)
    nn = lib.nn
    return nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Dropout(0.5), nn.Linear(3, 1))


def _outcome(call):
    try:
        return ("ok", str(call()))
    except Exception as exc:
        return (type(exc).__name__, str(exc))


def test_what_a_program_sees_of_a_compiled_module():
    seen = {}
    for lib in (nnref, torch):
        model = _model(lib)
        compiled = lib.compile(model)
        compiled.eval()
        mode_after_eval = (compiled.training, model.training, model[2].training)
        compiled.train()
        compiled.note = "set through the wrapper"
        seen[lib.__name__] = [
            type(compiled).__name__, repr(compiled), list(compiled.state_dict()),
            [name for name, _ in compiled.named_parameters()], [name for name, _ in compiled.named_modules()],
            compiled._orig_mod is model, compiled.training, mode_after_eval, model.note, len(compiled),
            str(compiled._orig_mod[0]),
            _outcome(lambda: compiled.load_state_dict(model.state_dict())),
            str(compiled.load_state_dict(compiled.state_dict())), lib.compile(model, disable=True) is model,
            lib.compiler.is_compiling(),
        ]
    assert seen["nnref"] == seen["torch"]


@pytest.mark.parametrize("options", [
    {"mode": "fast"}, {"mode": "default", "options": {}}, {"backend": "nope"}, {"mode": "reduce-overhead"},
    {"mode": "max-autotune"}, {"backend": "eager"}, {"backend": "aot_eager"}, {"fullgraph": True, "dynamic": True},
])
def test_options_and_their_errors(options):
    ours = _outcome(lambda: type(nnref.compile(_model(nnref), **options)).__name__)
    theirs = _outcome(lambda: type(torch.compile(_model(torch), **options)).__name__)
    assert ours == theirs


def test_a_non_callable_is_refused_as_in_torch():
    assert _outcome(lambda: nnref.compile(3)) == _outcome(lambda: torch.compile(3))


def test_a_custom_backend_is_refused_with_the_reason():
    with pytest.raises(NotImplementedError, match="FX graph"):
        nnref.compile(_model(nnref), backend=lambda graph, inputs: graph)


def test_compiled_modules_and_functions_compute_the_eager_results():
    x = [[0.5, -1.0], [2.0, 0.25]]
    results = {}
    for lib in (nnref, torch):
        model = _model(lib).eval()
        compiled = lib.compile(model, backend="eager")
        out = compiled(lib.tensor(x))
        out.sum().backward()

        @lib.compile(backend="eager")
        def double(t):
            return t * 2

        results[lib.__name__] = (out.detach().numpy().round(6).tolist(), model[0].weight.grad.numpy().round(6).tolist(),
                                 double.__name__, double(lib.ones(2)).tolist(),
                                 lib.compile(fullgraph=True, backend="eager")(lambda t: t + 1)(lib.ones(1)).tolist())
    assert results["nnref"] == results["torch"]


def test_hooks_on_the_wrapper_and_on_the_model_run_when_registered_before_the_first_call():
    calls = {}
    for lib in (nnref, torch):
        model, log = _model(lib), []
        model.register_forward_hook(lambda mod, args, out, log=log: log.append("model"))
        compiled = lib.compile(model, backend="eager")
        compiled.register_forward_hook(lambda mod, args, out, log=log: log.append("wrapper"))
        compiled(lib.ones(1, 2))
        calls[lib.__name__] = log
    assert calls["nnref"] == calls["torch"] == ["model", "wrapper"]


def test_an_optimizer_over_the_compiled_module_trains_the_model():
    model = _model(nnref)
    compiled = nnref.compile(model)
    opt = nnref.optim.SGD(compiled.parameters(), lr=0.1)
    before = model[0].weight.detach().clone()
    compiled(nnref.ones(4, 2)).sum().backward()
    opt.step()
    assert not nnref.equal(before, model[0].weight.detach())


_VALIDATION_STEPS = """
import sys
lib = __import__(sys.argv[1])
model = lib.nn.Linear(2, 1)
seen = []
for call in (lambda: lib.compile(model, disable=True), lambda: lib.compile(model, mode="no such mode"),
             lambda: lib.compile(fullgraph=True), lambda: lib.compile(3, backend="eager"),
             lambda: lib.distributions.Distribution.set_default_validate_args(True),
             lambda: lib.compile(model, backend="eager")):
    try:
        call()
        kind = "ok"
    except Exception as error:
        kind = type(error).__name__
    seen.append((kind, lib.distributions.Distribution._validate_args))
print(seen)
"""


def test_compiling_turns_distribution_argument_checks_off_once_as_pytorch_does():
    """Refused options and ``disable=True`` leave the checks on; the first compilation set up,
    even of something then refused as not callable, turns them off, and only the first."""
    def steps(name):
        return subprocess.run([sys.executable, "-c", _VALIDATION_STEPS, name], capture_output=True,
                              text=True, check=True).stdout
    assert steps("nnref") == steps("torch")
