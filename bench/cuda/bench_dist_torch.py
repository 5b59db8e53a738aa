"""torch's side of bench/cuda/bench_dist.sh, timed the way bench_dist.c times ours.

    python3 bench_dist_torch.py allreduce NRANKS MIB [ITERS BATCHES]
        torch.distributed.all_reduce (NCCL backend) of MIB MiB of float32, one process per GPU
        (torch.multiprocessing), in place; warm-up, then BATCHES batches of ITERS back-to-back
        calls each ended by torch.cuda.synchronize(), after a barrier; the median batch's time per
        call; bus bandwidth = bytes / time * 2 (n - 1) / n, as bench_dist.c.
    python3 bench_dist_torch.py sum LOG2N [REPS] | mean ROWS COLS [REPS]
        torch.sum / torch.mean(dim=1) on one GPU, for reference next to ours.
Prints one JSON line per case (rank 0 only)."""
import json
import os
import statistics
import sys
import time


def _allreduce_worker(rank, nranks, mib, iters, batches, port):
    import torch
    import torch.distributed as dist

    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=nranks)
    count = int(mib * 1024 * 1024 // 4)
    x = torch.rand(count, device="cuda", dtype=torch.float32)
    for _ in range(5):
        dist.all_reduce(x)
    torch.cuda.synchronize()
    per_call = []
    for _ in range(batches):
        dist.barrier()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(iters):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        per_call.append((time.perf_counter() - t0) / iters)
    ms = statistics.median(per_call) * 1e3
    nbytes = count * 4
    algbw = nbytes / (ms * 1e-3) / 1e9
    if rank == 0:
        print(json.dumps({"case": "allreduce", "impl": "torch", "mode": "one rank per process", "nranks": nranks,
                          "bytes": nbytes, "ms": round(ms, 4), "algbw": round(algbw, 2),
                          "busbw": round(algbw * 2 * (nranks - 1) / nranks, 2),
                          "torch": torch.__version__, "nccl": ".".join(map(str, torch.cuda.nccl.version()))}),
              flush=True)
    dist.destroy_process_group()


def _time_one_gpu(fn, reps):
    import torch

    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        ts.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(ts)


def main():
    case = sys.argv[1]
    if case == "allreduce":
        import torch.multiprocessing as mp

        nranks, mib = int(sys.argv[2]), float(sys.argv[3])
        iters = int(sys.argv[4]) if len(sys.argv) > 4 else 20
        batches = int(sys.argv[5]) if len(sys.argv) > 5 else 10
        port = 29500 + os.getpid() % 1000
        mp.spawn(_allreduce_worker, args=(nranks, mib, iters, batches, port), nprocs=nranks, join=True)
        return
    import torch

    if case == "sum":
        n = 1 << int(sys.argv[2])
        reps = int(sys.argv[3]) if len(sys.argv) > 3 else 20
        x = torch.rand(n, device="cuda:0")
        ms = _time_one_gpu(lambda: x.sum(), reps)
        print(json.dumps({"case": "sum", "impl": "torch", "ms_one_gpu": round(ms, 4)}), flush=True)
    elif case == "mean":
        rows, cols = int(sys.argv[2]), int(sys.argv[3])
        reps = int(sys.argv[4]) if len(sys.argv) > 4 else 20
        x = torch.rand(rows, cols, device="cuda:0")
        ms = _time_one_gpu(lambda: x.mean(dim=1), reps)
        print(json.dumps({"case": "mean", "impl": "torch", "ms_one_gpu": round(ms, 4)}), flush=True)
    else:
        raise SystemExit(f"unknown case {case}")


if __name__ == "__main__":
    main()
