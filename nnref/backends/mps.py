"""``nnref.backends.mps`` (``torch/backends/mps/__init__.py``): Apple's Metal GPUs, which nnref
does not run on."""
__all__ = ["is_available", "is_built"]


def is_available():
    """False: nnref has no 'mps' device (``torch.backends.mps.is_available``)."""
    return False


def is_built():
    """False: nnref has no 'mps' device (``torch.backends.mps.is_built``)."""
    return False
