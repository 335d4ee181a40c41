"""Filtered ranking evaluation: every query (h, r, t) of a split and of its reversal is ranked
against all N entities on logits, with the other known tails of (h, r) in train+valid+test
filtered out. Tie rule: rank = mean of the optimistic (1 + #greater) and pessimistic
(#greater-or-equal, the target included) ranks.
"""
import torch


class Evaluator:
    def __init__(self, data, batch_size=512, device="cpu"):
        self.data = data
        self.batch_size = batch_size
        filt = data.filter_index()
        self.queries, self.filters = {}, {}
        for split in ("valid", "test"):
            q = data.splits[split]                            # [Q, 3] with reversals
            lists = [filt[(h, r)] for h, r in q[:, :2].tolist()]
            counts = torch.tensor([len(x) for x in lists], dtype=torch.long)
            offsets = torch.zeros(len(lists) + 1, dtype=torch.long)
            offsets[1:] = torch.cumsum(counts, 0)
            self.queries[split] = q.to(device)
            self.filters[split] = (offsets.to(device), torch.cat(lists).to(device))  # CSR over queries

    @torch.no_grad()
    def ranks(self, model, split):
        """Float ranks [Q] (halves possible) for every query of the split, in model.eval()."""
        was_training = model.training
        model.eval()
        q = self.queries[split]
        offsets, tails = self.filters[split]
        out = []
        for s in range(0, len(q), self.batch_size):
            b = q[s:s + self.batch_size]                      # [B, 3]
            logits = model(b[:, 0], b[:, 1])                  # [B, N]
            rows = torch.arange(len(b), device=b.device)
            target = logits[rows, b[:, 2]].clone()            # [B]
            lo, hi = offsets[s], offsets[min(s + self.batch_size, len(q))]
            counts = offsets[s + 1:s + len(b) + 1] - offsets[s:s + len(b)]
            frows = torch.repeat_interleave(rows, counts)
            logits[frows, tails[lo:hi]] = float("-inf")       # every known tail, target included
            logits[rows, b[:, 2]] = target                    # then the target back
            greater = (logits > target.unsqueeze(1)).sum(1)   # [B]
            geq = (logits >= target.unsqueeze(1)).sum(1)      # [B], >= 1 (the target)
            out.append(((1 + greater) + geq).double() / 2.0)
        model.train(was_training)
        return torch.cat(out)

    def evaluate(self, model, split, per_relation=False):
        ranks = self.ranks(model, split)
        result = metrics(ranks)
        if per_relation:
            rels = self.queries[split][:, 1]
            result["perRelation"] = {
                self.data.relations[r]: metrics(ranks[rels == r])
                for r in torch.unique(rels).tolist()
            }
        return result


def metrics(ranks):
    """MRR, MR, Hits@1/3/10 of float ranks [Q]."""
    if len(ranks) == 0:
        return {"count": 0}
    return {
        "mrr": float((1.0 / ranks).mean()),
        "mr": float(ranks.mean()),
        "hits1": float((ranks <= 1).double().mean()),
        "hits3": float((ranks <= 3).double().mean()),
        "hits10": float((ranks <= 10).double().mean()),
        "count": int(len(ranks)),
    }
