"""``nn.MultiheadAttention``, the Transformer encoder and decoder layers and stacks, and
``nn.Transformer`` (``torch/nn/modules/activation.py``, ``torch/nn/modules/transformer.py``).

Attention follows ``F.multi_head_attention_forward``'s math path: one packed input projection,
heads as a batch of ``bmm``s, masks added to the scores before the softmax, heads averaged for
the returned weights.  Parameters, their order and initial values are PyTorch's (the output
projection draws its default weights, then ``_reset_parameters`` draws ``in_proj_weight``).
"""
import copy
import math
import warnings

from ..._creation import empty, zeros
from ..._ops import linalg
from .. import functional as F, init
from ..parameter import Parameter
from .container import ModuleList
from .dropout import Dropout
from .linear import Linear
from .module import Module
from .normalization import LayerNorm

__all__ = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer",
           "TransformerDecoder", "Transformer"]


class NonDynamicallyQuantizableLinear(Linear):
    """The output projection's class in PyTorch (a plain ``Linear``; the name shows in reprs)."""


def _as_additive(mask, name, dtype):
    """A boolean mask (True: do not attend) as ``-inf``/0 to add to scores; a float mask as is."""
    if mask is None:
        return None
    if mask._dtype.name == "bool":
        return zeros(mask.shape, dtype=dtype, device=mask.device).masked_fill(mask, float("-inf"))
    if not mask._dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask


class MultiheadAttention(Module):
    """Attention over ``num_heads`` heads of ``embed_dim // num_heads`` features each."""
    _torch_name = "torch.nn.modules.activation.MultiheadAttention"  # PyTorch's file for it

    __constants__ = ["batch_first"]

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and "
                             f"num_heads={num_heads} instead")
        if add_bias_kv or add_zero_attn or (kdim not in (None, embed_dim)) or (vdim not in (None, embed_dim)):
            raise NotImplementedError("nnref's MultiheadAttention has no add_bias_kv, add_zero_attn or "
                                      "separate kdim/vdim; PyTorch's has: project keys and values to embed_dim "
                                      "first")
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.embed_dim, self.kdim, self.vdim = embed_dim, embed_dim, embed_dim
        self._qkv_same_embed_dim = True
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        self.in_proj_weight = Parameter(empty((3 * embed_dim, embed_dim), **factory_kwargs))
        self.register_parameter("q_proj_weight", None)
        self.register_parameter("k_proj_weight", None)
        self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, **factory_kwargs))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **factory_kwargs)
        self.bias_k = self.bias_v = None
        self.add_zero_attn = False
        self._reset_parameters()

    def _reset_parameters(self):
        init.xavier_uniform_(self.in_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        """``(attn_output, attn_weights)``; the weights are None unless ``need_weights``."""
        if is_causal and attn_mask is None:
            raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the Transformer "
                               "module method `generate_square_subsequent_mask` to create this mask.")
        batched = query.dim() == 3
        if self.batch_first and batched:
            query, key, value = (t.transpose(1, 0) for t in (query, key, value))
        if not batched:
            query, key, value = (t.unsqueeze(1) for t in (query, key, value))
            key_padding_mask = None if key_padding_mask is None else key_padding_mask.unsqueeze(0)
        output, weights = self._attend(query, key, value, key_padding_mask, need_weights, attn_mask,
                                       average_attn_weights)
        if not batched:
            output = output.squeeze(1)
            weights = None if weights is None else weights.squeeze(0)
        elif self.batch_first:
            output = output.transpose(1, 0)
        return output, weights

    def _attend(self, query, key, value, key_padding_mask, need_weights, attn_mask, average_attn_weights):
        tgt_len, bsz, embed_dim = query.shape
        src_len = key.shape[0]
        if embed_dim != self.embed_dim:
            raise AssertionError(f"was expecting embedding dimension of {self.embed_dim}, but got {embed_dim}")
        heads, head_dim = self.num_heads, self.head_dim
        w, b = self.in_proj_weight, self.in_proj_bias
        w_q, w_k, w_v = w.chunk(3)
        b_q, b_k, b_v = b.chunk(3) if b is not None else (None, None, None)
        q, k, v = F.linear(query, w_q, b_q), F.linear(key, w_k, b_k), F.linear(value, w_v, b_v)
        q = q.reshape(tgt_len, bsz * heads, head_dim).transpose(0, 1)
        k = k.reshape(src_len, bsz * heads, head_dim).transpose(0, 1)
        v = v.reshape(src_len, bsz * heads, head_dim).transpose(0, 1)
        mask = _as_additive(attn_mask, "attn_mask", query.dtype)
        if mask is not None and mask.dim() == 2:
            if tuple(mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {mask.shape}, but should be "
                                   f"{(tgt_len, src_len)}.")
            mask = mask.unsqueeze(0)
        elif mask is not None and tuple(mask.shape) != (bsz * heads, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {mask.shape}, but should be "
                               f"{(bsz * heads, tgt_len, src_len)}.")
        padding = _as_additive(key_padding_mask, "key_padding_mask", query.dtype)
        if padding is not None:
            if tuple(padding.shape) != (bsz, src_len):
                raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but got "
                                     f"{tuple(padding.shape)}")
            padding = padding.view(bsz, 1, 1, src_len).expand(-1, heads, -1, -1).reshape(bsz * heads, 1, src_len)
            mask = padding if mask is None else mask + padding
        scores = linalg.bmm(q * math.sqrt(1.0 / float(head_dim)), k.transpose(-2, -1))
        if mask is not None:
            scores = scores + mask
        weights = F.softmax(scores, dim=-1)
        if self.dropout > 0.0 and self.training:
            weights = F.dropout(weights, p=self.dropout)
        output = linalg.bmm(weights, v).transpose(0, 1).contiguous().view(tgt_len * bsz, embed_dim)
        output = F.linear(output, self.out_proj.weight, self.out_proj.bias).view(tgt_len, bsz, embed_dim)
        if not need_weights:
            return output, None
        weights = weights.view(bsz, heads, tgt_len, src_len)
        return output, (weights.mean(dim=1) if average_attn_weights else weights)


