"""A character-level GRU language model: Embedding, 2-layer GRU with dropout, cross-entropy over flattened logits, Adam with clip_grad_norm_, then sampling with temperature through multinomial and a Categorical."""
import math
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
text = "hello world, hello torch. " * 20
chars = sorted(set(text)); stoi = {c: i for i, c in enumerate(chars)}; itos = {i: c for c, i in stoi.items()}
data = torch.tensor([stoi[c] for c in text], dtype=torch.long)
class CharRNN(nn.Module):
    def __init__(self, vocab, hidden=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, 16); self.rnn = nn.GRU(16, hidden, num_layers=2, batch_first=True, dropout=0.1)
        self.head = nn.Linear(hidden, vocab)
    def forward(self, x, h=None):
        out, h = self.rnn(self.emb(x), h)
        return self.head(out), h
model = CharRNN(len(chars))
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
seq = 16
for step in range(30):
    ix = torch.randint(0, len(data) - seq - 1, (8,))
    xb = torch.stack([data[i:i + seq] for i in ix]); yb = torch.stack([data[i + 1:i + seq + 1] for i in ix])
    logits, _ = model(xb)
    loss = F.cross_entropy(logits.view(-1, logits.size(-1)), yb.view(-1))
    opt.zero_grad(); loss.backward(); norm = nn.utils.clip_grad_norm_(model.parameters(), 1.0); opt.step()
    if step % 10 == 0: print(f"step {step} loss {loss.item():.4f} norm {norm:.4f} ppl {math.exp(loss.item()):.2f}")
model.eval()
with torch.no_grad():
    x = torch.tensor([[stoi["h"]]]); h = None; out = "h"
    for _ in range(20):
        logits, h = model(x, h)
        probs = F.softmax(logits[:, -1] / 0.8, dim=-1)
        nxt = torch.multinomial(probs, num_samples=1)
        out += itos[nxt.item()]; x = nxt
    print(repr(out))
    dist = torch.distributions.Categorical(logits=logits[:, -1])
    print(dist.sample((3,)).tolist(), round(dist.entropy().item(), 4))
print(sum(p.numel() for p in model.parameters() if p.requires_grad))
print(model)
