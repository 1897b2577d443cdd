"""``nnref.backends.cpu`` (``torch/backends/cpu/__init__.py``): the CPU capability ATen's kernels
run with, which decides how nnref's exact kernels round (``nnref/_capability.py``)."""
from .._capability import get_cpu_capability

__all__ = ["get_cpu_capability"]