def _activation(activation):
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    if isinstance(activation, str):
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return activation


class TransformerEncoderLayer(Module):
    """Self-attention then a two-layer feed-forward block, each with a residual and a LayerNorm."""

    __constants__ = ["norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            **factory_kwargs)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory_kwargs)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory_kwargs)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        activation = _activation(activation)
        from .activation import GELU, ReLU
        self.activation_relu_or_gelu = (1 if activation is F.relu or isinstance(activation, ReLU) else
                                        2 if activation is F.gelu or isinstance(activation, GELU) else 0)
        self.activation = activation

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask)
            return x + self._ff_block(self.norm2(x))
        x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask))
        return self.norm2(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerEncoder(Module):
    """``num_layers`` deep copies of ``encoder_layer``, applied in turn, then ``norm`` if given."""

    __constants__ = ["norm"]

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm
        self.enable_nested_tensor = self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        why_not = _why_no_nested_tensor(encoder_layer)
        if enable_nested_tensor and why_not:
            warnings.warn(f"enable_nested_tensor is True, but self.use_nested_tensor is False because {why_not}",
                          stacklevel=2)
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        output = src
        for layer in self.layers:
            output = layer(output, src_mask=mask, src_key_padding_mask=src_key_padding_mask)
        if self._pads_with_zeros(src, mask, src_key_padding_mask):
            # PyTorch's fast path runs the unpadded sequences as a nested tensor and pads the
            # result with zeros: the padded positions come out as 0.
            warnings.warn("The PyTorch API of nested tensors is in prototype stage and will change in the near "
                          "future. We recommend specifying layout=torch.jagged when constructing a nested tensor, "
                          "as this layout receives active development, has better operator coverage, and works "
                          "with torch.compile.", UserWarning, stacklevel=2)
            keep = src_key_padding_mask.logical_not()
            keep = keep if self.layers[0].self_attn.batch_first else keep.transpose(0, 1)
            output = output * keep.unsqueeze(-1)
        if self.norm is not None:
            output = self.norm(output)
        return output

    def _pads_with_zeros(self, src, mask, key_padding_mask):
        """The conditions of ``TransformerEncoder.forward``'s nested-tensor fast path."""
        from ...core.autograd.grad_mode import is_grad_enabled
        first = self.layers[0]
        if not self.use_nested_tensor or first.training or src.dim() != 3 or key_padding_mask is None:
            return False
        if mask is not None or key_padding_mask._dtype.name != "bool":
            return False
        if self.mask_check and not _left_aligned(key_padding_mask):
            return False
        parameters = [src] + list(first.parameters())
        return not (is_grad_enabled() and any(t.requires_grad for t in parameters))


def _left_aligned(key_padding_mask):
    """Every sequence's padding (True) comes after all of its tokens."""
    kept = key_padding_mask.logical_not().long()
    return bool((kept[:, 1:] <= kept[:, :-1]).all()) if key_padding_mask.shape[1] > 1 else True


def _why_no_nested_tensor(layer):
    name = "encoder_layer"
    if not isinstance(layer, TransformerEncoderLayer):
        return f"{name} was not TransformerEncoderLayer"
    if layer.norm_first:
        return f"{name}.norm_first was True"
    if not layer.self_attn.batch_first:
        return f"{name}.self_attn.batch_first was not True(use batch_first for better inference performance)"
    if layer.self_attn.in_proj_bias is None:
        return f"{name}.self_attn was passed bias=False"
    if not layer.activation_relu_or_gelu:
        return f"{name}.activation_relu_or_gelu was not True"
    if layer.norm1.eps != layer.norm2.eps:
        return f"{name}.norm1.eps was not equal to {name}.norm2.eps"
    if layer.self_attn.num_heads % 2 == 1:
        return f"{name}.self_attn.num_heads is odd"
    return ""



class TransformerDecoderLayer(Module):
    """Self-attention, attention over the encoder's ``memory``, then the feed-forward block; each
    with a residual and a LayerNorm (before the block with ``norm_first``)."""

    __constants__ = ["norm_first"]

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation=F.relu, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first, bias=bias,
                                            **factory_kwargs)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                                 bias=bias, **factory_kwargs)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **factory_kwargs)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **factory_kwargs)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation(activation)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask)
            return x + self._ff_block(self.norm3(x))
        x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask))
        x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask))
        return self.norm3(x + self._ff_block(x))

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, memory, attn_mask, key_padding_mask):
        x = self.multihead_attn(x, memory, memory, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))


