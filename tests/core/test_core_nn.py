"""The teaching core's ``nn`` (``nnref/core/nn``): self-contained, runnable on its own, filled by
``import nnref``.

* its files import nothing outside ``nnref/core`` (at load time or inside a function);
* loaded without the mirror (a bare ``nnref`` package object, so ``nnref/__init__.py`` never
  runs), a module tree registers, walks, prints, converts, saves and loads, and runs its hooks
  as PyTorch's does;
* ``import nnref`` fills every seam of the core's nn files, and the mirror's methods reach
  ``Module`` and the containers through ``bind``, named as if written in the class.
"""
import ast
import json
import pathlib
import subprocess
import sys

import pytest

import nnref
from nnref.core._seams import seams_of
from nnref.core.nn import parameter as core_parameter
from nnref.core.nn.modules import container as core_container, module as core_module

PACKAGE = pathlib.Path(nnref.__file__).parent
CORE_NN = PACKAGE / "core" / "nn"


def imported_modules(path):
    """Every module ``path`` imports (absolute names), wherever the import statement sits."""
    package = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                found.append(".".join(base + ([node.module] if node.module else [])))
            else:
                found.append(node.module)
    return found


@pytest.mark.parametrize("path", sorted(CORE_NN.rglob("*.py")), ids=lambda p: p.name)
def test_core_nn_imports_nothing_outside_the_core(path):
    allowed_outside = {"functools", "itertools", "warnings", "weakref", "collections",
                       "collections.abc", "operator", "sys", "contextlib", "math", "numbers",
                       "numpy", "numpy.lib.stride_tricks"}
    outside = [m for m in imported_modules(path)
               if not (m == "nnref.core" or m.startswith("nnref.core.")) and m not in allowed_outside]
    assert not outside, f"{path.relative_to(PACKAGE)} imports {outside}"


# Run with the core only: ``nnref`` is a bare package object, so none of the mirror loads.
CORE_ONLY = r'''
import json, sys, types
nnref = types.ModuleType("nnref")
nnref.__path__ = [sys.argv[1]]
sys.modules["nnref"] = nnref
''' + "\n"

PROGRAM = r'''
from collections import OrderedDict
log = []

class Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.Tensor([1.0, 2.0]))
        self.register_buffer("count", torch.Tensor([0.0]))
        self.register_buffer("scratch", torch.Tensor([5.0]), persistent=False)

    def forward(self, x):
        log.append(("forward", type(self).__name__))
        return x

model = nn.Sequential(OrderedDict([("first", Scale()),
                                   ("rest", nn.ModuleList([Scale(), nn.Sequential(Scale())]))]))
model.add_module("table", nn.ModuleDict({"a": Scale()}))
model.rest[1][0].weight = model.first.weight  # shared: named_parameters gives it once
pre = model.first.register_forward_pre_hook(lambda m, args: log.append(("pre", len(args))))
post = model.first.register_forward_hook(lambda m, args, out: log.append(("post", len(args))))
model.first(torch.Tensor([3.0]))
pre.remove()
post.remove()
model.table["a"](model.first(torch.Tensor([3.0])))
state = model.state_dict()
model.eval()
model.requires_grad_(False)
model.to(torch.float64)
# assign=True: the copying load needs Tensor.copy_, which the core's ops do not have yet
result = model.load_state_dict(state, assign=True)
out = {
    "parameters": [name for name, _ in model.named_parameters()],
    "buffers": [name for name, _ in model.named_buffers()],
    "modules": [name for name, _ in model.named_modules()],
    "children": [name for name, _ in model.named_children()],
    "state_dict": list(state.keys()),
    "training": [m.training for m in model.modules()],
    "requires_grad": [p.requires_grad for p in model.parameters()],
    "dtypes": [str(p.dtype) for p in model.parameters()],
    "load": repr(result),
    "log": log,
    "submodule": type(model.get_submodule("rest.1")).__name__,
    "repr": repr(model),
}
print(json.dumps(out))
'''


def run_core_only():
    code = (CORE_ONLY + "import nnref.core as torch\nfrom nnref.core.nn.modules import container, module\n"
            "from nnref.core.nn import parameter\n"
            "import types\nnn = types.SimpleNamespace(Module=module.Module, Parameter=parameter.Parameter, "
            "Sequential=container.Sequential, ModuleList=container.ModuleList, "
            "ModuleDict=container.ModuleDict)\n"
            "torch.Tensor = torch._tensor.Tensor\nimport nnref.core._dtype as _dtype\n"
            "torch.float64 = _dtype.float64\n"
            "assert not [m for m in sys.modules if m.startswith('nnref.') and not m.startswith('nnref.core')], "
            "sorted(sys.modules)\n"
            + PROGRAM)
    done = subprocess.run([sys.executable, "-c", code, str(PACKAGE)], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def run_torch(torch):
    namespace = {"torch": torch, "nn": torch.nn}
    printed = []
    namespace["print"] = printed.append
    exec(PROGRAM.replace("json.dumps(out)", "out"), namespace)
    return printed[-1]


def test_the_core_alone_runs_a_module_tree_as_pytorch_does():
    torch = pytest.importorskip("torch")
    ours, theirs = run_core_only(), run_torch(torch)
    ours["log"] = [list(entry) for entry in ours["log"]]
    theirs["log"] = [list(entry) for entry in theirs["log"]]
    assert ours == theirs


def test_import_nnref_fills_every_seam_of_the_core_nn():
    empty = [name for name, value in seams_of(core_module).items() if value is None]
    assert not empty, f"seams left at the plain default None: {empty}"
    assert core_parameter.empty is nnref._creation.empty  # not the plain default, Tensor


@pytest.mark.parametrize("cls, name", [(core_module.Module, "to_empty"), (core_module.Module, "type"),
                                       (core_module.Module, "__deepcopy__"),
                                       (core_container.Sequential, "__mul__"),
                                       (core_container.ModuleList, "__repr__")])
def test_the_mirror_binds_its_methods_named_as_in_the_class(cls, name):
    method = cls.__dict__[name]
    assert method.__module__.startswith("nnref.nn.modules.")
    assert (method.__name__, method.__qualname__) == (name, f"{cls.__name__}.{name}")


def test_public_modules_re_export_the_core_classes():
    assert nnref.nn.Module is nnref.nn.modules.module.Module is core_module.Module
    assert nnref.nn.Sequential is nnref.nn.modules.container.Sequential is core_container.Sequential
    assert nnref.nn.Parameter is nnref.nn.parameter.Parameter is core_parameter.Parameter
    assert repr(nnref.nn.Module) == "<class 'torch.nn.modules.module.Module'>"
