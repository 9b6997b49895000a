#!/usr/bin/env bash
# pack-check (`pnpm pack:check`, part of CI): what a user gets from npm. Builds (turbo), packs the seven packages
# with pnpm (workspace:^ becomes ^version), lints each tarball with `publint --strict` and `attw` (ESM-only
# profile: node10 and require() are not supported), installs the tarballs into a fresh project outside the
# workspace (tooling/consumer/, copied to a temp folder) and checks, in order: imports and the missing-`webgpu`
# error before the optional peer is installed; every README example in Node ESM; TypeScript under nodenext and
# bundler resolution with @webgpu/types; an esbuild browser bundle of @neura/nn, run in headless Chromium when
# /usr/bin/chromium exists (CI installs it). NEURA_PACK_OUT=dir keeps a copy of the tarballs (release.sh). Offline-friendly: every
# package comes from the tarballs or pnpm's store (--prefer-offline).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
pkgs=(ir egraph autograd optim wgsl-kernels runtime-webgpu nn)
work=$(mktemp -d /tmp/neura-pack.XXXXXX)
[[ ${KEEP:-} ]] || trap 'rm -rf "$work"' EXIT
t0=$SECONDS

pnpm -s build >/dev/null
mkdir -p "$work/tarballs"
for p in "${pkgs[@]}"; do (cd "packages/$p" && pnpm pack --pack-destination "$work/tarballs" >/dev/null); done
# release.sh publishes exactly the tarballs checked here
if [[ ${NEURA_PACK_OUT:-} ]]; then cp "$work"/tarballs/*.tgz "$NEURA_PACK_OUT/"; fi

for t in "$work"/tarballs/*.tgz; do
  name=$(basename "$t" .tgz)
  pnpm exec publint run --strict "$t" >"$work/publint.log" 2>&1 || { cat "$work/publint.log"; echo "pack-check: publint failed for $name"; exit 1; }
  pnpm exec attw "$t" --profile esm-only --format table-flipped --no-emoji >"$work/attw.log" 2>&1 || { cat "$work/attw.log"; echo "pack-check: attw failed for $name"; exit 1; }
done
echo "pack-check: 7 tarballs pass publint --strict and attw (esm-only) ($((SECONDS - t0)) s)"

# the fresh project: tarballs for the seven packages (overrides so their own @neura/* ranges use them too)
mkdir "$work/consumer"
cp tooling/consumer/*.mjs tooling/consumer/*.ts tooling/consumer/*.json "$work/consumer/"
ver() { node -p "require('$root/$1/package.json').devDependencies['$2'] ?? require('$root/$1/package.json').dependencies['$2']"; }
node - "$work" "${pkgs[@]}" <<'JS'
const fs = require('fs');
const [work, ...pkgs] = process.argv.slice(2);
const tgz = fs.readdirSync(`${work}/tarballs`);
const deps = {};
for (const p of pkgs) deps[`@neura/${p}`] = `file:../tarballs/${tgz.find((f) => f.startsWith(`neura-${p}-`))}`;
fs.writeFileSync(`${work}/consumer/package.json`, JSON.stringify({ name: 'neura-consumer', private: true, type: 'module', dependencies: deps, pnpm: { overrides: deps } }, null, 2));
JS
cd "$work/consumer"
pnpm_i() { pnpm "$@" --prefer-offline --config.confirmModulesPurge=false --reporter=silent; }
pnpm_i install
node noWebgpu.mjs
pnpm_i add "webgpu@$(ver packages/runtime-webgpu webgpu)"
pnpm_i add -D "typescript@$(ver . typescript)" "@webgpu/types@$(ver . @webgpu/types)" "@types/node@$(ver . @types/node)" "esbuild@$(ver . esbuild)"
node readmeExamples.mjs
pnpm exec tsc -p tsconfig.nodenext.json
pnpm exec tsc -p tsconfig.bundler.json
echo "pack-check: consumer.ts type-checks under nodenext (DOM lib) and bundler (+ @webgpu/types) resolution; device.gpu is a GPUDevice"
pnpm exec esbuild browser.ts --bundle --platform=browser --format=esm --outfile=out/browser.js --log-level=warning
if grep -Eq "from ['\"]node:|import\(['\"]node:" out/browser.js; then echo "pack-check: the browser bundle imports a node: builtin"; exit 1; fi
echo "pack-check: @neura/nn bundles for the browser ($(($(wc -c <out/browser.js) / 1024)) KiB, esbuild --platform=browser)"
pnpm_i add -D "playwright-core@$(ver apps/demo playwright-core)"
node browserRun.mjs
echo "pack-check: done in $((SECONDS - t0)) s"
