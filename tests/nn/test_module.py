"""nn.Module against PyTorch: registration, attribute routing, errors, iteration, modes, conversion.

Each test builds the same thing with nnref and with PyTorch (``run_both``) and
compares names, order, flags, printed text and exception types.
"""
import copy
from collections import OrderedDict

import numpy as np
import pytest

import nnref
from module_helpers import copy_state, normalise, printed, raised, run_both, values

torch = pytest.importorskip("torch")
nn_ref = nnref.nn


def build_net(torch, nn):
    """A small nested model with a shared child, a buffer, a non-persistent buffer and a None parameter."""

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 3)
            self.register_buffer("running", torch.zeros(3))
            self.register_buffer("scratch", torch.ones(1), persistent=False)
            self.register_parameter("unused", None)

        def forward(self, x):
            return self.fc(x) + self.running

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = nn.Parameter(torch.tensor(2.0))
            self.block1 = Block()
            self.block2 = Block()
            self.head = nn.Sequential(nn.Linear(3, 2), nn.Identity())
            self.again = self.block1  # the same module under a second name

        def forward(self, x):
            return self.head(self.block2(self.block1(x)) * self.scale)

    return Net()


# -- construction and attribute routing --------------------------------------------------------------
def test_init_creates_the_same_bookkeeping_attributes():
    a, b = run_both(lambda torch, nn: list(vars(nn.Module()).keys()), torch)
    assert a == b
    assert a[:4] == ["training", "_parameters", "_buffers", "_non_persistent_buffers_set"]


def test_attribute_assignment_routes_into_the_right_dict():
    def routing(torch, nn):
        m = nn.Module()
        m.w = nn.Parameter(torch.ones(2))
        m.child = nn.Linear(1, 1)
        m.register_buffer("buf", torch.zeros(1))
        m.plain = torch.ones(1)  # a plain tensor is a plain attribute
        m.buf = torch.ones(3)  # re-assigning a buffer name keeps it a buffer
        m.w = None  # None keeps the parameter slot
        m.child = None
        snapshot = [sorted(m._parameters), sorted(m._buffers), sorted(m._modules), "plain" in vars(m),
                    m.w is None, list(m.buf.shape)]
        m.buf = nn.Parameter(torch.ones(1))  # a Parameter takes the name over from the buffer
        del m.child
        snapshot += [sorted(m._parameters), sorted(m._buffers), sorted(m._modules)]
        return snapshot

    a, b = run_both(routing, torch)
    assert a == b


def test_getattr_finds_parameters_buffers_and_children():
    m = nn_ref.Linear(2, 3)
    assert m.weight is m._parameters["weight"]
    with pytest.raises(AttributeError, match="'Linear' object has no attribute 'nope'"):
        m.nope


