"""Errors that name the layer: PyTorch's kernels report a bad input without saying which layer got it."""
import contextlib

__all__ = ["naming_layer"]


@contextlib.contextmanager
def naming_layer(module, input):
    """Re-raise shape errors from inside ``forward`` with the layer and the input's size in front.

    The exception keeps its type (RuntimeError, ValueError, IndexError, as
    PyTorch raises them), so ``except`` clauses written for PyTorch still work.
    """
    try:
        yield
    except (RuntimeError, ValueError, IndexError) as exc:
        raise type(exc)(f"{module._get_name()}({module.extra_repr()}) got an input of size "
                        f"{list(input.shape)}: {exc}") from None
