"""The ONNX exporter's error and warning classes of ``torch/onnx/errors.py`` (its TorchScript-only
ones are left out, as nnref has no TorchScript)."""
from .._namespace import public_dir

__all__ = ["OnnxExporterError", "OnnxExporterWarning"]


class OnnxExporterWarning(UserWarning):
    """Warnings in the ONNX exporter."""


class OnnxExporterError(RuntimeError):
    """Errors raised by the ONNX exporter."""


__dir__ = public_dir(globals(), __all__)
