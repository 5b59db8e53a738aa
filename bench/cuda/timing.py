"""The GPU benchmarks' timing method, in one place: CUDA events around the call, a 256 MiB
write (torch's fill_) before every timed call to flush the L2 (50 MB on an H100)."""
import torch


class Timer:
    def __init__(self, dev):
        self.flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
        self.ev0 = torch.cuda.Event(enable_timing=True)
        self.ev1 = torch.cuda.Event(enable_timing=True)

    def timed(self, f, r):
        """(milliseconds, result) of f(), after a flush whose byte depends on round r."""
        self.flush.fill_(r & 0xff)
        self.ev0.record()
        y = f()
        self.ev1.record()
        self.ev1.synchronize()
        return self.ev0.elapsed_time(self.ev1), y


def median(v):
    v = sorted(v)
    return v[len(v) // 2]


def alternate(timer, fns, reps, warmup=5):
    """Median ms of each of fns, a list of (f, release or None): every round times each once,
    the round number rotating which goes first; release(result) runs outside the timing."""
    times = [[] for _ in fns]
    for r in range(-warmup, reps):
        for j in range(len(fns)):
            i = (j + r) % len(fns)
            ms, y = timer.timed(fns[i][0], r)
            if fns[i][1] is not None:
                fns[i][1](y)
            del y
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
