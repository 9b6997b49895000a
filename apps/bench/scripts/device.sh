#!/usr/bin/env bash
# `pnpm bench:device`: packs the H200 kit (.devkit/, see shared/device/prepare.sh) and bundles the benchmark
# into .devkit/bench.mjs (webgpu left external, so it resolves to the kit's Dawn). Then, on the GPU machine:
#   source .devkit/enter.sh && node .devkit/bench.mjs --profile device --out $OUT/neura.json \
#     && python3 apps/bench/python/reference.py > $OUT/pytorch.json
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
[[ -f .devkit/enter.sh ]] || bash ../shared/device/prepare.sh
npx esbuild apps/bench/src/run.ts --bundle --platform=node --format=esm --external:webgpu \
  --conditions=@neura/source --outfile=.devkit/bench.mjs --log-level=warning \
  --banner:js="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
ls -la .devkit/bench.mjs | awk '{print "bench:device: bundled " $NF " (" $5 " bytes)"}'
