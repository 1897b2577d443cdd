"""nnref's teaching core: what the notes teach, in PyTorch's names and files (reading order:
book/00_reading_nnref.ipynb).  It imports nothing outside itself; the rest of nnref, the
mirror, builds on it and fills its seams (``_seams.py``)."""
from . import _tensor_str, _views  # noqa: F401 - they bind Tensor.__repr__ and the view refresh
from .autograd import engine, function  # noqa: F401 - Tensor.backward
from ._ops import conversion  # noqa: F401 - Tensor.to
