"""``RemovableHandle``: what every ``register_*hook`` returns (``torch/utils/hooks.py``)."""
import itertools
import weakref

from .._naming import TorchNamed

__all__ = ["RemovableHandle"]


class RemovableHandle(metaclass=TorchNamed):
    """Removes one hook from the dict it was added to on ``remove()`` (or on leaving ``with``).
    The dict is held weakly, as in PyTorch, so a handle keeps no module or node alive."""

    _ids = itertools.count()

    def __init__(self, hooks_dict, hook=None, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(RemovableHandle._ids)
        self.extra_dict_ref = tuple(weakref.ref(d) for d in (
            extra_dict if isinstance(extra_dict, (list, tuple)) else [extra_dict] if extra_dict is not None else []))
        if hook is not None:
            hooks_dict[self.id] = hook

    def remove(self):
        """Unregister the hook from every dict it was added to; removing twice is harmless."""
        for ref in (self.hooks_dict_ref,) + self.extra_dict_ref:
            hooks = ref()
            if hooks is not None and self.id in hooks:
                del hooks[self.id]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()
