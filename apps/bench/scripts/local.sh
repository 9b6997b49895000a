#!/usr/bin/env bash
# `pnpm bench:local`: the benchmark workloads at full size (the `device` profile: the shapes and step counts of the
# H200 results) on this machine's WebGPU adapter, with PyTorch's reference beside them where `import torch` works
# (CUDA when available, else CPU). Writes results/local/: neura.json, pytorch.json, README.md (the same tables as
# results/README.md) and step-time-ratios.svg. Arguments go to the neura run, e.g. `pnpm bench:local --only mlp,matmul`
# (on a software adapter the 6-layer GPT takes hours: pick workloads with --only). NEURA_ADAPTER picks the adapter.
set -euo pipefail
cd "$(dirname "$0")/.."
out=results/local
mkdir -p "$out"
pnpm -s exec tsx --conditions=@neura/source src/run.ts --profile device --out "$out/neura.json" "$@"
if python3 -c 'import torch' 2>/dev/null; then
  echo "[bench] PyTorch $(python3 -c 'import torch; print(torch.__version__)'): running the reference workloads" >&2
  python3 python/reference.py >"$out/pytorch.json"
else
  echo "[bench] no PyTorch here (python3 -c 'import torch' failed): the tables show neura alone" >&2
  echo '{"framework":"pytorch","version":"not installed","device":"this machine","results":{}}' >"$out/pytorch.json"
fi
pnpm -s exec tsx src/report.ts "$out/neura.json" "$out/pytorch.json" >/dev/null
echo "[bench] wrote $out/README.md and $out/step-time-ratios.svg" >&2
