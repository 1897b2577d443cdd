"""``dir()`` of a public module: PyTorch's names only.

A module's helpers (``numpy``, ``warnings``, functions it imports from other nnref modules)
are attributes too, so ``dir(nnref.nn.functional)`` would list ``np`` and
``array_module`` beside ``relu``.  Each public module defines
``__dir__ = public_dir(globals(), __all__)`` (PEP 562), so ``dir()`` and tab completion
show its ``__all__`` (and the private and dunder names, as ``dir`` always does).
"""

__all__ = ["public_dir"]


def public_dir(namespace, public):
    def __dir__():
        return sorted(set(public) | {name for name in namespace if name.startswith("_")})
    return __dir__
