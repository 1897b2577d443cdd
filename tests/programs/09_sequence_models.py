# Sequence models in the style of the "Sequence Models and LSTM Networks" tutorial: an LSTM tagger
# trained on a toy sentence task, and a GRU regressor over a DataLoader of noisy sine windows.
import math

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(1)
training_data = [("the dog ate the apple".split(), ["DET", "NN", "V", "DET", "NN"]),
                 ("everybody read that book".split(), ["NN", "V", "DET", "NN"])]
word_to_ix = {}
for sentence, _ in training_data:
    for word in sentence:
        word_to_ix.setdefault(word, len(word_to_ix))
tag_to_ix = {"DET": 0, "NN": 1, "V": 2}


class LSTMTagger(nn.Module):
    def __init__(self, embedding_dim, hidden_dim, vocab_size, tagset_size):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, embedding_dim)
        self.lstm = nn.LSTM(embedding_dim, hidden_dim)
        self.hidden2tag = nn.Linear(hidden_dim, tagset_size)

    def forward(self, sentence):
        embeds = self.word_embeddings(sentence)
        lstm_out, _ = self.lstm(embeds.view(len(sentence), 1, -1))
        tag_space = self.hidden2tag(lstm_out.view(len(sentence), -1))
        return nn.functional.log_softmax(tag_space, dim=1)


model = LSTMTagger(6, 6, len(word_to_ix), len(tag_to_ix))
print(model)
loss_function = nn.NLLLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(30):
    for sentence, tags in training_data:
        model.zero_grad()
        sentence_in = torch.tensor([word_to_ix[w] for w in sentence], dtype=torch.long)
        targets = torch.tensor([tag_to_ix[t] for t in tags], dtype=torch.long)
        loss = loss_function(model(sentence_in), targets)
        loss.backward()
        optimizer.step()
    if epoch % 10 == 9:
        print(f"epoch {epoch + 1}: loss {loss.item():.4f}")
with torch.no_grad():
    scores = model(torch.tensor([word_to_ix[w] for w in training_data[0][0]]))
    print(scores.argmax(dim=1))

t = torch.arange(0, 200, dtype=torch.float32) * 0.1
series = torch.sin(t) + 0.05 * torch.randn(200)
windows = torch.stack([series[i:i + 10] for i in range(180)]).unsqueeze(-1)
targets = torch.stack([series[i + 10] for i in range(180)]).unsqueeze(-1)
loader = DataLoader(TensorDataset(windows, targets), batch_size=32, shuffle=True)


class Regressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(1, 8, num_layers=2, batch_first=True)
        self.head = nn.Linear(8, 1)

    def forward(self, x):
        out, h_n = self.gru(x)
        return self.head(out[:, -1])


regressor = Regressor()
optimizer = torch.optim.Adam(regressor.parameters(), lr=0.01)
for epoch in range(3):
    total = 0.0
    for x, y in loader:
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(regressor(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(x)
    print(f"epoch {epoch + 1}: mse {total / len(windows):.5f}")
print(f"pi is still {math.pi:.4f}; hidden state shape {tuple(regressor.gru(windows[:3])[1].shape)}")
