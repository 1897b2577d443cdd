import pytest

import nnref

torch = pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _argument_checks_on():
    """Distributions check their arguments by default, until a compilation in the same process
    turns that off (PyTorch's ``TorchPatcher.patch``, which nnref.compile follows): these tests
    compare the checks, so they run with them on, whatever ran before."""
    before = [lib.distributions.Distribution._validate_args for lib in (nnref, torch)]
    for lib in (nnref, torch):
        lib.distributions.Distribution.set_default_validate_args(True)
    yield
    for lib, value in zip((nnref, torch), before):
        lib.distributions.Distribution.set_default_validate_args(value)