@pytest.mark.parametrize("case", [
    "tensor_as_parameter", "int_as_parameter", "tensor_as_child", "string_as_buffer",
    "dotted_buffer", "empty_buffer", "buffer_name_taken", "buffer_not_tensor", "buffer_name_not_str",
    "dotted_parameter", "empty_parameter", "non_parameter_registered", "non_leaf_parameter",
    "add_module_int", "add_module_tensor", "dotted_module", "empty_module_name", "module_name_taken",
    "submodule_missing", "submodule_not_module", "parameter_missing", "not_a_parameter",
    "buffer_missing", "not_a_buffer", "to_int_dtype", "to_bad_argument", "train_not_bool",
    "forward_missing", "init_args", "init_kwargs", "parameter_before_init", "module_before_init",
    "buffer_before_init", "register_parameter_before_init",
])
def test_bad_input_raises_like_pytorch(case):
    def attempt(torch, nn):
        m = nn.Sequential(OrderedDict(a=nn.Sequential(OrderedDict(b=nn.Linear(2, 2)))))
        lin = m.a.b

        class Early(nn.Module):
            def __init__(self, what):
                if what == "parameter":
                    self.p = nn.Parameter(torch.ones(1))
                elif what == "module":
                    self.c = nn.Linear(1, 1)
                elif what == "buffer":
                    self.register_buffer("b", torch.ones(1))
                else:
                    self.register_parameter("p", None)
                super().__init__()

        actions = {
            "tensor_as_parameter": lambda: setattr(lin, "weight", torch.ones(2, 2)),
            "int_as_parameter": lambda: setattr(lin, "weight", 3),
            "tensor_as_child": lambda: setattr(m, "a", torch.ones(1)),
            "string_as_buffer": (lambda: (lin.register_buffer("buf", torch.ones(1)),
                                          setattr(lin, "buf", "text"))),
            "dotted_buffer": lambda: lin.register_buffer("a.b", torch.ones(1)),
            "empty_buffer": lambda: lin.register_buffer("", torch.ones(1)),
            "buffer_name_taken": lambda: lin.register_buffer("weight", torch.ones(1)),
            "buffer_not_tensor": lambda: lin.register_buffer("buf", [1.0]),
            "buffer_name_not_str": lambda: lin.register_buffer(3, torch.ones(1)),
            "dotted_parameter": lambda: lin.register_parameter("a.b", None),
            "empty_parameter": lambda: lin.register_parameter("", None),
            "non_parameter_registered": lambda: lin.register_parameter("p", torch.ones(1)),
            "non_leaf_parameter": lambda: lin.register_parameter("p", _non_leaf_parameter(torch, nn)),
            "add_module_int": lambda: m.add_module("x", 3),
            "add_module_tensor": lambda: m.add_module("x", torch.ones(1)),
            "dotted_module": lambda: m.add_module("x.y", nn.Linear(1, 1)),
            "empty_module_name": lambda: m.add_module("", nn.Linear(1, 1)),
            "module_name_taken": lambda: (setattr(m, "flag", 1), m.add_module("flag", nn.Linear(1, 1))),
            "submodule_missing": lambda: m.get_submodule("a.c.d"),
            "submodule_not_module": lambda: m.get_submodule("a.b.weight"),
            "parameter_missing": lambda: m.get_parameter("a.b.gamma"),
            "not_a_parameter": lambda: (lin.register_buffer("buf", torch.ones(1)),
                                        m.get_parameter("a.b.buf")),
            "buffer_missing": lambda: m.get_buffer("a.b.running"),
            "not_a_buffer": lambda: m.get_buffer("a.b.weight"),
            "to_int_dtype": lambda: m.to(torch.int64),
            "to_bad_argument": lambda: m.to([1]),
            "train_not_bool": lambda: m.train("yes"),
            "forward_missing": lambda: nn.Module()(torch.ones(1)),
            "init_args": lambda: nn.Module(3),
            "init_kwargs": lambda: nn.Module(size=3),
            "parameter_before_init": lambda: Early("parameter"),
            "module_before_init": lambda: Early("module"),
            "buffer_before_init": lambda: Early("buffer"),
            "register_parameter_before_init": lambda: Early("other"),
        }
        return raised(actions[case])

    ours, theirs = run_both(attempt, torch)
    assert theirs is not None
    if case == "to_bad_argument":  # PyTorch's overload listing is not reproduced, only the type
        assert ours[0] == theirs[0]
    else:
        assert ours == theirs


def _non_leaf_parameter(torch, nn):
    """A Parameter that became the output of a recorded in-place op, so it has a grad_fn."""
    p = nn.Parameter(torch.ones(1), requires_grad=False)
    p.copy_(torch.ones(1, requires_grad=True) * 1)
    return p


def test_linear_wrong_input_shape_raises_runtime_error_naming_the_layer():
    x = np.ones((4, 5), dtype=np.float32)
    theirs = raised(lambda: torch.nn.Linear(3, 2)(torch.from_numpy(x)))
    with pytest.raises(RuntimeError) as info:
        nn_ref.Linear(3, 2)(nnref.from_numpy(x))
    assert theirs[0] == "RuntimeError"
    message = str(info.value)
    assert "Linear(in_features=3, out_features=2, bias=True)" in message
    assert "(*, 3)" in message and "[4, 5]" in message
    with pytest.raises(TypeError):
        nn_ref.Linear(3, 2)([1.0, 2.0, 3.0])


