#!/usr/bin/python3
"""CPU-time microbenchmark of the FB15k-237 / WN18RR batch's big kernels under torch + OpenBLAS.

Reports process CPU seconds (robust to other tenants when --threads 1) and wall seconds per call.
  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE OPENBLAS_NUM_THREADS=1 /usr/bin/python3 \
      bench/peer/microbench.py --threads 1
"""
import argparse
import json
import os
import time

import torch


def bench(fn, flops, reps):
    fn()
    c, t = time.process_time(), time.perf_counter()
    for _ in range(reps):
        fn()
    cpu, wall = (time.process_time() - c) / reps, (time.perf_counter() - t) / reps
    out = {"cpuMs": round(cpu * 1e3, 2), "wallMs": round(wall * 1e3, 2)}
    if flops:
        out["gflopsPerCpuSecond"] = round(flops / cpu / 1e9, 1)
        out["gflopsWall"] = round(flops / wall / 1e9, 1)
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--reps", type=int, default=10)
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    B, res = 128, {}
    for name, (n, d_e, d_r) in {"fb15k-237": (14541, 200, 150), "wn18rr": (40943, 500, 30)}.items():
        r, W = torch.randn(B, d_r), torch.randn(d_r, d_e * d_e)          # [B,d_r], [d_r,d_e²]
        dA = torch.randn(B, d_e * d_e)                                     # [B,d_e²]
        x, E = torch.randn(B, d_e), torch.randn(n, d_e)                    # [B,d_e], [N,d_e]
        A = torch.empty(B, d_e, d_e)
        res[name] = {
            "R[r]@W [B,d_r]x[d_r,d_e^2]": bench(lambda: r @ W, 2 * B * d_r * d_e * d_e, args.reps),
            "dW = R^T dA [d_r,B]x[B,d_e^2]": bench(lambda: r.t() @ dA, 2 * B * d_r * d_e * d_e, args.reps),
            "logits x@E^T [B,d_e]x[d_e,N]": bench(lambda: x @ E.t(), 2 * B * d_e * n, args.reps),
            "bernoulli_ on A [B,d_e,d_e]": bench(lambda: A.bernoulli_(0.8), 0, args.reps),
            "bernoulli_ on E [N,d_e]": bench(lambda: torch.empty_like(E).bernoulli_(0.7), 0, args.reps),
        }
    print(json.dumps({"threads": args.threads, "loadavg": os.getloadavg(), "results": res}, indent=1))


if __name__ == "__main__":
    main()
