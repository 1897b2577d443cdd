# A tiny transformer classifier (embedding, positional parameters, a two-layer encoder with a
# padding mask, mean pooling), trained a few steps with AdamW and a cosine schedule.
import torch
from torch import nn

torch.manual_seed(0)
vocab, d_model, seq = 20, 16, 6


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model, padding_idx=0)
        self.position = nn.Parameter(torch.zeros(1, seq, d_model))
        nn.init.trunc_normal_(self.position, std=0.02)
        layer = nn.TransformerEncoderLayer(d_model, nhead=4, dim_feedforward=32, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2)
        self.head = nn.Linear(d_model, 2)

    def forward(self, tokens):
        padding = tokens == 0
        x = self.encoder(self.embed(tokens) + self.position, src_key_padding_mask=padding)
        keep = (~padding).unsqueeze(-1).float()
        return self.head((x * keep).sum(1) / keep.sum(1))


model = Classifier()
print(model.encoder.layers[0].self_attn)
print(sum(p.numel() for p in model.parameters()), "parameters")
tokens = torch.randint(1, vocab, (8, seq))
tokens[::2, 4:] = 0
labels = (tokens[:, 0] > vocab // 2).long()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=6)
for step in range(6):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(tokens), labels)
    loss.backward()
    optimizer.step()
    scheduler.step()
    print(f"step {step}: loss {loss.item():.4f} lr {scheduler.get_last_lr()[0]:.5f}")
attention = nn.MultiheadAttention(8, 2, batch_first=True)
x = torch.randn(1, 3, 8)
out, weights = attention(x, x, x, attn_mask=torch.triu(torch.ones(3, 3, dtype=torch.bool), 1))
print(weights.round(decimals=4))