# -- Parameter ------------------------------------------------------------------------------------------
def test_parameter_repr_leaf_and_shared_memory():
    def make(torch, nn):
        data = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
        p = nn.Parameter(data)
        q = nn.Parameter(torch.ones(2), requires_grad=False)
        data.add_(10.0)  # Parameter shares memory with the tensor it was made from
        return [repr(p), repr(q), p.is_leaf, p.requires_grad, q.requires_grad, p[0, 0].item(),
                isinstance(p, torch.Tensor), list(nn.Parameter().shape), repr(p.detach())]

    ours, theirs = run_both(make, torch)
    assert normalise(ours) == normalise(theirs)


def test_parameter_from_a_non_leaf_is_a_new_leaf():
    x = nnref.ones(2, requires_grad=True)
    p = nn_ref.Parameter(x * 3)
    assert p.is_leaf and p.grad_fn is None and p.requires_grad
    (p * p).sum().backward()
    assert x.grad is None and p.grad.tolist() == [6.0, 6.0]


def test_parameter_deepcopy_copies_values():
    p = nn_ref.Parameter(nnref.ones(2))
    q = copy.deepcopy(p)
    assert type(q) is nn_ref.Parameter and q is not p and q.requires_grad
    with nnref.no_grad():
        q.add_(1)
    assert p.tolist() == [1.0, 1.0]


def test_integer_parameter_cannot_require_grad():
    a = raised(lambda: nn_ref.Parameter(nnref.tensor([1, 2])))
    b = raised(lambda: torch.nn.Parameter(torch.tensor([1, 2])))
    assert a[0] == b[0] == "RuntimeError"
    assert nn_ref.Parameter(nnref.tensor([1, 2]), requires_grad=False).dtype is nnref.int64


# -- walking the tree -----------------------------------------------------------------------------------
def test_named_iterators_match_pytorch():
    def names(torch, nn):
        net = build_net(torch, nn)
        return {
            "named_modules": [n for n, _ in net.named_modules()],
            "named_modules_dup": [n for n, _ in net.named_modules(remove_duplicate=False)],
            "named_modules_prefix": [n for n, _ in net.named_modules(prefix="model")],
            "modules": [type(m).__name__ for m in net.modules()],
            "named_children": [n for n, _ in net.named_children()],
            "children": [type(m).__name__ for m in net.children()],
            "named_parameters": [(n, list(p.shape)) for n, p in net.named_parameters()],
            "named_parameters_dup": [n for n, _ in net.named_parameters(remove_duplicate=False)],
            "named_parameters_prefix": [n for n, _ in net.named_parameters(prefix="net")],
            "named_parameters_local": [n for n, _ in net.named_parameters(recurse=False)],
            "parameters": [list(p.shape) for p in net.parameters()],
            "named_buffers": [n for n, _ in net.named_buffers()],
            "named_buffers_dup": [n for n, _ in net.named_buffers(remove_duplicate=False)],
            "buffers_local": [list(b.shape) for b in net.block1.buffers(recurse=False)],
            "state_dict": list(net.state_dict().keys()),
        }

    ours, theirs = run_both(names, torch)
    assert ours == theirs


def test_shared_parameter_is_listed_once_under_its_first_name():
    def shared(torch, nn):
        a, b = nn.Linear(2, 2), nn.Linear(2, 2)
        b.weight = a.weight
        seq = nn.Sequential(a, b, a)
        return ([n for n, _ in seq.named_parameters()], len(list(seq.parameters())),
                [n for n, _ in seq.named_modules()], [n for n, _ in seq.named_children()],
                [n for n, _ in seq.named_modules(remove_duplicate=False)])

    ours, theirs = run_both(shared, torch)
    assert ours == theirs


