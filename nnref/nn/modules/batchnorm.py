"""``nn.BatchNorm1d``, ``nn.BatchNorm2d`` (the teaching core's, ``nnref/core/nn/modules/batchnorm.py``),
``nn.BatchNorm3d`` and the lazy forms (``torch/nn/modules/batchnorm.py``)."""
from ...core import _dtype
from ..._creation import tensor
from ..parameter import UninitializedBuffer, UninitializedParameter
from .lazy import LazyModuleMixin
from ...core.nn.modules.batchnorm import BatchNorm1d, BatchNorm2d, _BatchNorm, _NormBase
from ...core.nn.modules.module import bind

__all__ = ["BatchNorm1d", "BatchNorm2d"]


def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys,
                          unexpected_keys, error_msgs):
    # Checkpoints older than version 2 have no num_batches_tracked: treat it as zero batches.
    version = local_metadata.get("version", None)
    if (version is None or version < 2) and self.track_running_stats:
        key = prefix + "num_batches_tracked"
        if key not in state_dict:
            state_dict[key] = (self.num_batches_tracked if self.num_batches_tracked is not None
                               else tensor(0, dtype=_dtype.int64))
    super(_NormBase, self)._load_from_state_dict(state_dict, prefix, local_metadata, strict,
                                                 missing_keys, unexpected_keys, error_msgs)


def extra_repr(self):
    return ("{num_features}, eps={eps}, momentum={momentum}, affine={affine}, bias={use_bias}, "
            "track_running_stats={track_running_stats}".format(
                **self.__dict__, use_bias=self.bias is not None))


def _shape_error(self, input, expected):
    return ValueError(f"{self._get_name()}({self.extra_repr()}) expected {expected} input "
                      f"(got {input.dim()}D input of size {list(input.shape)})")


def _check_input_dim_1d(self, input):
    if input.dim() not in (2, 3):
        raise self._shape_error(input, f"2D (N, {self.num_features}) or 3D "
                                       f"(N, {self.num_features}, L)")


def _check_input_dim_2d(self, input):
    if input.dim() != 4:
        raise self._shape_error(input, f"4D (N, {self.num_features}, H, W)")


# TorchScript's constants, as PyTorch declares them (the core's classes leave them out).
_NormBase.__constants__ = ["track_running_stats", "momentum", "eps", "num_features", "affine"]
bind(_NormBase, _load_from_state_dict=_load_from_state_dict, extra_repr=extra_repr,
     _shape_error=_shape_error)
bind(BatchNorm1d, _check_input_dim=_check_input_dim_1d)
bind(BatchNorm2d, _check_input_dim=_check_input_dim_2d)


__all__ += ["BatchNorm3d"]


class BatchNorm3d(_BatchNorm):
    """Batch normalisation of ``(N, C, D, H, W)`` inputs, per channel ``C`` (see ``BatchNorm1d``)."""

    def _check_input_dim(self, input):
        if input.dim() != 5:
            raise self._shape_error(input, f"5D (N, {self.num_features}, D, H, W)")


__all__ += ["LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d"]


class _LazyNormBase(LazyModuleMixin, _NormBase):
    """A norm layer whose ``num_features`` is read from the first input's dim 1 (``torch/nn/modules/batchnorm.py``)."""

    def __init__(self, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True, device=None, dtype=None, *,
                 bias=True):
        factory_kwargs = {"device": device, "dtype": dtype}
        # affine and track_running_stats off here, so that no tensors are made only to be replaced
        super().__init__(0, eps, momentum, False, False, **factory_kwargs, bias=False)
        self.affine = affine
        self.track_running_stats = track_running_stats
        if self.affine:
            self.weight = UninitializedParameter(**factory_kwargs)
            if bias:
                self.bias = UninitializedParameter(**factory_kwargs)
        if self.track_running_stats:
            self.running_mean = UninitializedBuffer(**factory_kwargs)
            self.running_var = UninitializedBuffer(**factory_kwargs)
            self.num_batches_tracked = tensor(0, dtype=_dtype.int64, device=device)

    def reset_parameters(self):
        """Reset as the eager layer does once ``num_features`` is known (``torch/nn/modules/batchnorm.py``)."""
        if not self.has_uninitialized_params() and self.num_features != 0:
            super().reset_parameters()

    def initialize_parameters(self, input):
        """On the first ``forward``: ``num_features`` from ``input.shape[1]``, the parameters and buffers
        materialised and reset (``torch/nn/modules/batchnorm.py``)."""
        if self.has_uninitialized_params():
            self.num_features = input.shape[1]
            if self.affine:
                self.weight.materialize((self.num_features,))
                if self.bias is not None:
                    self.bias.materialize((self.num_features,))
            if self.track_running_stats:
                self.running_mean.materialize((self.num_features,))
                self.running_var.materialize((self.num_features,))
            self.reset_parameters()


def _expect_dims(allowed):
    def check(self, input):
        if input.dim() not in allowed:
            wanted = " or ".join(f"{d}D" for d in allowed)
            raise ValueError(f"expected {wanted} input (got {input.dim()}D input)")
    return check


class LazyBatchNorm1d(_LazyNormBase, _BatchNorm):
    """A ``BatchNorm1d`` whose ``num_features`` is read from the first input."""

    cls_to_become = BatchNorm1d
    _check_input_dim = _expect_dims((2, 3))


class LazyBatchNorm2d(_LazyNormBase, _BatchNorm):
    """A ``BatchNorm2d`` whose ``num_features`` is read from the first input."""

    cls_to_become = BatchNorm2d
    _check_input_dim = _expect_dims((4,))


class LazyBatchNorm3d(_LazyNormBase, _BatchNorm):
    """A ``BatchNorm3d`` whose ``num_features`` is read from the first input."""

    cls_to_become = BatchNorm3d
    _check_input_dim = _expect_dims((5,))
