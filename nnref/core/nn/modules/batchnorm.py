"""``nn.BatchNorm1d`` and ``nn.BatchNorm2d`` (``torch/nn/modules/batchnorm.py``); their repr and
PyTorch's shape-error texts are bound by ``nnref/nn/modules/batchnorm.py``."""
from ... import _dtype
from ...autograd.grad_mode import no_grad
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d"]


class _NormBase(Module):
    """The parameters and the running-statistics buffers of batch normalisation."""

    _version = 2

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        self.register_parameter("weight", Parameter(init.empty(num_features, **factory_kwargs))
                                if affine else None)
        self.register_parameter("bias", Parameter(init.empty(num_features, **factory_kwargs))
                                if affine and bias else None)
        # The values of the running statistics come from reset_running_stats.
        for name, size, kind in (("running_mean", num_features, dtype),
                                 ("running_var", num_features, dtype),
                                 ("num_batches_tracked", (), _dtype.int64)):
            self.register_buffer(name, init.empty(size, device=device, dtype=kind)
                                 if track_running_stats else None)
        self.reset_parameters()

    def reset_running_stats(self):
        """Mean 0, variance 1, ``num_batches_tracked`` 0."""
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def reset_parameters(self):
        """Reset the running statistics; with ``affine``, the weight to 1 and the bias to 0."""
        self.reset_running_stats()
        if self.affine:
            with no_grad():
                self.weight.fill_(1.0)
                if self.bias is not None:
                    self.bias.zero_()


class _BatchNorm(_NormBase):
    def forward(self, input):
        self._check_input_dim(input)
        # Only the per-channel tensors (weight, running statistics) fix the number of channels.
        per_channel = self.weight is not None or self.running_mean is not None
        if per_channel and input.shape[1] != self.num_features:
            raise RuntimeError(f"{self._get_name()}({self.extra_repr()}) expected input with "
                               f"{self.num_features} channels in dim 1, but got input of size "
                               f"{list(input.shape)}")
        # momentum=None means a cumulative average: the k-th batch gets weight 1/k.
        exponential_average_factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:
                exponential_average_factor = 1.0 / float(self.num_batches_tracked)
        # Batch statistics in training, and in evaluation when no running ones are kept.
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        # Running statistics are updated only in training, and only when tracked.
        use_buffers = not self.training or self.track_running_stats
        with F.naming_layer(self, input):
            return F.batch_norm(input, self.running_mean if use_buffers else None,
                                self.running_var if use_buffers else None, self.weight, self.bias,
                                bn_training, exponential_average_factor, self.eps)


class BatchNorm1d(_BatchNorm):
    """Batch normalisation (``F.batch_norm``) of ``(N, C)`` or ``(N, C, L)`` inputs, per channel."""

    def _check_input_dim(self, input):
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of ``(N, C, H, W)`` inputs, per channel ``C`` (see ``BatchNorm1d``)."""

    def _check_input_dim(self, input):
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")