def test_named_modules_memo_argument():
    def with_memo(torch, nn):
        net = build_net(torch, nn)
        memo = {net.block1}
        return [n for n, _ in net.named_modules(memo=memo)], len(memo)

    ours, theirs = run_both(with_memo, torch)
    assert ours == theirs


def test_get_submodule_parameter_buffer():
    net = build_net(nnref, nn_ref)
    assert net.get_submodule("") is net
    assert net.get_submodule("head.0") is net.head[0]
    assert net.get_parameter("block1.fc.weight") is net.block1.fc.weight
    assert net.get_parameter("scale") is net.scale
    assert net.get_buffer("block2.running") is net.block2.running
    with pytest.raises(AttributeError, match="Block has no attribute `nope`"):
        net.get_submodule("block1.nope.fc")


def test_dir_lists_members_but_not_numbered_children():
    seq = nn_ref.Sequential(nn_ref.Linear(1, 1))
    net = build_net(nnref, nn_ref)
    listing = dir(net)
    assert {"block1", "head", "scale", "forward", "training"} <= set(listing)
    assert "running" in dir(net.block1)
    assert "0" not in dir(seq)
    assert listing == sorted(listing)


# -- printing -------------------------------------------------------------------------------------------
def test_print_model_matches_pytorch():
    def text(torch, nn):
        class Custom(nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = nn.Linear(4, 5, bias=False)

            def extra_repr(self):
                return "first line\nsecond line"

        class Single(nn.Module):
            def extra_repr(self):
                return "just=1"

        net = build_net(torch, nn)
        net.custom = Custom()
        net.single = Single()
        net.empty = nn.Module()
        net.nothing = None
        return repr(net)

    ours, theirs = run_both(text, torch)
    assert normalise(ours) == normalise(theirs)


# -- apply, modes, gradients ------------------------------------------------------------------------
def test_apply_visits_children_first_then_self():
    def visit(torch, nn):
        seen = []

        @torch.no_grad()
        def init_weights(m):
            seen.append(type(m).__name__)
            if type(m) is nn.Linear:
                m.weight.fill_(1.0)
                m.bias.fill_(0.5)

        net = nn.Sequential(nn.Linear(2, 2), nn.Sequential(nn.Linear(2, 1), nn.Identity()))
        returned = net.apply(init_weights)
        return seen, returned is net, values(net(torch.ones(1, 2)))

    ours, theirs = run_both(visit, torch)
    assert ours == theirs


def test_train_eval_set_flags_recursively():
    def flags(torch, nn):
        net = build_net(torch, nn)
        out = [[m.training for m in net.modules()]]
        assert net.eval() is net
        out.append([m.training for m in net.modules()])
        net.block2.train()
        out.append([m.training for m in net.modules()])
        net.train(False)
        out.append([m.training for m in net.modules()])
        return out

    ours, theirs = run_both(flags, torch)
    assert ours == theirs


def test_requires_grad_freezes_and_unfreezes():
    def freeze(torch, nn):
        net = build_net(torch, nn)
        assert net.block1.requires_grad_(False) is net.block1
        out = [(n, p.requires_grad) for n, p in net.named_parameters()]
        net.requires_grad_()
        return out, [p.requires_grad for p in net.parameters()]

    ours, theirs = run_both(freeze, torch)
    assert ours == theirs


@pytest.mark.parametrize("set_to_none", [True, False])
def test_zero_grad(set_to_none):
    def grads(torch, nn):
        net = build_net(torch, nn)
        net(torch.ones(4, 3)).sum().backward()
        before = {n: p.grad for n, p in net.named_parameters()}
        net.zero_grad(set_to_none=set_to_none)
        after = {n: values(p.grad) for n, p in net.named_parameters()}
        kept = [p.grad is before[n] for n, p in net.named_parameters()]
        return after, kept

    ours, theirs = run_both(grads, torch)
    assert ours == theirs


def test_zero_grad_on_a_replica_warns_and_replica_has_no_parameters():
    net = build_net(nnref, nn_ref)
    replica = net._replicate_for_data_parallel()
    assert replica._parameters == {} and replica._modules == net._modules
    assert replica._modules is not net._modules and replica._buffers is not net._buffers
    with pytest.warns(UserWarning, match="DataParallel"):
        replica.zero_grad()


# -- conversions ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("convert", ["double", "to_dtype", "to_device_dtype", "to_kwargs", "to_tensor",
                                     "half", "bfloat16", "float", "type"])
