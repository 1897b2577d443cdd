"""A transformer the way current examples write one: a registered positional-encoding buffer, norm-first TransformerEncoder with a causal mask, MultiheadAttention weights, AdamW with no-decay parameter groups, a warmup LambdaLR, gradient accumulation, and scaled_dot_product_attention checked against the written-out formula."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=64):
        super().__init__()
        position = torch.arange(max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, 1, d_model)
        pe[:, 0, 0::2] = torch.sin(position * div_term); pe[:, 0, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe)
    def forward(self, x): return x + self.pe[: x.size(0)]
class Model(nn.Module):
    def __init__(self, vocab=20, d=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, d); self.pos = PositionalEncoding(d)
        layer = nn.TransformerEncoderLayer(d, 2, 32, dropout=0.0, batch_first=False, norm_first=True, activation="gelu")
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False); self.out = nn.Linear(d, vocab)
        self.attn = nn.MultiheadAttention(d, 2, batch_first=True)
    def forward(self, src):
        S = src.size(0)
        mask = torch.triu(torch.full((S, S), float("-inf")), diagonal=1)
        h = self.enc(self.pos(self.emb(src) * math.sqrt(16)), mask=mask, is_causal=True)
        a, w = self.attn(h.transpose(0, 1), h.transpose(0, 1), h.transpose(0, 1), need_weights=True)
        return self.out(h + a.transpose(0, 1)), w
model = Model()
no_decay = ["bias", "norm"]
groups = [{"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)], "weight_decay": 0.01},
          {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)], "weight_decay": 0.0}]
opt = torch.optim.AdamW(groups, lr=1e-3)
warm, total = 3, 12
sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min((s + 1) / warm, max(0.0, (total - s) / (total - warm))))
src = torch.randint(0, 20, (10, 4)); tgt = torch.roll(src, -1, 0)
accum = 2
for step in range(total):
    logits, w = model(src)
    loss = F.cross_entropy(logits.reshape(-1, 20), tgt.reshape(-1)) / accum
    loss.backward()
    if (step + 1) % accum == 0:
        opt.step(); opt.zero_grad(); sched.step()
    if step % 4 == 0: print(step, f"{loss.item() * accum:.4f}", [f"{g['lr']:.2e}" for g in opt.param_groups], tuple(w.shape))
q = torch.randn(2, 3, 5, 8); k = torch.randn(2, 3, 5, 8); v = torch.randn(2, 3, 5, 8)
print(F.scaled_dot_product_attention(q, k, v, is_causal=True).sum().item().__round__(4))
scores = (q @ k.transpose(-2, -1)) / math.sqrt(8)
scores = scores.masked_fill(torch.tril(torch.ones(5, 5)) == 0, float("-inf"))
print(torch.allclose(scores.softmax(-1) @ v, F.scaled_dot_product_attention(q, k, v, is_causal=True), atol=1e-6))
print([n for n, _ in model.named_modules()][:6], len(list(model.buffers())))
