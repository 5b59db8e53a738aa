"""The JIT user reductions on every float32 and bfloat16 case of cases.json: a user sum against
tensor_sum and a user abs-sum against tensor_norm(p=1), each through bench_jit's "case" mode
(one process per case; median of REPS alternating synchronised calls, host clock), with
whether the outputs are bitwise equal. Prints a markdown table.
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
print("| case | dtype | user sum ms | tensor_sum ms | ratio | bitwise | user abs-sum ms | norm(p=1) ms | ratio | bitwise |")
print("|---|---|---:|---:|---:|---|---:|---:|---:|---|")
worst = 0.0
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
    u, b, ua, n1, s1, s2 = line[0].split()[1:]
    r1, r2 = float(u) / float(b), float(ua) / float(n1)
    worst = max(worst, r1, r2)
    print(f"| {c['name']} | {c['dtype']} | {float(u):.4f} | {float(b):.4f} | {r1:.3f} | {'yes' if s1 == '1' else 'NO'} "
          f"| {float(ua):.4f} | {float(n1):.4f} | {r2:.3f} | {'yes' if s2 == '1' else 'NO'} |")
print(f"\nworst user / built-in ratio: {worst:.3f}")
