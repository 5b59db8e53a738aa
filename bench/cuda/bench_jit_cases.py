"""The JIT user reductions on every float32 and bfloat16 case of cases.json: a user sum against
tensor_sum and a user abs-sum against tensor_norm(p=1), each through bench_jit's "case" mode
(one process per case; median of REPS alternating (ABBA) synchronised calls, host clock), with
whether the outputs are bitwise equal, each call's host part (until it returned), and the
ratio per call in batches of back-to-back calls (the steady state of a program that calls it
in a loop). Prints a markdown table.
usage: python3 bench_jit_cases.py BUILD_DIR [REPS]   (BUILD_DIR holds bench_jit: run_jit_graph.sh builds it)"""
import json
import os
import subprocess
import sys

build = sys.argv[1]
reps = sys.argv[2] if len(sys.argv) > 2 else "30"
here = os.path.dirname(os.path.abspath(__file__))
cases = json.load(open(os.path.join(here, "cases.json")))
cases = cases["cases"] if isinstance(cases, dict) else cases
print("| case | dtype | user sum ms | tensor_sum ms | ratio | batched ratio | bitwise | user abs-sum ms | norm(p=1) ms "
      "| ratio | batched ratio | bitwise | host us: user sum / sum / user abs / norm1 |")
print("|---|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---|---|")
worst = worst_batched = 0.0
for c in cases:
    if c["dtype"] not in ("float32", "bfloat16"):
        continue
    dims = "all" if c["dims"] is None else ",".join(str(d) for d in c["dims"])
    args = [os.path.join(build, "bench_jit"), "case", reps, c["dtype"], "1" if c.get("transposed") else "0",
            ",".join(str(s) for s in c["shape"]), dims, "1" if c["keepdim"] else "0"]
    out = subprocess.run(args, capture_output=True, text=True)
    line = [l for l in out.stdout.splitlines() if l.startswith("case ")]
    if out.returncode != 0 or not line:
        print(f"| {c['name']} | {c['dtype']} | failed: {out.stderr.strip()[:80]} |")
        continue
    f = line[0].split()[1:]
    u, b, ua, n1 = (float(v) for v in f[0:4])
    s1, s2 = f[4], f[5]
    host = [float(v) for v in f[6:10]]
    bu, bb, bua, bn1 = (float(v) for v in f[10:14])
    r1, r2, q1, q2 = u / b, ua / n1, bu / bb, bua / bn1
    worst, worst_batched = max(worst, r1, r2), max(worst_batched, q1, q2)
    print(f"| {c['name']} | {c['dtype']} | {u:.4f} | {b:.4f} | {r1:.3f} | {q1:.3f} | {'yes' if s1 == '1' else 'NO'} "
          f"| {ua:.4f} | {n1:.4f} | {r2:.3f} | {q2:.3f} | {'yes' if s2 == '1' else 'NO'} "
          f"| {' / '.join(f'{h * 1e3:.1f}' for h in host)} |")
print(f"\nworst user / built-in ratio: {worst:.3f} (synchronised calls), {worst_batched:.3f} (calls in a batch)")
