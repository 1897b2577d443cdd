"""PyTorch's reinforcement-learning examples without gym: REINFORCE (examples/reinforcement_learning/
reinforce.py: a softmax policy, Categorical sample/log_prob, normalised returns) on a small
cart-pole written in plain Python, then a one-step actor-critic with a Gaussian policy
(Normal rsample, log_prob, entropy) and a VAE-style KL term (kl_divergence against N(0, 1))."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical, Normal, kl_divergence


class CartPole:
    """The classic cart-pole dynamics (Euler steps), deterministic given the start state."""

    def __init__(self, start):
        self.state = list(start)

    def step(self, action):
        x, x_dot, theta, theta_dot = self.state
        force = 10.0 if action == 1 else -10.0
        cos, sin = math.cos(theta), math.sin(theta)
        temp = (force + 0.05 * theta_dot ** 2 * sin) / 1.1
        theta_acc = (9.8 * sin - cos * temp) / (0.5 * (4.0 / 3.0 - 0.1 * cos ** 2 / 1.1))
        x_acc = temp - 0.05 * theta_acc * cos / 1.1
        self.state = [x + 0.02 * x_dot, x_dot + 0.02 * x_acc, theta + 0.02 * theta_dot,
                      theta_dot + 0.02 * theta_acc]
        done = abs(self.state[0]) > 2.4 or abs(self.state[2]) > 12 * 2 * math.pi / 360
        return self.state, 1.0, done


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 128)
        self.dropout = nn.Dropout(p=0.6)
        self.affine2 = nn.Linear(128, 2)
        self.saved_log_probs = []
        self.rewards = []

    def forward(self, x):
        x = self.affine1(x)
        x = self.dropout(x)
        x = F.relu(x)
        action_scores = self.affine2(x)
        return F.softmax(action_scores, dim=1)


torch.manual_seed(543)
policy = Policy()
optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
eps = torch.finfo(torch.float32).eps
gamma = 0.99


def select_action(state):
    state = torch.tensor(state).float().unsqueeze(0)
    probs = policy(state)
    m = Categorical(probs)
    action = m.sample()
    policy.saved_log_probs.append(m.log_prob(action))
    return action.item()


def finish_episode():
    R = 0
    policy_loss = []
    returns = []
    for r in policy.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    for log_prob, R in zip(policy.saved_log_probs, returns):
        policy_loss.append(-log_prob * R)
    optimizer.zero_grad()
    policy_loss = torch.cat(policy_loss).sum()
    policy_loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_log_probs[:]
    return policy_loss.item()


running_reward = 10
for i_episode in range(1, 9):
    start = (torch.rand(4) * 0.1 - 0.05).tolist()
    env, ep_reward = CartPole(start), 0
    state = env.state
    for t in range(1, 200):
        action = select_action(state)
        state, reward, done = env.step(action)
        policy.rewards.append(reward)
        ep_reward += reward
        if done:
            break
    running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
    loss = finish_episode()
    print(f"Episode {i_episode}\tLast reward: {ep_reward:.2f}\tAverage reward: {running_reward:.2f}"
          f"\tloss {loss:.4f}")

m = Categorical(logits=torch.tensor([[0.5, 1.5, -1.0], [2.0, 0.0, 0.0]]))
print(m)
print(m.probs)
print(m.sample((4,)))
print(m.entropy())
print(m.log_prob(torch.tensor([1, 0])))


class ActorCritic(nn.Module):
    """A Gaussian policy head and a value head on a shared layer."""

    def __init__(self):
        super().__init__()
        self.shared = nn.Linear(3, 32)
        self.mu = nn.Linear(32, 1)
        self.log_std = nn.Parameter(torch.zeros(1))
        self.value = nn.Linear(32, 1)

    def forward(self, x):
        h = torch.tanh(self.shared(x))
        return Normal(self.mu(h), self.log_std.exp()), self.value(h)


torch.manual_seed(0)
model = ActorCritic()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
target = torch.tensor([[0.7]])
for step in range(6):
    state = torch.randn(1, 3)
    dist, value = model(state)
    action = dist.rsample()
    reward = -(action - target).pow(2).detach()
    advantage = reward - value.detach()
    actor_loss = -(dist.log_prob(action.detach()) * advantage).mean() - 0.01 * dist.entropy().mean()
    critic_loss = F.smooth_l1_loss(value, reward)
    optimizer.zero_grad()
    (actor_loss + critic_loss).backward()
    optimizer.step()
    print(f"step {step} action {action.item():.4f} actor {actor_loss.item():.4f} "
          f"critic {critic_loss.item():.4f} std {model.log_std.exp().item():.4f}")

torch.manual_seed(1)
mu, log_var = torch.randn(4, 2, requires_grad=True), torch.randn(4, 2, requires_grad=True)
q = Normal(mu, (0.5 * log_var).exp())
z = q.rsample()
kl = kl_divergence(q, Normal(torch.zeros_like(mu), torch.ones_like(mu))).sum()
kl.backward()
print(z)
print(f"kl {kl.item():.4f}")
print(mu.grad)
print(q.batch_shape, q.event_shape, q.support)
