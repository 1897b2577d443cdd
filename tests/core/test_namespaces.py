"""``dir()`` of nnref's public modules shows PyTorch's names only: every public name nnref
lists exists in the matching torch module, so a learner comparing the two sees no helpers
(``np``, ``array_module``, ...)."""
import importlib

import pytest

import nnref

torch = pytest.importorskip("torch")

# nnref's own additions, each on purpose: the course's graph drawing, and the teaching core
# that a learner reads (nnref/core, book/00_reading_nnref.ipynb).
NNREF_ONLY = {"": {"viz", "core"}}

MODULES = ["", ".nn", ".nn.functional", ".nn.init", ".nn.parameter", ".nn.modules", ".optim",
           ".optim.lr_scheduler", ".cuda", ".accelerator", ".linalg"]


@pytest.mark.parametrize("suffix", MODULES)
def test_every_public_name_exists_in_pytorch(suffix):
    ours = importlib.import_module("nnref" + suffix)
    theirs = importlib.import_module("torch" + suffix)
    extra = sorted(name for name in dir(ours) if not name.startswith("_")
                   and not hasattr(theirs, name) and name not in NNREF_ONLY.get(suffix, set()))
    assert not extra, f"nnref{suffix} shows names PyTorch does not have: {extra}"


@pytest.mark.parametrize("suffix", [m for m in MODULES if m])
def test_all_lists_what_the_module_defines(suffix):
    module = importlib.import_module("nnref" + suffix)
    assert all(hasattr(module, name) for name in module.__all__)
    assert set(module.__all__) <= set(dir(module))


def test_helpers_are_hidden_from_dir_but_star_import_is_unchanged():
    assert "np" not in dir(nnref.nn.functional)
    assert "array_module" not in dir(nnref.nn.functional)
    assert "relu" in dir(nnref.nn.functional) and "__name__" in dir(nnref.nn.functional)
    namespace = {}
    exec("from nnref.nn.functional import *", namespace)
    assert "gelu" in namespace and "np" not in namespace


@pytest.mark.parametrize("suffix, names", [
    (".nn", ["GELU", "AvgPool2d", "AdaptiveAvgPool2d", "ConvTranspose2d", "LazyLinear", "HuberLoss",
             "UninitializedParameter", "Dropout2d", "Softmax2d"]),
    (".nn.functional", ["gelu", "one_hot", "avg_pool2d", "adaptive_avg_pool2d", "conv_transpose2d",
                        "kl_div", "silu"]),
    (".optim", ["RMSprop", "Adagrad"]),
    (".optim.lr_scheduler", ["LambdaLR", "OneCycleLR", "ReduceLROnPlateau", "CosineAnnealingLR"]),
    ("", ["einsum", "gather", "topk", "isfinite", "int8", "get_default_device", "accelerator"]),
])
def test_the_tutorials_names_are_listed(suffix, names):
    module = importlib.import_module("nnref" + suffix)
    assert set(names) <= set(dir(module))
