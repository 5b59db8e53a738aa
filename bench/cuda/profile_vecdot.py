#!/usr/bin/env python3
"""Nsight Compute side by side for tensor_vecdot: for each case of bench_vecdot.py (any set,
by name), one call of ours and then one of torch.compile's (a * b).sum(dim), each inside
an NVTX range that ncu is told to profile, so no warm-up, compile or autotuning launch is
caught. Kernels are assigned to the cases in launch order: ours are the library's (tt_...),
the rest torch.compile's.
Prints, per kernel: grid, block, registers, duration, DRAM throughput and achieved /
theoretical occupancy. Inductor's kernels are often two (a split reduction and its combine):
both are listed under the case. The L2 is flushed by a 256 MiB write before each call, as in
the benchmark; ncu's own cache flush and clock locking are off, so durations compare with the
benchmark's.

usage: profile_vecdot.py BUILD_DIR OUT_DIR CASE[,CASE...]
Writes OUT_DIR/profile_vecdot.csv (ncu's raw CSV) and OUT_DIR/profile_vecdot.md (the table).
Needs ncu on PATH (or /usr/local/cuda/bin). PROFILE_VECDOT_INDUCTOR=1 also writes Inductor's
generated code for the cases to OUT_DIR/inductor.log (TORCH_LOGS=output_code).
PROFILE_VECDOT_SECTIONS=WarpStateStats,SourceCounters (ncu section names) collects those too:
their metrics (stall reasons, branch and memory counters) are in the CSV, not in the table."""
import csv, io, os, shutil, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import vecdot_cases  # noqa: E402 (beside this file)


def case_table():
    """Every set of vecdot_cases.py (CASES, SWEEP, ints, layouts, rows, odd), by name."""
    import torch
    cases, sweep = vecdot_cases.lists(torch)
    more = vecdot_cases.ints(torch) + vecdot_cases.layouts(torch) + vecdot_cases.rows(torch) + vecdot_cases.odd(torch)
    return {c[0]: c for c in cases + sweep + more}


def workload(build_dir, names):
    """Run under ncu: each case's two calls, ours first, each in an NVTX range "prof"."""
    import torch
    import tt_ctypes
    table, dev = case_table(), torch.device("cuda")
    lib = tt_ctypes.load(build_dir)
    flush = torch.empty(256 << 20, dtype=torch.uint8, device=dev)
    for n in names:
        a, b, dim = vecdot_cases.make_inputs(torch, table[n], dev)
        va, vb = tt_ctypes.view_of(lib, a), tt_ctypes.view_of(lib, b)
        torch._dynamo.reset()
        compiled = torch.compile(lambda x, y: (x * y).sum(dim), dynamic=False)
        for _ in range(3):  # compile, autotune and warm up outside the ranges
            compiled(a, b)
            lib.tensor_release(lib.tensor_vecdot(va, vb, dim))
        for who in ("ours", "compile"):
            flush.fill_(1)
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_push("prof")
            r = lib.tensor_vecdot(va, vb, dim) if who == "ours" else compiled(a, b)
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_pop()
            if who == "ours":
                if not r:
                    raise RuntimeError("tensor_vecdot: " + lib.tensor_last_error().decode())
                lib.tensor_release(r)
        lib.tensor_release(va)
        lib.tensor_release(vb)


def table(text, cases):
    """The markdown rows of ncu's CSV (text), kernels assigned to `cases` in launch order."""
    lines = text.splitlines()
    start = next((i for i, l in enumerate(lines) if l.startswith('"ID"')), None)
    if start is None:
        return None
    kernels = {}
    for row in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        k = kernels.setdefault(row["ID"], {"kernel": row["Kernel Name"], "grid": row["Grid Size"],
                                           "block": row["Block Size"]})
        k[row["Metric Name"]] = row["Metric Value"]
    at, phase = 0, "ours"
    md = ["| case | engine | kernel | grid | block | registers | duration (ns) | DRAM % | occupancy % (theoretical) |",
          "|---|---|---|---|---|---:|---:|---:|---:|"]
    for _, k in sorted(kernels.items(), key=lambda kv: int(kv[0])):
        ours = "tt_" in k["kernel"].split("<")[0]
        if ours and phase == "compile":
            at += 1
        phase = "ours" if ours else "compile"
        name = k["kernel"].replace("tt_reduce::", "").replace("void ", "")[:60]
        md.append(f"| {cases[at] if at < len(cases) else '?'} | {phase} | {name} | {k['grid']} | {k['block']} | "
                  f"{k.get('Registers Per Thread', '')} | {k.get('Duration', '')} | {k.get('DRAM Throughput', '')} | "
                  f"{k.get('Achieved Occupancy', '')} ({k.get('Theoretical Occupancy', '')}) |")
    return md


def main():
    if len(sys.argv) == 4 and os.environ.get("PROFILE_VECDOT_CHILD") == "1":
        workload(sys.argv[1], sys.argv[3].split(","))
        return
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    build_dir, out_dir, names = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(out_dir, exist_ok=True)
    unknown = [n for n in names.split(",") if n not in case_table()]
    if unknown:
        sys.exit("profile_vecdot.py: unknown case(s): " + ", ".join(unknown))
    ncu = shutil.which("ncu") or "/usr/local/cuda/bin/ncu"
    if os.environ.get("PROFILE_VECDOT_INDUCTOR") == "1":
        code = ("import sys, torch; sys.path.insert(0, %r); import profile_vecdot as p\n"
                "t = p.case_table()\n"
                "for n in %r.split(','):\n"
                "    a, b, dim = p.vecdot_cases.make_inputs(torch, t[n], torch.device('cuda')); print('=== case', n, flush=True)\n"
                "    torch._dynamo.reset(); torch.compile(lambda x, y: (x * y).sum(dim), dynamic=False)(a, b)\n"
                "    torch.cuda.synchronize()\n") % (HERE, names)
        with open(os.path.join(out_dir, "inductor.log"), "w") as log:
            subprocess.run([sys.executable, "-c", code], stdout=log, stderr=subprocess.STDOUT,
                           env=dict(os.environ, TORCH_LOGS="output_code"), check=False)
    sections = ["SpeedOfLight", "LaunchStats", "Occupancy"]
    sections += [x for x in os.environ.get("PROFILE_VECDOT_SECTIONS", "").split(",") if x and x not in sections]
    cmd = [ncu, "--nvtx", "--nvtx-include", "prof/", "--clock-control", "none", "--cache-control", "none"]
    for x in sections:
        cmd += ["--section", x]
    cmd += ["--csv", "--page", "details", sys.executable, os.path.abspath(__file__), build_dir, out_dir, names]
    res = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, PROFILE_VECDOT_CHILD="1"))
    open(os.path.join(out_dir, "profile_vecdot.csv"), "w").write(res.stdout)
    if res.returncode != 0:
        sys.stderr.write(res.stderr)
        sys.exit(f"profile_vecdot.py: ncu exited with {res.returncode}")
    md = table(res.stdout, names.split(","))
    if md is None:
        sys.exit("profile_vecdot.py: no kernel was profiled (ncu's output is in profile_vecdot.csv)")
    open(os.path.join(out_dir, "profile_vecdot.md"), "w").write("\n".join(md) + "\n")
    print("\n".join(md))


if __name__ == "__main__":
    main()
