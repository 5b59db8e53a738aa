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
