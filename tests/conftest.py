"""Settings shared by the whole suite."""
import os
import sys

import pytest
from hypothesis import settings

# In CI (CI=true) Hypothesis draws the same examples on every run, so a run's result depends
# only on the code, not on which random examples it happened to try; locally each run explores
# new examples.
settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(autouse=True)
def seeded_pytorch():
    """PyTorch's layers draw their initial weights from its global generator.  Seed it per test,
    so a comparison whose PyTorch side starts from random weights sees the same weights on every
    run (values compared at 5 decimals, or with a tolerance near zero, must not pass or fail by
    the luck of the draw)."""
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.manual_seed(0)


# -- the device the device-parametrised tests run on ------------------------------------------------
# NNREF_TEST_DEVICE=cuda (what `./dev.sh gpu` sets) runs tests/device on the GPU, comparing
# every result with the CPU path; the default runs them on the CPU and on 'cuda' served by the
# test-only strict stand-in for CuPy (tests/device/strictcuda.py); NNREF_TEST_DEVICE=strictcuda
# runs them on the stand-in only.
TEST_DEVICE = os.environ.get("NNREF_TEST_DEVICE", "cpu")


def pytest_report_header(config):
    return (f"nnref test device: {TEST_DEVICE} (tests/device also runs on the strict CuPy stand-in "
            f"unless NNREF_TEST_DEVICE=cuda, the GPU mode)")


def pytest_configure(config):
    if TEST_DEVICE not in ("cpu", "cuda", "strictcuda"):
        raise pytest.UsageError(f"NNREF_TEST_DEVICE must be 'cpu', 'cuda' or 'strictcuda', "
                                f"not {TEST_DEVICE!r}")
    if TEST_DEVICE == "cuda":
        from nnref._cupy import cuda_unavailable_reason
        reason = cuda_unavailable_reason()
        if reason is not None:
            raise pytest.UsageError(f"NNREF_TEST_DEVICE=cuda, but the GPU cannot be used: {reason}")


@pytest.fixture(scope="session")
def device():
    """The nnref device under test: 'cpu', or 'cuda:0' in the GPU mode (tests/device/conftest.py
    runs its tests on each device of the run instead)."""
    import nnref
    return nnref.device(TEST_DEVICE, 0 if TEST_DEVICE == "cuda" else None)


@pytest.fixture
def needs_second_device(device):
    """For comparisons of a device with the CPU path: they mean something only on the GPU."""
    if device.type == "cpu":
        pytest.skip("compares a 'cuda' run with the CPU path: it runs on the strict CuPy stand-in "
                    "in this run, and on a GPU with NNREF_TEST_DEVICE=cuda (./dev.sh gpu)")
