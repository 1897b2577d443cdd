"""``nnref.onnx``: the ``torch.onnx`` namespace, without an exporter.

Programs import ``torch.onnx`` at the top and call ``torch.onnx.export(model, args, path)`` at
the end; exporting traces the model into an ONNX graph, which needs PyTorch's tracer
(``torch.export``), so nnref's ``export`` raises ``NotImplementedError`` naming the ways out.
The error classes (``OnnxExporterError``, ...) and ``is_in_onnx_export`` are PyTorch's
(``torch/onnx/__init__.py``, ``torch/onnx/errors.py``).
"""
from .._namespace import public_dir
from . import errors
from .errors import OnnxExporterError

__all__ = ["OnnxExporterError", "errors", "export", "is_in_onnx_export"]


def export(model, args=(), f=None, **kwargs):
    """``torch.onnx.export``: not available, since nnref has no graph tracer; raises
    ``NotImplementedError`` naming the alternatives."""
    raise NotImplementedError(
        "nnref cannot export to ONNX: torch.onnx.export traces the model with PyTorch's compiler "
        "(torch.export), which nnref does not have. Save the weights with "
        "torch.save(model.state_dict(), path) (or nnref.utils.safetensors), load them into the same "
        "model on PyTorch, and call torch.onnx.export there.")


def is_in_onnx_export():
    """False: nnref never runs a model inside an ONNX export (``torch.onnx.is_in_onnx_export``)."""
    return False


__dir__ = public_dir(globals(), __all__)
