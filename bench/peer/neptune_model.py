"""The NePTuNe model and loss, from docs/design.md "The NePTuNe model, exactly".

Shapes: B batch, N entities, d_e entity dim, d_r relation dim.
"""
import math

import torch
import torch.nn.functional as F
from torch import nn


class NePTuNe(nn.Module):
    def __init__(self, n_ent, n_rel, d_e, d_r, drop_in, drop_h1, drop_h2, act, init,
                 dedup_relations=False):
        super().__init__()
        self.E = nn.Parameter(torch.empty(n_ent, d_e))        # [N, d_e]
        self.R = nn.Parameter(torch.empty(n_rel, d_r))        # [n_rel, d_r]
        self.W = nn.Parameter(torch.empty(d_r, d_e, d_e))     # [d_r, d_e, d_e]
        self.bn0 = nn.BatchNorm1d(d_e, eps=1e-5, momentum=0.1)
        self.bn1 = nn.BatchNorm1d(d_e, eps=1e-5, momentum=0.1)
        self.drop_in = nn.Dropout(drop_in)
        self.drop_h1 = nn.Dropout(drop_h1)
        self.drop_h2 = nn.Dropout(drop_h2)
        self.act = {
            "prelu": lambda: nn.PReLU(num_parameters=1, init=0.25),
            "leakyrelu": lambda: nn.LeakyReLU(0.01),
            "relu": lambda: nn.ReLU(),
        }[act]()
        self.d_e, self.d_r = d_e, d_r
        self.dedup_relations = dedup_relations
        self.reset_parameters(init)

    @torch.no_grad()
    def reset_parameters(self, init):
        if init == "kaiming":
            # U(+-sqrt(6 / fan_in)), fan_in = the embedding width (dim 1 of the matrix)
            for p in (self.E, self.R):
                bound = math.sqrt(6.0 / p.shape[1])
                p.uniform_(-bound, bound)
            self.W.uniform_(-0.01, 0.01)
        elif init == "xavier":
            # N(0, 2 / (fan_in + fan_out)) with torch's fan convention for a 2-D weight
            for p in (self.E, self.R):
                std = math.sqrt(2.0 / (p.shape[0] + p.shape[1]))
                p.normal_(0.0, std)
            self.W.uniform_(-0.5, 0.5)
        else:
            raise ValueError(f"unknown init {init!r}")

    def core(self, r):
        """A = R[r] @ W as [B, d_e, d_e], before dropout_h1.

        With dedup_relations the product is taken once per distinct relation and gathered: the
        same values and gradients, fewer FLOPs (the design's first exact saving).
        """
        Wm = self.W.view(self.d_r, self.d_e * self.d_e)       # [d_r, d_e*d_e]
        if self.dedup_relations:
            uniq, inv = torch.unique(r, return_inverse=True)  # [U], [B]
            Au = (self.R[uniq] @ Wm).view(-1, self.d_e, self.d_e)  # [U, d_e, d_e]
            return Au[inv]                                    # [B, d_e, d_e]
        return (self.R[r] @ Wm).view(-1, self.d_e, self.d_e)  # [B, d_e, d_e]

    def query(self, h, r):
        """q(h, r) [B, d_e]: the vector every entity is scored against."""
        x = self.drop_in(self.bn0(self.E[h]))                 # [B, d_e]
        A = self.drop_h1(self.core(r))                        # [B, d_e, d_e], mask per element
        x = torch.bmm(x.unsqueeze(1), A).squeeze(1)           # [B, d_e]
        return self.act(self.drop_h2(self.bn1(x)))            # [B, d_e]

    def forward(self, h, r):
        """Logits [B, N]. In training the whole E goes through dropout_in (one mask a batch)."""
        return self.query(h, r) @ self.drop_in(self.E).t()    # [B, d_e] @ [d_e, N]


def smoothed_bce(logits, y, eps):
    """Mean over B x N of BCE(sigmoid(logits), y') with y' = (1 - eps) y + 1/N.

    binary_cross_entropy_with_logits evaluates max(z,0) - z y' + log1p(exp(-|z|)), which is
    stable for any z; note the added term is 1/N (the reference), not eps/N.
    """
    n = logits.shape[1]
    target = y * (1.0 - eps) + 1.0 / n                        # [B, N]
    return F.binary_cross_entropy_with_logits(logits, target, reduction="mean")
