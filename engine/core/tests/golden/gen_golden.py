"""Golden values for neptune_core, computed with PyTorch as the NePTuNe reference code does.

Run with Debian's PyTorch (not the pyenv python first on PATH):

    /usr/bin/python3 engine/core/tests/golden/gen_golden.py

It writes golden.json beside this file; tests/golden.rs reads it. Everything is float64, dropout
is 0 (so the RNG does not matter), BatchNorm is in training mode, the activation is PReLU, and the
loss is the reference's BCELoss(sigmoid(logits), (1 - eps) * y + 1 / N). Two Adam steps on the
same batch are recorded so the bias correction of the second step is checked too.
"""
import json
import os

import torch

torch.set_default_dtype(torch.float64)
torch.manual_seed(1234)

N, NR, DE, DR = 7, 3, 4, 3
EPS_LS, LR = 0.1, 0.01
heads = [0, 3, 0, 5, 2]
rels = [1, 1, 2, 0, 1]
tails = [[2, 3], [0], [6], [1, 2, 4], [5]]


class NePTuNe(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.E = torch.nn.Embedding(N, DE)
        self.R = torch.nn.Embedding(NR, DR)
        self.W = torch.nn.Parameter(torch.empty(DR, DE, DE).uniform_(-0.5, 0.5))
        self.input_dropout = torch.nn.Dropout(0.0)
        self.hidden_dropout1 = torch.nn.Dropout(0.0)
        self.hidden_dropout2 = torch.nn.Dropout(0.0)
        self.bn0 = torch.nn.BatchNorm1d(DE)
        self.bn1 = torch.nn.BatchNorm1d(DE)
        self.act = torch.nn.PReLU()
        with torch.no_grad():
            self.bn0.weight.uniform_(0.5, 1.5)
            self.bn0.bias.uniform_(-0.2, 0.2)
            self.bn1.weight.uniform_(0.5, 1.5)
            self.bn1.bias.uniform_(-0.2, 0.2)

    def forward(self, e1_idx, r_idx):
        e1 = self.E(e1_idx)
        x = self.bn0(e1)
        x = self.input_dropout(x)
        x = x.view(-1, 1, DE)
        r = self.R(r_idx)
        w_mat = torch.mm(r, self.W.view(r.size(1), -1)).view(-1, DE, DE)
        w_mat = self.hidden_dropout1(w_mat)
        x = torch.bmm(x, w_mat).view(-1, DE)
        x = self.bn1(x)
        x = self.hidden_dropout2(x)
        x = self.act(x)
        return torch.mm(x, self.input_dropout(self.E.weight).transpose(1, 0))


def flat(t):
    return [float(v) for v in t.detach().reshape(-1).tolist()]


def tensors(m):
    return {
        "E": flat(m.E.weight), "R": flat(m.R.weight), "W": flat(m.W),
        "bn0.weight": flat(m.bn0.weight), "bn0.bias": flat(m.bn0.bias),
        "bn1.weight": flat(m.bn1.weight), "bn1.bias": flat(m.bn1.bias),
        "prelu.weight": flat(m.act.weight),
    }


model = NePTuNe()
model.train()
initial = tensors(model)
opt = torch.optim.Adam(model.parameters(), lr=LR)
y = torch.zeros(len(heads), N)
for i, ts in enumerate(tails):
    y[i, ts] = 1.0
y = (1.0 - EPS_LS) * y + 1.0 / N
h_idx, r_idx = torch.tensor(heads), torch.tensor(rels)

steps = []
for _ in range(2):
    opt.zero_grad()
    logits = model(h_idx, r_idx)
    loss = torch.nn.BCELoss()(torch.sigmoid(logits), y)
    loss.backward()
    grads = {k: flat(p.grad) for k, p in zip(tensors(model).keys(), [
        model.E.weight, model.R.weight, model.W, model.bn0.weight, model.bn0.bias,
        model.bn1.weight, model.bn1.bias, model.act.weight])}
    running = {
        "bn0.running_mean": flat(model.bn0.running_mean), "bn0.running_var": flat(model.bn0.running_var),
        "bn1.running_mean": flat(model.bn1.running_mean), "bn1.running_var": flat(model.bn1.running_var),
    }
    opt.step()
    steps.append({"logits": flat(logits), "loss": float(loss), "grads": grads, "running": running,
                  "after_adam": tensors(model)})

out = {
    "source": "engine/core/tests/golden/gen_golden.py, torch " + torch.__version__,
    "n_ent": N, "n_rel": NR, "d_e": DE, "d_r": DR, "label_smoothing": EPS_LS, "lr": LR,
    "heads": heads, "rels": rels, "tails": tails, "initial": initial, "steps": steps,
}
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden.json")
with open(path, "w") as f:
    json.dump(out, f, indent=1)
print("wrote", path)
