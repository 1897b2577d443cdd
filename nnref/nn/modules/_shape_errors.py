"""Errors that name the layer: PyTorch's kernels report a bad input without saying which layer got it."""
import contextlib

__all__ = ["naming_layer"]


@contextlib.contextmanager
def naming_layer(module, *inputs):
    """Re-raise shape errors from inside ``forward`` with the layer and the inputs' sizes in front.

    The exception keeps its type (RuntimeError, ValueError, IndexError, as
    PyTorch raises them), so ``except`` clauses written for PyTorch still work.
    """
    try:
        yield
    except (RuntimeError, ValueError, IndexError) as exc:
        sizes = " and ".join(str(list(t.shape)) for t in inputs)
        got = f"an input of size {sizes}" if len(inputs) == 1 else f"inputs of sizes {sizes}"
        raise type(exc)(f"{module._get_name()}({module.extra_repr()}) got {got}: {exc}") from None