def test_conversion_keeps_parameter_identity_and_converts_grads(convert):
    def run(torch, nn):
        net = build_net(torch, nn)
        net.register_buffer("count", torch.tensor(3))  # an integer buffer keeps its dtype
        net(torch.ones(2, 3)).sum().backward()
        params = list(net.parameters())  # what an optimizer would hold
        action = {
            "double": lambda: net.double(),
            "to_dtype": lambda: net.to(torch.float64),
            "to_device_dtype": lambda: net.to("cpu", torch.float16),
            "to_kwargs": lambda: net.to(device="cpu", dtype=torch.float64, non_blocking=False),
            "to_tensor": lambda: net.to(torch.zeros(1, dtype=torch.float64)),
            "half": lambda: net.half(),
            "bfloat16": lambda: net.bfloat16(),
            "float": lambda: net.double().float(),
            "type": lambda: net.type(torch.float64),
        }[convert]
        assert action() is net
        same = [a is b for a, b in zip(params, net.parameters())]
        dtypes = [str(p.dtype) for p in net.parameters()]
        grad_dtypes = [str(p.grad.dtype) for p in net.parameters()]
        buffers = [(n, str(b.dtype)) for n, b in net.named_buffers()]
        leaves = [p.is_leaf and p.requires_grad for p in net.parameters()]
        return same, normalise(dtypes), normalise(grad_dtypes), normalise(buffers), leaves

    ours, theirs = run_both(run, torch)
    assert ours == theirs
    assert all(ours[0])


def test_model_still_trains_after_double():
    net = nn_ref.Linear(2, 1)
    params = list(net.parameters())
    net.double()
    out = net(nnref.ones(3, 2, dtype=nnref.float64)).sum()
    out.backward()
    assert all(p.grad is not None and p.grad.dtype is nnref.float64 for p in params)


def test_to_cpu_and_cpu_are_no_ops_on_cpu():
    net = build_net(nnref, nn_ref)
    weight = net.block1.fc.weight
    assert net.to("cpu") is net and net.cpu() is net and net.to(nnref.device("cpu")) is net
    assert net.block1.fc.weight is weight


def test_cuda_without_a_gpu_raises_the_core_runtime_error():
    from nnref._cupy import cuda_unavailable_reason
    if cuda_unavailable_reason() is None:
        pytest.skip("a usable GPU is present")
    net = nn_ref.Linear(2, 2)
    with pytest.raises(RuntimeError, match="CuPy|GPU"):
        net.cuda()
    with pytest.raises(RuntimeError, match="CuPy|GPU"):
        net.to("cuda")
    with pytest.raises(RuntimeError):
        net.to("tpu")


# -- Linear and Identity --------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(4, 3), (2, 5, 3), (3,)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_forward_and_backward_match_pytorch(shape, bias):
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    theirs_linear = torch.nn.Linear(3, 2, bias=bias)
    ours_linear = nn_ref.Linear(3, 2, bias=bias)
    copy_state(theirs_linear, ours_linear)
    results = []
    for lib, lin in ((nnref, ours_linear), (torch, theirs_linear)):
        inp = lib.tensor(x, requires_grad=True)
        out = lin(inp)
        out.sum().backward()
        results.append(values([out, inp.grad, lin.weight.grad, lin.bias.grad if bias else None,
                               type(out.grad_fn).__name__]))
    assert results[0] == results[1]


