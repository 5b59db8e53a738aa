"""The GPU benchmark cases (bench/cuda/cases.json) for the
scripts that run them: run.py (timing) and profile.sh (Nsight Compute)."""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def load():
    return json.load(open(os.path.join(HERE, "cases.json")))["cases"]


def by_name():
    """The suite's cases by name, plus those of the JSON file named by EXTRA_CASES (a list of
    cases in the suite's format), for profiling shapes outside the suite."""
    cs = load()
    extra = os.environ.get("EXTRA_CASES")
    if extra:
        cs = cs + json.load(open(extra))
    return {c["name"]: c for c in cs}


def line(c):
    """The case as one line of bench_sum's CASES_FILE (see bench_sum.c)."""
    dims = c["dims"] or []
    return (f'{c["name"]} {c["dtype"]} {int(c["transposed"])} {int(c["keepdim"])} {len(c["shape"])} '
            + " ".join(map(str, c["shape"])) + f" {len(dims)} " + " ".join(map(str, dims)))


def torch_input(torch, c, dev):
    """The case's input as torch makes it: uniform in [-1, 1) for floats, [-100, 100) for
    integers; the transpose of a contiguous tensor when the case says so."""
    d = getattr(torch, c["dtype"])
    if d.is_floating_point:
        x = torch.rand(c["shape"], device=dev, dtype=torch.float32).mul_(2).sub_(1).to(d)
    else:
        x = torch.randint(-100, 100, c["shape"], device=dev, dtype=torch.int64).to(d)
    return x.t() if c["transposed"] else x


def torch_call(x, c):
    dims = c["dims"]
    return (lambda: x.sum()) if dims is None else (lambda: x.sum(dim=dims, keepdim=c["keepdim"]))
