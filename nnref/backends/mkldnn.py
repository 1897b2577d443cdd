"""``nnref.backends.mkldnn`` (``torch/backends/mkldnn/__init__.py``): oneDNN, which nnref does
not use (its CPU kernels are numpy's)."""
__all__ = ["is_available", "enabled"]

enabled = True


def is_available():
    """False: nnref's CPU kernels are numpy's, not oneDNN's (``torch.backends.mkldnn.is_available``)."""
    return False