def test_linear_default_init_is_uniform_in_one_over_sqrt_fan_in():
    nnref.manual_seed(0)
    lin = nn_ref.Linear(16, 64)
    bound = 1 / np.sqrt(16)
    w, b = lin.weight.detach().numpy(), lin.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert np.abs(w).max() > 0.9 * bound and w.std() > 0.5 * bound / np.sqrt(3)
    assert lin.weight.requires_grad and lin.weight.is_leaf
    double = nn_ref.Linear(2, 3, dtype=nnref.float64)
    assert double.weight.dtype is nnref.float64 and double.bias.dtype is nnref.float64
    assert [n for n, _ in nn_ref.Linear(2, 3, bias=False).named_parameters()] == ["weight"]
    assert nn_ref.Linear(2, 3, bias=False).bias is None


def test_identity_ignores_arguments_and_returns_its_input():
    x = nnref.ones(2)
    assert nn_ref.Identity(54, unused="x")(x) is x
    assert repr(nn_ref.Identity()) == repr(torch.nn.Identity()) == "Identity()"


# -- extra state ----------------------------------------------------------------------------------------
def test_extra_state_round_trips_through_state_dict():
    def run(torch, nn):
        class WithState(nn.Module):
            def __init__(self):
                super().__init__()
                self.lin = nn.Linear(1, 1)
                self.note = "fresh"

            def get_extra_state(self):
                return {"note": self.note}

            def set_extra_state(self, state):
                self.note = state["note"]

        src, dst = WithState(), WithState()
        src.note = "trained"
        sd = src.state_dict()
        keys = list(sd.keys())
        dst.load_state_dict(sd)
        missing = dst.load_state_dict({k: v for k, v in sd.items() if k != "_extra_state"}, strict=False)
        unexpected = nn.Linear(1, 1).load_state_dict({**nn.Linear(1, 1).state_dict(), "_extra_state": 1},
                                                     strict=False)
        return keys, dst.note, repr(missing), repr(unexpected)

    ours, theirs = run_both(run, torch)
    assert ours == theirs


# -- the notes' examples, printed --------------------------------------------------------------------
def test_notes_neural_network_named_parameters_print_like_pytorch():
    def build(torch, nn):
        class NeuralNetwork(nn.Module):
            def __init__(self):
                super().__init__()
                self.flatten = nn.Flatten()
                self.linear_relu_stack = nn.Sequential(
                    nn.Linear(28 * 28, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                    nn.Linear(512, 10))

            def forward(self, x):
                return self.linear_relu_stack(self.flatten(x))

        return NeuralNetwork()

    def show(model):
        print(f"Model structure: {model}\n\n")
        for name, param in model.named_parameters():
            print(f"Layer: {name} | Size: {param.size()} | Values : {param[:2]} \n")

    theirs, ours = build(torch, torch.nn), build(nnref, nn_ref)
    copy_state(theirs, ours)
    assert printed(show, ours) == printed(show, theirs)


def test_notes_tiny_model_prints_like_pytorch():
    def build(torch, nn):
        class TinyModel(torch.nn.Module):
            def __init__(self):
                super(TinyModel, self).__init__()
                self.linear1 = torch.nn.Linear(100, 200)
                self.activation = torch.nn.ReLU()
                self.linear2 = torch.nn.Linear(200, 10)
                self.softmax = torch.nn.Softmax()

        return TinyModel()

    def show(tinymodel):
        print('The model:')
        print(tinymodel)
        print('\n\nJust one layer:')
        print(tinymodel.linear2)
        print('\n\nModel params:')
        for param in tinymodel.parameters():
            print(param)
        print('\n\nLayer params:')
        for param in tinymodel.linear2.parameters():
            print(param)

    theirs, ours = build(torch, torch.nn), build(nnref, nn_ref)
    copy_state(theirs, ours)
    assert printed(show, ours) == printed(show, theirs)


def test_notes_apply_init_weights_prints_like_pytorch():
    def run(torch, nn):
        @torch.no_grad()
        def init_weights(m):
            print(m)
            if type(m) == nn.Linear:
                m.weight.fill_(1.0)
                print(m.weight, "\n")

        net = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 2))
        print(net.apply(init_weights))

    ours, theirs = run_both(lambda torch, nn: printed(run, torch, nn), torch)
    assert ours == theirs
