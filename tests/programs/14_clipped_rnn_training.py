# A variable-length sequence classifier as training scripts write it: random token sequences padded
# with pad_sequence, packed with pack_padded_sequence (unsorted lengths), an embedding + LSTM whose
# final hidden states feed a linear head, trained with Adam and clip_grad_norm_ (printing the norm
# before clipping; losses to 4 places: the recurrences drift in the last float32 bits), then a
# bidirectional GRU tagger on the same batches with pad_packed_sequence and clip_grad_value_.
import torch
from torch import nn
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence, pad_sequence

torch.manual_seed(0)
VOCAB, CLASSES = 12, 3
lengths = torch.randint(2, 9, (16,))
sequences = [torch.randint(1, VOCAB, (int(n),)) for n in lengths]
labels = torch.tensor([int(s.sum()) % CLASSES for s in sequences])
padded = pad_sequence(sequences, batch_first=True)
print("padded:", padded.shape, padded.dtype, "lengths:", lengths.tolist())
print(padded[:3])


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 8, padding_idx=0)
        self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True)
        self.head = nn.Linear(16, CLASSES)

    def forward(self, tokens, lengths):
        packed = pack_padded_sequence(self.embed(tokens), lengths, batch_first=True, enforce_sorted=False)
        _, (h_n, _) = self.lstm(packed)
        return self.head(h_n[-1])


model = Classifier()
optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
loss_fn = nn.CrossEntropyLoss()
packed = pack_padded_sequence(model.embed(padded), lengths, batch_first=True, enforce_sorted=False)
print("batch_sizes:", packed.batch_sizes.tolist())
print("sorted_indices:", packed.sorted_indices.tolist())
print("data:", packed.data.shape, packed.data.grad_fn.name())
for step in range(8):
    optimizer.zero_grad()
    loss = loss_fn(model(padded, lengths), labels)
    loss.backward()
    norm = nn.utils.clip_grad_norm_(model.parameters(), max_norm=0.5)
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}  grad norm {norm.item():.5f}")
with torch.no_grad():
    predictions = model(padded, lengths).argmax(1)
print("accuracy:", (predictions == labels).float().mean().item())


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, 6)
        self.gru = nn.GRU(6, 5, bidirectional=True)
        self.out = nn.Linear(10, 2)

    def forward(self, tokens, lengths):
        packed = pack_padded_sequence(self.embed(tokens), lengths, enforce_sorted=False)
        output, h_n = self.gru(packed)
        unpacked, out_lengths = pad_packed_sequence(output, total_length=tokens.shape[0])
        return self.out(unpacked), out_lengths, h_n


tagger = Tagger()
time_major = padded.t()
targets = (time_major % 2).long()
mask = torch.arange(time_major.shape[0])[:, None] < lengths[None, :]
sgd = torch.optim.SGD(tagger.parameters(), lr=0.5, momentum=0.9)
for step in range(6):
    sgd.zero_grad()
    scores, out_lengths, h_n = tagger(time_major, lengths)
    loss = nn.functional.cross_entropy(scores[mask], targets[mask])
    loss.backward()
    norm = nn.utils.clip_grad_norm_(tagger.parameters(), 1.0, norm_type=float("inf"))
    nn.utils.clip_grad_value_(tagger.parameters(), 0.05)
    sgd.step()
    print(f"tagger step {step}: loss {loss.item():.4f}  max |grad| {norm.item():.5f}  h_n {tuple(h_n.shape)}")
print("lengths back:", out_lengths.tolist())
vector = nn.utils.parameters_to_vector(tagger.parameters())
print("parameters:", vector.numel(), f"{vector.norm().item():.4f}")
