"""``nnref.backends.cuda`` (``torch/backends/cuda/__init__.py``): the CUDA matmul flags.

``matmul.allow_tf32`` and friends are kept as set; nnref's GPU products (CuPy) compute float32
in float32 whatever they say.
"""
__all__ = ["is_built", "matmul"]


class _MatmulFlags:
    """``torch.backends.cuda.matmul``: the reduced-precision switches of cuBLAS products."""

    def __init__(self):
        self.allow_tf32 = False
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True


matmul = _MatmulFlags()


def is_built():
    """True when CuPy, nnref's CUDA library, is installed (``torch.backends.cuda.is_built``: PyTorch
    was built with CUDA)."""
    from .._cupy import _import_cupy
    return _import_cupy() is not None
