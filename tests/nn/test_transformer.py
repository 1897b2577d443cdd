"""nn.MultiheadAttention, nn.TransformerEncoderLayer and nn.TransformerEncoder against PyTorch:
parameters and their initial values after the same seed, outputs, attention weights and gradients
with and without masks, reprs, warnings, and the zeros PyTorch's fast path leaves at padded
positions."""
import warnings

import numpy as np
import pytest

import nnref

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
FLOAT_MASK = RNG.standard_normal((5, 5)).astype(np.float32)
X = RNG.standard_normal((5, 2, 8)).astype(np.float32)
Y = RNG.standard_normal((7, 2, 8)).astype(np.float32)


def flat(result):
    if isinstance(result, (tuple, list)):
        return [item for part in result for item in flat(part)]
    if isinstance(result, str):
        return [result]
    if isinstance(result, (nnref.Tensor, torch.Tensor)):
        return [result.detach().numpy()]
    return [result]


def outcome(case, m):
    m.manual_seed(0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = flat(case(m))
        except Exception as exc:
            result = [(type(exc).__name__, str(exc))]
    return result, [str(w.message)[:60] for w in caught]


def enc_layer(m, **kw):
    return m.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0, **kw)


def grads(m):
    attention = m.nn.MultiheadAttention(8, 2)
    x = m.tensor(X, requires_grad=True)
    out, weights = attention(x, x, x)
    (out.pow(2).sum() + weights.sum()).backward()
    return [x.grad] + [p.grad for p in attention.parameters()]


def padded_eval(m, **kw):
    encoder = m.nn.TransformerEncoder(enc_layer(m, batch_first=True), 2, **kw).eval()
    with m.no_grad():
        return encoder(m.tensor(X.transpose(1, 0, 2).copy()), src_key_padding_mask=m.tensor([[False] * 3 + [True] * 2, [False] * 5]))


CASES = {
    "parameters": lambda m: list(m.nn.MultiheadAttention(8, 2).state_dict().values()) + [list(m.nn.MultiheadAttention(8, 2).state_dict())],
    "repr": lambda m: [repr(m.nn.MultiheadAttention(8, 2)), repr(enc_layer(m))],
    "self_attention": lambda m: m.nn.MultiheadAttention(8, 2)(m.tensor(X), m.tensor(X), m.tensor(X)),
    "cross_attention": lambda m: m.nn.MultiheadAttention(8, 4)(m.tensor(X), m.tensor(Y), m.tensor(Y)),
    "batch_first_per_head": lambda m: m.nn.MultiheadAttention(8, 2, batch_first=True)(
        m.tensor(X), m.tensor(X), m.tensor(X), average_attn_weights=False),
    "bool_masks": lambda m: m.nn.MultiheadAttention(8, 2)(
        m.tensor(X), m.tensor(X), m.tensor(X), key_padding_mask=m.tensor([[False] * 4 + [True], [False] * 5]),
        attn_mask=m.triu(m.ones(5, 5, dtype=m.bool), 1)),
    "float_mask": lambda m: m.nn.MultiheadAttention(8, 2)(m.tensor(X), m.tensor(X), m.tensor(X), attn_mask=m.tensor(FLOAT_MASK)),
    "without_weights": lambda m: m.nn.MultiheadAttention(8, 2)(m.tensor(X), m.tensor(X), m.tensor(X), need_weights=False),
    "unbatched": lambda m: m.nn.MultiheadAttention(8, 2)(m.tensor(X[:, 0]), m.tensor(X[:, 0]), m.tensor(X[:, 0])),
    "without_bias": lambda m: m.nn.MultiheadAttention(8, 2, bias=False)(m.tensor(X), m.tensor(X), m.tensor(X)),
    "bad_mask_shape": lambda m: m.nn.MultiheadAttention(8, 2)(m.tensor(X), m.tensor(X), m.tensor(X), attn_mask=m.zeros(4, 4)),
    "heads_must_divide": lambda m: m.nn.MultiheadAttention(8, 3),
    "gradients": grads,
    "encoder_layer": lambda m: enc_layer(m)(m.tensor(X)),
    "encoder_layer_parameters": lambda m: list(enc_layer(m).state_dict().values()) + [list(enc_layer(m).state_dict())],
    "encoder_layer_norm_first_gelu": lambda m: enc_layer(m, norm_first=True, activation="gelu", batch_first=True)(m.tensor(X)),
    "encoder": lambda m: m.nn.TransformerEncoder(enc_layer(m), 2)(m.tensor(X)),
    "encoder_with_norm": lambda m: m.nn.TransformerEncoder(enc_layer(m, batch_first=True), 2, norm=m.nn.LayerNorm(8))(m.tensor(X)),
    "causal_mask": lambda m: m.nn.Transformer.generate_square_subsequent_mask(4),
    "decoder_layer": lambda m: m.nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0)(
        m.tensor(Y[:4]), m.tensor(X), tgt_mask=m.nn.Transformer.generate_square_subsequent_mask(4)),
    "decoder_layer_norm_first": lambda m: m.nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0, norm_first=True)(
        m.tensor(Y[:4]), m.tensor(X), memory_key_padding_mask=m.tensor([[False] * 4 + [True], [False] * 5])),
    "decoder": lambda m: m.nn.TransformerDecoder(m.nn.TransformerDecoderLayer(8, 2, dim_feedforward=16, dropout=0.0), 2,
                                                 norm=m.nn.LayerNorm(8))(m.tensor(Y[:4]), m.tensor(X)),
    "transformer": lambda m: m.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1,
                                              dim_feedforward=16, dropout=0.0)(
        m.tensor(X), m.tensor(Y[:4]), tgt_mask=m.nn.Transformer.generate_square_subsequent_mask(4)),
    "transformer_batch_first": lambda m: m.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                                          dim_feedforward=16, dropout=0.0, batch_first=True)(
        m.tensor(X.transpose(1, 0, 2).copy()), m.tensor(Y[:4].transpose(1, 0, 2).copy())),
    "transformer_parameters": lambda m: [list(m.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                                               dim_feedforward=16).state_dict().items())],
    "transformer_batch_mismatch": lambda m: m.nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1,
                                                             dim_feedforward=16)(m.tensor(X), m.tensor(Y[:4, :1])),
    "encoder_padded_in_eval": padded_eval,
    "encoder_padded_in_training": lambda m: m.nn.TransformerEncoder(enc_layer(m, batch_first=True), 2)(
        m.tensor(X.transpose(1, 0, 2).copy()), src_key_padding_mask=m.tensor([[False] * 3 + [True] * 2, [False] * 5])),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_pytorch(name):
    (theirs, their_warnings), (ours, our_warnings) = outcome(CASES[name], torch), outcome(CASES[name], nnref)
    assert our_warnings == their_warnings
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        if isinstance(b, np.ndarray):
            assert isinstance(a, np.ndarray) and a.shape == b.shape
            np.testing.assert_allclose(a, b, atol=1e-5)
        else:
            assert a == b


def test_padded_positions_are_zero_in_the_fast_path_only():
    with pytest.warns(UserWarning, match="nested tensors is in prototype stage"):
        ours = padded_eval(nnref)
    assert (ours[0, 3:] == 0).all() and (ours[0, :3] != 0).all()


def test_unsupported_options_say_so():
    with pytest.raises(NotImplementedError, match="add_bias_kv"):
        nnref.nn.MultiheadAttention(8, 2, add_bias_kv=True)
