"""The global random generator behind ``rand``/``randn``/``randint`` and ``uniform_``/``normal_``.

PyTorch uses a Mersenne Twister with its own sampling code, so the same seed
gives *different numbers* in nnref: seeding makes nnref reproducible, not
identical to PyTorch (see the book's "Differences from PyTorch" page).
"""
import numpy as np

__all__ = ["manual_seed", "seed", "initial_seed", "generator"]

_DEFAULT_SEED = 67280421310721  # the seed PyTorch's default CPU generator starts from


class _State:
    seed = _DEFAULT_SEED
    generator = np.random.default_rng(_DEFAULT_SEED)


def manual_seed(seed):
    """Reset the generator (CPU, and the GPU one when CuPy is in use)."""
    seed = int(seed)
    _State.seed = seed
    _State.generator = np.random.default_rng(seed)
    try:
        import cupy
        cupy.random.seed(seed % 2**32)
    except ImportError:
        pass
    return _State.generator


def seed():
    """Seed from the operating system's entropy and return the seed used."""
    return manual_seed(int(np.random.SeedSequence().entropy % 2**63)) and _State.seed


def initial_seed():
    return _State.seed


def generator():
    return _State.generator
