#!/usr/bin/python3
"""PyTorch peer of the NePTuNe engine: trains, evaluates and times one setting.

Run with Debian's torch, 2 threads, OpenBLAS tuning variables unset:
  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE /usr/bin/python3 bench/peer/neptune_torch.py \
      --data <datasets dir> --dataset FB15k-237 --preset fb15k-237 --epochs 1 --max-batches 100
Prints one JSON line per epoch and a final JSON line with "final": true.
"""
import argparse
import copy
import json
import os
import platform
import sys
import time
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from neptune_data import Dataset, batch_targets, make_batches  # noqa: E402
from neptune_eval import Evaluator  # noqa: E402
from neptune_model import NePTuNe, smoothed_bce  # noqa: E402

WHERE_TO_GET_THEM = (
    "Pass --data <dir> or set KGC_DATASETS to a folder holding FB15k-237/, WN18RR/, Kinship/, UMLS/ and "
    "Nations/, each with train.txt, valid.txt and test.txt: the public splits, as published with ConvE "
    "(https://github.com/TimDettmers/ConvE, data.tar.gz) or TuckER (https://github.com/ibalazevic/TuckER, data/).")

# The design's reference hyper-parameters (lr decay: 1.0 = none; the table gives no decay).
PRESETS = {
    "fb15k-237": dict(epochs=1500, lr=0.0005, lr_decay=1.0, dim_e=200, dim_r=150,
                      dropout_in=0.3, dropout_h1=0.2, dropout_h2=0.4, label_smoothing=0.1,
                      act="prelu", reverse="same", init="kaiming"),
    "wn18rr": dict(epochs=2500, lr=0.003, lr_decay=1.0, dim_e=500, dim_r=30,
                   dropout_in=0.1, dropout_h1=0.2, dropout_h2=0.7, label_smoothing=0.1,
                   act="leakyrelu", reverse="new", init="xavier"),
}
# composite ops whose inclusive time the profile reports (forward and autograd nodes)
TOTAL_KEYS = ("aten::dropout", "MulBackward0", "Optimizer.step#Adam.step", "aten::mm", "MmBackward0",
              "aten::bmm", "BmmBackward0", "aten::batch_norm", "NativeBatchNormBackward0",
              "aten::binary_cross_entropy_with_logits", "BinaryCrossEntropyWithLogitsBackward0",
              "aten::prelu", "aten::leaky_relu", "aten::index", "IndexBackward0", "aten::unique_dim",
              "aten::_unique2", "aten::zero_", "aten::repeat_interleave", "aten::index_put_")
PHASES = ("targets", "forward", "loss", "backward", "step")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dataset", required=True, help="a folder, or a name under --data")
    p.add_argument("--data", default=os.environ.get("KGC_DATASETS"),
                   help="folder holding the public datasets by name (default: $KGC_DATASETS)")
    p.add_argument("--preset", choices=sorted(PRESETS), default="fb15k-237")
    for name, kind in (("epochs", int), ("lr", float), ("lr-decay", float), ("dim-e", int),
                       ("dim-r", int), ("dropout-in", float), ("dropout-h1", float),
                       ("dropout-h2", float), ("label-smoothing", float)):
        p.add_argument(f"--{name}", type=kind, default=None, help="overrides the preset")
    p.add_argument("--act", choices=("prelu", "leakyrelu", "relu"), default=None)
    p.add_argument("--reverse", choices=("new", "same"), default=None,
                   help="reversed triples get relation r_reverse (new) or r's own id (same)")
    p.add_argument("--init", choices=("kaiming", "xavier"), default=None)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--eval-every", type=int, default=0, help="evaluate valid (and test) every k epochs; 0: at the end only")
    p.add_argument("--no-test", action="store_true", help="skip test evaluation at eval epochs")
    p.add_argument("--no-eval", action="store_true", help="no evaluation at all (timing runs)")
    p.add_argument("--per-relation", action="store_true", help="per-relation metrics in the final line")
    p.add_argument("--max-batches", type=int, default=0, help="stop each epoch after k batches (timing)")
    p.add_argument("--eval-seconds", action="store_true", help="time one evaluation of all valid queries at the end")
    p.add_argument("--profile", type=int, default=0, help="profile k batches with torch.profiler after training")
    p.add_argument("--dedup-relations", action="store_true", help="R[r] @ W once per distinct r (exact saving)")
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                   help="where the model, batches, loss and evaluation run")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    for k, v in PRESETS[args.preset].items():
        if getattr(args, k) is None:
            setattr(args, k, v)
    return args


