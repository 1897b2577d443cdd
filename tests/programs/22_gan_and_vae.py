"""A GAN on 1-D data (two Adam optimizers, detach, BCEWithLogitsLoss, requires_grad_ toggling on the discriminator) and a small VAE (reparameterisation with randn_like, BCE with reduction="sum" plus the KL term)."""
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(1)
# GAN on 1-D data
G = nn.Sequential(nn.Linear(4, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
D = nn.Sequential(nn.Linear(1, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
optG = torch.optim.Adam(G.parameters(), lr=2e-3, betas=(0.5, 0.999)); optD = torch.optim.Adam(D.parameters(), lr=2e-3, betas=(0.5, 0.999))
crit = nn.BCEWithLogitsLoss()
for it in range(20):
    real = torch.randn(32, 1) * 0.5 + 2.0
    z = torch.randn(32, 4); fake = G(z)
    optD.zero_grad()
    lossD = crit(D(real), torch.ones_like(real)) + crit(D(fake.detach()), torch.zeros(32, 1))
    lossD.backward(); optD.step()
    for p in D.parameters(): p.requires_grad_(False)
    optG.zero_grad(); lossG = crit(D(fake), torch.ones(32, 1)); lossG.backward(); optG.step()
    for p in D.parameters(): p.requires_grad_(True)
    if it % 5 == 0: print(it, f"{lossD.item():.4f} {lossG.item():.4f}")
with torch.no_grad(): print(f"{G(torch.randn(256, 4)).mean().item():.3f}")
# VAE
class VAE(nn.Module):
    def __init__(self):
        super().__init__(); self.enc = nn.Linear(8, 6); self.mu = nn.Linear(6, 2); self.logvar = nn.Linear(6, 2); self.dec = nn.Linear(2, 8)
    def forward(self, x):
        h = F.relu(self.enc(x)); mu, logvar = self.mu(h), self.logvar(h)
        std = torch.exp(0.5 * logvar); eps = torch.randn_like(std); z = mu + eps * std
        return torch.sigmoid(self.dec(z)), mu, logvar
vae = VAE(); opt = torch.optim.Adam(vae.parameters(), lr=1e-2)
x = (torch.rand(64, 8) > 0.5).float()
for ep in range(15):
    recon, mu, logvar = vae(x)
    bce = F.binary_cross_entropy(recon, x, reduction="sum")
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    loss = (bce + kld) / x.size(0)
    opt.zero_grad(); loss.backward(); opt.step()
    if ep % 5 == 0: print(ep, f"{loss.item():.4f}", f"{kld.item():.4f}")
print(vae.dec.weight.grad.abs().max().item() > 0, recon.shape, mu.detach().std(0).round(decimals=3))
