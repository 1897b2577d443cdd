"""``nnref.utils.hooks`` (``torch/utils/hooks.py``): ``RemovableHandle``, which every
``register_*hook`` returns.  It lives in the teaching core, ``nnref/core/utils/hooks.py``."""
from ..core.utils.hooks import RemovableHandle

__all__ = ["RemovableHandle"]
