"""The GPU benchmarks' timing method, in one place: CUDA events around the call, a 256 MiB
write (torch's fill_) before every timed call to flush the L2 (50 MB on an H100).

BENCH_HIDE_HOST=US (environment): after the flush, the GPU also spins for US microseconds
(torch.cuda._sleep) before the start event, so that the call's host work (Python, ctypes,
torch.compile's guards) is done while the GPU is still busy and the events time only the GPU's
work: the kernels and the gaps between them. Without it, host work longer than the flush shows
in the time, which is what a caller sees but moves with the host's load."""
import os

import torch


class Timer:
    def __init__(self, dev):
        self.flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
        self.ev0 = torch.cuda.Event(enable_timing=True)
        self.ev1 = torch.cuda.Event(enable_timing=True)
        self.spin = 0
        us = float(os.environ.get("BENCH_HIDE_HOST", "0") or 0)
        if us > 0:  # cycles per microsecond, from a timed spin
            a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda._sleep(1000)
            a.record()
            torch.cuda._sleep(1 << 20)
            b.record()
            b.synchronize()
            self.spin = int(us * (1 << 20) / (a.elapsed_time(b) * 1000))

    def timed(self, f, r):
        """(milliseconds, result) of f(), after a flush whose byte depends on round r."""
        self.flush.fill_(r & 0xff)
        if self.spin:
            torch.cuda._sleep(self.spin)
        self.ev0.record()
        y = f()
        self.ev1.record()
        self.ev1.synchronize()
        return self.ev0.elapsed_time(self.ev1), y


def median(v):
    v = sorted(v)
    return v[len(v) // 2]


def alternate(timer, fns, reps, warmup=5, warm=False):
    """Median ms of each of fns, a list of (f, release or None): every round times each once,
    the round number rotating which goes first; release(result) runs outside the timing. With
    warm, each timed call follows an untimed call of the same function (then the flush), as in a
    loop that calls it; without, each follows the one before it in the rotation, which favours
    a function that follows another on its own inputs (docs/perf_log.md)."""
    def call(i, timed, r):
        ms, y = timer.timed(fns[i][0], r) if timed else (None, fns[i][0]())
        if fns[i][1] is not None:
            fns[i][1](y)
        del y
        return ms

    times = [[] for _ in fns]
    for r in range(-warmup, reps):
        for j in range(len(fns)):
            i = (j + r) % len(fns)
            if warm:
                call(i, False, r)
            ms = call(i, True, r)
            if r >= 0:
                times[i].append(ms)
    return [median(t) for t in times]


def write_report(out_dir, stem, title, header, lines, payload):
    """OUT_DIR/stem.md (a title, a markdown table of `header` and the row `lines`) and
    OUT_DIR/stem.json (payload); prints the table."""
    import json
    import os
    md = [title, "", "| " + " | ".join(header) + " |",
          "|" + "|".join("---" if k < 2 and h in ("case", "dtype") else "---:" for k, h in enumerate(header)) + "|"]
    md += lines
    open(os.path.join(out_dir, stem + ".md"), "w").write("\n".join(md) + "\n")
    json.dump(payload, open(os.path.join(out_dir, stem + ".json"), "w"), indent=1)
    print("\n".join(md))
