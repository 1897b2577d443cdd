"""Seams: the named places where ``import nnref`` puts PyTorch's exact behaviour into the core.

A seam is a module-level name listed in its core file's ``__seams__``, whose plain default sits
right there with one line saying what the mirror puts in its place.  The mirror replaces it with
:func:`install` when ``nnref`` is imported (or while a mode is on); the core looks the name up at
each call, so the installed version runs.  Alone, the core runs on the defaults.
"""

__all__ = ["install", "seams_of"]


def install(module, name, value):
    """Put ``value`` in the seam ``name`` of the core file ``module``."""
    if name not in getattr(module, "__seams__", ()):
        raise AttributeError(f"{module.__name__}.{name} is not a seam of the core: the seams of "
                             f"that file are {list(getattr(module, '__seams__', ()))}")
    setattr(module, name, value)


def seams_of(module):
    """``{name: current value}`` for the seams of ``module``."""
    return {name: getattr(module, name) for name in getattr(module, "__seams__", ())}
