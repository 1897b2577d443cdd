"""``nnref.testing``: ``assert_close`` and the deprecated ``assert_allclose``
(``torch/testing/__init__.py``)."""
from ._comparison import assert_allclose, assert_close

__all__ = ["assert_close", "assert_allclose"]
