"""``nnref.backends.cudnn`` (``torch/backends/cudnn/__init__.py``): nnref does not use cuDNN.

The flags are the attributes programs set for reproducibility or speed
(``deterministic``, ``benchmark``); nnref's GPU path (CuPy) is unaffected by them.
"""
__all__ = ["is_available", "version", "enabled", "benchmark", "deterministic", "allow_tf32"]

enabled = True
benchmark = False
deterministic = False
allow_tf32 = True


def is_available():
    """False: nnref computes without cuDNN (``torch.backends.cudnn.is_available``)."""
    return False


def version():
    """None: no cuDNN is loaded (``torch.backends.cudnn.version``)."""
    return None
