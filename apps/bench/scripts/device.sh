#!/usr/bin/env bash
# `pnpm bench:device`: packs the GPU-machine kit (.devkit/, see scripts/devkit/prepare.sh) and bundles the benchmark
# into .devkit/bench.mjs (webgpu left external, so it resolves to the kit's Dawn). Then, on the GPU machine:
#   source .devkit/enter.sh && node .devkit/bench.mjs --profile device --out $OUT/neura.json \
#     && node .devkit/tfjs.mjs --profile device --out $OUT/tfjs.json \
#     && python3 apps/bench/python/reference.py > $OUT/pytorch.json
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
[[ -f .devkit/enter.sh ]] || bash apps/bench/scripts/devkit/prepare.sh
# CommonJS dependencies (TF.js) need a `require` inside the ESM bundle
banner="import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);"
for entry in run:bench tfjs:tfjs; do
  npx esbuild "apps/bench/src/${entry%%:*}.ts" --bundle --platform=node --format=esm --external:webgpu \
    --conditions=@neura/source --outfile=".devkit/${entry##*:}.mjs" --log-level=warning --banner:js="$banner"
  ls -la ".devkit/${entry##*:}.mjs" | awk '{print "bench:device: bundled " $NF " (" $5 " bytes)"}'
done
