"""``nnref.backends``: the switches PyTorch programs set for their compute libraries.

Mirrors ``torch/backends/``.  nnref computes with numpy on the CPU and CuPy on a GPU, not
with cuDNN, MPS or oneDNN, so these modules answer what a machine without those libraries
answers and keep the flags programs set (``cudnn.benchmark = True``); nothing nnref
computes depends on them.
"""
from . import cuda, cudnn, mkldnn, mps

__all__ = ["cuda", "cudnn", "mkldnn", "mps"]
