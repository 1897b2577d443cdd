"""``multi_margin_loss`` and ``multilabel_margin_loss``: the multi-class hinge losses, kernels with their
nodes (``aten/src/ATen/native/LossMultiMargin.cpp``, ``LossMultiLabelMargin.cpp``).

Vectorised numpy over the samples.  As in PyTorch, their backward has no derivative of its own: under
``create_graph=True`` the gradient's node is ``NotImplemented`` and differentiating it raises.
"""
from ..core import _dtype
from ..core._device import array_module
from ..core.autograd.graph import Node
from ._common import NotImplemented  # noqa: A004 - PyTorch's name
from ._common import needs_grad, record, wrap
from .native import _as, _opmath, _reduce

__all__ = ["multi_margin_loss", "multilabel_margin_loss"]


def _nonempty_vector_or_matrix(input):
    ndim = input.dim()
    if not ((ndim == 2 and input.shape[1] != 0) or (ndim == 1 and input.shape[0] != 0) or ndim == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")


def _first_order(result, grad, input, op):
    if needs_grad(grad, input):
        result.grad_fn = NotImplemented(op, (grad, input))
    return result


def _inputs_and_upstream(node, input, grad, per_frame_shape):
    """The saved input as ``(frames, classes)`` in the compute precision, its array module, and
    the incoming gradient with the loss's ``1 / classes`` (and ``1 / frames`` for 'mean') applied;
    with reduction 'none' it is one value per frame, shaped ``per_frame_shape`` to broadcast."""
    x = _opmath(input._data).reshape(node.frames, node.classes)
    g = _opmath(grad._data)
    scale = 1.0 / (node.frames * node.classes) if node.reduction == "mean" else 1.0 / node.classes
    upstream = (g.reshape(per_frame_shape) if node.reduction == "none" else g) * x.dtype.type(scale)
    return x, array_module(input._device), upstream


class MultiMarginLossBackward0(Node):
    def backward(self, grad):
        (input,) = self.saved_tensors
        x, xp, upstream = _inputs_and_upstream(self, input, grad, (self.frames, 1))
        z, active = self.z, self.active
        local = xp.where(active, x.dtype.type(1) if self.p == 1 else 2 * z, x.dtype.type(0))
        if self.weights is not None:
            local = local * self.weights[:, None]
        local = local * upstream
        rows = xp.arange(self.frames)
        local[rows, self.target] = -local.sum(axis=1)
        result = wrap(_as(local.reshape(input._data.shape), input._data), grad)
        return (_first_order(result, grad, input, "multi_margin_loss_backward"),)


def multi_margin_loss(input, target, p, margin, weight, reduction):
    """``sum_{j != y} max(0, margin - x[y] + x[j]) ** p * weight[y] / C`` for each sample, reduced."""
    _nonempty_vector_or_matrix(input)
    frames, classes = (input.shape[0], input.shape[1]) if input.dim() == 2 else (1, input.numel())
    if target.dim() > 1 or target.numel() != frames:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{frames}], but got {list(target.shape)}. "
                           f"Input has shape {list(input.shape)}.")
    if target._dtype is not _dtype.int64:
        raise RuntimeError(f"expected scalar type Long but found {target._dtype._legacy_name[:-6]}")
    if weight is not None and (weight.dim() > 1 or weight.numel() != classes):
        raise RuntimeError(f"inconsistent weight size, expected {classes} but got {list(weight.shape)}")
    xp = array_module(input._device)
    y = target._data.reshape(frames)
    if frames and (int(y.min()) < 0 or int(y.max()) >= classes):
        raise RuntimeError("target out of range")
    x = _opmath(input._data).reshape(frames, classes)
    rows = xp.arange(frames)
    z = x.dtype.type(margin) - x[rows, y][:, None] + x
    active = z > 0
    active[rows, y] = False
    h = xp.where(active, z if p == 1 else z * z, x.dtype.type(0))
    weights = None
    if weight is not None:
        weights = _opmath(weight._data)[y]
        h = h * weights[:, None]
    loss = h.sum(axis=1) / x.dtype.type(classes)
    if reduction == "none":
        loss = loss.reshape(target._data.shape if input.dim() < 2 else (frames,))
    out = wrap(_as(xp.asarray(_reduce(loss, reduction)), input._data), input)
    return record(out, MultiMarginLossBackward0, (input,), saved=(input,), frames=frames, classes=classes,
                  target=y, z=z, active=active, p=p, weights=weights, reduction=reduction)


class MultilabelMarginLossBackward0(Node):
    def backward(self, grad):
        (input,) = self.saved_tensors
        x, xp, upstream = _inputs_and_upstream(self, input, grad, (self.frames, 1, 1))
        pairs = self.pairs.astype(x.dtype) * upstream  # (frame, target entry, other class k)
        local = pairs.sum(axis=1)  # + on each other class k
        rows = xp.broadcast_to(xp.arange(self.frames)[:, None], self.targets.shape)
        xp.add.at(local, (rows, self.targets), -pairs.sum(axis=2))  # - on the class of each target entry
        result = wrap(_as(local.reshape(input._data.shape), input._data), grad)
        return (_first_order(result, grad, input, "multilabel_margin_loss_backward"),)


def multilabel_margin_loss(input, target, reduction):
    """``sum_{j in targets} sum_{k not in targets} max(0, 1 - (x[j] - x[k])) / C`` for each sample; a sample's
    targets are the class indices of its target row up to the first -1."""
    _nonempty_vector_or_matrix(input)
    frames, classes = (input.shape[0], input.shape[1]) if input.dim() == 2 else (1, input.numel())
    if tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    if target._dtype is not _dtype.int64:
        raise RuntimeError(f"expected scalar type Long but found {target._dtype._legacy_name[:-6]}")
    xp = array_module(input._device)
    t = target._data.reshape(frames, classes)
    if t.size and (int(t.min()) < -1 or int(t.max()) >= classes):
        raise RuntimeError("argument #2 'target' is out of range")
    # a row's targets end at its first -1
    listed = xp.cumprod(t != -1, axis=1).astype(bool)
    is_target = xp.zeros((frames, classes), dtype=bool)
    rows = xp.broadcast_to(xp.arange(frames)[:, None], t.shape)
    is_target[rows[listed], t[listed]] = True
    x = _opmath(input._data).reshape(frames, classes)
    targets = xp.where(listed, t, 0)
    # (frame, target entry j, class k): 1 - (x[t[j]] - x[k]); a repeated target entry counts again, as in ATen
    z = x.dtype.type(1) - xp.take_along_axis(x, targets, axis=1)[:, :, None] + x[:, None, :]
    pairs = listed[:, :, None] & ~is_target[:, None, :] & (z > 0)
    loss = xp.where(pairs, z, x.dtype.type(0)).sum(axis=(1, 2)) / x.dtype.type(classes)
    if reduction == "none":
        loss = loss.reshape(() if input.dim() < 2 else (frames,))
    out = wrap(_as(xp.asarray(_reduce(loss, reduction)), input._data), input)
    return record(out, MultilabelMarginLossBackward0, (input,), saved=(input,), frames=frames, classes=classes,
                  pairs=pairs, targets=targets, reduction=reduction)
