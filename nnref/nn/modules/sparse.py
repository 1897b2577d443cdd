"""``nn.Embedding`` and ``nn.EmbeddingBag`` (``torch/nn/modules/sparse.py``)."""
from ..._creation import empty
from ...core.autograd.grad_mode import no_grad
from .. import functional as F, init
from ..parameter import Parameter
from .module import Module

__all__ = ["Embedding"]


class Embedding(Module):
    """A lookup table: integer indices of any shape ``(*)`` -> rows of ``weight``, ``(*, embedding_dim)``.

    ``weight`` starts as N(0, 1); the ``padding_idx`` row starts at zero and
    never receives a gradient.
    """

    __constants__ = ["num_embeddings", "embedding_dim", "padding_idx", "max_norm", "norm_type",
                     "scale_grad_by_freq", "sparse"]

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        self.padding_idx = _padding_index(padding_idx, num_embeddings, "Padding_idx")
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if _weight is None:
            self.weight = Parameter(empty((num_embeddings, embedding_dim), **factory_kwargs),
                                    requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and "
                                     "embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)
        self.sparse = sparse

    def reset_parameters(self):
        """Draw the weight from N(0, 1) again, the ``padding_idx`` row zeroed
        (``torch/nn/modules/sparse.py``)."""
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self):
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input):
        if input.numel() and not input.is_floating_point():
            low, high = int(input.min()), int(input.max())
            if low < 0 or high >= self.num_embeddings:
                raise IndexError(f"index out of range in self: {self._get_name()}"
                                 f"({self.extra_repr()}) expects indices in [0, "
                                 f"{self.num_embeddings - 1}], but got indices from {low} to {high}")
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
                           self.scale_grad_by_freq, self.sparse)

    def extra_repr(self):
        s = "{num_embeddings}, {embedding_dim}"
        if self.padding_idx is not None:
            s += ", padding_idx={padding_idx}"
        if self.max_norm is not None:
            s += ", max_norm={max_norm}"
        if self.norm_type != 2:
            s += ", norm_type={norm_type}"
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq={scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s.format(**self.__dict__)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None, max_norm=None,
                        norm_type=2.0, scale_grad_by_freq=False, sparse=False):
        """An Embedding whose weight is ``embeddings`` (frozen unless ``freeze=False``)."""
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, _freeze=freeze,
                   padding_idx=padding_idx, max_norm=max_norm, norm_type=norm_type,
                   scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


__all__ += ["EmbeddingBag"]


class EmbeddingBag(Module):
    """The sum, mean (default) or max of the embeddings of each bag of indices, without building the
    ``(bags, length, embedding_dim)`` tensor in between: ``input`` 2-D (one bag per row) or 1-D with
    ``offsets``.  ``weight`` starts as N(0, 1), the ``padding_idx`` row at zero."""

    __constants__ = ["num_embeddings", "embedding_dim", "max_norm", "norm_type", "scale_grad_by_freq", "mode",
                     "sparse", "include_last_offset", "padding_idx"]

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                 mode="mean", sparse=False, _weight=None, include_last_offset=False, padding_idx=None,
                 device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type, self.scale_grad_by_freq = max_norm, norm_type, scale_grad_by_freq
        self.padding_idx = _padding_index(padding_idx, num_embeddings, "padding_idx")
        if _weight is None:
            self.weight = Parameter(empty((num_embeddings, embedding_dim), device=device, dtype=dtype))
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise AssertionError("Shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight)
        self.mode, self.sparse, self.include_last_offset = mode, sparse, include_last_offset

    def reset_parameters(self):
        """Draw the weight from N(0, 1) again, the ``padding_idx`` row zeroed (``torch/nn/modules/sparse.py``)."""
        init.normal_(self.weight)
        self._fill_padding_idx_with_zero()

    def _fill_padding_idx_with_zero(self):
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input, offsets=None, per_sample_weights=None):
        """``(bags, embedding_dim)``: one pooled embedding per bag."""
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                               self.mode, self.sparse, per_sample_weights, self.include_last_offset, self.padding_idx)

    def extra_repr(self):
        s = "{num_embeddings}, {embedding_dim}"
        if self.max_norm is not None:
            s += ", max_norm={max_norm}"
        if self.norm_type != 2:
            s += ", norm_type={norm_type}"
        if self.scale_grad_by_freq is not False:
            s += ", scale_grad_by_freq={scale_grad_by_freq}"
        s += ", mode={mode}"
        if self.padding_idx is not None:
            s += ", padding_idx={padding_idx}"
        return s.format(**{k: repr(v) for k, v in self.__dict__.items()})

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                        mode="mean", sparse=False, include_last_offset=False, padding_idx=None):
        """An EmbeddingBag whose weight is ``embeddings`` (frozen unless ``freeze=False``)
        (``torch/nn/modules/sparse.py``)."""
        if embeddings.dim() != 2:
            raise AssertionError("Embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        bag = cls(num_embeddings=rows, embedding_dim=cols, _weight=embeddings, max_norm=max_norm, norm_type=norm_type,
                  scale_grad_by_freq=scale_grad_by_freq, mode=mode, sparse=sparse,
                  include_last_offset=include_last_offset, padding_idx=padding_idx)
        bag.weight.requires_grad = not freeze
        return bag


def _padding_index(padding_idx, num_embeddings, name):
    """``padding_idx`` counted from the front (a negative one from the end), checked to lie
    within the table; ``name`` is how PyTorch's message for this module spells it."""
    if padding_idx is None:
        return None
    if not -num_embeddings <= padding_idx < num_embeddings:
        raise AssertionError(f"{name} must be within num_embeddings")
    return padding_idx % num_embeddings
