"""The GPU path's error messages, on a machine without a GPU.

Each way of asking for ``'cuda'`` without CuPy, or with CuPy but no GPU, raises one
clear error naming what is missing and how to install it; device strings are parsed
as PyTorch parses them; and the same-device rule and ``.numpy()``'s refusal say how
to fix the mistake.
"""
import io
import os
import subprocess
import sys

import pytest

import nnref
from nnref import _cupy, _device_extras, nn
from nnref._ops._common import check_same_device
from nnref.serialization import CheckpointError

pytestmark = pytest.mark.skipif(nnref.cuda.is_available(), reason="this machine has a usable GPU")


@pytest.fixture
def without_cupy(monkeypatch):
    """Python's own way to make ``import cupy`` fail: a None entry in sys.modules."""
    monkeypatch.setitem(sys.modules, "cupy", None)
    monkeypatch.setattr(_cupy, "_cupy", None)
    monkeypatch.setattr(_cupy, "_cuda_answer", _cupy._UNASKED)


ASKING_FOR_CUDA = {
    "zeros(device='cuda')": lambda: nnref.zeros(2, device="cuda"),
    "tensor(device='cuda:0')": lambda: nnref.tensor([1.0], device="cuda:0"),
    "randn(device=device('cuda'))": lambda: nnref.randn(2, device=nnref.device("cuda")),
    "t.to('cuda')": lambda: nnref.ones(2).to("cuda"),
    "t.cuda()": lambda: nnref.ones(2).cuda(),
    "t.to(0)": lambda: nnref.ones(2).to(0),
    "module.cuda()": lambda: nn.Linear(2, 2).cuda(),
    "module.to('cuda')": lambda: nn.Linear(2, 2).to("cuda"),
}


@pytest.mark.parametrize("ask", ASKING_FOR_CUDA)
def test_without_cupy_every_way_to_cuda_says_to_install_it(without_cupy, ask):
    with pytest.raises(RuntimeError, match=r"needs CuPy, which is not installed.*pip install cupy-cuda12x"):
        ASKING_FOR_CUDA[ask]()


def test_without_cupy_the_cuda_queries_answer_no(without_cupy):
    assert nnref.cuda.is_available() is False
    assert nnref.cuda.device_count() == 0
    nnref.cuda.synchronize()  # nothing to wait for
    with pytest.raises(RuntimeError, match="pip install cupy-cuda12x"):
        nnref.cuda.get_device_name()


@pytest.mark.parametrize("spec", ["cuda:1", "cuda:7", 1])
def test_only_gpu_0_is_used_and_the_error_says_how_to_pick_another(spec):
    with pytest.raises(RuntimeError, match=r"uses one GPU, cuda:0.*CUDA_VISIBLE_DEVICES=\d"):
        nnref.zeros(1, device=spec)


def test_with_cupy_but_no_gpu_the_error_says_the_gpu_is_missing():
    """CuPy imports without a GPU; asking it for one is what fails.  ``./dev.sh test`` keeps
    a CuPy in a folder of its own (NNREF_CUPY_SITE), so this runs in a child process."""
    site = os.environ.get("NNREF_CUPY_SITE")
    if not site:
        pytest.importorskip("cupy", reason="CuPy is not installed here")
    script = ("import nnref\n"
              "assert nnref.cuda.is_available() is False and nnref.cuda.device_count() == 0\n"
              "print(nnref.core._device.array_module(nnref.device('cuda')).__name__)\n"
              "nnref.zeros(2, device='cuda')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [site, os.environ.get("PYTHONPATH")])))
    run = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                         timeout=120)
    assert run.stdout.strip() == "cupy"  # the backend layer picks CuPy for 'cuda'
    assert run.returncode != 0
    assert "RuntimeError: CuPy is installed but cannot reach a GPU" in run.stderr, run.stderr


def test_a_refused_move_leaves_the_module_as_it_was():
    net = nn.Linear(2, 2)
    weight = net.weight
    before = weight.detach().clone()
    with pytest.raises(RuntimeError):
        net.cuda()
    assert net.weight is weight and weight.device.type == "cpu"
    assert nnref.equal(weight.detach(), before)


def test_loading_onto_a_missing_gpu_names_the_fix():
    buffer = io.BytesIO()
    nnref.save({"w": nnref.ones(2)}, buffer)
    buffer.seek(0)
    with pytest.raises(CheckpointError, match="map_location='cpu'"):
        nnref.load(buffer, map_location="cuda")


@pytest.mark.parametrize("spec", ["cuda:01", "cuda:", "cuda:-1", "cuda:x", "cuda:1:2", "gpu", "CUDA"])
def test_malformed_device_strings_raise_like_pytorch(spec):
    with pytest.raises(RuntimeError):
        nnref.device(spec)
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        torch.device(spec)


def test_cpu_tensors_carry_no_device_index():
    t = nnref.zeros(2, device="cpu:0")
    assert t.device == nnref.device("cpu") and str(t.device) == "cpu"
    torch = pytest.importorskip("torch")
    assert str(torch.zeros(2, device="cpu:0").device) == "cpu"


# The next checks read only a tensor's device, never its values, so a CPU tensor relabelled
# 'cuda:0' reaches the same branch a real CUDA tensor would (the GPU mode runs the real thing).
def _labelled_cuda(t):
    t._device = nnref.device("cuda", 0)
    return t


def test_mixing_devices_names_both_and_the_fix():
    with pytest.raises(RuntimeError, match=r"Expected all tensors to be on the same device, but found at "
                                           r"least two devices, cpu and cuda:0! .*\.to\("):
        check_same_device(nnref.ones(3), _labelled_cuda(nnref.ones(3)))


def test_only_a_zero_dim_cpu_tensor_may_join_another_device():
    check_same_device(nnref.tensor(2.0), _labelled_cuda(nnref.ones(3)))
    with pytest.raises(RuntimeError, match="same device"):
        check_same_device(_labelled_cuda(nnref.tensor(2.0)), nnref.ones(3))


def test_numpy_of_a_cuda_tensor_says_to_call_cpu_first():
    with pytest.raises(TypeError, match=r"can't convert cuda:0 device type tensor to numpy\. Use "
                                        r"Tensor\.cpu\(\) to copy the tensor to host memory first"):
        _labelled_cuda(nnref.ones(2)).numpy()


def test_bfloat16_has_no_place_on_cuda():
    _device_extras.check_dtype_on_device(nnref.bfloat16, nnref.device("cpu"))
    with pytest.raises(TypeError, match="cannot hold bfloat16.*float16"):
        _device_extras.check_dtype_on_device(nnref.bfloat16, nnref.device("cuda", 0))
