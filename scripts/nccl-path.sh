#!/usr/bin/env bash
# Prints the path of a libnccl.so.2 for TENSOR_NCCL_LIBRARY (the dist module loads NCCL at run
# time): the copy PyTorch ships (the nvidia-nccl wheel), so that a benchmark against
# torch.distributed runs the same NCCL, else the one the dynamic loader knows, else nothing
# (exit 1).
#     export TENSOR_NCCL_LIBRARY=$(scripts/nccl-path.sh)
set -u
p=$(python3 - 2>/dev/null <<'PY'
import glob, os
try:
    import nvidia.nccl
    for d in nvidia.nccl.__path__:
        for f in sorted(glob.glob(os.path.join(d, "lib", "libnccl.so*"))):
            print(f)
            raise SystemExit
except ImportError:
    pass
PY
)
if [ -z "$p" ]; then
  p=$(ldconfig -p 2>/dev/null | awk '/libnccl\.so\.2 /{print $NF; exit}')
fi
if [ -z "$p" ]; then
  for f in /usr/local/cuda/lib64/libnccl.so.2 /usr/local/cuda/lib/libnccl.so.2 /usr/lib/x86_64-linux-gnu/libnccl.so.2; do
    if [ -e "$f" ]; then p=$f; break; fi
  done
fi
[ -n "$p" ] || exit 1
echo "$p"
