"""TSV loading, vocabularies, training pairs and filter sets for the NePTuNe peer.

Triples are `head<TAB>relation<TAB>tail`, one a line. The entity vocabulary covers all three
splits and is sorted (as the reference code does), so ids are stable across runs.
"""
from collections import defaultdict
from pathlib import Path

import torch

REVERSE_SUFFIX = "_reverse"


def read_tsv(path):
    """List of (h, r, t) strings; names the file and line of a malformed row."""
    triples = []
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            line = line.rstrip("\r\n")
            if not line:
                continue
            parts = line.split("\t")
            if len(parts) != 3:
                raise ValueError(f"{path}:{lineno}: expected 3 tab-separated fields, got {len(parts)}")
            triples.append(tuple(parts))
    return triples


class Dataset:
    """Splits as id tensors, each followed by its reversed copy.

    reverse_mode: "new" gives reversed triples a new relation `r_reverse` (ids n_rel..2*n_rel-1 in
    sorted order of all names); "same" reuses r's id (the reference FB15k-237 setting).
    """

    def __init__(self, folder, reverse_mode="new"):
        assert reverse_mode in ("new", "same")
        folder = Path(folder)
        raw = {s: read_tsv(folder / f"{s}.txt") for s in ("train", "valid", "test")}
        ents = sorted({e for trs in raw.values() for h, _, t in trs for e in (h, t)})
        rels = sorted({r for trs in raw.values() for _, r, _ in trs})
        if reverse_mode == "new":
            rels = sorted(rels + [r + REVERSE_SUFFIX for r in rels])
        self.entities, self.relations = ents, rels
        self.ent_id = {e: i for i, e in enumerate(ents)}
        self.rel_id = {r: i for i, r in enumerate(rels)}
        self.reverse_mode = reverse_mode
        # split -> LongTensor [2*n_split, 3]: the split's triples, then their reversals
        self.splits = {s: self._ids_with_reverse(trs) for s, trs in raw.items()}
        self.n_raw = {s: len(trs) for s, trs in raw.items()}

    @property
    def n_entities(self):
        return len(self.entities)

    @property
    def n_relations(self):
        return len(self.relations)

    def _ids_with_reverse(self, triples):
        e, r = self.ent_id, self.rel_id
        suffix = REVERSE_SUFFIX if self.reverse_mode == "new" else ""
        fwd = [(e[h], r[rel], e[t]) for h, rel, t in triples]
        rev = [(e[t], r[rel + suffix], e[h]) for h, rel, t in triples]
        return torch.tensor(fwd + rev, dtype=torch.long).reshape(-1, 3)

    def training_pairs(self):
        """Unique (h, r) of train+reversed in first-seen order, and their tails.

        Returns pairs LongTensor [P, 2] and a CSR of tails: offsets [P+1], tails [sum].
        """
        return _group_tails(self.splits["train"])

    def filter_index(self):
        """(h, r) -> LongTensor of every tail known in train+valid+test (with reversals)."""
        allt = torch.cat([self.splits[s] for s in ("train", "valid", "test")])
        pairs, offsets, tails = _group_tails(allt)
        return {
            (int(h), int(r)): tails[offsets[i]:offsets[i + 1]]
            for i, (h, r) in enumerate(pairs.tolist())
        }


def _group_tails(triples):
    """Group [n, 3] triples by (h, r): pairs [P, 2], offsets [P+1], tails [n_unique_triples]."""
    groups = defaultdict(set)
    for h, r, t in triples.tolist():
        groups[(h, r)].add(t)
    pairs = torch.tensor(list(groups.keys()), dtype=torch.long).reshape(-1, 2)
    sizes = [len(v) for v in groups.values()]
    offsets = torch.zeros(len(sizes) + 1, dtype=torch.long)
    offsets[1:] = torch.cumsum(torch.tensor(sizes, dtype=torch.long), 0)
    tails = torch.tensor([t for v in groups.values() for t in sorted(v)], dtype=torch.long)
    return pairs, offsets, tails


def batch_targets(idx, offsets, tails, n_entities):
    """Multi-hot targets [B, N] (float32) for the pairs idx [B] from the CSR of tails, on idx's device."""
    starts, ends = offsets[idx], offsets[idx + 1]
    counts = ends - starts
    rows = torch.repeat_interleave(torch.arange(len(idx), device=idx.device), counts)
    # positions into `tails`: starts[row] + (0..count-1) per row
    within = torch.arange(int(counts.sum()), device=idx.device) - torch.repeat_interleave(
        torch.cumsum(counts, 0) - counts, counts)
    cols = tails[torch.repeat_interleave(starts, counts) + within]
    y = torch.zeros(len(idx), n_entities, device=idx.device)
    y[rows, cols] = 1.0
    return y


def make_batches(n_pairs, batch_size, generator):
    """A fresh permutation cut into batches. A final batch of one pair is folded into the one
    before it: BatchNorm cannot normalise a batch of one in training (the reference crashes
    there on Kinship)."""
    perm = torch.randperm(n_pairs, generator=generator)
    batches = list(torch.split(perm, batch_size))
    if len(batches) > 1 and len(batches[-1]) == 1:
        batches[-2] = torch.cat([batches[-2], batches.pop()])
    return batches