class TransformerDecoder(Module):
    """``num_layers`` deep copies of ``decoder_layer``, applied in turn, then ``norm`` if given."""

    __constants__ = ["norm"]

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        output = tgt
        for layer in self.layers:
            output = layer(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                           tgt_key_padding_mask=tgt_key_padding_mask,
                           memory_key_padding_mask=memory_key_padding_mask)
        return output if self.norm is None else self.norm(output)


class Transformer(Module):
    """The encoder-decoder Transformer of "Attention Is All You Need": every matrix of the model
    re-drawn with ``xavier_uniform_`` after the layers are built, as in PyTorch."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation=F.relu, custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super().__init__()
        layer_options = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps, batch_first,
                         norm_first, bias)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            self.encoder = TransformerEncoder(TransformerEncoderLayer(*layer_options, **factory_kwargs),
                                              num_encoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            self.decoder = TransformerDecoder(TransformerDecoderLayer(*layer_options, **factory_kwargs),
                                              num_decoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **factory_kwargs))
        self._reset_parameters()
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        batched = src.dim() == 3
        if batched and src.shape[0 if self.batch_first else 1] != tgt.shape[0 if self.batch_first else 1]:
            raise RuntimeError("the batch number of src and tgt must be equal")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise RuntimeError("the feature number of src and tgt must be equal to d_model")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """A causal mask: ``-inf`` above the diagonal (a position may not attend to later ones), 0 elsewhere."""
        from ..._creation import full
        return full((sz, sz), float("-inf"), dtype=dtype, device=device).triu(diagonal=1)

    def _reset_parameters(self):
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
