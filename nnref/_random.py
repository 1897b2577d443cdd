"""The global random generators behind ``rand``/``randn``/``randint``, ``uniform_``/``normal_`` and dropout.

Like PyTorch, each device has its own generator: numpy's for the CPU, CuPy's
for ``'cuda'`` (made the first time a CUDA tensor draws numbers), and
``manual_seed`` resets them all.  PyTorch uses a Mersenne Twister with its own
sampling code, so the same seed gives *different numbers* in nnref: seeding
makes nnref reproducible, not identical to PyTorch (see the book's
"Differences from PyTorch" page).
"""
import numpy as np

from ._device import CPU, array_module

__all__ = ["manual_seed", "seed", "initial_seed", "generator"]

_DEFAULT_SEED = 67280421310721  # the seed PyTorch's default CPU generator starts from


class _State:
    seed = _DEFAULT_SEED
    generators = {CPU: np.random.default_rng(_DEFAULT_SEED)}


def manual_seed(seed):
    """Reset every device's generator to ``seed``; returns the CPU generator."""
    seed = int(seed)
    _State.seed = seed
    _State.generators = {CPU: np.random.default_rng(seed)}
    return _State.generators[CPU]


def seed():
    """Seed from the operating system's entropy and return the seed used."""
    return manual_seed(int(np.random.SeedSequence().entropy % 2**63)) and _State.seed


def initial_seed():
    return _State.seed


def generator(device=CPU):
    """The generator that draws numbers for tensors on ``device``.

    numpy's and CuPy's generators share the methods nnref uses: ``random``,
    ``standard_normal``, ``uniform`` and ``integers``.
    """
    found = _State.generators.get(device)
    if found is None:
        # A CUDA generator is seeded from the global seed and the device index, so two GPUs
        # draw different streams and manual_seed reproduces both.
        xp = array_module(device)
        with xp.cuda.Device(device.index):
            found = xp.random.default_rng([_State.seed % 2**63, device.index])
        _State.generators[device] = found
    return found
