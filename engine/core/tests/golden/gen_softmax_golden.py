"""Golden values for neptune_core's softmax cross-entropy (kernels::loss::softmax_fused).

Standard library only (any python3): `python3 engine/core/tests/golden/gen_softmax_golden.py`
writes softmax_golden.json beside this file; tests/golden_softmax.rs reads it.

The formula is the 1-N softmax cross-entropy of LibKGE's KvsAll/1vsAll training with its
KL / cross-entropy loss (Ruffinelli et al., "You CAN Teach an Old Dog New Tricks! On Training
Knowledge Graph Embeddings", ICLR 2020) and of PyKEEN's `CrossEntropyLoss` under the LCWA:
loss = mean over examples of -sum_j y_j log softmax(l)_j, with the label-smoothed target
y = (1 - eps) * [j in T] / |T| + eps / N. log softmax is computed here as l_j - log(sum exp l),
with the sum taken exactly over max-shifted terms (math.fsum), independently of the engine.
"""
import json
import math
import os
import random

random.seed(4321)
N = 11
CASES = []
for eps in (0.0, 0.1):
    logits = [[round(random.uniform(-6, 6), 3) for _ in range(N)] for _ in range(4)]
    logits[1][2] = 80.0
    logits[2][7] = -80.0
    tails = [[0], [2, 5], [10, 3, 7], [4]]
    loss, grads = 0.0, []
    for row, ts in zip(logits, tails):
        m = max(row)
        lse = m + math.log(math.fsum(math.exp(v - m) for v in row))
        y = [(1 - eps) * ts.count(j) / len(ts) + eps / N for j in range(N)]
        loss += -math.fsum(y[j] * (row[j] - lse) for j in range(N))
        grads.append([(math.exp(row[j] - lse) - y[j]) / len(logits) for j in range(N)])
    CASES.append({"eps": eps, "logits": logits, "tails": tails,
                  "loss": loss / len(logits), "grad": grads})

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "softmax_golden.json")
with open(path, "w") as f:
    json.dump({"source": "engine/core/tests/golden/gen_softmax_golden.py", "n_ent": N,
               "cases": CASES}, f, indent=1)
print("wrote", path)