def machine():
    cpu = "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    return {"nproc": os.cpu_count(), "cpu": cpu, "loadavg": os.getloadavg(),
            "torch": torch.__version__, "threads": torch.get_num_threads(),
            "python": platform.python_version(),
            "openblasEnv": {k: os.environ.get(k) for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")}}


def device_name(device):
    return torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"


def now(device):
    """time.perf_counter() once the device's queued work is done (cuda kernels run asynchronously)."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return time.perf_counter()


def train_batch(model, opt, idx, pairs, offsets, tails, n_ent, eps, clock):
    """One optimisation step; clock[phase] accumulates seconds. Returns the loss."""
    dev = pairs.device
    t0 = now(dev)
    idx = idx.to(dev)                                          # the permutation is drawn on the CPU
    y = batch_targets(idx, offsets, tails, n_ent)            # [B, N] multi-hot
    h, r = pairs[idx, 0], pairs[idx, 1]                        # [B], [B]
    t1 = now(dev)
    logits = model(h, r)                                       # [B, N]
    t2 = now(dev)
    loss = smoothed_bce(logits, y, eps)
    t3 = now(dev)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    t4 = now(dev)
    opt.step()
    t5 = now(dev)
    for name, a, b in zip(PHASES, (t0, t1, t2, t3, t4), (t1, t2, t3, t4, t5)):
        clock[name] += b - a
    return float(loss)


def run_epoch(model, opt, data_tr, args, gen, n_ent):
    pairs, offsets, tails = data_tr
    dev = pairs.device
    batches = make_batches(len(pairs), args.batch_size, gen)
    if args.max_batches:
        batches = batches[:args.max_batches]
    clock = dict.fromkeys(PHASES, 0.0)
    losses, times, cpu = [], [], []
    for idx in batches:
        t, c = now(dev), time.process_time()
        losses.append(train_batch(model, opt, idx, pairs, offsets, tails, n_ent,
                                  args.label_smoothing, clock))
        times.append(now(dev) - t)
        cpu.append(time.process_time() - c)               # all threads of this process
    return losses, (times, cpu), clock, len(batches)


def main(argv=None):
    args = parse_args(argv)
    if args.device == "cuda" and not torch.cuda.is_available():
        why = "a CPU-only build" if torch.version.cuda is None else f"CUDA {torch.version.cuda}, no usable GPU"
        print(f"neptune_torch.py: --device cuda but torch.cuda.is_available() is false "
              f"(torch {torch.__version__}: {why})", file=sys.stderr)
        sys.exit(2)
    dev = torch.device(args.device)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    folder = Path(args.dataset)
    if not folder.is_dir():
        if not args.data:
            sys.exit(f"{args.dataset} is not a folder and no dataset folder is set. {WHERE_TO_GET_THEM}")
        folder = Path(args.data) / args.dataset
    if not (folder / "train.txt").is_file():
        sys.exit(f"{folder} holds no train.txt. {WHERE_TO_GET_THEM}")
    t_load = time.perf_counter()
    data = Dataset(folder, args.reverse)
    data_tr = tuple(x.to(dev) for x in data.training_pairs())
    evaluator = Evaluator(data, device=dev)
    n_ent = data.n_entities
    full_batches = len(make_batches(len(data_tr[0]), args.batch_size, torch.Generator()))
    settings = {k: getattr(args, k) for k in PRESETS["wn18rr"]} | {
        "batchSize": args.batch_size, "seed": args.seed, "dedupRelations": args.dedup_relations}
    print(json.dumps({"dataset": folder.name, "preset": args.preset, "settings": settings,
                      "device": device_name(dev), "entities": n_ent, "relations": data.n_relations,
                      "trainPairs": len(data_tr[0]), "batchesPerEpoch": full_batches,
                      "loadSeconds": round(time.perf_counter() - t_load, 3),
                      "machine": machine()}), flush=True)

    model = NePTuNe(n_ent, data.n_relations, args.dim_e, args.dim_r, args.dropout_in,
                    args.dropout_h1, args.dropout_h2, args.act, args.init, args.dedup_relations).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.999), eps=1e-8,
                           weight_decay=0.0)
    sched = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=args.lr_decay)
    best = {"mrr": -1.0}
    last_eval = None
    for epoch in range(1, args.epochs + 1):
        model.train()
        t = now(dev)
        losses, times, clock, nb = run_epoch(model, opt, data_tr, args, gen, n_ent)
        line = {"epoch": epoch, "loss": sum(losses) / len(losses),
                "epochSeconds": round(now(dev) - t, 4)}
        if args.max_batches:
            wall, cpu = (x[1:] if len(x) > 1 else x for x in times)  # first batch warms caches
            per, per_cpu = sum(wall) / len(wall), sum(cpu) / len(cpu)
            line |= {"batches": nb, "batchSeconds": round(per, 5),
                     "extrapolatedEpochSeconds": round(per * full_batches, 2),
                     "cpuSecondsPerBatch": round(per_cpu, 5),
                     "extrapolatedEpochCpuSeconds": round(per_cpu * full_batches, 2),
                     "phaseMsPerBatch": {k: round(1000 * v / nb, 2) for k, v in clock.items()},
                     "loadavg": os.getloadavg()}
        sched.step()
        due = (args.eval_every and epoch % args.eval_every == 0) or epoch == args.epochs
        if due and not args.no_eval:
            te = now(dev)
            line["valid"] = evaluator.evaluate(model, "valid")
            if not args.no_test:
                line["test"] = evaluator.evaluate(model, "test")
            line["evalSeconds"] = round(now(dev) - te, 3)
            last_eval = epoch
            if line["valid"]["mrr"] > best["mrr"]:
                best = {"mrr": line["valid"]["mrr"], "epoch": epoch,
                        "state": copy.deepcopy(model.state_dict())}
        print(json.dumps(line), flush=True)

    final = {"final": True, "dataset": folder.name, "preset": args.preset, "epochs": args.epochs,
             "lastEvalEpoch": last_eval, "device": device_name(dev), "machine": machine()}
    if "state" in best:
        model.load_state_dict(best["state"])
        final["bestEpoch"] = best["epoch"]
        final["valid"] = evaluator.evaluate(model, "valid", args.per_relation)
        if not args.no_test:
            final["test"] = evaluator.evaluate(model, "test", args.per_relation)
    if args.eval_seconds:
        te = now(dev)
        evaluator.ranks(model, "valid")
        final["evalSeconds"] = round(now(dev) - te, 3)
        final["evalQueries"] = int(len(evaluator.queries["valid"]))
    if args.profile:
        final["profile"] = profile(model, opt, data_tr, args, gen, n_ent)
    print(json.dumps(final), flush=True)


def profile(model, opt, data_tr, args, gen, n_ent):
    """torch.profiler over k batches; the op table goes to stderr, the top ops into the JSON."""
    from torch.profiler import ProfilerActivity, profile as tprofile
    pairs, offsets, tails = data_tr
    batches = make_batches(len(pairs), args.batch_size, gen)[:args.profile + 1]
    clock = dict.fromkeys(PHASES, 0.0)
    model.train()
    train_batch(model, opt, batches[0], pairs, offsets, tails, n_ent, args.label_smoothing, clock)
    clock = dict.fromkeys(PHASES, 0.0)                        # the warm-up batch not counted
    cuda = [ProfilerActivity.CUDA] if pairs.device.type == "cuda" else []
    with tprofile(activities=[ProfilerActivity.CPU] + cuda) as prof:
        for idx in batches[1:]:
            train_batch(model, opt, idx, pairs, offsets, tails, n_ent, args.label_smoothing, clock)
    avg = prof.key_averages()
    print(avg.table(sort_by="self_cpu_time_total", row_limit=30), file=sys.stderr)
    k = max(1, len(batches) - 1)
    top = sorted(avg, key=lambda e: -e.self_cpu_time_total)[:25]
    total = {e.key: round(e.cpu_time_total / 1000 / k, 2) for e in avg if e.key in TOTAL_KEYS}
    return {"batches": k, "phaseMsPerBatch": {n: round(1000 * v / k, 2) for n, v in clock.items()},
            "totalMsPerBatch": total,
            "selfMsPerBatch": {e.key: round(e.self_cpu_time_total / 1000 / k, 2) for e in top}}


if __name__ == "__main__":
    main()
