"""``nnref.backends``: the switches PyTorch programs set for their compute libraries.

Mirrors ``torch/backends/``.  nnref computes with numpy on the CPU and CuPy on a GPU, not
with cuDNN, MPS or oneDNN, so these modules answer what a machine without those libraries
answers and keep the flags programs set (``cudnn.benchmark = True``); nothing nnref
computes depends on them.  ``cpu`` tells which of ATen's CPU kernels PyTorch would run here,
which nnref's exact kernels follow.
"""
from . import cpu, cuda, cudnn, mkldnn, mps

__all__ = ["cpu", "cuda", "cudnn", "mkldnn", "mps"]
