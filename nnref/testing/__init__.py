"""``nnref.testing``: ``assert_close``, the deprecated ``assert_allclose`` and ``make_tensor``
(``torch/testing/__init__.py``)."""
from ._comparison import assert_allclose, assert_close
from ._creation import make_tensor

__all__ = ["assert_close", "assert_allclose", "make_tensor"]
